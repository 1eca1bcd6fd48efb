/* pis_fate.h -- the one colour rule of the HTML /pi-status: a member's
 * fate, from what mod_proxy and lbmethod "pi" make of it.
 *
 * Pure (libc only), unit-tested in tests/unit/test_fate.c.  The state
 * column, the temperature cell, the chart and the legend all take their
 * class from pis_fate_of(), so one member never shows two colours, and
 * every class comes with its name written out (colour is never the only
 * carrier of meaning).  First match wins:
 *
 *   fate       | when
 *   -----------+----------------------------------------------------
 *   failed     | mod_proxy will not send to it (Err, Dis, Stop, ...),
 *              | or lbmethod "pi" finds it silent
 *   drained    | lbmethod "pi" drained it (above the hard limit)
 *   throttled  | "pi" says throttled; without "pi": firmware bits 0x6
 *   stale      | its telemetry is stale ("pi" or the probe says so)
 *   warm       | "pi" says warm (above its soft limit: weight < 1);
 *              | without "pi": 70 C and up
 *   ok         | everything else ("ramping" and unknown included)
 */
#ifndef PIS_FATE_H
#define PIS_FATE_H

#include "pis_snap.h"

typedef enum {
    PIS_FATE_OK = 0,
    PIS_FATE_WARM,
    PIS_FATE_THROTTLED,
    PIS_FATE_DRAINED,
    PIS_FATE_STALE,
    PIS_FATE_FAILED,
    PIS_FATE_COUNT
} pis_fate;

pis_fate pis_fate_of(const pis_member_snap *m);

/* The server's own: ok, warm or throttled, by pis_severity. */
pis_fate pis_fate_of_self(const pis_telemetry *t);

/* "ok", "warm", ... (static); the CSS class is "st-" and the name. */
const char *pis_fate_name(pis_fate f);

/* One line for the legend: what the fate means (static). */
const char *pis_fate_meaning(pis_fate f);

#endif /* PIS_FATE_H */
