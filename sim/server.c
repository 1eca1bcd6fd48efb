/*
 * server.c - see server.h.
 *
 * A request's life:  READ --parse--> QUEUED --slot free--> SERVE
 *   --timer--> [GZIP --worker done-->] WRITE --sent--> READ (keep-alive)
 * Telemetry requests skip QUEUED/SERVE and are answered at once.  Errors
 * are answered and the connection closed.  A connection holds at most one
 * request in progress, so pipelined requests are answered in order.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "body.h"
#include "gzpool.h"
#include "server.h"

#define EV_DOWN    1
#define EV_UP      2
#define EV_HANG    4
#define EV_UNHANG  8

uint64_t sim_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double elapsed_s(const struct sim_server *s, uint64_t now)
{
    return (double)(now - s->start_ns) / 1e9;
}

static void slog(struct sim_server *s, const char *fmt, ...)
{
    va_list ap;

    if (!s->log)
        return;
    fprintf(s->log, "%.3f ", elapsed_s(s, sim_now_ns()));
    va_start(ap, fmt);
    vfprintf(s->log, fmt, ap);
    va_end(ap);
    fputc('\n', s->log);
    fflush(s->log);
}

/* ---- timers: binary min-heap on deadline ---- */

static void heap_swap(struct sim_server *s, int a, int b)
{
    struct sim_timer t = s->heap[a];

    s->heap[a] = s->heap[b];
    s->heap[b] = t;
}

