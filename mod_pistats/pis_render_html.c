/* pis_render_html.c -- a master's HTML /pi-status (see pis_render.h).
 *
 * One self-contained page: inline CSS, inline SVG (pis_render_svg.c),
 * no scripts, no external assets; a meta refresh when asked.  Layout:
 *
 *   h1   pi-status: <node>          server version, uptime, probe, deflate
 *   table                           the server's own telemetry
 *   per balancer: h2 name, vhost, lbmethod, then one row per member:
 *     member | state | factor | [weight | thermal] | in flight |
 *     req/s 1s 10s 60s | total | errors | p50 p95 p99 | in | out | saved |
 *     temperature | throttle | telemetry age | req/s plot | temp plot
 *
 * Every string from a node or the configuration goes through
 * pis_put_html (text and attributes alike).  Unknown values show as an
 * en dash.  Colours come from the member's severity (CSS classes sev-*);
 * stale telemetry is highlighted.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pis_render.h"

#define PIS_DASH "\xe2\x80\x93"     /* en dash: unknown */

static const char pis_css[] =
    "body{font:13px/1.35 system-ui,sans-serif;margin:1em;color:#222}"
    "h1{font-size:1.4em;margin:0}h2{font-size:1.1em;margin:1.2em 0 .3em}"
    ".sub{color:#666;font-weight:normal;font-size:.9em}"
    "table{border-collapse:collapse}"
    "th,td{padding:2px 6px;border-bottom:1px solid #ddd;"
    "text-align:right;white-space:nowrap}"
    "th{background:#f3f3f3;font-weight:600}.l{text-align:left}"
    ".sev-ok{background:#dfd}.sev-warn{background:#fe9}"
    ".sev-crit{background:#f99}.sev-unknown{color:#888}"
    ".stale{background:#fc8;font-weight:bold}.err{color:#b00}"
    ".off{color:#888}.sub small{color:#888}"
    "svg.spark{width:150px;height:24px;vertical-align:middle;"
    "background:#f8f8f8}"
    "svg polyline{fill:none;stroke:#36c;stroke-width:1.5;"
    "stroke-linecap:round;vector-effect:non-scaling-stroke}"
    "svg.temp polyline{stroke:#c52}"
    ".ymax{display:inline-block;min-width:4em;font-size:10px;color:#666}";

static const char *sev_class(pis_severity s)
{
    switch (s) {
    case PIS_SEV_OK: return "sev-ok";
    case PIS_SEV_WARN: return "sev-warn";
    case PIS_SEV_CRIT: return "sev-crit";
    default: return "sev-unknown";
    }
}

/* The server's own severity (the snapshot has none for it): the same
 * limits as pis_snap.h states for members. */
static pis_severity self_severity(const pis_telemetry *t)
{
    if (!t->has_temp) {
        return PIS_SEV_UNKNOWN;
    }
    if (t->temp_dc >= 800 || (t->has_throttled && (t->throttled & 0x6))) {
        return PIS_SEV_CRIT;
    }
    return t->temp_dc >= 700 ? PIS_SEV_WARN : PIS_SEV_OK;
}

/* <td class="cls">text</td>, text escaped; NULL text is a dash. */
static void td(pis_out *o, const char *cls, const char *text)
{
    pis_put(o, "<td");
    if (cls != NULL) {
        pis_put(o, " class=\"");
        pis_put_html(o, cls);
        pis_put(o, "\"");
    }
    pis_put(o, ">");
    pis_put_html(o, text != NULL ? text : PIS_DASH);
    pis_put(o, "</td>");
}

/* A double with `digits` decimals; a dash when negative or not finite. */
static void td_num(pis_out *o, double v, int digits)
{
    char buf[40];

    if (!isfinite(v) || v < 0) {
        td(o, NULL, NULL);
        return;
    }
    snprintf(buf, sizeof(buf), "%.*f", digits, v);
    td(o, NULL, buf);
}

static void td_u64(pis_out *o, uint64_t v)
{
    char buf[24];

    snprintf(buf, sizeof(buf), "%" PRIu64, v);
    td(o, NULL, buf);
}

