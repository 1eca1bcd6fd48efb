/* pis_render_prom.c -- a master's /pi-status?prometheus (see
 * pis_render.h): Prometheus text exposition format 0.0.4.
 *
 * Families, each written once and contiguously (HELP, TYPE, samples):
 *
 *   family                                 | type      | labels
 *   ---------------------------------------+-----------+----------------
 *   pistats_member_requests_total          | counter   | member
 *   pistats_member_http_responses_total    | counter   | member, code
 *   pistats_member_proxy_errors_total      | counter   | member
 *   pistats_member_client_errors_total     | counter   | member
 *   pistats_member_received_bytes_total    | counter   | member
 *   pistats_member_sent_bytes_total        | counter   | member
 *   pistats_member_inflight_requests       | gauge     | member
 *   pistats_member_request_rate            | gauge     | member, window
 *   pistats_member_response_time_seconds   | histogram | member, le
 *   pistats_member_response_time_percentile_seconds
 *                                          | gauge     | member, percentile
 *   pistats_member_response_time_ewma_seconds  gauge   | member
 *   pistats_member_lbfactor, _weight, _estimate_seconds, _usable
 *                                          | gauge     | member
 *   pistats_member_thermal_state           | gauge     | member, state
 *   pistats_member_telemetry_age_seconds, _stale gauge | member
 *   pistats_member_power_watts             | gauge     | member
 *   pistats_member_energy_joules_total     | counter   | member
 *   pistats_node_info                      | gauge     | [member,] node
 *   pistats_node_temperature_celsius, _throttled_flags, _throttled,
 *   _load1, _cpus, _memory_available_bytes, _uptime_seconds
 *                                          | gauge     | [member]
 *   pistats_node_power_watts               | gauge     | - (this server)
 *   pistats_server_uptime_seconds          | gauge     | -
 *   pistats_deflate_responses_total        | counter   | codec
 *   pistats_deflate_trickled_total, _compressor_waits_total
 *                                          | counter   | -
 *   pistats_deflate_coding_responses_total, _coding_in_bytes_total,
 *   _coding_out_bytes_total                | counter   | coding
 *   pistats_balancer_thermal_limit_celsius | gauge     | balancer, limit
 *   pistats_balancer_thermal_floor, _throttle_factor,
 *   _slow_start_seconds                    | gauge     | balancer
 *   pistats_balancer_deflate_level         | gauge     | balancer, level
 *   pistats_deflate_adaptive_state         | gauge     | state
 *   pistats_deflate_adaptive_changes_total | counter   | -
 *
 * "member" is balancer="balancer://x",member="http://..." (the scope and
 * server labels of HAProxy's exporter, the balancer/worker pair of
 * apache_exporter).  The name a node gives itself is no label of any
 * other series: it may change, and a series' labels must not (a renamed
 * node would split its _total series); pistats_node_info{...,node} 1
 * carries it, to join on.  pistats_node_* without labels is this server
 * itself.  A sample whose value is unknown is left out, never written
 * as 0.
 *
 * The histogram exports every 8th bucket edge of pis_hist (1 ms, 2.154,
 * 4.642, 10 ms ... 100 s): 3 per decade.  Those are real bucket edges,
 * so the cumulative counts are exact; _count and le="+Inf" are the sum
 * of all buckets, so they agree whatever races the snapshot had.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pis_render.h"

#define PIS_PROM_FIRST_EDGE 24     /* bucket whose upper edge is 1 ms */
#define PIS_PROM_EDGE_STEP  8      /* 24 per decade / 8 = 3 per decade */

typedef struct {
    int known;
    int is_int;
    uint64_t u;
    double d;
} pis_pval;

typedef void (*pis_member_get)(const pis_member_snap *m, unsigned i,
                               pis_pval *v);
typedef void (*pis_tel_get)(const pis_telemetry *t, pis_pval *v);

