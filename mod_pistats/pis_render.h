/* pis_render.h -- renderers of /pi-status: pure functions from a
 * snapshot to text.
 *
 * Snapshot, then render: the handler copies what it shows into plain
 * structs once, then one of these writes it out through an emit callback
 * (ap_rwrite in httpd, a memory buffer in the unit tests).  Every string
 * that came from configuration or from a node is escaped for its format.
 */
#ifndef PIS_RENDER_H
#define PIS_RENDER_H

#include <stddef.h>

#include "pis_sensor.h"

typedef void (*pis_emit_fn)(void *ctx, const char *s, size_t n);

typedef struct {
    pis_emit_fn emit;
    void *ctx;
} pis_out;

/* Writes s (NUL-terminated), or its escaped form. */
void pis_put(pis_out *o, const char *s);
void pis_put_html(pis_out *o, const char *s);

/* The node telemetry contract, "Key: value" lines, unknown values as
 * "unknown":
 *   Node: pi1\nTemperatureC: 48.3\nThrottled: 0x50005\nLoad1: 0.52\n
 *   CPUs: 4\nMemAvailableKB: 123456\nUptimeS: 12345\n */
void pis_render_auto(pis_out *o, const pis_telemetry *t);

/* A self-contained HTML page of the node's telemetry.  refresh > 0 adds
 * a meta refresh of that many seconds. */
void pis_render_html(pis_out *o, const pis_telemetry *t, int refresh);

/* What the query string of /pi-status asks for. */
typedef enum {
    PIS_FMT_HTML = 0,
    PIS_FMT_AUTO
} pis_format;

typedef struct {
    pis_format format;
    int refresh;                  /* seconds, 0 = none */
} pis_query;

/* Parses "auto", "refresh=N" ('&' or ';' separated; unknown keys
 * ignored).  refresh is clamped to 1..3600. */
void pis_parse_query(const char *args, pis_query *q);

#endif /* PIS_RENDER_H */
