/* test_power.c -- a node's power from hwmon fixture files (pis_power.h):
 * the names PiStatsPowerSensor accepts, the worked example of
 * pis_power.h, all-or-nothing readings, the start-up check; PowerW in
 * the telemetry text both ways; and what a reading costs. */
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"
#include "pis_dircheck.h"
#include "pis_power.h"
#include "pis_render.h"
#include "pis_sensor.h"

static void put(const char *dir, const char *name, const char *text)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

static void gone(const char *dir, const char *name)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    unlink(path);
}

static void kinds(void)
{
    static const struct { const char *p; pis_power_kind k; } t[] = {
        { "/sys/class/hwmon/hwmon3/power1_input", PIS_POWER_WATTS },
        { "/sys/class/hwmon/hwmon*/power*_input", PIS_POWER_WATTS },
        { "/x/curr[1-3]_input", PIS_POWER_CURR },
        { "/x/curr?_input", PIS_POWER_CURR },
        { "/x/in*_input", PIS_POWER_VOLT },
        { "/x/in12_input", PIS_POWER_VOLT },
        { "power1_input", PIS_POWER_WATTS },
        { "/x/*_input", PIS_POWER_BAD },
        { "/x/power_input", PIS_POWER_BAD },
        { "/x/power1_average", PIS_POWER_BAD },
        { "/x/powerX_input", PIS_POWER_BAD },
        { "/x/temp1_input", PIS_POWER_BAD },
        { "/x/input", PIS_POWER_BAD },
        { "/x/", PIS_POWER_BAD },
        { "/x/power1_input/", PIS_POWER_BAD },
        { "/x/p*1_input", PIS_POWER_BAD },
    };
    size_t i;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        CHECK_INT(pis_power_kind_of(t[i].p), t[i].k);
    }
    CHECK(pis_check_power_sensor("/sys/class/hwmon/hwmon*/power1_input")
          == NULL);
    CHECK(pis_check_power_sensor("relative/power1_input") != NULL);
    CHECK(pis_check_power_sensor("/sys/class/thermal/thermal_zone0/temp")
          != NULL);
}

/* pis_power.h's worked example: an INA3221. */
static void ina3221(const char *dir)
{
    char pat[512], buf[256];
    long mw = -1;
    unsigned n = 99;

    put(dir, "in1_input", "5100\n");
    put(dir, "in2_input", "5050\n");
    put(dir, "in3_input", "3300\n");
    put(dir, "curr1_input", "600\n");
    put(dir, "curr2_input", "420\n");
    put(dir, "curr3_input", "0\n");
    put(dir, "in4_input", "30\n");      /* shunt voltages: no curr4..6 */
    put(dir, "in5_input", "21\n");
    put(dir, "in6_input", "0\n");
    snprintf(pat, sizeof(pat), "%s/curr*_input", dir);
    CHECK_INT(pis_power_read(pat, &mw, &n), 0);
    CHECK_INT(mw, 5181);
    CHECK_INT(n, 3);
    CHECK(pis_power_check_now(pat, &n, buf, sizeof(buf)) == NULL);
    CHECK_INT(n, 3);
    snprintf(pat, sizeof(pat), "%s/in[1-3]_input", dir);
    CHECK_INT(pis_power_read(pat, &mw, &n), 0);
    CHECK_INT(mw, 5181);
    /* in*_input takes the shunt voltages in: refused, and unknown */
    snprintf(pat, sizeof(pat), "%s/in*_input", dir);
    CHECK(pis_power_check_now(pat, &n, buf, sizeof(buf)) != NULL);
    CHECK(strstr(buf, "curr4_input is not there") != NULL
          || strstr(buf, "curr5_input is not there") != NULL
          || strstr(buf, "curr6_input is not there") != NULL);
    CHECK_INT(pis_power_read(pat, &mw, &n), -1);
    /* a channel that vanishes: unknown, not the sum of the others */
    gone(dir, "in2_input");
    snprintf(pat, sizeof(pat), "%s/curr*_input", dir);
    CHECK_INT(pis_power_read(pat, &mw, &n), -1);
    CHECK(pis_power_check_now(pat, &n, buf, sizeof(buf)) != NULL);
    CHECK(strstr(buf, "in2_input is not there") != NULL);
    put(dir, "in2_input", "5050\n");
    CHECK_INT(pis_power_read(pat, &mw, &n), 0);
    CHECK_INT(mw, 5181);
}

