/* fuzz_directives.c -- directive values and the other small parsers of
 * configuration and request text: pis_check_* (PiStatsNode, sensor and
 * probe paths), pi_parse_number (PiBalance* numbers), pib_adapt_parse_arg
 * and pib_procstat_parse (PiBalanceDeflateAdaptive), pis_parse_query
 * (/pi-status?...), and the response checks of pib_should_compress.
 *
 * pib_config.c's setters take cmd_parms (httpd glue) and are
 * covered by t/config/deflate_directives.t instead.
 *
 * Input: a selector-free list of NUL-separated strings; every string goes
 * through every parser, each acceptance is checked against the contract
 * in the header.
 */
#include <errno.h>
#include <math.h>

#include "fuzz_common.h"
#include "pib_adapt.h"
#include "pib_decide.h"
#include "pib_score.h"
#include "pis_render.h"
#include "pi_num.h"
#include "pis_dircheck.h"
#include "pis_power.h"
#include "pis_sensor.h"

static void check_paths(const char *s)
{
    size_t n = strlen(s), i;

    if (pis_check_node_name(s) == NULL) {
        FZ_ASSERT(n >= 1 && n <= PIS_NODE_MAX);
        for (i = 0; i < n; i++) {
            FZ_ASSERT((unsigned char)s[i] > 0x20 && s[i] != 0x7f);
        }
    }
    if (pis_check_sensor_path(s) == NULL) {
        FZ_ASSERT(s[0] == '/' && n <= 400);
        for (i = 0; i < n; i++) {
            FZ_ASSERT((unsigned char)s[i] >= 0x20 && s[i] != 0x7f);
        }
    }
    if (pis_check_power_sensor(s) == NULL) {
        /* an absolute path whose last part names a hwmon input */
        FZ_ASSERT(s[0] == '/' && n <= 400
                  && pis_power_kind_of(s) != PIS_POWER_BAD
                  && strlen(strrchr(s, '/')) > sizeof("/in_input") - 1);
    }
    if (pis_check_probe_path(s) == NULL) {
        /* Goes into the probe's request line: no CR, LF or space. */
        FZ_ASSERT(s[0] == '/' && n <= 400);
        for (i = 0; i < n; i++) {
            FZ_ASSERT((unsigned char)s[i] > 0x20
                      && (unsigned char)s[i] < 0x7f);
        }
    }
}

static void check_number(const char *s, double lo, double hi)
{
    double v = -12345.0;

    if (pi_parse_number(s, lo, hi, &v) == 0) {
        char *end;

        FZ_ASSERT(isfinite(v) && v >= lo && v <= hi);
        errno = 0;
        FZ_ASSERT(strtod(s, &end) == v && *end == '\0');
    }
    else {
        FZ_ASSERT(v == -12345.0);           /* untouched on error */
    }
}

static void check_adapt(const char *s)
{
    pib_adapt_conf c;
    unsigned busy = 0, total = 0;

    pib_adapt_conf_default(&c);
    if (pib_adapt_parse_arg(&c, s) == NULL) {
        FZ_ASSERT(c.cpu_pct >= 10 && c.cpu_pct <= 100);
        FZ_ASSERT(c.temp_c >= 30 && c.temp_c <= 120);
        FZ_ASSERT(c.stat_path != NULL && c.thermal != NULL);
    }
    pib_procstat_parse(s, &busy, &total);
}

static void check_query(const char *s)
{
    pis_query q;

    pis_parse_query(s, &q);
    FZ_ASSERT(q.format >= PIS_FMT_HTML && q.format <= PIS_FMT_PROMETHEUS);
    FZ_ASSERT(q.refresh == 0 || (q.refresh >= 1 && q.refresh <= 3600));
}

/* A response built from the strings: a COMPRESS verdict only when every
 * check of pib_decide.h passes. */
static void check_decide(fz_in *in, char **s, size_t ns)
{
    pib_resp r;
    pib_policy pol;
    pib_verdict v;

    memset(&r, 0, sizeof(r));
    r.status = (int)fz_u32(in, 999);
    r.subrequest = fz_u8(in) & 1;
    r.content_type = ns > 0 ? s[0] : NULL;
    r.content_encoding = ns > 1 ? s[1] : NULL;
    r.content_range = (fz_u8(in) & 3) == 0 && ns > 2 ? s[2] : NULL;
    r.cache_control = ns > 3 ? s[3] : NULL;
    r.length = (long long)fz_u32(in, UINT32_MAX) - 1;
    r.client_gzip = fz_u8(in) & 1;
    r.paused = fz_u8(in) & 1;
    pol.types = (fz_u8(in) & 1) || ns < 6 ? pib_default_types
                                          : (const char *const *)s + 4;
    pol.ntypes = pol.types == pib_default_types ? pib_default_ntypes : 2;
    pol.min_length = fz_u32(in, 1u << 20);

    v = pib_should_compress(&r, &pol);
    FZ_ASSERT(strcmp(pib_verdict_name(v), "?") != 0);
    if (v == PIB_DEC_COMPRESS) {
        FZ_ASSERT(r.client_gzip && !r.paused && !r.subrequest);
        FZ_ASSERT(r.status >= 200 && r.status != 204 && r.status != 205
                  && r.status != 206);
        FZ_ASSERT(!pib_is_encoded(r.content_encoding));
        FZ_ASSERT(r.content_range == NULL);
        FZ_ASSERT(!pib_has_no_transform(r.cache_control));
        FZ_ASSERT(r.status == 304 || r.length < 0
                  || r.length >= pol.min_length);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = { data, size };
    double lo = (double)(int32_t)fz_u32(&in, UINT32_MAX) / 1000.0;
    double hi = lo + (double)fz_u32(&in, UINT32_MAX) / 1000.0;
    char *s[8];
    size_t ns = 0, i;

    while (ns < 8 && in.n > 0) {
        s[ns++] = fz_str(&in, 1024);
    }
    for (i = 0; i < ns; i++) {
        check_paths(s[i]);
        check_number(s[i], lo, hi);
        check_number(s[i], -INFINITY, INFINITY);
        check_adapt(s[i]);
        check_query(s[i]);
    }
    in.p = data;                            /* reuse the bytes as numbers */
    in.n = size;
    check_decide(&in, s, ns);
    for (i = 0; i < ns; i++) {
        free(s[i]);
    }
    return 0;
}
