/*
 * Configuration parsing: good files, the legacy rpc_url/ws_url pair, and
 * one test per error class, each checking the line and the message.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "conf.h"
#include "util.h"

#define EP1 "endpoint = a1-planck http://127.0.0.1:9944 ws://127.0.0.1:9944\n"

static struct conf *
load(const char *text)
{
	return conf_load_string("t.conf", text);
}

/* The file must fail with exactly one error equal to want. */
static void
expect_error(const char *text, const char *want)
{
	struct conf	*c = load(text);

	if (c->n_errors != 1 || strcmp(c->errors[0], want) != 0) {
		for (size_t i = 0; i < c->n_errors; i++)
			print_error("got: %s\n", c->errors[i]);
		print_error("want: %s\n", want);
		conf_free(c);
		fail();
	}
	conf_free(c);
}

static void
test_good(void **state)
{
	struct conf	*c = load(
	    "# comment\n"
	    "[daemon]\n"
	    "database = /var/db/cw.db\n"
	    "  user = nobody   \n"
	    "log_level = debug\n"
	    "worker_memory_limit = 256M\n"
	    "heartbeat_interval = 750ms\n"
	    "\n"
	    "[chain planck]\n"
	    "format = substrate\n"
	    "block_time = 6s\n"
	    "backfill_from = 1000\n"
	    "subscribe = primary\n"
	    EP1
	    "\tendpoint = a2-planck https://rpc.example:443/x wss://ws.example\n"
	    "[chain heisenberg]\n"
	    "endpoint = a1-heisenberg http://[::1]:1 ws://[::1]:2\n");

	assert_int_equal(c->n_errors, 0);
	assert_string_equal(c->daemon.database, "/var/db/cw.db");
	assert_string_equal(c->daemon.user, "nobody");
	assert_int_equal(c->daemon.log_level, LOG_LEVEL_DEBUG);
	assert_int_equal(c->daemon.worker_memory_limit, 256ULL << 20);
	assert_int_equal(c->daemon.heartbeat_interval, 750);
	assert_int_equal(c->daemon.stop_timeout, 5000);		/* default */
	assert_int_equal(c->n_chains, 2);
	assert_string_equal(c->chains[0].name, "planck");
	assert_int_equal(c->chains[0].format, 1);
	assert_int_equal(c->chains[0].block_time, 6000);
	assert_int_equal(c->chains[0].backfill_from, 1000);
	assert_int_equal(c->chains[0].subscribe, SUBSCRIBE_PRIMARY);
	assert_int_equal(c->chains[0].n_endpoints, 2);
	assert_string_equal(c->chains[0].endpoints[1].name, "a2-planck");
	assert_string_equal(c->chains[0].endpoints[1].ws_url,
	    "wss://ws.example");
	assert_int_equal(c->chains[0].endpoints[1].line, 15);
	assert_int_equal(c->chains[1].format, 0);		/* default */
	assert_int_equal(c->chains[1].block_time, 12000);
	assert_int_equal(c->chains[1].stall_factor, 3);
	conf_free(c);
}

static void
test_legacy_pair(void **state)
{
	struct conf	*c = load("[chain planck]\n"
	    "rpc_url = https://a1-planck.quantus.cat\n"
	    "ws_url = wss://a1-planck.quantus.cat\n");

	assert_int_equal(c->n_errors, 0);
	assert_int_equal(c->chains[0].n_endpoints, 1);
	assert_string_equal(c->chains[0].endpoints[0].name,
	    "a1-planck.quantus.cat");
	assert_string_equal(c->chains[0].endpoints[0].rpc_url,
	    "https://a1-planck.quantus.cat");
	assert_string_equal(c->chains[0].endpoints[0].ws_url,
	    "wss://a1-planck.quantus.cat");
	conf_free(c);

	expect_error("[chain planck]\nrpc_url = http://h\n",
	    "t.conf:2: chain planck: rpc_url without ws_url");
	expect_error("[chain planck]\nws_url = ws://h\n",
	    "t.conf:2: chain planck: ws_url without rpc_url");
	expect_error("[chain planck]\n" EP1 "rpc_url = http://h\n"
	    "ws_url = ws://h\n", "t.conf:3: chain planck: rpc_url/ws_url "
	    "cannot be combined with endpoint lines");
}

