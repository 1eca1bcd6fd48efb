/* pis_track.c -- counts each balancer member's requests, as they happen.
 *
 * An attempt starts in mod_proxy's scheme_handler hook (the chosen member
 * is known there, once per attempt: a failover is a new attempt) and
 * ends in the request_status hook, which also tells whether the proxy
 * made the error itself (no answer from the node: 502/503/504) or passed
 * on the node's status (as is, or replaced by ProxyErrorOverride's error
 * page: still the node's answer, counted in its status class).  The
 * response time is taken when the node's headers come (the first pass
 * of the count filter below; a 101 on the connection's filter, shared
 * with mod_pibalance: common/pi_answer.c), never
 * at the end of a body, a stream or a tunnel.  A failed attempt that is retried on another
 * member counts as a proxy error of the first member.  An output filter
 * counts the body bytes that come from the node, before any compression;
 * r->bytes_sent gives the bytes sent to the client.
 *
 * Cost on the request path: one hash look-up, a few atomic adds, no lock,
 * no allocation beyond the request's own small record.
 */
#include <dlfcn.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "util_filter.h"
#include "mod_proxy.h"

#include "pi_clock.h"
#include "pi_outcome.h"
#include "pis_config.h"
#include "pis_log.h"
#include "pis_public.h"
#include "pis_shm.h"
#include "pis_track.h"

APLOG_USE_MODULE(pistats);

PI_OUTCOME_CHECK;

#define PIS_COUNT_FILTER "PISTATS_COUNT"

typedef struct {
    pis_slot_ref ref;              /* attempt in progress: slot != NULL */
    apr_time_t picked;             /* the attempt began */
    apr_time_t start;              /* the member's time began: then, or
                                    * when the request body was in; 0:
                                    * not yet */
    int body_watch;                /* the body-in watcher is set */
    int body_in;                   /* the request body is in (or none) */
    apr_time_t answered;           /* the node's headers came, or 0 */
    apr_off_t bytes_in;            /* body bytes from the node */
    int conn_stamp;                /* the connection's stamp filter is in */
} pis_req;

static pis_req *req_state(request_rec *r, int create)
{
    pis_req *q = ap_get_module_config(r->request_config, &pistats_module);

    if (q == NULL && create) {
        q = apr_pcalloc(r->pool, sizeof(*q));
        ap_set_module_config(r->request_config, &pistats_module, q);
    }
    return q;
}

static uint32_t clamp32(apr_off_t v)
{
    return v < 0 ? 0 : v > 0xffffffffLL ? 0xffffffffU : (uint32_t)v;
}

/* Ends the attempt in progress: the node's status, or (status 0) a
 * proxy error, or the client's fault (pi_outcome.h). */
static void finish(request_rec *r, pis_req *q, int status, int proxy_error,
                   int client_error)
{
    apr_time_t began = q->start != 0 ? q->start : q->picked;
    pis_sample x;
    apr_time_t now = pi_mono_us();

    if (q->ref.slot == NULL) {
        return;
    }
    x.now_s = pi_now_s();              /* names the second of the rings */
    x.now_ms = pi_now_ms();
    /* The response time is how long the node took to start answering,
     * never how long its body, a stream or a tunnel lasted. */
    if (q->answered != 0) {
        now = q->answered;
    }
    x.dur_us = clamp32(now > began ? now - began : 0);
    x.status = status;
    x.proxy_error = proxy_error;
    x.client_error = client_error;
    x.bytes_in = proxy_error ? 0 : clamp32(q->bytes_in);
    x.bytes_out = proxy_error ? 0 : clamp32(r->bytes_sent);
    pis_shm_finish(&q->ref, &x);
    q->ref.slot = NULL;
}

/* Safety net: an attempt still open when the request ends (an abort
 * path that skipped request_status) is closed as a proxy error, so
 * in-flight never leaks. */
static apr_status_t finish_on_cleanup(void *data)
{
    request_rec *r = data;
    pis_req *q = req_state(r, 0);

    if (q != NULL && q->ref.slot != NULL) {
        finish(r, q, 0, 1, 0);
    }
    return APR_SUCCESS;
}

/* The node started answering the attempt in progress (once). */
static void stamp(pis_req *q)
{
    if (q != NULL && q->ref.slot != NULL && q->answered == 0) {
        q->answered = pi_mono_us();
    }
}

/* For a request asking for an upgrade: the 101 and the tunnel after it
 * go straight to the connection's filters, bypassing the request's; the
 * shared connection filter (pi_api.h: pib_watch_upgrade_answer) calls
 * this when the 101 passes. */
static void stamp_upgrade(void *baton)
{
    stamp(baton);
}

static void add_conn_stamp(request_rec *r, pis_req *q)
{
    if (q->conn_stamp) {
        return;
    }
    q->conn_stamp = 1;
    pis_watch_upgrade_answer(r, stamp_upgrade, q);
}