/* 1536 -> "1.5 KiB". */
static void fmt_bytes(uint64_t v, char *buf, size_t size)
{
    static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
    double d = (double)v;
    unsigned u = 0;

    if (v < 1024) {
        snprintf(buf, size, "%" PRIu64 " B", v);
        return;
    }
    for (d /= 1024; d >= 1024 && u < 3; u++) {
        d /= 1024;
    }
    snprintf(buf, size, "%.1f %s", d, unit[u]);
}

static void td_bytes(pis_out *o, uint64_t v)
{
    char buf[32];

    fmt_bytes(v, buf, sizeof(buf));
    td(o, NULL, buf);
}

/* "48.3 °C" or NULL. */
static const char *fmt_temp(const pis_telemetry *t, char *buf, size_t size)
{
    char num[24];

    if (!t->has_temp) {
        return NULL;
    }
    pi_format_dc(t->temp_dc, num, sizeof(num));
    snprintf(buf, size, "%s \xc2\xb0" "C", num);
    return buf;
}

/* The throttle state in words, most severe first, or NULL. */
static const char *throttle_words(const pis_telemetry *t)
{
    if (!t->has_throttled) {
        return NULL;
    }
    if (t->throttled & 0x4) {
        return "throttled";
    }
    if (t->throttled & 0x2) {
        return "capped";
    }
    if (t->throttled & 0x1) {
        return "under-voltage";
    }
    return t->throttled ? "earlier" : "no";
}

/* Temperature and throttle cells, coloured by severity. */
static void td_heat(pis_out *o, const pis_telemetry *t, pis_severity sev)
{
    char buf[40];

    td(o, sev_class(sev), fmt_temp(t, buf, sizeof(buf)));
    pis_putf(o, "<td class=\"%s\"", sev_class(sev));
    if (t->has_throttled) {
        pis_putf(o, " title=\"0x%lx\"", t->throttled);
    }
    pis_put(o, ">");
    pis_put_html(o, throttle_words(t) ? throttle_words(t) : PIS_DASH);
    pis_put(o, "</td>");
}

/* Telemetry age: "2.0 s", "stale 9.0 s", "never", "not probed", with
 * the last probe error under it. */
static void td_age(pis_out *o, const pis_member_snap *m)
{
    pis_put(o, m->tel_stale ? "<td class=\"stale\">" : "<td>");
    if (!m->probed) {
        pis_put(o, "not probed");
    }
    else if (!isfinite(m->tel_age_s) || m->tel_age_s < 0) {
        pis_put(o, m->tel_stale ? "stale, never read" : "never");
    }
    else {
        pis_putf(o, "%s%.1f s", m->tel_stale ? "stale " : "",
                 m->tel_age_s);
    }
    if (m->probe_error != NULL && m->probe_error[0]) {
        pis_put(o, "<br><span class=\"err\">");
        pis_put_html(o, m->probe_error);
        pis_put(o, "</span>");
    }
    pis_put(o, "</td>");
}

/* Member URL, route and node name. */
static void td_member(pis_out *o, const pis_member_snap *m)
{
    pis_put(o, "<td class=\"l\">");
    pis_put_html(o, m->name ? m->name : PIS_DASH);
    if (m->route != NULL && m->route[0]) {
        pis_put(o, " <span class=\"sub\">route ");
        pis_put_html(o, m->route);
        pis_put(o, "</span>");
    }
    if (m->tel.node[0]) {
        pis_put(o, "<br><span class=\"sub\">");
        pis_put_html(o, m->tel.node);
        pis_put(o, "</span>");
    }
    pis_put(o, "</td>");
}

static void td_state(pis_out *o, const pis_member_snap *m, int weights)
{
    char buf[32];

    td(o, m->usable ? "l" : "l off", m->state);
    snprintf(buf, sizeof(buf), "%d.%02d", m->lbfactor / 100,
             (m->lbfactor < 0 ? -m->lbfactor : m->lbfactor) % 100);
    td(o, NULL, buf);
    if (!weights) {
        return;
    }
    if (!m->has_weight) {
        td(o, NULL, NULL);
        td(o, NULL, NULL);
        return;
    }
    td_num(o, m->weight, 2);
    td(o, "l", m->thermal_state);
}

