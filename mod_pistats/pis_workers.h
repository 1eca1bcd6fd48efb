/* pis_workers.h -- this node's BusyWorkers and IdleWorkers, counted from
 * httpd's scoreboard for the telemetry text (docs/telemetry.md).
 *
 * Counted as mod_status counts them (processes that are not quiescing
 * and have a pid; idle: ready, of the current generation), with one
 * difference: a worker that only holds a keep-alive connection (K in
 * mod_status' map) is neither busy nor idle here.  A master's pooled
 * connection to a prefork or worker node holds such a worker between its
 * requests; counted busy, a node with idle connections from four masters
 * would look loaded.  Busy includes the worker serving this very answer.
 *
 * Not here: the text (pis_render_node.c), its parser (pis_telemetry.c).
 */
#ifndef PIS_WORKERS_H
#define PIS_WORKERS_H

#include "pis_telemetry.h"

/* Sets t->busy, t->idle and their has_* flags from the scoreboard; leaves
 * them unknown when there is no scoreboard.  Reads the scoreboard without
 * a lock, as mod_status does: a count, not a snapshot. */
void pis_count_workers(pis_telemetry *t);

#endif /* PIS_WORKERS_H */