typedef struct {
    const char *name, *type, *help;
    const char *xlabel;            /* one more label, or NULL */
    const char *const *xvals;      /* its values, xn of them */
    unsigned xn;
    pis_member_get mget;           /* a member's value ... */
    pis_tel_get tget;              /* ... or a node's (self and members) */
} pis_family;

static void set_u(pis_pval *v, uint64_t u)
{
    v->known = 1;
    v->is_int = 1;
    v->u = u;
}

/* Known when finite and, if `nonneg`, not negative (no sample). */
static void set_d(pis_pval *v, double d, int nonneg)
{
    v->known = isfinite(d) && (!nonneg || d >= 0);
    v->is_int = 0;
    v->d = d;
}

/* Member getters: i picks the value of the extra label. */
static void get_requests(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    (void)i;
    set_u(v, m->requests);
}

static void get_class(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    set_u(v, m->status_class[i]);
}

static void get_perr(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    (void)i;
    set_u(v, m->proxy_errors);
}

static void get_cerr(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    (void)i;
    set_u(v, m->client_errors);
}

static void get_bin(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    (void)i;
    set_u(v, m->bytes_in);
}

static void get_bout(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    (void)i;
    set_u(v, m->bytes_out);
}

static void get_inflight(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    (void)i;
    set_u(v, m->inflight);
}

static void get_rate(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    set_d(v, i == 0 ? m->rate1 : i == 1 ? m->rate10 : m->rate60, 1);
}

static void get_pct(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    double us = i == 0 ? m->p50_us : i == 1 ? m->p95_us : m->p99_us;

    set_d(v, us, 1);
    v->d = us / 1e6;
}

static void get_ewma(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    (void)i;
    set_d(v, m->ewma_us, 1);
    v->d = m->ewma_us / 1e6;
}

static void get_lbf(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    (void)i;
    set_d(v, m->lbfactor / 100.0, 0);
}

static void get_estimate(const pis_member_snap *m, unsigned i,
                         pis_pval *v)
{
    (void)i;
    set_d(v, m->estimate_us / 1e6, 1);
    v->known = v->known && m->has_weight;
}

static void get_weight(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    (void)i;
    set_d(v, m->weight, 1);
    v->known = v->known && m->has_weight;
}

static const char *const pis_tstates[] = { "ok", "ramping", "warm",
                                           "throttled", "drained", "stale",
                                           "silent" };

/* 1 for the state lbmethod "pi" gives the member, 0 for the others. */
static void get_tstate(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    set_u(v, m->thermal_state != NULL
             && strcmp(m->thermal_state, pis_tstates[i]) == 0);
    v->known = m->has_weight;
}

static void get_usable(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    (void)i;
    set_u(v, m->usable ? 1 : 0);
}

static void get_age(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    (void)i;
    set_d(v, m->tel_age_s, 1);
    v->known = v->known && m->probed;
}

static void get_stale(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    (void)i;
    set_u(v, m->tel_stale ? 1 : 0);
    v->known = m->probed;
}

/* The node's PowerW as the probe last read it. */
static void get_power(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    (void)i;
    set_d(v, m->tel.power_mw / 1000.0, 1);
    v->known = m->tel.has_power;
}

/* The integral of that power (pis_energy.h); from a node with a power
 * sensor, 0 until the second reading. */
static void get_energy(const pis_member_snap *m, unsigned i, pis_pval *v)
{
    (void)i;
    set_d(v, m->energy_j, 1);
    v->known = v->known && (m->has_energy || m->tel.power_sensor);
}

/* Telemetry getters. */
static void get_temp(const pis_telemetry *t, pis_pval *v)
{
    set_d(v, t->temp_dc / 10.0, 0);
    v->known = t->has_temp;
}

static void get_tbits(const pis_telemetry *t, pis_pval *v)
{
    set_u(v, t->throttled);
    v->known = t->has_throttled;
}

