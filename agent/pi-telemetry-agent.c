/* pi-telemetry-agent -- a node's telemetry for a node without Apache
 * (nginx, lighttpd, a PHP-FPM box): the text of docs/telemetry.md, from
 * the same sensors and the same code as mod_pistats, served over HTTP
 * (pia_serve.c) or written to a file a web server serves (pia_write.c).
 *
 * This file: options and the telemetry text.  Plain POSIX + libc; no
 * httpd, no APR.  Logs go to stderr (the journal under systemd).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pia_agent.h"
#include "pia_request.h"
#include "pis_render.h"

#define PIA_VERSION "0.1.0"          /* configure.ac's AC_INIT */

volatile sig_atomic_t pia_stop;

typedef struct {
    char *buf;
    size_t size, len;
} membuf;

static void emit_mem(void *ctx, const char *s, size_t n)
{
    membuf *m = ctx;
    size_t room = m->size - 1 - m->len;

    if (n > room) {
        n = room;
    }
    memcpy(m->buf + m->len, s, n);
    m->len += n;
    m->buf[m->len] = '\0';
}

size_t pia_render(const pia_settings *s, int html, int refresh,
                  char *buf, size_t size)
{
    char host[PIS_NODE_MAX + 1] = "";
    const char *node = s->node;
    pis_telemetry t;
    membuf m = { buf, size, 0 };
    pis_out out = { emit_mem, &m };

    buf[0] = '\0';
    if (node == NULL) {
        if (gethostname(host, sizeof(host) - 1) != 0) {
            host[0] = '\0';
        }
        node = host;
    }
    pis_read_local(&s->sensors, node, &t);
    if (html) {
        pis_render_html(&out, &t, refresh);
    } else {
        pis_render_auto(&out, &t);
    }
    return m.len;
}

static void usage(FILE *f)
{
    fprintf(f,
"Usage: pi-telemetry-agent [OPTION]...\n"
"Serves this node's telemetry (docs/telemetry.md) at PATH?auto over HTTP,\n"
"or with --write writes it to a file that a web server serves.\n\n"
"  -l, --listen ADDR:PORT     address to serve on (default %s;\n"
"                             [::1]:PORT for IPv6, *:PORT for any)\n"
"  -p, --path PATH            status page path (default %s)\n"
"  -t, --timeout SECONDS      time a client has for its request (default %d)\n"
"  -w, --write FILE           write the ?auto text to FILE (atomically:\n"
"                             FILE.tmp, then rename) instead of serving\n"
"  -i, --interval SECONDS     --write: seconds between writes (default %d)\n"
"  -1, --once                 --write: write once and exit\n"
"  -n, --node NAME            node name (default: the host name)\n"
"  -z, --thermal-zone GLOB    thermal zone files, glob(7) (default\n"
"                             %s)\n"
"  -T, --throttled-file FILE  firmware get_throttled file (default\n"
"                             %s)\n"
"      --proc-dir DIR         where loadavg, uptime, meminfo are (/proc)\n"
"  -h, --help, -V, --version\n",
            PIA_DEFAULT_LISTEN, PIA_DEFAULT_PATH, PIA_DEFAULT_TIMEOUT,
            PIA_DEFAULT_INTERVAL, PI_THERMAL_GLOB, PIS_THROTTLED_PATH);
}

static int bad_value(const char *opt, const char *v, const char *want)
{
    fprintf(stderr, "pi-telemetry-agent: %s '%s': %s\n", opt, v, want);
    return 2;
}

/* One option into s; returns 0, or the exit status to stop with. */
static int set_option(pia_settings *s, int c, const char *v)
{
    char host[256];
    unsigned port;

    switch (c) {
    case 'l':
        s->listen = v;
        return pia_parse_listen(v, host, sizeof(host), &port) == 0 ? 0
               : bad_value("--listen", v, "want ADDR:PORT, [V6]:PORT or *:PORT");
    case 'p':
        s->path = v;
        return v[0] == '/' && strchr(v, '?') == NULL ? 0
               : bad_value("--path", v, "want a path starting with /, no query");
    case 't':
        return pia_parse_seconds(v, 1, 300, &s->timeout) == 0 ? 0
               : bad_value("--timeout", v, "want seconds, 1 to 300");
    case 'i':
        return pia_parse_seconds(v, 1, 3600, &s->interval) == 0 ? 0
               : bad_value("--interval", v, "want seconds, 1 to 3600");
    case 'w': s->write_file = v; return 0;
    case '1': s->once = 1; return 0;
    case 'n': s->node = v; return 0;
    case 'z': s->sensors.thermal_glob = v; return 0;
    case 'T': s->sensors.throttled_path = v; return 0;
    case 'P': s->sensors.proc_dir = v; return 0;
    case 'h': usage(stdout); return -1;
    case 'V': printf("pi-telemetry-agent %s\n", PIA_VERSION); return -1;
    default: usage(stderr); return 2;
    }
}

static int parse_args(int argc, char **argv, pia_settings *s)
{
    static const struct option opts[] = {
        { "listen", required_argument, NULL, 'l' },
        { "path", required_argument, NULL, 'p' },
        { "timeout", required_argument, NULL, 't' },
        { "write", required_argument, NULL, 'w' },
        { "interval", required_argument, NULL, 'i' },
        { "once", no_argument, NULL, '1' },
        { "node", required_argument, NULL, 'n' },
        { "thermal-zone", required_argument, NULL, 'z' },
        { "throttled-file", required_argument, NULL, 'T' },
        { "proc-dir", required_argument, NULL, 'P' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 }
    };
    int c, rc;

    while ((c = getopt_long(argc, argv, "l:p:t:w:i:1n:z:T:hV", opts,
                            NULL)) != -1) {
        if ((rc = set_option(s, c, optarg)) != 0) {
            return rc;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "pi-telemetry-agent: unexpected argument '%s'\n",
                argv[optind]);
        return 2;
    }
    if (s->once && s->write_file == NULL) {
        fprintf(stderr, "pi-telemetry-agent: --once needs --write FILE\n");
        return 2;
    }
    return 0;
}

static void on_stop(int sig)
{
    (void)sig;
    pia_stop = 1;
}

/* SIGTERM and SIGINT stop the loop (no SA_RESTART: a wait returns
 * EINTR); SIGPIPE is ignored (a client that went away is an error of
 * one write). */
static void set_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}

int main(int argc, char **argv)
{
    pia_settings s;
    int rc;

    memset(&s, 0, sizeof(s));
    s.listen = PIA_DEFAULT_LISTEN;
    s.path = PIA_DEFAULT_PATH;
    s.timeout = PIA_DEFAULT_TIMEOUT;
    s.interval = PIA_DEFAULT_INTERVAL;
    s.sensors.thermal_glob = PI_THERMAL_GLOB;
    s.sensors.throttled_path = PIS_THROTTLED_PATH;
    s.sensors.proc_dir = "/proc";
    rc = parse_args(argc, argv, &s);
    if (rc != 0) {
        return rc < 0 ? 0 : rc;
    }
    set_signals();
    return s.write_file ? pia_write_loop(&s) : pia_serve(&s);
}
