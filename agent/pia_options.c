/* pia_options.c -- the agent's command line (see pia_agent.h): the
 * defaults, then each option checked by a pure parser of pia_request.c;
 * a bad value stops the agent with status 2 and a message that names
 * the option and what it takes.  The man page (pi-telemetry-agent.8) and
 * docs/telemetry.md list the same options.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "pia_agent.h"
#include "pia_request.h"
#include "pis_power.h"

#define PIA_VERSION "0.1.0"          /* configure.ac's AC_INIT */

enum {                               /* long options without a letter */
    OPT_PROC_DIR = 256,
    OPT_HEAD_TIMEOUT,
    OPT_MAX_CLIENTS,
    OPT_MAX_PER_PEER
};

static void usage(FILE *f)
{
    fprintf(f,
"Usage: pi-telemetry-agent [OPTION]...\n"
"Serves this node's telemetry (docs/telemetry.md) at PATH?auto over HTTP,\n"
"or with --write writes it to a file that a web server serves.\n\n"
"  -l, --listen ADDR:PORT     address to serve on (default %s;\n"
"                             [::1]:PORT for IPv6, *:PORT for every\n"
"                             IPv4 and IPv6 address)\n"
"  -p, --path PATH            status page path (default %s)\n"
"  -t, --timeout SECONDS      time a client's answer has to be sent, and\n"
"                             the most its request head may take\n"
"                             (default %d)\n"
"      --head-timeout SECONDS time a client has for its request head,\n"
"                             from its connection (default %d)\n"
"      --max-clients N        connections at once (default %d, at most %d)\n"
"      --max-per-peer N       connections at once from one address\n"
"                             (default %d)\n"
"  -u, --user NAME            started as root: run as NAME (default %s;\n"
"                             root keeps root)\n"
"  -w, --write FILE           write the ?auto text to FILE (atomically:\n"
"                             a new file beside it, renamed over FILE)\n"
"                             instead of serving\n"
"  -i, --interval SECONDS     --write: seconds between writes (default %d)\n"
"  -1, --once                 --write: write once and exit\n"
"  -n, --node NAME            node name (default: the host name)\n"
"  -z, --thermal-zone GLOB    thermal zone files, glob(7) (default\n"
"                             %s)\n"
"  -T, --throttled-file FILE  firmware get_throttled file (default\n"
"                             %s)\n"
"  -W, --power-sensor GLOB    hwmon power*_input (uW), or curr*_input /\n"
"                             in*_input pairs (mA, mV): PowerW (default\n"
"                             none: no PowerW line)\n"
"      --proc-dir DIR         where loadavg, uptime, meminfo are (/proc)\n"
"  -h, --help, -V, --version\n",
            PIA_DEFAULT_LISTEN, PIA_DEFAULT_PATH, PIA_DEFAULT_TIMEOUT,
            PIA_DEFAULT_HEAD, PIA_DEFAULT_CLIENTS, PIA_CLIENTS_MAX,
            PIA_DEFAULT_PER_PEER, PIA_DEFAULT_USER, PIA_DEFAULT_INTERVAL,
            PI_THERMAL_GLOB, PIS_THROTTLED_PATH);
}

static int bad_value(const char *opt, const char *v, const char *want)
{
    fprintf(stderr, "pi-telemetry-agent: %s '%s': %s\n", opt, v, want);
    return 2;
}

/* A number option: 0, or the exit status after a message. */
static int set_number(const char *opt, const char *v, unsigned min,
                      unsigned max, unsigned *out)
{
    char want[64];

    if (pia_parse_seconds(v, min, max, out) == 0) {
        return 0;
    }
    snprintf(want, sizeof(want), "want a whole number, %u to %u", min, max);
    return bad_value(opt, v, want);
}

/* The options that serve HTTP; 1: not one of them. */
static int set_serve_option(pia_settings *s, int c, const char *v)
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
        return set_number("--timeout", v, 1, 300, &s->timeout);
    case OPT_HEAD_TIMEOUT:
        return set_number("--head-timeout", v, 1, 300, &s->head_timeout);
    case OPT_MAX_CLIENTS:
        return set_number("--max-clients", v, 1, PIA_CLIENTS_MAX,
                          &s->max_clients);
    case OPT_MAX_PER_PEER:
        return set_number("--max-per-peer", v, 1, PIA_CLIENTS_MAX,
                          &s->max_per_peer);
    default:
        return 1;
    }
}

