/* pis_render.h -- renderers of /pi-status: pure functions from a
 * snapshot to text.
 *
 * Snapshot, then render: the handler copies what it shows into plain
 * structs once, then one of these writes it out through an emit callback
 * (ap_rwrite in httpd, a memory buffer in the unit tests).  Every string
 * that came from configuration or from a node is escaped for its format
 * (pis_escape.h).  A node's page: pis_render_node.c; a master's:
 * pis_render_{auto,json,prom,html,svg}.c; mod_status' section:
 * pis_render_modstatus.h.
 */
#ifndef PIS_RENDER_H
#define PIS_RENDER_H

#include <stddef.h>

#include "pi_num.h"
#include "pis_escape.h"
#include "pis_query.h"
#include "pis_snap.h"
#include "pis_telemetry.h"

/* The node telemetry contract, "Key: value" lines, unknown values as
 * "unknown":
 *   Node: pi1\nTemperatureC: 48.3\nThrottled: 0x50005\nLoad1: 0.52\n
 *   CPUs: 4\nMemAvailableKB: 123456\nUptimeS: 12345\n */
void pis_render_auto(pis_out *o, const pis_telemetry *t);

/* A self-contained HTML page of the node's telemetry.  refresh > 0 adds
 * a meta refresh of that many seconds. */
void pis_render_html(pis_out *o, const pis_telemetry *t, int refresh);

/* A master's /pi-status from a snapshot.  None calls time functions
 * (snap->now is "now"); output depends on the snapshot only.
 *
 * ?auto: first exactly what pis_render_auto writes for snap->self (so a
 * master can itself be probed), then server lines and per balancer and
 * member lines named like mod_proxy's ProxyStatus:
 *   ProxyBalancer[0]Name: balancer://pis
 *   ProxyBalancer[0]Worker[0]Name: http://10.0.0.11
 *   ProxyBalancer[0]Worker[0]P95ms: 12.345
 * indices from 0; "unknown" for an unknown value; control characters in
 * strings replaced by '?'. */
void pis_render_snap_auto(pis_out *o, const pis_snap *snap);

/* ?json: one JSON document (RFC 8259) of the whole snapshot, including
 * the 300-s histories and the non-zero histogram buckets.  Unknown
 * values and non-finite numbers are null. */
void pis_render_snap_json(pis_out *o, const pis_snap *snap);

/* ?prometheus: text exposition format 0.0.4, pistats_* families (see
 * pis_render_prom.c for the list).  Samples of unknown values are
 * left out. */
void pis_render_snap_prometheus(pis_out *o, const pis_snap *snap);

/* The HTML page of a master: own telemetry, a table per balancer with
 * an inline SVG chart per member (pis_render_chart.c).  No external
 * assets, no JavaScript.  refresh > 0 adds a meta refresh. */
void pis_render_snap_html(pis_out *o, const pis_snap *snap, int refresh);

/* A member's chart (pis_render_chart.c): temperature over the last
 * PIS_HISTORY_S seconds with b's limits (when it has settings) and the
 * drained and throttled periods the events of s show, and the request
 * rate on the same time axis; axes labelled.  One inline <svg>. */
void pis_render_chart(pis_out *o, const pis_snap *s,
                      const pis_balancer_snap *b, const pis_member_snap *m);

#endif /* PIS_RENDER_H */
