/* pia_serve.c -- the agent's HTTP server (see pia_agent.h).
 *
 * One poll() loop over a fixed table of --max-clients connection slots:
 * no threads, no children, non-blocking sockets, one request per
 * connection (Connection: close).  A slot goes
 *
 *   accepted -> READING (head deadline: --head-timeout, at most --timeout)
 *            -> WRITING (answer deadline: --timeout)
 *            -> LINGERING (half-closed, 500 ms to read what still comes,
 *                          so that closing does not reset the answer)
 *            -> closed
 *
 * and a missed deadline closes it, silently while READING: a silent or
 * trickling client costs one slot until its head deadline, whatever it
 * sends, and never delays another.  A newcomer gets a slot by the rules
 * of pia_admit.h (per peer its newest is refused, at the total bound the
 * oldest idle one goes).  Each turn serves the slots that are ready
 * before it accepts, and reads a new connection at once, so a client
 * whose request has arrived (a probe) is answered before a flood of
 * newer connections can evict it.  The answer (< PIA_TEXT_MAX) is built
 * in the slot's buffer; what a send leaves waits there for POLLOUT.
 *
 * Cost: one pass over the slots per wake-up (a few hundred at most);
 * each slot holds PIA_HEAD_MAX + PIA_OUT_MAX bytes, allocated at start
 * (pages that are never touched cost no memory).  The table fits the
 * open file limit (fit_files: raised to the hard limit, else fewer
 * slots, said in the log), so accept does not run out of descriptors
 * and poll's set stays under the limit (above it poll fails EINVAL).
 * Accept and poll errors are logged once per state change; out of
 * descriptors all the same (ENFILE), accepting pauses 100 ms instead of
 * spinning on a listener that stays readable.
 * Left out: keep-alive, request bodies, TLS, access control (listen on a
 * trusted address; the default is 127.0.0.1, behind the node's web
 * server), TCP_DEFER_ACCEPT (the head deadline bounds the same).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                      /* accept4 */
#endif
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pia_admit.h"
#include "pia_agent.h"
#include "pia_request.h"

#define PIA_OUT_MAX      (PIA_TEXT_MAX + 512)   /* status line, headers */
#define PIA_LINGER_MS    500
#define PIA_ACCEPT_BURST 64        /* accepts a listener, a turn */
#define PIA_PAUSE_MS     100       /* no accepting after EMFILE and such */
#define PIA_FD_SPARE     7         /* stdio, and files a render opens */

typedef struct {
    int fd;                        /* -1: free */
    int64_t deadline;              /* ms, of the phase it is in */
    size_t in_len, out_len, out_off;
    char in[PIA_HEAD_MAX];
    char out[PIA_OUT_MAX];
} pia_conn;

typedef struct {
    const pia_settings *s;
    const int *lfd;
    size_t nl, n;                  /* listeners, slots */
    pia_slot_state *st;            /* n: what pia_admit reads */
    pia_conn *c;                   /* n */
    struct pollfd *pfd;            /* nl + n */
    uint64_t seq;                  /* the last accept's */
    int64_t accept_pause;          /* ms: no accepting before */
    int accept_err;                /* last accept errno logged */
    int poll_err;                  /* last poll errno logged */
} pia_server;

/* Milliseconds of the monotonic clock: 64 bits, as a 32-bit long would
 * overflow after 24.8 days of uptime on 32-bit ARM. */
static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void slot_close(pia_server *sv, size_t i)
{
    if (sv->c[i].fd >= 0) {
        close(sv->c[i].fd);
    }
    sv->c[i].fd = -1;
    sv->st[i].phase = PIA_SLOT_FREE;
}

/* After the answer: half-close, then read what the client still sends
 * (briefly) before closing. */
static void slot_linger(pia_server *sv, size_t i)
{
    shutdown(sv->c[i].fd, SHUT_WR);
    sv->st[i].phase = PIA_SLOT_LINGERING;
    sv->c[i].deadline = now_ms() + PIA_LINGER_MS;
}

