/* pi_answer.c -- one connection filter per request that asks for an
 * upgrade, calling back whoever waits for the node's answer (see
 * pib_watch_upgrade_answer() in include/pi_api.h).
 *
 * A 101 (and the tunnel after it) bypasses the request's output filters,
 * going straight to the connection's, so lbmethod "pi" (its response-time
 * sample, the end of the silence mark) and mod_pistats (its response
 * time) learn here that the node answered.  Before, each module had its
 * own filter for this; now mod_pibalance's copy serves both, and
 * mod_pistats' copy only runs without mod_pibalance.
 *
 * The watchers of a request live in its pool (userdata); the filter is
 * removed when the request ends, so on a kept-alive connection it never
 * outlives what it points to.  Cost: nothing for a request without an
 * Upgrade header.
 */
#include "httpd.h"
#include "util_filter.h"
#include "apr_pools.h"

#include "pi_answer.h"

#define PI_ANSWER_KEY "pi_answer_watchers"

typedef struct {
    ap_filter_t *f;
    int n;
    pi_answer_fn *fn[PI_ANSWER_MAX];
    void *baton[PI_ANSWER_MAX];
} pi_watchers;

static ap_filter_rec_t *answer_filter;

/* The first response bytes on the connection: every watcher, once. */
static apr_status_t answer_filter_fn(ap_filter_t *f, apr_bucket_brigade *bb)
{
    pi_watchers *w = f->ctx;
    int i;

    if (w != NULL) {
        f->ctx = NULL;
        for (i = 0; i < w->n; i++) {
            w->fn[i](w->baton[i]);
        }
    }
    return ap_pass_brigade(f->next, bb);
}

/* The request is over: the filter must not outlive it on a kept-alive
 * connection (its context is the request's). */
static apr_status_t drop_filter(void *data)
{
    ap_filter_t *f = data;

    f->ctx = NULL;
    ap_remove_output_filter(f);
    return APR_SUCCESS;
}

void pi_answer_register(const char *filter_name)
{
    answer_filter = ap_register_output_filter(filter_name, answer_filter_fn,
                                              NULL, AP_FTYPE_CONNECTION);
}

/* The request's watchers, with the filter in place; NULL if it cannot
 * be added. */
static pi_watchers *watchers_of(request_rec *r)
{
    void *data = NULL;
    pi_watchers *w;

    apr_pool_userdata_get(&data, PI_ANSWER_KEY, r->pool);
    if (data != NULL) {
        return data;
    }
    w = apr_pcalloc(r->pool, sizeof(*w));
    w->f = ap_add_output_filter_handle(answer_filter, w, r, r->connection);
    if (w->f == NULL) {
        return NULL;
    }
    apr_pool_cleanup_register(r->pool, w->f, drop_filter,
                              apr_pool_cleanup_null);
    apr_pool_userdata_setn(w, PI_ANSWER_KEY, NULL, r->pool);
    return w;
}

int pi_answer_watch(request_rec *r, pi_answer_fn *fn, void *baton)
{
    pi_watchers *w;

    if (apr_table_get(r->headers_in, "Upgrade") == NULL) {
        return 0;
    }
    if (answer_filter == NULL || (w = watchers_of(r)) == NULL
        || w->n >= PI_ANSWER_MAX) {
        return -1;
    }
    w->fn[w->n] = fn;
    w->baton[w->n] = baton;
    w->n++;
    return 0;
}
