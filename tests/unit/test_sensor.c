/* test_sensor.c -- telemetry parsing and sensor reading on fixtures. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "pis_sensor.h"

#define S(x) x, sizeof(x) - 1

static void millideg(void)
{
    static const struct { const char *in; int ok, dc; } t[] = {
        { "48312\n", 0, 483 }, { "48350", 0, 484 }, { "48349", 0, 483 },
        { "0", 0, 0 }, { "-1250\n", 0, -13 }, { "-40000", 0, -400 },
        { "150000", 0, 1500 }, { "  51234  \n", 0, 512 },
        { "", -1, 0 }, { "\n", -1, 0 }, { "abc", -1, 0 },
        { "48312abc", -1, 0 }, { "48.3", -1, 0 }, { "150100", -1, 0 },
        { "-40100", -1, 0 }, { "99999999999999999999999", -1, 0 },
        { "-273150", -1, 0 }, { "1e5", -1, 0 }, { "--5", -1, 0 },
    };
    size_t i;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        int dc = -9999, rc = pis_parse_millideg(t[i].in, strlen(t[i].in),
                                                &dc);

        CHECK_INT(rc, t[i].ok);
        if (t[i].ok == 0) {
            CHECK_INT(dc, t[i].dc);
        }
    }
}

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

static void fixed(void)
{
    long v;

    CHECK_INT(pis_parse_fixed(S("0.52"), 2, &v), 0);
    CHECK_INT(v, 52);
    CHECK_INT(pis_parse_fixed(S("12.345"), 2, &v), 0);
    CHECK_INT(v, 1234);
    CHECK_INT(pis_parse_fixed(S("-12.3"), 1, &v), 0);
    CHECK_INT(v, -123);
    CHECK_INT(pis_parse_fixed(S("7"), 1, &v), 0);
    CHECK_INT(v, 70);
    CHECK_INT(pis_parse_fixed(S(".5"), 1, &v), 0);
    CHECK_INT(v, 5);
    CHECK_INT(pis_parse_fixed(S("."), 1, &v), -1);
    CHECK_INT(pis_parse_fixed(S("1.2.3"), 1, &v), -1);
    CHECK_INT(pis_parse_fixed(S("99999999999999999999"), 1, &v), -1);
    CHECK_INT(pis_parse_fixed(S("nan"), 1, &v), -1);
}

static void format(void)
{
    char b[24];

    pis_format_fixed(483, 1, b, sizeof(b));
    CHECK_STR(b, "48.3");
    pis_format_fixed(-5, 1, b, sizeof(b));
    CHECK_STR(b, "-0.5");
    pis_format_fixed(52, 2, b, sizeof(b));
    CHECK_STR(b, "0.52");
    pis_format_fixed(-1500, 1, b, sizeof(b));
    CHECK_STR(b, "-150.0");
    pis_format_fixed(42, 0, b, sizeof(b));
    CHECK_STR(b, "42");
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

/* A fixture tree: hottest valid zone wins, bad zones are skipped. */
static void hottest(void)
{
    char dir[] = "/tmp/pis-unit-XXXXXX", p[256], glob[256];
    int dc = 0;

    if (mkdtemp(dir) == NULL) {
        CHECK(!"mkdtemp");
        return;
    }
    snprintf(glob, sizeof(glob), "%s/zone*/temp", dir);
    CHECK_INT(pis_read_hottest(glob, &dc), 0);          /* none yet */
    snprintf(p, sizeof(p), "%s/zone0", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/zone0/temp", dir);
    write_file(p, "45000\n");
    snprintf(p, sizeof(p), "%s/zone1", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/zone1/temp", dir);
    write_file(p, "61234\n");
    snprintf(p, sizeof(p), "%s/zone2", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/zone2/temp", dir);
    write_file(p, "garbage\n");
    snprintf(p, sizeof(p), "%s/zone3", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/zone3/temp", dir);
    write_file(p, "999999999\n");                         /* huge */
    snprintf(p, sizeof(p), "%s/zone4", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/zone4/temp", dir);
    write_file(p, "1000000000000000000000000000000000000000000000000000000"
                  "000000000000000000000000000000000000000000000000000000\n");
    CHECK_INT(pis_read_hottest(glob, &dc), 2);
    CHECK_INT(dc, 612);
    snprintf(p, sizeof(p), "rm -rf '%s'", dir);
    CHECK_INT(system(p), 0);
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

void test_sensor(void)
{
    millideg();
    throttled();
    fixed();
    format();
    hottest();
    parse_telemetry();
    directive_checks();
}
