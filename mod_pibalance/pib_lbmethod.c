/* pib_lbmethod.c -- lbmethod "pi": glue between mod_proxy_balancer and
 * the pure pick in pib_pick.c.
 *
 * mod_proxy's get_best_worker helper walks lbsets, skips disabled,
 * stopped, draining and failed members, and falls back to spares and hot
 * standbys exactly as for the stock methods; it offers each candidate to
 * pib_is_best().  The finder runs under the balancer's thread mutex
 * (taken by mod_proxy_balancer), allocates nothing and never blocks.
 */
#include "httpd.h"
#include "http_log.h"
#include "mod_proxy.h"

#include "pib_lbmethod.h"
#include "pib_pick.h"

APLOG_USE_MODULE(pibalance);

static APR_OPTIONAL_FN_TYPE(proxy_balancer_get_best_worker) *get_best;

int pib_lbmethod_bind(void)
{
    get_best = APR_RETRIEVE_OPTIONAL_FN(proxy_balancer_get_best_worker);
    return get_best != NULL;
}

static void to_cand(const proxy_worker *w, pib_cand *c)
{
    c->busy = (unsigned long)w->s->busy;
    c->lbfactor = w->s->lbfactor;
    c->lbstatus = w->s->lbstatus;
}

/* mod_proxy's callback: credit cur, then is cur better than prev? */
static int pib_is_best(proxy_worker *cur, proxy_worker *prev, void *baton)
{
    pib_cand c, p;

    pib_credit(&cur->s->lbstatus, cur->s->lbfactor, (long *)baton);
    if (prev == NULL) {
        return 1;
    }
    to_cand(cur, &c);
    to_cand(prev, &p);
    return pib_cand_better(&c, &p);
}

static proxy_worker *pib_find(proxy_balancer *balancer, request_rec *r)
{
    long total = 0;
    proxy_worker *w;

    if (get_best == NULL) {
        return NULL;
    }
    w = get_best(balancer, r, pib_is_best, &total);
    if (w != NULL) {
        w->s->lbstatus -= (int)total;
        ap_log_rerror(APLOG_MARK, APLOG_TRACE1, 0, r,
                      "pi: %s chose %s (busy %" APR_SIZE_T_FMT ")",
                      balancer->s->name, w->s->name_ex, w->s->busy);
    }
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
 * the same credit bookkeeping we do, which keeps the tie-break fair. */
const proxy_balancer_method pib_lbmethod = {
    "pi", pib_find, NULL, pib_reset, pib_age, NULL
};
