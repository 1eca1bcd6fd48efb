/* pis_render_json.c -- a master's /pi-status?json (see pis_render.h).
 *
 * One JSON document (RFC 8259) of the whole snapshot:
 *
 *   { "server": {...}, "node": {telemetry},
 *     "balancers": [ { "name", "vhost", "lbmethod",
 *                      "members": [ {...}, ... ] }, ... ] }
 *
 * Unknown values are null, never 0; no number is NaN or infinite (they
 * become null too).  Strings go through pis_put_json, so whatever a node
 * sends stays inside its string and the document stays valid UTF-8.
 * Times are in seconds except the percentiles ("response_time_ms").
 * The histogram lists only non-zero buckets, each with its upper edge in
 * seconds ("+Inf" for the last).  Counters are printed as exact integers;
 * a parser using doubles loses precision past 2^53 only.
 *
 * The writer below tracks commas and indentation so the document
 * functions can be a flat list of keys.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "pis_fate.h"
#include "pis_render.h"

#define PIS_JSON_DEPTH 12          /* this document nests 8 deep */

typedef struct {
    pis_out *o;
    unsigned depth;
    int after_key;                        /* a value completes a key */
    unsigned items[PIS_JSON_DEPTH];       /* written at each level */
    int multiline[PIS_JSON_DEPTH];        /* one item a line */
} pis_jw;

/* Before a value or a key: a comma and a line break as needed. */
static void jw_sep(pis_jw *w)
{
    unsigned i;

    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->items[w->depth]++ > 0) {
        pis_put(w->o, ",");
    }
    if (w->multiline[w->depth]) {
        pis_put(w->o, "\n");
        for (i = 0; i < w->depth; i++) {
            pis_put(w->o, " ");
        }
    }
}

static void jw_open(pis_jw *w, const char *bracket, int multiline)
{
    jw_sep(w);
    pis_put(w->o, bracket);
    if (w->depth + 1 < PIS_JSON_DEPTH) {
        w->depth++;
    }
    w->items[w->depth] = 0;
    w->multiline[w->depth] = multiline;
}

static void jw_close(pis_jw *w, const char *bracket)
{
    unsigned i;

    if (w->multiline[w->depth] && w->items[w->depth] > 0) {
        pis_put(w->o, "\n");
        for (i = 1; i < w->depth; i++) {
            pis_put(w->o, " ");
        }
    }
    if (w->depth > 0) {
        w->depth--;
    }
    pis_put(w->o, bracket);
}

/* The key; a scalar writer then clears after_key, jw_open uses it. */
static void jw_key(pis_jw *w, const char *k)
{
    jw_sep(w);
    pis_put_json(w->o, k);
    pis_put(w->o, ":");
    w->after_key = 1;
}

static void jw_str(pis_jw *w, const char *k, const char *v)
{
    jw_key(w, k);
    w->after_key = 0;
    pis_put_json(w->o, v);
}

static void jw_u64(pis_jw *w, const char *k, uint64_t v)
{
    jw_key(w, k);
    w->after_key = 0;
    pis_putf(w->o, "%" PRIu64, v);
}

static void jw_bool(pis_jw *w, const char *k, int v)
{
    jw_key(w, k);
    w->after_key = 0;
    pis_put(w->o, v ? "true" : "false");
}

/* A number, null when `known` is 0 or v is not finite. */
static void jw_num(pis_jw *w, const char *k, int known, double v)
{
    char buf[40];

    jw_key(w, k);
    w->after_key = 0;
    if (!known) {
        v = NAN;
    }
    pis_fmt_double(buf, sizeof(buf), v);
    pis_put(w->o, buf);
}

static void put_telemetry(pis_jw *w, const char *k, const pis_telemetry *t)
{
    jw_key(w, k);
    jw_open(w, "{", 0);
    jw_str(w, "node", t->node[0] ? t->node : NULL);
    jw_num(w, "temperature_c", t->has_temp, t->temp_dc / 10.0);
    jw_num(w, "throttled", t->has_throttled, (double)t->throttled);
    jw_num(w, "load1", t->has_load, t->load1_c / 100.0);
    jw_num(w, "cpus", t->has_cpus, (double)t->cpus);
    jw_num(w, "mem_available_kb", t->has_mem, (double)t->mem_kb);
    jw_num(w, "uptime_s", t->has_uptime, (double)t->uptime_s);
    jw_num(w, "power_w", t->has_power, t->power_mw / 1000.0);
    jw_close(w, "}");
}

