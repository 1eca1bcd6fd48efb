/* pis_probe.h -- the master's probe of its members' node telemetry. */
#ifndef PIS_PROBE_H
#define PIS_PROBE_H

#include "httpd.h"

/* post_config: registers the probe with mod_watchdog when some balancer
 * member is to be probed.  Returns OK (a missing mod_watchdog is logged,
 * not fatal). */
int pis_probe_post_config(apr_pool_t *pconf, server_rec *s);

/* child_init: a child's exit waits for its probe round to end (the
 * probe thread outlives the child's pool). */
void pis_probe_child_init(apr_pool_t *pchild, server_rec *s);

/* Whether the probe runs (for the status page). */
int pis_probe_active(void);

#endif /* PIS_PROBE_H */
