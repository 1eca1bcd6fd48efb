/* pis_telemetry.c -- the telemetry text a node serves, parsed (see
 * pis_telemetry.h). */
#include <ctype.h>
#include <string.h>

#include "pi_num.h"
#include "pi_thermal.h"
#include "pis_telemetry.h"

int pis_parse_throttled(const char *text, size_t len, unsigned long *bits)
{
    unsigned long v = 0;
    size_t i, digits = 0;

    pi_trim(&text, &len);
    if (len >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        text += 2;
        len -= 2;
    }
    for (i = 0; i < len; i++) {
        int c = (unsigned char)text[i];
        unsigned d;

        if (!isxdigit(c)) {
            return -1;
        }
        d = (unsigned)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
        if (v == 0 && d == 0) {
            continue;                    /* leading zeros are free */
        }
        if (++digits > 8) {
            return -1;
        }
        v = (v << 4) | d;
    }
    if (len == 0) {
        return -1;
    }
    *bits = v;
    return 0;
}

/* Copies a node name, replacing control bytes: a name is one line. */
static void copy_name(char *dst, const char *src, size_t len)
{
    size_t i;

    if (len > PIS_NODE_MAX) {
        len = PIS_NODE_MAX;
    }
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)src[i];

        dst[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    dst[len] = '\0';
}

/* Parses one "Key: value" line into t.  Returns 1 if the key is known
 * and its value valid. */
static int parse_line(const char *key, size_t klen, const char *v,
                      size_t vlen, pis_telemetry *t)
{
#define KEY_IS(k) (klen == sizeof(k) - 1 && memcmp(key, k, klen) == 0)
    if (KEY_IS("Node")) {
        copy_name(t->node, v, vlen);
        return vlen > 0;
    }
    if (KEY_IS("TemperatureC")) {
        long dc;

        t->has_temp = pi_parse_fixed(v, vlen, 1, &dc) == 0
                      && dc >= PI_TEMP_MIN_DC && dc <= PI_TEMP_MAX_DC;
        t->temp_dc = t->has_temp ? (int)dc : 0;
        return t->has_temp;
    }
    if (KEY_IS("Throttled")) {
        t->has_throttled = pis_parse_throttled(v, vlen, &t->throttled) == 0;
        return t->has_throttled;
    }
    if (KEY_IS("Load1")) {
        t->has_load = pi_parse_fixed(v, vlen, 2, &t->load1_c) == 0
                      && t->load1_c >= 0;
        return t->has_load;
    }
    if (KEY_IS("CPUs")) {
        unsigned long c;

        t->has_cpus = pi_parse_ulong(v, vlen, &c) == 0 && c > 0
                      && c <= 4096;
        t->cpus = t->has_cpus ? (long)c : 0;
        return t->has_cpus;
    }
    if (KEY_IS("MemAvailableKB")) {
        t->has_mem = pi_parse_ulong(v, vlen, &t->mem_kb) == 0;
        return t->has_mem;
    }
    if (KEY_IS("UptimeS")) {
        t->has_uptime = pi_parse_ulong(v, vlen, &t->uptime_s) == 0;
        return t->has_uptime;
    }
    if (KEY_IS("BusyWorkers")) {
        t->has_busy = pi_parse_ulong(v, vlen, &t->busy) == 0
                      && t->busy <= PIS_WORKERS_MAX;
        t->busy = t->has_busy ? t->busy : 0;
        return t->has_busy;
    }
    if (KEY_IS("IdleWorkers")) {
        t->has_idle = pi_parse_ulong(v, vlen, &t->idle) == 0
                      && t->idle <= PIS_WORKERS_MAX;
        t->idle = t->has_idle ? t->idle : 0;
        return t->has_idle;
    }
    if (KEY_IS("PowerW")) {
        t->power_sensor = 1;
        t->has_power = pi_parse_fixed(v, vlen, 3, &t->power_mw) == 0
                       && t->power_mw >= 0
                       && t->power_mw <= PIS_TEL_POWER_MAX_MW;
        t->power_mw = t->has_power ? t->power_mw : 0;
        return t->has_power;
    }
#undef KEY_IS
    return 0;
}

int pis_parse_telemetry(const char *text, size_t len, pis_telemetry *t)
{
    size_t pos = 0;
    int known = 0;

    memset(t, 0, sizeof(*t));
    while (pos < len) {
        const char *line = text + pos, *colon, *nl;
        size_t llen, klen, vlen;

        nl = memchr(line, '\n', len - pos);
        llen = nl ? (size_t)(nl - line) : len - pos;
        pos += llen + 1;
        colon = memchr(line, ':', llen);
        if (colon == NULL) {
            continue;
        }
        klen = (size_t)(colon - line);
        vlen = llen - klen - 1;
        colon++;
        pi_trim(&colon, &vlen);
        known += parse_line(line, klen, colon, vlen, t);
    }
    return known;
}

int pis_severity_of(const pis_telemetry *t, int stale)
{
    if (stale || (!t->has_temp && !t->has_throttled)) {
        return 0;
    }
    if ((t->has_throttled && (t->throttled & PI_THR_THROTTLED))
        || (t->has_temp && t->temp_dc >= PI_TEMP_CRIT_DC)) {
        return 3;
    }
    if ((t->has_throttled && (t->throttled & (PI_THR_CAPPED | PI_THR_SOFTLIMIT)))
        || (t->has_temp && t->temp_dc >= PI_TEMP_WARN_DC)) {
        return 2;
    }
    return 1;
}