/* Sends what is left of the answer; on EAGAIN waits for POLLOUT. */
static void slot_send(pia_server *sv, size_t i)
{
    pia_conn *c = &sv->c[i];

    while (c->out_off < c->out_len) {
        ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);

        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return;
        }
        if (w <= 0) {
            slot_close(sv, i);
            return;
        }
        c->out_off += (size_t)w;
    }
    slot_linger(sv, i);
}

/* The whole answer to r, status line to body, into c->out. */
static void build_answer(const pia_settings *s, const pia_request *r,
                         pia_conn *c)
{
    static char body[PIA_TEXT_MAX];
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
    hlen = snprintf(c->out, sizeof(c->out),
                    "HTTP/1.1 %s\r\nContent-Type: %s\r\n"
                    "Content-Length: %zu\r\nCache-Control: no-cache\r\n"
                    "%sConnection: close\r\n\r\n",
                    pia_status_line(r->answer), type, blen,
                    r->answer == PIA_NOT_ALLOWED ? "Allow: GET, HEAD\r\n"
                                                 : "");
    c->out_len = (size_t)hlen;
    if (!r->head) {
        memcpy(c->out + c->out_len, body, blen);
        c->out_len += blen;
    }
    c->out_off = 0;
}

/* The head in c->in is complete (or will not be: cut short, too long). */
static void slot_answer(pia_server *sv, size_t i)
{
    pia_conn *c = &sv->c[i];
    pia_request r;

    if (pia_head_length(c->in, c->in_len) == 0) {
        memset(&r, 0, sizeof(r));
        r.answer = PIA_BAD_REQUEST;
    } else {
        pia_parse_request(c->in, c->in_len, sv->s->path, &r);
    }
    build_answer(sv->s, &r, c);
    sv->st[i].phase = PIA_SLOT_WRITING;
    c->deadline = now_ms() + 1000 * (int64_t)sv->s->timeout;
    slot_send(sv, i);
}

/* Reads the request head as far as it has come. */
static void slot_read_head(pia_server *sv, size_t i)
{
    pia_conn *c = &sv->c[i];

    for (;;) {
        ssize_t n = recv(c->fd, c->in + c->in_len,
                         sizeof(c->in) - c->in_len, MSG_DONTWAIT);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return;                      /* more later */
        }
        if (n < 0 || (n == 0 && c->in_len == 0)) {
            slot_close(sv, i);           /* nothing to answer */
            return;
        }
        c->in_len += (size_t)n;
        if (n == 0 || c->in_len == sizeof(c->in)
            || pia_head_length(c->in, c->in_len) > 0) {
            slot_answer(sv, i);          /* EOF mid-head, full, or done */
            return;
        }
    }
}

/* Lingering: drops what comes until EOF or the deadline (16 reads a
 * turn, so that a client who keeps sending does not hold the loop). */
static void slot_drain(pia_server *sv, size_t i)
{
    char sink[4096];
    ssize_t n = 1;
    int k;

    for (k = 0; k < 16 && n > 0; k++) {
        n = recv(sv->c[i].fd, sink, sizeof(sink), MSG_DONTWAIT);
    }
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK
                   && errno != EINTR)) {
        slot_close(sv, i);
    }
}

static void slot_ready(pia_server *sv, size_t i, short revents)
{
    switch (sv->st[i].phase) {
    case PIA_SLOT_READING:
        slot_read_head(sv, i);
        break;
    case PIA_SLOT_WRITING:
        if (revents & (POLLERR | POLLHUP)) {
            slot_close(sv, i);
        } else {
            slot_send(sv, i);
        }
        break;
    case PIA_SLOT_LINGERING:
        slot_drain(sv, i);
        break;
    default:
        break;
    }
}

/* Logs an accept error once per change of error; pauses accepting when
 * out of descriptors or memory (the listener would stay readable). */