static int heap_push(struct sim_server *s, uint64_t at, int conn,
                     unsigned gen)
{
    int i;

    if (s->nheap == s->heap_cap) {
        int cap = s->heap_cap ? s->heap_cap * 2 : 1024;
        struct sim_timer *h = realloc(s->heap, (size_t)cap * sizeof(*h));

        if (!h)
            return -1;
        s->heap = h;
        s->heap_cap = cap;
    }
    i = s->nheap++;
    s->heap[i].at = at;
    s->heap[i].conn = conn;
    s->heap[i].gen = gen;
    while (i > 0 && s->heap[(i - 1) / 2].at > s->heap[i].at) {
        heap_swap(s, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    return 0;
}

static struct sim_timer heap_pop(struct sim_server *s)
{
    struct sim_timer top = s->heap[0];
    int i = 0;

    s->heap[0] = s->heap[--s->nheap];
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;

        if (l < s->nheap && s->heap[l].at < s->heap[m].at)
            m = l;
        if (r < s->nheap && s->heap[r].at < s->heap[m].at)
            m = r;
        if (m == i)
            return top;
        heap_swap(s, i, m);
        i = m;
    }
}

/* ---- node helpers ---- */

static void busy_add(struct sim_node *n, int delta, uint64_t now)
{
    n->busy_ns += (double)n->busy * (double)(now - n->busy_since);
    n->busy_since = now;
    n->busy += delta;
}

static double rand01(struct sim_node *n)
{
    unsigned x = n->rng;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    n->rng = x;
    return (double)(x >> 8) / 16777216.0;
}

/* Service time in ns for the next request, thermal state included. */
static uint64_t service_ns(struct sim_node *n)
{
    const struct sim_node_conf *c = &n->conf;
    double ms = c->svc_a;

    if (c->dist == SIM_DIST_EXP)
        ms = -c->svc_a * log(1.0 - rand01(n));
    else if (c->dist == SIM_DIST_UNIFORM)
        ms = c->svc_a + (c->svc_b - c->svc_a) * rand01(n);
    ms = ms / c->speed * sim_thermal_slowdown(&n->th, &c->th);
    return (uint64_t)(ms * 1e6);
}

size_t sim_server_telemetry(const struct sim_server *s,
                            const struct sim_node *n, char *buf,
                            size_t size)
{
    int len = snprintf(buf, size,
        "Node: %s\nTemperatureC: %.1f\nThrottled: 0x%x\nLoad1: %.2f\n"
        "CPUs: %d\nMemAvailableKB: %ld\nUptimeS: %lu\n"
        "BusyWorkers: %d\nIdleWorkers: %d\n"
        "SimThrottledSeconds: %.1f\nSimPeakTemperatureC: %.1f\n"
        "SimServed: %lu\nSimBusy: %d\nSimQueued: %d\nSimSlots: %d\n"
        "SimSpeed: %g\nSimHung: %d\n",
        n->conf.name, n->th.temp, n->th.bits,
        sim_thermal_load1(&n->th, n->conf.cpus), n->conf.cpus,
        n->conf.mem_kb, (unsigned long)elapsed_s(s, sim_now_ns()),
        n->busy + n->queued + 1,
        n->conf.slots > n->busy ? n->conf.slots - n->busy : 0,
        n->th.throttled_s, n->th.peak, n->served, n->busy, n->queued,
        n->conf.slots, n->conf.speed, n->hung);

    if (len >= 0 && (size_t)len < size && n->conf.th.heat_at >= 0.0)
        len += snprintf(buf + len, size - (size_t)len, "SimHeatEvent: %d\n",
                        n->th.heat);
    if (len >= 0 && (size_t)len < size && sim_power_on(&n->conf.pw))
        len += snprintf(buf + len, size - (size_t)len,
                        "PowerW: %.2f\nSimEnergyJ: %.3f\n", n->pw.report_w,
                        n->pw.energy_j);
    return len < 0 ? 0 : (size_t)len >= size ? size - 1 : (size_t)len;
}

/* ---- connections ---- */

static struct sim_conn *conn_at(struct sim_server *s, int i, unsigned gen)
{
    struct sim_conn *c;

    if (i < 0 || i >= SIM_MAX_CONNS)
        return NULL;
    c = &s->conns[i];
    return c->state != SIM_C_FREE && c->gen == gen ? c : NULL;
}

static int conn_index(const struct sim_server *s, const struct sim_conn *c)
{
    return (int)(c - s->conns);
}

static void set_interest(struct sim_server *s, struct sim_conn *c)
{
    struct epoll_event ev = { 0 };

    ev.events = c->state == SIM_C_READ ? EPOLLIN | EPOLLRDHUP
                : c->state == SIM_C_WRITE ? EPOLLOUT : 0;
    ev.data.u64 = ((uint64_t)SIM_TAG_CONN << 32) | (uint32_t)conn_index(s, c);
    epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

static void queue_remove(struct sim_server *s, struct sim_node *n,
                         struct sim_conn *c)
{
    if (c->qprev >= 0)
        s->conns[c->qprev].qnext = c->qnext;
    else
        n->qhead = c->qnext;
    if (c->qnext >= 0)
        s->conns[c->qnext].qprev = c->qprev;
    else
        n->qtail = c->qprev;
    c->qprev = c->qnext = -1;
    n->queued--;
}

static void queue_append(struct sim_server *s, struct sim_node *n,
                         struct sim_conn *c)
{
    int i = conn_index(s, c);

    c->queued_at = sim_now_ns();
    c->qprev = n->qtail;
    c->qnext = -1;
    if (n->qtail >= 0)
        s->conns[n->qtail].qnext = i;
    else
        n->qhead = i;
    n->qtail = i;
    n->queued++;
    c->state = SIM_C_QUEUED;
    set_interest(s, c);
}

static void conn_close(struct sim_server *s, struct sim_conn *c)
{
    struct sim_node *n = &s->nodes[c->node];

    if (c->state == SIM_C_SERVE || c->state == SIM_C_GZIP)
        busy_add(n, -1, sim_now_ns());
    if (c->state == SIM_C_QUEUED)
        queue_remove(s, n, c);
    close(c->fd);
    free(c->in);
    free(c->owned);
    c->in = c->owned = NULL;
    c->fd = -1;
    c->state = SIM_C_FREE;
    c->gen++;
    c->ready = 0;
    c->next_free = s->free_head;
    s->free_head = conn_index(s, c);
    s->nopen--;
}

static void mark_ready(struct sim_server *s, struct sim_conn *c)
{
    if (!c->ready && c->in_len > 0) {
        c->ready = 1;
        s->ready[s->nready++] = conn_index(s, c);
    }
}

/* Sends what it can; returns -1 closed, 0 pending, 1 done. */
static int conn_flush(struct sim_server *s, struct sim_conn *c)
{
    size_t total = c->hdr_len + c->body_len;
    struct iovec iov[2];
    struct msghdr msg = { 0 };
    ssize_t w;

    while (c->out_off < total) {
        int k = 0;

        if (c->out_off < c->hdr_len) {
            iov[k].iov_base = c->hdr + c->out_off;
            iov[k++].iov_len = c->hdr_len - c->out_off;
        }
        if (c->body_len) {
            size_t off = c->out_off > c->hdr_len ? c->out_off - c->hdr_len
                                                 : 0;
            iov[k].iov_base = (char *)c->body + off;
            iov[k++].iov_len = c->body_len - off;
        }
        msg.msg_iov = iov;
        msg.msg_iovlen = (size_t)k;
        w = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EINTR))
            return 0;
        if (w < 0) {
            conn_close(s, c);
            return -1;
        }
        c->out_off += (size_t)w;
    }
    free(c->owned);
    c->owned = NULL;
    c->body = NULL;
    if (c->close_after) {
        conn_close(s, c);
        return -1;
    }
    c->state = SIM_C_READ;
    c->last_active = sim_now_ns();
    set_interest(s, c);
    mark_ready(s, c);
    return 1;
}

