/* pib_lbmethod.c -- lbmethod "pi": glue between mod_proxy_balancer and
 * the pure logic: the scoring and the pick (pib_score.c), what it makes
 * of a member (pib_member.c: freshness, weight, state names, cooling, the
 * compound-failure and silence rules) and the member's shared state
 * (pib_mstate.c: every atomic operation on it, named).
 *
 * mod_proxy's get_best_worker helper walks lbsets, skips disabled,
 * stopped, draining and failed members, and falls back to spares and hot
 * standbys exactly as for the stock methods; it offers the candidates,
 * which we collect.  Each becomes a pib_cand: in flight (mod_proxy's
 * busy count), the response-time estimate (pib_state), and the weight:
 * loadfactor x thermal x throttle x slow-start ramp, from the member's
 * telemetry (mod_pistats' probe, when loaded; missing or stale telemetry
 * gives factor 1, never a drain).  pib_choose() picks.
 *
 * Silence: a member that has answered nothing since a request was picked
 * for it S ago is estimated at least S (pib_choose), so a node that
 * hangs stops getting requests within a few of its response times.  The
 * mark is the clock of such a pick, in pib_mstate: set by a pick when
 * none is set, cleared by any answer or failure.  While it is set, the
 * request picked then is still in flight, whichever child holds it; no
 * in-flight count is needed (mod_proxy's busy is not exact across
 * prefork children).  A mark older than the member's timeout and a
 * second is dropped: a child that died left it.
 *
 * Samples: an attempt's response time is taken when the node's response
 * headers come (a filter sees the response's first brigade; for a 101,
 * which bypasses the request's filters, the connection filter of
 * common/pi_answer.c, which mod_pistats shares), which also
 * clears the silence mark: a download, a stream or a tunnel that lasts
 * minutes is a sample of milliseconds.  Without an answer, the sample is
 * taken when mod_proxy is done (request_status): a failure unless the
 * node's status was answered (ProxyErrorOverride's "proxy-error-override"
 * note says so).
 *
 * Cost: the finder runs under the balancer's thread mutex (taken by
 * mod_proxy_balancer), is O(members), allocates nothing and never blocks:
 * the probe writes telemetry elsewhere, this only reads it.  State
 * changes (drained, re-admitted, throttled, telemetry stale or back) are
 * logged once each, whichever child sees them first (compare-and-swap).
 */
#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "util_filter.h"
#include "mod_proxy.h"

#include "pib_event.h"
#include "pib_lbconf.h"
#include "pib_lbmethod.h"
#include "pib_log.h"
#include "pib_member.h"
#include "pib_req.h"
#include "pib_score.h"
#include "pib_state.h"
#include "pi_answer.h"
#include "pi_api.h"
#include "pi_bodyin.h"
#include "pi_outcome.h"

PI_OUTCOME_CHECK;

APLOG_USE_MODULE(pibalance);

#define PIB_MAX_CANDS 128        /* candidates considered in one pick */

static APR_OPTIONAL_FN_TYPE(proxy_balancer_get_best_worker) *get_best;
static APR_OPTIONAL_FN_TYPE(pis_get_member_tel) *get_info;
static module *proxy_mod;        /* for ProxyTimeout */

int pib_lbmethod_bind(void)
{
    get_best = APR_RETRIEVE_OPTIONAL_FN(proxy_balancer_get_best_worker);
    get_info = APR_RETRIEVE_OPTIONAL_FN(pis_get_member_tel);
    pib_event_bind();
    proxy_mod = ap_find_linked_module("mod_proxy.c");
    return get_best != NULL;
}

/* Compare-and-set: from -> to, once.  The plain load first keeps the
 * common case (no change) free of locked instructions on this
 * per-request path. */
