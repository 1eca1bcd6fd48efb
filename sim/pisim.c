/*
 * pisim.c - simulated Raspberry Pi web nodes: command line, signals,
 * the epoll loop, the trace and the summary.  The nodes themselves live
 * in server.c; see README.md for the scenario format and outputs.
 *
 * Usage: pisim SCENARIO [-d DURATION_S] [-p PORT_BASE] [-l LOGFILE]
 *              [-s SUMMARY_FILE] [-t TRACE_FILE] [-j GZIP_THREADS]
 *              [-c CONTROL_FIFO]
 *        pisim --phpinfo          (writes the benchmark page to stdout)
 *        pisim --phpinfo-dense    (the same with token rows: ~2.4:1 at gzip 1)
 *        pisim --phpinfo-bench    (~67 KB, ~3.3:1: issue 32's benchmark page)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include "body.h"
#include "gzpool.h"
#include "server.h"

#define DEFAULT_PORT_BASE 18081
#define DEFAULT_GZ_THREADS 2

struct options {
    const char *scenario;
    double duration;          /* seconds, 0 = until a signal */
    int port_base;
    const char *log, *summary, *trace, *control;
    int gz_threads;
};

/* The control FIFO's unfinished line (control.h: one command a line). */
struct control {
    int fd;
    char buf[512];
    size_t len;
};

static void usage(void)
{
    fprintf(stderr,
        "usage: pisim SCENARIO [-d DURATION_S] [-p PORT_BASE] [-l LOGFILE]\n"
        "             [-s SUMMARY_FILE] [-t TRACE_FILE] [-j GZIP_THREADS]\n"
        "             [-c CONTROL_FIFO]\n"
        "       pisim --phpinfo > phpinfo.html\n"
        "       pisim --phpinfo-dense > phpinfo-dense.html\n"
        "       pisim --phpinfo-bench > phpinfo-bench.html\n");
    exit(2);
}

static void parse_args(int argc, char **argv, struct options *o)
{
    int opt;

    memset(o, 0, sizeof(*o));
    o->port_base = DEFAULT_PORT_BASE;
    o->gz_threads = DEFAULT_GZ_THREADS;
    while ((opt = getopt(argc, argv, "d:p:l:s:t:j:c:")) != -1) {
        char *end = NULL;

        switch (opt) {
        case 'd': o->duration = strtod(optarg, &end); break;
        case 'p': o->port_base = (int)strtol(optarg, &end, 10); break;
        case 'j': o->gz_threads = (int)strtol(optarg, &end, 10); break;
        case 'l': o->log = optarg; break;
        case 's': o->summary = optarg; break;
        case 't': o->trace = optarg; break;
        case 'c': o->control = optarg; break;
        default: usage();
        }
        if (end && (*end || end == optarg)) {
            fprintf(stderr, "pisim: -%c: '%s' is not a number\n", opt,
                    optarg);
            exit(2);
        }
    }
    if (optind != argc - 1 || o->duration < 0 || o->port_base < 1
        || o->port_base > 65535 || o->gz_threads < 1)
        usage();
    o->scenario = argv[optind];
}

