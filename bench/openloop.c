/* openloop.c -- fixed-arrival-rate (open-loop) HTTP load generator.
 *
 * Request i is due at start + i / RATE whatever happened to the earlier
 * ones (wrk2 is not in Debian; this is the small part of it we need).  A
 * due request goes out on an idle keep-alive connection; when none is
 * idle a new one is opened, up to -c; beyond that it waits in a FIFO.
 * Latency is measured from the *intended* send time, so a stalled server
 * is charged for the requests it kept waiting (no coordinated omission).
 *
 * One thread, one epoll loop, HTTP/1.1 GET with Content-Length responses
 * only (chunked answers count as errors).  Bounded: stops sending after
 * -d seconds, waits at most -w seconds for the last answers, and each
 * request has a -T timeout.  Prints one line of key=value words:
 *
 *   rate=500 duration_s=10.0 due=5000 sent=5000 ok=4998 errors=2
 *   non2xx=0 unsent=0 achieved_rps=499.8 p50_ms=21.3 p90_ms=... p99_ms=...
 *   max_ms=... lag_p99_ms=0.4 conns=37 cpu_s=0.21
 *
 * A request whose keep-alive connection is closed by the server before
 * any byte of the answer is sent again on another connection (retried=),
 * as HTTP clients do for an idempotent GET; its latency still runs from
 * the first intended time.
 *
 * lag = actual send time - intended time (the generator's own lateness,
 * queueing for a connection included).  cpu_s = user + system CPU of this
 * process, its own overhead.
 *
 * With -o FILE, every request also gets a header "X-Request-Id: N" (N
 * its number, 0 first, in intended order: a server's access log can name
 * it) and one line in FILE when it ends, times in seconds since the epoch
 * (this clock's monotonic times, shifted by the offset taken at start):
 *
 *   # id intended sent end result retried
 *   1234 1764878400.123000 1764878400.123100 1764878400.145200 200 0
 *
 * result: the HTTP status; "connect" (no connection: the request was
 * never sent, sent = 0), "read" (the connection failed or closed before
 * the whole answer), "send", "timeout" (-T), "inflight" (still waiting
 * when the run ended) or "unsent" (never sent in the run, sent = end =
 * 0).  retried: times it was sent again after a keep-alive close (see
 * above).  What bench/soak.sh matches against the nodes' and the
 * front's logs.
 *
 *   openloop -r RATE -d SECONDS [-c MAXCONN] [-T TIMEOUT_S] [-w WAIT_S]
 *            [-H HEADER] [-o FILE] http://127.0.0.1:PORT/PATH
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define OL_MAX_CONNS 4096
#define OL_BUF 65536

enum ol_state { OL_FREE, OL_CONNECTING, OL_IDLE, OL_BUSY };

struct ol_conn {
    int fd;
    enum ol_state state;
    long id;                    /* of the request in progress */
    double intended, sent;
    char head[8192];
    size_t hlen;
    long body_left;             /* -1 while reading the head */
    int status, close_after;
    int reused;                 /* has answered before: keep-alive race */
};

struct ol_opts {
    double rate, dur, timeout, wait;
    int maxconn;
    const char *header, *out;
    struct sockaddr_in addr;
    char req[1024];             /* the head without its last CRLF with -o */
    size_t reqlen;
};

struct ol_stats {
    long due, sent, ok, errors, non2xx;
    long e_connect, e_send, e_read, e_timeout, retried;
    double *lat, *lag;
    long nlat, nlag, cap;
    int conns_peak;
    FILE *out;                  /* -o: one line a request */
    double epoch;               /* realtime - monotonic, at start */
    unsigned char *retries;     /* per request id, with -o */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(void)
{
    fprintf(stderr, "usage: openloop -r RATE -d SECONDS [-c MAXCONN] "
            "[-T TIMEOUT_S] [-w WAIT_S] [-H HEADER] [-o FILE] "
            "http://127.0.0.1:PORT/PATH\n");
    exit(2);
}

static int parse_url(struct ol_opts *o, const char *url)
{
    char host[64];
    int port = 0, n = 0;
    const char *path;

    if (sscanf(url, "http://%63[0-9.]:%d%n", host, &port, &n) != 2
        || port <= 0 || port > 65535)
        return -1;
    path = url + n;
    if (*path == '\0')
        path = "/";
    memset(&o->addr, 0, sizeof(o->addr));
    o->addr.sin_family = AF_INET;
    o->addr.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &o->addr.sin_addr) != 1)
        return -1;
    n = snprintf(o->req, sizeof(o->req),
                 "GET %s HTTP/1.1\r\nHost: %s:%d\r\n%s%s"
                 "User-Agent: openloop\r\n%s",
                 path, host, port, o->header ? o->header : "",
                 o->header ? "\r\n" : "", o->out ? "" : "\r\n");
    if (n <= 0 || (size_t)n >= sizeof(o->req))
        return -1;
    o->reqlen = (size_t)n;
    return 0;
}

