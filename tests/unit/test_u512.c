/*
 * u512: the edges of 512-bit difficulty and work (zero, carries across
 * 64-bit limbs, 2^511, overflow), exact decimal and double conversion,
 * big-endian bytes, multiply and divide, checked against values computed
 * with python3 and pasted here.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hex.h"
#include "u512.h"

#define P2_64	"18446744073709551616"
#define P2_511	"67039039649712985497870124991029230637396829102961966888617" \
		"80721860882015036773488400937149083451713845015929093243025" \
		"426876941405973284973216824503042048"
#define P2_512M1 "1340780792994259709957402499820584612747936582059239337772" \
		"35614437217640300735469768018742981669034276900318581864860" \
		"50853753882811946569946433649006084095"
#define P2_512	"1340780792994259709957402499820584612747936582059239337772" \
		"35614437217640300735469768018742981669034276900318581864860" \
		"50853753882811946569946433649006084096"

/* python3: random.seed(512); a = getrandbits(512); b = getrandbits(500) */
#define A_LE	"3454dc047afd91d0982073702e56532427a199542ca2bce381ff786935bd" \
		"a15cbdcf6eedb9cda49fb2bcd167b11052c829846b2bd9885c38bdeac63d" \
		"849da53d"
#define A_DEC	"32287119560924357473944027610790702725879322449015259266812" \
		"82386106349173845116489261291889257386984455841742804892446" \
		"681483396127190056666430248362726452"
#define B_LE	"75372a013b3272d3a20cc1bfe1ea6e199bc9c17f75dca78f3cae186901e4" \
		"a81fc4a65f85f19f8d5b67014bb6b70ee504447fbae419e5a6fb55056d43" \
		"2c000d00"
#define B_DEC	"26597680480650676126724075650883068083789992643491743909230" \
		"96031991719216940883226755644249120193222271509105548814115" \
		"982763185850187832703939599021941"
#define AB_LE	"a98b0606b52f04a43b2d34301041c23dc26a5bd4a17e6473bead91d236a1" \
		"4a7c8176ce72ab6d32fb19be1c1e691f37cd6d032610f36d033413f03381" \
		"b09db23d"
#define AB_DEC	"32313717241405008150070751686441585793963112441658751010722" \
		"05482138340893062057372488047533506507177678113251910441260" \
		"797466159313040244499134187961748393"
#define SUM_1000	"576513046600346872405"
#define AmB_DEC	"32260521880443706797817303535139819657795532456371767522903" \
		"59290074357454628175606034536245008266791233570233699343632" \
		"565500632941339868833726308763704511"

/*
 * python3: c = a >> 256, d = b >> 260, m = 2**512 - 1; c * d, a // b,
 * a % b, a // 2048 (AdK), m // c, m % c, (2**256 - 1)**2, m % (2**511 + 5).
 */
#define C_DEC	"278837006686629687661790497464177381126629336403792180751203" \
		"19258124721508285"
#define D_DEC	"143563782378402914421402870975157271320614082603112757459891" \
		"3889014250092"
#define CD_DEC	"400308953470045827729662545096149606429723945501016865487637" \
		"353170144313569700892950433495798826489216109901280684414356" \
		"52132216656564099332440012220"
#define AdB_Q	"1213"
#define AdB_R	"241331378950873322277238462695411402420613724597739049156689" \
		"930039376369582513520669541507459260584050119777418092399439" \
		"1651690912215596551514749112019"
#define AdK_Q	"157651950981075964228242322318313978153707629145582320638734" \
		"491509099080754156078577211518030145848850382897597895138998" \
		"1193064515229519856655394708362"
#define MdC_Q	"480847506192423390193357998811037297883149907868937033281382" \
		"862676165526060534"
#define MdC_R	"595876509654069244646455000993206949863857429640203559106005" \
		"2071374313559905"
#define SQ_DEC	"134078079299425970995740249982058461274793658205923933777235" \
		"614437217640300733153926233996657760562857200144823707795108" \
		"84422601683867654778417822746804225"
