/* pia_listen.c -- the agent's listening sockets (see pia_agent.h).
 *
 * Every address --listen names is bound, not only the first that
 * getaddrinfo returns: "*:PORT" is 0.0.0.0 and ::, each its own socket
 * (IPV6_V6ONLY, so that the two do not collide and the peer addresses
 * of IPv4 clients stay IPv4); a name with an IPv4 and an IPv6 address
 * gets both.  With port 0 the first socket's port is used for the rest.
 * An address the machine cannot have (no IPv6: EAFNOSUPPORT, or
 * EADDRNOTAVAIL for ::) is skipped with a message while another is
 * bound; any other failure is fatal, as a web server's Listen is.
 * Sockets are non-blocking (pia_serve.c polls them) and close on exec.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pia_agent.h"
#include "pia_request.h"

#define PIA_BACKLOG 128              /* a burst of connects above the
                                        slots waits here, not in SYN
                                        retries */

/* Logs the address actually bound (the port may have been 0). */
static void log_bound(int fd)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    char h[NI_MAXHOST], p[NI_MAXSERV];

    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0
        && getnameinfo((struct sockaddr *)&ss, sl, h, sizeof(h), p,
                       sizeof(p), NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
        fprintf(stderr, "pi-telemetry-agent: listening on %s%s%s:%s\n",
                strchr(h, ':') ? "[" : "", h, strchr(h, ':') ? "]" : "", p);
    }
}

/* The port fd is bound to, network order. */
static in_port_t bound_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);

    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        return 0;
    }
    return ss.ss_family == AF_INET6
           ? ((struct sockaddr_in6 *)&ss)->sin6_port
           : ((struct sockaddr_in *)&ss)->sin_port;
}

/* Sets ai's port to port (network order) when ai asked for port 0. */
static void same_port(struct addrinfo *ai, in_port_t port)
{
    if (ai->ai_family == AF_INET6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)ai->ai_addr;

        a->sin6_port = a->sin6_port ? a->sin6_port : port;
    } else if (ai->ai_family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)ai->ai_addr;

        a->sin_port = a->sin_port ? a->sin_port : port;
    }
}

/* A listening socket on ai, or -1 (errno set). */
static int try_bind(const struct addrinfo *ai)
{
    int one = 1, err;
    int fd = socket(ai->ai_family,
                    ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                    ai->ai_protocol);

    if (fd < 0) {
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (ai->ai_family == AF_INET6) {
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    }
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0
        || listen(fd, PIA_BACKLOG) != 0) {
        err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

/* Whether ai's address came earlier in the list (a name listed twice). */
static int seen_before(const struct addrinfo *res, const struct addrinfo *ai)
{
    for (; res != ai; res = res->ai_next) {
        if (res->ai_addrlen == ai->ai_addrlen
            && memcmp(res->ai_addr, ai->ai_addr, ai->ai_addrlen) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Binds each address of res into fds[max]; returns the count, or -1. */
static int bind_all(const pia_settings *s, struct addrinfo *res, int *fds,
                    size_t max)
{
    struct addrinfo *ai;
    size_t n = 0, i;

    for (ai = res; ai != NULL; ai = ai->ai_next) {
        int fd;

        if (seen_before(res, ai) || n == max) {
            continue;
        }
        if (n > 0) {
            same_port(ai, bound_port(fds[0]));
        }
        if ((fd = try_bind(ai)) >= 0) {
            fds[n++] = fd;
            continue;
        }
        fprintf(stderr, "pi-telemetry-agent: cannot listen on %s (%s): %s\n",
                s->listen, ai->ai_family == AF_INET6 ? "IPv6" : "IPv4",
                strerror(errno));
        if (errno != EAFNOSUPPORT
            && !(errno == EADDRNOTAVAIL && ai->ai_family == AF_INET6)) {
            break;
        }
    }
    if (n > 0 && ai == NULL) {
        return (int)n;
    }
    for (i = 0; i < n; i++) {
        close(fds[i]);
    }
    return -1;
}

int pia_listen_open(const pia_settings *s, int *fds, size_t max)
{
    struct addrinfo hints, *res = NULL;
    char host[256], port[8];
    unsigned p;
    int n, i, err;

    pia_parse_listen(s->listen, host, sizeof(host), &p);
    snprintf(port, sizeof(port), "%u", p);
    memset(&hints, 0, sizeof(hints));
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    err = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
    if (err != 0) {
        fprintf(stderr, "pi-telemetry-agent: --listen %s: %s\n", s->listen,
                gai_strerror(err));
        return -1;
    }
    n = bind_all(s, res, fds, max);
    freeaddrinfo(res);
    for (i = 0; i < n; i++) {
        log_bound(fds[i]);
    }
    return n;
}
