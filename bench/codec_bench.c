/*
 * codec_bench: how fast the codecs hash, to size chainwatch-devnode's
 * start-up (it generates ~1.65 M quantus headers), and what a Quantus
 * seal check costs against the header hash measured in the same run.
 * Prints figures only; nothing here is a pass/fail test.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "header.h"
#include "poseidon2.h"
#include "qpow.h"

#define DEVNODE_HEADERS	1650000.0

static double
bench_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A sealed header as the devnode makes them: 110-byte pow_ digest. */
static void
bench_header(struct header *h, uint64_t number)
{
	uint8_t	pre[32], seal[64];
	int	i;

	header_init(h);
	for (i = 0; i < 32; i++) {
		h->parent_hash[i] = (uint8_t)(i * 7 + number);
		h->state_root[i] = (uint8_t)(i * 13);
		h->extrinsics_root[i] = (uint8_t)(i * 29);
		pre[i] = (uint8_t)(i + 1);
	}
	memset(seal, 0x5a, sizeof(seal));
	h->number = number;
	header_add_log(h, DIGEST_PRERUNTIME, ENGINE_POW, pre, sizeof(pre));
	header_add_log(h, DIGEST_SEAL, ENGINE_POW, seal, sizeof(seal));
}

static void
bench_line(const char *what, double rate, double base)
{
	printf("%-19s %10.0f /s  (%.3f us each, %.2f header hashes)\n", what,
	    rate, 1e6 / rate, base / rate);
}

/*
 * The seal check's parts on the sealed bench header: the nonce hash
 * (5 permutations), qpow_seal_of (its pre-hash is a header hash), the
 * whole check with qpow_meets, and qpow_max_difficulty (a division);
 * then what a worker hashes for each header, its hash and its pre-hash,
 * apart (header_hash, qpow_seal_of) and together (header_quantus_pre,
 * the fields before the digest absorbed once).  base is quantus
 * header_hash's rate, measured just before.
 */
static uint8_t
bench_qpow(struct header *h, long n, double base)
{
	uint8_t		nonce[QPOW_NONCE_LEN], pre[32], acc = 0;
	struct u512	hv, d;
	double		t0;
	long		i;

	memset(pre, 0x42, sizeof(pre));
	memset(nonce, 0x24, sizeof(nonce));
	t0 = bench_now();
	for (i = 0; i < n; i++) {
		qpow_nonce_hash(pre, nonce, &hv);
		nonce[63] = (uint8_t)hv.w[0];	/* chained */
	}
	bench_line("qpow_nonce_hash", n / (bench_now() - t0), base);

	t0 = bench_now();
	for (i = 0; i < n; i++) {
		h->number = (uint64_t)i;
		h->parent_hash[0] = pre[0];
		acc ^= (uint8_t)qpow_seal_of(h, nonce, pre);
	}
	bench_line("qpow_seal_of", n / (bench_now() - t0), base);

	u512_from_u64(&d, QPOW_MIN_DIFFICULTY);
	t0 = bench_now();
	for (i = 0; i < n; i++) {
		h->number = (uint64_t)i;
		h->parent_hash[0] = pre[0];
		acc ^= (uint8_t)qpow_seal_of(h, nonce, pre);
		qpow_nonce_hash(pre, nonce, &hv);
		acc ^= (uint8_t)qpow_meets(&hv, &d);
	}
	bench_line("seal check, all", n / (bench_now() - t0), base);

	t0 = bench_now();
	for (i = 0; i < n; i++) {
		h->number = (uint64_t)i;
		h->parent_hash[0] = pre[0];
		header_hash(FORMAT_QUANTUS, h, pre);
		acc ^= pre[1];
		acc ^= (uint8_t)qpow_seal_of(h, nonce, pre);
	}
	bench_line("hash+pre, apart", n / (bench_now() - t0), base);
	t0 = bench_now();
	for (i = 0; i < n; i++) {
		uint8_t hash[32];

		h->number = (uint64_t)i;
		h->parent_hash[0] = pre[0];
		acc ^= (uint8_t)header_quantus_pre(h, pre, hash);
		acc ^= hash[1];
	}
	bench_line("hash+pre, at once", n / (bench_now() - t0), base);

	/* a hash with 24 leading zero bits, as a mined one: a long division */
	hv.w[U512_LIMBS - 1] >>= 24;
	t0 = bench_now();
	for (i = 0; i < n; i++) {
		hv.w[0] ^= (uint64_t)i;
		qpow_max_difficulty(&hv, &d);
		acc ^= (uint8_t)d.w[0];
	}
	bench_line("qpow_max_difficulty", n / (bench_now() - t0), base);
	return acc;
}

int
main(int argc, char *argv[])
{
	static struct header	h;
	uint64_t		s[P2_WIDTH] = { 0 };
	uint8_t			out[32], acc = 0;
	double			t0, dt, perm_rate, q_rate, b_rate;
	long			i, n;

	n = argc > 1 ? atol(argv[1]) : 200000;
	if (n <= 0)
		n = 200000;

	t0 = bench_now();
	for (i = 0; i < n; i++)
		p2_permute(s);	/* chained: latency, as in a sponge */
	dt = bench_now() - t0;
	perm_rate = n / dt;
	printf("p2_permute          %10.0f /s  (%.3f us each)\n", perm_rate,
	    1e6 / perm_rate);

	bench_header(&h, 1);
	t0 = bench_now();
	for (i = 0; i < n; i++) {
		h.number = (uint64_t)i;
		h.parent_hash[0] = out[0];	/* chain like the devnode */
		header_hash(FORMAT_QUANTUS, &h, out);
		acc ^= out[31];
	}
	dt = bench_now() - t0;
	q_rate = n / dt;
	printf("quantus header_hash %10.0f /s  (%.3f us each)\n", q_rate,
	    1e6 / q_rate);

	t0 = bench_now();
	for (i = 0; i < n; i++) {
		h.number = (uint64_t)i;
		h.parent_hash[0] = out[0];
		header_hash(FORMAT_SUBSTRATE, &h, out);
		acc ^= out[31];
	}
	dt = bench_now() - t0;
	b_rate = n / dt;
	printf("blake2b header_hash %10.0f /s  (%.3f us each)\n", b_rate,
	    1e6 / b_rate);

	printf("1.65 M quantus headers: %.2f s of hashing on one core\n",
	    DEVNODE_HEADERS / q_rate);
	acc ^= bench_qpow(&h, n, q_rate);
	/* Keeps the loops from being optimised away. */
	printf("(checksum %02x %016llx)\n", acc, (unsigned long long)s[0]);
	return 0;
}