static void parse_args(struct ol_opts *o, int argc, char **argv)
{
    int c;

    o->rate = 0;
    o->dur = 0;
    o->timeout = 10;
    o->wait = 5;
    o->maxconn = 256;
    o->header = NULL;
    o->out = NULL;
    while ((c = getopt(argc, argv, "r:d:c:T:w:H:o:")) != -1) {
        switch (c) {
        case 'r': o->rate = atof(optarg); break;
        case 'd': o->dur = atof(optarg); break;
        case 'c': o->maxconn = atoi(optarg); break;
        case 'T': o->timeout = atof(optarg); break;
        case 'w': o->wait = atof(optarg); break;
        case 'H': o->header = optarg; break;
        case 'o': o->out = optarg; break;
        default: usage();
        }
    }
    if (optind != argc - 1 || o->rate <= 0 || o->rate > 1e6
        || o->dur <= 0 || o->dur > 3600 || o->maxconn < 1
        || o->maxconn > OL_MAX_CONNS || o->timeout <= 0 || o->wait < 0)
        usage();
    if (parse_url(o, argv[optind]) != 0) {
        fprintf(stderr, "openloop: URL must be http://IPV4:PORT/PATH\n");
        exit(2);
    }
}

static void record(double *arr, long *n, long cap, double v)
{
    if (*n < cap)
        arr[(*n)++] = v;
}

static void conn_close(int ep, struct ol_conn *c)
{
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    c->state = OL_FREE;
}

static int conn_open(int ep, const struct ol_opts *o, struct ol_conn *c)
{
    struct epoll_event ev;
    int one = 1;

    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0)
        return -1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connect(c->fd, (const struct sockaddr *)&o->addr, sizeof(o->addr))
        != 0 && errno != EINPROGRESS) {
        close(c->fd);
        c->fd = -1;
        return -1;
    }
    ev.events = EPOLLIN | EPOLLOUT;
    ev.data.ptr = c;
    epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
    c->state = OL_CONNECTING;
    c->reused = 0;
    return 0;
}

/* Sends the request on an established connection; a short write on a
 * fresh loopback socket does not happen for a request this small, and is
 * treated as an error. */
static int conn_send(int ep, const struct ol_opts *o, struct ol_conn *c,
                     long id, double intended, struct ol_stats *st)
{
    struct epoll_event ev;
    double t = now_s();
    char req[sizeof(o->req) + 48];
    const char *msg = o->req;
    size_t len = o->reqlen;
    ssize_t n;

    if (o->out) {               /* the head ends with the request's id */
        memcpy(req, o->req, o->reqlen);
        len += (size_t)snprintf(req + o->reqlen, sizeof(req) - o->reqlen,
                                "X-Request-Id: %ld\r\n\r\n", id);
        msg = req;
    }
    n = send(c->fd, msg, len, MSG_NOSIGNAL);
    c->id = id;
    c->intended = intended;
    c->sent = t;
    c->hlen = 0;
    c->body_left = -1;
    c->status = 0;
    c->close_after = 0;
    st->sent++;
    record(st->lag, &st->nlag, st->cap, (t - intended) * 1e3);
    ev.events = EPOLLIN;
    ev.data.ptr = c;
    epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
    c->state = OL_BUSY;
    return n == (ssize_t)len ? 0 : -1;
}

/* -o: the line of request id, ended now with result what (a status when
 * what is NULL); sent 0: never sent. */
static void log_request(struct ol_stats *st, long id, double intended,
                        double sent, double end, int status,
                        const char *what)
{
    if (!st->out)
        return;
    fprintf(st->out, "%ld %.6f %.6f %.6f ", id, intended + st->epoch,
            sent > 0 ? sent + st->epoch : 0.0,
            end > 0 ? end + st->epoch : 0.0);
    if (what)
        fputs(what, st->out);
    else
        fprintf(st->out, "%d", status);
    fprintf(st->out, " %u\n", st->retries ? st->retries[id] : 0u);
}