/* "energy": all-time, the idle draw, and the last minute per request. */
static void put_energy(pis_jw *w, const pis_member_snap *m)
{
    jw_key(w, "energy");
    jw_open(w, "{", 0);
    jw_num(w, "joules", m->has_energy, m->energy_j);
    jw_num(w, "idle_w", m->has_idle, m->idle_w);
    jw_key(w, "last_minute");
    jw_open(w, "{", 0);
    jw_u64(w, "seconds", m->energy60_s);
    jw_num(w, "joules", 1, m->energy60_j);
    jw_u64(w, "requests", m->energy60_requests);
    jw_num(w, "joules_per_request", m->has_jpr, m->jpr_j);
    jw_num(w, "joules_per_request_above_idle", m->has_jpr,
           m->jpr_above_idle_j);
    jw_close(w, "}");
    jw_close(w, "}");
}

static void put_traffic(pis_jw *w, const pis_member_snap *m)
{
    static const char *const cls[5] = { "1xx", "2xx", "3xx", "4xx", "5xx" };
    unsigned i;

    jw_u64(w, "inflight", m->inflight);
    jw_u64(w, "requests", m->requests);
    jw_key(w, "responses");
    jw_open(w, "{", 0);
    for (i = 0; i < 5; i++) {
        jw_u64(w, cls[i], m->status_class[i]);
    }
    jw_close(w, "}");
    jw_u64(w, "proxy_errors", m->proxy_errors);
    jw_u64(w, "client_errors", m->client_errors);
    jw_u64(w, "bytes_in", m->bytes_in);
    jw_u64(w, "bytes_out", m->bytes_out);
    jw_key(w, "rate");
    jw_open(w, "{", 0);
    jw_num(w, "1s", m->rate1 >= 0, m->rate1);
    jw_num(w, "10s", m->rate10 >= 0, m->rate10);
    jw_num(w, "60s", m->rate60 >= 0, m->rate60);
    jw_close(w, "}");
}

static void put_latency(pis_jw *w, const pis_member_snap *m)
{
    jw_key(w, "response_time_ms");
    jw_open(w, "{", 0);
    jw_num(w, "p50", m->p50_us >= 0, m->p50_us / 1000);
    jw_num(w, "p95", m->p95_us >= 0, m->p95_us / 1000);
    jw_num(w, "p99", m->p99_us >= 0, m->p99_us / 1000);
    jw_num(w, "ewma", m->ewma_us >= 0, m->ewma_us / 1000);
    jw_close(w, "}");
}

/* Non-zero buckets as {"le": upper edge in s, "count": n}. */
static void put_histogram(pis_jw *w, const pis_member_snap *m)
{
    uint64_t total = 0;
    unsigned b;

    jw_key(w, "histogram");
    jw_open(w, "{", 0);
    jw_key(w, "buckets");
    jw_open(w, "[", 0);
    for (b = 0; b < PIS_HIST_BUCKETS; b++) {
        if (m->hist[b] == 0) {
            continue;
        }
        total += m->hist[b];
        jw_open(w, "{", 0);
        if (b == PIS_HIST_BUCKETS - 1) {
            jw_str(w, "le", "+Inf");
        }
        else {
            jw_num(w, "le", 1, pis_hist_upper_us(b) / 1e6);
        }
        jw_u64(w, "count", m->hist[b]);
        jw_close(w, "}");
    }
    jw_close(w, "]");
    jw_u64(w, "count", total);        /* == the buckets, whatever races */
    jw_num(w, "sum_s", m->hist_sum_us >= 0, m->hist_sum_us / 1e6);
    jw_close(w, "}");
}