static int cas32(uint32_t *p, uint32_t from, uint32_t to)
{
    if (__atomic_load_n(p, __ATOMIC_RELAXED) != from) {
        return 0;
    }
    return __atomic_compare_exchange_n(p, &from, to, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

static void fmt_temp(const pib_tel *in, char *buf, size_t n)
{
    if (in->has_temp) {
        pi_format_dc(in->temp_dc, buf, n);
    }
    else {
        apr_cpystrn(buf, "unknown", n);
    }
}

/* A member that comes back after failing (usable again, or its probe
 * answers again): what its failures did to the estimate says nothing about
 * it now, and compounded they would keep it out for minutes.  It starts
 * again from no sample (the median of the others); the caller starts its
 * slow start.  Returns whether it had failed. */
static int forget_failures(pib_mstate *st)
{
    if (!cas32(&st->failed, 1, 0)) {
        return 0;
    }
    pib_ms_forget_estimate(st);
    return 1;
}

/* Applies the telemetry's state changes to st, logging each once. */
static void transitions(server_rec *s, const proxy_balancer *b,
                        const proxy_worker *w, pib_mstate *st,
                        const pib_tel *tel, const pib_view *v, uint32_t now)
{
    char temp[24], bits[24];
    const char *bal = b->s->name, *name = w->s->name_ex;

    fmt_temp(tel, temp, sizeof(temp));
    /* stale: 0 never fresh yet (silent), 1 fresh, 2 stale since */
    if (v->fresh) {
        cas32(&st->stale, 0, 1);
        if (cas32(&st->stale, 2, 1)) {
            int forgot = forget_failures(st);

            if (forgot) {
                pib_ms_start_ramp(st, now);
            }
            ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, PIBLOGNO(12100)
                         "pi: %s telemetry back%s", w->s->name_ex,
                         forgot ? ": failures forgotten, slow start" : "");
            pib_event(PI_EVENT_FRESH, bal, name, tel->has_temp,
                      tel->temp_dc, forgot ? "slow start" : NULL);
        }
    }
    else if (cas32(&st->stale, 1, 2)) {
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, PIBLOGNO(10203)
                     "pi: %s telemetry missing or stale: thermal factor"
                     " 1", w->s->name_ex);
        pib_event(PI_EVENT_STALE, bal, name, 0, 0, "thermal factor 1");
    }
    if (cas32(&st->throttled, !v->throttled, v->throttled)) {
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, PIBLOGNO(10204)
                     "pi: %s %s at %s C (throttle bits 0x%lx)",
                     w->s->name_ex, v->throttled ? "throttled"
                     : "no longer throttled", temp, tel->throttled);
        apr_snprintf(bits, sizeof(bits), "bits 0x%lx", tel->throttled);
        pib_event(v->throttled ? PI_EVENT_THROTTLED : PI_EVENT_UNTHROTTLED,
                  bal, name, tel->has_temp, tel->temp_dc, bits);
    }
    if (cas32(&st->drained, !v->drained, v->drained)) {
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, PIBLOGNO(10201)
                     "pi: %s %s at %s C", w->s->name_ex,
                     v->drained ? "drained" : "re-admitted", temp);
        pib_event(v->drained ? PI_EVENT_DRAINED : PI_EVENT_READMITTED, bal,
                  name, tel->has_temp, tel->temp_dc,
                  v->drained ? NULL : "slow start");
        if (!v->drained) {
            pib_ms_start_ramp(st, now);
        }
    }
}

/* Member w's telemetry from mod_pistats (answered 0 without it). */
static void member_tel(server_rec *s, proxy_balancer *b, proxy_worker *w,
                       pib_tel *tel)
{
    pi_member_tel in;

    memset(&in, 0, sizeof(in));
    memset(tel, 0, sizeof(*tel));
    PI_STAMP_INIT(&in, PI_MEMBER_TEL_VERSION);
    tel->answered = get_info != NULL && get_info(s, b, w, &in) == 0;
    tel->stale = in.stale;
    tel->has_temp = in.has_temp;
    tel->temp_dc = in.temp_dc;
    tel->has_throttled = in.has_throttled;
    tel->throttled = in.throttled;
    tel->has_cpus = in.has_cpus;
    tel->cpus = in.cpus;
    tel->has_busy = in.has_busy;
    tel->busy = in.busy;
    tel->own_inflight = in.own_inflight;
    tel->age_ms = tel->answered ? in.age_ms : -1;
    tel->interval_ms = in.interval_ms;
}

/* Works out the member's view (pib_member.c's rules); with `st_update`,
 * applies and logs state changes (the finder does; the status page only
 * looks). */
static void member_view(server_rec *s, proxy_balancer *b, proxy_worker *w,
                        const pib_tuning *t, pib_mstate *st, uint32_t now,
                        int st_update, pib_tel *tel, pib_view *v)
{
    uint32_t began;

    member_tel(s, b, w, tel);
    pib_view_from_tel(t, tel, st ? (int)pib_ms_drained(st) : 0, v);
    if (st != NULL && st_update) {
        transitions(s, b, w, st, tel, v, now);
    }
    if (st != NULL && (began = pib_ms_ramp_began(st)) != 0) {
        v->ramp = pib_ramp(t, (double)pi_age_ms(now, began) / 1000.0);
        if (v->ramp >= 1.0 && st_update) {
            pib_ms_end_ramp(st);
        }
    }
    pib_view_weigh(v, w->s->lbfactor);
}

