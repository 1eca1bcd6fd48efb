/* pi_bodyin.c -- the client's request body as the proxy reads it: one
 * input filter per request with a body, which times the proxy's waits
 * for the client, notes a read that failed, and calls back whoever waits
 * for the body's first read and its end (see pib_watch_body() and
 * pib_body_state() in include/pi_api.h).
 *
 * Why: a node cannot answer a request it has not received.  While a
 * client is still sending its body -- a phone uploading a photo for 30 s,
 * a client that trickles or stops -- the time is the client's, not the
 * member's: lbmethod "pi" and mod_pistats take it out of the member's
 * response time, and lbmethod pi's silence mark is not the member's while
 * the proxy waits on the client.  And a body the client broke (aborted,
 * timed out, garbled, too large) makes the attempt the client's fault
 * (common/pi_outcome.h), whatever status mod_proxy then makes of it.
 * The time the proxy waits on the *node* (its 100 Continue, a node that
 * reads slowly while the body streams) is never counted as the client's:
 * only the time spent inside the filter's own reads is.
 *
 * mod_pibalance registers its copy as the optional functions, so one
 * filter serves both modules; mod_pistats' copy runs only without
 * mod_pibalance.  The filter sits at the top of the request's input
 * (AP_FTYPE_RESOURCE, above HTTP_IN), so it sees every read of the
 * proxy's, whichever way it reads (streamed, spooled, prefetched,
 * FastCGI, AJP).  The state lives in the request's pool, tied to its
 * request_rec (an internal redirect, which shares the pool, starts
 * afresh).  A body something read before the proxy (mod_request's
 * KeptBodySize) counts as in: its time was spent before the pick.
 * Cost: nothing for a request without a body; two clock reads and one
 * brigade walk per read of one that has one.
 */
#include "httpd.h"
#include "http_protocol.h"
#include "util_filter.h"
#include "apr_pools.h"

#include "pi_bodyin.h"
#include "pi_clock.h"

#define PI_BODYIN_KEY "pi_bodyin_watchers"

typedef struct {
    request_rec *r;                  /* whose body */
    int reading;                     /* the proxy has read from it */
    int in;                          /* the EOS has passed */
    int client_failed;               /* a read of it failed */
    apr_interval_time_t client_us;   /* blocked reading it, in all */
    int n;
    pi_bodyin_fn *fn[PI_BODYIN_MAX];
    void *baton[PI_BODYIN_MAX];
} pi_bodyin;

static ap_filter_rec_t *bodyin_filter;

static void call_watchers(pi_bodyin *b, int event)
{
    int i;

    for (i = 0; i < b->n; i++) {
        b->fn[i](b->baton[i], event);
    }
}

/* Times the read, notes a failure; the first read and the EOS to every
 * watcher, once each; then out of the way. */
static apr_status_t bodyin_filter_fn(ap_filter_t *f, apr_bucket_brigade *bb,
                                     ap_input_mode_t mode,
                                     apr_read_type_e block,
                                     apr_off_t readbytes)
{
    pi_bodyin *b = f->ctx;
    int64_t t0;
    apr_status_t rv;
    apr_bucket *e;

    if (b == NULL || b->in) {
        return ap_get_brigade(f->next, bb, mode, block, readbytes);
    }
    if (!b->reading) {
        b->reading = 1;
        call_watchers(b, PI_BODY_READING);
    }
    t0 = pi_mono_us();
    rv = ap_get_brigade(f->next, bb, mode, block, readbytes);
    b->client_us += (apr_interval_time_t)(pi_mono_us() - t0);
    if (rv != APR_SUCCESS && !APR_STATUS_IS_EAGAIN(rv)) {
        b->client_failed = 1;
        return rv;
    }
    for (e = APR_BRIGADE_FIRST(bb); e != APR_BRIGADE_SENTINEL(bb);
         e = APR_BUCKET_NEXT(e)) {
        if (APR_BUCKET_IS_EOS(e)) {
            b->in = 1;
            call_watchers(b, PI_BODY_IN);
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

/* r's state, NULL when it has none yet. */
static pi_bodyin *state_of(request_rec *r)
{
    void *data = NULL;

    apr_pool_userdata_get(&data, PI_BODYIN_KEY, r->pool);
    return data != NULL && ((pi_bodyin *)data)->r == r ? data : NULL;
}

/* r's state, the filter in place for a body not yet in; NULL when it
 * cannot be added. */
static pi_bodyin *watchers_of(request_rec *r)
{
    pi_bodyin *b = state_of(r);

    if (b != NULL) {
        return b;
    }
    b = apr_pcalloc(r->pool, sizeof(*b));
    b->r = r;
    if (!ap_request_has_body(r) || r->kept_body != NULL) {
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
    if (fn == NULL) {
        return 0;                      /* the filter only, for its state */
    }
    if (b->n >= PI_BODYIN_MAX) {
        return -1;
    }
    b->fn[b->n] = fn;
    b->baton[b->n] = baton;
    b->n++;
    return 0;
}

void pi_bodyin_state(request_rec *r, apr_interval_time_t *client_wait,
                     int *client_failed)
{
    const pi_bodyin *b = state_of(r);

    *client_wait = b != NULL ? b->client_us : 0;
    *client_failed = b != NULL && b->client_failed;
}
