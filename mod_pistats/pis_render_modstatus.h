/* pis_render_modstatus.h -- the section mod_pistats adds to mod_status'
 * server-status page (the status_hook), from a snapshot. */
#ifndef PIS_RENDER_MODSTATUS_H
#define PIS_RENDER_MODSTATUS_H

#include "pis_render.h"
#include "pis_snap.h"

/* A summary per member: short (server-status?auto) "Key: value" lines
 * PiStatsMember[i]Name/Balancer/Rate1s/Requests/Errors/P99ms/
 * TemperatureC, or an HTML table. */
void pis_render_modstatus(pis_out *o, const pis_snap *s, int short_form);

#endif /* PIS_RENDER_MODSTATUS_H */
