/* pis_render_chart.c -- a member's chart for the HTML /pi-status (see
 * pis_render.h): temperature over the last 5 minutes with the limits
 * that decide its fate, and its request rate on the same time axis.
 *
 * Inline SVG, no script: the viewBox is 640 x 190 and the browser scales
 * it to the page's width.  One x unit is PIS_CH_PX_S of a second:
 *
 *   y 10..110   temperature: the line (gaps where no reading), the soft
 *               and hard limits and the re-admit line (lbmethod "pi"),
 *               each labelled; drained and throttled periods shaded;
 *               beside it the node's power (a node with PowerW), dashed,
 *               on its own scale named at the plot's top left
 *   y 128..168  requests per second, a filled area
 *   y 170..190  the time axis: -5 min ... now; both y axes labelled
 *
 * Shaded periods come from the recent events (pis_event.h): from a
 * "drained" to a "re-admitted", from a "throttled" to a "no longer
 * throttled".  A period that began before the window (or before the
 * ring's oldest event) is inferred from the first event inside it, or,
 * with none, from the member's state now.  Pure; output depends on the
 * snapshot only.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pis_render.h"

#define PIS_CH_X0     48           /* left edge of the plot */
#define PIS_CH_W      584          /* plot width: PIS_HISTORY_S seconds */
#define PIS_CH_T_TOP  10
#define PIS_CH_T_H    100
#define PIS_CH_R_TOP  128
#define PIS_CH_R_H    40

typedef struct {
    int lo_dc, hi_dc;              /* temperature range, tenths */
} pis_range;

static double x_of(unsigned i)
{
    return PIS_CH_X0 + (double)i * PIS_CH_W / PIS_HISTORY_S;
}

static double y_of(int dc, const pis_range *r)
{
    return PIS_CH_T_TOP + PIS_CH_T_H
           - (double)(dc - r->lo_dc) * PIS_CH_T_H / (r->hi_dc - r->lo_dc);
}

/* The range: the readings and the limits, with room, in 5-degree steps. */
static void range_of(const pis_member_snap *m, const pis_balancer_snap *b,
                     pis_range *r)
{
    int lo = INT32_MAX, hi = INT32_MIN;
    unsigned i;

    for (i = 0; i < PIS_HISTORY_S; i++) {
        if (m->temp_hist[i] != PIS_TEMP_NONE) {
            lo = m->temp_hist[i] < lo ? m->temp_hist[i] : lo;
            hi = m->temp_hist[i] > hi ? m->temp_hist[i] : hi;
        }
    }
    if (b->has_settings) {
        lo = b->soft_dc - 50 < lo ? b->soft_dc - 50 : lo;
        hi = b->hard_dc + 20 > hi ? b->hard_dc + 20 : hi;
    }
    if (lo > hi) {                 /* nothing known */
        lo = 300;
        hi = 800;
    }
    r->lo_dc = (int)floor(lo / 50.0) * 50;
    r->hi_dc = (int)ceil(hi / 50.0) * 50;
    if (r->hi_dc <= r->lo_dc) {
        r->hi_dc = r->lo_dc + 50;
    }
}

/* Whether event e is about member m of balancer b. */
static int is_of(const pis_event *e, const pis_balancer_snap *b,
                 const pis_member_snap *m)
{
    return b->name != NULL && m->name != NULL
           && strcmp(e->balancer, b->name) == 0
           && strncmp(e->member, m->name, sizeof(e->member) - 1) == 0;
}

/* Marks on[i] for the seconds of the window in the state that event
 * `start` begins and `end` ends; `now_on` is whether it holds now. */
static void periods(const pis_snap *s, const pis_balancer_snap *b,
                    const pis_member_snap *m, int start, int end,
                    int now_on, uint32_t t0, unsigned char *on)
{
    int state = -1;                /* at the window's start: unknown */
    unsigned i, k;

    /* The newest event before the window decides, else the oldest
     * inside it (an end: it was on), else the state now. */
    for (k = 0; k < s->nevents && state < 0; k++) {
        const pis_event *e = &s->events[k];

        if (is_of(e, b, m) && e->time_s < t0
            && (e->kind == start || e->kind == end)) {
            state = e->kind == start;
        }
    }
    for (k = s->nevents; k-- > 0 && state < 0;) {
        const pis_event *e = &s->events[k];

        if (is_of(e, b, m) && e->time_s >= t0
            && (e->kind == start || e->kind == end)) {
            state = e->kind == end;
        }
    }
    if (state < 0) {
        state = now_on;
    }
    for (i = 0, k = s->nevents; i < PIS_HISTORY_S; i++) {
        /* apply the events up to this second, oldest first */
        while (k > 0 && s->events[k - 1].time_s <= t0 + i) {
            const pis_event *e = &s->events[--k];

            if (is_of(e, b, m) && e->time_s >= t0
                && (e->kind == start || e->kind == end)) {
                state = e->kind == start;
            }
        }
        on[i] = (unsigned char)state;
    }
}