static void accept_failed(pia_server *sv, int err)
{
    if (err == EAGAIN || err == EWOULDBLOCK || err == EINTR
        || err == ECONNABORTED) {
        return;
    }
    if (err != sv->accept_err) {
        fprintf(stderr, "pi-telemetry-agent: accept: %s\n", strerror(err));
        sv->accept_err = err;
    }
    if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
        sv->accept_pause = now_ms() + PIA_PAUSE_MS;
    }
}

/* A new connection fd from sa: into a slot, or closed. */
static void admit(pia_server *sv, int fd, const struct sockaddr *sa)
{
    pia_peer peer;
    int evict;
    long i;

    pia_peer_of(sa, &peer);
    i = pia_admit(sv->st, sv->n, &peer, sv->s->max_per_peer, &evict);
    if (i < 0) {
        close(fd);                       /* refused */
        return;
    }
    if (evict) {
        slot_close(sv, (size_t)i);
    }
    sv->c[i].fd = fd;
    sv->c[i].in_len = 0;
    sv->c[i].deadline = now_ms() + 1000 * (int64_t)(sv->s->head_timeout
                                                    < sv->s->timeout
                                                    ? sv->s->head_timeout
                                                    : sv->s->timeout);
    sv->st[i].phase = PIA_SLOT_READING;
    sv->st[i].peer = peer;
    sv->st[i].seq = ++sv->seq;
    slot_read_head(sv, (size_t)i);       /* its request may be here */
}

/* Accepts what is waiting on listener lfd, PIA_ACCEPT_BURST at most. */
static void accept_ready(pia_server *sv, int lfd)
{
    int k;

    for (k = 0; k < PIA_ACCEPT_BURST && !pia_stop; k++) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int fd = accept4(lfd, (struct sockaddr *)&ss, &sl,
                         SOCK_CLOEXEC | SOCK_NONBLOCK);

        if (fd < 0) {
            accept_failed(sv, errno);
            return;
        }
        sv->accept_err = 0;
        admit(sv, fd, (struct sockaddr *)&ss);
    }
}

/* Closes the slots whose deadline has passed; returns the ms to the
 * next deadline (1000 at most: a stop signal is seen within a second). */
static int expire(pia_server *sv, int64_t now)
{
    int64_t next = now + 1000;
    size_t i;

    for (i = 0; i < sv->n; i++) {
        if (sv->st[i].phase == PIA_SLOT_FREE) {
            continue;
        }
        if (now >= sv->c[i].deadline) {
            slot_close(sv, i);
        } else if (sv->c[i].deadline < next) {
            next = sv->c[i].deadline;
        }
    }
    if (sv->accept_pause > now && sv->accept_pause < next) {
        next = sv->accept_pause;
    }
    return (int)(next - now);
}

/* The poll set: listeners (unless accepting is paused), then slots. */
static void poll_set(pia_server *sv, int64_t now)
{
    size_t i;

    for (i = 0; i < sv->nl; i++) {
        sv->pfd[i].fd = now >= sv->accept_pause ? sv->lfd[i] : -1;
        sv->pfd[i].events = POLLIN;
        sv->pfd[i].revents = 0;
    }
    for (i = 0; i < sv->n; i++) {
        struct pollfd *p = &sv->pfd[sv->nl + i];

        p->fd = sv->c[i].fd;
        p->events = sv->st[i].phase == PIA_SLOT_WRITING ? POLLOUT : POLLIN;
        p->revents = 0;
    }
}

/* A poll that fails (ENOMEM; EINVAL, were the set above the open file
 * limit: fit_files prevents it) is logged once and retried after a
 * pause, not in a spin. */
static void poll_failed(pia_server *sv, int err)
{
    struct timespec ts = { 0, PIA_PAUSE_MS * 1000000L };

    if (err != sv->poll_err) {
        fprintf(stderr, "pi-telemetry-agent: poll: %s\n", strerror(err));
        sv->poll_err = err;
    }
    nanosleep(&ts, NULL);
}

