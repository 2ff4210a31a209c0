/*
 * mtr_apicache.c: the answers of /api/v1/, kept per request (its path and
 * normalised query) while the store has not changed, so that a repeated
 * request, and above all a 304, costs no query.  Pure: the store's
 * version and the clock are passed in.
 */
#ifndef MTR_APICACHE_H
#define MTR_APICACHE_H

#include <stddef.h>
#include <stdint.h>

#define MTR_APICACHE_SLOTS	64
/*
 * Some answers hang on the clock as well as on the store (a window's
 * edge, how long an endpoint has been in its state): even while the
 * store stays as it was (chainwatchd stopped, a chain that makes no
 * blocks), an answer is built again after this long.
 */
#define MTR_APICACHE_TTL_MS	10000
#define MTR_APICACHE_ETAG_MAX	24

/*
 * Which store an answer was read from: the connection (counted up at
 * each open, since PRAGMA data_version values of two connections do not
 * compare) and its data_version.
 */
struct mtr_store_version {
	uint64_t	conn;
	int64_t		data;
};

/* An answer as it goes out: what the HTTP side sends. */
struct mtr_api_reply {
	unsigned	 status;
	int64_t		 max_age;	/* seconds, Cache-Control */
	char		 etag[MTR_APICACHE_ETAG_MAX];
	char		*body;
	size_t		 len;
};

struct mtr_apicache_entry {
	char			*key;	/* NULL: a free slot */
	struct mtr_store_version at;
	uint64_t		 made;	/* ms, the clock of find and put */
	uint64_t		 used;	/* the cache's tick at its last use */
	struct mtr_api_reply	 reply;
};

/* All zeroes is an empty cache. */
struct mtr_apicache {
	struct mtr_apicache_entry slot[MTR_APICACHE_SLOTS];
	uint64_t		 tick;
};

/*
 * The answer kept for key, if it was read from store version v and is
 * younger than MTR_APICACHE_TTL_MS at now; else NULL (and an answer of
 * an older version is dropped).  Valid until the next put or free.
 */
const struct mtr_api_reply *mtr_apicache_find(struct mtr_apicache *,
	    const char *key, const struct mtr_store_version *v, uint64_t now);
/*
 * Keep r for key, read from version v at now, in place of any answer
 * kept for key, else in a free slot, else in the least recently used
 * one.  Takes r->body (malloc'd); returns the kept reply.
 */
const struct mtr_api_reply *mtr_apicache_put(struct mtr_apicache *,
	    const char *key, const struct mtr_store_version *v, uint64_t now,
	    const struct mtr_api_reply *r);
void	mtr_apicache_free(struct mtr_apicache *);

#endif
