/*
 * Reload, on SIGHUP or asked over the control socket: parse the file into
 * a new configuration; on any error keep the running one and say why.
 * Otherwise compare by endpoint: unchanged workers keep running, removed
 * ones stop, new and changed ones start.  The caller gets the tally.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "chainwatchd.h"
#include "sup_chain.h"
#include "sup_health.h"
#include "sup_load.h"
#include "sup_metrics.h"
#include "sup_reload.h"
#include "sup_sched.h"
#include "sup_spawn.h"
#include "sup_store.h"
#include "util.h"

static const struct conf_endpoint *
find_endpoint(const struct conf *conf, const char *name,
    const struct conf_chain **chain)
{
	for (size_t i = 0; i < conf->n_chains; i++)
		for (size_t j = 0; j < conf->chains[i].n_endpoints; j++)
			if (strcmp(conf->chains[i].endpoints[j].name, name)
			    == 0) {
				*chain = &conf->chains[i];
				return &conf->chains[i].endpoints[j];
			}
	return NULL;
}

static struct worker *
find_worker(const char *name)
{
	for (struct worker *w = sup_workers; w != NULL; w = w->next)
		if (w->proc.fsm.state != CS_REMOVING &&
		    strcmp(w->name, name) == 0)
			return w;
	return NULL;
}

static void
strv_add(char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
}

/*
 * A [daemon] path that the running daemon holds open: a new value takes a
 * restart.  Logged, told to the caller, and the running value is kept.
 */
static void
restart_key(struct reload_result *r, const char *key, char *new,
    const char *running)
{
	char	msg[2 * CONF_URL_MAX + 128];

	if (strcmp(new, running) == 0)
		return;
	snprintf(msg, sizeof(msg), "%s changed to '%s': that takes a "
	    "restart; still using '%s'", key, new, running);
	log_warnx("%s", msg);
	strv_add(&r->warnings, &r->n_warnings, msg);
	strcpy(new, running);
}

/*
 * Apply `synchronous` to the open store (between its transactions) and
 * say what the connection reads back: a live change, no restart needed.
 */
void
sup_reload_synchronous(unsigned full)
{
	static const char *const names[] = { "off", "normal", "full",
	    "extra" };
	int	level = store_synchronous((int)full);

	if (level < 0 || level > 3)
		log_warnx("database: PRAGMA synchronous cannot be read back");
	else if ((level == 2) != (full != 0))
		log_warnx("database: synchronous is %s, not %s as configured",
		    names[level], full ? "full" : "normal");
	else
		log_debug("database: synchronous = %s", names[level]);
}

/*
 * The new configuration, or NULL with why not in r: the store must take
 * new chains and endpoints as rows, and a configuration with errors is
 * not applied at all.
 */
static struct conf *
reload_conf(struct reload_result *r)
{
	struct conf	*conf;

	if (!store_ready()) {
		const char	*why;
		char		 msg[5600];

		(void)store_blocked(&why, NULL);
		snprintf(msg, sizeof(msg), "%s: not reloading: the store is "
		    "blocked (%s); the running configuration stays, reload "
		    "again once it is not", sup_conf->path, why);
		log_warnx("%s", msg);
		strv_add(&r->errors, &r->n_errors, msg);
		return NULL;
	}
	conf = conf_load(sup_conf->path);
	if (conf->n_errors == 0)
		return conf;
	log_warnx("%s: not reloading: %zu error%s; the running "
	    "configuration stays", conf->path, conf->n_errors,
	    conf->n_errors == 1 ? "" : "s");
	for (size_t i = 0; i < conf->n_errors; i++) {
		log_warnx("%s", conf->errors[i]);
		strv_add(&r->errors, &r->n_errors, conf->errors[i]);
	}
	conf_free(conf);
	return NULL;
}

/* The daemon's own settings: those that need a restart keep their
 * running values, in conf too. */