/* Members that are unusable now (error, disabled, stopped, draining)
 * are noted down, once each time: one "member failed" event however many
 * picks see them so (mod_proxy retries a member in error after its
 * retry= and makes it usable for that try: usable is not back).  They
 * come back when they serve again (back_if_down()). */
static void watch_downs(proxy_balancer *b, pib_mstate *states, unsigned max)
{
    int i;

    for (i = 0; i < b->workers->nelts; i++) {
        proxy_worker *w = APR_ARRAY_IDX(b->workers, i, proxy_worker *);
        pib_mstate *st = pib_state_at(states, max, w);

        if (st != NULL && (!PROXY_WORKER_IS_USABLE(w)
                           || PROXY_WORKER_IS_DRAINING(w))
            && pib_ms_note_down(st)) {
            pib_event(PI_EVENT_FAILED, b->s->name, w->s->name_ex, 0, 0,
                      PROXY_WORKER_IS_DRAINING(w) ? "draining (Drn)"
                      : (w->s->status & PROXY_WORKER_IN_ERROR) ? "in error"
                      : "disabled or stopped");
        }
    }
}

/* Member w answered, and is usable: if it was noted down, it is back.
 * What its failures did to the estimate is forgotten (before the answer's
 * sample is added) and its slow start begins, once. */
static void back_if_down(const proxy_balancer *b, const proxy_worker *w,
                         pib_mstate *st, uint32_t now)
{
    if (!PROXY_WORKER_IS_USABLE(w) || PROXY_WORKER_IS_DRAINING(w)
        || !pib_ms_note_up(st)) {
        return;
    }
    forget_failures(st);
    pib_ms_start_ramp(st, now);
    pib_event(PI_EVENT_BACK, b->s->name, w->s->name_ex, 0, 0, "slow start");
    ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, NULL, PIBLOGNO(10205)
                 "pi: %s serves again: slow start", w->s->name_ex);
}

typedef struct {
    proxy_worker *w[PIB_MAX_CANDS];
    int n;
} pib_collect;

/* mod_proxy's callback: collect every candidate it offers.  Saying "best"
 * to the first keeps mod_proxy from offering hot standbys while real
 * candidates exist. */
static int collect_cb(proxy_worker *cur, proxy_worker *prev, void *baton)
{
    pib_collect *c = baton;

    if (c->n < PIB_MAX_CANDS) {
        c->w[c->n++] = cur;
    }
    return prev == NULL;
}

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

/* The timeout mod_proxy gives member w: its timeout=, else ProxyTimeout,
 * else Timeout; in ms. */
static uint32_t timeout_ms(const server_rec *s, const proxy_worker *w)
{
    const proxy_server_conf *pc = proxy_mod == NULL ? NULL
        : ap_get_module_config(s->module_config, proxy_mod);
    apr_interval_time_t to = w->s->timeout_set ? w->s->timeout
                             : pc != NULL && pc->timeout_set ? pc->timeout
                             : s->timeout;
    apr_int64_t ms = apr_time_as_msec(to);

    return ms < 0 ? 0 : ms > 0x7fff0000 ? 0x7fff0000 : (uint32_t)ms;
}

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
        back_if_down(a->b, a->w, st, pi_now_ms());
    }
    began = a->start != 0 ? a->start : a->picked;
    took = (uint32_t)(now - began > 0x7fffffff ? 0x7fffffff
                      : now < began ? 0 : now - began);
    before = pib_ms_failed(st);
    /* Right after another failure, this one waited the member's whole
     * timeout (within 10%): no answer at all.  Only then it compounds. */
    compound = pib_fail_compounds(failed, before, took,
                                  timeout_ms(a->s, a->w));
    pib_ms_add_sample(st, pi_now_ms(), took, failed, compound,
                      a->decay_s);
    /* After the estimate: a forget_failures() racing with this sample
     * finds the flag set again, not an estimate it did not clear. */
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
#define PIB_ANSWER_CFILTER "PIB_ANSWERED_CONN"
#define PIB_BODYIN_FILTER  "PIB_BODY_IN"
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

