/* pib_public.h -- what mod_pibalance offers outside itself: the request
 * notes of the offload, and (through include/pi_api.h, the contract
 * between the two modules) the optional functions pib_deflate_state,
 * pib_deflate_counters, pib_get_member_weight, pib_get_balancer_settings,
 * pib_watch_upgrade_answer and pib_watch_body_in, all registered by
 * pib_public_register() (pib_public.c).
 *
 * Request notes set by the deflate offload on every compressed response
 * (decimal strings, readable in post_request and in LogFormat %{...}n):
 *   pibalance-deflate-in     bytes before compression
 *   pibalance-deflate-out    bytes after compression (gzip framing included)
 *   pibalance-deflate-ratio  out * 100 / in, whole percent (absent if in is 0)
 */
#ifndef PIB_PUBLIC_H
#define PIB_PUBLIC_H

#include "pi_api.h"

#define PIB_NOTE_DEFLATE_IN    "pibalance-deflate-in"
#define PIB_NOTE_DEFLATE_OUT   "pibalance-deflate-out"
#define PIB_NOTE_DEFLATE_RATIO "pibalance-deflate-ratio"

/* register_hooks: offers every optional function above. */
void pib_public_register(apr_pool_t *p);

#endif /* PIB_PUBLIC_H */
