/* test_connect.c -- the probe's walk over a node's addresses and its
 * Host header (pis_connect.c), on loopback sockets. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "unit.h"
#include "pis_connect.h"

static void host_headers(void)
{
    char b[64];

    pis_host_header(b, sizeof(b), "::1", 8080);
    CHECK_STR(b, "[::1]:8080");
    pis_host_header(b, sizeof(b), "2001:db8::7", 80);
    CHECK_STR(b, "[2001:db8::7]:80");
    pis_host_header(b, sizeof(b), "10.0.0.11", 80);
    CHECK_STR(b, "10.0.0.11:80");
    pis_host_header(b, sizeof(b), "pi-1.lan", 8080);
    CHECK_STR(b, "pi-1.lan:8080");
    pis_host_header(b, sizeof(b), "[::1]", 81);
    CHECK_STR(b, "[::1]:81");
    pis_host_header(b, 6, "10.0.0.11", 80);
    CHECK_STR(b, "10.0.");
}

/* A listener on 127.0.0.1 (port in *port), or -1. */
static int listen4(unsigned short *port)
{
    struct sockaddr_in a;
    socklen_t l = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0
        || listen(fd, 4) != 0
        || getsockname(fd, (struct sockaddr *)&a, &l) != 0) {
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

/* A port on ::1 that nothing listens on (bound, then closed). */
static unsigned short closed6(void)
{
    struct sockaddr_in6 a;
    socklen_t l = sizeof(a);
    int fd = socket(AF_INET6, SOCK_STREAM, 0);
    unsigned short port = 9;       /* discard: nothing listens there */

    memset(&a, 0, sizeof(a));
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_loopback;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0
        && getsockname(fd, (struct sockaddr *)&a, &l) == 0) {
        port = ntohs(a.sin6_port);
    }
    if (fd >= 0) {
        close(fd);
    }
    return port;
}

/* Waits (at most 5 s) for a connect to end; its result. */
static int settle(int fd)
{
    struct pollfd p = { fd, POLLOUT, 0 };

    if (poll(&p, 1, 5000) != 1) {
        return ETIMEDOUT;
    }
    return pis_connect_result(fd);
}

/* ::1 first (refused: the node listens on IPv4 only), then 127.0.0.1. */
static void walk_addresses(void)
{
    struct sockaddr_in6 a6;
    struct sockaddr_in a4;
    struct addrinfo ai6, ai4;
    const struct addrinfo *next = &ai6;
    unsigned short port4 = 0;
    int lfd = listen4(&port4), fd, err, rc, afd;

    CHECK(lfd >= 0);
    memset(&a6, 0, sizeof(a6));
    a6.sin6_family = AF_INET6;
    a6.sin6_addr = in6addr_loopback;
    a6.sin6_port = htons(closed6());
    memset(&a4, 0, sizeof(a4));
    a4.sin_family = AF_INET;
    a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a4.sin_port = htons(port4);
    memset(&ai6, 0, sizeof(ai6));
    memset(&ai4, 0, sizeof(ai4));
    ai6.ai_family = AF_INET6;
    ai6.ai_socktype = SOCK_STREAM;
    ai6.ai_addr = (struct sockaddr *)&a6;
    ai6.ai_addrlen = sizeof(a6);
    ai6.ai_next = &ai4;
    ai4.ai_family = AF_INET;
    ai4.ai_socktype = SOCK_STREAM;
    ai4.ai_addr = (struct sockaddr *)&a4;
    ai4.ai_addrlen = sizeof(a4);

    fd = pis_connect_start(&next, &err);
    rc = fd >= 0 ? settle(fd) : err;
    if (fd >= 0 && rc == 0) {
        /* only if ::1 had a listener after all: not the case tested */
        CHECK(!"::1 answered");
    }
    if (fd >= 0) {
        close(fd);
    }
    /* refused (or no IPv6 at all): on to the next address */
    CHECK(rc == ECONNREFUSED || rc == EAFNOSUPPORT || rc == EADDRNOTAVAIL
          || rc == ENETUNREACH);
    if (next == &ai4) {
        fd = pis_connect_start(&next, &err);
    }
    CHECK(fd >= 0);
    CHECK(next == NULL);
    CHECK_INT(fd >= 0 ? settle(fd) : -1, 0);
    afd = accept(lfd, NULL, NULL);
    CHECK(afd >= 0);
    if (fd >= 0) {
        char local[64];

        pis_local_addr(fd, local, sizeof(local));
        CHECK_STR(local, "127.0.0.1");
        close(fd);
    }
    if (afd >= 0) {
        close(afd);
    }
    /* nothing left: -1, err 0 */
    CHECK_INT(pis_connect_start(&next, &err), -1);
    CHECK_INT(err, 0);
    close(lfd);
}

/* Every address refused: -1 at once or a refused result. */
static void all_refused(void)
{
    struct sockaddr_in a4;
    struct addrinfo ai4;
    const struct addrinfo *next = &ai4;
    unsigned short port = 0;
    int lfd = listen4(&port), fd, err;

    close(lfd);                    /* now nothing listens on port */
    memset(&a4, 0, sizeof(a4));
    a4.sin_family = AF_INET;
    a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a4.sin_port = htons(port);
    memset(&ai4, 0, sizeof(ai4));
    ai4.ai_family = AF_INET;
    ai4.ai_socktype = SOCK_STREAM;
    ai4.ai_addr = (struct sockaddr *)&a4;
    ai4.ai_addrlen = sizeof(a4);
    fd = pis_connect_start(&next, &err);
    if (fd >= 0) {
        CHECK_INT(settle(fd), ECONNREFUSED);
        close(fd);
    }
    else {
        CHECK_INT(err, ECONNREFUSED);
    }
}

void test_connect(void)
{
    host_headers();
    walk_addresses();
    all_refused();
}
