/* pis_connect.h -- the probe's connection to a node, over every address
 * its name resolves to.
 *
 * Pure (libc sockets only, no httpd headers), so the address walk is
 * unit-tested without a server.  `localhost` may resolve to ::1 first
 * while the node listens on 127.0.0.1 only: a refused (or failed)
 * connect moves on to the next address, within the probe's one deadline.
 * Not here: happy eyeballs (addresses are tried one after the other, so
 * an address that drops packets costs the rest of the deadline).
 */
#ifndef PIS_CONNECT_H
#define PIS_CONNECT_H

#include <stddef.h>
#include <netdb.h>

/* Starts a non-blocking connect to the first address of *next that takes
 * one, and moves *next past it.  Returns the socket (connecting or
 * connected), or -1 when no address is left; then *err is the errno of
 * the last failure (ECONNREFUSED, ...; 0 with no address at all). */
int pis_connect_start(const struct addrinfo **next, int *err);

/* The result of a connect once poll() says the socket is writable: 0,
 * or the errno it failed with. */
int pis_connect_result(int fd);

/* The local address of a connected socket ("192.0.2.1", "::1"): the
 * address the node sees the probe come from.  "" when unknown. */
void pis_local_addr(int fd, char *buf, size_t len);

/* "host:port" for a Host header, an IPv6 literal in brackets
 * ("[::1]:8080", RFC 7230 section 5.4).  Truncated to len - 1. */
void pis_host_header(char *buf, size_t len, const char *host,
                     unsigned port);

#endif /* PIS_CONNECT_H */
