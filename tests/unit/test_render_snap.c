/* test_render_snap.c -- the master's four formats on a hand-built
 * snapshot: golden output (test_render_golden.c), escaping of a hostile
 * node, a JSON validity checker and a Prometheus exposition checker.
 *
 * The fixture: balancer://pis (lbmethod pi) with a healthy member and
 * one whose node sends a hostile name; balancer://tomcat (byrequests)
 * with one member of which nothing is known.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "unit.h"
#include "pis_energy.h"
#include "pis_render.h"

#define HOSTILE "<script>alert(1)</script>\"'\n\\\xff\xfe"

extern const char pis_golden_auto[], pis_golden_json[],
                  pis_golden_prom[], pis_golden_html[];

/* Renderer output; large enough for the page with its plots. */
typedef struct {
    char *data;
    size_t len, cap;
} big_buf;

static void big_emit(void *ctx, const char *s, size_t n)
{
    big_buf *b = ctx;

    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->data = realloc(b->data, b->cap);
        if (b->data == NULL) {
            abort();
        }
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static pis_member_snap fx_members[3];
static pis_balancer_snap fx_balancers[2];
static pis_snap fx;
static pis_event fx_events[2];

static void fx_healthy(pis_member_snap *m)
{
    unsigned i;

    m->name = "http://10.0.0.11:8080";
    m->route = "";
    m->state = "Init Ok ";
    m->usable = 1;
    m->lbfactor = 100;
    m->has_weight = 1;
    m->weight = 0.75;
    m->thermal_state = "warm";
    m->estimate_us = 15250;
    m->inflight = 3;
    m->requests = 1234;
    m->status_class[1] = 1200;
    m->status_class[3] = 30;
    m->status_class[4] = 4;
    m->proxy_errors = 2;
    m->client_errors = 3;
    m->bytes_in = 5000000;
    m->bytes_out = 1250000;
    m->rate1 = 4;
    m->rate10 = 3.5;
    m->rate60 = 2.25;
    m->p50_us = 12345;
    m->p95_us = 45678;
    m->p99_us = 99000;
    m->ewma_us = 15000;
    m->hist[0] = 1;                /* under 100 us */
    m->hist[30] = 1000;            /* ~1.7 ms */
    m->hist[50] = 200;             /* ~12 ms */
    m->hist[PIS_HIST_BUCKETS - 1] = 3;
    m->hist_count = 1204;
    m->hist_sum_us = 3600000;
    m->probed = 1;
    strcpy(m->tel.node, "pi1");
    m->tel.has_temp = 1;
    m->tel.temp_dc = 723;
    m->tel.has_throttled = 1;
    m->tel.throttled = 0x80008;
    m->tel.has_load = 1;
    m->tel.load1_c = 152;
    m->tel.has_cpus = 1;
    m->tel.cpus = 4;
    m->tel_age_s = 1.5;
    m->severity = PIS_SEV_WARN;
    m->tel.power_sensor = 1;           /* an INA219: 5.23 W */
    m->tel.has_power = 1;
    m->tel.power_mw = 5234;
    m->has_energy = 1;
    m->energy_j = 12345.678;
    m->has_idle = 1;
    m->idle_w = 2.71;
    m->energy60_s = 58;
    m->energy60_j = 290.5;
    m->energy60_requests = 13000;
    m->has_jpr = 1;
    m->jpr_j = 290.5 / 13000;
    m->jpr_above_idle_j = (290.5 - 2.71 * 58) / 13000;
    for (i = 0; i < PIS_HISTORY_S; i++) {
        m->req_hist[i] = i >= 290 ? i - 288 : 0;
        m->temp_hist[i] = i < 100 ? PIS_TEMP_NONE : i < 200 ? 650 : 723;
        m->power_hist[i] = i < 150 ? PIS_POWER_NONE : i < 250 ? 3000 : 5234;
    }
}

static void fx_hostile(pis_member_snap *m)
{
    unsigned i;

    m->name = "http://10.0.0.12/<b>\"x\"";
    m->route = "r2\n";
    m->state = "Init Err ";
    m->lbfactor = 250;
    m->has_weight = 1;
    m->weight = 0;
    m->thermal_state = "drained";
    m->estimate_us = -1;
    m->last_failed = 1;
    m->bytes_in = 10;
    m->bytes_out = 20;
    m->rate1 = m->rate10 = m->rate60 = 0;
    m->p50_us = m->p95_us = m->p99_us = m->ewma_us = -1;
    m->probed = 1;
    strcpy(m->tel.node, HOSTILE);
    m->tel.has_temp = 1;
    m->tel.temp_dc = 815;
    m->tel.has_throttled = 1;
    m->tel.throttled = 0x50005;
    m->tel_age_s = 9;
    m->tel_stale = 1;
    m->probe_error = "garbage: <x>\r\nInjected: 1";
    m->severity = PIS_SEV_CRIT;
    m->tel.power_sensor = 1;           /* "PowerW: unknown", stale */
    m->has_energy = 1;
    m->energy_j = 0.5;
    for (i = 0; i < PIS_HISTORY_S; i++) {
        m->temp_hist[i] = i % 100 == 50 ? 815 : PIS_TEMP_NONE;
        m->power_hist[i] = PIS_POWER_NONE;
    }
}

/* Nothing known: not probed, no samples, NaN where a double slipped. */
static void fx_unknown(pis_member_snap *m)
{
    unsigned i;

    m->name = "ajp://10.0.0.13:8009";
    m->route = "t1";
    m->state = "Init Ok ";
    m->usable = 1;
    m->lbfactor = 100;
    m->rate1 = NAN;
    m->rate10 = m->rate60 = 0;
    m->p50_us = m->p95_us = m->p99_us = m->ewma_us = -1;
    m->tel_age_s = -1;
    m->hist_sum_us = INFINITY;
    for (i = 0; i < PIS_HISTORY_S; i++) {
        m->temp_hist[i] = PIS_TEMP_NONE;
        m->power_hist[i] = PIS_POWER_NONE;
    }
}

static const pis_snap *fixture(void)
{
    memset(&fx, 0, sizeof(fx));
    memset(fx_members, 0, sizeof(fx_members));
    fx_healthy(&fx_members[0]);
    fx_hostile(&fx_members[1]);
    fx_unknown(&fx_members[2]);
    fx_balancers[0].name = "balancer://pis";
    fx_balancers[0].vhost = "master.example:80";
    fx_balancers[0].lbmethod = "pi";
    fx_balancers[0].nmembers = 2;
    fx_balancers[0].members = &fx_members[0];
    fx_balancers[0].has_settings = 1;      /* lbmethod pi's settings */
    fx_balancers[0].soft_dc = 550;
    fx_balancers[0].hard_dc = 580;
    fx_balancers[0].hyst_dc = 33;
    fx_balancers[0].floor = 0.1;
    fx_balancers[0].throttle_factor = 0.5;
    fx_balancers[0].slowstart_s = 30;
    fx_balancers[0].decay_s = 10;
    fx_balancers[0].deflate_on = 1;
    fx_balancers[0].deflate_level = 6;
    fx_balancers[0].deflate_level_now = 1;
    pis_energy_totals(&fx_balancers[0]);   /* 5.23 W, one member */
    fx_balancers[1].name = "balancer://tomcat";
    fx_balancers[1].vhost = "master.example:8080";
    fx_balancers[1].lbmethod = "byrequests";
    fx_balancers[1].nmembers = 1;
    fx_balancers[1].members = &fx_members[2];
    strcpy(fx.self.node, "master");
    fx.self.has_temp = 1;
    fx.self.temp_dc = 512;
    fx.self.has_throttled = 1;
    fx.self.throttled = 0;
    fx.self.has_mem = 1;
    fx.self.mem_kb = 123456;
    fx.self.power_sensor = 1;
    fx.self.has_power = 1;
    fx.self.power_mw = 4100;
    fx.server_version = "Apache/2.4.62 (Debian)";
    fx.deflate_state = "on";
    fx.has_deflate_counts = 1;
    fx.deflate_one_pass = 5000000000ULL;    /* past 2^32 */
    fx.deflate_streamed = 12;
    fx.deflate_trickled = 3;
    fx.deflate_waits = 7;
    fx.ncodings = 3;
    fx.coding_name[0] = "gzip";
    fx.coding_name[1] = "br";
    fx.coding_name[2] = "zstd";
    fx.deflate_coding[0][0] = 17;           /* gzip */
    fx.deflate_coding[0][1] = 6000000000ULL;
    fx.deflate_coding[0][2] = 900000;
    fx.deflate_coding[1][0] = 2;            /* br */
    fx.deflate_coding[1][1] = 100000;
    fx.deflate_coding[1][2] = 15000;
    fx.deflate_coding[2][0] = 1;            /* zstd */
    fx.deflate_coding[2][1] = 51660;
    fx.deflate_coding[2][2] = 8211;
    fx.has_adaptive = 1;
    fx.adaptive_on = 1;
    fx.adaptive_name = "reduced";
    fx.adaptive_changes = 2;
    fx.cache_hits = 41;
    fx.cache_misses = 2;
    fx.cache_revalidated = 5;
    fx.cache_bytes_saved = 6000000000ULL;   /* past 2^32 */
    fx.now = 1700000000.25;
    fx.uptime_s = 93784;
    fx.probe_interval_s = 2;
    fx.nbalancers = 2;
    fx.balancers = fx_balancers;
    pis_event_make(&fx_events[0], PIS_EV_READMITTED, 1699999990, 500,
                   546, "balancer://pis", "http://10.0.0.11:8080", NULL);
    pis_event_make(&fx_events[1], PIS_EV_DRAINED, 1699999900, 0, 580,
                   "balancer://pis", "http://10.0.0.12/<b>\"x\"", NULL);
    fx.nevents = 2;
    fx.events = fx_events;
    return &fx;
}

/* A JSON (RFC 8259) validity checker: json_value returns the end of the
 * value at p, or NULL.  Strings must be valid UTF-8 without raw control
 * characters; numbers follow the grammar (so no NaN or Infinity). */
static const char *json_value(const char *p, int depth);

static const char *json_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') {
        p++;
    }
    return p;
}

