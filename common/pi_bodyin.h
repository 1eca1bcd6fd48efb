/* pi_bodyin.h -- the client's request body as the proxy reads it
 * (common/pi_bodyin.c), linked into both modules.  mod_pibalance
 * registers it as the optional functions pib_watch_body() and
 * pib_body_state() (include/pi_api.h); mod_pistats calls its own copy
 * only when those are not there (mod_pibalance not loaded).  Hidden: each
 * module calls its own copy, never the other's (pi_local.h).
 */
#ifndef PI_BODYIN_H
#define PI_BODYIN_H

#include "httpd.h"

#include "pi_api.h"
#include "pi_local.h"

/* register_hooks: registers the input filter under `filter_name` (one
 * name per module). */
PI_LOCAL void pi_bodyin_register(const char *filter_name);

/* pib_watch_body()'s and pib_body_state()'s contracts (pi_api.h). */
PI_LOCAL int pi_bodyin_watch(request_rec *r, pi_bodyin_fn *fn, void *baton);
PI_LOCAL void pi_bodyin_state(request_rec *r,
                              apr_interval_time_t *client_wait,
                              int *client_failed);

#endif /* PI_BODYIN_H */
