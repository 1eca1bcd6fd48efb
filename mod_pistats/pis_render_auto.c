/* pis_render_auto.c -- a master's /pi-status?auto (see pis_render.h).
 *
 * mod_status-style "Key: value" lines, one value a line.  The node
 * telemetry lines come first and unchanged, so a probe reading the first
 * 8 KiB of a master finds them; then the server, then one block per
 * balancer and member with keys shaped like mod_proxy's ProxyStatus:
 *
 *   ProxyBalancer[0]Name: balancer://pis
 *   ProxyBalancer[0]Worker[0]Name: http://10.0.0.11:80
 *   ProxyBalancer[0]Worker[0]Lbfactor: 1.00
 *
 * A value that is not known is "unknown".  Strings from a node or the
 * configuration have their control characters replaced by '?', so no
 * value can start a line of its own.  Not here: the per-second history
 * and the histogram (too long for one line each; see ?json).
 */
#include <inttypes.h>
#include <math.h>
#include <ctype.h>
#include <stdio.h>

#include "pis_fate.h"
#include "pis_render.h"

#define PIS_UNKNOWN "unknown"

/* Writes "<prefix><key>: " -- the caller writes the value and "\n". */
static void key(pis_out *o, const char *prefix, const char *k)
{
    pis_put(o, prefix);
    pis_put(o, k);
    pis_put(o, ": ");
}

static void kv_str(pis_out *o, const char *prefix, const char *k,
                   const char *v)
{
    key(o, prefix, k);
    pis_put_clean(o, v, PIS_UNKNOWN);
    pis_put(o, "\n");
}

static void kv_u64(pis_out *o, const char *prefix, const char *k,
                   uint64_t v)
{
    key(o, prefix, k);
    pis_putf(o, "%" PRIu64 "\n", v);
}

/* Per coding, in mod_pibalance's order: DeflateGzipResponses,
 * DeflateGzipBytesIn, ...Out, then the next (its name capitalised, any
 * character but a letter or digit dropped). */
static void deflate_codings(pis_out *o, const pis_snap *snap)
{
    static const char *const what[3] = { "Responses", "BytesIn",
                                         "BytesOut" };
    char cap[16], k[48];
    unsigned c, i, j, n;

    for (c = 0; c < snap->ncodings; c++) {
        const char *name = snap->coding_name[c];

        for (j = n = 0; name[j] && n + 1 < sizeof(cap); j++) {
            if (isalnum((unsigned char)name[j])) {
                cap[n] = (char)(n == 0 ? toupper((unsigned char)name[j])
                                       : name[j]);
                n++;
            }
        }
        cap[n] = '\0';
        for (i = 0; i < 3; i++) {
            snprintf(k, sizeof(k), "Deflate%s%s", cap, what[i]);
            kv_u64(o, "", k, snap->deflate_coding[c][i]);
        }
    }
}

/* A double with `digits` decimals, "unknown" when negative (the
 * snapshot's "no sample") or not finite. */
static void kv_fix(pis_out *o, const char *prefix, const char *k,
                   double v, int digits)
{
    key(o, prefix, k);
    if (!isfinite(v) || v < 0) {
        pis_put(o, PIS_UNKNOWN "\n");
        return;
    }
    /* The '\n' apart: pis_putf writes at most 255 bytes, and a huge
     * value would take the end of the line with it. */
    pis_putf(o, "%.*f", digits, v);
    pis_put(o, "\n");
}

/* The member's node telemetry, as pis_render_auto names it. */
static void member_tel(pis_out *o, const char *prefix,
                       const pis_telemetry *t)
{
    char buf[32];

    kv_str(o, prefix, "Node", t->node);
    pi_format_dc(t->temp_dc, buf, sizeof(buf));
    kv_str(o, prefix, "TemperatureC", t->has_temp ? buf : NULL);
    snprintf(buf, sizeof(buf), "0x%lx", t->throttled);
    kv_str(o, prefix, "Throttled", t->has_throttled ? buf : NULL);
    pi_format_fixed(t->load1_c, 2, buf, sizeof(buf));
    kv_str(o, prefix, "Load1", t->has_load ? buf : NULL);
    snprintf(buf, sizeof(buf), "%ld", t->cpus);
    kv_str(o, prefix, "CPUs", t->has_cpus ? buf : NULL);
    snprintf(buf, sizeof(buf), "%lu", t->mem_kb);
    kv_str(o, prefix, "MemAvailableKB", t->has_mem ? buf : NULL);
    snprintf(buf, sizeof(buf), "%lu", t->uptime_s);
    kv_str(o, prefix, "UptimeS", t->has_uptime ? buf : NULL);
    pi_format_fixed((t->power_mw + 5) / 10, 2, buf, sizeof(buf));
    kv_str(o, prefix, "PowerW", t->has_power ? buf : NULL);
}

