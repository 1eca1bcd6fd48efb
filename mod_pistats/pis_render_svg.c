/* pis_render_svg.c -- inline SVG sparklines for the HTML /pi-status.
 *
 * One point a second, oldest at the left: the viewBox is n units wide
 * and 30 high, the browser scales it to the element's size.  The y axis
 * runs from 0 at the bottom to the largest value at the top; that value
 * is written beside the plot as its label.  A second without a value
 * (a temperature of PIS_TEMP_NONE) breaks the line, so every unbroken
 * run is its own <polyline>.  Points in the middle of a flat run are
 * left out (the line is the same, the page much smaller).
 *
 * Not here: axes, ticks, tooltips -- an operator glances at the shape.
 */
#include <stdio.h>

#include "pis_render.h"

#define PIS_SPARK_H10   290        /* bottom, tenths of a unit */
#define PIS_SPARK_SPAN  280        /* tenths of a unit from 0 to max */
#define PIS_SPARK_GAP   (-1)

typedef struct {
    const char *cls;               /* CSS class of the <svg> */
    const char *title;             /* for screen readers and hovering */
    int decimals;                  /* values are in 10^-decimals units */
    const char *unit;              /* after the max label */
} pis_spark_style;

/* Heights in tenths of a viewBox unit, PIS_SPARK_GAP for gaps. */
static void heights(const long *v, const int *gap, unsigned n, long max,
                    int *y10)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        long c = v[i] < 0 ? 0 : v[i];

        y10[i] = gap[i] ? PIS_SPARK_GAP
               : PIS_SPARK_H10 - (int)((double)c * PIS_SPARK_SPAN
                                       / (double)max + 0.5);
    }
}

/* One <polyline> for the run [s, e]; flat interiors are skipped. */
static void run(pis_out *o, const int *y10, unsigned s, unsigned e)
{
    unsigned i;

    pis_put(o, "<polyline points=\"");
    for (i = s; i <= e; i++) {
        if (i != s && i != e && y10[i] == y10[i - 1]
            && y10[i] == y10[i + 1]) {
            continue;
        }
        pis_putf(o, "%s%u,%d.%d", i == s ? "" : " ", i, y10[i] / 10,
                 y10[i] % 10);
    }
    if (s == e) {                  /* a lone point: a dot */
        pis_putf(o, " %u,%d.%d", s, y10[s] / 10, y10[s] % 10);
    }
    pis_put(o, "\"/>");
}

static void label(pis_out *o, long max, const pis_spark_style *st)
{
    char buf[32];

    pis_put(o, "<span class=\"ymax\">");
    if (max < 0) {
        pis_put(o, "\xe2\x80\x93");                /* en dash: no data */
    }
    else {
        pi_format_fixed(max, st->decimals, buf, sizeof(buf));
        pis_put(o, buf);
        pis_put(o, st->unit);
    }
    pis_put(o, "</span>");
}

static void spark(pis_out *o, const long *v, const int *gap, unsigned n,
                  const pis_spark_style *st)
{
    int y10[PIS_HISTORY_S];
    long max = -1;
    unsigned i, s;

    for (i = 0; i < n; i++) {
        if (!gap[i] && v[i] > max) {
            max = v[i];
        }
    }
    label(o, max, st);
    heights(v, gap, n, max > 0 ? max : 1, y10);
    pis_putf(o, "<svg class=\"spark %s\" viewBox=\"0 0 %u 30\" "
             "preserveAspectRatio=\"none\" role=\"img\"><title>%s</title>",
             st->cls, n, st->title);
    for (i = 0; i < n; i = s) {
        for (; i < n && gap[i]; i++) {
        }
        for (s = i; s < n && !gap[s]; s++) {
        }
        if (i < n) {
            run(o, y10, i, s - 1);
        }
    }
    pis_put(o, "</svg>");
}

void pis_render_spark_rate(pis_out *o, const uint32_t *req, unsigned n)
{
    static const pis_spark_style st = {
        "rate", "requests per second, last 5 minutes", 0, "/s"
    };
    long v[PIS_HISTORY_S];
    int gap[PIS_HISTORY_S];
    unsigned i;

    n = n > PIS_HISTORY_S ? PIS_HISTORY_S : n;
    for (i = 0; i < n; i++) {
        v[i] = req[i] > 0x7fffffffUL ? 0x7fffffffL : (long)req[i];
        gap[i] = 0;
    }
    spark(o, v, gap, n, &st);
}

void pis_render_spark_temp(pis_out *o, const int16_t *dc, unsigned n)
{
    static const pis_spark_style st = {
        "temp", "temperature, last 5 minutes", 1, "\xc2\xb0" "C"
    };
    long v[PIS_HISTORY_S];
    int gap[PIS_HISTORY_S];
    unsigned i;

    n = n > PIS_HISTORY_S ? PIS_HISTORY_S : n;
    for (i = 0; i < n; i++) {
        v[i] = dc[i];
        gap[i] = dc[i] == PIS_TEMP_NONE;
    }
    spark(o, v, gap, n, &st);
}