/*
 * Starts sending a response.  body (len bytes) is sent unless the request
 * was HEAD; owned, if not NULL, is freed after sending.
 */
static void respond(struct sim_server *s, struct sim_conn *c, int status,
                    const char *type, const char *body, size_t len,
                    char *owned, int gzipped)
{
    struct sim_node *n = &s->nodes[c->node];
    int vary = n->conf.gzip_level > 0 && status == 200 && !c->req.is_status;
    int keep = !c->close_after && c->req.keep_alive;
    int hl;

    c->close_after = !keep;
    hl = snprintf(c->hdr, sizeof(c->hdr),
        "HTTP/1.1 %d %s\r\nServer: pisim\r\nX-Node: %s\r\n"
        "Content-Type: %s\r\nContent-Length: %zu\r\n%s%s%s"
        "Connection: %s\r\n\r\n",
        status, sim_http_reason(status), n->conf.name, type, len,
        gzipped ? "Content-Encoding: gzip\r\n" : "",
        vary ? "Vary: Accept-Encoding\r\n" : "",
        c->req.is_status ? "Cache-Control: no-cache\r\n" : "",
        keep ? "keep-alive" : "close");
    c->hdr_len = (size_t)hl;
    c->body = body;
    c->body_len = c->req.method == SIM_HEAD ? 0 : len;
    c->owned = owned;
    c->out_off = 0;
    c->state = SIM_C_WRITE;
    if (conn_flush(s, c) == 0)
        set_interest(s, c);
}

static void respond_error(struct sim_server *s, struct sim_conn *c,
                          int status)
{
    char *msg = malloc(64);
    int len;

    if (!msg) {
        conn_close(s, c);
        return;
    }
    len = snprintf(msg, 64, "%d %s\n", status, sim_http_reason(status));
    c->close_after = 1;
    c->req.method = SIM_GET;
    c->req.is_status = 0;
    respond(s, c, status, "text/plain", msg, (size_t)len, msg, 0);
}

static void respond_status(struct sim_server *s, struct sim_conn *c)
{
    char *buf = malloc(1024);

    if (!buf) {
        conn_close(s, c);
        return;
    }
    respond(s, c, 200, "text/plain; charset=utf-8", buf,
            sim_server_telemetry(s, &s->nodes[c->node], buf, 1024), buf, 0);
}

/* The service runs from `start` (now, or the moment a slot fell free if
 * the request was already waiting then: see node_dispatch). */
static void start_service(struct sim_server *s, struct sim_node *n,
                          struct sim_conn *c, uint64_t start)
{
    busy_add(n, +1, sim_now_ns());
    c->state = SIM_C_SERVE;
    if (heap_push(s, start + service_ns(n), conn_index(s, c), c->gen) < 0) {
        conn_close(s, c);
        return;
    }
    set_interest(s, c);
}

/* Starts queued requests while slots are free (status ones need none).
 * freed_at is when the slot fell free: the end of the service just over
 * (its timer's due time), else now.  A request that was already queued
 * then starts at that moment, not when this loop got round to it, so
 * the simulator's own scheduling delay never lowers a node's capacity;
 * it only delays the answer. */
static void node_dispatch_at(struct sim_server *s, struct sim_node *n,
                             uint64_t freed_at)
{
    uint64_t now = sim_now_ns();

    while (n->qhead >= 0 && !n->hung && !n->down) {
        struct sim_conn *c = &s->conns[n->qhead];

        if (!c->req.is_status && n->busy >= n->conf.slots)
            return;
        queue_remove(s, n, c);
        if (c->req.is_status)
            respond_status(s, c);
        else
            start_service(s, n, c, freed_at > c->queued_at
                                   ? (freed_at < now ? freed_at : now)
                                   : c->queued_at);
        freed_at = now;             /* one slot freed, one request started */
    }
}

