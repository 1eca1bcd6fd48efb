/* pis_snapshot.h -- fills a pis_snap from shared memory and config. */
#ifndef PIS_SNAPSHOT_H
#define PIS_SNAPSHOT_H

#include "httpd.h"
#include "mod_proxy.h"

#include "pis_snap.h"

/* Copies everything /pi-status shows into *snap (allocated from r->pool).
 * self is this server's own telemetry, already read. */
void pis_snapshot(request_rec *r, const pis_telemetry *self, pis_snap *snap);

/* Effective weight, thermal state and estimate from mod_pibalance, when
 * loaded (pis_public.c), for member w of balancer b of server s (the
 * server that owns b: its settings, its probe interval). */
void pis_fill_weight(server_rec *s, proxy_balancer *b, proxy_worker *w,
                     pis_member_snap *m);

#endif /* PIS_SNAPSHOT_H */
