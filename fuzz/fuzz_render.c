/* fuzz_render.c -- every /pi-status renderer fed a snapshot built from
 * fuzz bytes: hostile strings in every string field (node names from the
 * probe, member, route and balancer names from the configuration),
 * arbitrary counters and doubles (NaN and infinities included), and
 * unknown fields.
 *
 * Checks: ?json is one valid RFC 8259 document and ?prometheus passes the
 * exposition checker (both checkers are the unit tests' own, included
 * from tests/unit/test_render_snap.c); and escaping does not depend on
 * what a string holds: the same snapshot with every string byte replaced
 * by 'a' (same lengths) gives the same number of lines in ?auto,
 * ?prometheus and the server-status summary, and the same number of
 * '<' '>' '"' in the HTML pages.  No output holds a NUL byte.
 *
 * Speed (every output is checked on every run, so the checks dominate
 * unless kept cheap): this file and the checkers it includes are not
 * coverage-instrumented (fuzz_render.nocov), output buffers are kept
 * across runs, counting uses a table, and the blanked pass skips ?json,
 * which nothing compares.
 */
#include "fuzz_common.h"
#include "pis_energy.h"
#include "pis_render.h"
#include "pis_render_modstatus.h"

/* The JSON and Prometheus checkers (static functions there). */
#include "../tests/unit/test_render_snap.c"

int unit_passed, unit_failed;
void unit_buf_emit(void *ctx, const char *s, size_t n)
{
    (void)ctx; (void)s; (void)n;
}

/* At most 2 balancers of at most 2 members: every "first" and "next"
 * path (separators, indices, a second series in a Prometheus family, a
 * second table) is there with 2; a third member only repeats them and
 * costs about 0.5 ms of rendering and checking per run. */
#define NB_MAX 2
#define NM_MAX 2
/* Longest string taken from the input (a suffix may follow).  16 bytes
 * hold four of the longest UTF-8 sequences, or any mix of escapes and
 * invalid bytes: every escaper state is reachable.  Longer strings only
 * repeat the same per-byte paths and cost time in every label of every
 * Prometheus sample (about 50 a member). */
#define STR_MAX 16

typedef struct {
    pis_snap s;
    pis_balancer_snap b[NB_MAX];
    pis_member_snap m[NB_MAX][NM_MAX];
    char *strs[64];
    unsigned nstrs;
} fz_snap;

/* A string of the input with '#' and '@' taken out (the markers that
 * keep names unique), plus a suffix; NULL sometimes when nullable. */
static const char *fz_string(fz_snap *f, fz_in *in, const char *suffix,
                             int nullable)
{
    char *s, *p;

    if (nullable && (fz_u8(in) & 7) == 0) {
        return NULL;
    }
    s = fz_str_suffix(in, STR_MAX, suffix);
    for (p = s; *p; p++) {
        if (*p == '#' || *p == '@') {
            *p = '_';
        }
    }
    f->strs[f->nstrs++] = s;
    return s;
}

static double fz_double(fz_in *in)
{
    uint8_t kind = fz_u8(in);
    uint64_t bits;

    switch (kind & 7) {
    case 0: return -1;                      /* "no sample" */
    case 1:                                 /* any bit pattern */
        bits = ((uint64_t)fz_u32(in, UINT32_MAX) << 32)
               | fz_u32(in, UINT32_MAX);
        {
            double d;

            memcpy(&d, &bits, sizeof(d));
            return d;
        }
    default:
        return (double)fz_u32(in, UINT32_MAX) / (double)(1 + (kind >> 3));
    }
}

