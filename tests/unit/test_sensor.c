/* test_sensor.c -- mod_pistats' telemetry text, directive checks, the
 * probe's answer, and this machine's sensors read from fixtures.  The
 * thermal zones and numbers they use: test_thermal.c, test_num.c. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "pis_http_reply.h"
#include "pis_dircheck.h"
#include "pis_sensor.h"

#define S(x) x, sizeof(x) - 1

static void throttled(void)
{
    static const struct { const char *in; int ok; unsigned long v; } t[] = {
        { "50005\n", 0, 0x50005 }, { "0x50005", 0, 0x50005 },
        { "0X8", 0, 8 }, { "0", 0, 0 }, { "0x0", 0, 0 },
        { "ffffffff", 0, 0xffffffffUL }, { "00000000050000", 0, 0x50000 },
        { "", -1, 0 }, { "0x", -1, 0 }, { "xyz", -1, 0 },
        { "1ffffffff", -1, 0 }, { "50 005", -1, 0 }, { "-5", -1, 0 },
    };
    size_t i;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        unsigned long v = 12345;
        int rc = pis_parse_throttled(t[i].in, strlen(t[i].in), &v);

        CHECK_INT(rc, t[i].ok);
        if (t[i].ok == 0) {
            CHECK_INT(v, t[i].v);
        }
    }
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

static void parse_telemetry(void)
{
    static const char good[] =
        "Node: pi1\nTemperatureC: 48.3\nThrottled: 0x50005\n"
        "Load1: 0.52\nCPUs: 4\nMemAvailableKB: 123456\nUptimeS: 12345\n"
        "SomethingNew: whatever\n";
    static const char mixed[] =
        "Node:  pi2 \r\nTemperatureC: hot\r\nThrottled: 0x5\r\n"
        "garbage line\nCPUs: -4\nLoad1: 1.5\n";
    pis_telemetry t;

    CHECK_INT(pis_parse_telemetry(good, sizeof(good) - 1, &t), 7);
    CHECK_STR(t.node, "pi1");
    CHECK(t.has_temp && t.temp_dc == 483);
    CHECK(t.has_throttled && t.throttled == 0x50005);
    CHECK(t.has_load && t.load1_c == 52);
    CHECK(t.has_cpus && t.cpus == 4);
    CHECK(t.has_mem && t.mem_kb == 123456);
    CHECK(t.has_uptime && t.uptime_s == 12345);

    CHECK_INT(pis_parse_telemetry(mixed, sizeof(mixed) - 1, &t), 3);
    CHECK_STR(t.node, "pi2");
    CHECK(!t.has_temp);
    CHECK(t.has_throttled && t.throttled == 5);
    CHECK(!t.has_cpus);
    CHECK(t.has_load && t.load1_c == 150);
    CHECK(!t.has_mem && !t.has_uptime);

    /* length-bounded: no NUL terminator needed, no over-read */
    CHECK_INT(pis_parse_telemetry("Node: abcdef", 8, &t), 1);
    CHECK_STR(t.node, "ab");
}

/* BusyWorkers / IdleWorkers: optional keys.  A text without them (an old
 * node, the agent) parses as before with both unknown; garbage or an
 * absurd count leaves only that key unknown; an older parser's rule
 * "unknown keys are ignored" is what lets old masters read new nodes. */
static void parse_workers(void)
{
    static const char with[] =
        "Node: pi1\nTemperatureC: 48.3\nBusyWorkers: 3\n"
        "IdleWorkers: 22\n";
    static const char without[] = "Node: pi1\nTemperatureC: 48.3\n";
    static const char bad[] =
        "Node: pi1\nBusyWorkers: -1\nIdleWorkers: 1000001\n";
    static const char partly[] =
        "BusyWorkers:  0 \nIdleWorkers: many\nCPUs: 2\n";
    pis_telemetry t;

    CHECK_INT(pis_parse_telemetry(with, sizeof(with) - 1, &t), 4);
    CHECK(t.has_busy && t.busy == 3);
    CHECK(t.has_idle && t.idle == 22);
    CHECK_INT(pis_parse_telemetry(without, sizeof(without) - 1, &t), 2);
    CHECK(!t.has_busy && !t.has_idle);
    CHECK(t.has_temp && t.temp_dc == 483);
    CHECK_INT(pis_parse_telemetry(bad, sizeof(bad) - 1, &t), 1);
    CHECK(!t.has_busy && t.busy == 0);
    CHECK(!t.has_idle && t.idle == 0);
    CHECK_INT(pis_parse_telemetry(partly, sizeof(partly) - 1, &t), 2);
    CHECK(t.has_busy && t.busy == 0);
    CHECK(!t.has_idle);
    CHECK(t.has_cpus && t.cpus == 2);
}