static void node_dispatch(struct sim_server *s, struct sim_node *n)
{
    node_dispatch_at(s, n, sim_now_ns());
}

/* The service time is over (and gzip done if any): answer the page.
 * due: when the service ended (its timer's deadline; now after gzip). */
static void finish_service(struct sim_server *s, struct sim_conn *c,
                           char *gz, size_t gz_len, uint64_t due)
{
    struct sim_node *n = &s->nodes[c->node];

    busy_add(n, -1, sim_now_ns());
    n->served++;
    if (gz)
        respond(s, c, 200, "text/html; charset=utf-8", gz, gz_len, gz, 1);
    else
        respond(s, c, 200, "text/html; charset=utf-8", n->body, n->body_len,
                NULL, 0);
    node_dispatch_at(s, n, due);
}

static void service_done(struct sim_server *s, struct sim_conn *c,
                         uint64_t due)
{
    struct sim_node *n = &s->nodes[c->node];
    struct sim_gzjob *job;

    if (n->conf.gzip_level > 0 && c->req.gzip_ok
        && (job = calloc(1, sizeof(*job)))) {
        job->conn = conn_index(s, c);
        job->gen = c->gen;
        job->src = n->body;
        job->len = n->body_len;
        job->level = n->conf.gzip_level;
        c->state = SIM_C_GZIP;
        sim_gzpool_submit(job);
        return;
    }
    finish_service(s, c, NULL, 0, due);
}

void sim_server_gz_done(struct sim_server *s)
{
    struct sim_gzjob *job = sim_gzpool_take(), *next;

    for (; job; job = next) {
        struct sim_conn *c = conn_at(s, job->conn, job->gen);

        next = job->next;
        if (c && c->state == SIM_C_GZIP)
            finish_service(s, c, job->out, job->out_len, sim_now_ns());
        else
            free(job->out);
        free(job);
    }
}

int64_t sim_server_timers(struct sim_server *s, uint64_t now)
{
    while (s->nheap > 0 && s->heap[0].at <= now) {
        struct sim_timer t = heap_pop(s);
        struct sim_conn *c = conn_at(s, t.conn, t.gen);

        if (c && c->state == SIM_C_SERVE)
            service_done(s, c, t.at);
    }
    if (s->nheap == 0)
        return -1;
    return (int64_t)(s->heap[0].at - now);
}

/* ---- request intake ---- */

static void consume(struct sim_conn *c, size_t n)
{
    memmove(c->in, c->in + n, c->in_len - n);
    c->in_len -= n;
}

/* Parses and starts at most one buffered request. */
static void conn_process(struct sim_server *s, struct sim_conn *c)
{
    struct sim_node *n = &s->nodes[c->node];
    enum sim_http_rc rc;

    if (c->discard > 0) {
        size_t d = c->discard < (long long)c->in_len ? (size_t)c->discard
                                                     : c->in_len;
        consume(c, d);
        c->discard -= (long long)d;
    }
    if (c->state != SIM_C_READ || c->in_len == 0 || c->discard > 0)
        return;
    rc = sim_http_parse(c->in, c->in_len, &c->req);
    if (rc == SIM_HTTP_MORE)
        return;
    if (rc != SIM_HTTP_OK) {
        respond_error(s, c, (int)rc);
        return;
    }
    consume(c, c->req.head_len);
    c->discard = c->req.content_length;
    if (c->req.is_status && !n->hung) {
        respond_status(s, c);
        return;
    }
    queue_append(s, n, c);
    node_dispatch(s, n);
}

void sim_server_drain_ready(struct sim_server *s)
{
    int i;

    for (i = 0; i < s->nready; i++) {
        struct sim_conn *c = &s->conns[s->ready[i]];

        if (c->ready) {
            c->ready = 0;
            conn_process(s, c);
        }
    }
    s->nready = 0;
}

/*
 * The client closed its sending side.  A complete buffered request is
 * still answered (then the connection closes); anything else is dropped.
 */
static void peer_done(struct sim_server *s, struct sim_conn *c)
{
    if (c->in_len == 0 || c->discard > 0) {
        conn_close(s, c);
        return;
    }
    c->close_after = 1;
    conn_process(s, c);
    if (c->state == SIM_C_READ)
        conn_close(s, c);
}

