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
#include "http_protocol.h"
#include "apr_buckets.h"

#include "pi_api.h"

#define PI_HIDDEN __attribute__((visibility("hidden")))

/* Whether a response brigade is the node's: not an error response
 * httpd makes itself (an input filter that failed on the client's body,
 * HTTP_IN's 400 for a garbled chunk, sends an error bucket down the
 * request's output filters before mod_proxy has anything of the node's):
 * the stamp filters of both modules must not take that for the node's
 * headers. */
static inline int pi_from_node(apr_bucket_brigade *bb)
{
    apr_bucket *e;

    for (e = APR_BRIGADE_FIRST(bb); e != APR_BRIGADE_SENTINEL(bb);
         e = APR_BUCKET_NEXT(e)) {
        if (AP_BUCKET_IS_ERROR(e)) {
            return 0;
        }
    }
    return 1;
}

/* register_hooks: registers the connection filter under `filter_name`
 * (one name per module). */
PI_HIDDEN void pi_answer_register(const char *filter_name);

/* pib_watch_upgrade_answer()'s contract (pi_api.h). */
PI_HIDDEN int pi_answer_watch(request_rec *r, pi_answer_fn *fn, void *baton);

#endif /* PI_ANSWER_H */
