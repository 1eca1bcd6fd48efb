/* fuzz_telemetry.c -- what the probe reads from a node: the HTTP answer,
 * the "Key: value" telemetry, and the numeric parsers behind it.
 *
 * Checks, besides the sanitizers: the body lies inside the answer; every
 * parsed field is within its documented range; a node name is at most
 * PIS_NODE_MAX bytes without control characters; what pis_render_auto
 * writes for the parsed telemetry parses back to the same values; each
 * numeric parser agrees with a plain reference on accepted input.
 */
#include <ctype.h>
#include <limits.h>

#include "fuzz_common.h"
#include "pis_render.h"
#include "pi_num.h"
#include "pi_thermal.h"
#include "pis_http_reply.h"
#include "pis_sensor.h"

static void check_tel(const pis_telemetry *t)
{
    size_t i, n = strnlen(t->node, sizeof(t->node));

    FZ_ASSERT(n <= PIS_NODE_MAX);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t->node[i];

        FZ_ASSERT(c >= 0x20 && c != 0x7f);
    }
    FZ_ASSERT(!t->has_temp || (t->temp_dc >= PI_TEMP_MIN_DC
                               && t->temp_dc <= PI_TEMP_MAX_DC));
    FZ_ASSERT(!t->has_throttled || t->throttled <= 0xffffffffUL);
    FZ_ASSERT(!t->has_load || t->load1_c >= 0);
    FZ_ASSERT(!t->has_cpus || (t->cpus >= 1 && t->cpus <= 4096));
}

static void buf_emit(void *ctx, const char *s, size_t n)
{
    fz_buf_add(ctx, s, n);
}

/* The node's own ?auto for t parses back to t (numbers exactly; the name
 * when it survives trimming). */
static void check_round_trip(const pis_telemetry *t)
{
    fz_buf b = { 0 };
    pis_out o = { buf_emit, &b };
    pis_telemetry u;
    size_t nl = strlen(t->node);

    pis_render_auto(&o, t);
    if (b.data == NULL) {
        return;
    }
    pis_parse_telemetry(b.data, b.len, &u);
    FZ_ASSERT(u.has_temp == t->has_temp);
    FZ_ASSERT(!t->has_temp || u.temp_dc == t->temp_dc);
    FZ_ASSERT(u.has_throttled == t->has_throttled);
    FZ_ASSERT(!t->has_throttled || u.throttled == t->throttled);
    FZ_ASSERT(u.has_load == t->has_load);
    FZ_ASSERT(!t->has_load || u.load1_c == t->load1_c);
    FZ_ASSERT(u.has_cpus == t->has_cpus);
    FZ_ASSERT(!t->has_cpus || u.cpus == t->cpus);
    FZ_ASSERT(u.has_mem == t->has_mem);
    FZ_ASSERT(!t->has_mem || u.mem_kb == t->mem_kb);
    FZ_ASSERT(u.has_uptime == t->has_uptime);
    FZ_ASSERT(!t->has_uptime || u.uptime_s == t->uptime_s);
    if (nl > 0 && !isspace((unsigned char)t->node[0])
        && !isspace((unsigned char)t->node[nl - 1])
        && strcmp(t->node, "unknown") != 0) {
        FZ_ASSERT(strcmp(u.node, t->node) == 0);
    }
    free(b.data);
}

/* [s, s + n) without leading and trailing blanks. */
static void trimmed(const char **s, size_t *n)
{
    while (*n > 0 && isspace((unsigned char)**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n > 0 && isspace((unsigned char)(*s)[*n - 1])) {
        (*n)--;
    }
}

static void check_numbers(const char *s, size_t n)
{
    unsigned long ul, bits;
    long fx;
    int dc, mc, d;
    char fmt[48];

    if (pi_parse_ulong(s, n, &ul) == 0) {
        const char *p = s;
        size_t m = n;

        trimmed(&p, &m);
        while (m > 1 && *p == '0') {
            p++;
            m--;
        }
        snprintf(fmt, sizeof(fmt), "%lu", ul);
        FZ_ASSERT(strlen(fmt) == m && memcmp(fmt, p, m) == 0);
    }
    if (pis_parse_throttled(s, n, &bits) == 0) {
        FZ_ASSERT(bits <= 0xffffffffUL);
    }
    if (pi_parse_millideg(s, n, &mc) == 0) {
        dc = pi_mc_to_dc(mc);
        FZ_ASSERT(dc >= PI_TEMP_MIN_DC && dc <= PI_TEMP_MAX_DC);
    }
    for (d = 0; d <= 3; d++) {
        if (pi_parse_fixed(s, n, d, &fx) == 0) {
            long back;

            /* Formatting and parsing again gives the same number. */
            pi_format_fixed(fx, d, fmt, sizeof(fmt));
            FZ_ASSERT(pi_parse_fixed(fmt, strlen(fmt), d, &back) == 0);
            FZ_ASSERT(back == fx);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size ? size : 1);
    const char *body;
    size_t body_len;
    int status;
    pis_telemetry t;

    memcpy(buf, data, size);

    /* As the probe does: the answer, then at most 8 KiB of its body. */
    if (pis_parse_http_reply(buf, size, &status, &body, &body_len) == 0) {
        FZ_ASSERT(status >= 0 && status <= 999);
        FZ_ASSERT(body >= buf && body <= buf + size);
        FZ_ASSERT(body_len == (size_t)(buf + size - body));
        pis_parse_telemetry(body, body_len > 8192 ? 8192 : body_len, &t);
        check_tel(&t);
    }

    /* The whole input as telemetry text. */
    pis_parse_telemetry(buf, size, &t);
    check_tel(&t);
    check_round_trip(&t);

    /* The whole input (and its first line) as one value. */
    check_numbers(buf, size);
    if (size > 0) {
        const char *nl = memchr(buf, '\n', size);

        if (nl != NULL) {
            check_numbers(buf, (size_t)(nl - buf));
        }
    }
    free(buf);
    return 0;
}