static const char *json_string(const char *p)
{
    const unsigned char *u;

    if (*p++ != '"') {
        return NULL;
    }
    while (*p != '"') {
        size_t n;

        u = (const unsigned char *)p;
        if (*u < 0x20) {
            return NULL;
        }
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                int i;

                for (i = 1; i <= 4; i++) {
                    if (!p[i] || !strchr("0123456789abcdefABCDEF", p[i])) {
                        return NULL;
                    }
                }
                p += 5;
            }
            else if (*p && strchr("\"\\/bfnrt", *p)) {
                p++;
            }
            else {
                return NULL;
            }
            continue;
        }
        n = pis_utf8_len(u);
        if (n == 0) {
            return NULL;
        }
        p += n;
    }
    return p + 1;
}

static const char *json_digits(const char *p)
{
    if (*p < '0' || *p > '9') {
        return NULL;
    }
    while (*p >= '0' && *p <= '9') {
        p++;
    }
    return p;
}

static const char *json_number(const char *p)
{
    if (*p == '-') {
        p++;
    }
    if (*p == '0') {
        p++;
    }
    else if ((p = json_digits(p)) == NULL) {
        return NULL;
    }
    if (*p == '.' && (p = json_digits(p + 1)) == NULL) {
        return NULL;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') {
            p++;
        }
        p = json_digits(p);
    }
    return p;
}