/* The request body is in (common/pi_bodyin.c): the member's time begins
 * for the attempt in progress. */
static void body_in(void *baton)
{
    pis_req *q = baton;

    q->body_in = 1;
    if (q->ref.slot != NULL && q->start == 0) {
        q->start = pi_mono_us();
    }
}

static void watch_body(request_rec *r, pis_req *q)
{
    if (!q->body_watch) {
        q->body_watch = 1;
        q->body_in = pis_watch_body_in(r, body_in, q) != 0;
    }
}

static int track_attempt(request_rec *r, proxy_worker *worker,
                         proxy_server_conf *conf, char *url,
                         const char *proxyhost, apr_port_t proxyport)
{
    pis_req *q;
    pis_slot_ref ref;

    (void)conf;
    (void)url;
    (void)proxyhost;
    (void)proxyport;
    if (worker == NULL || worker->balancer == NULL || r->main != NULL) {
        return DECLINED;
    }
    if (pis_shm_ref(r->pool, r->server, worker->balancer, worker, &ref)
        != 0) {
        return DECLINED;
    }
    q = req_state(r, 1);
    if (q->ref.slot != NULL) {
        finish(r, q, 0, 1, 0);         /* the previous attempt failed */
    }
    else {
        apr_pool_cleanup_register(r->pool, r, finish_on_cleanup,
                                  apr_pool_cleanup_null);
    }
    q->ref = ref;
    q->picked = pi_mono_us();
    q->answered = 0;
    q->bytes_in = 0;
    add_conn_stamp(r, q);
    watch_body(r, q);
    q->start = q->body_in ? q->picked : 0;
    pis_shm_start(&ref);
    return DECLINED;
}

/* After all proxy processing: *status is mod_proxy's access status. */
static int track_done(int *status, request_rec *r)
{
    pis_req *q = req_state(r, 0);
    int overridden = apr_table_get(r->notes, "proxy-error-override") != NULL;

    if (q == NULL || q->ref.slot == NULL) {
        return DECLINED;
    }
    switch (pi_attempt_end_of(*status, overridden)) {
    case PI_END_ANSWERED:
        /* the node's status; with ProxyErrorOverride, its page ours */
        finish(r, q, *status == OK || *status == DONE ? r->status : *status,
               0, 0);
        break;
    case PI_END_CLIENT:
        finish(r, q, *status, 0, 1);
        break;
    default:
        finish(r, q, *status, 1, 0);
    }
    return DECLINED;
}

static apr_status_t count_filter(ap_filter_t *f, apr_bucket_brigade *bb)
{
    pis_req *q = req_state(f->r, 1);
    apr_bucket *e;

    stamp(q);                          /* first pass: the node's headers */

    for (e = APR_BRIGADE_FIRST(bb); e != APR_BRIGADE_SENTINEL(bb);
         e = APR_BUCKET_NEXT(e)) {
        if (!APR_BUCKET_IS_METADATA(e) && e->length != (apr_size_t)-1) {
            q->bytes_in += (apr_off_t)e->length;
        }
    }
    return ap_pass_brigade(f->next, bb);
}

static void insert_count_filter(request_rec *r)
{
    if (r->proxyreq == PROXYREQ_REVERSE && r->main == NULL
        && pis_shm_table() != NULL) {
        ap_add_output_filter(PIS_COUNT_FILTER, NULL, r, r->connection);
    }
}

void pis_track_register(apr_pool_t *p)
{
    (void)p;
    APR_OPTIONAL_HOOK(proxy, request_status, track_done, NULL, NULL,
                      APR_HOOK_MIDDLE);
    ap_register_output_filter(PIS_COUNT_FILTER, count_filter, NULL,
                              AP_FTYPE_RESOURCE);
    ap_hook_insert_filter(insert_count_filter, NULL, NULL, APR_HOOK_MIDDLE);
}

typedef void pis_hook_scheme_fn(proxy_HOOK_scheme_handler_t *pf,
                                const char * const *pre,
                                const char * const *succ, int order);

void pis_track_pre_config(apr_pool_t *pconf)
{
    pis_hook_scheme_fn *hook;

    (void)pconf;
    if (ap_find_linked_module("mod_proxy.c") == NULL) {
        return;                        /* a node: nothing to track */
    }
    /* LoadModule loads with RTLD_GLOBAL: mod_proxy's symbols are there. */
    *(void **)&hook = dlsym(RTLD_DEFAULT, "proxy_hook_scheme_handler");
    if (hook == NULL) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, NULL, PISLOGNO(10020)
                     "mod_proxy is loaded but proxy_hook_scheme_handler"
                     " is not found: no per-member statistics");
        return;
    }
    hook(track_attempt, NULL, NULL, APR_HOOK_REALLY_FIRST);
}
