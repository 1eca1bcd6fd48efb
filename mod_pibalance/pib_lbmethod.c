/* pib_lbmethod.c -- lbmethod "pi": the pick.  Glue between
 * mod_proxy_balancer and the pure logic: the scoring and the choice
 * (pib_score.c), what it makes of a member (pib_member.c: freshness,
 * weight, state names, cooling, the compound-failure and silence rules)
 * and the member's shared state (pib_mstate.c).  The attempt it starts is
 * timed by pib_attempt.c; the state changes it sees are applied, logged
 * and posted by pib_transit.c; what /pi-status asks of it is answered by
 * pib_public.c.
 *
 * mod_proxy's get_best_worker helper walks lbsets, skips disabled,
 * stopped, draining and failed members, and falls back to spares and hot
 * standbys exactly as for the stock methods; it offers the candidates,
 * which we collect.  Each becomes a pib_cand: in flight (mod_proxy's
 * busy count), the response-time estimate (pib_mstate), and the weight:
 * loadfactor x thermal x throttle x slow-start ramp, from the member's
 * telemetry (mod_pistats' probe, when loaded; missing or stale telemetry
 * gives factor 1, never a drain).  pib_choose() picks.
 *
 * Silence: a member that has answered nothing since a request was picked
 * for it S ago is estimated at least S (pib_choose), so a node that
 * hangs stops getting requests within a few of its response times.  The
 * mark is the clock of such a pick, in pib_mstate: set when the member's
 * time begins (pib_attempt.c) when none is set, cleared by any answer or
 * failure.  A mark older than the member's timeout and a second is
 * dropped: a child that died left it.
 *
 * Cost: the finder runs under the balancer's thread mutex (taken by
 * mod_proxy_balancer), is O(members) and never blocks: the probe writes
 * telemetry elsewhere, this only reads it.  The pick itself allocates
 * nothing; the attempt it starts (pib_attempt.c) takes a small record
 * from the request's pool and adds its filters, once a request.
 */
#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "mod_proxy.h"

#include "pi_api.h"
#include "pib_attempt.h"
#include "pib_config.h"
#include "pib_event.h"
#include "pib_lbmethod.h"
#include "pib_log.h"
#include "pib_member.h"
#include "pib_score.h"
#include "pib_state.h"
#include "pib_transit.h"

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

static int is_pi(const proxy_balancer *b)
{
    return b->lbmethod != NULL && strcmp(b->lbmethod->name, "pi") == 0;
}

/* The main server's balancer whose members b shares (a virtual host's
 * copy of it), or NULL. */
static const proxy_balancer *main_twin(const proxy_balancer *b)
{
    const proxy_server_conf *mc = proxy_mod == NULL ? NULL
        : ap_get_module_config(ap_server_conf->module_config, proxy_mod);
    int i;

    for (i = 0; mc != NULL && i < mc->balancers->nelts; i++) {
        const proxy_balancer *m = &APR_ARRAY_IDX(mc->balancers, i,
                                                 proxy_balancer);

        if (m != b && m->workers == b->workers) {
            return m;
        }
    }
    return NULL;
}

void pib_lbmethod_check(server_rec *s)
{
    server_rec *v;

    for (v = s->next; proxy_mod != NULL && v != NULL; v = v->next) {
        const proxy_server_conf *pc = ap_get_module_config(v->module_config,
                                                           proxy_mod);
        int i;

        for (i = 0; pc != NULL && i < pc->balancers->nelts; i++) {
            const proxy_balancer *b = &APR_ARRAY_IDX(pc->balancers, i,
                                                     proxy_balancer);
            const proxy_balancer *m = main_twin(b);

            if (m != NULL && is_pi(m) && !is_pi(b)) {
                ap_log_error(APLOG_MARK, APLOG_WARNING, 0, v, PIBLOGNO(12901)
                             "%s in virtual host %s:%u runs lbmethod %s, "
                             "not the main server's pi: a ProxyPass to it "
                             "inside the virtual host gives it mod_proxy's "
                             "own method there.  Set ProxySet lbmethod=pi "
                             "for it in that host, or put the ProxyPass in "
                             "the main server", b->s->name,
                             v->server_hostname, (unsigned)v->port,
                             b->lbmethod ? b->lbmethod->name : "?");
            }
        }
    }
}

/* The timeout mod_proxy gives member w: its timeout=, else ProxyTimeout,
 * else Timeout; in ms. */
uint32_t pib_lb_timeout_ms(const server_rec *s, const proxy_worker *w)
{
    const proxy_server_conf *pc = proxy_mod == NULL ? NULL
        : ap_get_module_config(s->module_config, proxy_mod);
    apr_interval_time_t to = w->s->timeout_set ? w->s->timeout
                             : pc != NULL && pc->timeout_set ? pc->timeout
                             : s->timeout;
    apr_int64_t ms = apr_time_as_msec(to);

    return ms < 0 ? 0 : ms > 0x7fff0000 ? 0x7fff0000 : (uint32_t)ms;
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
    tel->has_jpr = tel->answered && in.has_jpr;
    tel->jpr_above_idle_j = in.jpr_above_idle_j;
}

