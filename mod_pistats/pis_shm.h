/* pis_shm.h -- the table of member slots in shared memory.
 *
 * One anonymous segment per server lifetime: created at the first start
 * on the process pool, it outlives graceful restarts (the counters of
 * members that still exist go on), so restarts leak nothing.  A graceful
 * restart into a build whose table layout differs (magic, version, slot
 * size: pis_claim.h) makes a new segment instead, with a notice: no build
 * reads or writes a segment of another layout.  Each member owns a slot
 * keyed "vhost|balancer|member"; post_config assigns the configured
 * members and gives up the slots of members that left the configuration;
 * members added at run time (the balancer-manager) claim a slot on first
 * use.  Which slot is whose, without a lock: pis_claim.c.
 */
#ifndef PIS_SHM_H
#define PIS_SHM_H

#include "httpd.h"
#include "mod_proxy.h"

#include "pi_clock.h"
#include "pis_claim.h"
#include "pis_slot.h"

#define PIS_DEFAULT_MAX_MEMBERS 128

/* post_config (parent): attaches to or creates the segment, then assigns
 * every configured member a slot.  Returns APR_SUCCESS, or an error
 * already logged. */
apr_status_t pis_shm_setup(apr_pool_t *pconf, server_rec *s,
                           unsigned capacity);

/* child_init: builds this process's worker -> slot index. */
void pis_shm_child_init(apr_pool_t *pchild, server_rec *s);

/* The table, or NULL when statistics are off. */
pis_table *pis_shm_table(void);

/* The slot of a member, for readers: from the index, else found or
 * claimed by key (members added at run time; not when p is NULL: then
 * nothing is allocated).  NULL when the table is full, or when the slot
 * this process knew no longer belongs to the member (a child of an older
 * generation after a graceful restart removed it). */
pis_slot *pis_shm_slot(apr_pool_t *p, server_rec *s, proxy_balancer *b,
                       proxy_worker *w);

/* The same for writers: a reference that pis_shm_start/finish and the
 * probe check (pin) before each write.  0, or -1 without a slot. */
int pis_shm_ref(apr_pool_t *p, server_rec *s, proxy_balancer *b,
                proxy_worker *w, pis_slot_ref *out);

/* pis_slot_start/finish on the slot of ref, only while it is still the
 * member's (else nothing: the slot has changed hands). */
void pis_shm_start(const pis_slot_ref *ref);
void pis_shm_finish(const pis_slot_ref *ref, const pis_sample *x);

/* The key of a member, and the server that owns its balancer (the main
 * server for balancers a virtual host inherits). */
const char *pis_shm_key(apr_pool_t *p, server_rec *s, proxy_balancer *b,
                        proxy_worker *w);
int pis_shm_inherited(server_rec *s, proxy_balancer *b);

/* The server that owns balancer b as seen from server s: the main server
 * for a balancer s inherited, else s.  Its settings say how b is probed
 * (PiStatsProbeInterval: telemetry's staleness), its name keys b's slots. */
server_rec *pis_shm_owner(server_rec *s, proxy_balancer *b);
const char *pis_shm_prefix(apr_pool_t *p, server_rec *s, proxy_balancer *b);

/* mod_proxy's configuration of s, or NULL without mod_proxy. */
proxy_server_conf *pis_proxy_conf(server_rec *s);

/* Milliseconds and seconds of the wall clock, as the slots keep them:
 * pi_now_ms() and pi_now_s() of common/pi_clock.h. */

#endif /* PIS_SHM_H */