static void td_traffic(pis_out *o, const pis_member_snap *m)
{
    char title[96];
    uint64_t errors = m->status_class[4] + m->proxy_errors;

    td_u64(o, m->inflight);
    td_num(o, m->rate1, 1);
    td_num(o, m->rate10, 1);
    td_num(o, m->rate60, 1);
    td_u64(o, m->requests);
    snprintf(title, sizeof(title), "5xx from the node %" PRIu64
             ", proxy errors %" PRIu64, m->status_class[4],
             m->proxy_errors);
    pis_put(o, errors ? "<td class=\"err\" title=\"" : "<td title=\"");
    pis_put_html(o, title);
    pis_putf(o, "\">%" PRIu64 "</td>", errors);
    td_num(o, m->p50_us / 1000, 1);
    td_num(o, m->p95_us / 1000, 1);
    td_num(o, m->p99_us / 1000, 1);
}

/* In, out, and what compression saved (in - out, when positive). */
static void td_volume(pis_out *o, const pis_member_snap *m)
{
    char buf[48], pct[16];

    td_bytes(o, m->bytes_in);
    td_bytes(o, m->bytes_out);
    if (m->bytes_in <= m->bytes_out) {
        td(o, NULL, NULL);
        return;
    }
    fmt_bytes(m->bytes_in - m->bytes_out, buf, sizeof(buf));
    snprintf(pct, sizeof(pct), " (%.0f%%)",
             100.0 * (double)(m->bytes_in - m->bytes_out)
             / (double)m->bytes_in);
    strcat(buf, pct);
    td(o, NULL, buf);
}

static void member_row(pis_out *o, const pis_member_snap *m, int weights)
{
    pis_put(o, "<tr>");
    td_member(o, m);
    td_state(o, m, weights);
    td_traffic(o, m);
    td_volume(o, m);
    td_heat(o, &m->tel, m->severity);
    td_age(o, m);
    pis_put(o, "<td class=\"l\">");
    pis_render_spark_rate(o, m->req_hist, PIS_HISTORY_S);
    pis_put(o, "</td><td class=\"l\">");
    pis_render_spark_temp(o, m->temp_hist, PIS_HISTORY_S);
    pis_put(o, "</td></tr>\n");
}

static void table_head(pis_out *o, int weights)
{
    pis_put(o, "<table>\n<tr><th class=\"l\">Member</th>"
               "<th class=\"l\">State</th><th>Factor</th>");
    if (weights) {
        pis_put(o, "<th>Weight</th><th class=\"l\">Thermal</th>");
    }
    pis_put(o, "<th>In flight</th><th>Req/s 1 s</th><th>10 s</th>"
               "<th>60 s</th><th>Total</th><th>Errors</th>"
               "<th>p50 ms</th><th>p95 ms</th><th>p99 ms</th>"
               "<th>In</th><th>Out</th><th>Saved</th>"
               "<th>Temp</th><th>Throttle</th><th>Telemetry</th>"
               "<th class=\"l\">Req/s, 5 min</th>"
               "<th class=\"l\">Temp, 5 min</th></tr>\n");
}

static void balancer(pis_out *o, const pis_balancer_snap *b)
{
    unsigned i;
    int weights = 0;

    for (i = 0; i < b->nmembers; i++) {
        weights |= b->members[i].has_weight;
    }
    pis_put(o, "<h2>");
    pis_put_html(o, b->name ? b->name : PIS_DASH);
    pis_put(o, " <span class=\"sub\">vhost ");
    pis_put_html(o, b->vhost ? b->vhost : PIS_DASH);
    pis_put(o, ", lbmethod ");
    pis_put_html(o, b->lbmethod ? b->lbmethod : PIS_DASH);
    pis_put(o, "</span></h2>\n");
    table_head(o, weights);
    for (i = 0; i < b->nmembers; i++) {
        member_row(o, &b->members[i], weights);
    }
    pis_put(o, "</table>\n");
}

