/* pis_public.h -- mod_pistats' side of the contract with mod_pibalance
 * (include/pi_api.h): it offers pis_get_member_tel, and uses what
 * mod_pibalance offers when it is loaded (looked up in post_config).
 */
#ifndef PIS_PUBLIC_H
#define PIS_PUBLIC_H

#include "httpd.h"
#include "pi_api.h"

#include "pis_snap.h"

/* register_hooks: offers pis_get_member_tel; registers this module's
 * copy of the 101 stamp (common/pi_answer.c). */
void pis_public_register(void);

/* post_config: looks up what mod_pibalance offers (NULL without it). */
void pis_public_bind(void);

/* "full", "reduced (adaptive: ...)", or NULL without mod_pibalance. */
const char *pis_deflate_state(apr_pool_t *p);

/* The offload counters into snap (has_deflate_counts 0 without
 * mod_pibalance). */
void pis_deflate_counts(pis_snap *snap);

/* The settings of balancer b (of server s) into bs (has_settings 0
 * unless it uses lbmethod "pi" of a loaded mod_pibalance). */
void pis_fill_settings(server_rec *s, proxy_balancer *b,
                       pis_balancer_snap *bs);

/* The offload's adaptive state into snap (has_adaptive 0 without
 * mod_pibalance). */
void pis_deflate_adaptive(pis_snap *snap);

/* fn(baton) once the node answers a request asking for an upgrade (the
 * 101 passes the connection's filters): through mod_pibalance's filter
 * when it is loaded, else this module's own copy.  Returns 0 or -1. */
int pis_watch_upgrade_answer(request_rec *r, pi_answer_fn *fn, void *baton);

/* pib_watch_body_in()'s contract (pi_api.h): through mod_pibalance's
 * filter when it is loaded, else this module's own copy. */
int pis_watch_body_in(request_rec *r, pi_bodyin_fn *fn, void *baton);

#endif /* PIS_PUBLIC_H */