void pib_lb_view(server_rec *s, proxy_balancer *b, proxy_worker *w,
                 const pib_tuning *t, pib_mstate *st, uint32_t now,
                 int st_update, pib_tel *tel, pib_view *v)
{
    uint32_t began;

    member_tel(s, b, w, tel);
    pib_view_from_tel(t, tel, st ? (int)pib_ms_drained(st) : 0, v);
    if (st != NULL && st_update) {
        pib_transit_telemetry(s, b, w, st, tel, v, now);
    }
    if (st != NULL && (began = pib_ms_ramp_began(st)) != 0) {
        v->ramp = pib_ramp(t, (double)pi_age_ms(now, began) / 1000.0);
        if (v->ramp >= 1.0 && st_update) {
            pib_ms_end_ramp(st);
        }
    }
    if (st != NULL && pib_ms_down(st)) {
        /* on trial after a time down (pib_lb_estimate): the first step
         * of a slow start, until it serves again */
        v->ramp = pib_ramp(t, 0.0);
    }
    pib_view_weigh(v, w->s->lbfactor);
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

/* A mark older than its timeout and a second was lost with a child:
 * ignored, and with `drop` cleared. */
uint32_t pib_lb_stall(const server_rec *s, const proxy_worker *w,
                      pib_mstate *st, uint32_t now, int drop)
{
    uint32_t mark, stall;
    int lost;

    if (st == NULL || (mark = pib_ms_pick_mark(st)) == 0) {
        return 0;
    }
    stall = pib_stall_ms(mark, now, pib_lb_timeout_ms(s, w), &lost);
    if (lost && drop) {
        pib_ms_drop_mark(st, mark);
    }
    return stall;
}

/* A member noted down that mod_proxy offers again (its retry= has
 * passed) is on trial: its failures do not keep it out, it is weighed as
 * one with no sample (the median of the others) until it serves
 * (pib_transit_back()) or fails again (mod_proxy puts it back in error
 * for another retry period). */
double pib_lb_estimate(const pib_mstate *st, uint32_t now,
                       const pib_tuning *t)
{
    return st == NULL || pib_ms_down(st) ? -1.0
           : pib_ms_estimate(st, now, t->decay_s);
}

/* Notes members that went down, then fills the candidates; returns how
 * many.
 * The balancer's state array is looked up once. */
static int fill_cands(request_rec *r, proxy_balancer *b, pib_collect *col,
                      const pib_tuning *t, uint32_t now, pib_cand *c)
{
    unsigned max;
    pib_mstate **states = pib_state_of(b, &max);
    int i;

    pib_transit_downs(r->server, b, states, max);
    for (i = 0; i < col->n; i++) {
        proxy_worker *w = col->w[i];
        pib_mstate *st = pib_state_at(states, max, w);
        pib_tel tel;
        pib_view v;
        unsigned long cap;

        pib_lb_view(r->server, b, w, t, st, now, 1, &tel, &v);
        memset(&c[i], 0, sizeof(c[i]));
        c[i].inflight = (unsigned long)w->s->busy;
        c[i].est_us = pib_lb_estimate(st, now, t);
        c[i].silence_us = (double)pib_lb_stall(r->server, w, st, now, 1)
                         * 1000.0;
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
        /* PiBalanceEnergy: its own freshness (no figure for stale
         * telemetry), not the thermal one, which needs a temperature */
        c[i].cpus = tel.has_cpus ? tel.cpus : 0;
        c[i].has_jpr = tel.has_jpr;
        c[i].jpr_j = tel.jpr_above_idle_j;
    }
    return col->n;
}

static proxy_worker *pib_find(proxy_balancer *balancer, request_rec *r)
{
    pib_collect col;
    pib_cand cand[PIB_MAX_CANDS];
    pib_tuning t;
    proxy_worker *w;
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
    pib_conf_tuning(r->server, balancer, &t);
    n = fill_cands(r, balancer, &col, &t, now, cand);
    best = pib_choose_energy(cand, (size_t)n, t.energy ? t.energy_tol : -1);
    for (i = 0; i < n; i++) {
        col.w[i]->s->lbstatus = cand[i].credit;
    }
    w = col.w[best];
    pib_attempt_picked(r, balancer, w, t.decay_s);
    ap_log_rerror(APLOG_MARK, APLOG_TRACE1, 0, r,
                  "pi: %s chose %s (in flight %lu, estimate %.0f us,"
                  " weight %.3f)", balancer->s->name, w->s->name_ex,
                  cand[best].inflight, cand[best].est_us, cand[best].weight);
    return w;
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