static void conn_readable(struct sim_server *s, struct sim_conn *c)
{
    for (;;) {
        ssize_t r;

        if (c->in_len == SIM_HTTP_HEAD_MAX) {
            if (c->discard <= 0)
                break;
            conn_process(s, c);
            if (c->state == SIM_C_FREE)
                return;
            continue;
        }
        r = recv(c->fd, c->in + c->in_len, SIM_HTTP_HEAD_MAX - c->in_len, 0);
        if (r < 0 && (errno == EAGAIN || errno == EINTR))
            break;
        if (r == 0) {
            peer_done(s, c);
            return;
        }
        if (r < 0) {
            conn_close(s, c);
            return;
        }
        c->in_len += (size_t)r;
        c->last_active = sim_now_ns();
        if (c->discard > 0)
            conn_process(s, c);
        if (c->state == SIM_C_FREE)
            return;
    }
    conn_process(s, c);
}

static void accept_all(struct sim_server *s, int ni)
{
    struct sim_node *n = &s->nodes[ni];

    for (;;) {
        struct epoll_event ev = { 0 };
        struct sim_conn *c;
        int fd = accept4(n->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (fd < 0)
            return;
        if (s->free_head < 0 || !(s->conns[s->free_head].in
                                  = malloc(SIM_HTTP_HEAD_MAX))) {
            if (!s->full_logged++)
                slog(s, "connection table full (%d): refusing",
                     SIM_MAX_CONNS);
            close(fd);
            continue;
        }
        c = &s->conns[s->free_head];
        s->free_head = c->next_free;
        s->nopen++;
        c->fd = fd;
        c->node = ni;
        c->state = SIM_C_READ;
        c->in_len = 0;
        c->discard = 0;
        c->close_after = 0;
        c->qprev = c->qnext = -1;
        c->last_active = sim_now_ns();
        ev.events = EPOLLIN | EPOLLRDHUP;
        ev.data.u64 = ((uint64_t)SIM_TAG_CONN << 32)
                      | (uint32_t)conn_index(s, c);
        if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
            conn_close(s, c);
    }
}

void sim_server_event(struct sim_server *s, uint64_t data, uint32_t events)
{
    int tag = (int)(data >> 32), i = (int)(uint32_t)data;
    struct sim_conn *c;

    if (tag == SIM_TAG_LISTEN) {
        if (i < s->nnodes && s->nodes[i].lfd >= 0)
            accept_all(s, i);
        return;
    }
    if (tag != SIM_TAG_CONN || i >= SIM_MAX_CONNS)
        return;
    c = &s->conns[i];
    if (c->state == SIM_C_FREE)
        return;
    if (events & (EPOLLERR | EPOLLHUP))
        conn_close(s, c);
    else if (c->state == SIM_C_WRITE && (events & EPOLLOUT))
        conn_flush(s, c);
    else if (c->state == SIM_C_READ && (events & (EPOLLIN | EPOLLRDHUP)))
        conn_readable(s, c);
}

/* ---- listeners, failures, tick ---- */

static int node_listen(struct sim_server *s, int ni, char *err, size_t el)
{
    struct sim_node *n = &s->nodes[ni];
    struct sockaddr_in sa = { 0 };
    struct epoll_event ev = { 0 };
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;

    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)n->port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ev.events = EPOLLIN;
    ev.data.u64 = ((uint64_t)SIM_TAG_LISTEN << 32) | (uint32_t)ni;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
                             sizeof(one)) < 0
        || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0
        || listen(fd, 511) < 0
        || epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        snprintf(err, el, "node %s: 127.0.0.1:%d: %s", n->conf.name,
                 n->port, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    n->lfd = fd;
    return 0;
}

/* The four state changes, each logged ("node NAME down" + why: "" for
 * the scenario's schedule, " (control)"); each a no-op when the node is
 * in that state already, so schedule and control never fight (a second
 * listen on the port would fail at every tick). */
static void node_down(struct sim_server *s, int ni, const char *why)
{
    struct sim_node *n = &s->nodes[ni];
    int i;

    if (n->down)
        return;
    if (n->lfd >= 0)
        close(n->lfd);
    n->lfd = -1;
    n->down = 1;
    for (i = 0; i < SIM_MAX_CONNS; i++)
        if (s->conns[i].state != SIM_C_FREE && s->conns[i].node == ni)
            conn_close(s, &s->conns[i]);
    slog(s, "node %s down%s", n->conf.name, why);
}

