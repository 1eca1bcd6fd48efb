/* pis_render_status.h -- mod_pistats' lines in mod_status' page. */
#ifndef PIS_RENDER_STATUS_H
#define PIS_RENDER_STATUS_H

#include "pis_render.h"
#include "pis_snap.h"

/* A summary per member: short (server-status?auto) "Key: value" lines
 * PiStatsMember[i]Name/Balancer/Rate1s/Requests/Errors/P99ms/
 * TemperatureC, or an HTML table. */
void pis_render_status_summary(pis_out *o, const pis_snap *s, int short_form);

#endif /* PIS_RENDER_STATUS_H */
