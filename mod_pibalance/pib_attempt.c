/* pib_attempt.c -- lbmethod "pi": timing each attempt at a member.
 *
 * An attempt begins at the pick (pib_attempt_picked(), from the finder)
 * and its sample is taken once: when the node's response headers come (a
 * filter sees the response's first brigade; for a 101, which bypasses
 * the request's filters, the connection filter of common/pi_answer.c,
 * which mod_pistats shares), or, without an answer, when mod_proxy is
 * done (request_status): a failure of the member, unless the node's
 * status was answered (ProxyErrorOverride's note) or the client broke its
 * own request (common/pi_outcome.h: no sample at all).  The member's time
 * begins at the pick, or, for a request with a body, when the proxy has
 * read all of it (common/pi_bodyin.c): an upload's time is the client's.
 * The same moment sets the silence mark (pib_mstate.c), which any answer
 * or failure clears.  A download, a stream or a tunnel that lasts minutes
 * is a sample of milliseconds (docs/lbmethod-pi.md, "Samples").
 *
 * Cost: per request, one small record in the request's pool, two
 * filters (one per request with a body or an upgrade), a few atomic
 * operations when the sample is taken.
 */
#include "httpd.h"
#include "http_config.h"
#include "util_filter.h"
#include "mod_proxy.h"

#include "pi_answer.h"
#include "pi_api.h"
#include "pi_bodyin.h"
#include "pi_outcome.h"
#include "pib_attempt.h"
#include "pib_lbmethod.h"
#include "pib_member.h"
#include "pib_req.h"
#include "pib_state.h"
#include "pib_transit.h"

PI_OUTCOME_CHECK;

/* Per request: which member the current attempt went to, and when. */
typedef struct {
    proxy_balancer *b;
    proxy_worker *w;
    apr_time_t picked;         /* the pick (pi_mono_us) */
    apr_time_t start;          /* the member's time began: the pick, or
                                  the request body in; 0: not yet */
    double decay_s;
    const server_rec *s;       /* for the member's timeout */
    int answered;              /* its sample is taken (headers came) */
    int stamping;              /* the stamp filters are in place */
    int body_in;               /* the request body is in (or none) */
} pib_attempt;

static void record(pib_attempt *a, int failed)
{
    pib_mstate *st = pib_state_get(a->b, a->w);
    apr_time_t now = pi_mono_us(), began;
    uint32_t took, before;
    int compound;

    if (st == NULL) {
        return;
    }
    pib_ms_answered(st);
    if (!failed) {
        pib_transit_back(a->b, a->w, st, pi_now_ms());
    }
    began = a->start != 0 ? a->start : a->picked;
    took = (uint32_t)(now - began > 0x7fffffff ? 0x7fffffff
                      : now < began ? 0 : now - began);
    before = pib_ms_failed(st);
    /* Right after another failure, this one waited the member's whole
     * timeout (within 10%): no answer at all.  Only then it compounds. */
    compound = pib_fail_compounds(failed, before, took,
                                  pib_lb_timeout_ms(a->s, a->w));
    pib_ms_add_sample(st, pi_now_ms(), took, failed, compound,
                      a->decay_s);
    /* After the estimate: a pib_ms_forget_failures() racing with this
     * sample finds the flag set again, not an estimate it did not
     * clear. */
    if (failed || before != 0) {
        pib_ms_set_failed(st, (uint32_t)failed);
    }
}

/* The attempt failed by the client's fault (pi_outcome.h): no sample, no
 * failure; the member waits for nothing any more. */
static void client_fault(pib_attempt *a)
{
    pib_mstate *st = pib_state_get(a->b, a->w);

    if (st != NULL) {
        pib_ms_answered(st);
    }
}

/* The member's time begins: its sample's clock and the silence mark
 * (once an attempt: at the pick, or when the request body is in). */
static void begin(pib_attempt *a)
{
    pib_mstate *st;

    if (a->w == NULL || a->start != 0) {
        return;
    }
    a->start = pi_mono_us();
    if ((st = pib_state_get(a->b, a->w)) != NULL) {
        pib_ms_mark_pick(st, pi_now_ms());
    }
}