static void fz_tel(fz_snap *f, fz_in *in, pis_telemetry *t)
{
    const char *node;
    uint8_t has = fz_u8(in);

    memset(t, 0, sizeof(*t));
    node = fz_string(f, in, "", 0);
    snprintf(t->node, sizeof(t->node), "%s", node);
    t->has_temp = has & 1;
    t->temp_dc = PI_TEMP_MIN_DC
                 + (int)fz_u32(in, PI_TEMP_MAX_DC - PI_TEMP_MIN_DC);
    t->has_throttled = (has >> 1) & 1;
    t->throttled = fz_u32(in, UINT32_MAX);
    t->has_load = (has >> 2) & 1;
    t->load1_c = fz_u32(in, 1u << 24);
    t->has_cpus = (has >> 3) & 1;
    t->cpus = 1 + fz_u32(in, 4095);
    t->has_mem = (has >> 4) & 1;
    t->mem_kb = fz_u32(in, UINT32_MAX);
    t->has_uptime = (has >> 5) & 1;
    t->uptime_s = fz_u32(in, UINT32_MAX);
    /* PowerW from bytes already read (a seed means what it meant) */
    t->power_sensor = (has >> 6) & 1;
    t->has_power = t->power_sensor && (has >> 7);
    t->power_mw = (long)(t->load1_c % 10000001);
}

static void fz_member(fz_snap *f, fz_in *in, pis_member_snap *m,
                      unsigned bi, unsigned mi)
{
    char suffix[16];
    unsigned i;
    uint64_t sum = 0;

    memset(m, 0, sizeof(*m));
    snprintf(suffix, sizeof(suffix), "#%u%u", bi, mi);
    m->name = fz_string(f, in, suffix, 0);
    m->route = fz_string(f, in, "", 0);
    m->state = fz_string(f, in, "", 0);
    m->usable = fz_u8(in) & 1;
    m->lbfactor = (int)fz_u32(in, 10000);
    m->has_weight = fz_u8(in) & 1;
    m->weight = fz_double(in);
    m->thermal_state = fz_string(f, in, "", 1);
    m->inflight = fz_u32(in, UINT32_MAX);
    m->requests = fz_u32(in, UINT32_MAX);
    for (i = 0; i < 5; i++) {
        m->status_class[i] = fz_u32(in, UINT32_MAX);
    }
    m->proxy_errors = fz_u32(in, UINT32_MAX);
    m->bytes_in = (uint64_t)fz_u32(in, UINT32_MAX) << 20;
    m->bytes_out = fz_u32(in, UINT32_MAX);
    m->rate1 = fz_double(in);
    m->rate10 = fz_double(in);
    m->rate60 = fz_double(in);
    m->p50_us = fz_double(in);
    m->p95_us = fz_double(in);
    m->p99_us = fz_double(in);
    m->ewma_us = fz_double(in);
    for (i = 0; i < PIS_HIST_BUCKETS; i++) {
        m->hist[i] = (fz_u8(in) & 3) ? 0 : fz_u32(in, 1u << 20);
        sum += m->hist[i];
    }
    m->hist_count = sum;                    /* the snapshot's contract */
    m->hist_sum_us = fz_double(in);
    m->probed = fz_u8(in) & 1;
    fz_tel(f, in, &m->tel);
    m->tel_age_s = fz_double(in);
    m->tel_stale = fz_u8(in) & 1;
    m->probe_error = fz_string(f, in, "", 1);
    m->severity = (pis_severity)(fz_u8(in) % 4);
    /* The 300-s histories as runs: a value byte k (requests k, or a
     * 32-bit count when k >= 200; temperature a gap when k is odd), then
     * the run length 1..256.  Any history is still possible (runs of
     * 1), but an input spends a few bytes on it, not 300, and the usual
     * case is a few flat runs, as in a real history, rather than 600
     * random points in the SVG plots of every member. */
    for (i = 0; i < PIS_HISTORY_S; ) {
        uint8_t k = fz_u8(in);
        unsigned run = in->n > 0 ? 1u + fz_u8(in) : PIS_HISTORY_S;
        uint32_t req = k < 200 ? k : fz_u32(in, UINT32_MAX);
        int16_t temp = (k & 1) ? PIS_TEMP_NONE
                               : (int16_t)(PI_TEMP_MIN_DC + k * 7);

        for (; run > 0 && i < PIS_HISTORY_S; run--, i++) {
            m->req_hist[i] = req;
            m->temp_hist[i] = temp;
            m->power_hist[i] = k % 3 == 0 ? PIS_POWER_NONE
                               : k == 2 ? INT32_MAX : (int32_t)k * 97;
        }
    }
    /* The energy figures from what was read: any double, known or not */
    m->has_energy = m->probed;
    m->energy_j = m->hist_sum_us;
    m->has_idle = m->tel_stale;
    m->idle_w = m->ewma_us;
    m->energy60_s = (unsigned)(m->requests % 61);
    m->energy60_j = m->rate60;
    m->energy60_requests = m->requests;
    m->has_jpr = m->usable;
    m->jpr_j = m->rate1;
    m->jpr_above_idle_j = m->rate10;
}

