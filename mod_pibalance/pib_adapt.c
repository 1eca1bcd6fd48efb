/* pib_adapt.c -- adaptive compression state machine (pure).
 *
 * Modelled on HAProxy's maxcompcpuusage (lower the level, then stop
 * compressing new streams) and lighttpd's deflate.max-loadavg.  Worked
 * table, cpu=90, temp=75 (the same rows are a unit test):
 *
 *   state  busy%  temp C   next
 *   full    95     50      low
 *   low     95     50      off
 *   off     80     50      off    (80 is not below 75: hold)
 *   off     60     50      low
 *   low     60     72      low    (72 is not below 70: hold)
 *   low     60     60      full
 *   full    20     76      low    (hot)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pi_num.h"
#include "pi_thermal.h"
#include "pib_adapt.h"

void pib_adapt_conf_default(pib_adapt_conf *c)
{
    c->on = 0;
    c->cpu_pct = PIB_ADAPT_CPU_DEFAULT;
    c->temp_c = PIB_ADAPT_TEMP_DEFAULT;
    c->stat_path = "/proc/stat";
    c->thermal = PI_THERMAL_GLOB;
}

const char *pib_adapt_parse_arg(pib_adapt_conf *c, const char *arg)
{
    long v;

    if (strncmp(arg, "cpu=", 4) == 0) {
        if (pi_parse_whole(arg + 4, 10, 100, &v) != 0) {
            return "cpu= must be a whole percentage in [10, 100]";
        }
        c->cpu_pct = (int)v;
    }
    else if (strncmp(arg, "temp=", 5) == 0) {
        if (pi_parse_whole(arg + 5, 30, 120, &v) != 0) {
            return "temp= must be whole degrees Celsius in [30, 120]";
        }
        c->temp_c = (int)v;
    }
    else if (strncmp(arg, "stat=", 5) == 0 && arg[5] == '/') {
        c->stat_path = arg + 5;
    }
    else if (strncmp(arg, "thermal=", 8) == 0 && arg[8] == '/') {
        c->thermal = arg + 8;
    }
    else {
        return "options are cpu=10..100, temp=30..120, stat=/path, "
               "thermal=/glob";
    }
    return NULL;
}

int pib_procstat_parse(const char *text, unsigned *busy, unsigned *total)
{
    unsigned long long f[10] = { 0 }, sum = 0;
    int n, i;

    if (text == NULL || strncmp(text, "cpu ", 4) != 0) {
        return -1;
    }
    n = sscanf(text + 4, "%llu %llu %llu %llu %llu %llu %llu %llu %llu "
               "%llu", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6],
               &f[7], &f[8], &f[9]);
    if (n < 4) {
        return -1;
    }
    /* guest and guest_nice (8, 9) are already counted in user, nice. */
    for (i = 0; i < n && i < 8; i++) {
        sum += f[i];
    }
    *total = (unsigned)sum;
    *busy = (unsigned)(sum - f[3] - f[4]);
    return 0;
}

int pib_cpu_busy_pct(unsigned busy0, unsigned total0, unsigned busy1,
                     unsigned total1)
{
    unsigned dt = total1 - total0, db = busy1 - busy0;

    if (dt == 0) {
        return -1;
    }
    if (db > dt) {
        return 100;
    }
    return (int)((unsigned long long)db * 100 / dt);
}

static int pib_is_hot(int busy, int temp_mc, const pib_adapt_conf *c)
{
    return busy >= c->cpu_pct || temp_mc >= c->temp_c * 1000;
}

static int pib_is_cool(int busy, int temp_mc, const pib_adapt_conf *c)
{
    return busy < c->cpu_pct - PIB_ADAPT_CPU_HYST
           && temp_mc < (c->temp_c - PIB_ADAPT_TEMP_HYST) * 1000;
}

pib_adapt_state pib_adapt_step(pib_adapt_state cur, int busy_pct,
                               int temp_mc, const pib_adapt_conf *c)
{
    if (pib_is_hot(busy_pct, temp_mc, c)) {
        return cur == PIB_ADAPT_FULL ? PIB_ADAPT_LOW : PIB_ADAPT_OFF;
    }
    if (pib_is_cool(busy_pct, temp_mc, c)) {
        return cur == PIB_ADAPT_OFF ? PIB_ADAPT_LOW : PIB_ADAPT_FULL;
    }
    return cur;
}

int pib_adapt_level(pib_adapt_state st, int configured)
{
    switch (st) {
    case PIB_ADAPT_FULL:
        return configured;
    case PIB_ADAPT_LOW:
        return 1;
    default:
        return 0;
    }
}

const char *pib_adapt_name(pib_adapt_state st)
{
    switch (st) {
    case PIB_ADAPT_FULL:
        return "full";
    case PIB_ADAPT_LOW:
        return "reduced";
    default:
        return "off";
    }
}