/* The request on c ended: ok (an answer, whatever its status) or not,
 * what saying why for -o ("read", "timeout", "inflight"). */
static void finish(struct ol_conn *c, struct ol_stats *st, int ok,
                   const char *what)
{
    log_request(st, c->id, c->intended, c->sent, now_s(), c->status,
                ok ? NULL : what);
    if (!ok) {
        st->errors++;
        return;
    }
    if (c->status < 200 || c->status > 399)
        st->non2xx++;
    else
        st->ok++;
    record(st->lat, &st->nlat, st->cap, (now_s() - c->intended) * 1e3);
}

/* Parses the response head in c->head; returns 0 when complete and
 * sets body_left, 1 when more is needed, -1 on what we do not handle. */
static int parse_head(struct ol_conn *c)
{
    char *end, *p;

    c->head[c->hlen] = '\0';
    end = strstr(c->head, "\r\n\r\n");
    if (!end)
        return c->hlen >= sizeof(c->head) - 1 ? -1 : 1;
    if (sscanf(c->head, "HTTP/1.%*d %d", &c->status) != 1)
        return -1;
    c->body_left = -2;
    for (p = strstr(c->head, "\r\n"); p && p < end;
         p = strstr(p + 2, "\r\n")) {
        if (strncasecmp(p + 2, "Content-Length:", 15) == 0)
            c->body_left = atol(p + 17);
        else if (strncasecmp(p + 2, "Connection: close", 17) == 0)
            c->close_after = 1;
    }
    if (c->body_left < 0)
        return -1;                      /* chunked or no length */
    return (int)(end + 4 - c->head);    /* > 0: offset of the body */
}

/* Reads what is there; returns 1 when the response is complete, 0 when
 * more is needed, -1 on error or close. */