/* Returns -1 when the port cannot be bound again (err says why). */
static int node_up(struct sim_server *s, int ni, const char *why,
                   char *err, size_t el)
{
    struct sim_node *n = &s->nodes[ni];

    if (!n->down)
        return 0;
    if (node_listen(s, ni, err, el) < 0)
        return -1;
    n->down = 0;
    slog(s, "node %s up%s", n->conf.name, why);
    return 0;
}

static void node_hang(struct sim_server *s, struct sim_node *n, int hung,
                      const char *why)
{
    if (n->hung == hung)
        return;
    n->hung = hung;
    slog(s, hung ? "node %s hung%s" : "node %s answers again%s",
         n->conf.name, why);
    if (!hung)
        node_dispatch(s, n);
}

static void node_events(struct sim_server *s, int ni, double t)
{
    struct sim_node *n = &s->nodes[ni];
    const struct sim_node_conf *c = &n->conf;
    char err[256];

    if (c->down_at >= 0 && t >= c->down_at && !(n->events_done & EV_DOWN)) {
        n->events_done |= EV_DOWN;
        node_down(s, ni, "");
    }
    if (c->up_at >= 0 && t >= c->up_at && !(n->events_done & EV_UP)
        && node_up(s, ni, "", err, sizeof(err)) == 0)
        n->events_done |= EV_UP;
    if (c->hang_at >= 0 && t >= c->hang_at && !(n->events_done & EV_HANG)) {
        n->events_done |= EV_HANG;
        node_hang(s, n, 1, "");
    }
    if (c->unhang_at >= 0 && t >= c->unhang_at
        && !(n->events_done & EV_UNHANG)) {
        n->events_done |= EV_UNHANG;
        node_hang(s, n, 0, "");
    }
}

int sim_server_control(struct sim_server *s, const struct sim_ctl *c,
                       char *err, size_t el)
{
    int i, matched = 0;

    for (i = 0; i < s->nnodes; i++) {
        struct sim_node *n = &s->nodes[i];

        if (strcmp(c->node, "*") != 0 && strcmp(c->node, n->conf.name) != 0)
            continue;
        matched++;
        switch (c->verb) {
        case SIM_CTL_HANG: node_hang(s, n, 1, " (control)"); break;
        case SIM_CTL_ANSWER: node_hang(s, n, 0, " (control)"); break;
        case SIM_CTL_DOWN: node_down(s, i, " (control)"); break;
        case SIM_CTL_UP:
            if (node_up(s, i, " (control)", err, el) < 0)
                return -1;
            break;
        }
    }
    if (!matched) {
        snprintf(err, el, "%s: no node '%s'", sim_ctl_word(c->verb),
                 c->node);
        return -1;
    }
    return 0;
}

void sim_server_logf(struct sim_server *s, const char *fmt, ...)
{
    va_list ap;
    char line[512];

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    slog(s, "%s", line);
}

static void node_thermal(struct sim_server *s, struct sim_node *n,
                         uint64_t now)
{
    const struct sim_thermal_params *p = &n->conf.th;
    double dt = (double)(now - n->last_tick) / 1e9, u;
    double from = elapsed_s(s, n->last_tick);
    unsigned before = n->th.bits;
    int heat_before = n->th.heat;

    if (dt <= 0.0)
        return;
    busy_add(n, 0, now);
    u = n->busy_ns / 1e9 / dt / n->conf.slots;
    n->busy_ns = 0.0;
    n->last_tick = now;
    sim_thermal_advance(&n->th, p, from, u, dt);
    sim_power_step(&n->pw, &n->conf.pw, u, dt);
    if (n->th.heat && !heat_before)
        slog(s, "node %s heat event: ambient +%g C, k +%g C at %.1f C",
             n->conf.name, p->heat_ambient, p->heat_k, n->th.temp);
    else if (!n->th.heat && heat_before)
        slog(s, "node %s heat event over at %.1f C", n->conf.name,
             n->th.temp);
    if ((before ^ n->th.bits) & 0xffff)
        slog(s, "node %s %.1f C throttled 0x%x", n->conf.name, n->th.temp,
             n->th.bits);
}

