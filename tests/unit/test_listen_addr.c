/*
 * src/listen_addr.c: the listening addresses chainwatch.conf, the metrics
 * server and the devnode take, and conf.c's "none" beside them.
 */
#include "config.h"

#include <sys/socket.h>

#include <netinet/in.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "conf.h"
#include "listen_addr.h"

static void
test_parse(void **state)
{
	static const char *const bad[] = {
		"", "9616", ":9616", "127.0.0.1", "127.0.0.1:", "[::1]",
		"::1:9616", "localhost:9616", "1.2.3:4", "127.0.0.1:65536",
		"127.0.0.1:+80", "127.0.0.1: 80", "127.0.0.1:80x",
		"[fe80::1%lo]:80", "[127.0.0.1]:80", "none",
	};
	char		 addr[64];
	unsigned	 port;

	(void)state;
	assert_int_equal(listen_addr_parse("127.0.0.1:9616", addr,
	    sizeof(addr), &port), 0);
	assert_string_equal(addr, "127.0.0.1");
	assert_int_equal(port, 9616);
	assert_int_equal(listen_addr_parse("[::1]:0", addr, sizeof(addr),
	    &port), 0);
	assert_string_equal(addr, "::1");
	assert_int_equal(port, 0);
	assert_int_equal(listen_addr_parse("0.0.0.0:65535", addr,
	    sizeof(addr), &port), 0);
	assert_int_equal(port, 65535);
	/* The address must fit where it goes. */
	assert_int_equal(listen_addr_parse("127.0.0.1:1", addr, 9, &port),
	    -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (listen_addr_parse(bad[i], addr, sizeof(addr), &port) != -1)
			fail_msg("'%s' was taken", bad[i]);
}

static void
test_sockaddr(void **state)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len;

	(void)state;
	assert_int_equal(listen_addr_sockaddr("127.0.0.1", 9616, &ss, &len),
	    0);
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(len, sizeof(struct sockaddr_in));
	assert_int_equal(ntohs(((struct sockaddr_in *)&ss)->sin_port), 9616);
	assert_int_equal(listen_addr_sockaddr("::1", 80, &ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_equal(len, sizeof(struct sockaddr_in6));
	assert_int_equal(ntohs(((struct sockaddr_in6 *)&ss)->sin6_port), 80);
	assert_int_equal(listen_addr_sockaddr("localhost", 80, &ss, &len), -1);
}

/* metrics_listen: the same, or "none". */
static void
test_conf_none(void **state)
{
	char		 addr[64] = "x";
	unsigned	 port = 1;

	(void)state;
	assert_int_equal(conf_parse_listen("none", addr, sizeof(addr), &port),
	    0);
	assert_string_equal(addr, "");
	assert_int_equal(port, 0);
	assert_int_equal(conf_parse_listen("[::]:9616", addr, sizeof(addr),
	    &port), 0);
	assert_string_equal(addr, "::");
	assert_int_equal(conf_parse_listen("9616", addr, sizeof(addr),
	    &port), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_sockaddr),
		cmocka_unit_test(test_conf_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