/* 93784 -> "1d 2h 3m". */
static void fmt_uptime(uint64_t s, char *buf, size_t size)
{
    snprintf(buf, size, "%" PRIu64 "d %uh %um", s / 86400,
             (unsigned)(s % 86400 / 3600), (unsigned)(s % 3600 / 60));
}

/* The line under the title: version, uptime, probe, deflate. */
static void server_line(pis_out *o, const pis_snap *s)
{
    char buf[48];

    pis_put(o, "<p class=\"sub\">");
    pis_put_html(o, s->server_version ? s->server_version : PIS_DASH);
    fmt_uptime(s->uptime_s, buf, sizeof(buf));
    pis_putf(o, " &middot; up %s &middot; ", buf);
    if (s->probe_interval_s > 0 && isfinite(s->probe_interval_s)) {
        pis_putf(o, "probe every %.1f s", s->probe_interval_s);
    }
    else {
        pis_put(o, "no probe");
    }
    if (s->deflate_state != NULL) {
        pis_put(o, " &middot; compression ");
        pis_put_html(o, s->deflate_state);
    }
    if (s->has_deflate_counts) {
        pis_putf(o, ": %" PRIu64 " one pass, %" PRIu64 " streamed (%"
                 PRIu64 " trickled), %" PRIu64 " compressor waits",
                 s->deflate_one_pass, s->deflate_streamed,
                 s->deflate_trickled, s->deflate_waits);
        if (s->cache_hits + s->cache_misses + s->cache_revalidated > 0) {
            pis_putf(o, "; cache: %" PRIu64 " hits, %" PRIu64 " misses, %"
                     PRIu64 " revalidated, %" PRIu64 " bytes saved",
                     s->cache_hits, s->cache_misses, s->cache_revalidated,
                     s->cache_bytes_saved);
        }
    }
    pis_put(o, "</p>\n");
}

static void self_table(pis_out *o, const pis_telemetry *t)
{
    char buf[40];

    pis_put(o, "<table>\n<tr><th>Temp</th><th>Throttle</th>"
               "<th>Load 1 min</th><th>CPUs</th><th>Memory available</th>"
               "<th>Node uptime</th></tr>\n<tr>");
    td_heat(o, t, self_severity(t));
    pi_format_fixed(t->load1_c, 2, buf, sizeof(buf));
    td(o, NULL, t->has_load ? buf : NULL);
    snprintf(buf, sizeof(buf), "%ld", t->cpus);
    td(o, NULL, t->has_cpus ? buf : NULL);
    fmt_bytes((uint64_t)t->mem_kb * 1024, buf, sizeof(buf));
    td(o, NULL, t->has_mem ? buf : NULL);
    fmt_uptime(t->uptime_s, buf, sizeof(buf));
    td(o, NULL, t->has_uptime ? buf : NULL);
    pis_put(o, "</tr>\n</table>\n");
}

static void head(pis_out *o, const pis_snap *s, int refresh)
{
    const char *node = s->self.node[0] ? s->self.node : PIS_DASH;

    pis_put(o, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n");
    if (refresh > 0) {
        pis_putf(o, "<meta http-equiv=\"refresh\" content=\"%d\">\n",
                 refresh);
    }
    pis_put(o, "<title>pi-status: ");
    pis_put_html(o, node);
    pis_put(o, "</title>\n<style>");
    pis_put(o, pis_css);
    pis_put(o, "</style>\n</head><body>\n<h1>pi-status: ");
    pis_put_html(o, node);
    pis_put(o, "</h1>\n");
}

void pis_render_snap_html(pis_out *o, const pis_snap *snap, int refresh)
{
    unsigned i;

    head(o, snap, refresh);
    server_line(o, snap);
    self_table(o, &snap->self);
    for (i = 0; i < snap->nbalancers; i++) {
        balancer(o, &snap->balancers[i]);
    }
    if (snap->nbalancers == 0) {
        pis_put(o, "<p class=\"sub\">No balancers.</p>\n");
    }
    pis_put(o, "</body></html>\n");
}