/* 0x2 "ARM frequency capped now", 0x4 "throttled now". */
static void get_tnow(const pis_telemetry *t, pis_pval *v)
{
    set_u(v, (t->throttled & 0x6) ? 1 : 0);
    v->known = t->has_throttled;
}

static void get_load(const pis_telemetry *t, pis_pval *v)
{
    set_d(v, t->load1_c / 100.0, 0);
    v->known = t->has_load;
}

static void get_cpus(const pis_telemetry *t, pis_pval *v)
{
    set_d(v, (double)t->cpus, 0);
    v->known = t->has_cpus;
}

static void get_mem(const pis_telemetry *t, pis_pval *v)
{
    set_u(v, (uint64_t)t->mem_kb * 1024);
    v->known = t->has_mem;
}

static void get_up(const pis_telemetry *t, pis_pval *v)
{
    set_u(v, t->uptime_s);
    v->known = t->has_uptime;
}

static const char *const pis_classes[] = { "1xx", "2xx", "3xx", "4xx",
                                           "5xx" };
static const char *const pis_windows[] = { "1s", "10s", "60s" };
static const char *const pis_pcts[] = { "50", "95", "99" };

/* Before the histogram. */
static const pis_family pis_traffic[] = {
    { "pistats_member_requests_total", "counter",
      "Requests the member finished.", NULL, NULL, 1, get_requests, NULL },
    { "pistats_member_http_responses_total", "counter",
      "Responses from the member by status class.",
      "code", pis_classes, 5, get_class, NULL },
    { "pistats_member_proxy_errors_total", "counter",
      "502, 503 and 504 responses made by the proxy itself.",
      NULL, NULL, 1, get_perr, NULL },
    { "pistats_member_client_errors_total", "counter",
      "Requests the client broke (aborted, garbled or stalled body).",
      NULL, NULL, 1, get_cerr, NULL },
    { "pistats_member_received_bytes_total", "counter",
      "Body bytes received from the member.", NULL, NULL, 1, get_bin, NULL },
    { "pistats_member_sent_bytes_total", "counter",
      "Body bytes sent to clients (after compression).",
      NULL, NULL, 1, get_bout, NULL },
    { "pistats_member_inflight_requests", "gauge",
      "Requests in flight to the member.", NULL, NULL, 1, get_inflight,
      NULL },
    { "pistats_member_request_rate", "gauge",
      "Requests per second over the window.",
      "window", pis_windows, 3, get_rate, NULL },
};

/* After the histogram. */
static const pis_family pis_state[] = {
    { "pistats_member_response_time_percentile_seconds", "gauge",
      "Response time percentile over the last minute.",
      "percentile", pis_pcts, 3, get_pct, NULL },
    { "pistats_member_response_time_ewma_seconds", "gauge",
      "Moving average (EWMA) of the response time.",
      NULL, NULL, 1, get_ewma, NULL },
    { "pistats_member_lbfactor", "gauge",
      "Configured loadfactor.", NULL, NULL, 1, get_lbf, NULL },
    { "pistats_member_weight", "gauge",
      "Effective weight given by mod_pibalance, loadfactor units.",
      NULL, NULL, 1, get_weight, NULL },
    { "pistats_member_estimate_seconds", "gauge",
      "Response-time estimate lbmethod pi picks by.",
      NULL, NULL, 1, get_estimate, NULL },
    { "pistats_member_thermal_state", "gauge",
      "1 for the state lbmethod pi gives the member, 0 for the others.",
      "state", pis_tstates, 7, get_tstate, NULL },
    { "pistats_member_usable", "gauge",
      "1 when mod_proxy may send requests to the member.",
      NULL, NULL, 1, get_usable, NULL },
    { "pistats_member_telemetry_age_seconds", "gauge",
      "Age of the member's node telemetry.", NULL, NULL, 1, get_age, NULL },
    { "pistats_member_telemetry_stale", "gauge",
      "1 when the node telemetry is older than three probe intervals.",
      NULL, NULL, 1, get_stale, NULL },
    { "pistats_member_power_watts", "gauge",
      "Power the member's node reports (PowerW), last reading.",
      NULL, NULL, 1, get_power, NULL },
    { "pistats_member_energy_joules_total", "counter",
      "Energy of the member's node: the integral over time of its probed "
      "power.", NULL, NULL, 1, get_energy, NULL },
    { "pistats_node_temperature_celsius", "gauge",
      "Hottest thermal zone of the node.", NULL, NULL, 1, NULL, get_temp },
    { "pistats_node_throttled_flags", "gauge",
      "Firmware throttle bits (get_throttled).",
      NULL, NULL, 1, NULL, get_tbits },
    { "pistats_node_throttled", "gauge",
      "1 when the node is frequency capped or throttled now (bits 0x6).",
      NULL, NULL, 1, NULL, get_tnow },
    { "pistats_node_load1", "gauge",
      "Load average over 1 minute.", NULL, NULL, 1, NULL, get_load },
    { "pistats_node_cpus", "gauge",
      "CPUs of the node.", NULL, NULL, 1, NULL, get_cpus },
    { "pistats_node_memory_available_bytes", "gauge",
      "Memory available on the node.", NULL, NULL, 1, NULL, get_mem },
    { "pistats_node_uptime_seconds", "gauge",
      "Uptime of the node.", NULL, NULL, 1, NULL, get_up },
};

