/*
 * Faults on demand: what is switched on, for which transport, parsed from
 * "NAME[:ARG][@TARGET][%PERCENT]" and from the control requests, and read
 * by every request as a consistent snapshot.
 */
#ifndef DEV_FAULT_H
#define DEV_FAULT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "buf.h"

enum dev_transport {
	TR_HTTP = 0,
	TR_WS = 1,
	TR__COUNT
};

enum dev_fault_id {
	FAULT_REFUSE = 0,
	FAULT_BLACKHOLE,
	FAULT_SLOW,
	FAULT_HTTP_500,
	FAULT_HTTP_503,
	FAULT_RATE_LIMIT,
	FAULT_MALFORMED,
	FAULT_TRUNCATED,
	FAULT_OVERSIZED,
	FAULT_WS_DROP,
	FAULT_WS_SILENT,
	FAULT_STALL,
	FAULT_WRONG_GENESIS,
	FAULT_SPLIT,
	FAULT_FORGE_HEAD,
	FAULT_FORGE_CHAIN,
	FAULT_BAD_NUMBER,
	FAULT_FINALIZED_OFF,
	FAULT_WRONG_HEADER,
	FAULT_WRONG_COUNT,
	FAULT_BATCH_LIMIT,
	FAULT_LAG,
	FAULT_RESET,
	FAULT_BAD_SEAL,
	FAULT_DIFFICULTY_X100,
	FAULT_DIFFICULTY_DIV100,
	FAULT_TIMESTAMP_AHEAD,
	FAULT_TIMESTAMP_EARLY,
	FAULT__COUNT
};

#define DEV_FAULT_SPEC_MAX	64

/* One parsed "NAME[:ARG][@TARGET][%PERCENT]". */
struct dev_fault_spec {
	enum dev_fault_id id;
	unsigned	 targets;	/* bit per enum dev_transport */
	uint64_t	 arg;		/* ms, MiB, blocks: see chainwatch-devnode(1) */
	int		 has_arg;
	unsigned	 pct;		/* 1..100 */
};

/* What one transport sees, copied under the lock. */
struct dev_fault_view {
	enum dev_transport tr;
	unsigned	 on;		/* bit per enum dev_fault_id */
	uint64_t	 arg[FAULT__COUNT];
	unsigned	 pct[FAULT__COUNT];
	uint64_t	 stall_head;
	uint64_t	 generation;
};

/*
 * Called (without the fault lock) when faults changed, and to learn the
 * head a stall freezes.  Set once at start by dev_main.
 */
struct dev_fault_hooks {
	uint64_t (*view_head)(enum dev_transport);
	void	(*changed)(void);
	void	(*want_alt_chain)(void);
	/* The split fault went on (for some transport) or off (for all). */
	void	(*split)(int on);
	/* A fault that serves forged headers is coming on: make them. */
	void	(*forge)(enum dev_fault_id, uint64_t arg);
};

void	dev_fault_init(const struct dev_fault_hooks *);
void	dev_fault_shutdown(void);

/* 0, or -1 with a reason (for the command line and the control answers). */
int	dev_fault_parse(const char *, struct dev_fault_spec *, char *err,
	    size_t errlen);
/* NAME[:ARG][@TARGET] form with an explicit target set (for disabling). */
int	dev_fault_enable(const struct dev_fault_spec *);
int	dev_fault_disable(const struct dev_fault_spec *);
void	dev_fault_clear(void);

void	dev_fault_snapshot(enum dev_transport, struct dev_fault_view *);
/* 1 if the fault is on for this view and this request is one it hits. */
int	dev_fault_hit(const struct dev_fault_view *, enum dev_fault_id);
static inline int
dev_fault_on(const struct dev_fault_view *v, enum dev_fault_id id)
{
	return (v->on >> id) & 1;
}
const char *dev_fault_name(enum dev_fault_id);
/* 1 for the lies that serve forged headers, made when they come on. */
int	dev_fault_forges(enum dev_fault_id);

/* The current faults as a JSON array of spec strings. */
void	dev_fault_list_json(struct buf *);
/* A one-line text form for the log ("slow:200@http, stall"). */
void	dev_fault_list_text(char *, size_t);

/*
 * A control request, {"enable": SPEC or [SPEC...], "disable": ...,
 * "clear": true}: 0, or -1 with a reason in err.  Nothing is changed
 * unless the whole request is valid.
 */
int	dev_fault_control(const json_t *, char *err, size_t errlen);

#endif
