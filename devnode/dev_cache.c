/*
 * The on-disk cache of generated chains (--cache-dir).  Hashing 1.65
 * million quantus headers takes a minute or more; reading their hashes
 * back takes a fraction of a second.  A file holds the hashes of blocks
 * 0..N-1 and of their old-branch twins, then the nonce steps of their
 * seals (what mining found), for one set of chain parameters (the file
 * name and header carry a digest of all of them), so it serves any
 * backlog up to N.  Files are written whole under a temporary name and
 * renamed, so devnodes sharing a directory never read a partial one; a
 * file that fails its spot checks (hash and seal) is ignored and
 * rewritten.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "hash.h"
#include "hex.h"
#include "log.h"
#include "util.h"

#include "dev_json.h"
#include "dev_chain_int.h"

/* Bump when generation changes what a block hashes to. */
#define CACHE_GENERATOR		3	/* 3: mined seals, QPoW's retarget */
#define CACHE_FORMAT		3	/* of the file itself; 3: nonce steps */
#define CACHE_MAGIC		"CWDEVNODE-CHAIN\n"
#define CACHE_HDR_LEN		128
#define CACHE_IO_RECORDS	65536
#define CACHE_REWRITE_MIN	1000	/* new blocks worth a rewrite */
#define CACHE_SPOT_CHECKS	8

static void
cache_key(const struct dev_chain *c, uint8_t key[32])
{
	struct buf	b;
	unsigned	i;

	buf_init(&b);
	buf_addf(&b, "chainwatch-devnode chain cache %d, generator %d\n",
	    CACHE_FORMAT, CACHE_GENERATOR);
	buf_addf(&b, "format=%s\nseed=", chain_format_name(c->p.format));
	dev_json_hex(&b, c->p.seed, 32, 0);
	buf_addf(&b, "\nminers=%u:", c->p.n_miners);
	for (i = 0; i < c->p.n_miners; i++)
		buf_addf(&b, "%s%u", i > 0 ? "," : "",
		    (unsigned)c->p.weights[i]);
	buf_addf(&b, "\ndifficulty=%llu:%llu\nblock_ms=%llu\n"
	    "reorg=%llu:%u-%u:%s:%s\nspec=%u",
	    (unsigned long long)c->p.difficulty0,
	    (unsigned long long)c->p.min_difficulty,
	    (unsigned long long)c->tm.block_ms,
	    (unsigned long long)c->p.reorg_every, c->p.reorg_min,
	    c->p.reorg_max, dev_reorg_work_name(c->p.reorg_work),
	    dev_fork_choice_name(c->p.fork_choice),
	    (unsigned)c->p.spec_version0);
	for (i = 0; i < c->p.n_spec; i++)
		buf_addf(&b, ";%llu:%u",
		    (unsigned long long)c->p.spec[i].height,
		    (unsigned)c->p.spec[i].version);
	buf_addc(&b, '\n');
	blake2b_256(b.p, b.len, key);
	buf_free(&b);
}

static void
cache_path(const struct dev_chain *c, const uint8_t key[32], char *out,
    size_t outlen)
{
	char	hex[2 * 32 + 3];

	hex_encode(key, 32, hex);
	snprintf(out, outlen, "%s/devnode-%s-%.16s.chain", c->cache_dir,
	    chain_format_name(c->p.format), hex + 2);
}

/*
 * The file's four arrays, in file order: what a record is and where it
 * lives in memory.
 */
enum cache_part {
	PART_HASHES = 0,	/* 32 bytes a block */
	PART_ORPH_HASHES,
	PART_STEPS,		/* u32 little-endian a block */
	PART_ORPH_STEPS,
	PART__COUNT
};