/* One option into s; returns 0, or the exit status to stop with (-1:
 * 0 after --help or --version). */
static int set_option(pia_settings *s, int c, const char *v)
{
    int rc = set_serve_option(s, c, v);

    if (rc != 1) {
        return rc;
    }
    switch (c) {
    case 'i':
        return set_number("--interval", v, 1, 3600, &s->interval);
    case 'w': s->write_file = v; return 0;
    case '1': s->once = 1; return 0;
    case 'u': s->user = v; return v[0] ? 0
                         : bad_value("--user", v, "want a user name");
    case 'n': s->node = v; return 0;
    case 'z': s->sensors.thermal_glob = v; return 0;
    case 'T': s->sensors.throttled_path = v; return 0;
    case 'W':
        s->sensors.power_glob = v;
        return v[0] == '/' && pis_power_kind_of(v) != PIS_POWER_BAD ? 0
            : bad_value("--power-sensor", v, "want an absolute path or glob"
                        " of hwmon power*_input, curr*_input or in*_input"
                        " files");
    case OPT_PROC_DIR: s->sensors.proc_dir = v; return 0;
    case 'h': usage(stdout); return -1;
    case 'V': printf("pi-telemetry-agent %s\n", PIA_VERSION); return -1;
    default: usage(stderr); return 2;
    }
}

static void set_defaults(pia_settings *s)
{
    memset(s, 0, sizeof(*s));
    s->listen = PIA_DEFAULT_LISTEN;
    s->path = PIA_DEFAULT_PATH;
    s->timeout = PIA_DEFAULT_TIMEOUT;
    s->head_timeout = PIA_DEFAULT_HEAD;
    s->max_clients = PIA_DEFAULT_CLIENTS;
    s->max_per_peer = PIA_DEFAULT_PER_PEER;
    s->interval = PIA_DEFAULT_INTERVAL;
    s->sensors.thermal_glob = PI_THERMAL_GLOB;
    s->sensors.throttled_path = PIS_THROTTLED_PATH;
    s->sensors.proc_dir = "/proc";
}

/* --power-sensor as PiStatsPowerSensor is checked at start-up: files of
 * another form than their names say stop the agent (2); nothing there
 * yet is a warning (the sensor's driver may bind later). */
static int check_power(const pia_settings *s)
{
    const char *glob = s->sensors.power_glob, *why;
    char buf[512];
    unsigned matched;

    if (glob == NULL) {
        return 0;
    }
    why = pis_power_check_now(glob, &matched, buf, sizeof(buf));
    if (why != NULL) {
        return bad_value("--power-sensor", glob, why);
    }
    if (matched == 0) {
        fprintf(stderr, "pi-telemetry-agent: --power-sensor '%s' matches no"
                " file yet: PowerW is unknown until it does\n", glob);
    }
    return 0;
}

int pia_parse_args(int argc, char **argv, pia_settings *s)
{
    static const struct option opts[] = {
        { "listen", required_argument, NULL, 'l' },
        { "path", required_argument, NULL, 'p' },
        { "timeout", required_argument, NULL, 't' },
        { "head-timeout", required_argument, NULL, OPT_HEAD_TIMEOUT },
        { "max-clients", required_argument, NULL, OPT_MAX_CLIENTS },
        { "max-per-peer", required_argument, NULL, OPT_MAX_PER_PEER },
        { "user", required_argument, NULL, 'u' },
        { "write", required_argument, NULL, 'w' },
        { "interval", required_argument, NULL, 'i' },
        { "once", no_argument, NULL, '1' },
        { "node", required_argument, NULL, 'n' },
        { "thermal-zone", required_argument, NULL, 'z' },
        { "throttled-file", required_argument, NULL, 'T' },
        { "power-sensor", required_argument, NULL, 'W' },
        { "proc-dir", required_argument, NULL, OPT_PROC_DIR },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 }
    };
    int c, rc;

    set_defaults(s);
    while ((c = getopt_long(argc, argv, "l:p:t:u:w:i:1n:z:T:W:hV", opts,
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
    return check_power(s);
}
