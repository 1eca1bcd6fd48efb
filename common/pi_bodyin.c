/* pi_bodyin.c -- "the request body is in": one input filter per
 * request with a body, calling back whoever waits for the moment the
 * proxy has read all of it (see pib_watch_body_in() in include/pi_api.h).
 *
 * Why: a node cannot answer a request it has not received.  While a
 * client is still sending its body -- a phone uploading a photo for 30 s,
 * a client that trickles or stops -- the time is the client's, not the
 * member's: lbmethod "pi" starts its response-time sample and its
 * silence mark, and mod_pistats its response time, when the body is in
 * (a request without one: at once).  mod_pibalance registers its copy
 * as the optional function, so one filter serves both modules;
 * mod_pistats' copy runs only without mod_pibalance.
 *
 * The filter sits at the top of the request's input (AP_FTYPE_RESOURCE,
 * above HTTP_IN), so it sees the EOS the proxy's reads end with,
 * whichever way the proxy reads (streamed, spooled, prefetched, FastCGI,
 * AJP).  The watchers live in the request's pool (userdata).  Cost:
 * nothing for a request without a body; one brigade walk per read of
 * one that has one.  Left out: a body something read before the proxy
 * (mod_request's KeptBodySize): its EOS passed before the filter was in,
 * so the watchers are never called and the callers fall back to the
 * pick's time, as before.
 */
#include "httpd.h"
#include "http_protocol.h"
#include "util_filter.h"
#include "apr_pools.h"

#include "pi_bodyin.h"

#define PI_BODYIN_KEY "pi_bodyin_watchers"

typedef struct {
    int in;                          /* the EOS has passed */
    int n;
    pi_bodyin_fn *fn[PI_BODYIN_MAX];
    void *baton[PI_BODYIN_MAX];
} pi_bodyin;

static ap_filter_rec_t *bodyin_filter;

static void call_watchers(pi_bodyin *b)
{
    int i;

    b->in = 1;
    for (i = 0; i < b->n; i++) {
        b->fn[i](b->baton[i]);
    }
}

/* Passes what was read; on the EOS, every watcher, once, and out of the
 * way. */
static apr_status_t bodyin_filter_fn(ap_filter_t *f, apr_bucket_brigade *bb,
                                     ap_input_mode_t mode,
                                     apr_read_type_e block,
                                     apr_off_t readbytes)
{
    pi_bodyin *b = f->ctx;
    apr_status_t rv = ap_get_brigade(f->next, bb, mode, block, readbytes);
    apr_bucket *e;

    if (rv != APR_SUCCESS || b == NULL || b->in) {
        return rv;
    }
    for (e = APR_BRIGADE_FIRST(bb); e != APR_BRIGADE_SENTINEL(bb);
         e = APR_BUCKET_NEXT(e)) {
        if (APR_BUCKET_IS_EOS(e)) {
            call_watchers(b);
            ap_remove_input_filter(f);
            break;
        }
    }
    return rv;
}

void pi_bodyin_register(const char *filter_name)
{
    bodyin_filter = ap_register_input_filter(filter_name, bodyin_filter_fn,
                                             NULL, AP_FTYPE_RESOURCE);
}

/* The request's watchers, the filter in place for a body not yet in;
 * NULL when it cannot be added. */
static pi_bodyin *watchers_of(request_rec *r)
{
    void *data = NULL;
    pi_bodyin *b;

    apr_pool_userdata_get(&data, PI_BODYIN_KEY, r->pool);
    if (data != NULL) {
        return data;
    }
    b = apr_pcalloc(r->pool, sizeof(*b));
    if (!ap_request_has_body(r)) {
        b->in = 1;
    }
    else if (bodyin_filter == NULL
             || ap_add_input_filter_handle(bodyin_filter, b, r,
                                           r->connection) == NULL) {
        return NULL;
    }
    apr_pool_userdata_setn(b, PI_BODYIN_KEY, NULL, r->pool);
    return b;
}

int pi_bodyin_watch(request_rec *r, pi_bodyin_fn *fn, void *baton)
{
    pi_bodyin *b = watchers_of(r);

    if (b == NULL) {
        return -1;
    }
    if (b->in) {
        return 1;
    }
    if (b->n >= PI_BODYIN_MAX) {
        return -1;
    }
    b->fn[b->n] = fn;
    b->baton[b->n] = baton;
    b->n++;
    return 0;
}
