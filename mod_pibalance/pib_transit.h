/* pib_transit.h -- lbmethod "pi": a member's state changes, each applied
 * to its shared state (pib_mstate.c's named operations), logged and
 * posted as an event once, whichever child sees it first: drained and
 * re-admitted, throttled and no longer, telemetry stale and back, down
 * ("member failed") and back ("member back").  The pick (pib_lbmethod.c)
 * and the attempt (pib_attempt.c) decide; this applies and tells.
 */
#ifndef PIB_TRANSIT_H
#define PIB_TRANSIT_H

#include "httpd.h"
#include "mod_proxy.h"

#include "pib_member.h"
#include "pib_mstate.h"

/* What member w's telemetry (tel, its view v) changes in st at `now`:
 * freshness, throttle, drain; a re-admission or a return after stale
 * telemetry begins a slow start. */
void pib_transit_telemetry(server_rec *s, const proxy_balancer *b,
                           const proxy_worker *w, pib_mstate *st,
                           const pib_tel *tel, const pib_view *v,
                           uint32_t now);

/* Members of b mod_proxy does not use now (error, disabled, stopped,
 * draining) are noted down: one "member failed" a time down, however
 * many picks see them so.  states and max: pib_state_of(b). */
void pib_transit_downs(proxy_balancer *b, pib_mstate *states, unsigned max);

/* Member w served a request (its answer came) and is usable: if it was
 * noted down it is back, once: its failures forgotten (call before the
 * answer's sample is added), its slow start begun at `now`. */
void pib_transit_back(const proxy_balancer *b, const proxy_worker *w,
                      pib_mstate *st, uint32_t now);

#endif /* PIB_TRANSIT_H */
