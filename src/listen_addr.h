/*
 * The addresses chainwatch's servers listen on (metrics_listen, the
 * metrics server's -l, the devnode's --listen): an IPv4 literal or a
 * bracketed IPv6 literal, and a port, such as "127.0.0.1:9616" or
 * "[::1]:9616".
 */
#ifndef CW_LISTEN_ADDR_H
#define CW_LISTEN_ADDR_H

#include <sys/socket.h>

#include <stddef.h>

/*
 * Split spec into the address, without brackets, and the port (0 to
 * 65535).  -1 if it is not of that form.  Names are refused: what a name
 * resolves to can change under a program that binds once.
 */
int	listen_addr_parse(const char *spec, char *addr, size_t addrlen,
	    unsigned *port);
/*
 * The socket address of what listen_addr_parse() gave, for bind(): IPv4
 * or IPv6 as addr is.  -1 if addr is neither.
 */
int	listen_addr_sockaddr(const char *addr, unsigned port,
	    struct sockaddr_storage *, socklen_t *);

#endif