static int conn_read(struct ol_conn *c, char *buf)
{
    for (;;) {
        ssize_t n;

        if (c->body_left < 0) {
            int off;

            n = recv(c->fd, c->head + c->hlen, sizeof(c->head) - 1 - c->hlen,
                     0);
            if (n == 0)
                return -1;
            if (n < 0)
                return errno == EAGAIN ? 0 : -1;
            c->hlen += (size_t)n;
            off = parse_head(c);
            if (off < 0)
                return -1;
            if (off == 1 && c->body_left == -1)
                continue;
            c->body_left -= (long)(c->hlen - (size_t)off);
            if (c->body_left < 0)
                return -1;              /* pipelined junk: not expected */
            if (c->body_left == 0)
                return 1;
            continue;
        }
        n = recv(c->fd, buf, c->body_left < OL_BUF ? (size_t)c->body_left
                 : OL_BUF, 0);
        if (n == 0)
            return -1;
        if (n < 0)
            return errno == EAGAIN ? 0 : -1;
        c->body_left -= n;
        if (c->body_left == 0)
            return 1;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(const double *v, long n, double q)
{
    long i;

    if (n == 0)
        return 0;
    i = (long)(q * (double)(n - 1) + 0.5);
    return v[i];
}

struct ol_run {
    struct ol_opts *o;
    struct ol_stats *st;
    struct ol_conn *conns;
    int ep;
    long *queue;                /* ids of requests waiting for a conn */
    long qhead, qtail;
    double start, interval;     /* request id is due at start + id * interval */
};

static double intended_of(const struct ol_run *r, long id)
{
    return r->start + (double)id * r->interval;
}

static struct ol_conn *find_conn(struct ol_run *r, enum ol_state s)
{
    int i;

    for (i = 0; i < r->o->maxconn; i++)
        if (r->conns[i].state == s)
            return &r->conns[i];
    return NULL;
}

static void dispatch(struct ol_run *r)
{
    struct ol_conn *c;

    while (r->qhead < r->qtail) {
        c = find_conn(r, OL_IDLE);
        if (!c)
            break;
        long id = r->queue[r->qhead++];

        if (conn_send(r->ep, r->o, c, id, intended_of(r, id), r->st) != 0) {
            /* a keep-alive connection the server had closed: once again
             * on another connection, the time already lost still counts */
            r->st->sent--;
            r->st->e_send++;
            r->qhead--;
            if (r->st->retries && r->st->retries[id] < 255)
                r->st->retries[id]++;
            conn_close(r->ep, c);
        }
    }
    /* still waiting: open more connections, one per waiting request */
    while (r->qhead < r->qtail) {
        int connecting = 0, i;

        for (i = 0; i < r->o->maxconn; i++)
            connecting += r->conns[i].state == OL_CONNECTING;
        if (connecting >= r->qtail - r->qhead)
            break;
        c = find_conn(r, OL_FREE);
        if (!c || conn_open(r->ep, r->o, c) != 0)
            break;
    }
}

static void on_event(struct ol_run *r, struct ol_conn *c, uint32_t ev,
                     char *buf)
{
    int rc;

    if (c->state == OL_CONNECTING) {
        int err = 0;
        socklen_t len = sizeof(err);
        struct epoll_event e;

        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err || (ev & (EPOLLERR | EPOLLHUP))) {
            r->st->e_connect++;
            if (r->qhead < r->qtail) {       /* charge one waiter */
                long id = r->queue[r->qhead++];

                r->st->errors++;
                log_request(r->st, id, intended_of(r, id), 0, now_s(), 0,
                            "connect");
            }
            conn_close(r->ep, c);
            return;
        }
        e.events = EPOLLIN;
        e.data.ptr = c;
        epoll_ctl(r->ep, EPOLL_CTL_MOD, c->fd, &e);
        c->state = OL_IDLE;
        return;
    }
    if (c->state != OL_BUSY) {          /* idle conn closed by server */
        conn_close(r->ep, c);
        return;
    }
    rc = conn_read(c, buf);
    if (rc == 0)
        return;
    if (rc < 0 && c->hlen == 0 && c->reused && r->qhead > 0) {
        /* closed by the server before any byte of the answer on a
         * connection it had kept alive: retried at once on another
         * connection, as HTTP clients do for an idempotent GET; the
         * time lost still counts (intended time unchanged) */
        r->queue[--r->qhead] = c->id;
        r->st->sent--;
        r->st->retried++;
        if (r->st->retries && r->st->retries[c->id] < 255)
            r->st->retries[c->id]++;
        conn_close(r->ep, c);
        return;
    }
    if (rc < 0)
        r->st->e_read++;
    finish(c, r->st, rc == 1, "read");
    if (rc < 0 || c->close_after) {
        conn_close(r->ep, c);
    } else {
        c->state = OL_IDLE;
        c->reused = 1;
    }
}

static void expire(struct ol_run *r, double t)
{
    int i;

    for (i = 0; i < r->o->maxconn; i++) {
        struct ol_conn *c = &r->conns[i];
        if (c->state == OL_BUSY && t - c->sent > r->o->timeout) {
            r->st->e_timeout++;
            finish(c, r->st, 0, "timeout");
            conn_close(r->ep, c);
        }
    }
}

static int busy_count(const struct ol_run *r)
{
    int i, n = 0;

    for (i = 0; i < r->o->maxconn; i++)
        n += r->conns[i].state == OL_BUSY
             || r->conns[i].state == OL_CONNECTING;
    return n;
}

static void run(struct ol_run *r)
{
    struct epoll_event evs[256];
    char *buf = malloc(OL_BUF);
    double start = now_s(), stop = start + r->o->dur, last_expire = start;
    double hard_stop = stop + r->o->wait, interval = 1.0 / r->o->rate;
    long total = (long)(r->o->rate * r->o->dur);

    r->start = start;
    r->interval = interval;
    if (!buf)
        exit(1);
    for (;;) {
        double t = now_s(), next, wait_s;
        struct timespec ts;
        int n, i;

        while (r->st->due < total && start + r->st->due * interval <= t)
            r->queue[r->qtail++] = r->st->due++;
        dispatch(r);
        if (t - last_expire > 0.1) {
            expire(r, t);
            last_expire = t;
        }
        if (t >= hard_stop
            || (r->st->due >= total && r->qhead >= r->qtail
                && busy_count(r) == 0))
            break;
        next = r->st->due < total ? start + r->st->due * interval : t + 0.01;
        wait_s = next > t ? next - t : 0;
        if (wait_s > 0.01)
            wait_s = 0.01;
        ts.tv_sec = 0;
        ts.tv_nsec = (long)(wait_s * 1e9);
        n = epoll_pwait2(r->ep, evs, 256, &ts, NULL);
        for (i = 0; i < n; i++)
            on_event(r, evs[i].data.ptr, evs[i].events, buf);
        for (i = 0, n = 0; i < r->o->maxconn; i++)
            n += r->conns[i].state != OL_FREE;
        if (n > r->st->conns_peak)
            r->st->conns_peak = n;
    }
    free(buf);
}

int main(int argc, char **argv)
{
    static struct ol_conn conns[OL_MAX_CONNS];
    struct ol_opts o;
    struct ol_stats st;
    struct ol_run r;
    struct rusage ru;
    double t0, el;
    long unsent, inflight;
    int i;

    parse_args(&o, argc, argv);
    memset(&st, 0, sizeof(st));
    st.cap = (long)(o.rate * o.dur) + 16;
    st.lat = calloc((size_t)st.cap, sizeof(double));
    st.lag = calloc((size_t)st.cap, sizeof(double));
    memset(&r, 0, sizeof(r));
    r.queue = calloc((size_t)st.cap, sizeof(long));
    if (!st.lat || !st.lag || !r.queue)
        return 1;
    if (o.out) {
        struct timespec rt;

        st.out = fopen(o.out, "w");
        st.retries = calloc((size_t)st.cap, 1);
        if (!st.out || !st.retries) {
            fprintf(stderr, "openloop: %s: %s\n", o.out, strerror(errno));
            return 1;
        }
        clock_gettime(CLOCK_REALTIME, &rt);
        st.epoch = (double)rt.tv_sec + rt.tv_nsec / 1e9 - now_s();
        fprintf(st.out, "# id intended sent end result retried\n");
    }
    for (i = 0; i < OL_MAX_CONNS; i++) {
        conns[i].fd = -1;
        conns[i].state = OL_FREE;
    }
    r.o = &o;
    r.st = &st;
    r.conns = conns;
    r.ep = epoll_create1(EPOLL_CLOEXEC);
    if (r.ep < 0)
        return 1;
    t0 = now_s();
    run(&r);
    el = now_s() - t0;
    unsent = r.qtail - r.qhead + (long)(o.rate * o.dur) - st.due;
    inflight = busy_count(&r);
    for (i = 0; i < o.maxconn; i++)
        if (conns[i].state == OL_BUSY)
            finish(&conns[i], &st, 0, "inflight");
    if (st.out) {
        long id;

        for (; r.qhead < r.qtail; r.qhead++)        /* due, never sent */
            log_request(&st, r.queue[r.qhead], intended_of(&r,
                        r.queue[r.qhead]), 0, 0, 0, "unsent");
        for (id = st.due; id < (long)(o.rate * o.dur); id++)
            log_request(&st, id, intended_of(&r, id), 0, 0, 0, "unsent");
        if (fclose(st.out) != 0) {
            fprintf(stderr, "openloop: %s: %s\n", o.out, strerror(errno));
            return 1;
        }
    }
    getrusage(RUSAGE_SELF, &ru);
    qsort(st.lat, (size_t)st.nlat, sizeof(double), cmp_double);
    qsort(st.lag, (size_t)st.nlag, sizeof(double), cmp_double);
    printf("rate=%.0f duration_s=%.1f due=%ld sent=%ld ok=%ld errors=%ld "
           "non2xx=%ld unsent=%ld inflight_at_end=%ld achieved_rps=%.1f "
           "p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f "
           "lag_p50_ms=%.3f lag_p99_ms=%.3f conns=%d cpu_s=%.2f "
           "elapsed_s=%.1f e_connect=%ld e_send=%ld e_read=%ld "
           "e_timeout=%ld retried=%ld\n",
           o.rate, o.dur, st.due, st.sent, st.ok, st.errors, st.non2xx,
           unsent, inflight, (double)st.ok / o.dur,
           pct(st.lat, st.nlat, 0.5), pct(st.lat, st.nlat, 0.9),
           pct(st.lat, st.nlat, 0.99),
           st.nlat ? st.lat[st.nlat - 1] : 0.0,
           pct(st.lag, st.nlag, 0.5), pct(st.lag, st.nlag, 0.99),
           st.conns_peak,
           ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6
           + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, el,
           st.e_connect, st.e_send, st.e_read, st.e_timeout, st.retried);
    return 0;
}