static void serve_turn(pia_server *sv)
{
    int64_t now = now_ms();
    int timeout = expire(sv, now), rc;
    size_t i;

    poll_set(sv, now);
    rc = poll(sv->pfd, sv->nl + sv->n, timeout);
    if (rc < 0 && errno != EINTR) {
        poll_failed(sv, errno);
    }
    if (rc <= 0) {
        return;                          /* time, or EINTR: pia_stop */
    }
    sv->poll_err = 0;
    for (i = 0; i < sv->n; i++) {
        if (sv->pfd[sv->nl + i].revents != 0 && sv->c[i].fd >= 0) {
            slot_ready(sv, i, sv->pfd[sv->nl + i].revents);
        }
    }
    for (i = 0; i < sv->nl; i++) {
        if (sv->pfd[i].revents != 0) {
            accept_ready(sv, sv->lfd[i]);
        }
    }
}

/* Slots that fit the open file limit: want, or fewer (said in the log)
 * when the limit, raised as far as the hard limit allows, is below what
 * want needs: stdio, the listeners, a few for reading sensors.  Then
 * accept never fails for lack of a descriptor, and at the bound the
 * oldest idle client goes, as pia_admit says.  0: not even one. */
static size_t fit_files(size_t want, size_t nl)
{
    rlim_t need = (rlim_t)(want + nl + PIA_FD_SPARE);
    struct rlimit rl;
    size_t fit;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need) {
        return want;
    }
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > rl.rlim_cur) {
        struct rlimit up = rl;

        up.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need
                      ? rl.rlim_max : need;
        if (setrlimit(RLIMIT_NOFILE, &up) == 0) {
            rl = up;
        }
        if (rl.rlim_cur >= need) {
            return want;
        }
    }
    fit = rl.rlim_cur > nl + PIA_FD_SPARE
          ? (size_t)(rl.rlim_cur - nl - PIA_FD_SPARE) : 0;
    fprintf(stderr, "pi-telemetry-agent: --max-clients %zu: %lu open files "
            "allowed, serving %zu at once\n", want,
            (unsigned long)rl.rlim_cur, fit);
    return fit;
}

/* The table for s: 0, or 1 after a message. */
static int server_open(pia_server *sv, const pia_settings *s,
                       const int *lfd, size_t nl)
{
    size_t i;

    memset(sv, 0, sizeof(*sv));
    sv->s = s;
    sv->lfd = lfd;
    sv->nl = nl;
    sv->n = fit_files(s->max_clients, nl);
    if (sv->n == 0) {
        fprintf(stderr, "pi-telemetry-agent: too few open files allowed "
                "(ulimit -n) to serve a client\n");
        return 1;
    }
    sv->st = calloc(sv->n, sizeof(*sv->st));
    sv->c = calloc(sv->n, sizeof(*sv->c));
    sv->pfd = calloc(sv->nl + sv->n, sizeof(*sv->pfd));
    if (sv->st == NULL || sv->c == NULL || sv->pfd == NULL) {
        fprintf(stderr, "pi-telemetry-agent: out of memory for %zu "
                "connections\n", sv->n);
        return 1;
    }
    for (i = 0; i < sv->n; i++) {
        sv->c[i].fd = -1;
    }
    return 0;
}

/* Closes every connection and listener, frees the table. */
static void server_close(pia_server *sv)
{
    size_t i;

    for (i = 0; sv->c != NULL && sv->st != NULL && i < sv->n; i++) {
        slot_close(sv, i);
    }
    for (i = 0; i < sv->nl; i++) {
        close(sv->lfd[i]);
    }
    free(sv->st);
    free(sv->c);
    free(sv->pfd);
}

int pia_serve(const pia_settings *s, const int *lfd, size_t nl)
{
    pia_server sv;
    int rc = server_open(&sv, s, lfd, nl);

    while (rc == 0 && !pia_stop) {
        serve_turn(&sv);
    }
    server_close(&sv);
    return rc;
}