static void shade(pis_out *o, const unsigned char *on, const char *cls,
                  const char *title)
{
    unsigned i, s;

    for (i = 0; i < PIS_HISTORY_S; i = s) {
        for (; i < PIS_HISTORY_S && !on[i]; i++) {
        }
        for (s = i; s < PIS_HISTORY_S && on[s]; s++) {
        }
        if (i < PIS_HISTORY_S) {
            pis_putf(o, "<rect class=\"%s\" x=\"%.1f\" y=\"%d\" "
                     "width=\"%.1f\" height=\"%d\"><title>%s</title>"
                     "</rect>", cls, x_of(i), PIS_CH_T_TOP,
                     x_of(s) - x_of(i), PIS_CH_T_H, title);
        }
    }
}

/* A limit: a horizontal line across the plot, labelled inside its
 * right end, above the line (`below` 0) or under it (the re-admit line,
 * which sits just under the soft limit). */
static void limit(pis_out *o, int dc, const pis_range *r, const char *cls,
                  const char *name, int below)
{
    char num[24];
    double y = y_of(dc, r);

    pi_format_dc(dc, num, sizeof(num));
    pis_putf(o, "<line class=\"%s\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" "
             "y2=\"%.1f\"/><text class=\"lim\" x=\"%d\" y=\"%.1f\" "
             "text-anchor=\"end\">%s %s \xc2\xb0" "C</text>", cls,
             PIS_CH_X0, PIS_CH_X0 + PIS_CH_W, y, y, PIS_CH_X0 + PIS_CH_W - 2,
             below ? y + 10 : y - 2, name, num);
}

static void temp_line(pis_out *o, const pis_member_snap *m,
                      const pis_range *r)
{
    unsigned i, s;

    for (i = 0; i < PIS_HISTORY_S; i = s) {
        for (; i < PIS_HISTORY_S && m->temp_hist[i] == PIS_TEMP_NONE; i++) {
        }
        for (s = i; s < PIS_HISTORY_S && m->temp_hist[s] != PIS_TEMP_NONE;
             s++) {
        }
        if (i >= PIS_HISTORY_S) {
            break;
        }
        pis_put(o, "<polyline class=\"temp\" points=\"");
        pis_putf(o, "%.1f,%.1f", x_of(i), y_of(m->temp_hist[i], r));
        for (i++; i < s; i++) {
            if (i + 1 < s && m->temp_hist[i] == m->temp_hist[i - 1]
                && m->temp_hist[i] == m->temp_hist[i + 1]) {
                continue;          /* flat: the line is the same */
            }
            pis_putf(o, " %.1f,%.1f", x_of(i), y_of(m->temp_hist[i], r));
        }
        pis_putf(o, " %.1f,%.1f\"/>", x_of(s), y_of(m->temp_hist[s - 1], r));
    }
}

/* The node's power on the temperature's plot, its own scale (0 to the
 * next whole watt above its peak), labelled inside the plot's top left;
 * gaps where nothing was integrated.  Nothing without a power history.
 * Returns whether it drew. */
static int power_line(pis_out *o, const pis_member_snap *m)
{
    int32_t max = PIS_POWER_NONE;
    double top;
    unsigned i, s;

    for (i = 0; i < PIS_HISTORY_S; i++) {
        max = m->power_hist[i] > max ? m->power_hist[i] : max;
    }
    if (max < 0) {
        return 0;
    }
    top = ceil(((double)max + 1) / 1000.0);    /* max may be INT32_MAX */
#define PY(mw) (PIS_CH_T_TOP + PIS_CH_T_H - (double)(mw) * PIS_CH_T_H \
                / (top * 1000.0))
    for (i = 0; i < PIS_HISTORY_S; i = s) {
        for (; i < PIS_HISTORY_S && m->power_hist[i] == PIS_POWER_NONE;
             i++) {
        }
        for (s = i; s < PIS_HISTORY_S && m->power_hist[s] != PIS_POWER_NONE;
             s++) {
        }
        if (i >= PIS_HISTORY_S) {
            break;
        }
        pis_putf(o, "<polyline class=\"power\" points=\"%.1f,%.1f", x_of(i),
                 PY(m->power_hist[i]));
        for (i++; i < s; i++) {
            pis_putf(o, " %.1f,%.1f", x_of(i), PY(m->power_hist[i]));
        }
        pis_putf(o, " %.1f,%.1f\"/>", x_of(s), PY(m->power_hist[s - 1]));
    }
#undef PY
    pis_putf(o, "<text class=\"ax\" x=\"%d\" y=\"%d\">power (dashed):"
             " 0\xe2\x80\x93%.0f W</text>", PIS_CH_X0 + 4, PIS_CH_T_TOP + 10,
             top);
    return 1;
}