/* The member's energy: all-time, and per request over the last minute
 * (docs/metrics.md). */
static void member_energy(pis_out *o, const char *prefix,
                          const pis_member_snap *m)
{
    kv_fix(o, prefix, "EnergyJ", m->has_energy ? m->energy_j : -1, 3);
    kv_fix(o, prefix, "IdlePowerW", m->has_idle ? m->idle_w : -1, 2);
    kv_fix(o, prefix, "JoulesPerRequest", m->has_jpr ? m->jpr_j : -1, 6);
    kv_fix(o, prefix, "JoulesPerRequestAboveIdle",
           m->has_jpr ? m->jpr_above_idle_j : -1, 6);
}

static const char *severity_name(pis_severity s)
{
    switch (s) {
    case PIS_SEV_OK: return "ok";
    case PIS_SEV_WARN: return "warn";
    case PIS_SEV_CRIT: return "crit";
    default: return PIS_UNKNOWN;
    }
}

static void member_probe(pis_out *o, const char *prefix,
                         const pis_member_snap *m)
{
    kv_u64(o, prefix, "Probed", m->probed ? 1 : 0);
    member_tel(o, prefix, &m->tel);
    kv_fix(o, prefix, "TelemetryAgeS", m->tel_age_s, 1);
    kv_u64(o, prefix, "TelemetryStale", m->tel_stale ? 1 : 0);
    kv_str(o, prefix, "ProbeError", m->probe_error ? m->probe_error
                                                   : "none");
    kv_str(o, prefix, "Severity", severity_name(m->severity));
    kv_str(o, prefix, "Fate", pis_fate_name(pis_fate_of(m)));
    member_energy(o, prefix, m);
}

static void member_traffic(pis_out *o, const char *prefix,
                           const pis_member_snap *m)
{
    static const char *const cls[5] = {
        "Status1xx", "Status2xx", "Status3xx", "Status4xx", "Status5xx"
    };
    unsigned i;

    kv_u64(o, prefix, "InFlight", m->inflight);
    kv_u64(o, prefix, "Requests", m->requests);
    for (i = 0; i < 5; i++) {
        kv_u64(o, prefix, cls[i], m->status_class[i]);
    }
    kv_u64(o, prefix, "ProxyErrors", m->proxy_errors);
    kv_u64(o, prefix, "ClientErrors", m->client_errors);
    kv_u64(o, prefix, "BytesIn", m->bytes_in);
    kv_u64(o, prefix, "BytesOut", m->bytes_out);
    kv_fix(o, prefix, "Rate1s", m->rate1, 3);
    kv_fix(o, prefix, "Rate10s", m->rate10, 3);
    kv_fix(o, prefix, "Rate60s", m->rate60, 3);
    kv_fix(o, prefix, "P50ms", m->p50_us / 1000, 3);
    kv_fix(o, prefix, "P95ms", m->p95_us / 1000, 3);
    kv_fix(o, prefix, "P99ms", m->p99_us / 1000, 3);
    kv_fix(o, prefix, "EwmaMs", m->ewma_us / 1000, 3);
}

static void member(pis_out *o, unsigned b, unsigned w,
                   const pis_member_snap *m)
{
    char prefix[64];

    snprintf(prefix, sizeof(prefix), "ProxyBalancer[%u]Worker[%u]", b, w);
    kv_str(o, prefix, "Name", m->name);
    key(o, prefix, "Route");               /* "" when none */
    pis_put_clean(o, m->route, "");
    pis_put(o, "\n");
    kv_str(o, prefix, "Status", m->state);
    kv_u64(o, prefix, "Usable", m->usable ? 1 : 0);
    kv_fix(o, prefix, "Lbfactor", m->lbfactor / 100.0, 2);
    if (m->has_weight) {
        kv_fix(o, prefix, "Weight", m->weight, 2);
        kv_str(o, prefix, "ThermalState", m->thermal_state);
        kv_fix(o, prefix, "EstimateMs", m->estimate_us / 1000, 3);
        kv_u64(o, prefix, "LastAttemptFailed", m->last_failed ? 1 : 0);
    }
    member_traffic(o, prefix, m);
    member_probe(o, prefix, m);
}

