/* pis_render_html.c -- a master's HTML /pi-status (see pis_render.h).
 *
 * One self-contained page: inline CSS, inline SVG (pis_render_chart.c),
 * no scripts, no external assets; a meta refresh when asked.  Layout:
 *
 *   h1   pi-status: <node>          server version, uptime, probe, deflate
 *   legend                          the fates (pis_fate.h), in words
 *   table                           the server's own telemetry
 *   per balancer: h2 name, vhost, lbmethod, then one <tbody> per member:
 *     a row: member | state | weight | temperature | throttle |
 *            [power, J/request] | telemetry age | in flight |
 *            req/s 1/10/60 s | total | errors | p50/p95/p99 ms |
 *            in, out, saved
 *     (the power column only where a member has a power sensor, and a
 *     line under the table with the cluster's watts and J/request)
 *     a row under it: the member's plots, the table's full width
 *
 * Width: 12 short columns fit a 1366-px laptop; below 820 px the tables
 * become one card per member (every cell a line, labelled by its
 * data-l attribute), so a 390-px phone reads it without scrolling
 * sideways.  Long names break anywhere rather than widen the page.
 *
 * Colour: one rule (pis_fate.h) gives the state badge, the temperature
 * cell and the card's edge the same class st-<fate>; the fate's name is
 * always written too, and the legend says what each means.
 *
 * Every string from a node or the configuration goes through
 * pis_put_html (text and attributes alike).  Unknown values show as an
 * en dash.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pis_fate.h"
#include "pis_render.h"
#include "pis_slot.h"

#define PIS_DASH "\xe2\x80\x93"     /* en dash: unknown */

static const char pis_css[] =
    "body{font:13px/1.35 system-ui,sans-serif;margin:.8em;color:#222}"
    "h1{font-size:1.4em;margin:0}h2{font-size:1.1em;margin:1.2em 0 .3em}"
    "h1,h2,.sub{overflow-wrap:anywhere}"
    ".sub{color:#555;font-weight:normal;font-size:.9em}"
    "table{border-collapse:collapse;margin:.3em 0}"
    "th,td{padding:2px 6px;border-bottom:1px solid #ddd;"
    "text-align:right;vertical-align:top;white-space:nowrap}"
    "td.name,td.l{white-space:normal}"
    "th{background:#f3f3f3;font-weight:600}.l{text-align:left}"
    "td.name{text-align:left;max-width:16em;overflow-wrap:anywhere}"
    "tbody.m{border-left:6px solid #ccc}"
    "tr.plots td{text-align:left;border-bottom:2px solid #bbb;"
    "white-space:normal}"
    ".st{display:inline-block;padding:0 .4em;border-radius:3px;"
    "font-weight:600;border:1px solid #888}"
    ".st-ok:not(tbody){background:#d4f0d4}"
    ".st-warm:not(tbody){background:#ffd966}"
    ".st-throttled:not(tbody){background:#ff9e5e}"
    ".st-drained:not(tbody){background:#d9c8f5}"
    ".st-stale:not(tbody){background:#e4e4e4;font-style:italic}"
    ".st-failed:not(tbody){background:#f7a1a1}"
    "tbody.st-ok{border-left-color:#4a4}tbody.st-warm{border-left-color:#d90}"
    "tbody.st-throttled{border-left-color:#e60}"
    "tbody.st-drained{border-left-color:#75c}"
    "tbody.st-stale{border-left-color:#999}"
    "tbody.st-failed{border-left-color:#c00}"
    ".legend{margin:.4em 0;line-height:1.9}"
    ".legend span.st{margin-right:.2em}.legend i{margin-right:.8em;"
    "font-style:normal;color:#555}"
    ".err{color:#b00}.off{color:#777}"
    "svg.chart{width:100%;max-width:760px;height:auto;display:block}"
    "svg.chart .frame{fill:none;stroke:#bbb}"
    "svg.chart .tick{stroke:#e4e4e4}"
    "svg.chart .drained{fill:#d9c8f5}svg.chart .throttled{fill:#ffc9a3}"
    "svg.chart polyline.temp{fill:none;stroke:#c52;stroke-width:2}"
    "svg.chart polyline.power{fill:none;stroke:#2a7;stroke-width:1.5;"
    "stroke-dasharray:4 2}"
    "svg.chart polygon.rate{fill:#9bc1ee;stroke:#36c;stroke-width:1}"
    "svg.chart line.soft{stroke:#d90;stroke-dasharray:6 3}"
    "svg.chart line.hard{stroke:#c00;stroke-dasharray:6 3}"
    "svg.chart line.readmit{stroke:#75c;stroke-dasharray:2 3}"
    "svg.chart text{font-size:10px;fill:#444}"
    ".chartkey{font-size:.85em;color:#555}"
    "@media (max-width:820px){"
    "table.cards,table.cards tbody,table.cards tr,table.cards td"
    "{display:block;width:auto;max-width:none}"
    "table.cards thead{display:none}"
    "table.cards tbody{margin:0 0 .8em;border:1px solid #ccc;"
    "border-left-width:6px}"
    "table.cards td{text-align:left;border:0;padding:1px 6px}"
    "table.cards td[data-l]:before{content:attr(data-l) \": \";"
    "color:#555}}";