/* The request rate: a filled area under the per-second counts. */
static void rate_area(pis_out *o, const pis_member_snap *m)
{
    uint32_t max = 0;
    unsigned i;
    const int base = PIS_CH_R_TOP + PIS_CH_R_H;

    for (i = 0; i < PIS_HISTORY_S; i++) {
        max = m->req_hist[i] > max ? m->req_hist[i] : max;
    }
    pis_putf(o, "<text class=\"ax\" x=\"%d\" y=\"%d\" text-anchor=\"end\">"
             "%" PRIu32 "/s</text>", PIS_CH_X0 - 4, PIS_CH_R_TOP + 8, max);
    pis_putf(o, "<text class=\"ax\" x=\"%d\" y=\"%d\" text-anchor=\"end\">"
             "0</text>", PIS_CH_X0 - 4, base);
    pis_putf(o, "<polygon class=\"rate\" points=\"%.1f,%d", x_of(0), base);
    for (i = 0; i < PIS_HISTORY_S; i++) {
        double y = base - (max ? (double)m->req_hist[i] * PIS_CH_R_H / max
                               : 0);

        if (i > 0 && i + 1 < PIS_HISTORY_S
            && m->req_hist[i] == m->req_hist[i - 1]
            && m->req_hist[i] == m->req_hist[i + 1]) {
            continue;
        }
        pis_putf(o, " %.1f,%.1f", x_of(i), y);
    }
    pis_putf(o, " %.1f,%d\"/>", x_of(PIS_HISTORY_S), base);
}

/* The axes: temperature ticks, the rate's name, minutes ago. */
static void axes(pis_out *o, const pis_range *r)
{
    int dc, step = r->hi_dc - r->lo_dc > 300 ? 100 : 50;
    unsigned min;
    char num[24];

    for (dc = r->lo_dc; dc <= r->hi_dc; dc += step) {
        pi_format_dc(dc, num, sizeof(num));
        pis_putf(o, "<text class=\"ax\" x=\"%d\" y=\"%.1f\" "
                 "text-anchor=\"end\">%s</text>", PIS_CH_X0 - 4,
                 y_of(dc, r) + 3, num);
    }
    pis_putf(o, "<text class=\"ax\" x=\"2\" y=\"%d\">\xc2\xb0" "C</text>"
             "<text class=\"ax\" x=\"2\" y=\"%d\">req/s</text>",
             PIS_CH_T_TOP + 8, PIS_CH_R_TOP + 24);
    for (min = 0; min <= 5; min++) {
        double x = x_of(PIS_HISTORY_S - min * 60);

        pis_putf(o, "<line class=\"tick\" x1=\"%.1f\" x2=\"%.1f\" "
                 "y1=\"%d\" y2=\"%d\"/><text class=\"ax\" x=\"%.1f\" "
                 "y=\"184\" text-anchor=\"middle\">%s</text>", x, x,
                 PIS_CH_T_TOP, PIS_CH_R_TOP + PIS_CH_R_H + 3, x,
                 min == 0 ? "now" : min == 5 ? "\xe2\x88\x92" "5 min"
                 : min == 1 ? "\xe2\x88\x92" "1" : min == 2
                 ? "\xe2\x88\x92" "2" : min == 3 ? "\xe2\x88\x92" "3"
                 : "\xe2\x88\x92" "4");
    }
}

void pis_render_chart(pis_out *o, const pis_snap *s,
                      const pis_balancer_snap *b, const pis_member_snap *m)
{
    unsigned char drained[PIS_HISTORY_S], throttled[PIS_HISTORY_S];
    /* event times are 32-bit seconds: a clock outside them has none */
    uint32_t t0 = (uint32_t)(s->now > PIS_HISTORY_S + 1
                             && s->now < 4294967295.0
                             ? floor(s->now) - PIS_HISTORY_S : 0);
    const char *st = m->has_weight ? m->thermal_state : NULL;
    pis_range r;

    range_of(m, b, &r);
    periods(s, b, m, PIS_EV_DRAINED, PIS_EV_READMITTED,
            st != NULL && strcmp(st, "drained") == 0, t0, drained);
    periods(s, b, m, PIS_EV_THROTTLED, PIS_EV_UNTHROTTLED,
            st != NULL && strcmp(st, "throttled") == 0, t0, throttled);
    pis_put(o, "<svg class=\"chart\" viewBox=\"0 0 640 190\" role=\"img\">"
               "<title>temperature and requests per second, last 5 "
               "minutes</title>");
    shade(o, throttled, "throttled", "throttled");
    shade(o, drained, "drained", "drained");
    pis_putf(o, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" "
             "height=\"%d\"/>", PIS_CH_X0, PIS_CH_T_TOP, PIS_CH_W,
             PIS_CH_T_H);
    axes(o, &r);
    if (b->has_settings) {
        limit(o, b->soft_dc, &r, "soft", "soft", 0);
        limit(o, b->hard_dc, &r, "hard", "hard: drained above", 0);
        limit(o, b->hard_dc - b->hyst_dc, &r, "readmit", "re-admit below",
              1);
    }
    temp_line(o, m, &r);
    power_line(o, m);
    rate_area(o, m);
    pis_put(o, "</svg>");
}