static void
test_duplicates(void **state)
{
	expect_error("[chain a]\n" EP1 "[chain a]\n",
	    "t.conf:3: duplicate chain 'a' (first on line 1)");
	expect_error("[chain a]\n" EP1 "[chain b]\n" EP1,
	    "t.conf:4: duplicate endpoint name 'a1-planck' (first on line 2)");
	expect_error("[daemon]\n[daemon]\n[chain a]\n" EP1,
	    "t.conf:2: duplicate section [daemon] (first on line 1)");
	expect_error("[daemon]\nuser = a\nuser = b\n[chain a]\n" EP1,
	    "t.conf:3: user given twice in this section (first on line 2)");
}

static void
test_urls(void **state)
{
	expect_error("[chain a]\nendpoint = x ftp://h ws://h\n",
	    "t.conf:2: rpc url 'ftp://h': scheme 'ftp' not allowed here "
	    "(use http or https)");
	expect_error("[chain a]\nendpoint = x http://h http://h\n",
	    "t.conf:2: ws url 'http://h': scheme 'http' not allowed here "
	    "(use ws or wss)");
	expect_error("[chain a]\nendpoint = x http:/h ws://h\n",
	    "t.conf:2: rpc url 'http:/h': not a URL (expected "
	    "http://HOST...)");
	expect_error("[chain a]\nendpoint = x http:///p ws://h\n",
	    "t.conf:2: rpc url 'http:///p': URL has no host");
	expect_error("[chain a]\nendpoint = x http://h:99999 ws://h\n",
	    "t.conf:2: rpc url 'http://h:99999': bad port");
	expect_error("[chain a]\nendpoint = x http://h ws://h extra\n",
	    "t.conf:2: endpoint: expected NAME RPC_URL WS_URL, got 4 fields");
	expect_error("[chain a]\nendpoint = x http://h\n",
	    "t.conf:2: endpoint: expected NAME RPC_URL WS_URL, got 2 fields");
	expect_error("[chain a]\nendpoint = b/c http://h ws://h\n",
	    "t.conf:2: endpoint name 'b/c': use 1 to 32 letters, digits, '.', "
	    "'_' or '-'");
}

/* Credentials are allowed, but never shown: not even in an error. */
static void
test_redaction(void **state)
{
	char		 out[256];
	struct conf	*c;

	expect_error("[chain a]\nendpoint = x http://u:s3cret@h:0 ws://h\n",
	    "t.conf:2: rpc url 'http://u:***@h:0': bad port");
	c = load("[chain a]\nendpoint = x https://u:s3cret@h/p wss://h\n");
	assert_int_equal(c->n_errors, 0);
	{
		char	*buf = NULL;
		size_t	 len = 0;
		FILE	*fp = open_memstream(&buf, &len);

		conf_dump(c, fp);
		fclose(fp);
		assert_null(strstr(buf, "s3cret"));
		assert_non_null(strstr(buf, "https://u:***@h/p"));
		/* Sizes and durations as the configuration writes them. */
		assert_non_null(strstr(buf, "\nstore_reserve = 2M\n"));
		assert_non_null(strstr(buf, "\nworker_memory_limit = 512M\n"));
		assert_non_null(strstr(buf, "\nmax_response = 16M\n"));
		assert_non_null(strstr(buf, "\nrequest_timeout = 10s\n"));
		assert_non_null(strstr(buf, "\nbreaker_cooldown_max = 300s\n"));
		free(buf);
	}
	conf_free(c);
	url_redact("https://user:pa:ss@host:1/a@b", out, sizeof(out));
	assert_string_equal(out, "https://user:***@host:1/a@b");
	url_redact("https://user@host/", out, sizeof(out));
	assert_string_equal(out, "https://user@host/");
	url_redact("http://host/p?x=a:b@c", out, sizeof(out));
	assert_string_equal(out, "http://host/p?x=a:b@c");
}