/* Object (close '}') or array (close ']') members after the bracket. */
static const char *json_items(const char *p, char close, int depth)
{
    p = json_ws(p);
    if (*p == close) {
        return p + 1;
    }
    for (;;) {
        if (close == '}') {
            p = json_string(json_ws(p));
            if (p == NULL || *(p = json_ws(p)) != ':') {
                return NULL;
            }
            p++;
        }
        if ((p = json_value(p, depth + 1)) == NULL) {
            return NULL;
        }
        p = json_ws(p);
        if (*p == close) {
            return p + 1;
        }
        if (*p++ != ',') {
            return NULL;
        }
    }
}

static const char *json_value(const char *p, int depth)
{
    p = json_ws(p);
    if (depth > 32) {
        return NULL;
    }
    switch (*p) {
    case '{': return json_items(p + 1, '}', depth);
    case '[': return json_items(p + 1, ']', depth);
    case '"': return json_string(p);
    case 't': return strncmp(p, "true", 4) ? NULL : p + 4;
    case 'f': return strncmp(p, "false", 5) ? NULL : p + 5;
    case 'n': return strncmp(p, "null", 4) ? NULL : p + 4;
    default: return json_number(p);
    }
}

static int json_valid(const char *doc)
{
    const char *end = json_value(doc, 0);

    return end != NULL && *json_ws(end) == '\0';
}

static void json_checker(void)
{
    CHECK(json_valid("{\"a\":[1,-2.5e3,null,true,\"\\u00e9\\n\"]}"));
    CHECK(json_valid(" [] "));
    CHECK(!json_valid("{\"a\":NaN}"));
    CHECK(!json_valid("[Infinity]"));
    CHECK(!json_valid("[1,]"));
    CHECK(!json_valid("{\"a\" 1}"));
    CHECK(!json_valid("[\"a\nb\"]"));
    CHECK(!json_valid("[\"\xff\"]"));
    CHECK(!json_valid("[\"\\x\"]"));
    CHECK(!json_valid("[01]"));
    CHECK(!json_valid("[1] 2"));
}