/* <td data-l="label" class="cls">text</td>, text escaped; NULL text is
 * a dash, NULL cls none.  label names the cell on a phone's card. */
static void td(pis_out *o, const char *label, const char *cls,
               const char *text)
{
    pis_putf(o, "<td data-l=\"%s\"", label);
    if (cls != NULL) {
        pis_put(o, " class=\"");
        pis_put_html(o, cls);
        pis_put(o, "\"");
    }
    pis_put(o, ">");
    pis_put_html(o, text != NULL ? text : PIS_DASH);
    pis_put(o, "</td>");
}

/* A double with `digits` decimals into buf; NULL when negative or not
 * finite (unknown). */
static const char *fmt_num(double v, int digits, char *buf, size_t size)
{
    if (!isfinite(v) || v < 0) {
        return NULL;
    }
    snprintf(buf, size, "%.*f", digits, v);
    return buf;
}

/* "a / b / c" of three numbers, each a dash when unknown. */
static void td_three(pis_out *o, const char *label, const double *v,
                     double scale, int digits)
{
    char buf[3][40], out[140];
    const char *s[3];
    unsigned i;

    for (i = 0; i < 3; i++) {
        s[i] = fmt_num(v[i] / scale, digits, buf[i], sizeof(buf[i]));
    }
    snprintf(out, sizeof(out), "%s / %s / %s", s[0] ? s[0] : PIS_DASH,
             s[1] ? s[1] : PIS_DASH, s[2] ? s[2] : PIS_DASH);
    td(o, label, NULL, out);
}