#define MdB_R	"670390396497129854978701249910292306373968291029619668886178" \
		"072186088201503677348840093714908345171384501592909324302542" \
		"6876941405973284973216824503042042"

static void
from_hex(struct u512 *a, const char *hex)
{
	uint8_t	 le[U512_BYTES];

	assert_int_equal(hex_decode(hex, le, sizeof(le)), 0);
	u512_from_le(a, le);
}

static void
assert_dec(const struct u512 *a, const char *want)
{
	char	 out[U512_DEC_LEN];

	assert_int_equal(u512_to_dec(a, out), strlen(want));
	assert_string_equal(out, want);
}

static void
max_value(struct u512 *a)
{
	memset(a->w, 0xff, sizeof(a->w));
}

static void
test_zero(void **state)
{
	struct u512	 a, b;
	uint8_t		 le[U512_BYTES], zero[U512_BYTES];

	(void)state;
	memset(zero, 0, sizeof(zero));
	u512_from_le(&a, zero);
	assert_true(u512_is_zero(&a));
	assert_dec(&a, "0");
	assert_true(u512_to_double(&a) == 0.0);
	u512_to_le(&a, le);
	assert_memory_equal(le, zero, sizeof(le));
	assert_int_equal(u512_from_dec(&b, "0"), 0);
	assert_int_equal(u512_cmp(&a, &b), 0);
	assert_int_equal(u512_from_dec(&b, "0000"), 0);
	assert_true(u512_is_zero(&b));
	u512_from_u64(&b, 0);
	assert_int_equal(u512_add(&a, &b), 0);
	assert_true(u512_is_zero(&a));
	assert_int_equal(u512_sub(&a, &b), 0);
	assert_true(u512_is_zero(&a));
}

static void
test_carry(void **state)
{
	struct u512	 a, one, b;
	uint8_t		 le[U512_BYTES];
	size_t		 i;

	(void)state;
	u512_from_u64(&a, UINT64_MAX);
	u512_from_u64(&one, 1);
	assert_int_equal(u512_add(&a, &one), 0);
	assert_dec(&a, P2_64);
	u512_to_le(&a, le);
	for (i = 0; i < U512_BYTES; i++)
		assert_int_equal(le[i], i == 8 ? 1 : 0);
	assert_true(u512_to_double(&a) == 0x1p64);

	/* A carry that runs through seven limbs: (2^448 - 1) + 1. */
	u512_zero(&b);
	for (i = 0; i < 7; i++)
		b.w[i] = UINT64_MAX;
	assert_int_equal(u512_add(&b, &one), 0);
	for (i = 0; i < 7; i++)
		assert_true(b.w[i] == 0);
	assert_true(b.w[7] == 1);
	assert_true(u512_to_double(&b) == 0x1p448);

	/* And the borrow back. */
	assert_int_equal(u512_sub(&b, &one), 0);
	for (i = 0; i < 7; i++)
		assert_true(b.w[i] == UINT64_MAX);
	assert_true(b.w[7] == 0);
	assert_int_equal(u512_sub(&a, &one), 0);
	assert_true(a.w[0] == UINT64_MAX && a.w[1] == 0);
}

static void
test_2_511(void **state)
{
	struct u512	 a, b;
	uint8_t		 le[U512_BYTES];

	(void)state;
	memset(le, 0, sizeof(le));
	le[63] = 0x80;
	u512_from_le(&a, le);
	assert_dec(&a, P2_511);
	assert_true(u512_to_double(&a) == 0x1p511);
	assert_int_equal(u512_from_dec(&b, P2_511), 0);
	assert_int_equal(u512_cmp(&a, &b), 0);

	/* 2^511 + 2^511 = 2^512 does not fit. */
	assert_int_equal(u512_add(&b, &a), -1);
	assert_int_equal(u512_cmp(&a, &b), 0);
	/* 2^511 + (2^511 - 1) = 2^512 - 1 does. */
	u512_from_u64(&b, 1);
	assert_int_equal(u512_sub(&a, &b), 0);
	assert_int_equal(u512_add(&a, &b), 0);
	assert_int_equal(u512_add(&a, &b), 0);
	assert_int_equal(u512_sub(&a, &b), 0);
	assert_dec(&a, P2_511);
}