/* A Prometheus text format 0.0.4 checker, line by line.  It knows the
 * families seen (HELP and TYPE once each, samples contiguous after
 * their TYPE) and, for histograms, the series being read (buckets
 * cumulative with increasing le, ending in +Inf equal to _count). */
typedef struct {
    char seen[64][96];             /* families with a TYPE */
    unsigned nseen;
    char family[96], type[16];     /* the current one */
    char series[512];              /* histogram: labels but le */
    double last_le, inf;
    uint64_t last_count;
    int has_inf;
} prom_state;

static size_t prom_name(const char *p, int colon)
{
    size_t n = 0;

    while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z')
           || p[n] == '_' || (colon && p[n] == ':')
           || (n > 0 && p[n] >= '0' && p[n] <= '9')) {
        n++;
    }
    return n;
}

/* A float as the format allows, NaN excluded by our own rule. */
static int prom_float(const char *s, double *v)
{
    char *end;

    if (strcmp(s, "+Inf") == 0 || strcmp(s, "-Inf") == 0) {
        *v = s[0] == '+' ? INFINITY : -INFINITY;
        return 1;
    }
    if (!*s || strchr(s, 'n') || strchr(s, 'N') || strchr(s, 'x')) {
        return 0;
    }
    *v = strtod(s, &end);
    return *end == '\0';
}

/* Parses {k="v",...}; copies every pair but le to series, le's value
 * to le.  Returns the end, or NULL. */
static const char *prom_labels(const char *p, char *series, char *le)
{
    series[0] = le[0] = '\0';
    if (*p != '{') {
        return p;
    }
    for (p++; *p != '}'; ) {
        size_t n = prom_name(p, 0), k = 0;
        char val[256], key[64];
        const char *v;

        if (n == 0 || n >= sizeof(key) || p[n] != '=' || p[n + 1] != '"') {
            return NULL;
        }
        memcpy(key, p, n);
        key[n] = '\0';
        for (v = p + n + 2; *v != '"'; v++) {
            if (*v == '\0' || k + 2 >= sizeof(val)) {
                return NULL;
            }
            if (*v == '\\' && (v[1] == '\\' || v[1] == '"' || v[1] == 'n')) {
                val[k++] = *v++;
            }
            else if (*v == '\\') {
                return NULL;
            }
            else if (pis_utf8_len((const unsigned char *)v) == 0) {
                return NULL;
            }
            else {
                size_t u = pis_utf8_len((const unsigned char *)v);

                if (k + u + 1 >= sizeof(val)) {
                    return NULL;
                }
                while (u-- > 1) {
                    val[k++] = *v++;
                }
            }
            val[k++] = *v;
        }
        val[k] = '\0';
        if (strcmp(key, "le") == 0) {
            strcpy(le, val);
        }
        else if (strlen(series) + n + k + 4 < 512) {
            strcat(strcat(strcat(series, key), "="), val);
            strcat(series, ",");
        }
        p = v + 1;
        if (*p == ',') {
            p++;
        }
        else if (*p != '}') {
            return NULL;
        }
    }
    return p + 1;
}

static int prom_comment(prom_state *st, const char *line)
{
    size_t n;
    unsigned i;
    const char *name = line + 7;

    if (strncmp(line, "# HELP ", 7) == 0) {
        n = prom_name(name, 1);
        return n > 0 && name[n] == ' ';
    }
    if (strncmp(line, "# TYPE ", 7) != 0) {
        return 1;                  /* another comment */
    }
    n = prom_name(name, 1);
    if (n == 0 || n >= sizeof(st->family) || name[n] != ' ') {
        return 0;
    }
    for (i = 0; i < st->nseen; i++) {
        if (strncmp(st->seen[i], name, n) == 0 && st->seen[i][n] == '\0') {
            return 0;              /* a second TYPE: not contiguous */
        }
    }
    memcpy(st->family, name, n);
    st->family[n] = '\0';
    strcpy(st->seen[st->nseen < 63 ? st->nseen++ : 63], st->family);
    snprintf(st->type, sizeof(st->type), "%s", name + n + 1);
    st->series[0] = '\0';
    return strcmp(st->type, "counter") == 0 || !strcmp(st->type, "gauge")
           || !strcmp(st->type, "histogram");
}