static void directive_checks(void)
{
    CHECK(pis_check_node_name("pi-1.local") == NULL);
    CHECK(pis_check_node_name("") != NULL);
    CHECK(pis_check_node_name("has space") != NULL);
    CHECK(pis_check_node_name("tab\there") != NULL);
    CHECK(pis_check_node_name(
        "a234567890123456789012345678901234567890123456789012345678901234")
        == NULL);
    CHECK(pis_check_node_name(
        "a2345678901234567890123456789012345678901234567890123456789012345")
        != NULL);
    CHECK(pis_check_sensor_path("/sys/class/thermal/thermal_zone*/temp")
          == NULL);
    CHECK(pis_check_sensor_path("relative/temp") != NULL);
    CHECK(pis_check_sensor_path("") != NULL);
}

static void http_answer(void)
{
    static const char ok[] = "HTTP/1.1 200 OK\r\nA: b\r\n\r\nNode: x\n";
    static const char lf[] = "HTTP/1.0 404 Nope\nA: b\n\nbody";
    const char *body = NULL;
    size_t n = 0;
    int status = 0;

    CHECK_INT(pis_parse_http_reply(S(ok), &status, &body, &n), 0);
    CHECK_INT(status, 200);
    CHECK_INT(n, 8);
    CHECK(body != NULL && memcmp(body, "Node: x\n", 8) == 0);
    CHECK_INT(pis_parse_http_reply(S(lf), &status, &body, &n), 0);
    CHECK_INT(status, 404);
    CHECK_INT(n, 4);
    CHECK_INT(pis_parse_http_reply(S("HTTP/1.1 200 OK\r\nA: b\r\n"),
                                    &status, &body, &n), -1);
    CHECK_INT(pis_parse_http_reply(S("HTTP/2 200 OK\r\n\r\n"), &status,
                                    &body, &n), -1);
    CHECK_INT(pis_parse_http_reply(S("HTTP/1.1 2x0 OK\r\n\r\n"), &status,
                                    &body, &n), -1);
}

/* pis_read_local on a fixture /proc and thermal zone. */
static void read_local(void)
{
    char dir[] = "/tmp/pis-local-XXXXXX", p[256], glob[256], thr[256];
    pis_sensor_paths paths;
    pis_telemetry t;

    if (mkdtemp(dir) == NULL) {
        CHECK(!"mkdtemp");
        return;
    }
    snprintf(p, sizeof(p), "%s/loadavg", dir);
    write_file(p, "0.52 0.40 0.30 1/123 4567\n");
    snprintf(p, sizeof(p), "%s/uptime", dir);
    write_file(p, "12345.67 2345.10\n");
    snprintf(p, sizeof(p), "%s/meminfo", dir);
    write_file(p, "MemTotal: 999 kB\nMemAvailable:   123456 kB\n");
    snprintf(p, sizeof(p), "%s/temp", dir);
    write_file(p, "48350\n");
    snprintf(thr, sizeof(thr), "%s/throttled", dir);
    write_file(thr, "0x50005\n");
    snprintf(glob, sizeof(glob), "%s/te*p", dir);
    paths.thermal_glob = glob;
    paths.throttled_path = thr;
    paths.proc_dir = dir;
    pis_read_local(&paths, "pi-9", &t);
    CHECK_STR(t.node, "pi-9");
    CHECK(t.has_temp && t.temp_dc == 484);
    CHECK(t.has_throttled && t.throttled == 0x50005);
    CHECK(t.has_load && t.load1_c == 52);
    CHECK(t.has_uptime && t.uptime_s == 12345);
    CHECK(t.has_mem && t.mem_kb == 123456);
    paths.proc_dir = "/nonexistent-pis";
    paths.thermal_glob = "/nonexistent-pis/*";
    paths.throttled_path = "/nonexistent-pis/x";
    pis_read_local(&paths, NULL, &t);
    CHECK(!t.has_temp && !t.has_throttled && !t.has_load && !t.has_mem
          && !t.has_uptime);
    snprintf(p, sizeof(p), "rm -rf '%s'", dir);
    CHECK_INT(system(p), 0);
}

void test_sensor(void)
{
    throttled();
    parse_telemetry();
    parse_workers();
    directive_checks();
    http_answer();
    read_local();
}
