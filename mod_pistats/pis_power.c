/* pis_power.c -- a node's power from hwmon files (see pis_power.h). */
#define _FILE_OFFSET_BITS 64     /* glob() on 32-bit ARM: 64-bit inodes
                                    (without it, EOVERFLOW: no sensor) */
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pi_file.h"
#include "pi_num.h"
#include "pis_power.h"

#define PIS_POWER_READ_MAX 32          /* bytes of one hwmon value */

static const struct {
    const char *prefix;
    pis_power_kind kind;
} pis_power_names[] = {
    { "power", PIS_POWER_WATTS },
    { "curr", PIS_POWER_CURR },
    { "in", PIS_POWER_VOLT },
};

static int index_char(char c, int literal_only)
{
    if (c >= '0' && c <= '9') {
        return 1;
    }
    return !literal_only && strchr("*?[]!^-", c) != NULL;
}

/* The kind of file name `name` (a literal name when literal_only, else
 * a glob pattern), and where its index starts and ends. */
static pis_power_kind kind_of_name(const char *name, int literal_only,
                                   size_t *idx, size_t *idx_len)
{
    static const char suffix[] = "_input";
    size_t len = strlen(name), i, k, plen;

    if (len < sizeof(suffix) - 1
        || strcmp(name + len - (sizeof(suffix) - 1), suffix) != 0) {
        return PIS_POWER_BAD;
    }
    for (k = 0; k < sizeof(pis_power_names) / sizeof(pis_power_names[0]);
         k++) {
        plen = strlen(pis_power_names[k].prefix);
        if (strncmp(name, pis_power_names[k].prefix, plen) != 0) {
            continue;
        }
        if (len - (sizeof(suffix) - 1) <= plen) {
            return PIS_POWER_BAD;            /* no index */
        }
        for (i = plen; i < len - (sizeof(suffix) - 1); i++) {
            if (!index_char(name[i], literal_only)) {
                return PIS_POWER_BAD;
            }
        }
        *idx = plen;
        *idx_len = len - (sizeof(suffix) - 1) - plen;
        return pis_power_names[k].kind;
    }
    return PIS_POWER_BAD;
}

pis_power_kind pis_power_kind_of(const char *pattern)
{
    const char *base = strrchr(pattern, '/');
    size_t idx, n;

    return kind_of_name(base ? base + 1 : pattern, 0, &idx, &n);
}

/* A hwmon value: a decimal integer, blanks (the newline) around it. */
static int read_value(const char *path, long long *v)
{
    char buf[PIS_POWER_READ_MAX + 1];
    const char *p = buf;
    long n = pi_read_file(path, buf, sizeof(buf), PI_READ_WHOLE);
    size_t len;
    unsigned long u;
    int neg;

    if (n <= 0) {
        return -1;
    }
    len = (size_t)n;
    pi_trim(&p, &len);
    neg = len > 0 && *p == '-';
    if (neg) {
        p++;
        len--;
    }
    if (len == 0 || *p < '0' || *p > '9'
        || pi_parse_ulong(p, len, &u) != 0) {
        return -1;
    }
    *v = neg ? -(long long)u : (long long)u;
    return 0;
}

/* The partner of a curr/in file: the same directory and index, the
 * other prefix.  Returns 0, or -1 when the name has no digit index. */
static int partner_of(const char *path, pis_power_kind kind, char *out,
                      size_t size)
{
    const char *base = strrchr(path, '/');
    size_t dir = base ? (size_t)(base - path) + 1 : 0, idx, n;

    base = path + dir;
    if (kind_of_name(base, 1, &idx, &n) != kind) {
        return -1;
    }
    if ((size_t)snprintf(out, size, "%.*s%s%.*s_input", (int)dir, path,
                         kind == PIS_POWER_CURR ? "in" : "curr", (int)n,
                         base + idx) >= size) {
        return -1;
    }
    return 0;
}

/* One matched file's microwatts. */
static int channel_uw(const char *path, pis_power_kind kind, long long *uw,
                      char *partner, size_t psize)
{
    long long a, b;

    partner[0] = '\0';
    if (kind == PIS_POWER_WATTS) {
        const char *base = strrchr(path, '/');
        size_t idx, n;

        if (kind_of_name(base ? base + 1 : path, 1, &idx, &n) != kind) {
            return -1;
        }
        return read_value(path, uw);
    }
    if (partner_of(path, kind, partner, psize) != 0
        || read_value(path, &a) != 0 || read_value(partner, &b) != 0) {
        return -1;
    }
    *uw = a * b;                        /* mV x mA, either way round */
    return 0;
}

int pis_power_read(const char *pattern, long *mw, unsigned *channels)
{
    pis_power_kind kind = pis_power_kind_of(pattern);
    char partner[4096];
    long long sum = 0, uw;
    glob_t g;
    size_t i;
    int rc = 0;

    *channels = 0;
    if (kind == PIS_POWER_BAD
        || glob(pattern, GLOB_NOSORT, NULL, &g) != 0) {
        return -1;
    }
    *channels = (unsigned)g.gl_pathc;
    if (g.gl_pathc > PIS_POWER_MAX_FILES) {
        rc = -1;
    }
    for (i = 0; rc == 0 && i < g.gl_pathc; i++) {
        if (channel_uw(g.gl_pathv[i], kind, &uw, partner, sizeof(partner))
            != 0) {
            rc = -1;
        }
        else {
            sum += uw;
        }
    }
    globfree(&g);
    if (rc != 0 || sum < 0 || sum > (long long)PIS_POWER_MAX_MW * 1000) {
        return -1;
    }
    *mw = (long)((sum + 500) / 1000);
    return 0;
}

const char *pis_power_check_now(const char *pattern, unsigned *matched,
                                char *buf, size_t size)
{
    pis_power_kind kind = pis_power_kind_of(pattern);
    char partner[4096];
    const char *why = NULL;
    glob_t g;
    size_t i;

    *matched = 0;
    if (kind == PIS_POWER_BAD) {
        snprintf(buf, size, "is not a power*_input, curr*_input or"
                 " in*_input file of hwmon");
        return buf;
    }
    if (glob(pattern, 0, NULL, &g) != 0) {
        return NULL;                   /* nothing there (yet) */
    }
    *matched = (unsigned)g.gl_pathc;
    if (g.gl_pathc > PIS_POWER_MAX_FILES) {
        snprintf(buf, size, "matches %u files; at most %d are read",
                 (unsigned)g.gl_pathc, PIS_POWER_MAX_FILES);
        why = buf;
    }
    for (i = 0; why == NULL && i < g.gl_pathc; i++) {
        const char *path = g.gl_pathv[i];

        if (kind == PIS_POWER_WATTS) {
            const char *base = strrchr(path, '/');
            size_t idx, n;

            if (kind_of_name(base ? base + 1 : path, 1, &idx, &n) != kind) {
                snprintf(buf, size, "matches %s, whose name has no"
                         " index", path);
                why = buf;
            }
        }
        else if (partner_of(path, kind, partner, sizeof(partner)) != 0) {
            snprintf(buf, size, "matches %s, whose name has no index",
                     path);
            why = buf;
        }
        else if (access(partner, F_OK) != 0) {
            snprintf(buf, size, "matches %s, but %s is not there: name"
                     " the channels that have both (e.g. curr*_input)",
                     path, partner);
            why = buf;
        }
    }
    globfree(&g);
    return why;
}
