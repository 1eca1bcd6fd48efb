/* pib_lbmethod.h -- the lbmethod provider "pi" for mod_proxy_balancer:
 * the pick (pib_lbmethod.c), and what it makes of a member, for the
 * attempt (pib_attempt.c) and /pi-status (pib_public.c). */
#ifndef PIB_LBMETHOD_H
#define PIB_LBMETHOD_H

#include "httpd.h"
#include "mod_proxy.h"

#include "pib_member.h"
#include "pib_mstate.h"
#include "pib_score.h"

/* The provider registered under PROXY_LBMETHOD as "pi". */
extern const proxy_balancer_method pib_lbmethod;

/* Fetches mod_proxy's get_best_worker helper and mod_pistats' telemetry.
 * Call from post_config (not the pre-config pass).  Returns 0 when
 * mod_proxy is missing. */
int pib_lbmethod_bind(void);

/* post_config, after mod_proxy_balancer's: warns (once a start) of each
 * balancer of the main server's that uses lbmethod pi but runs another
 * method in a virtual host (mod_proxy's merge_balancers keeps a host's
 * own shared record when the host names the balancer in its ProxyPass,
 * lbmethod byrequests with it). */
void pib_lbmethod_check(server_rec *s);

/* Member w's view (pib_member.c's rules) from its telemetry and state st
 * at `now`; with st_update, its state changes applied and logged
 * (pib_transit.c: the finder does; the status page only looks). */
void pib_lb_view(server_rec *s, proxy_balancer *b, proxy_worker *w,
                 const pib_tuning *t, pib_mstate *st, uint32_t now,
                 int st_update, pib_tel *tel, pib_view *v);

/* Its response-time estimate now, as the pick weighs it; < 0: no sample
 * (or on trial after a time down). */
double pib_lb_estimate(const pib_mstate *st, uint32_t now,
                       const pib_tuning *t);

/* How long it has answered nothing since a pick, in ms (0: not silent);
 * with drop, a mark a dead child left is cleared. */
uint32_t pib_lb_stall(const server_rec *s, const proxy_worker *w,
                      pib_mstate *st, uint32_t now, int drop);

/* The timeout mod_proxy gives it: its timeout=, else ProxyTimeout, else
 * Timeout; in ms. */
uint32_t pib_lb_timeout_ms(const server_rec *s, const proxy_worker *w);

#endif /* PIB_LBMETHOD_H */