/* common/pi_bodyin.c: the proxy has read the whole request body. */
static void body_in(void *baton)
{
    pib_attempt *a = baton;

    a->body_in = 1;
    begin(a);
}

pib_req *pib_req_get(request_rec *r, int create)
{
    extern module AP_MODULE_DECLARE_DATA pibalance_module;
    pib_req *q = ap_get_module_config(r->request_config, &pibalance_module);

    if (q == NULL && create) {
        q = apr_pcalloc(r->pool, sizeof(*q));
        ap_set_module_config(r->request_config, &pibalance_module, q);
    }
    return q;
}

static pib_attempt *attempt_of(request_rec *r)
{
    pib_req *q = pib_req_get(r, 1);

    if (q->attempt == NULL) {
        q->attempt = apr_pcalloc(r->pool, sizeof(pib_attempt));
    }
    return q->attempt;
}

/* The node started answering: the attempt's sample is the time to its
 * response headers, whatever its body, a stream or a tunnel takes after
 * (docs/lbmethod-pi.md, "samples").  Once an attempt. */
static void answered(pib_attempt *a)
{
    if (a != NULL && a->w != NULL && !a->answered) {
        a->answered = 1;
        record(a, 0);
    }
}

#define PIB_ANSWER_FILTER  "PIB_ANSWERED"
static ap_filter_rec_t *answer_filter;

/* First in the request's output: the response's first brigade passes
 * here as soon as mod_proxy has read the node's headers (mod_proxy_http
 * flushes at once when no body is there yet), and a HEAD, 204 or 304
 * passes its lone EOS.  Then it steps out of the way. */
static apr_status_t answer_filter_fn(ap_filter_t *f, apr_bucket_brigade *bb)
{
    answered(f->ctx);
    ap_remove_output_filter(f);
    return ap_pass_brigade(f->next, bb);
}

/* For a request asking for an upgrade: a 101 (and the tunnel after it)
 * bypasses the request's filters, going straight to the connection's;
 * common/pi_answer.c's connection filter calls this then. */
static void answered_upgrade(void *baton)
{
    answered(baton);
}

/* Once a request: the filters that stamp when the node answers, and
 * the one that says when the request body is in. */
static void add_stamps(request_rec *r, pib_attempt *a)
{
    if (a->stamping) {
        return;
    }
    a->stamping = 1;
    ap_add_output_filter_handle(answer_filter, a, r, r->connection);
    pi_answer_watch(r, answered_upgrade, a);
    a->body_in = pi_bodyin_watch(r, body_in, a) != 0;
}

/* After all proxy processing: the attempt's response time, unless the
 * node's headers gave it already.  A status the node answered (passed on,
 * or replaced by ProxyErrorOverride's error page) is an answer, not a
 * failure of the member. */
static int attempt_status(int *status, request_rec *r)
{
    pib_req *q = pib_req_get(r, 0);
    pib_attempt *a = q ? q->attempt : NULL;
    pi_attempt_end end;

    if (a != NULL && a->w != NULL) {
        end = pi_attempt_end_of(*status, apr_table_get(r->notes,
                                    "proxy-error-override") != NULL);
        if (!a->answered && end == PI_END_CLIENT) {
            client_fault(a);
        }
        else if (!a->answered) {
            record(a, end == PI_END_FAILED);
        }
        a->w = NULL;
    }
    return DECLINED;
}

void pib_attempt_picked(request_rec *r, proxy_balancer *b, proxy_worker *w,
                        double decay_s)
{
    pib_attempt *a = attempt_of(r);

    if (a->w != NULL) {
        record(a, 1);                   /* the previous attempt failed */
    }
    a->b = b;
    a->w = w;
    a->picked = pi_mono_us();
    a->start = 0;
    a->decay_s = decay_s;
    a->s = r->server;
    a->answered = 0;
    add_stamps(r, a);
    if (a->body_in) {
        begin(a);
    }
}

void pib_attempt_register(apr_pool_t *p)
{
    (void)p;
    answer_filter = ap_register_output_filter(PIB_ANSWER_FILTER,
                                              answer_filter_fn, NULL,
                                              AP_FTYPE_RESOURCE);
    APR_OPTIONAL_HOOK(proxy, request_status, attempt_status, NULL, NULL,
                      APR_HOOK_MIDDLE);
}
