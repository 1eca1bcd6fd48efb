/* pis_sensor.c -- reading and parsing node telemetry (see pis_sensor.h).
 *
 * Files are read with a fixed small buffer: a sysfs attribute is a few
 * bytes, and a "temp" file that is huge or endless must not cost more.
 */
#define _FILE_OFFSET_BITS 64     /* glob() on 32-bit ARM: 64-bit inodes */

#include <ctype.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pis_sensor.h"

/* Trims ASCII blanks at both ends of [*s, *s + *len). */
static void trim(const char **s, size_t *len)
{
    while (*len > 0 && isspace((unsigned char)**s)) {
        (*s)++;
        (*len)--;
    }
    while (*len > 0 && isspace((unsigned char)(*s)[*len - 1])) {
        (*len)--;
    }
}

int pis_parse_ulong(const char *text, size_t len, unsigned long *out)
{
    unsigned long v = 0;
    size_t i;

    trim(&text, &len);
    if (len == 0) {
        return -1;
    }
    for (i = 0; i < len; i++) {
        unsigned d;

        if (text[i] < '0' || text[i] > '9') {
            return -1;
        }
        d = (unsigned)(text[i] - '0');
        if (v > (ULONG_MAX - d) / 10) {
            return -1;
        }
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int pis_parse_fixed(const char *text, size_t len, int scale_digits,
                    long *out)
{
    const long limit = LONG_MAX / 1000;   /* keeps scaling overflow-free */
    long ip = 0, fp = 0;
    int neg = 0, fdigits = 0, seen = 0;
    size_t i = 0;

    trim(&text, &len);
    if (len > 0 && (text[0] == '-' || text[0] == '+')) {
        neg = text[0] == '-';
        i = 1;
    }
    for (; i < len && text[i] >= '0' && text[i] <= '9'; i++, seen = 1) {
        if (ip > limit) {
            return -1;
        }
        ip = ip * 10 + (text[i] - '0');
    }
    if (i < len && text[i] == '.') {
        for (i++; i < len && text[i] >= '0' && text[i] <= '9'; i++) {
            seen = 1;
            if (fdigits < scale_digits) {
                fp = fp * 10 + (text[i] - '0');
                fdigits++;
            }
        }
    }
    if (!seen || i != len) {
        return -1;
    }
    for (; fdigits < scale_digits; fdigits++) {
        fp *= 10;
    }
    for (i = 0; i < (size_t)scale_digits; i++) {
        if (ip > limit) {
            return -1;
        }
        ip *= 10;
    }
    *out = neg ? -(ip + fp) : ip + fp;
    return 0;
}

int pis_parse_millideg(const char *text, size_t len, int *dc)
{
    long m;

    /* sysfs gives an integer; anything else is not a reading. */
    if (pis_parse_fixed(text, len, 0, &m) != 0) {
        return -1;
    }
    if (memchr(text, '.', len) != NULL) {
        return -1;
    }
    if (m > (long)PIS_TEMP_MAX_DC * 100 + 49
        || m < (long)PIS_TEMP_MIN_DC * 100 - 49) {
        return -1;
    }
    *dc = (int)(m >= 0 ? (m + 50) / 100 : -((-m + 50) / 100));
    return 0;
}

int pis_parse_throttled(const char *text, size_t len, unsigned long *bits)
{
    unsigned long v = 0;
    size_t i, digits = 0;

    trim(&text, &len);
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

/* Reads at most PIS_SENSOR_READ_MAX bytes of a file.  Returns the length,
 * or -1 when the file cannot be read or is longer than that. */
static long read_small(const char *path, char *buf, size_t size)
{
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

    if (fd < 0) {
        return -1;
    }
    n = read(fd, buf, size);
    if (n >= 0 && (size_t)n == size) {
        char extra;

        if (read(fd, &extra, 1) != 0) {
            n = -1;                     /* too long to be a reading */
        }
    }
    close(fd);
    return (long)n;
}

int pis_read_hottest(const char *thermal_glob, int *dc)
{
    glob_t g;
    size_t i;
    int valid = 0, best = 0;

    if (thermal_glob == NULL
        || glob(thermal_glob, GLOB_NOSORT, NULL, &g) != 0) {
        return 0;
    }
    for (i = 0; i < g.gl_pathc; i++) {
        char buf[PIS_SENSOR_READ_MAX];
        long n = read_small(g.gl_pathv[i], buf, sizeof(buf));
        int v;

        if (n > 0 && pis_parse_millideg(buf, (size_t)n, &v) == 0) {
            if (valid == 0 || v > best) {
                best = v;
            }
            valid++;
        }
    }
    globfree(&g);
    if (valid > 0) {
        *dc = best;
    }
    return valid;
}

/* Finds "Key:" at a line start in text and parses its value. */
static int meminfo_kb(const char *text, const char *key, unsigned long *kb)
{
    const char *p = text;
    size_t klen = strlen(key);

    while (p != NULL && *p) {
        if (strncmp(p, key, klen) == 0 && p[klen] == ':') {
            const char *v = p + klen + 1;
            size_t n = strcspn(v, "\n");

            if (n > 3 && strncmp(v + n - 3, " kB", 3) == 0) {
                n -= 3;
            }
            return pis_parse_ulong(v, n, kb);
        }
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return -1;
}

static void read_proc(const char *proc_dir, pis_telemetry *t)
{
    char path[512], buf[2048];
    long n;

    snprintf(path, sizeof(path), "%s/loadavg", proc_dir);
    n = read_small(path, buf, PIS_SENSOR_READ_MAX);
    if (n > 0) {
        size_t w = strcspn(buf, " ");

        t->has_load = w < (size_t)n
                      && pis_parse_fixed(buf, w, 2, &t->load1_c) == 0
                      && t->load1_c >= 0;
    }
    snprintf(path, sizeof(path), "%s/uptime", proc_dir);
    n = read_small(path, buf, PIS_SENSOR_READ_MAX);
    if (n > 0) {
        /* "12345.67 2345.10": whole seconds of the first field. */
        size_t w = strcspn(buf, ". ");

        t->has_uptime = w < (size_t)n
                        && pis_parse_ulong(buf, w, &t->uptime_s) == 0;
    }
    snprintf(path, sizeof(path), "%s/meminfo", proc_dir);
    {
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        n = -1;
        if (fd >= 0) {
            n = read(fd, buf, sizeof(buf) - 1);
            close(fd);
        }
        if (n > 0) {
            buf[n] = '\0';
            t->has_mem = meminfo_kb(buf, "MemAvailable", &t->mem_kb) == 0;
        }
    }
}

void pis_read_local(const pis_sensor_paths *paths, const char *node,
                    pis_telemetry *t)
{
    char buf[PIS_SENSOR_READ_MAX];
    long n, cpus;

    memset(t, 0, sizeof(*t));
    if (node != NULL) {
        snprintf(t->node, sizeof(t->node), "%s", node);
    }
    t->has_temp = pis_read_hottest(paths->thermal_glob, &t->temp_dc) > 0;
    if (paths->throttled_path != NULL) {
        n = read_small(paths->throttled_path, buf, sizeof(buf));
        t->has_throttled = n > 0
            && pis_parse_throttled(buf, (size_t)n, &t->throttled) == 0;
    }
    cpus = sysconf(_SC_NPROCESSORS_ONLN);
    t->has_cpus = cpus > 0;
    t->cpus = cpus;
    read_proc(paths->proc_dir ? paths->proc_dir : "/proc", t);
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

        t->has_temp = pis_parse_fixed(v, vlen, 1, &dc) == 0
                      && dc >= PIS_TEMP_MIN_DC && dc <= PIS_TEMP_MAX_DC;
        t->temp_dc = t->has_temp ? (int)dc : 0;
        return t->has_temp;
    }
    if (KEY_IS("Throttled")) {
        t->has_throttled = pis_parse_throttled(v, vlen, &t->throttled) == 0;
        return t->has_throttled;
    }
    if (KEY_IS("Load1")) {
        t->has_load = pis_parse_fixed(v, vlen, 2, &t->load1_c) == 0
                      && t->load1_c >= 0;
        return t->has_load;
    }
    if (KEY_IS("CPUs")) {
        unsigned long c;

        t->has_cpus = pis_parse_ulong(v, vlen, &c) == 0 && c > 0
                      && c <= 4096;
        t->cpus = t->has_cpus ? (long)c : 0;
        return t->has_cpus;
    }
    if (KEY_IS("MemAvailableKB")) {
        t->has_mem = pis_parse_ulong(v, vlen, &t->mem_kb) == 0;
        return t->has_mem;
    }
    if (KEY_IS("UptimeS")) {
        t->has_uptime = pis_parse_ulong(v, vlen, &t->uptime_s) == 0;
        return t->has_uptime;
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
        trim(&colon, &vlen);
        known += parse_line(line, klen, colon, vlen, t);
    }
    return known;
}

void pis_format_fixed(long v, int digits, char *buf, size_t size)
{
    unsigned long a = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
    unsigned long scale = 1;
    int i;

    for (i = 0; i < digits; i++) {
        scale *= 10;
    }
    if (digits == 0) {
        snprintf(buf, size, "%s%lu", v < 0 ? "-" : "", a);
        return;
    }
    snprintf(buf, size, "%s%lu.%0*lu", v < 0 ? "-" : "", a / scale,
             digits, a % scale);
}

const char *pis_check_node_name(const char *name)
{
    const unsigned char *p = (const unsigned char *)name;

    if (*p == '\0') {
        return "must not be empty";
    }
    if (strlen(name) > PIS_NODE_MAX) {
        return "must be at most 64 bytes";
    }
    for (; *p; p++) {
        if (*p <= 0x20 || *p == 0x7f) {
            return "must not contain spaces or control characters";
        }
    }
    return NULL;
}

const char *pis_check_sensor_path(const char *path)
{
    const unsigned char *p = (const unsigned char *)path;

    if (*p != '/') {
        return "must be an absolute path (a glob(7) pattern is allowed)";
    }
    if (strlen(path) > 400) {
        return "must be at most 400 bytes";
    }
    for (; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            return "must not contain control characters";
        }
    }
    return NULL;
}

const char *pis_check_probe_path(const char *path)
{
    const unsigned char *p = (const unsigned char *)path;

    if (*p != '/') {
        return "must start with '/'";
    }
    if (strlen(path) > 400) {
        return "must be at most 400 bytes";
    }
    for (; *p; p++) {
        if (*p <= 0x20 || *p >= 0x7f) {
            return "must be printable ASCII without spaces";
        }
    }
    return NULL;
}

int pis_parse_http_answer(const char *buf, size_t len, int *status,
                          const char **body, size_t *body_len)
{
    const char *end = NULL;
    size_t i;

    if (len < 12 || memcmp(buf, "HTTP/1.", 7) != 0 || buf[8] != ' '
        || !isdigit((unsigned char)buf[9]) || !isdigit((unsigned char)buf[10])
        || !isdigit((unsigned char)buf[11])) {
        return -1;
    }
    for (i = 0; i + 1 < len; i++) {
        if (buf[i] == '\n' && buf[i + 1] == '\n') {
            end = buf + i + 2;
            break;
        }
        if (i + 3 < len && memcmp(buf + i, "\r\n\r\n", 4) == 0) {
            end = buf + i + 4;
            break;
        }
    }
    if (end == NULL) {
        return -1;
    }
    *status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
    *body = end;
    *body_len = len - (size_t)(end - buf);
    return 0;
}

int pis_severity_of(const pis_telemetry *t, int stale)
{
    if (stale || (!t->has_temp && !t->has_throttled)) {
        return 0;
    }
    if ((t->has_throttled && (t->throttled & PIS_THROTTLED_NOW))
        || (t->has_temp && t->temp_dc >= PIS_CRIT_DC)) {
        return 3;
    }
    if ((t->has_throttled && (t->throttled & PIS_CAPPED_NOW))
        || (t->has_temp && t->temp_dc >= PIS_WARN_DC)) {
        return 2;
    }
    return 1;
}