/* Query parameters named like secrets are never shown either. */
static void
test_redaction_query(void **state)
{
	char		 out[256];
	struct conf	*c;

	(void)state;
	url_secret_words("");
	url_redact("https://h/?apikey=S1&n=1", out, sizeof(out));
	assert_string_equal(out, "https://h/?apikey=***&n=1");
	url_redact("https://u:pw@h/rpc?n=1&Access_Token=S2#frag", out,
	    sizeof(out));
	assert_string_equal(out, "https://u:***@h/rpc?n=1&Access_Token=***#frag");
	url_redact("wss://h/?API_KEY=S3&sig=S4&Password=S5&auth=", out,
	    sizeof(out));
	assert_string_equal(out, "wss://h/?API_KEY=***&sig=***&Password=***"
	    "&auth=***");
	/* Not secret by name: kept; a bare flag without '=' too. */
	url_redact("http://h/?network=planck&debug&id=7", out, sizeof(out));
	assert_string_equal(out, "http://h/?network=planck&debug&id=7");
	/* More words from secret_params, in either separator. */
	url_secret_words("project, x-id");
	url_redact("http://h/?projectid=S6&x-id=S7&id=7", out, sizeof(out));
	assert_string_equal(out, "http://h/?projectid=***&x-id=***&id=7");
	url_secret_words("");
	url_redact("http://h/?projectid=P", out, sizeof(out));
	assert_string_equal(out, "http://h/?projectid=P");

	/* The key, checked and shown by -nv with the URLs it redacts. */
	expect_error("[daemon]\nsecret_params = a=b\n[chain a]\n" EP1,
	    "t.conf:2: secret_params: 'a=b' is not a word (letters, digits, "
	    "'_' or '-')");
	c = load("[daemon]\nsecret_params = project\n[chain a]\n"
	    "endpoint = x https://h/v3?projectId=S8 wss://h/?token=S9\n");
	assert_int_equal(c->n_errors, 0);
	{
		char	*buf = NULL;
		size_t	 len = 0;
		FILE	*fp = open_memstream(&buf, &len);

		conf_dump(c, fp);
		fclose(fp);
		assert_null(strstr(buf, "S8"));
		assert_null(strstr(buf, "S9"));
		assert_non_null(strstr(buf, "secret_params = project\n"));
		assert_non_null(strstr(buf, "https://h/v3?projectId=*** "
		    "wss://h/?token=***"));
		free(buf);
	}
	conf_free(c);
	url_secret_words("");
}

static void
test_sections_and_keys(void **state)
{
	expect_error("[chains a]\n[chain a]\n" EP1,
	    "t.conf:1: unknown section [chains a] (expected [daemon] or "
	    "[chain NAME])");
	expect_error("[chain a]\n" EP1 "colour = blue\n",
	    "t.conf:3: unknown key 'colour' in [chain]");
	expect_error("[daemon]\nformat = quantus\n[chain a]\n" EP1,
	    "t.conf:2: unknown key 'format' in [daemon]");
	expect_error("user = x\n[chain a]\n" EP1,
	    "t.conf:1: 'user' outside of any section (start with [daemon] or "
	    "[chain NAME])");
	expect_error("[chain a]\n" EP1 "just words\n",
	    "t.conf:3: expected KEY = VALUE");
	expect_error("[chain a\n[chain b]\n" EP1,
	    "t.conf:1: section header without ']'");
	expect_error("[daemon]\n",
	    "t.conf: no [chain NAME] section: nothing to watch");
	expect_error("[chain a]\nformat = quantus\n",
	    "t.conf:1: chain a has no endpoints (add endpoint = NAME RPC_URL "
	    "WS_URL)");
	/* Keys of a bad section are not reported once more. */
	expect_error("[bogus]\nx = 1\ny = 2\n[chain a]\n" EP1,
	    "t.conf:1: unknown section [bogus] (expected [daemon] or "
	    "[chain NAME])");
}

static void
test_fmt_value(void **state)
{
	static const struct { enum conf_type t; uint64_t v; const char *s; }
	    want[] = {
		{ CT_DURATION, 0, "0" }, { CT_DURATION, 10, "10ms" },
		{ CT_DURATION, 1500, "1500ms" }, { CT_DURATION, 600000, "600s" },
		{ CT_DURATION, 3600000, "1h" }, { CT_DURATION, 86400000, "24h" },
		{ CT_SIZE, 0, "0" }, { CT_SIZE, 65537, "65537" },
		{ CT_SIZE, 4096, "4K" }, { CT_SIZE, 2097152, "2M" },
		{ CT_SIZE, 1ULL << 30, "1G" }, { CT_UINT, 4096, "4096" },
	};
	char		 out[CONF_VALUE_LEN];
	uint64_t	 v;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		conf_fmt_value(want[i].t, want[i].v, out, sizeof(out));
		assert_string_equal(out, want[i].s);
		/* What is shown reads back as the same value. */
		if (want[i].t == CT_DURATION)
			assert_int_equal(conf_parse_duration(out, &v), 0);
		else
			assert_int_equal(conf_parse_size(out, &v), 0);
		assert_true(v == want[i].v);
	}
}