static void fz_build(fz_snap *f, fz_in *in)
{
    unsigned bi, mi;

    memset(f, 0, sizeof(*f));
    fz_tel(f, in, &f->s.self);
    f->s.server_version = fz_string(f, in, "", 0);
    f->s.deflate_state = fz_string(f, in, "", 1);
    f->s.now = fz_double(in);
    f->s.uptime_s = fz_u32(in, UINT32_MAX);
    f->s.probe_interval_s = fz_double(in);
    f->s.nbalancers = fz_u8(in) % (NB_MAX + 1);
    f->s.balancers = f->b;
    for (bi = 0; bi < f->s.nbalancers; bi++) {
        pis_balancer_snap *b = &f->b[bi];
        char suffix[8];

        snprintf(suffix, sizeof(suffix), "@%u", bi);
        b->name = fz_string(f, in, suffix, 0);
        b->vhost = fz_string(f, in, "", 0);
        b->lbmethod = fz_string(f, in, "", 0);
        b->nmembers = fz_u8(in) % (NM_MAX + 1);
        b->members = f->m[bi];
        for (mi = 0; mi < b->nmembers; mi++) {
            fz_member(f, in, &f->m[bi][mi], bi, mi);
        }
        pis_energy_totals(b);
    }
}

/* Every string byte replaced by 'a': the same snapshot, harmless text. */
static void fz_blank(fz_snap *f)
{
    unsigned i, bi, mi;

    for (i = 0; i < f->nstrs; i++) {
        memset(f->strs[i], 'a', strlen(f->strs[i]));
    }
    memset(f->s.self.node, 'a', strlen(f->s.self.node));
    for (bi = 0; bi < f->s.nbalancers; bi++) {
        for (mi = 0; mi < f->b[bi].nmembers; mi++) {
            char *node = f->m[bi][mi].tel.node;

            memset(node, 'a', strlen(node));
        }
    }
}

typedef struct {
    big_buf json, prom, autos, html, sum_short, sum_html, node_html,
            node_auto;
} outputs;

static void run(pis_out *o, big_buf *b, void (*fn)(pis_out *, const pis_snap *),
                const pis_snap *s)
{
    o->ctx = b;
    b->len = 0;
    big_emit(b, "", 0);
    fn(o, s);
}

static void html_0(pis_out *o, const pis_snap *s)
{
    pis_render_snap_html(o, s, 0);
}
static void sum_short(pis_out *o, const pis_snap *s)
{
    pis_render_modstatus(o, s, 1);
}
static void sum_html(pis_out *o, const pis_snap *s)
{
    pis_render_modstatus(o, s, 0);
}
static void node_html(pis_out *o, const pis_snap *s)
{
    pis_render_html(o, &s->self, 5);
}
static void node_auto(pis_out *o, const pis_snap *s)
{
    pis_render_auto(o, &s->self);
}

/* The checkers read outputs as C strings: a NUL byte would hide the
 * rest of a page from them (and has no place in any format). */
static void no_nul(const outputs *out)
{
    const big_buf *all[] = { &out->json, &out->prom, &out->autos,
                             &out->html, &out->sum_short, &out->sum_html,
                             &out->node_html, &out->node_auto };
    unsigned i;

    for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        FZ_ASSERT(all[i]->len == 0
                  || memchr(all[i]->data, 0, all[i]->len) == NULL);
    }
}

