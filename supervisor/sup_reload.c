/*
 * SIGHUP: parse the file into a new configuration; on any error keep the
 * running one and say why.  Otherwise compare by endpoint: unchanged
 * workers keep running, removed ones stop, new and changed ones start.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "sup.h"

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
		if (!w->fsm.removing && strcmp(w->name, name) == 0)
			return w;
	return NULL;
}

void
sup_reload(void)
{
	struct conf		*conf;
	struct worker		*w, *next;
	unsigned		 added = 0, changed = 0, removed = 0, kept = 0;
	enum log_level		 level;

	conf = conf_load(sup_conf->path);
	if (conf->n_errors > 0) {
		log_warnx("%s: not reloading: %zu error%s; the running "
		    "configuration stays", conf->path, conf->n_errors,
		    conf->n_errors == 1 ? "" : "s");
		for (size_t i = 0; i < conf->n_errors; i++)
			log_warnx("%s", conf->errors[i]);
		conf_free(conf);
		return;
	}
	if (strcmp(conf->daemon.database, sup_conf->daemon.database) != 0)
		log_warnx("database changed to %s: that takes a restart; "
		    "still using %s", conf->daemon.database,
		    sup_conf->daemon.database);
	if (strcmp(conf->daemon.pidfile, sup_conf->daemon.pidfile) != 0)
		log_warnx("pidfile changed to %s: that takes a restart",
		    conf->daemon.pidfile);
	/* Settings that need a restart keep their running values. */
	strcpy(conf->daemon.database, sup_conf->daemon.database);
	strcpy(conf->daemon.pidfile, sup_conf->daemon.pidfile);
	level = (enum log_level)conf->daemon.log_level;
	if (!sup_verbose)
		log_setlevel(level);

	/* The store learns new chains and endpoints first. */
	sup_chains_load(conf);
	sup_endpoint_sync(conf);

	/* Order: stop the removed, restart the changed, start the new. */
	for (w = sup_workers; w != NULL; w = next) {
		const struct conf_chain		*ch;
		const struct conf_endpoint	*ep;
		void				*cfg;
		size_t				 len;

		next = w->next;
		if (w->fsm.removing)
			continue;
		if ((ep = find_endpoint(conf, w->name, &ch)) == NULL) {
			log_info("w/%s: endpoint removed; stopping it",
			    w->name);
			removed++;
			sup_worker_event(w, WE_STOP);
			continue;
		}
		sup_health_reconf(w, ch);
		w->position = (int)(ep - ch->endpoints);
		sup_worker_config(conf, ch, ep, &cfg, &len);
		if (len == w->cfg_len && memcmp(cfg, w->cfg, len) == 0) {
			free(cfg);
			kept++;
			continue;
		}
		log_info("w/%s: configuration changed; restarting it",
		    w->name);
		free(w->cfg);
		w->cfg = cfg;
		w->cfg_len = len;
		snprintf(w->chain, sizeof(w->chain), "%s", ch->name);
		changed++;
		sup_worker_event(w, WE_RESTART);
	}
	for (size_t i = 0; i < conf->n_chains; i++)
		for (size_t j = 0; j < conf->chains[i].n_endpoints; j++) {
			const struct conf_endpoint *ep =
			    &conf->chains[i].endpoints[j];

			if (find_worker(ep->name) != NULL)
				continue;
			log_info("w/%s: endpoint added to chain %s", ep->name,
			    conf->chains[i].name);
			added++;
			sup_worker_event(sup_worker_new(conf, &conf->chains[i],
			    ep), WE_START);
		}
	conf_free(sup_conf);
	sup_conf = conf;
	log_info("reloaded %s: %u endpoint%s added, %u changed, %u removed, "
	    "%u kept", conf->path, added, added == 1 ? "" : "s", changed,
	    removed, kept);
}