/* The 300-s histories, oldest first. */
static void put_history(pis_jw *w, const pis_member_snap *m)
{
    char buf[24];
    unsigned i;

    jw_key(w, "history");
    jw_open(w, "{", 0);
    jw_u64(w, "seconds", PIS_HISTORY_S);
    jw_key(w, "requests");
    jw_open(w, "[", 0);
    for (i = 0; i < PIS_HISTORY_S; i++) {
        jw_sep(w);
        pis_putf(w->o, "%lu", (unsigned long)m->req_hist[i]);
    }
    jw_close(w, "]");
    jw_key(w, "temperature_c");
    jw_open(w, "[", 0);
    for (i = 0; i < PIS_HISTORY_S; i++) {
        jw_sep(w);
        if (m->temp_hist[i] == PIS_TEMP_NONE) {
            pis_put(w->o, "null");
            continue;
        }
        pi_format_dc(m->temp_hist[i], buf, sizeof(buf));
        pis_put(w->o, buf);
    }
    jw_close(w, "]");
    jw_key(w, "power_w");
    jw_open(w, "[", 0);
    for (i = 0; i < PIS_HISTORY_S; i++) {
        jw_sep(w);
        if (m->power_hist[i] == PIS_POWER_NONE) {
            pis_put(w->o, "null");
            continue;
        }
        pi_format_fixed(m->power_hist[i], 3, buf, sizeof(buf));
        pis_put(w->o, buf);
    }
    jw_close(w, "]");
    jw_close(w, "}");
}

static const char *severity_name(pis_severity s)
{
    switch (s) {
    case PIS_SEV_OK: return "ok";
    case PIS_SEV_WARN: return "warn";
    case PIS_SEV_CRIT: return "crit";
    default: return NULL;
    }
}

static void put_member(pis_jw *w, const pis_member_snap *m)
{
    jw_open(w, "{", 1);
    jw_str(w, "name", m->name);
    jw_str(w, "route", m->route);
    jw_str(w, "state", m->state);
    jw_bool(w, "usable", m->usable);
    jw_num(w, "lbfactor", 1, m->lbfactor / 100.0);
    jw_num(w, "weight", m->has_weight, m->weight);
    jw_str(w, "thermal_state", m->has_weight ? m->thermal_state : NULL);
    jw_num(w, "estimate_ms", m->has_weight && m->estimate_us >= 0,
           m->estimate_us / 1000);
    if (m->has_weight) {
        jw_bool(w, "last_attempt_failed", m->last_failed);
    }
    else {
        jw_str(w, "last_attempt_failed", NULL);
    }
    put_traffic(w, m);
    put_latency(w, m);
    put_histogram(w, m);
    jw_bool(w, "probed", m->probed);
    put_telemetry(w, "telemetry", &m->tel);
    jw_num(w, "telemetry_age_s", m->tel_age_s >= 0, m->tel_age_s);
    jw_bool(w, "telemetry_stale", m->tel_stale);
    jw_str(w, "probe_error", m->probe_error);
    jw_str(w, "severity", severity_name(m->severity));
    jw_str(w, "fate", pis_fate_name(pis_fate_of(m)));
    put_energy(w, m);
    put_history(w, m);
    jw_close(w, "}");
}

/* What decides the members' fate (lbmethod "pi" only). */
static void put_settings(pis_jw *w, const pis_balancer_snap *b)
{
    if (!b->has_settings) {
        return;
    }
    jw_key(w, "settings");
    jw_open(w, "{", 0);
    jw_num(w, "soft_limit_c", 1, b->soft_dc / 10.0);
    jw_num(w, "hard_limit_c", 1, b->hard_dc / 10.0);
    jw_num(w, "readmit_below_c", 1, (b->hard_dc - b->hyst_dc) / 10.0);
    jw_num(w, "thermal_floor", 1, b->floor);
    jw_num(w, "throttle_factor", 1, b->throttle_factor);
    jw_num(w, "slow_start_s", 1, b->slowstart_s);
    jw_num(w, "decay_s", 1, b->decay_s);
    jw_bool(w, "deflate", b->deflate_on);
    jw_u64(w, "deflate_level", (uint64_t)(b->deflate_level < 0 ? 0
                                          : b->deflate_level));
    jw_u64(w, "deflate_level_now", (uint64_t)(b->deflate_level_now < 0
                                              ? 0 : b->deflate_level_now));
    jw_close(w, "}");
}

