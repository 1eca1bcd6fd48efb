/* pib_state.h -- lbmethod "pi"'s per-member state, shared by all
 * children: response-time estimate, heat drain, slow-start ramp, and
 * what was last logged.
 *
 * One table of keyed slots for every balancer's members (pib_slots.c),
 * made once on the process pool, so a graceful restart keeps each
 * member's state (a member of the new configuration with the key of an
 * old one, "server|balancer|member", finds its state: drained stays
 * drained, down stays down, its estimate and slow start go on, and what
 * was logged is not logged again).  post_config maps each balancer's
 * member slots (worker->s->index, growth included) to their states.
 */
#ifndef PIB_STATE_H
#define PIB_STATE_H

#include <stdint.h>

#include "pi_clock.h"

#include "httpd.h"
#include "http_config.h"
#include "mod_proxy.h"

#include "pib_mstate.h"     /* pib_mstate, its operations, pi_age_ms */

/* post_config: the states of every balancer of every server. */
apr_status_t pib_state_setup(apr_pool_t *pconf, server_rec *s);

/* The states of balancer b's member slots (*max of them), or NULL.  One
 * look-up a pick: index it with pib_state_at().  Lock-free. */
pib_mstate **pib_state_of(const proxy_balancer *b, unsigned *max);

/* Member w's state in a balancer's states, or NULL. */
static APR_INLINE pib_mstate *pib_state_at(pib_mstate **states, unsigned max,
                                           const proxy_worker *w)
{
    return states && (unsigned)w->s->index < max ? states[w->s->index]
                                                  : NULL;
}

/* The state of member w of balancer b, or NULL. */
pib_mstate *pib_state_get(const proxy_balancer *b, const proxy_worker *w);

/* The configuration vector of b's <Proxy> section, or NULL. */
ap_conf_vector_t *pib_state_section(const proxy_balancer *b);

/* The clock of the stamps above and its ages: pi_now_ms() and pi_age_ms()
 * (common/pi_clock.h). */

#endif /* PIB_STATE_H */
