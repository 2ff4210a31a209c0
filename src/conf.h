/*
 * chainwatch.conf: one table of keys (section, key, type, default, limits)
 * drives parsing, the defaults, `chainwatchd -n -v` and the check that the
 * man page documents exactly the keys that are parsed.
 */
#ifndef CW_CONF_H
#define CW_CONF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "log.h"

#define CONF_NAME_MAX	32	/* chain and endpoint names */
#define CONF_URL_MAX	512
#define CONF_INFLIGHT_MAX	256	/* max_inflight's range: 1 .. */

enum conf_section {
	CONF_DAEMON,
	CONF_CHAIN,
};

enum conf_type {
	CT_STRING,	/* free text */
	CT_PATH,	/* an absolute path */
	CT_UINT,	/* a whole number within [min, max] */
	CT_DURATION,	/* "500ms", "12s", "5m", "1h"; a bare number is seconds */
	CT_SIZE,	/* "4096", "512K", "256M", "1G" */
	CT_ENUM,	/* one of choices[], stored as its index */
	CT_ENDPOINT,	/* "NAME RPC_URL WS_URL", repeatable */
	CT_URL,		/* the legacy single rpc_url / ws_url */
	CT_LISTEN,	/* "ADDRESS:PORT" (IPv4 or [IPv6]) or "none" */
	CT_WORDS,	/* words of [A-Za-z0-9_-], by spaces or commas */
};

enum subscribe_mode {
	SUBSCRIBE_ALL = 0,
	SUBSCRIBE_PRIMARY = 1,
};

struct conf_key {
	enum conf_section	 section;
	const char		*key;
	enum conf_type		 type;
	const char		*dflt;		/* NULL: no default */
	uint64_t		 min, max;	/* CT_UINT, CT_DURATION (ms), CT_SIZE */
	const char *const	*choices;	/* CT_ENUM, NULL-terminated */
	size_t			 offset;	/* into conf_daemon or conf_chain */
};

struct conf_endpoint {
	char	name[CONF_NAME_MAX + 1];
	char	rpc_url[CONF_URL_MAX + 1];
	char	ws_url[CONF_URL_MAX + 1];
	int	line;
};

struct conf_chain {
	char			 name[CONF_NAME_MAX + 1];
	int			 line;
	unsigned		 format;	/* enum chain_format */
	uint64_t		 block_time;	/* ms */
	uint64_t		 backfill_from;
	unsigned		 subscribe;	/* enum subscribe_mode */
	uint64_t		 stall_factor;
	uint64_t		 connect_timeout;	/* ms */
	uint64_t		 request_timeout;	/* ms */
	uint64_t		 max_response;		/* bytes */
	uint64_t		 breaker_failure_rate;	/* percent */
	uint64_t		 breaker_window;	/* ms */
	uint64_t		 breaker_min_samples;
	uint64_t		 breaker_consecutive;
	uint64_t		 breaker_min_span;	/* ms */
	uint64_t		 breaker_cooldown;	/* ms */
	uint64_t		 breaker_cooldown_max;	/* ms */
	uint64_t		 max_inflight;		/* per endpoint */
	uint64_t		 hedge_after;		/* ms */
	uint64_t		 hedge_quantile;	/* percent, 0: off */
	uint64_t		 difficulty_floor;	/* the retarget's least */
	char			 rpc_url[CONF_URL_MAX + 1];	/* legacy pair */
	int			 rpc_url_line;
	char			 ws_url[CONF_URL_MAX + 1];
	int			 ws_url_line;
	struct conf_endpoint	*endpoints;
	size_t			 n_endpoints;
	unsigned		 n_rejected;	/* endpoint lines with errors */
};

struct conf_daemon {
	char		database[CONF_URL_MAX + 1];
	unsigned	synchronous;		/* 0 normal, 1 full */
	uint64_t	store_reserve;		/* bytes kept free, 0: none */
	uint64_t	store_cache;		/* bytes of page cache */
	char		pidfile[CONF_URL_MAX + 1];
	char		user[CONF_NAME_MAX + 1];
	char		worker[CONF_URL_MAX + 1];
	unsigned	log_level;		/* enum log_level */
	uint64_t	worker_memory_limit;	/* bytes, 0 = none */
	uint64_t	heartbeat_interval;	/* ms */
	uint64_t	stop_timeout;		/* ms */
	char		control_socket[CONF_URL_MAX + 1];
	char		control_owner[CONF_NAME_MAX + 1];	/* "": ours */
	char		control_group[CONF_NAME_MAX + 1];
	char		metrics_listen[CONF_URL_MAX + 1];	/* "none": off */
	char		metrics_server[CONF_URL_MAX + 1];
	char		metrics_cors_origin[CONF_URL_MAX + 1];	/* "": none */
	char		secret_params[CONF_URL_MAX + 1];	/* more words */
};

struct conf {
	char			 path[4096];
	struct conf_daemon	 daemon;
	struct conf_chain	*chains;
	size_t			 n_chains;
	int			 daemon_line[32];	/* by conf_keys index */
	char			**errors;	/* "FILE:LINE: message" */
	size_t			 n_errors;
};

extern const struct conf_key conf_keys[];
extern const size_t conf_nkeys;

/*
 * Parse path into a new conf.  Always returns one; it is valid only when
 * n_errors is 0.  Errors are complete lines, ready to print.
 */
struct conf *conf_load(const char *path);
struct conf *conf_load_string(const char *name, const char *text);
void	conf_free(struct conf *);

/* The line a [daemon] key was set on, 0 for its default. */
int	conf_daemon_line(const struct conf *, const char *key);
/*
 * Where a message about a [daemon] key points, and the key with its value:
 * "FILE:LINE: key VALUE" when the file sets it, "FILE: key VALUE (the
 * default; no key line in [daemon])" when it does not.  No line 0.
 */
void	conf_daemon_where(const struct conf *, const char *key,
	    const char *value, char *out, size_t outlen);

/* Print every key with its effective value, URLs redacted. */
void	conf_dump(const struct conf *, FILE *);

/* Helpers shared with tests and -n output. */
int	conf_parse_duration(const char *, uint64_t *ms);
int	conf_parse_size(const char *, uint64_t *bytes);
/*
 * A duration (CT_DURATION, ms) or a size (CT_SIZE, bytes) as the
 * configuration writes it and chainwatch.conf(5) shows it: "0", "100ms",
 * "600s", "24h"; "4K", "2M", "1G".  Other types: the number.  Used by -nv,
 * range errors and the man page check.
 */
#define CONF_VALUE_LEN	32
void	conf_fmt_value(enum conf_type, uint64_t v, char *out, size_t outlen);
/*
 * "ADDRESS:PORT" as listen_addr_parse() takes it, or "none" (addr "" and
 * port 0).
 */
int	conf_parse_listen(const char *, char *addr, size_t addrlen,
	    unsigned *port);
/*
 * A URL of one of the schemes in schemes[] ("http", "https").  On success
 * host (without brackets or port) is copied out.  On error, err says why.
 */
int	conf_check_url(const char *url, const char *const *schemes,
	    char *host, size_t hostlen, char *err, size_t errlen);

#endif