/* The blanked pass skips ?json: nothing compares it. */
static void render_all(const pis_snap *s, outputs *out, int json)
{
    pis_out o = { big_emit, NULL };

    if (json) {
        run(&o, &out->json, pis_render_snap_json, s);
    }
    run(&o, &out->prom, pis_render_snap_prometheus, s);
    run(&o, &out->autos, pis_render_snap_auto, s);
    run(&o, &out->html, html_0, s);
    run(&o, &out->sum_short, sum_short, s);
    run(&o, &out->sum_html, sum_html, s);
    run(&o, &out->node_html, node_html, s);
    run(&o, &out->node_auto, node_auto, s);
    no_nul(out);
}

/* How many bytes of b are one of chars: a table, not strchr per byte. */
static size_t count(const big_buf *b, const char *chars)
{
    unsigned char is[256] = { 0 };
    const unsigned char *p = (const unsigned char *)b->data,
                        *end = p + b->len;
    size_t n = 0;

    for (; *chars; chars++) {
        is[(unsigned char)*chars] = 1;
    }
    for (; p < end; p++) {
        n += is[*p];
    }
    return n;
}

/* "Key: value" lines: a key of [A-Za-z0-9[]_] then ": ".  strict (for
 * the blanked snapshot, whose strings are all 'a'): no ':' in the
 * value either, as when a line lost its '\n' and the next key ran on. */
static void check_kv_lines(const big_buf *b, int strict)
{
    const char *p = b->data;

    while (*p) {
        const char *k = p, *nl;

        while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')
               || (*p >= '0' && *p <= '9') || *p == '[' || *p == ']'
               || *p == '_') {
            p++;
        }
        FZ_ASSERT(p > k && p[0] == ':' && p[1] == ' ');
        nl = strchr(p, '\n');
        FZ_ASSERT(nl != NULL);
        if (strict && memchr(p + 2, ':', (size_t)(nl - p - 2)) != NULL) {
            fprintf(stderr, "line: %.*s\n", (int)(nl - k), k);
            FZ_ASSERT(!"one \"Key: value\" a line");
        }
        p = nl + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = { data, size };
    static fz_snap f;
    static outputs a, b;           /* kept: buffers grow once, not per run */
    unsigned i;

    fz_build(&f, &in);
    render_all(&f.s, &a, 1);

    if (!json_valid(a.json.data)) {
        fprintf(stderr, "invalid JSON:\n%s\n", a.json.data);
        FZ_ASSERT(!"?json is valid JSON");
    }
    if (prom_check(a.prom.data) != 0) {
        fprintf(stderr, "bad exposition:\n%s\n", a.prom.data);
        FZ_ASSERT(!"?prometheus follows the text format");
    }
    check_kv_lines(&a.autos, 0);
    check_kv_lines(&a.sum_short, 0);
    check_kv_lines(&a.node_auto, 0);

    fz_blank(&f);
    render_all(&f.s, &b, 0);
    check_kv_lines(&b.autos, 1);
    check_kv_lines(&b.sum_short, 1);
    check_kv_lines(&b.node_auto, 1);
    FZ_ASSERT(count(&a.autos, "\n") == count(&b.autos, "\n"));
    FZ_ASSERT(count(&a.node_auto, "\n") == count(&b.node_auto, "\n"));
    FZ_ASSERT(count(&a.prom, "\n") == count(&b.prom, "\n"));
    FZ_ASSERT(count(&a.sum_short, "\n") == count(&b.sum_short, "\n"));
    FZ_ASSERT(count(&a.html, "<>\"") == count(&b.html, "<>\""));
    FZ_ASSERT(count(&a.sum_html, "<>\"") == count(&b.sum_html, "<>\""));
    FZ_ASSERT(count(&a.node_html, "<>\"") == count(&b.node_html, "<>\""));

    for (i = 0; i < f.nstrs; i++) {
        free(f.strs[i]);
    }
    return 0;
}
