/*
 * The answers of /api/v1/ per request while the store stays as it was
 * (mtr_apicache.h): a table of MTR_APICACHE_SLOTS, searched in full (it
 * is small), the least recently used answer out first.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mtr_apicache.h"
#include "util.h"

static void
slot_clear(struct mtr_apicache_entry *e)
{
	free(e->key);
	free(e->reply.body);
	memset(e, 0, sizeof(*e));
}

static struct mtr_apicache_entry *
slot_of(struct mtr_apicache *c, const char *key)
{
	size_t	 i;

	for (i = 0; i < MTR_APICACHE_SLOTS; i++)
		if (c->slot[i].key != NULL && strcmp(c->slot[i].key, key) == 0)
			return &c->slot[i];
	return NULL;
}

const struct mtr_api_reply *
mtr_apicache_find(struct mtr_apicache *c, const char *key,
    const struct mtr_store_version *v, uint64_t now)
{
	struct mtr_apicache_entry *e;

	if ((e = slot_of(c, key)) == NULL)
		return NULL;
	/* A clock that went back (now < made) is no reason to trust it. */
	if (e->at.conn != v->conn || e->at.data != v->data ||
	    now < e->made || now - e->made >= MTR_APICACHE_TTL_MS) {
		slot_clear(e);
		return NULL;
	}
	e->used = ++c->tick;
	return &e->reply;
}

const struct mtr_api_reply *
mtr_apicache_put(struct mtr_apicache *c, const char *key,
    const struct mtr_store_version *v, uint64_t now,
    const struct mtr_api_reply *r)
{
	struct mtr_apicache_entry *e, *lru = NULL;
	size_t	 i;

	if ((e = slot_of(c, key)) == NULL) {
		for (i = 0; i < MTR_APICACHE_SLOTS; i++) {
			e = &c->slot[i];
			if (e->key == NULL)
				break;
			if (lru == NULL || e->used < lru->used)
				lru = e;
		}
		if (i == MTR_APICACHE_SLOTS)
			e = lru;
	}
	slot_clear(e);
	e->key = xstrdup(key);
	e->at = *v;
	e->made = now;
	e->used = ++c->tick;
	e->reply = *r;
	return &e->reply;
}

void
mtr_apicache_free(struct mtr_apicache *c)
{
	size_t	 i;

	for (i = 0; i < MTR_APICACHE_SLOTS; i++)
		slot_clear(&c->slot[i]);
	c->tick = 0;
}
