/* pi_bodyin.h -- "the request body is in" (common/pi_bodyin.c), linked
 * into both modules.  mod_pibalance registers it as the optional function
 * pib_watch_body_in() (include/pi_api.h); mod_pistats calls its own copy
 * only when that is not there (mod_pibalance not loaded).  Hidden: each
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

/* pib_watch_body_in()'s contract (pi_api.h). */
PI_LOCAL int pi_bodyin_watch(request_rec *r, pi_bodyin_fn *fn, void *baton);

#endif /* PI_BODYIN_H */