static void
test_overflow(void **state)
{
	struct u512	 m, one, keep, zero;

	(void)state;
	max_value(&m);
	assert_dec(&m, P2_512M1);
	assert_int_equal(u512_from_dec(&keep, P2_512M1), 0);
	assert_int_equal(u512_cmp(&m, &keep), 0);
	u512_from_u64(&one, 1);
	assert_int_equal(u512_add(&m, &one), -1);
	assert_int_equal(u512_cmp(&m, &keep), 0);	/* unchanged */
	assert_int_equal(u512_add(&m, &m), -1);
	assert_int_equal(u512_cmp(&m, &keep), 0);
	/* 2^512 - 1 rounds up to 2^512, still a finite double. */
	assert_true(u512_to_double(&m) == 0x1p512);

	/* Underflow leaves the value alone too. */
	u512_zero(&zero);
	assert_int_equal(u512_sub(&zero, &one), -1);
	assert_true(u512_is_zero(&zero));
	assert_int_equal(u512_sub(&one, &m), -1);
	assert_true(one.w[0] == 1);
}

static void
test_from_dec_bad(void **state)
{
	struct u512	 a;
	const char	*bad[] = { "", "-1", "+1", " 1", "1 ", "12a", "0x10",
	    "1.5", "1e3", P2_512, P2_512 "0", "9" P2_512M1 };
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		u512_from_u64(&a, 42);
		assert_int_equal(u512_from_dec(&a, bad[i]), -1);
		assert_true(a.w[0] == 42 && a.w[1] == 0);
	}
	assert_int_equal(u512_from_dec(&a, NULL), -1);
	assert_true(a.w[0] == 42);
	/* Leading zeros are fine, even beyond 155 digits. */
	assert_int_equal(u512_from_dec(&a, "0000000000" P2_512M1), 0);
	assert_dec(&a, P2_512M1);
	assert_int_equal(u512_from_dec(&a, "000000000000000000000000000001"),
	    0);
	assert_dec(&a, "1");
}

static void
test_round_trip(void **state)
{
	struct u512	 a, b, s, t;
	uint8_t		 le[U512_BYTES], want[U512_BYTES];

	(void)state;
	from_hex(&a, A_LE);
	from_hex(&b, B_LE);
	assert_dec(&a, A_DEC);
	assert_dec(&b, B_DEC);

	assert_int_equal(u512_from_dec(&t, A_DEC), 0);
	u512_to_le(&t, le);
	assert_int_equal(hex_decode(A_LE, want, sizeof(want)), 0);
	assert_memory_equal(le, want, sizeof(le));

	s = a;
	assert_int_equal(u512_add(&s, &b), 0);
	assert_dec(&s, AB_DEC);
	u512_to_le(&s, le);
	assert_int_equal(hex_decode(AB_LE, want, sizeof(want)), 0);
	assert_memory_equal(le, want, sizeof(le));

	t = a;
	assert_int_equal(u512_sub(&t, &b), 0);
	assert_dec(&t, AmB_DEC);
	assert_int_equal(u512_cmp(&a, &b), 1);
	assert_int_equal(u512_cmp(&b, &a), -1);
	assert_int_equal(u512_cmp(&s, &s), 0);

	/* Every power of ten up to 10^154 survives the round trip. */
	{
		char	 dec[U512_DEC_LEN], out[U512_DEC_LEN];
		size_t	 n;

		for (n = 1; n <= 155; n++) {
			memset(dec, '0', n);
			dec[0] = '1';
			dec[n] = '\0';
			assert_int_equal(u512_from_dec(&t, dec), 0);
			assert_int_equal(u512_to_dec(&t, out), n);
			assert_string_equal(out, dec);
			memset(dec, '9', n);
			if (n == 155)
				break;	/* 10^155 - 1 > 2^512 */
			assert_int_equal(u512_from_dec(&t, dec), 0);
			assert_int_equal(u512_to_dec(&t, out), n);
			assert_string_equal(out, dec);
		}
	}
}