static void td_u64(pis_out *o, const char *label, uint64_t v)
{
    char buf[24];

    snprintf(buf, sizeof(buf), "%" PRIu64, v);
    td(o, label, NULL, buf);
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

static const char *fate_class(pis_fate f, char *buf, size_t size)
{
    snprintf(buf, size, "st-%s", pis_fate_name(f));
    return buf;
}

/* Temperature (coloured by the fate) and throttle cells. */
static void td_heat(pis_out *o, const pis_telemetry *t, pis_fate f)
{
    char buf[40], cls[24];

    td(o, "Temp", t->has_temp ? fate_class(f, cls, sizeof(cls)) : NULL,
       fmt_temp(t, buf, sizeof(buf)));
    pis_put(o, "<td data-l=\"Throttle\"");
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
    pis_put(o, m->tel_stale ? "<td data-l=\"Telemetry\" class=\"st-stale\">"
                            : "<td data-l=\"Telemetry\">");
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
    pis_put(o, "<td data-l=\"Member\" class=\"name\">");
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

/* The fate as a badge, then mod_proxy's flags and the loadfactor. */
static void td_state(pis_out *o, const pis_member_snap *m, pis_fate f)
{
    char cls[24];

    pis_putf(o, "<td data-l=\"State\" class=\"l\"><span class=\"st %s\">",
             fate_class(f, cls, sizeof(cls)));
    pis_put(o, pis_fate_name(f));
    if (m->has_weight && m->thermal_state != NULL && m->thermal_state[0]
        && strcmp(m->thermal_state, pis_fate_name(f)) != 0) {
        pis_put(o, " (");
        pis_put_html(o, m->thermal_state);
        pis_put(o, ")");
    }
    pis_put(o, m->usable ? "</span><br><span class=\"sub\">"
                         : "</span><br><span class=\"sub off\">");
    pis_put_html(o, m->state ? m->state : PIS_DASH);
    pis_putf(o, " &middot; factor %d.%02d</span></td>", m->lbfactor / 100,
             (m->lbfactor < 0 ? -m->lbfactor : m->lbfactor) % 100);
}

static void td_weight(pis_out *o, const pis_member_snap *m)
{
    char buf[40];

    td(o, "Weight", NULL,
       m->has_weight ? fmt_num(m->weight, 2, buf, sizeof(buf)) : NULL);
}

static void td_traffic(pis_out *o, const pis_member_snap *m)
{
    char title[128];
    uint64_t errors = m->status_class[4] + m->proxy_errors;
    double rates[3], pct[3];

    td_u64(o, "In flight", m->inflight);
    rates[0] = m->rate1;
    rates[1] = m->rate10;
    rates[2] = m->rate60;
    td_three(o, "Req/s 1/10/60 s", rates, 1, 1);
    td_u64(o, "Total", m->requests);
    snprintf(title, sizeof(title), "5xx from the node %" PRIu64
             ", proxy errors %" PRIu64 "; not counted: client errors %"
             PRIu64, m->status_class[4], m->proxy_errors, m->client_errors);
    pis_put(o, errors ? "<td data-l=\"Errors\" class=\"err\" title=\""
                      : "<td data-l=\"Errors\" title=\"");
    pis_put_html(o, title);
    pis_putf(o, "\">%" PRIu64 "</td>", errors);
    pct[0] = m->p50_us;
    pct[1] = m->p95_us;
    pct[2] = m->p99_us;
    td_three(o, "p50/p95/p99 ms", pct, 1000, 1);
}

/* In, out, and what compression saved (in - out, when positive). */
static void td_volume(pis_out *o, const pis_member_snap *m)
{
    char in[32], out[32], saved[48], cell[128];

    fmt_bytes(m->bytes_in, in, sizeof(in));
    fmt_bytes(m->bytes_out, out, sizeof(out));
    if (m->bytes_in <= m->bytes_out) {
        snprintf(cell, sizeof(cell), "%s / %s", in, out);
    }
    else {
        fmt_bytes(m->bytes_in - m->bytes_out, saved, sizeof(saved));
        snprintf(cell, sizeof(cell), "%s / %s, saved %s (%.0f%%)", in, out,
                 saved, 100.0 * (double)(m->bytes_in - m->bytes_out)
                        / (double)m->bytes_in);
    }
    td(o, "In / out", NULL, cell);
}

/* "15.2 mJ", "1.23 J": joules per request as reads best. */
static void fmt_joules(double j, char *buf, size_t size)
{
    if (j >= 1.0) {
        snprintf(buf, size, "%.2f J", j);
    }
    else if (j >= 0.001) {
        snprintf(buf, size, "%.1f mJ", j * 1000);
    }
    else {
        snprintf(buf, size, "%.3f mJ", j * 1000);
    }
}

/* Power now and the joules a request took over the last minute. */
static void td_power(pis_out *o, const pis_member_snap *m)
{
    char w[32], j[32];

    pis_put(o, "<td data-l=\"Power\">");
    if (m->tel.has_power) {
        pi_format_fixed((m->tel.power_mw + 5) / 10, 2, w, sizeof(w));
        pis_put(o, w);
        pis_put(o, " W");
    }
    else {
        pis_put(o, PIS_DASH);
    }
    if (m->has_jpr) {
        fmt_joules(m->jpr_j, j, sizeof(j));
        pis_put(o, "<br><span class=\"sub\">");
        pis_put(o, j);
        pis_put(o, "/req</span>");
    }
    pis_put(o, "</td>");
}

#define PIS_MEMBER_COLS 12

/* The member's plots, under its row, the table's full width. */
static void plots_row(pis_out *o, const pis_snap *s,
                      const pis_balancer_snap *b, const pis_member_snap *m)
{
    pis_putf(o, "<tr class=\"plots\"><td colspan=\"%d\">",
             PIS_MEMBER_COLS + (b->power_shown ? 1 : 0));
    pis_render_chart(o, s, b, m);
    pis_put(o, "</td></tr>\n");
}

static void member_rows(pis_out *o, const pis_snap *s,
                        const pis_balancer_snap *b, const pis_member_snap *m)
{
    pis_fate f = pis_fate_of(m);
    char cls[24];

    pis_putf(o, "<tbody class=\"m %s\"><tr>",
             fate_class(f, cls, sizeof(cls)));
    td_member(o, m);
    td_state(o, m, f);
    td_weight(o, m);
    td_heat(o, &m->tel, f);
    if (b->power_shown) {
        td_power(o, m);
    }
    td_age(o, m);
    td_traffic(o, m);
    td_volume(o, m);
    pis_put(o, "</tr>\n");
    plots_row(o, s, b, m);
    pis_put(o, "</tbody>\n");
}

static void table_head(pis_out *o, int power)
{
    pis_put(o, "<table class=\"cards\">\n<thead><tr>"
               "<th class=\"l\">Member</th><th class=\"l\">State</th>"
               "<th>Weight</th><th>Temp</th><th>Throttle</th>");
    if (power) {
        pis_put(o, "<th>Power</th>");
    }
    pis_put(o, "<th>Telemetry</th><th>In flight</th>"
               "<th>Req/s 1/10/60 s</th><th>Total</th><th>Errors</th>"
               "<th>p50/p95/p99 ms</th><th>In / out</th></tr></thead>\n");
}

/* "72.5 °C" of tenths of a degree. */
static void put_dc(pis_out *o, int dc)
{
    char num[24];

    pi_format_dc(dc, num, sizeof(num));
    pis_put(o, num);
    pis_put(o, " \xc2\xb0" "C");
}

/* The settings that decide the members' fate (lbmethod "pi"), in the
 * words of the directives' effects. */
static void settings_line(pis_out *o, const pis_balancer_snap *b,
                          double probe_s)
{
    if (!b->has_settings) {
        return;
    }
    pis_put(o, "<p class=\"sub settings\">Weight falls above <strong>");
    put_dc(o, b->soft_dc);
    pis_put(o, "</strong> (soft limit) to ");
    pis_putf(o, "%.2f at <strong>", b->floor);
    put_dc(o, b->hard_dc);
    pis_put(o, "</strong> (hard limit: drained above) &middot; re-admitted "
               "below <strong>");
    put_dc(o, b->hard_dc - b->hyst_dc);
    pis_putf(o, "</strong> &middot; throttled &times;%.2f &middot; slow start "
             "%g s &middot; estimate decay %g s &middot; ",
             b->throttle_factor, b->slowstart_s, b->decay_s);
    if (probe_s > 0 && isfinite(probe_s)) {
        pis_putf(o, "probe every %.1f s (stale after %.1f s)", probe_s,
                 PIS_TEL_STALE_INTERVALS * probe_s);
    }
    else {
        pis_put(o, "no probe");
    }
    if (b->deflate_on) {
        pis_putf(o, " &middot; offload level %d, now %d%s",
                 b->deflate_level, b->deflate_level_now,
                 b->deflate_level_now == 0 ? " (not compressing)" : "");
    }
    else {
        pis_put(o, " &middot; offload off");
    }
    pis_put(o, "</p>\n");
}

/* The cluster's power under its table: the members' fresh PowerW
 * together, and the joules a request took over the last minute. */
static void power_line(pis_out *o, const pis_balancer_snap *b)
{
    char buf[32];

    if (!b->power_shown) {
        return;
    }
    pis_put(o, "<p class=\"sub power\">Cluster: ");
    if (b->power_members > 0) {
        pis_putf(o, "<strong>%.2f W</strong> (%u of %u members reporting)",
                 b->power_w, b->power_members, b->nmembers);
    }
    else {
        pis_put(o, "no member reports its power now");
    }
    if (b->has_jpr) {
        fmt_joules(b->jpr_j, buf, sizeof(buf));
        pis_putf(o, " &middot; <strong>%s</strong> a request over the last"
                 " minute", buf);
    }
    pis_put(o, "</p>\n");
}

static void balancer(pis_out *o, const pis_snap *s,
                     const pis_balancer_snap *b)
{
    unsigned i;

    pis_put(o, "<h2>");
    pis_put_html(o, b->name ? b->name : PIS_DASH);
    pis_put(o, " <span class=\"sub\">vhost ");
    pis_put_html(o, b->vhost ? b->vhost : PIS_DASH);
    pis_put(o, ", lbmethod ");
    pis_put_html(o, b->lbmethod ? b->lbmethod : PIS_DASH);
    pis_put(o, "</span></h2>\n");
    settings_line(o, b, s->probe_interval_s);
    table_head(o, b->power_shown);
    for (i = 0; i < b->nmembers; i++) {
        member_rows(o, s, b, &b->members[i]);
    }
    pis_put(o, "</table>\n");
    power_line(o, b);
}

/* The fates in words, with their colours. */
static void legend(pis_out *o)
{
    unsigned f;

    pis_put(o, "<p class=\"legend\">");
    for (f = 0; f < PIS_FATE_COUNT; f++) {
        pis_putf(o, "<span class=\"st st-%s\">%s</span><i>%s</i>",
                 pis_fate_name((pis_fate)f), pis_fate_name((pis_fate)f),
                 pis_fate_meaning((pis_fate)f));
    }
    pis_put(o, "</p>\n");
}

#define PIS_EVENTS_SHOWN 20

/* "23:41:07 UTC" of a wall-clock second. */
static void fmt_clock(uint32_t t, char *buf, size_t size)
{
    time_t tt = (time_t)t;
    struct tm tm;

    if (gmtime_r(&tt, &tm) == NULL) {
        snprintf(buf, size, "%" PRIu32, t);
        return;
    }
    strftime(buf, size, "%H:%M:%S UTC", &tm);
}

/* The event's fate colour: the state it put the member in. */
static const char *event_class(int kind)
{
    switch (kind) {
    case PIS_EV_DRAINED: return "st-drained";
    case PIS_EV_THROTTLED: return "st-throttled";
    case PIS_EV_STALE: return "st-stale";
    case PIS_EV_FAILED: return "st-failed";
    case PIS_EV_OFFLOAD: return NULL;
    default: return "st-ok";
    }
}

static void event_row(pis_out *o, const pis_event *e, double now)
{
    char buf[48], age[32];
    const char *cls = event_class(e->kind);

    fmt_clock(e->time_s, buf, sizeof(buf));
    pis_put(o, "<tr>");
    td(o, "Time", "l", buf);
    snprintf(age, sizeof(age), "%.0f s ago",
             now > e->time_s ? now - e->time_s : 0.0);
    td(o, "Ago", NULL, age);
    pis_put(o, "<td data-l=\"Event\" class=\"l\">");
    if (cls != NULL) {
        pis_putf(o, "<span class=\"st %s\">", cls);
    }
    pis_put(o, pis_event_name(e->kind));
    pis_put(o, cls != NULL ? "</span></td>" : "</td>");
    pis_put(o, "<td data-l=\"Member\" class=\"name\">");
    pis_put_html(o, e->member[0] ? e->member : "offload");
    if (e->balancer[0]) {
        pis_put(o, " <span class=\"sub\">");
        pis_put_html(o, e->balancer);
        pis_put(o, "</span>");
    }
    pis_put(o, "</td>");
    if (e->temp_dc != PIS_EVENT_NO_TEMP) {
        pi_format_dc(e->temp_dc, buf, sizeof(buf) - 8);
        strcat(buf, " \xc2\xb0" "C");
        td(o, "Temp", NULL, buf);
    }
    else {
        td(o, "Temp", NULL, NULL);
    }
    td(o, "Detail", "l", e->detail[0] ? e->detail : NULL);
    pis_put(o, "</tr>\n");
}

/* Recent events, newest first (the snapshot has them so). */
static void events(pis_out *o, const pis_snap *s)
{
    unsigned i;

    pis_put(o, "<h2 id=\"events\">Recent events</h2>\n");
    if (s->nevents == 0) {
        pis_put(o, "<p class=\"sub\">None since the server started.</p>\n");
        return;
    }
    pis_put(o, "<table class=\"cards events\">\n<thead><tr>"
               "<th class=\"l\">Time</th><th>Ago</th>"
               "<th class=\"l\">Event</th><th class=\"l\">Member</th>"
               "<th>Temp</th><th class=\"l\">Detail</th></tr></thead>\n"
               "<tbody>\n");
    for (i = 0; i < s->nevents && i < PIS_EVENTS_SHOWN; i++) {
        event_row(o, &s->events[i], s->now);
    }
    pis_put(o, "</tbody></table>\n");
    if (s->nevents > PIS_EVENTS_SHOWN) {
        pis_putf(o, "<p class=\"sub\">%u more in ?json.</p>\n",
                 s->nevents - PIS_EVENTS_SHOWN);
    }
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

    pis_put(o, "<table class=\"cards\">\n<thead><tr><th>Temp</th>"
               "<th>Throttle</th><th>Load 1 min</th><th>CPUs</th>"
               "<th>Memory available</th><th>Node uptime</th>");
    pis_put(o, t->power_sensor ? "<th>Power</th></tr>" : "</tr>");
    pis_put(o, "</thead>\n<tbody><tr>");
    td_heat(o, t, pis_fate_of_self(t));
    pi_format_fixed(t->load1_c, 2, buf, sizeof(buf));
    td(o, "Load 1 min", NULL, t->has_load ? buf : NULL);
    snprintf(buf, sizeof(buf), "%ld", t->cpus);
    td(o, "CPUs", NULL, t->has_cpus ? buf : NULL);
    fmt_bytes((uint64_t)t->mem_kb * 1024, buf, sizeof(buf));
    td(o, "Memory available", NULL, t->has_mem ? buf : NULL);
    fmt_uptime(t->uptime_s, buf, sizeof(buf));
    td(o, "Node uptime", NULL, t->has_uptime ? buf : NULL);
    if (t->power_sensor) {
        pi_format_fixed((t->power_mw + 5) / 10, 2, buf, sizeof(buf));
        strcat(buf, " W");
        td(o, "Power", NULL, t->has_power ? buf : NULL);
    }
    pis_put(o, "</tr></tbody>\n</table>\n");
}

static void head(pis_out *o, const pis_snap *s, int refresh)
{
    const char *node = s->self.node[0] ? s->self.node : PIS_DASH;

    pis_put(o, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
               "<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
               "content=\"width=device-width,initial-scale=1\">\n"
               "<link rel=\"icon\" href=\"data:,\">\n");
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
    legend(o);
    self_table(o, &snap->self);
    for (i = 0; i < snap->nbalancers; i++) {
        balancer(o, snap, &snap->balancers[i]);
    }
    if (snap->nbalancers == 0) {
        pis_put(o, "<p class=\"sub\">No balancers.</p>\n");
    }
    events(o, snap);
    pis_put(o, "</body></html>\n");
}