/* A histogram sample: suffix is "_bucket", "_sum" or "_count". */
static int prom_hist(prom_state *st, const char *suffix, const char *series,
                     const char *le, double v)
{
    double edge;

    if (strcmp(suffix, "_bucket") == 0) {
        if (strcmp(series, st->series) != 0) {
            snprintf(st->series, sizeof(st->series), "%s", series);
            st->last_le = -INFINITY;
            st->last_count = 0;
            st->has_inf = 0;
        }
        if (!prom_float(le, &edge) || edge <= st->last_le
            || v < (double)st->last_count || st->has_inf) {
            return 0;
        }
        st->last_le = edge;
        st->last_count = (uint64_t)v;
        st->has_inf = isinf(edge);
        st->inf = v;
        return 1;
    }
    if (strcmp(series, st->series) != 0 || !st->has_inf || le[0]) {
        return 0;
    }
    return strcmp(suffix, "_count") != 0 || v == st->inf;
}

static int prom_sample(prom_state *st, const char *line)
{
    char series[512], le[256];
    size_t n = prom_name(line, 1), fl = strlen(st->family);
    const char *p;
    double v;

    if (n == 0 || !st->family[0] || strncmp(line, st->family, fl) != 0) {
        return 0;
    }
    if ((p = prom_labels(line + n, series, le)) == NULL || *p++ != ' '
        || !prom_float(p, &v)) {
        return 0;
    }
    if (strcmp(st->type, "histogram") == 0) {
        char suffix[16];

        snprintf(suffix, sizeof(suffix), "%.*s", (int)(n - fl), line + fl);
        return prom_hist(st, suffix, series, le, v);
    }
    return n == fl && !le[0] && isfinite(v);
}

/* 0 when every line is well-formed, else the 1-based bad line. */
static int prom_check(const char *doc)
{
    static prom_state st;
    char line[2048];
    int no = 0;

    memset(&st, 0, sizeof(st));
    while (*doc) {
        const char *nl = strchr(doc, '\n');
        size_t n = nl ? (size_t)(nl - doc) : strlen(doc);

        no++;
        if (nl == NULL || n >= sizeof(line)) {
            return no;
        }
        memcpy(line, doc, n);
        line[n] = '\0';
        if (line[0] == '#' ? !prom_comment(&st, line)
                           : !prom_sample(&st, line)) {
            fprintf(stderr, "prometheus line %d: %s\n", no, line);
            return no;
        }
        doc = nl + 1;
    }
    return 0;
}

static void prom_checker(void)
{
    CHECK_INT(prom_check("# HELP a_total x\n# TYPE a_total counter\n"
                         "a_total{b=\"q\\\"\\n\\\\\"} 1\n"), 0);
    CHECK_INT(prom_check("# TYPE a gauge\na 1\n# TYPE a gauge\n"), 3);
    CHECK_INT(prom_check("# TYPE a gauge\nb 1\n"), 2);
    CHECK_INT(prom_check("# TYPE a gauge\na{b=\"x\ty\\z\"} 1\n"), 2);
    CHECK_INT(prom_check("# TYPE a gauge\na NaN\n"), 2);
    CHECK_INT(prom_check("# TYPE a gauge\na 1"), 2);
    CHECK_INT(prom_check("# TYPE h histogram\nh_bucket{le=\"1\"} 2\n"
                         "h_bucket{le=\"+Inf\"} 1\n"), 3);
    CHECK_INT(prom_check("# TYPE h histogram\nh_bucket{le=\"1\"} 2\n"
                         "h_bucket{le=\"+Inf\"} 3\nh_count 2\n"), 4);
    CHECK_INT(prom_check("# TYPE h histogram\nh_bucket{le=\"1\"} 2\n"
                         "h_bucket{le=\"+Inf\"} 3\nh_sum 0.5\n"
                         "h_count 3\n"), 0);
}

/* For golden comparison: runs of 3 or more equal comma-separated
 * tokens ("0,0,0", "null,null,null") become "0*3", so a 300-s history
 * fits the golden text.  The runs themselves are checked elsewhere. */
static void squash(const char *in, big_buf *out)
{
    const char *start = in;
    static const char tok_chars[] = "0123456789.-abcdefghijklmnopqrstuvwxyz";

    out->len = 0;
    big_emit(out, "", 0);
    while (*in) {
        size_t n = strspn(in, tok_chars), reps = 1;
        const char *p = in + n;

        while (n > 0 && *p == ',' && strncmp(p + 1, in, n) == 0
               && !strchr(tok_chars, p[1 + n])) {
            reps++;
            p += 1 + n;
        }
        if (n > 0 && reps >= 3 && in > start
            && (in[-1] == '[' || in[-1] == ',')) {
            char buf[24];

            big_emit(out, in, n);
            snprintf(buf, sizeof(buf), "*%u", (unsigned)reps);
            big_emit(out, buf, strlen(buf));
            in = p;
            continue;
        }
        big_emit(out, in, n ? n : 1);
        in += n ? n : 1;
    }
}