static void
test_double(void **state)
{
	struct u512	 a;

	(void)state;
	from_hex(&a, A_LE);
	assert_true(u512_to_double(&a) == 0x1.ed2cec21ee375p+509);
	from_hex(&a, B_LE);
	assert_true(u512_to_double(&a) == 0x1.a005886da0aacp+499);
	from_hex(&a, AB_LE);
	assert_true(u512_to_double(&a) == 0x1.ed94ed84099f8p+509);

	/* 2^53 + 1: a tie, to even. */
	u512_from_u64(&a, ((uint64_t)1 << 53) + 1);
	assert_true(u512_to_double(&a) == 0x1p53);
	/* 2^64 + 2^11 is a tie too; one more makes it round up. */
	u512_zero(&a);
	a.w[1] = 1;
	a.w[0] = (uint64_t)1 << 11;
	assert_true(u512_to_double(&a) == 0x1p64);
	a.w[0] |= 1;
	assert_true(u512_to_double(&a) == 0x1.0000000000001p+64);
	/* The bit that breaks the tie two limbs below: 2^128 + 2^75 + 1. */
	u512_zero(&a);
	a.w[2] = 1;
	a.w[1] = (uint64_t)1 << 11;
	assert_true(u512_to_double(&a) == 0x1p128);
	a.w[0] = 1;
	assert_true(u512_to_double(&a) == 0x1.0000000000001p+128);
}

static void
dec(struct u512 *a, const char *s)
{
	assert_int_equal(u512_from_dec(a, s), 0);
}

/* Big-endian bytes: byte 0 is the top of w[7]; the round trip. */
static void
test_be(void **state)
{
	uint8_t		 be[U512_BYTES], back[U512_BYTES];
	struct u512	 a, b;
	size_t		 i;

	(void)state;
	for (i = 0; i < U512_BYTES; i++)
		be[i] = (uint8_t)i;
	u512_from_be(&a, be);
	assert_true(a.w[7] == 0x0001020304050607ULL);
	assert_true(a.w[0] == 0x38393a3b3c3d3e3fULL);
	u512_to_be(&a, back);
	assert_memory_equal(back, be, sizeof(be));
	memset(be, 0, sizeof(be));
	be[U512_BYTES - 1] = 5;
	u512_from_be(&a, be);
	u512_from_u64(&b, 5);
	assert_int_equal(u512_cmp(&a, &b), 0);
	u512_max(&a);
	max_value(&b);
	assert_int_equal(u512_cmp(&a, &b), 0);
	assert_dec(&a, P2_512M1);
}

static void
test_mul(void **state)
{
	struct u512	 a, b, c, one, two, keep;

	(void)state;
	dec(&a, C_DEC);
	dec(&b, D_DEC);
	assert_int_equal(u512_mul(&a, &b, &c), 0);
	assert_dec(&c, CD_DEC);
	assert_int_equal(u512_mul(&b, &a, &c), 0);
	assert_dec(&c, CD_DEC);
	/* out may be an input */
	assert_int_equal(u512_mul(&a, &b, &a), 0);
	assert_dec(&a, CD_DEC);

	/* (2^256 - 1)^2 fits; 2^256 * 2^256 does not */
	u512_zero(&a);
	a.w[0] = a.w[1] = a.w[2] = a.w[3] = UINT64_MAX;
	assert_int_equal(u512_mul(&a, &a, &c), 0);
	assert_dec(&c, SQ_DEC);
	u512_zero(&a);
	a.w[4] = 1;
	keep = c;
	assert_int_equal(u512_mul(&a, &a, &c), -1);
	assert_int_equal(u512_cmp(&c, &keep), 0);

	/* MAX * 1 = MAX, MAX * 2 overflows, anything * 0 = 0 */
	max_value(&a);
	u512_from_u64(&one, 1);
	u512_from_u64(&two, 2);
	assert_int_equal(u512_mul(&a, &one, &c), 0);
	assert_dec(&c, P2_512M1);
	assert_int_equal(u512_mul(&a, &two, &c), -1);
	u512_zero(&b);
	assert_int_equal(u512_mul(&a, &b, &c), 0);
	assert_true(u512_is_zero(&c));
	/* a 512-bit by a 500-bit number */
	from_hex(&a, A_LE);
	from_hex(&b, B_LE);
	assert_int_equal(u512_mul(&a, &b, &c), -1);
}