static FILE *open_out(const char *path, const char *mode)
{
    FILE *f = fopen(path, mode);

    if (!f) {
        fprintf(stderr, "pisim: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    return f;
}

/* key=value lines, one per node, then one total line. */
static void write_summary(const struct sim_server *s, const char *path)
{
    FILE *f = path ? open_out(path, "w") : stdout;
    unsigned long total = 0;
    double energy = 0;
    int i, power = 0;

    for (i = 0; i < s->nnodes; i++) {
        const struct sim_node *n = &s->nodes[i];

        fprintf(f, "node=%s port=%d served=%lu throttled_s=%.1f "
                "peak_c=%.1f temp_c=%.1f throttled=0x%x",
                n->conf.name, n->port, n->served, n->th.throttled_s,
                n->th.peak, n->th.temp, n->th.bits);
        if (sim_power_on(&n->conf.pw)) {
            fprintf(f, " energy_j=%.3f", n->pw.energy_j);
            energy += n->pw.energy_j;
            power = 1;
        }
        fputc('\n', f);
        total += n->served;
    }
    fprintf(f, "total=all nodes=%d served=%lu elapsed_s=%.1f", s->nnodes,
            total, (double)(sim_now_ns() - s->start_ns) / 1e9);
    if (power)
        fprintf(f, " energy_j=%.3f", energy);
    fputc('\n', f);
    if (path)
        fclose(f);
    else
        fflush(f);
}

static void write_trace(const struct sim_server *s, FILE *f, uint64_t now)
{
    double t = (double)(now - s->start_ns) / 1e9;
    int i;

    for (i = 0; i < s->nnodes; i++) {
        const struct sim_node *n = &s->nodes[i];

        fprintf(f, "%.1f %s %.1f 0x%x %lu %d %.3f\n", t, n->conf.name,
                n->th.temp, n->th.bits, n->served, n->busy, n->pw.energy_j);
    }
    fflush(f);
}

static int add_fd(int epfd, int fd, enum sim_tag tag)
{
    struct epoll_event ev = { 0 };

    ev.events = EPOLLIN;
    ev.data.u64 = (uint64_t)tag << 32;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* SIGTERM/SIGINT/SIGUSR1 arrive through a signalfd; SIGPIPE ignored. */
static int setup_signals(void)
{
    sigset_t set;

    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGUSR1);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
        return -1;
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

/* Returns 1 when the loop should stop. */
static int on_signal(int sfd, const struct sim_server *s,
                     const struct options *o)
{
    struct signalfd_siginfo si;
    int stop = 0;

    while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (si.ssi_signo == SIGUSR1)
            write_summary(s, o->summary);
        else
            stop = 1;
    }
    return stop;
}

/* Opens the control FIFO, made (mode 600) if missing; read-write, so that
 * the loop never sees an end of file between writers.  -1 on error. */
static int control_open(const char *path)
{
    struct stat st;

    if (stat(path, &st) < 0 && (errno != ENOENT || mkfifo(path, 0600) < 0))
        return -1;
    if (stat(path, &st) < 0 || !S_ISFIFO(st.st_mode)) {
        errno = EINVAL;
        return -1;
    }
    return open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
}

static void control_line(struct sim_server *s, const char *line)
{
    struct sim_ctl c;
    char err[256];
    int rc = sim_ctl_parse(line, &c, err, sizeof(err));

    if (rc == 0)
        rc = sim_server_control(s, &c, err, sizeof(err));
    if (rc < 0) {
        fprintf(stderr, "pisim: control: %s\n", err);
        sim_server_logf(s, "control: %s", err);
    }
}

/* Runs every whole line the FIFO holds; a line longer than the buffer is
 * dropped (with a message). */
static void control_read(struct sim_server *s, struct control *ctl)
{
    ssize_t n;
    char *nl;

    while ((n = read(ctl->fd, ctl->buf + ctl->len,
                     sizeof(ctl->buf) - 1 - ctl->len)) > 0) {
        ctl->len += (size_t)n;
        ctl->buf[ctl->len] = '\0';
        while ((nl = strchr(ctl->buf, '\n')) != NULL) {
            *nl = '\0';
            control_line(s, ctl->buf);
            ctl->len -= (size_t)(nl + 1 - ctl->buf);
            memmove(ctl->buf, nl + 1, ctl->len + 1);
        }
        if (ctl->len == sizeof(ctl->buf) - 1) {
            control_line(s, "(a line too long)");
            ctl->len = 0;
        }
    }
}

static void raise_fd_limit(int nnodes)
{
    struct rlimit rl;
    rlim_t want = (rlim_t)(SIM_MAX_CONNS + nnodes + 64);

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want) {
        rl.rlim_cur = want < rl.rlim_max ? want : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static int64_t ns_until(uint64_t at, uint64_t now)
{
    return at <= now ? 0 : (int64_t)(at - now);
}

static void run(struct sim_server *s, const struct options *o, int sfd,
                struct control *ctl)
{
    const uint64_t tick = (uint64_t)SIM_TICK_MS * 1000000u;
    uint64_t next_tick = s->start_ns + tick, next_trace = s->start_ns
                         + 1000000000u;
    uint64_t end = s->start_ns + (uint64_t)(o->duration * 1e9);
    FILE *trace = o->trace ? open_out(o->trace, "w") : NULL;
    struct epoll_event ev[256];
    int stop = 0;

    if (trace)
        fprintf(trace, "# t name temp_c throttled served busy energy_j\n");
    while (!stop) {
        uint64_t now = sim_now_ns();
        int64_t timeout = sim_server_timers(s, now);
        struct timespec ts;
        int n, i;

        sim_server_drain_ready(s);
        if (now >= next_tick) {
            sim_server_tick(s, now);
            next_tick = now - next_tick > tick ? now + tick
                                               : next_tick + tick;
        }
        if (trace && now >= next_trace) {
            write_trace(s, trace, now);
            next_trace += 1000000000u;
        }
        if (o->duration > 0 && now >= end)
            break;
        if (timeout < 0 || timeout > ns_until(next_tick, now))
            timeout = ns_until(next_tick, now);
        /* ns, not ms: epoll_wait's milliseconds, rounded up, made every
         * service end up to 1 ms late and cost a 5 ms node 10% of its
         * capacity. */
        ts.tv_sec = (time_t)(timeout / 1000000000);
        ts.tv_nsec = (long)(timeout % 1000000000);
        n = epoll_pwait2(s->epfd, ev, 256, &ts, NULL);
        if (n < 0 && errno == ENOSYS)   /* kernel before 5.11 */
            n = epoll_wait(s->epfd, ev, 256,
                           (int)((timeout + 999999) / 1000000));
        for (i = 0; i < n; i++) {
            enum sim_tag tag = (enum sim_tag)(ev[i].data.u64 >> 32);

            if (tag == SIM_TAG_SIGNAL)
                stop |= on_signal(sfd, s, o);
            else if (tag == SIM_TAG_GZ)
                sim_server_gz_done(s);
            else if (tag == SIM_TAG_CONTROL)
                control_read(s, ctl);
            else
                sim_server_event(s, ev[i].data.u64, ev[i].events);
        }
        sim_server_drain_ready(s);
    }
    if (trace)
        fclose(trace);
}

static char *dir_of(const char *path)
{
    char *d = strdup(path), *slash = d ? strrchr(d, '/') : NULL;

    if (!d)
        return NULL;
    if (!slash)
        strcpy(d, ".");
    else if (slash == d)
        d[1] = '\0';
    else
        *slash = '\0';
    return d;
}

static int write_phpinfo(int kind)
{
    size_t len;
    char *page = kind == 2 ? sim_body_phpinfo_bench(&len)
                 : kind ? sim_body_phpinfo_dense(&len) : sim_body_phpinfo(&len);

    if (!page || fwrite(page, 1, len, stdout) != len)
        return 1;
    free(page);
    return 0;
}

int main(int argc, char **argv)
{
    struct options o;
    struct sim_scenario sc;
    struct sim_server s;
    char err[512], *dir;
    FILE *log = NULL;
    struct control ctl = { -1, "", 0 };
    struct timespec wall;
    int sfd, gzfd, i;

    err[0] = '\0';
    if (argc == 2 && strcmp(argv[1], "--phpinfo") == 0)
        return write_phpinfo(0);
    if (argc == 2 && strcmp(argv[1], "--phpinfo-dense") == 0)
        return write_phpinfo(1);
    if (argc == 2 && strcmp(argv[1], "--phpinfo-bench") == 0)
        return write_phpinfo(2);
    parse_args(argc, argv, &o);
    if (sim_scenario_load(o.scenario, &sc, err, sizeof(err)) < 0) {
        fprintf(stderr, "pisim: %s\n", err);
        return 1;
    }
    raise_fd_limit(sc.n);
    if (o.log)
        log = open_out(o.log, "a");
    dir = dir_of(o.scenario);
    sfd = setup_signals();
    if (!dir || sfd < 0
        || sim_server_init(&s, &sc, o.port_base, dir, log, err,
                           sizeof(err)) < 0
        || (gzfd = sim_gzpool_start(o.gz_threads)) < 0
        || add_fd(s.epfd, sfd, SIM_TAG_SIGNAL) < 0
        || add_fd(s.epfd, gzfd, SIM_TAG_GZ) < 0) {
        fprintf(stderr, "pisim: %s\n", err[0] ? err : strerror(errno));
        return 1;
    }
    if (o.control && ((ctl.fd = control_open(o.control)) < 0
                      || add_fd(s.epfd, ctl.fd, SIM_TAG_CONTROL) < 0)) {
        fprintf(stderr, "pisim: %s: %s (a FIFO)\n", o.control,
                strerror(errno));
        return 1;
    }
    /* the log's times are seconds since this start: the epoch lets a
     * reader line them up with other clocks (and a second start in the
     * same log says the process was started again) */
    clock_gettime(CLOCK_REALTIME, &wall);
    sim_server_logf(&s, "pisim start: epoch %.3f, %d node(s)",
                    (double)wall.tv_sec + wall.tv_nsec / 1e9, s.nnodes);
    for (i = 0; i < s.nnodes; i++)
        printf("node %s listening on 127.0.0.1:%d\n", s.nodes[i].conf.name,
               s.nodes[i].port);
    fflush(stdout);
    run(&s, &o, sfd, &ctl);
    sim_server_logf(&s, "pisim stop");
    write_summary(&s, o.summary);
    sim_gzpool_stop();
    sim_server_free(&s);
    sim_scenario_free(&sc);
    free(dir);
    close(sfd);
    if (ctl.fd >= 0)
        close(ctl.fd);
    if (log)
        fclose(log);
    return 0;
}