static void put_balancer(pis_jw *w, const pis_balancer_snap *b)
{
    unsigned i;

    jw_open(w, "{", 1);
    jw_str(w, "name", b->name);
    jw_str(w, "vhost", b->vhost);
    jw_str(w, "lbmethod", b->lbmethod);
    put_settings(w, b);
    jw_key(w, "power");
    jw_open(w, "{", 0);
    jw_num(w, "watts", b->power_members > 0, b->power_w);
    jw_u64(w, "members", b->power_members);
    jw_num(w, "joules_per_request", b->has_jpr, b->jpr_j);
    jw_close(w, "}");
    jw_key(w, "members");
    jw_open(w, "[", 1);
    for (i = 0; i < b->nmembers; i++) {
        put_member(w, &b->members[i]);
    }
    jw_close(w, "]");
    jw_close(w, "}");
}

/* "codings":{"gzip":{"responses":N,"bytes_in":N,"bytes_out":N},...} */
static void deflate_codings(pis_jw *w, const pis_snap *s)
{
    unsigned c;

    jw_key(w, "codings");
    jw_open(w, "{", 0);
    for (c = 0; c < s->ncodings; c++) {
        jw_key(w, s->coding_name[c]);
        jw_open(w, "{", 0);
        jw_u64(w, "responses", s->deflate_coding[c][0]);
        jw_u64(w, "bytes_in", s->deflate_coding[c][1]);
        jw_u64(w, "bytes_out", s->deflate_coding[c][2]);
        jw_close(w, "}");
    }
    jw_close(w, "}");
}

static void put_server(pis_jw *w, const pis_snap *s)
{
    jw_key(w, "server");
    jw_open(w, "{", 0);
    jw_str(w, "version", s->server_version);
    jw_num(w, "now", 1, s->now);
    jw_u64(w, "uptime_s", s->uptime_s);
    jw_num(w, "probe_interval_s", s->probe_interval_s > 0,
           s->probe_interval_s);
    jw_str(w, "deflate", s->deflate_state);
    if (s->has_deflate_counts) {
        jw_key(w, "deflate_counts");
        jw_open(w, "{", 0);
        jw_u64(w, "one_pass", s->deflate_one_pass);
        jw_u64(w, "streamed", s->deflate_streamed);
        jw_u64(w, "trickled", s->deflate_trickled);
        jw_u64(w, "compressor_waits", s->deflate_waits);
        deflate_codings(w, s);
        jw_u64(w, "cache_hits", s->cache_hits);
        jw_u64(w, "cache_misses", s->cache_misses);
        jw_u64(w, "cache_revalidated", s->cache_revalidated);
        jw_u64(w, "cache_bytes_saved", s->cache_bytes_saved);
        jw_close(w, "}");
    }
    if (s->has_adaptive) {
        jw_key(w, "deflate_adaptive");
        jw_open(w, "{", 0);
        jw_bool(w, "enabled", s->adaptive_on);
        jw_str(w, "state", s->adaptive_name);
        jw_u64(w, "changes", s->adaptive_changes);
        jw_close(w, "}");
    }
    jw_close(w, "}");
}

/* Recent events, newest first. */
static void put_events(pis_jw *w, const pis_snap *s)
{
    unsigned i;

    jw_key(w, "events");
    jw_open(w, "[", 1);
    for (i = 0; i < s->nevents; i++) {
        const pis_event *e = &s->events[i];

        jw_open(w, "{", 0);
        jw_num(w, "time", 1, e->time_s + e->time_ms / 1000.0);
        jw_str(w, "event", pis_event_name(e->kind));
        jw_str(w, "balancer", e->balancer[0] ? e->balancer : NULL);
        jw_str(w, "member", e->member[0] ? e->member : NULL);
        jw_num(w, "temperature_c", e->temp_dc != PIS_EVENT_NO_TEMP,
               e->temp_dc / 10.0);
        jw_str(w, "detail", e->detail[0] ? e->detail : NULL);
        jw_close(w, "}");
    }
    jw_close(w, "]");
}

void pis_render_snap_json(pis_out *o, const pis_snap *snap)
{
    pis_jw w = { 0 };
    unsigned i;

    w.o = o;
    jw_open(&w, "{", 1);
    put_server(&w, snap);
    put_telemetry(&w, "node", &snap->self);
    jw_key(&w, "balancers");
    jw_open(&w, "[", 1);
    for (i = 0; i < snap->nbalancers; i++) {
        put_balancer(&w, &snap->balancers[i]);
    }
    jw_close(&w, "]");
    put_events(&w, snap);
    jw_close(&w, "}");
    pis_put(o, "\n");
}