/* What decides the members' fate (lbmethod "pi" only). */
static void settings(pis_out *o, const char *prefix,
                     const pis_balancer_snap *bs)
{
    if (!bs->has_settings) {
        return;
    }
    kv_fix(o, prefix, "ThermalSoftC", bs->soft_dc / 10.0, 1);
    kv_fix(o, prefix, "ThermalHardC", bs->hard_dc / 10.0, 1);
    kv_fix(o, prefix, "ReadmitBelowC", (bs->hard_dc - bs->hyst_dc) / 10.0,
           1);
    kv_fix(o, prefix, "ThermalFloor", bs->floor, 2);
    kv_fix(o, prefix, "ThrottleFactor", bs->throttle_factor, 2);
    kv_fix(o, prefix, "SlowStartS", bs->slowstart_s, 1);
    kv_fix(o, prefix, "DecayS", bs->decay_s, 1);
    kv_u64(o, prefix, "Deflate", bs->deflate_on ? 1 : 0);
    kv_fix(o, prefix, "DeflateLevel", bs->deflate_level, 0);
    kv_fix(o, prefix, "DeflateLevelNow", bs->deflate_level_now, 0);
}

static void balancer(pis_out *o, unsigned b, const pis_balancer_snap *bs)
{
    char prefix[32];
    unsigned w;

    snprintf(prefix, sizeof(prefix), "ProxyBalancer[%u]", b);
    kv_str(o, prefix, "Name", bs->name);
    kv_str(o, prefix, "VirtualHost", bs->vhost);
    kv_str(o, prefix, "Method", bs->lbmethod);
    settings(o, prefix, bs);
    kv_fix(o, prefix, "PowerW", bs->power_members ? bs->power_w : -1, 2);
    kv_fix(o, prefix, "JoulesPerRequest", bs->has_jpr ? bs->jpr_j : -1, 6);
    kv_u64(o, prefix, "Workers", bs->nmembers);
    for (w = 0; w < bs->nmembers; w++) {
        member(o, b, w, &bs->members[w]);
    }
}

void pis_render_snap_auto(pis_out *o, const pis_snap *snap)
{
    unsigned b;

    pis_render_auto(o, &snap->self);
    kv_str(o, "", "ServerVersion", snap->server_version);
    kv_u64(o, "", "ServerUptimeSeconds", snap->uptime_s);
    kv_fix(o, "", "ProbeIntervalS", snap->probe_interval_s, 1);
    kv_str(o, "", "Deflate", snap->deflate_state);
    if (snap->has_deflate_counts) {
        kv_u64(o, "", "DeflateOnePass", snap->deflate_one_pass);
        kv_u64(o, "", "DeflateStreamed", snap->deflate_streamed);
        kv_u64(o, "", "DeflateTrickled", snap->deflate_trickled);
        kv_u64(o, "", "DeflateCompressorWaits", snap->deflate_waits);
        deflate_codings(o, snap);
        kv_u64(o, "", "DeflateCacheHits", snap->cache_hits);
        kv_u64(o, "", "DeflateCacheMisses", snap->cache_misses);
        kv_u64(o, "", "DeflateCacheRevalidated", snap->cache_revalidated);
        kv_u64(o, "", "DeflateCacheBytesSaved", snap->cache_bytes_saved);
    }
    if (snap->has_adaptive) {
        kv_u64(o, "", "DeflateAdaptive", snap->adaptive_on ? 1 : 0);
        kv_str(o, "", "DeflateAdaptiveState", snap->adaptive_name);
        kv_u64(o, "", "DeflateAdaptiveChanges", snap->adaptive_changes);
    }
    kv_u64(o, "", "Balancers", snap->nbalancers);
    for (b = 0; b < snap->nbalancers; b++) {
        balancer(o, b, &snap->balancers[b]);
    }
}