static void
put_le32(uint8_t *p, uint32_t v)
{
	int	i;

	for (i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t
get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static size_t
part_size(enum cache_part part)
{
	return part == PART_HASHES || part == PART_ORPH_HASHES ? 32 : 4;
}

/* Record i of a part: to the file's bytes (out) or from them (in). */
static void
part_put(const struct dev_chain *c, enum cache_part part, uint64_t i,
    uint8_t *out)
{
	switch (part) {
	case PART_HASHES:
		memcpy(out, blk_at(c, i)->hash, 32);
		break;
	case PART_ORPH_HASHES:
		memcpy(out, orph_at(c, i)->hash, 32);
		break;
	case PART_STEPS:
		put_le32(out, blk_at(c, i)->steps);
		break;
	default:
		put_le32(out, orph_at(c, i)->steps);
		break;
	}
}

static void
part_get(struct dev_chain *c, enum cache_part part, uint64_t i,
    const uint8_t *in)
{
	switch (part) {
	case PART_HASHES:
		memcpy(blk_at(c, i)->hash, in, 32);
		break;
	case PART_ORPH_HASHES:
		memcpy(orph_at(c, i)->hash, in, 32);
		break;
	case PART_STEPS:
		blk_at(c, i)->steps = get_le32(in);
		break;
	default:
		orph_at(c, i)->steps = get_le32(in);
		break;
	}
}

/* Records in a part: one a block or one an old-branch slot. */
static uint64_t
part_count(enum cache_part part, uint64_t blocks, uint64_t slots)
{
	return part == PART_HASHES || part == PART_STEPS ? blocks : slots;
}

/* Read n records of a part, summing them into st. */
static int
cache_read_part(FILE *f, struct dev_chain *c, enum cache_part part,
    uint64_t n, XXH64_state_t *st)
{
	size_t		 sz = part_size(part);
	uint8_t		*buf;
	uint64_t	 i, k, chunk;
	int		 rc = 0;

	buf = xmalloc((size_t)CACHE_IO_RECORDS * sz);
	for (i = 0; i < n; i += chunk) {
		chunk = n - i < CACHE_IO_RECORDS ? n - i : CACHE_IO_RECORDS;
		if (fread(buf, sz, chunk, f) != chunk) {
			rc = -1;
			break;
		}
		XXH64_update(st, buf, chunk * sz);
		for (k = 0; k < chunk; k++)
			part_get(c, part, i + k, buf + sz * k);
	}
	free(buf);
	return rc;
}

uint64_t
dev_cache_load(struct dev_chain *c, uint64_t want)
{
	uint8_t		 key[32], hdr[CACHE_HDR_LEN];
	char		 path[1024];
	FILE		*f;
	XXH64_state_t	*st;
	uint64_t	 have, slots_have, n, probe, sum;
	unsigned	 i;
	enum cache_part	 part;
	int		 rc;

	if (c->cache_dir == NULL)
		return 0;
	cache_key(c, key);
	cache_path(c, key, path, sizeof(path));
	if ((f = fopen(path, "rb")) == NULL) {
		if (errno != ENOENT)
			log_warn("%s chain: cache %s", c->name, path);
		return 0;
	}
	if (fread(hdr, 1, sizeof(hdr), f) != sizeof(hdr) ||
	    memcmp(hdr, CACHE_MAGIC, 16) != 0 || memcmp(hdr + 16, key, 32) != 0) {
		log_warnx("%s chain: cache %s is not ours; ignoring it",
		    c->name, path);
		fclose(f);
		return 0;
	}
	have = chain_get_le64(hdr + 48);
	slots_have = chain_get_le64(hdr + 56);
	n = have < want ? have : want;
	if (n == 0 || slots_have != chain_slot_end(c, have) ||
	    have > UINT32_MAX) {
		fclose(f);
		return 0;
	}
	/* All of it is read and summed, even past what this start needs. */
	chain_reserve(c, have, chain_slot_end(c, have));
	if ((st = XXH64_createState()) == NULL)
		fatalx(CW_EXIT_SYSTEM, "xxhash: out of memory");
	XXH64_reset(st, 0);
	for (part = 0, rc = 0; part < PART__COUNT && rc == 0; part++)
		rc = cache_read_part(f, c, part, part_count(part, have,
		    slots_have), st) == -1;
	sum = XXH64_digest(st);
	XXH64_freeState(st);
	fclose(f);
	if (rc) {
		log_warnx("%s chain: cache %s is short; ignoring it", c->name,
		    path);
		return 0;
	}
	if (sum != chain_get_le64(hdr + 64)) {
		log_warnx("%s chain: cache %s fails its checksum; ignoring it",
		    c->name, path);
		return 0;
	}
	/*
	 * Spot checks, each block's hash and its seal against its parent's
	 * difficulty: the last block, the first, and some between.
	 */
	for (i = 0; i < CACHE_SPOT_CHECKS; i++) {
		probe = i == 0 ? n - 1 : (n - 1) / CACHE_SPOT_CHECKS * i;
		if (!chain_verify_block(c, probe)) {
			log_warnx("%s chain: cache %s: block %llu does not "
			    "hash as stored or its seal fails; ignoring the "
			    "cache", c->name, path, (unsigned long long)probe);
			return 0;
		}
	}
	chain_publish(c, 0, n);
	c->cache_have = have;
	c->preloaded = have;
	log_info("%s chain: %llu blocks from cache %s", c->name,
	    (unsigned long long)n, path);
	return n;
}

static int
cache_write_part(FILE *f, const struct dev_chain *c, enum cache_part part,
    uint64_t n, XXH64_state_t *st)
{
	size_t		 sz = part_size(part);
	uint8_t		*buf;
	uint64_t	 i, k, chunk;
	int		 rc = 0;

	buf = xmalloc((size_t)CACHE_IO_RECORDS * sz);
	for (i = 0; i < n; i += chunk) {
		chunk = n - i < CACHE_IO_RECORDS ? n - i : CACHE_IO_RECORDS;
		for (k = 0; k < chunk; k++)
			part_put(c, part, i + k, buf + sz * k);
		XXH64_update(st, buf, chunk * sz);
		if (fwrite(buf, sz, chunk, f) != chunk) {
			rc = -1;
			break;
		}
	}
	free(buf);
	return rc;
}

/* mkdir -p: the default directory may be ~/.cache/chainwatch-devnode. */
static int
mkdir_parents(const char *dir)
{
	char	path[1024], *p;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (p = path + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) == -1 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(path, 0755) == -1 && errno != EEXIST)
		return -1;
	return 0;
}

void
dev_cache_store(struct dev_chain *c)
{
	uint8_t		 key[32], hdr[CACHE_HDR_LEN];
	char		 path[1024], tmp[1100];
	FILE		*f;
	XXH64_state_t	*st;
	uint64_t	 n = dev_chain_count(c), slots;
	enum cache_part	 part;
	int		 rc;

	if (c->cache_dir == NULL || n < c->cache_have + CACHE_REWRITE_MIN)
		return;
	if (mkdir_parents(c->cache_dir) == -1) {
		log_warn("%s chain: cache directory %s", c->name, c->cache_dir);
		return;
	}
	cache_key(c, key);
	cache_path(c, key, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	if ((f = fopen(tmp, "wb")) == NULL) {
		log_warn("%s chain: cache %s", c->name, tmp);
		return;
	}
	slots = chain_slot_end(c, n);
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, CACHE_MAGIC, 16);
	memcpy(hdr + 16, key, 32);
	chain_put_le64(hdr + 48, n);
	chain_put_le64(hdr + 56, slots);
	if ((st = XXH64_createState()) == NULL)
		fatalx(CW_EXIT_SYSTEM, "xxhash: out of memory");
	XXH64_reset(st, 0);
	/* The header goes last, once the checksum is known. */
	rc = fseeko(f, CACHE_HDR_LEN, SEEK_SET) == -1;
	for (part = 0; part < PART__COUNT && rc == 0; part++)
		rc = cache_write_part(f, c, part, part_count(part, n, slots),
		    st) == -1;
	chain_put_le64(hdr + 64, XXH64_digest(st));
	XXH64_freeState(st);
	if (rc || fseeko(f, 0, SEEK_SET) == -1 ||
	    fwrite(hdr, 1, sizeof(hdr), f) != sizeof(hdr)) {
		log_warn("%s chain: writing cache %s", c->name, tmp);
		fclose(f);
		unlink(tmp);
		return;
	}
	if (fclose(f) == EOF || rename(tmp, path) == -1) {
		log_warn("%s chain: cache %s", c->name, path);
		unlink(tmp);
		return;
	}
	c->cache_have = n;
	log_info("%s chain: wrote %llu blocks to cache %s", c->name,
	    (unsigned long long)n, path);
}