void sim_server_tick(struct sim_server *s, uint64_t now)
{
    double t = elapsed_s(s, now);
    int i;

    for (i = 0; i < s->nnodes; i++) {
        node_thermal(s, &s->nodes[i], now);
        node_events(s, i, t);
    }
    for (i = 0; i < SIM_MAX_CONNS; i++) {
        struct sim_conn *c = &s->conns[i];

        /* last_active may be later than now (set while this loop turn
         * answered): unsigned now - last_active would wrap and close a
         * connection that just served, and the client's next request
         * on it would meet a reset. */
        if (c->state == SIM_C_READ && c->in_len == 0
            && now > c->last_active
            && now - c->last_active > (uint64_t)SIM_IDLE_S * 1000000000u)
            conn_close(s, c);
    }
}

/* ---- set-up ---- */

static int node_body(struct sim_server *s, int ni, const char *base_dir,
                     char *err, size_t el)
{
    struct sim_node *n = &s->nodes[ni];
    const struct sim_node_conf *c = &n->conf;
    char path[SIM_PATH_MAX * 2];
    char *b;
    int i;

    for (i = 0; i < ni; i++)
        if (s->nodes[i].conf.body == c->body
            && s->nodes[i].conf.body_size == c->body_size
            && strcmp(s->nodes[i].conf.body_file, c->body_file) == 0) {
            n->body = s->nodes[i].body;
            n->body_len = s->nodes[i].body_len;
            return 0;
        }
    if (c->body == SIM_BODY_SIZE) {
        b = sim_body_generate((size_t)c->body_size);
        n->body_len = (size_t)c->body_size;
    } else {
        snprintf(path, sizeof(path), "%s%s%s",
                 c->body_file[0] == '/' ? "" : base_dir,
                 c->body_file[0] == '/' ? "" : "/", c->body_file);
        b = sim_body_load(path, &n->body_len, err, el);
    }
    if (!b)
        return -1;
    n->body = b;
    n->body_owner = 1;
    return 0;
}

static int alloc_tables(struct sim_server *s, int nnodes)
{
    int i;

    s->nodes = calloc((size_t)nnodes, sizeof(*s->nodes));
    s->conns = calloc(SIM_MAX_CONNS, sizeof(*s->conns));
    s->ready = calloc(SIM_MAX_CONNS, sizeof(*s->ready));
    if (!s->nodes || !s->conns || !s->ready)
        return -1;
    for (i = 0; i < SIM_MAX_CONNS; i++) {
        s->conns[i].fd = -1;
        s->conns[i].next_free = i + 1 < SIM_MAX_CONNS ? i + 1 : -1;
    }
    s->free_head = 0;
    return 0;
}

int sim_server_init(struct sim_server *s, const struct sim_scenario *sc,
                    int port_base, const char *base_dir, FILE *log,
                    char *err, size_t errlen)
{
    int i;

    memset(s, 0, sizeof(*s));
    s->log = log;
    s->start_ns = sim_now_ns();
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (s->epfd < 0 || alloc_tables(s, sc->n) < 0) {
        snprintf(err, errlen, "out of memory or epoll: %s", strerror(errno));
        return -1;
    }
    for (i = 0; i < sc->n; i++) {
        struct sim_node *n = &s->nodes[i];

        s->nnodes = i + 1;
        n->conf = sc->nodes[i];
        n->port = n->conf.port ? n->conf.port : port_base + i;
        n->lfd = -1;
        n->qhead = n->qtail = -1;
        n->rng = n->conf.seed ? n->conf.seed : 2654435761u * (unsigned)(i + 1);
        n->busy_since = n->last_tick = s->start_ns;
        sim_thermal_init(&n->th, &n->conf.th);
        if (n->port > 65535 || node_body(s, i, base_dir, err, errlen) < 0
            || node_listen(s, i, err, errlen) < 0) {
            if (n->port > 65535)
                snprintf(err, errlen, "node %s: port %d out of range",
                         n->conf.name, n->port);
            return -1;
        }
    }
    return 0;
}

void sim_server_free(struct sim_server *s)
{
    int i;

    for (i = 0; s->conns && i < SIM_MAX_CONNS; i++)
        if (s->conns[i].state != SIM_C_FREE)
            conn_close(s, &s->conns[i]);
    for (i = 0; s->nodes && i < s->nnodes; i++) {
        if (s->nodes[i].lfd >= 0)
            close(s->nodes[i].lfd);
        if (s->nodes[i].body_owner)
            free((char *)s->nodes[i].body);
    }
    if (s->epfd >= 0)
        close(s->epfd);
    free(s->nodes);
    free(s->conns);
    free(s->ready);
    free(s->heap);
    memset(s, 0, sizeof(*s));
    s->epfd = -1;
}