typedef void (*render_fn)(pis_out *o, const pis_snap *s);

static void html_10(pis_out *o, const pis_snap *s)
{
    pis_render_snap_html(o, s, 10);
}

/* Renders into b (reset first); PIS_GOLDEN_DIR=dir also writes the
 * squashed output to dir/name, to refresh test_render_golden.c. */
static void render(render_fn fn, big_buf *b, const char *name)
{
    pis_out o = { big_emit, b };
    const char *dir = getenv("PIS_GOLDEN_DIR");

    b->len = 0;
    big_emit(b, "", 0);
    fn(&o, fixture());
    if (dir != NULL) {
        big_buf sq = { NULL, 0, 0 };
        char path[512];
        FILE *f;

        squash(b->data, &sq);
        if (getenv("PIS_GOLDEN_RAW") != NULL) {
            sq.len = 0;
            big_emit(&sq, b->data, b->len);
        }
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        if ((f = fopen(path, "w")) != NULL) {
            fputs(sq.data, f);
            fclose(f);
        }
        free(sq.data);
    }
}

static void golden(const char *got, const char *want, const char *what)
{
    big_buf sq = { NULL, 0, 0 };
    size_t i = 0;

    squash(got, &sq);
    while (sq.data[i] && sq.data[i] == want[i]) {
        i++;
    }
    if (sq.data[i] != want[i]) {
        fprintf(stderr, "golden %s differs at byte %u: got \"%.60s\", "
                "want \"%.60s\"\n", what, (unsigned)i, sq.data + i,
                want + i);
    }
    CHECK(sq.data[i] == want[i]);
    free(sq.data);
}

/* No line of ?auto may come from inside a value. */
static void snap_auto(void)
{
    static big_buf b;
    const char *p;
    int lines = 0;

    render(pis_render_snap_auto, &b, "auto.txt");
    golden(b.data, pis_golden_auto, "auto");
    CHECK(strncmp(b.data, "Node: master\nTemperatureC: 51.2\n", 32) == 0);
    for (p = b.data; *p; p = strchr(p, '\n') + 1) {
        const char *colon = strstr(p, ": "), *nl = strchr(p, '\n');

        lines++;
        CHECK(nl != NULL && colon != NULL && colon < nl);
        if (nl == NULL) {
            break;
        }
    }
    CHECK(lines > 100);
    CHECK(strstr(b.data, "Injected") && !strstr(b.data, "\nInjected"));
    CHECK(strstr(b.data, "ProxyBalancer[1]Worker[0]P50ms: unknown\n"));
    CHECK(strstr(b.data, "ProxyBalancer[1]Worker[0]Rate1s: unknown\n"));
    /* What decides the fate: pi's balancer only. */
    CHECK(strstr(b.data, "ProxyBalancer[0]ThermalSoftC: 55.0\n"));
    CHECK(strstr(b.data, "ProxyBalancer[0]ReadmitBelowC: 54.7\n"));
    CHECK(strstr(b.data, "ProxyBalancer[0]DeflateLevelNow: 1\n"));
    CHECK(!strstr(b.data, "ProxyBalancer[1]ThermalSoftC"));
    CHECK(strstr(b.data, "\nDeflateAdaptiveState: reduced\n"));
    CHECK(strstr(b.data, "ProxyBalancer[0]Worker[0]Fate: warm\n"));
}

/* Counts the entries of the JSON array after `key` (numbers or null). */
static int json_array_len(const char *doc, const char *key)
{
    const char *p = strstr(doc, key);
    int n = 1;

    if (p == NULL || (p = strchr(p, '[')) == NULL) {
        return -1;
    }
    for (p++; *p != ']'; p++) {
        if (*p == ',') {
            n++;
        }
    }
    return n;
}