static void
test_divmod(void **state)
{
	struct u512	 a, b, q, r, m, keep;

	(void)state;
	from_hex(&a, A_LE);
	from_hex(&b, B_LE);
	assert_int_equal(u512_divmod(&a, &b, &q, &r), 0);
	assert_dec(&q, AdB_Q);
	assert_dec(&r, AdB_R);
	u512_from_u64(&b, 2048);
	assert_int_equal(u512_divmod(&a, &b, &q, &r), 0);
	assert_dec(&q, AdK_Q);
	assert_dec(&r, "1076");
	/* q may be a, r may be NULL */
	q = a;
	assert_int_equal(u512_divmod(&q, &b, &q, NULL), 0);
	assert_dec(&q, AdK_Q);

	max_value(&m);
	dec(&b, C_DEC);
	assert_int_equal(u512_divmod(&m, &b, &q, &r), 0);
	assert_dec(&q, MdC_Q);
	assert_dec(&r, MdC_R);
	/* MAX / MAX, MAX / 1, a smaller by a larger */
	assert_int_equal(u512_divmod(&m, &m, &q, &r), 0);
	assert_dec(&q, "1");
	assert_true(u512_is_zero(&r));
	u512_from_u64(&b, 1);
	assert_int_equal(u512_divmod(&m, &b, &q, &r), 0);
	assert_dec(&q, P2_512M1);
	assert_true(u512_is_zero(&r));
	assert_int_equal(u512_divmod(&b, &m, &q, &r), 0);
	assert_true(u512_is_zero(&q));
	assert_dec(&r, "1");

	/* divisors from 2^511 up go in at most once */
	dec(&b, P2_511);
	b.w[0] = 5;
	assert_int_equal(u512_divmod(&m, &b, &q, &r), 0);
	assert_dec(&q, "1");
	assert_dec(&r, MdB_R);
	assert_int_equal(u512_divmod(&a, &b, &q, &r), 0);
	assert_true(u512_is_zero(&q));
	assert_dec(&r, A_DEC);

	/* by zero: -1, nothing written */
	u512_zero(&b);
	keep = q;
	assert_int_equal(u512_divmod(&a, &b, &q, &r), -1);
	assert_int_equal(u512_cmp(&q, &keep), 0);
}

static void
test_sum(void **state)
{
	struct u512	 sum, d;
	uint64_t	 x = 0x9e3779b97f4a7c15ULL;
	int		 i;

	(void)state;
	/*
	 * A thousand 60-bit difficulties from a Weyl sequence; python3 summed
	 * the same sequence (x = (x + 0x9e3779b97f4a7c15) % 2**64; s += x >> 4).
	 */
	u512_zero(&sum);
	for (i = 0; i < 1000; i++) {
		x += 0x9e3779b97f4a7c15ULL;
		u512_from_u64(&d, x >> 4);
		assert_int_equal(u512_add(&sum, &d), 0);
	}
	assert_dec(&sum, SUM_1000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero),
		cmocka_unit_test(test_carry),
		cmocka_unit_test(test_2_511),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_from_dec_bad),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_double),
		cmocka_unit_test(test_sum),
		cmocka_unit_test(test_be),
		cmocka_unit_test(test_mul),
		cmocka_unit_test(test_divmod),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
