/* pis_shm.h -- the table of member slots in shared memory.
 *
 * One anonymous segment per server lifetime: created at the first start
 * on the process pool, it outlives graceful restarts (the counters of
 * members that still exist go on) and is never re-created, so restarts
 * leak nothing.  Each member owns a slot keyed "vhost|balancer|member";
 * post_config assigns the configured members and frees the slots of
 * members that left the configuration; members added at run time (the
 * balancer-manager) claim a slot with a compare-and-swap on first use.
 */
#ifndef PIS_SHM_H
#define PIS_SHM_H

#include "httpd.h"
#include "mod_proxy.h"

#include "pis_slot.h"

#define PIS_DEFAULT_MAX_MEMBERS 128

typedef struct {
    uint32_t magic;
    uint32_t capacity;
    uint32_t slot_size;
    uint32_t gen;                 /* bumped by every post_config */
    uint32_t start_s;             /* when the segment was made */
    uint32_t pad[3];
    pis_slot slots[1];            /* capacity of them */
} pis_table;

/* post_config (parent): attaches to or creates the segment, then assigns
 * every configured member a slot.  Returns APR_SUCCESS, or an error
 * already logged. */
apr_status_t pis_shm_setup(apr_pool_t *pconf, server_rec *s,
                           unsigned capacity);

/* child_init: builds this process's worker -> slot index. */
void pis_shm_child_init(apr_pool_t *pchild, server_rec *s);

/* The table, or NULL when statistics are off. */
pis_table *pis_shm_table(void);

/* The slot of a member: from the index, else found or claimed by key
 * (members added at run time; not when p is NULL: then nothing is
 * allocated).  NULL when the table is full. */
pis_slot *pis_shm_slot(apr_pool_t *p, server_rec *s, proxy_balancer *b,
                       proxy_worker *w);

/* The key of a member, and the server that owns its balancer (the main
 * server for balancers a virtual host inherits). */
const char *pis_shm_key(apr_pool_t *p, server_rec *s, proxy_balancer *b,
                        proxy_worker *w);
int pis_shm_inherited(server_rec *s, proxy_balancer *b);
const char *pis_shm_prefix(apr_pool_t *p, server_rec *s, proxy_balancer *b);

/* mod_proxy's configuration of s, or NULL without mod_proxy. */
proxy_server_conf *pis_proxy_conf(server_rec *s);

/* Milliseconds and seconds of the wall clock, as the slots keep them. */
uint32_t pis_now_ms(void);
uint32_t pis_now_s(void);

#endif /* PIS_SHM_H */
