/* pi_answer.h -- the connection-filter stamp of a 101 (see
 * pib_watch_upgrade_answer() in pi_api.h), linked into both modules from
 * common/pi_answer.c.  mod_pibalance registers it as that optional
 * function; mod_pistats calls its own copy only when the optional
 * function is not there (mod_pibalance not loaded).  Hidden: each module
 * calls its own copy, never the other's.
 */
#ifndef PI_ANSWER_H
#define PI_ANSWER_H

#include "httpd.h"

#include "pi_api.h"

#define PI_HIDDEN __attribute__((visibility("hidden")))

/* register_hooks: registers the connection filter under `filter_name`
 * (one name per module). */
PI_HIDDEN void pi_answer_register(const char *filter_name);

/* pib_watch_upgrade_answer()'s contract (pi_api.h). */
PI_HIDDEN int pi_answer_watch(request_rec *r, pi_answer_fn *fn, void *baton);

#endif /* PI_ANSWER_H */