static void
test_values(void **state)
{
	expect_error("[chain a]\n" EP1 "block_time = 5ms\n",
	    "t.conf:3: block_time: 5ms is out of range (10ms to 24h)");
	/* Ranges in the man page's units, as the configuration writes them. */
	expect_error("[chain a]\n" EP1 "request_timeout = 601s\n",
	    "t.conf:3: request_timeout: 601s is out of range (100ms to 600s)");
	expect_error("[chain a]\n" EP1 "max_response = 2G\n",
	    "t.conf:3: max_response: 2G is out of range (4K to 1G)");
	expect_error("[chain a]\n" EP1 "block_time = fast\n",
	    "t.conf:3: block_time: 'fast' is not a duration (e.g. 500ms, 12s, "
	    "5m, 1h)");
	expect_error("[chain a]\n" EP1 "stall_factor = 1\n",
	    "t.conf:3: stall_factor: 1 is out of range (2 to 100)");
	expect_error("[chain a]\n" EP1 "stall_factor = -3\n",
	    "t.conf:3: stall_factor: '-3' is not a whole number");
	expect_error("[chain a]\n" EP1 "backfill_from = 99999999999\n",
	    "t.conf:3: backfill_from: 99999999999 is out of range (0 to "
	    "4294967295)");
	expect_error("[chain a]\n" EP1 "format = ethereum\n",
	    "t.conf:3: format: 'ethereum' is not one of quantus, substrate");
	expect_error("[daemon]\nworker_memory_limit = 12X\n[chain a]\n" EP1,
	    "t.conf:2: worker_memory_limit: '12X' is not a size (e.g. 65536, "
	    "512K, 256M, 1G)");
	expect_error("[daemon]\ndatabase = cw.db\n[chain a]\n" EP1,
	    "t.conf:2: database: 'cw.db' is not an absolute path");
}

static void
test_all_errors_reported(void **state)
{
	struct conf	*c = load("[daemon]\nbogus = 1\nlog_level = loud\n"
	    "[chain a]\nblock_time = x\n[chain b]\n");

	assert_int_equal(c->n_errors, 5);
	assert_string_equal(c->errors[0], "t.conf:2: unknown key 'bogus' in "
	    "[daemon]");
	assert_string_equal(c->errors[4], "t.conf:6: chain b has no endpoints "
	    "(add endpoint = NAME RPC_URL WS_URL)");
	conf_free(c);
}

static void
test_line_length(void **state)
{
	char	text[600];

	snprintf(text, sizeof(text), "[chain a]\n" EP1 "# %0300d\n", 0);
	expect_error(text, "t.conf:3: line longer than 198 characters");
}

static void
test_units(void **state)
{
	uint64_t	v;

	assert_int_equal(conf_parse_duration("250ms", &v), 0);
	assert_int_equal(v, 250);
	assert_int_equal(conf_parse_duration("12", &v), 0);
	assert_int_equal(v, 12000);
	assert_int_equal(conf_parse_duration("5m", &v), 0);
	assert_int_equal(v, 300000);
	assert_int_equal(conf_parse_duration("2h", &v), 0);
	assert_int_equal(v, 7200000);
	assert_int_equal(conf_parse_duration("1d", &v), -1);
	assert_int_equal(conf_parse_duration("", &v), -1);
	assert_int_equal(conf_parse_duration("99999999999999999999", &v), -1);
	assert_int_equal(conf_parse_size("1G", &v), 0);
	assert_int_equal(v, 1ULL << 30);
	assert_int_equal(conf_parse_size("64k", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(conf_parse_size("10MB", &v), -1);
	assert_int_equal(conf_parse_size("-1", &v), -1);
}

static void
test_missing_file(void **state)
{
	struct conf	*c = conf_load("/nonexistent/chainwatch.conf");

	assert_int_equal(c->n_errors, 1);
	assert_string_equal(c->errors[0], "/nonexistent/chainwatch.conf: "
	    "cannot open: No such file or directory");
	conf_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_legacy_pair),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_redaction),
		cmocka_unit_test(test_redaction_query),
		cmocka_unit_test(test_sections_and_keys),
		cmocka_unit_test(test_fmt_value),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_all_errors_reported),
		cmocka_unit_test(test_line_length),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_missing_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
