/*
 * Listening addresses, parsed one way for every program that takes one,
 * so that chainwatch.conf, chainwatch-metrics -l and chainwatch-devnode
 * --listen accept the same forms.
 */
#include "config.h"

#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "listen_addr.h"

int
listen_addr_parse(const char *s, char *addr, size_t addrlen, unsigned *port)
{
	const char	*colon;
	char		 a[64], *end;
	unsigned long	 p;
	unsigned char	 buf[16];
	size_t		 n;

	if ((colon = strrchr(s, ':')) == NULL || colon[1] == '\0')
		return -1;
	n = (size_t)(colon - s);
	if (s[0] == '[') {
		if (n < 3 || s[n - 1] != ']' || n - 2 >= sizeof(a))
			return -1;
		memcpy(a, s + 1, n - 2);
		a[n - 2] = '\0';
		if (inet_pton(AF_INET6, a, buf) != 1)
			return -1;
	} else {
		if (n == 0 || n >= sizeof(a))
			return -1;
		memcpy(a, s, n);
		a[n] = '\0';
		if (inet_pton(AF_INET, a, buf) != 1)
			return -1;
	}
	if (!isdigit((unsigned char)colon[1]))
		return -1;
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (errno != 0 || *end != '\0' || p > 65535)
		return -1;
	if (strlen(a) >= addrlen)
		return -1;
	strcpy(addr, a);
	*port = (unsigned)p;
	return 0;
}

int
listen_addr_sockaddr(const char *addr, unsigned port,
    struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in	*sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		*len = sizeof(*sin);
	} else if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*sin6);
	} else
		return -1;
	return 0;
}