#define PIS_NELTS(a) (sizeof(a) / sizeof((a)[0]))

static void header(pis_out *o, const char *name, const char *type,
                   const char *help)
{
    pis_putf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void label(pis_out *o, int *n, const char *k, const char *v)
{
    pis_put(o, *n ? "," : "{");
    pis_put(o, k);
    pis_put(o, "=\"");
    pis_put_label(o, v);
    pis_put(o, "\"");
    (*n)++;
}

/* "{balancer=..,member=..[,vhost=..],xk=xv}"; b == NULL: the server
 * itself; vhost only where two balancers shown share a name. */
static void labels(pis_out *o, const pis_balancer_snap *b,
                   const pis_member_snap *m, const char *xk, const char *xv)
{
    int n = 0;

    if (b != NULL) {
        label(o, &n, "balancer", b->name ? b->name : "");
        label(o, &n, "member", m->name ? m->name : "");
        if (b->name_shared) {
            label(o, &n, "vhost", b->vhost ? b->vhost : "");
        }
    }
    if (xk != NULL) {
        label(o, &n, xk, xv);
    }
    pis_put(o, n ? "} " : " ");
}

static void value(pis_out *o, const pis_pval *v)
{
    char buf[40];

    if (v->is_int) {
        pis_putf(o, "%" PRIu64 "\n", v->u);
        return;
    }
    pis_fmt_double(buf, sizeof(buf), v->d);
    pis_put(o, buf);
    pis_put(o, "\n");
}

static void sample(pis_out *o, const pis_family *f, const pis_pval *v,
                   const pis_balancer_snap *b, const pis_member_snap *m,
                   unsigned i)
{
    if (!v->known) {
        return;
    }
    pis_put(o, f->name);
    labels(o, b, m, f->xlabel, f->xlabel ? f->xvals[i] : NULL);
    value(o, v);
}

static void member_samples(pis_out *o, const pis_family *f,
                           const pis_balancer_snap *b,
                           const pis_member_snap *m)
{
    pis_pval v = { 0, 0, 0, 0 };
    unsigned i;

    for (i = 0; i < f->xn; i++) {
        if (f->mget != NULL) {
            f->mget(m, i, &v);
        }
        else {
            f->tget(&m->tel, &v);
        }
        sample(o, f, &v, b, m, i);
    }
}

static void families(pis_out *o, const pis_snap *s, const pis_family *f,
                     size_t n)
{
    pis_pval v = { 0, 0, 0, 0 };
    unsigned i, j;

    for (; n > 0; n--, f++) {
        header(o, f->name, f->type, f->help);
        if (f->tget != NULL) {
            f->tget(&s->self, &v);
            sample(o, f, &v, NULL, NULL, 0);
        }
        for (i = 0; i < s->nbalancers; i++) {
            const pis_balancer_snap *b = &s->balancers[i];

            for (j = 0; j < b->nmembers; j++) {
                member_samples(o, f, b, &b->members[j]);
            }
        }
    }
}

/* One bucket sample: name_bucket{member,le="edge"} count. */
static void bucket(pis_out *o, const pis_balancer_snap *b,
                   const pis_member_snap *m, const char *le, uint64_t n)
{
    pis_put(o, "pistats_member_response_time_seconds_bucket");
    labels(o, b, m, "le", le);
    pis_putf(o, "%" PRIu64 "\n", n);
}

static void histogram(pis_out *o, const pis_balancer_snap *b,
                      const pis_member_snap *m)
{
    uint64_t cum = 0;
    unsigned k, next = PIS_PROM_FIRST_EDGE;
    pis_pval sum;
    char le[32];

    for (k = 0; k < PIS_HIST_BUCKETS - 1; k++) {
        cum += m->hist[k];
        if (k == next) {
            snprintf(le, sizeof(le), "%.4g", pis_hist_upper_us(k) / 1e6);
            bucket(o, b, m, le, cum);
            next += PIS_PROM_EDGE_STEP;
        }
    }
    cum += m->hist[PIS_HIST_BUCKETS - 1];
    bucket(o, b, m, "+Inf", cum);
    set_d(&sum, m->hist_sum_us / 1e6, 1);
    if (!sum.known) {
        set_d(&sum, 0, 1);              /* a sum must be there */
    }
    pis_put(o, "pistats_member_response_time_seconds_sum");
    labels(o, b, m, NULL, NULL);
    value(o, &sum);
    pis_put(o, "pistats_member_response_time_seconds_count");
    labels(o, b, m, NULL, NULL);
    pis_putf(o, "%" PRIu64 "\n", cum);
}

static void histograms(pis_out *o, const pis_snap *s)
{
    unsigned i, j;

    header(o, "pistats_member_response_time_seconds", "histogram",
           "Response time of the member (all time).");
    for (i = 0; i < s->nbalancers; i++) {
        const pis_balancer_snap *b = &s->balancers[i];

        for (j = 0; j < b->nmembers; j++) {
            histogram(o, b, &b->members[j]);
        }
    }
}

/* pistats_node_info: the names nodes give themselves (telemetry
 * "Node"), the only series that carries them. */
static void node_info(pis_out *o, const pis_snap *s)
{
    unsigned i, j;

    header(o, "pistats_node_info", "gauge",
           "The name the node gives itself; 1.");
    if (s->self.node[0]) {
        pis_put(o, "pistats_node_info");
        labels(o, NULL, NULL, "node", s->self.node);
        pis_put(o, "1\n");
    }
    for (i = 0; i < s->nbalancers; i++) {
        const pis_balancer_snap *b = &s->balancers[i];

        for (j = 0; j < b->nmembers; j++) {
            const pis_member_snap *m = &b->members[j];

            if (m->tel.node[0]) {
                pis_put(o, "pistats_node_info");
                labels(o, b, m, "node", m->tel.node);
                pis_put(o, "1\n");
            }
        }
    }
}

/* Per coding, as mod_pibalance names them: responses, bytes in and
 * out. */
static void deflate_codings(pis_out *o, const pis_snap *s)
{
    static const struct {
        const char *name, *help;
    } m[3] = {
        { "pistats_deflate_coding_responses_total",
          "Responses the offload compressed, by content coding." },
        { "pistats_deflate_coding_in_bytes_total",
          "Bytes before compression, by content coding." },
        { "pistats_deflate_coding_out_bytes_total",
          "Bytes after compression, by content coding." },
    };
    unsigned i, c;

    for (i = 0; i < 3; i++) {
        header(o, m[i].name, "counter", m[i].help);
        for (c = 0; c < s->ncodings; c++) {
            pis_putf(o, "%s{coding=\"", m[i].name);
            pis_put_label(o, s->coding_name[c]);
            pis_putf(o, "\"} %" PRIu64 "\n", s->deflate_coding[c][i]);
        }
    }
}

/* The offload's counters (mod_pibalance), server-wide. */
static void deflate_counts(pis_out *o, const pis_snap *s)
{
    header(o, "pistats_deflate_responses_total", "counter",
           "Responses the offload compressed: codec libdeflate (one pass, "
           "Content-Length) or zlib (streamed).");
    pis_putf(o, "pistats_deflate_responses_total{codec=\"libdeflate\"} %"
             PRIu64 "\n", s->deflate_one_pass);
    pis_putf(o, "pistats_deflate_responses_total{codec=\"zlib\"} %"
             PRIu64 "\n", s->deflate_streamed);
    header(o, "pistats_deflate_trickled_total", "counter",
           "Held bodies streamed because the node paused inside them.");
    pis_putf(o, "pistats_deflate_trickled_total %" PRIu64 "\n",
             s->deflate_trickled);
    header(o, "pistats_deflate_compressor_waits_total", "counter",
           "Responses that waited for a libdeflate compressor.");
    pis_putf(o, "pistats_deflate_compressor_waits_total %" PRIu64 "\n",
             s->deflate_waits);
    deflate_codings(o, s);
    header(o, "pistats_deflate_cache_hits_total", "counter",
           "Offloaded requests mod_cache served from a stored copy.");
    pis_putf(o, "pistats_deflate_cache_hits_total %" PRIu64 "\n",
             s->cache_hits);
    header(o, "pistats_deflate_cache_misses_total", "counter",
           "Offloaded requests mod_cache did not serve from a stored copy.");
    pis_putf(o, "pistats_deflate_cache_misses_total %" PRIu64 "\n",
             s->cache_misses);
    header(o, "pistats_deflate_cache_revalidated_total", "counter",
           "Stored copies the node's 304 refreshed and mod_cache served.");
    pis_putf(o, "pistats_deflate_cache_revalidated_total %" PRIu64 "\n",
             s->cache_revalidated);
    header(o, "pistats_deflate_cache_saved_bytes_total", "counter",
           "Body bytes served from stored copies: not sent by the node, "
           "not compressed again.");
    pis_putf(o, "pistats_deflate_cache_saved_bytes_total %" PRIu64 "\n",
             s->cache_bytes_saved);
}

/* {balancer="..."[,vhost=".."][,xk="xv"]} for balancer settings. */
static void bal_labels(pis_out *o, const pis_balancer_snap *b,
                       const char *xk, const char *xv)
{
    int n = 0;

    label(o, &n, "balancer", b->name ? b->name : "");
    if (b->name_shared) {
        label(o, &n, "vhost", b->vhost ? b->vhost : "");
    }
    if (xk != NULL) {
        label(o, &n, xk, xv);
    }
    pis_put(o, "} ");
}

static void bal_sample(pis_out *o, const char *name,
                       const pis_balancer_snap *b, const char *xk,
                       const char *xv, double d)
{
    pis_pval v;

    set_d(&v, d, 0);
    if (!v.known) {
        return;
    }
    pis_put(o, name);
    bal_labels(o, b, xk, xv);
    value(o, &v);
}

/* The settings that decide members' fate, per balancer using "pi". */
static void balancer_settings(pis_out *o, const pis_snap *s)
{
    static const struct {
        const char *name, *help;
    } fam[] = {
        { "pistats_balancer_thermal_limit_celsius",
          "PiBalanceThermal limits: soft (weight falls above), hard "
          "(drained above), readmit (a drained member comes back below)." },
        { "pistats_balancer_thermal_floor",
          "Thermal factor at the hard limit." },
        { "pistats_balancer_throttle_factor",
          "Weight factor while the firmware throttles a member." },
        { "pistats_balancer_slow_start_seconds",
          "Seconds a returning member ramps up." },
        { "pistats_balancer_deflate_level",
          "Offload compression level: configured, and now (after "
          "PiBalanceDeflateAdaptive; 0 = not compressing)." },
    };
    unsigned f, i;

    for (f = 0; f < PIS_NELTS(fam); f++) {
        header(o, fam[f].name, "gauge", fam[f].help);
        for (i = 0; i < s->nbalancers; i++) {
            const pis_balancer_snap *b = &s->balancers[i];

            if (!b->has_settings) {
                continue;
            }
            switch (f) {
            case 0:
                bal_sample(o, fam[f].name, b, "limit", "soft",
                           b->soft_dc / 10.0);
                bal_sample(o, fam[f].name, b, "limit", "hard",
                           b->hard_dc / 10.0);
                bal_sample(o, fam[f].name, b, "limit", "readmit",
                           (b->hard_dc - b->hyst_dc) / 10.0);
                break;
            case 1:
                bal_sample(o, fam[f].name, b, NULL, NULL, b->floor);
                break;
            case 2:
                bal_sample(o, fam[f].name, b, NULL, NULL,
                           b->throttle_factor);
                break;
            case 3:
                bal_sample(o, fam[f].name, b, NULL, NULL, b->slowstart_s);
                break;
            default:
                if (b->deflate_on) {
                    bal_sample(o, fam[f].name, b, "level", "configured",
                               b->deflate_level);
                    bal_sample(o, fam[f].name, b, "level", "now",
                               b->deflate_level_now);
                }
            }
        }
    }
}

/* PiBalanceDeflateAdaptive's state, server-wide. */
static void deflate_adaptive(pis_out *o, const pis_snap *s)
{
    static const char *const states[] = { "full", "reduced", "off" };
    unsigned i;

    header(o, "pistats_deflate_adaptive_state", "gauge",
           "1 for the offload's adaptive compression state, 0 for the "
           "others (full when PiBalanceDeflateAdaptive is off).");
    for (i = 0; i < PIS_NELTS(states); i++) {
        pis_putf(o, "pistats_deflate_adaptive_state{state=\"%s\"} %d\n",
                 states[i], s->adaptive_name != NULL
                            && strcmp(s->adaptive_name, states[i]) == 0);
    }
    header(o, "pistats_deflate_adaptive_changes_total", "counter",
           "Changes of the adaptive compression state since start-up.");
    pis_putf(o, "pistats_deflate_adaptive_changes_total %u\n",
             s->adaptive_changes);
}

void pis_render_snap_prometheus(pis_out *o, const pis_snap *snap)
{
    pis_pval self_power;

    families(o, snap, pis_traffic, PIS_NELTS(pis_traffic));
    histograms(o, snap);
    node_info(o, snap);
    families(o, snap, pis_state, PIS_NELTS(pis_state));
    header(o, "pistats_node_power_watts", "gauge",
           "Power this server's own sensor reports (PiStatsPowerSensor).");
    if (snap->self.has_power) {
        pis_put(o, "pistats_node_power_watts ");
        set_d(&self_power, snap->self.power_mw / 1000.0, 1);
        value(o, &self_power);
    }
    header(o, "pistats_server_uptime_seconds", "gauge",
           "Seconds since the server started.");
    pis_putf(o, "pistats_server_uptime_seconds %" PRIu64 "\n",
             snap->uptime_s);
    if (snap->has_deflate_counts) {
        deflate_counts(o, snap);
    }
    balancer_settings(o, snap);
    if (snap->has_adaptive) {
        deflate_adaptive(o, snap);
    }
}