/* power*_input in microwatts: summed, rounded to milliwatts. */
static void watts(const char *dir)
{
    char pat[512], buf[256];
    long mw = -1;
    unsigned n = 0;

    put(dir, "power1_input", "2712499\n");
    put(dir, "power2_input", "1000\n");
    snprintf(pat, sizeof(pat), "%s/power*_input", dir);
    CHECK_INT(pis_power_read(pat, &mw, &n), 0);
    CHECK_INT(mw, 2713);               /* 2,713,499 uW */
    CHECK_INT(n, 2);
    snprintf(pat, sizeof(pat), "%s/power1_input", dir);   /* a literal */
    CHECK_INT(pis_power_read(pat, &mw, &n), 0);
    CHECK_INT(mw, 2712);
    CHECK_INT(n, 1);
    CHECK(pis_power_check_now(pat, &n, buf, sizeof(buf)) == NULL);
    /* garbage, empty, negative, too long: unknown */
    put(dir, "power2_input", "12.5\n");
    snprintf(pat, sizeof(pat), "%s/power*_input", dir);
    CHECK_INT(pis_power_read(pat, &mw, &n), -1);
    put(dir, "power2_input", "");
    CHECK_INT(pis_power_read(pat, &mw, &n), -1);
    put(dir, "power2_input", "-3000000\n");
    CHECK_INT(pis_power_read(pat, &mw, &n), -1);   /* sum below 0 */
    put(dir, "power2_input", "-1000\n");             /* noise: a reading */
    CHECK_INT(pis_power_read(pat, &mw, &n), 0);
    CHECK_INT(mw, 2711);
    put(dir, "power2_input", "123456789012345678901234567890123\n");
    CHECK_INT(pis_power_read(pat, &mw, &n), -1);
    put(dir, "power2_input", "20000000000000\n");    /* 20 MW */
    CHECK_INT(pis_power_read(pat, &mw, &n), -1);
    gone(dir, "power2_input");
    /* nothing there: unknown; at start-up a warning (matched 0) */
    snprintf(pat, sizeof(pat), "%s/nothing*/power1_input", dir);
    CHECK_INT(pis_power_read(pat, &mw, &n), -1);
    CHECK_INT(n, 0);
    CHECK(pis_power_check_now(pat, &n, buf, sizeof(buf)) == NULL);
    CHECK_INT(n, 0);
    /* a name of another form is refused whatever is there */
    snprintf(pat, sizeof(pat), "%s/*_input", dir);
    CHECK(pis_power_check_now(pat, &n, buf, sizeof(buf)) != NULL);
    CHECK_INT(pis_power_read(pat, &mw, &n), -1);
}

/* PowerW in the text: two decimals; "unknown" with a sensor that cannot
 * be read; no line at all without a sensor (the agent, older nodes). */
static void telemetry_text(const char *dir)
{
    static unit_buf b;
    const char *out = b.data;
    pis_out o = { unit_buf_emit, &b };
    char pat[512];
    pis_sensor_paths paths;
    pis_telemetry t;

    memset(&paths, 0, sizeof(paths));
    paths.proc_dir = dir;
    b.len = 0;
    b.data[0] = '\0';
    pis_read_local(&paths, "n1", &t);
    CHECK(!t.power_sensor && !t.has_power);
    pis_render_auto(&o, &t);
    CHECK(strstr(out, "PowerW") == NULL);

    put(dir, "power1_input", "5234999\n");
    snprintf(pat, sizeof(pat), "%s/power1_input", dir);
    paths.power_glob = pat;
    b.len = 0;
    b.data[0] = '\0';
    pis_read_local(&paths, "n1", &t);
    CHECK(t.power_sensor && t.has_power && t.power_mw == 5235);
    pis_render_auto(&o, &t);
    CHECK(strstr(out, "\nPowerW: 5.24\n") != NULL);
    CHECK_INT(pis_parse_telemetry(out, strlen(out), &t) > 0, 1);
    CHECK(t.power_sensor && t.has_power && t.power_mw == 5240);

    gone(dir, "power1_input");
    b.len = 0;
    b.data[0] = '\0';
    pis_read_local(&paths, "n1", &t);
    CHECK(t.power_sensor && !t.has_power);
    pis_render_auto(&o, &t);
    CHECK(strstr(out, "\nPowerW: unknown\n") != NULL);
    pis_parse_telemetry(out, strlen(out), &t);
    CHECK(t.power_sensor && !t.has_power && t.power_mw == 0);
    b.len = 0;
    b.data[0] = '\0';
    pis_render_html(&o, &t, 0);
    CHECK(strstr(out, "<th>Power (W)</th><td>unknown</td>") != NULL);
}

static void parse_power(void)
{
    static const struct { const char *in; int ok; long mw; } t[] = {
        { "PowerW: 5.23\n", 1, 5230 }, { "PowerW: 0.00\n", 1, 0 },
        { "PowerW: 7\n", 1, 7000 }, { "PowerW: 3.14159\n", 1, 3141 },
        { "PowerW:  12.5 \r\n", 1, 12500 },
        { "PowerW: unknown\n", 0, 0 }, { "PowerW: -1.00\n", 0, 0 },
        { "PowerW: 5,2\n", 0, 0 }, { "PowerW: 10000.01\n", 0, 0 },
        { "PowerW: 10000\n", 1, 10000000 }, { "PowerW:\n", 0, 0 },
    };
    size_t i;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        pis_telemetry tel;

        pis_parse_telemetry(t[i].in, strlen(t[i].in), &tel);
        CHECK_INT(tel.has_power, t[i].ok);
        CHECK_INT(tel.power_mw, t[i].mw);
        CHECK_INT(tel.power_sensor, 1);
    }
}

/* What a reading costs per answer (printed for docs/telemetry.md; not
 * a pass/fail: the machine's speed is not known). */
static void cost(const char *dir)
{
    char pat[512];
    struct timespec a, b;
    long mw;
    unsigned n, i, reps = 20000;
    double us;

    put(dir, "in1_input", "5100\n");
    put(dir, "curr1_input", "600\n");
    snprintf(pat, sizeof(pat), "%s/curr*_input", dir);
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (i = 0; i < reps; i++) {
        pis_power_read(pat, &mw, &n);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    us = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3
         / reps;
    printf("power: one reading of 3 curr/in pairs (tmpfs) %.1f us\n", us);
    CHECK(pis_power_read(pat, &mw, &n) == 0 && mw == 5181);
}

void test_power(void)
{
    char dir[] = "/tmp/pis-power-XXXXXX", cmd[64];

    kinds();
    parse_power();
    if (mkdtemp(dir) == NULL) {
        CHECK(!"mkdtemp");
        return;
    }
    ina3221(dir);
    watts(dir);
    telemetry_text(dir);
    cost(dir);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}