/* How long member w has answered nothing since a pick, in ms (0: not
 * silent).  A mark older than its timeout and a second was lost with a
 * child: ignored, and with `drop` cleared. */
static uint32_t stall_of(const server_rec *s, const proxy_worker *w,
                         pib_mstate *st, uint32_t now, int drop)
{
    uint32_t mark, stall;
    int lost;

    if (st == NULL || (mark = pib_ms_pick_mark(st)) == 0) {
        return 0;
    }
    stall = pib_stall_ms(mark, now, timeout_ms(s, w), &lost);
    if (lost && drop) {
        pib_ms_drop_mark(st, mark);
    }
    return stall;
}

/* The member's estimate now (< 0: no sample yet).  A member noted down
 * that mod_proxy offers again (its retry= has passed) is on trial: its
 * failures do not keep it out, it is weighed as one with no sample (the
 * median of the others) until it serves (back_if_down()) or fails again
 * (mod_proxy puts it back in error for another retry period). */
static double est_of(const pib_mstate *st, uint32_t now, const pib_tuning *t)
{
    return st == NULL || pib_ms_down(st) ? -1.0
           : pib_ms_estimate(st, now, t->decay_s);
}

/* Notes returning members, then fills the candidates; returns how many.
 * The balancer's state array is looked up once. */
static int fill_cands(request_rec *r, proxy_balancer *b, pib_collect *col,
                      const pib_tuning *t, uint32_t now, pib_cand *c)
{
    unsigned max;
    pib_mstate *states = pib_state_of(b, &max);
    int i;

    watch_downs(b, states, max);
    for (i = 0; i < col->n; i++) {
        proxy_worker *w = col->w[i];
        pib_mstate *st = pib_state_at(states, max, w);
        pib_tel tel;
        pib_view v;
        unsigned long cap;

        member_view(r->server, b, w, t, st, now, 1, &tel, &v);
        memset(&c[i], 0, sizeof(c[i]));
        c[i].inflight = (unsigned long)w->s->busy;
        c[i].est_us = est_of(st, now, t);
        c[i].silence_us = (double)stall_of(r->server, w, st, now, 1) * 1000.0;
        c[i].weight = v.weight;
        c[i].drained = v.drained;
        cap = pib_inflight_cap(v.thermal, v.cpus);
        c[i].remote = pib_remote_inflight(&tel, t->remote_max_age_s);
        c[i].capped = pib_cap_reached(c[i].inflight, c[i].remote, cap);
        c[i].cap = cap;
        c[i].cooling = pib_cap_cooling(cap, v.cpus);
        c[i].has_temp = v.fresh && tel.has_temp;
        c[i].temp_dc = tel.temp_dc;
        c[i].credit = w->s->lbstatus;
        c[i].ramping = v.ramp < 1.0;
    }
    return col->n;
}

static proxy_worker *pib_find(proxy_balancer *balancer, request_rec *r)
{
    pib_collect col;
    pib_cand cand[PIB_MAX_CANDS];
    pib_tuning t;
    pib_attempt *a;
    uint32_t now = pi_now_ms();
    size_t best;
    int i, n;

    if (get_best == NULL) {
        return NULL;
    }
    col.n = 0;
    if (get_best(balancer, r, collect_cb, &col) == NULL || col.n == 0) {
        return NULL;
    }
    pib_lbconf_resolve(r->server, balancer, &t);
    n = fill_cands(r, balancer, &col, &t, now, cand);
    best = pib_choose(cand, (size_t)n);
    for (i = 0; i < n; i++) {
        col.w[i]->s->lbstatus = cand[i].credit;
    }
    a = attempt_of(r);
    if (a->w != NULL) {
        record(a, 1);                   /* the previous attempt failed */
    }
    a->b = balancer;
    a->w = col.w[best];
    a->picked = pi_mono_us();
    a->start = 0;
    a->decay_s = t.decay_s;
    a->s = r->server;
    a->answered = 0;
    add_stamps(r, a);
    if (a->body_in) {
        begin(a);
    }
    ap_log_rerror(APLOG_MARK, APLOG_TRACE1, 0, r,
                  "pi: %s chose %s (in flight %lu, estimate %.0f us,"
                  " weight %.3f)", balancer->s->name, a->w->s->name_ex,
                  cand[best].inflight, cand[best].est_us, cand[best].weight);
    return a->w;
}

/* After all proxy processing: the attempt's response time, unless the
 * node's headers gave it already.  A status the node answered (passed on,
 * or replaced by ProxyErrorOverride's error page) is an answer, not a
 * failure of the member. */