static void
reload_daemon(struct reload_result *r, struct conf *conf)
{
	restart_key(r, "database", conf->daemon.database,
	    sup_conf->daemon.database);
	restart_key(r, "pidfile", conf->daemon.pidfile,
	    sup_conf->daemon.pidfile);
	restart_key(r, "control_socket", conf->daemon.control_socket,
	    sup_conf->daemon.control_socket);
	restart_key(r, "control_owner", conf->daemon.control_owner,
	    sup_conf->daemon.control_owner);
	restart_key(r, "control_group", conf->daemon.control_group,
	    sup_conf->daemon.control_group);
	if (conf->daemon.synchronous != sup_conf->daemon.synchronous) {
		log_info("synchronous changed to %s: applied to the open "
		    "database", conf->daemon.synchronous ? "full" : "normal");
		sup_reload_synchronous(conf->daemon.synchronous);
	}
	if (!sup_verbose)
		log_setlevel((enum log_level)conf->daemon.log_level);
	store_set_reserve(conf->daemon.store_reserve);
	if (conf->daemon.store_cache != sup_conf->daemon.store_cache) {
		log_info("store_cache changed to %llu KB: applied to the open "
		    "database", (unsigned long long)(conf->daemon.store_cache /
		    1024));
		store_set_cache(conf->daemon.store_cache);
	}
	url_secret_words(conf->daemon.secret_params);
}

/* The workers, in order: stop the removed, restart the changed, start
 * the new. */
static void
reload_workers(struct reload_result *r, const struct conf *conf)
{
	struct worker	*w, *next;

	for (w = sup_workers; w != NULL; w = next) {
		const struct conf_chain		*ch;
		const struct conf_endpoint	*ep;
		void				*cfg;
		size_t				 len;

		next = w->next;
		if (w->proc.fsm.state == CS_REMOVING)
			continue;
		if ((ep = find_endpoint(conf, w->name, &ch)) == NULL) {
			log_info("w/%s: endpoint removed; stopping it",
			    w->name);
			r->removed++;
			sup_worker_event(w, CE_STOP);
			continue;
		}
		health_reconf(w->ep, ch, ep);
		sup_worker_config(conf, ch, ep, &cfg, &len);
		if (len == w->cfg_len && memcmp(cfg, w->cfg, len) == 0) {
			free(cfg);
			r->kept++;
			continue;
		}
		log_info("w/%s: configuration changed; restarting it",
		    w->name);
		free(w->cfg);
		w->cfg = cfg;
		w->cfg_len = len;
		r->changed++;
		sup_worker_event(w, CE_RESTART);
	}
	for (size_t i = 0; i < conf->n_chains; i++)
		for (size_t j = 0; j < conf->chains[i].n_endpoints; j++) {
			const struct conf_endpoint *ep =
			    &conf->chains[i].endpoints[j];

			if (find_worker(ep->name) != NULL)
				continue;
			log_info("w/%s: endpoint added to chain %s", ep->name,
			    conf->chains[i].name);
			r->added++;
			sup_worker_event(sup_worker_new(conf, &conf->chains[i],
			    ep), CE_START);
		}
}

void
sup_reload(struct reload_result *r)
{
	struct conf	*conf;

	memset(r, 0, sizeof(*r));
	if ((conf = reload_conf(r)) == NULL)
		return;
	r->ok = 1;
	reload_daemon(r, conf);
	/* The store learns new chains and endpoints first. */
	sup_chains_load(conf, now_wall_ms());
	load_conf(conf);
	health_sync(conf);
	reload_workers(r, conf);
	sup_spawn_chains();
	sup_metrics_reload(conf);
	conf_free(sup_conf);
	sup_conf = conf;
	log_info("reloaded %s: %u endpoint%s added, %u changed, %u removed, "
	    "%u kept", conf->path, r->added, r->added == 1 ? "" : "s",
	    r->changed, r->removed, r->kept);
}
