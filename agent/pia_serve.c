/* pia_serve.c -- the agent's HTTP server (see pia_agent.h).
 *
 * One connection at a time, one request per connection: the master
 * probes a node every couple of seconds, so there is nothing to gain
 * from concurrency, and a single loop cannot leak threads or children.
 * What a slow or silent client costs is bounded: its whole request head
 * must arrive within --timeout seconds (poll with the time left, never
 * a blocking read), and every send has the same timeout (SO_SNDTIMEO);
 * then the connection is closed and the next one accepted.
 * Left out: keep-alive, request bodies, TLS, access control (listen on
 * a trusted address; the default is 127.0.0.1, behind the node's web
 * server).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                      /* accept4 */
#endif
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pia_agent.h"
#include "pia_request.h"

static long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads the request head into buf until its blank line, the buffer is
 * full, EOF or the deadline.  Returns the bytes read (0: none, or the
 * deadline passed first: *timed_out). */
static size_t read_head(int fd, char *buf, size_t size, long deadline,
                        int *timed_out)
{
    size_t len = 0;

    *timed_out = 0;
    while (len < size && pia_head_length(buf, len) == 0 && !pia_stop) {
        struct pollfd p = { fd, POLLIN, 0 };
        long left = deadline - now_ms();
        ssize_t n;

        if (left <= 0) {
            *timed_out = 1;
            break;
        }
        if (poll(&p, 1, (int)left) <= 0) {
            continue;                    /* EINTR, or time: checked above */
        }
        n = recv(fd, buf + len, size - len, 0);
        if (n <= 0) {
            break;
        }
        len += (size_t)n;
    }
    return len;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

        if (w < 0 && errno == EINTR && !pia_stop) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void respond(int fd, const pia_settings *s, const pia_request *r)
{
    static char body[PIA_TEXT_MAX];
    char head[512];
    const char *type = "text/plain; charset=utf-8";
    size_t blen;
    int hlen;

    if (r->answer == PIA_AUTO || r->answer == PIA_HTML) {
        blen = pia_render(s, r->answer == PIA_HTML, r->refresh, body,
                          sizeof(body));
        if (r->answer == PIA_HTML) {
            type = "text/html; charset=utf-8";
        }
    } else {
        blen = (size_t)snprintf(body, sizeof(body), "%s\n",
                                pia_status_line(r->answer));
    }
    hlen = snprintf(head, sizeof(head),
                    "HTTP/1.1 %s\r\nContent-Type: %s\r\n"
                    "Content-Length: %zu\r\nCache-Control: no-cache\r\n"
                    "%sConnection: close\r\n\r\n",
                    pia_status_line(r->answer), type, blen,
                    r->answer == PIA_NOT_ALLOWED ? "Allow: GET, HEAD\r\n"
                                                 : "");
    if (send_all(fd, head, (size_t)hlen) == 0 && !r->head) {
        send_all(fd, body, blen);
    }
}

/* After the answer: half-close and read what the client still sends
 * (briefly), so that closing with unread input does not reset the
 * connection before the client has read the answer. */
static void linger_close(int fd)
{
    char sink[4096];
    long deadline = now_ms() + 500;

    shutdown(fd, SHUT_WR);
    while (now_ms() < deadline) {
        struct pollfd p = { fd, POLLIN, 0 };

        if (poll(&p, 1, (int)(deadline - now_ms())) <= 0
            || recv(fd, sink, sizeof(sink), 0) <= 0) {
            break;
        }
    }
    close(fd);
}

static void serve_client(int fd, const pia_settings *s)
{
    static char buf[PIA_HEAD_MAX];
    struct timeval tv = { (time_t)s->timeout, 0 };
    pia_request r;
    size_t len;
    int timed_out;

    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    len = read_head(fd, buf, sizeof(buf), now_ms() + 1000L * s->timeout,
                    &timed_out);
    if (len == 0 || timed_out || pia_stop) {
        close(fd);                       /* nothing to answer */
        return;
    }
    if (pia_head_length(buf, len) == 0) {
        memset(&r, 0, sizeof(r));
        r.answer = PIA_BAD_REQUEST;      /* too long, or cut short */
    } else {
        pia_parse_request(buf, len, s->path, &r);
    }
    respond(fd, s, &r);
    linger_close(fd);
}

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

static int try_bind(const struct addrinfo *ai)
{
    int one = 1;
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
                    ai->ai_protocol);

    if (fd < 0) {
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 16) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* A listening socket on s->listen (validated by the option parser). */
static int open_listener(const pia_settings *s)
{
    struct addrinfo hints, *res = NULL, *ai;
    char host[256], port[8];
    unsigned p;
    int fd = -1, err;

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
    for (ai = res; ai != NULL && fd < 0; ai = ai->ai_next) {
        fd = try_bind(ai);
    }
    if (fd < 0) {
        fprintf(stderr, "pi-telemetry-agent: cannot listen on %s: %s\n",
                s->listen, strerror(errno));
    }
    freeaddrinfo(res);
    return fd;
}

int pia_serve(const pia_settings *s)
{
    int lfd = open_listener(s), last_err = 0;

    if (lfd < 0) {
        return 1;
    }
    log_bound(lfd);
    while (!pia_stop) {
        struct pollfd p = { lfd, POLLIN, 0 };
        int fd;

        /* A second at most: a stop signal that comes just before poll
         * is seen within a second. */
        if (poll(&p, 1, 1000) <= 0) {
            continue;                    /* EINTR: pia_stop is checked */
        }
        fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno != last_err && errno != EINTR && errno != EAGAIN) {
                fprintf(stderr, "pi-telemetry-agent: accept: %s\n",
                        strerror(errno));
            }
            last_err = errno;
            continue;
        }
        last_err = 0;
        serve_client(fd, s);
    }
    close(lfd);
    return 0;
}