static int pib_lb_request_status(int *status, request_rec *r)
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

/* For the status page: whether member w is silent, as the finder sees
 * it: a pick unanswered for longer than its estimate (the median of the
 * balancer's members' when it has none). */
static int is_silent(server_rec *s, proxy_balancer *b, proxy_worker *w,
                     const pib_tuning *t, uint32_t now)
{
    unsigned max;
    pib_mstate *states = pib_state_of(b, &max);
    pib_cand c[PIB_MAX_CANDS];
    uint32_t stall = stall_of(s, w, pib_state_at(states, max, w), now, 0);
    double est, median = 0;
    int i, n = 0, silent;

    if (stall == 0) {
        return 0;
    }
    est = est_of(pib_state_at(states, max, w), now, t);
    if (est < 0) {
        for (i = 0; i < b->workers->nelts && n < PIB_MAX_CANDS; i++) {
            proxy_worker *o = APR_ARRAY_IDX(b->workers, i, proxy_worker *);

            c[n++].est_us = est_of(pib_state_at(states, max, o), now, t);
        }
        median = pib_median_estimate(c, (size_t)n);
    }
    pib_effective_estimate(est, median, (double)stall * 1000.0, &silent);
    return silent;
}

/* For /pi-status: the effective weight and thermal state of a member of
 * a balancer that uses lbmethod "pi". */
static int get_member_weight(server_rec *s, proxy_balancer *b,
                             proxy_worker *w, pi_member_weight *out)
{
    pib_tuning t;
    pib_tel tel;
    pib_view v;
    pib_mstate *st;
    uint32_t now = pi_now_ms();

    if (!PI_STAMP_OK(out, PI_MEMBER_WEIGHT_VERSION) || b->lbmethod == NULL
        || strcmp(b->lbmethod->name, "pi") != 0) {
        return -1;
    }
    pib_lbconf_resolve(s, b, &t);
    member_view(s, b, w, &t, pib_state_get(b, w), now, 0, &tel, &v);
    out->weight = v.weight;
    out->state = pib_view_state_name(&v, is_silent(s, b, w, &t, now));
    st = pib_state_get(b, w);
    out->estimate_us = est_of(st, now, &t);
    out->last_failed = st != NULL && pib_ms_failed(st) != 0;
    return 0;
}

void pib_lbmethod_register(apr_pool_t *p)
{
    APR_OPTIONAL_FN_TYPE(pib_get_member_weight) *fn = get_member_weight;
    APR_OPTIONAL_FN_TYPE(pib_watch_upgrade_answer) *watch = pi_answer_watch;
    APR_OPTIONAL_FN_TYPE(pib_watch_body_in) *body = pi_bodyin_watch;

    (void)p;
    apr_dynamic_fn_register("pib_get_member_weight", (apr_opt_fn_t *)fn);
    /* The 101 stamp, for mod_pistats too (pi_api.h). */
    apr_dynamic_fn_register("pib_watch_upgrade_answer",
                            (apr_opt_fn_t *)watch);
    apr_dynamic_fn_register("pib_watch_body_in", (apr_opt_fn_t *)body);
    answer_filter = ap_register_output_filter(PIB_ANSWER_FILTER,
                                              answer_filter_fn, NULL,
                                              AP_FTYPE_RESOURCE);
    pi_answer_register(PIB_ANSWER_CFILTER);
    pi_bodyin_register(PIB_BODYIN_FILTER);
    APR_OPTIONAL_HOOK(proxy, request_status, pib_lb_request_status, NULL,
                      NULL, APR_HOOK_MIDDLE);
}

static apr_status_t pib_reset(proxy_balancer *balancer, server_rec *s)
{
    int i;
    proxy_worker **w = (proxy_worker **)balancer->workers->elts;

    (void)s;
    for (i = 0; i < balancer->workers->nelts; i++) {
        w[i]->s->lbstatus = 0;
    }
    return APR_SUCCESS;
}

static apr_status_t pib_age(proxy_balancer *balancer, server_rec *s)
{
    (void)balancer;
    (void)s;
    return APR_SUCCESS;
}

/* updatelbstatus is NULL: for sticky picks mod_proxy_balancer then does
 * the same credit bookkeeping we do. */
const proxy_balancer_method pib_lbmethod = {
    "pi", pib_find, NULL, pib_reset, pib_age, NULL
};