static void snap_json(void)
{
    static big_buf b;
    const char *p;
    int arrays = 0;

    render(pis_render_snap_json, &b, "json.txt");
    golden(b.data, pis_golden_json, "json");
    CHECK(json_valid(b.data));
    CHECK(!strstr(b.data, ":nan") && !strstr(b.data, ":-nan")
          && !strstr(b.data, ":inf") && !strstr(b.data, ":-inf"));
    CHECK(strstr(b.data, "\"<script>alert(1)</script>\\\"'\\n\\\\"
                         "\\ufffd\\ufffd\"") != NULL);
    CHECK(strstr(b.data, "\"garbage: <x>\\r\\nInjected: 1\"") != NULL);
    CHECK(strstr(b.data, "{\"le\":\"+Inf\",\"count\":3}") != NULL);
    CHECK(strstr(b.data, "\"settings\":{\"soft_limit_c\":55,"
                         "\"hard_limit_c\":58,\"readmit_below_c\":54.7")
          != NULL);
    CHECK(strstr(b.data, "\"deflate_adaptive\":{\"enabled\":true,"
                         "\"state\":\"reduced\",\"changes\":2}") != NULL);
    CHECK(strstr(b.data, "\"fate\":\"warm\"") != NULL);
    CHECK(strstr(b.data, "\"events\":[\n  {\"time\":1699999990.5,"
                         "\"event\":\"re-admitted\",\"balancer\":"
                         "\"balancer://pis\"") != NULL);
    for (p = b.data; (p = strstr(p, "\"requests\":[")) != NULL; p++) {
        CHECK_INT(json_array_len(p, "\"requests\":["), PIS_HISTORY_S);
        CHECK_INT(json_array_len(p, "\"temperature_c\":["), PIS_HISTORY_S);
        arrays++;
    }
    CHECK_INT(arrays, 3);
}

/* Lines that carry a node="..." label but are not pistats_node_info: the
 * name a node gives itself may change, so no other series has it. */
static int node_label_outside_info(const char *doc)
{
    const char *line = doc;
    int bad = 0;

    while (*line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *hit = strstr(line, "node=\"");

        if (line[0] != '#' && hit != NULL && hit < line + len
            && (hit[-1] == '{' || hit[-1] == ',')
            && strncmp(line, "pistats_node_info{", 18) != 0) {
            bad++;
        }
        line += len + (end ? 1 : 0);
    }
    return bad;
}

static void snap_prom(void)
{
    static big_buf b;

    render(pis_render_snap_prometheus, &b, "prom.txt");
    golden(b.data, pis_golden_prom, "prometheus");
    CHECK_INT(prom_check(b.data), 0);
    CHECK(strstr(b.data, "NaN") == NULL);
    CHECK(strstr(b.data, "node=\"<script>alert(1)</script>\\\"'\\n\\\\"
                         "\xef\xbf\xbd\xef\xbf\xbd\"") != NULL);
    CHECK(strstr(b.data, "pistats_node_temperature_celsius 51.2\n")
          != NULL);
    CHECK(strstr(b.data, "pistats_node_info{node=\"master\"} 1\n")
          != NULL);
    CHECK_INT(node_label_outside_info(b.data), 0);
    CHECK(strstr(b.data, "le=\"0.002154\"") != NULL);
    CHECK(strstr(b.data, "member=\"ajp://10.0.0.13:8009\",window=\"1s\"")
          == NULL);
    CHECK(strstr(b.data, "pistats_member_thermal_state{balancer=\"balancer"
                         "://pis\",member=\"http://10.0.0.11:8080\","
                         "state=\"warm\"} 1\n") != NULL);
    CHECK(strstr(b.data, "pistats_balancer_thermal_limit_celsius{balancer="
                         "\"balancer://pis\",limit=\"readmit\"} 54.7\n")
          != NULL);
    CHECK(strstr(b.data, "balancer://tomcat\",limit") == NULL);
    CHECK(strstr(b.data, "pistats_deflate_adaptive_state{state=\"reduced\"}"
                         " 1\n") != NULL);
    CHECK(strstr(b.data, "pistats_balancer_deflate_level{balancer=\"balancer"
                         "://pis\",level=\"now\"} 1\n") != NULL);
}

/* Series keys ("name{labels}") that occur twice in an exposition. */
static int prom_duplicates(const char *text)
{
    const char *a, *b;
    int dup = 0;

    for (a = text; *a; a = strchr(a, '\n') ? strchr(a, '\n') + 1 : "") {
        size_t la = strcspn(a, " \n");

        if (*a == '#' || la == 0) {
            continue;
        }
        for (b = strchr(a, '\n'); b != NULL && *++b;
             b = strchr(b, '\n')) {
            if (*b != '#' && strcspn(b, " \n") == la
                && strncmp(a, b, la) == 0) {
                dup++;
            }
        }
    }
    return dup;
}

/* A virtual host's own balancer with the main server's name (and the
 * same member URL): told apart by a vhost label, never the same series
 * twice; names shown once get no vhost label. */
static void snap_prom_twins(void)
{
    static big_buf b;
    pis_out o = { big_emit, &b };
    pis_snap s = *fixture();
    pis_balancer_snap twins[2];

    twins[0] = s.balancers[0];
    twins[1] = s.balancers[0];
    twins[1].vhost = "vhost.example:80";
    s.balancers = twins;
    b.len = 0;
    big_emit(&b, "", 0);
    pis_render_snap_prometheus(&o, &s);
    CHECK(prom_duplicates(b.data) > 0);      /* what it was */
    pis_snap_mark_shared(&s);
    CHECK(twins[0].name_shared && twins[1].name_shared);
    b.len = 0;
    big_emit(&b, "", 0);
    pis_render_snap_prometheus(&o, &s);
    CHECK_INT(prom_duplicates(b.data), 0);
    CHECK_INT(prom_check(b.data), 0);
    CHECK(strstr(b.data, ",vhost=\"vhost.example:80\"") != NULL);
    CHECK(strstr(b.data, ",vhost=\"master.example:80\"") != NULL);
    s = *fixture();
    pis_snap_mark_shared(&s);
    CHECK(!s.balancers[0].name_shared && !s.balancers[1].name_shared);
}

static void snap_html(void)
{
    static big_buf b;
    const char *p;
    int svgs = 0;

    render(html_10, &b, "html.txt");
    golden(b.data, pis_golden_html, "html");
    CHECK(strstr(b.data, "<script") == NULL);
    CHECK(strstr(b.data, "&lt;script&gt;alert(1)&lt;/script&gt;"
                         "&quot;&#39;") != NULL);
    CHECK(strstr(b.data, "<b>") == NULL);
    CHECK(strstr(b.data, "content=\"10\"") != NULL);
    CHECK(strstr(b.data, "class=\"st-stale\"") != NULL);
    /* One colour rule: the warm member's temperature is warm, not green,
     * whatever 70 C says; the member in error is failed. */
    CHECK(strstr(b.data, "<tbody class=\"m st-warm\">") != NULL);
    CHECK(strstr(b.data, "class=\"st-warm\">72.3 ") != NULL);
    CHECK(strstr(b.data, "<span class=\"st st-warm\">warm</span>")
          != NULL);
    CHECK(strstr(b.data, "<span class=\"st st-failed\">failed "
                         "(drained)</span>") != NULL);
    CHECK(strstr(b.data, "@media (max-width:820px)") != NULL);
    CHECK(strstr(b.data, "sev-") == NULL);
    CHECK(strstr(b.data, "Weight falls above <strong>55.0 \xc2\xb0" "C</strong>")
          != NULL);
    CHECK(strstr(b.data, "re-admitted below <strong>54.7 \xc2\xb0" "C</strong>")
          != NULL);
    CHECK(strstr(b.data, "offload level 6, now 1") != NULL);
    /* Recent events, newest first, with times. */
    p = strstr(b.data, "<h2 id=\"events\">");
    CHECK(p != NULL && strstr(p, "re-admitted") != NULL
          && strstr(p, "re-admitted") < strstr(p, ">drained<"));
    CHECK(strstr(b.data, "<td data-l=\"Time\" class=\"l\">22:13:10 UTC"
                         "</td><td data-l=\"Ago\">10 s ago</td>") != NULL);
    CHECK(strstr(b.data, "http://") == strstr(b.data, "http://10.0.0.11"));
    for (p = b.data; (p = strstr(p, "<svg")) != NULL; p++) {
        svgs++;
    }
    CHECK_INT(svgs, 3);                  /* one chart a member */
    /* The hostile member: drained since its event at -100 s (index 200
     * of 300, x 437.3) to now; the healthy one re-admitted at -10 s with
     * no drain inside the window: drained from the window's start. */
    CHECK(strstr(b.data, "<rect class=\"drained\" x=\"437.3\" y=\"10\" "
                         "width=\"194.7\" height=\"100\">") != NULL);
    CHECK(strstr(b.data, "<rect class=\"drained\" x=\"48.0\" y=\"10\" "
                         "width=\"564.5\" height=\"100\">") != NULL);
    /* pi's limits drawn and labelled; both axes and the time labelled. */
    CHECK(strstr(b.data, "<line class=\"soft\"") != NULL);
    CHECK(strstr(b.data, ">re-admit below 54.7 \xc2\xb0" "C</text>") != NULL);
    CHECK(strstr(b.data, ">hard: drained above 58.0 \xc2\xb0" "C</text>")
          != NULL);
    CHECK(strstr(b.data, ">\xe2\x88\x92" "5 min</text>") != NULL);
    CHECK(strstr(b.data, ">req/s</text>") != NULL);
    CHECK(strstr(b.data, "<polyline class=\"temp\" points=\"") != NULL);
    CHECK(strstr(b.data, "<polygon class=\"rate\" points=\"") != NULL);
}

void test_render_snap(void)
{
    json_checker();
    prom_checker();
    snap_auto();
    snap_json();
    snap_prom();
    snap_prom_twins();
    snap_html();
}
