/* pib_public.c -- mod_pibalance's side of the optional functions between
 * the two modules (include/pi_api.h, pib_public.h): what /pi-status asks
 * of lbmethod "pi" (a member's weight, state and estimate; a balancer's
 * settings), and the registration of every function mod_pibalance
 * offers, in one place -- as pis_public.c is mod_pistats' side.
 *
 * The answers are the finder's own rules (pib_lb_view(), pib_conf_tuning())
 * applied without changing any state: the page only looks.  Cost: a few
 * table looks, no allocation, no lock.
 */
#include "httpd.h"
#include "http_config.h"
#include "mod_proxy.h"

#include "pi_answer.h"
#include "pi_api.h"
#include "pi_bodyin.h"
#include "pib_adapt_glue.h"
#include "pib_config.h"
#include "pib_counts.h"
#include "pib_lbmethod.h"
#include "pib_member.h"
#include "pib_public.h"
#include "pib_score.h"
#include "pib_state.h"

#define PIB_PUBLIC_MAX_CANDS 128
#define PIB_ANSWER_CFILTER "PIB_ANSWERED_CONN"
#define PIB_BODYIN_FILTER  "PIB_BODY_IN"

/* For the status page: whether member w is silent, as the finder sees
 * it: a pick unanswered for longer than its estimate (the median of the
 * balancer's members' when it has none). */
static int is_silent(server_rec *s, proxy_balancer *b, proxy_worker *w,
                     const pib_tuning *t, uint32_t now)
{
    unsigned max;
    pib_mstate *states = pib_state_of(b, &max);
    pib_cand c[PIB_PUBLIC_MAX_CANDS];
    uint32_t stall = pib_lb_stall(s, w, pib_state_at(states, max, w), now,
                                  0);
    double est, median = 0;
    int i, n = 0, silent;

    if (stall == 0) {
        return 0;
    }
    est = pib_lb_estimate(pib_state_at(states, max, w), now, t);
    if (est < 0) {
        for (i = 0; i < b->workers->nelts && n < PIB_PUBLIC_MAX_CANDS; i++) {
            proxy_worker *o = APR_ARRAY_IDX(b->workers, i, proxy_worker *);

            c[n++].est_us = pib_lb_estimate(pib_state_at(states, max, o),
                                            now, t);
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
    pib_conf_tuning(s, b, &t);
    pib_lb_view(s, b, w, &t, pib_state_get(b, w), now, 0, &tel, &v);
    out->weight = v.weight;
    out->state = pib_view_state_name(&v, is_silent(s, b, w, &t, now));
    st = pib_state_get(b, w);
    out->estimate_us = pib_lb_estimate(st, now, &t);
    out->last_failed = st != NULL && pib_ms_failed(st) != 0;
    return 0;
}

/* The offload at b (pib_conf_balancer_deflate), and its level now. */
static void deflate_of(server_rec *s, proxy_balancer *b,
                       pi_balancer_settings *out)
{
    pib_conf_balancer_deflate(s, b, &out->deflate_on, &out->deflate_level);
    out->deflate_level_now = out->deflate_on
        ? pib_adapt_level_now(out->deflate_level, s) : 0;
}

static int get_settings(server_rec *s, proxy_balancer *b,
                        pi_balancer_settings *out)
{
    pib_tuning t;

    if (!PI_STAMP_OK(out, PI_BALANCER_SETTINGS_VERSION)
        || b->lbmethod == NULL || strcmp(b->lbmethod->name, "pi") != 0) {
        return -1;
    }
    pib_conf_tuning(s, b, &t);
    out->soft_dc = t.soft_dc;
    out->hard_dc = t.hard_dc;
    out->hyst_dc = t.hyst_dc;
    out->floor = t.floor;
    out->throttle_factor = t.throttle_factor;
    out->slowstart_s = t.slowstart_s;
    out->decay_s = t.decay_s;
    deflate_of(s, b, out);
    return 0;
}

void pib_public_register(apr_pool_t *p)
{
    APR_OPTIONAL_FN_TYPE(pib_get_member_weight) *weight = get_member_weight;
    APR_OPTIONAL_FN_TYPE(pib_get_balancer_settings) *settings = get_settings;
    APR_OPTIONAL_FN_TYPE(pib_watch_upgrade_answer) *watch = pi_answer_watch;
    APR_OPTIONAL_FN_TYPE(pib_watch_body_in) *body = pi_bodyin_watch;

    (void)p;
    apr_dynamic_fn_register("pib_get_member_weight", (apr_opt_fn_t *)weight);
    apr_dynamic_fn_register("pib_get_balancer_settings",
                            (apr_opt_fn_t *)settings);
    APR_REGISTER_OPTIONAL_FN(pib_deflate_state);        /* pib_adapt_glue.c */
    APR_REGISTER_OPTIONAL_FN(pib_deflate_counters);     /* pib_counts.c */
    /* The 101 stamp and the body's end, one filter each for both
     * modules (common/pi_answer.c, common/pi_bodyin.c). */
    apr_dynamic_fn_register("pib_watch_upgrade_answer",
                            (apr_opt_fn_t *)watch);
    apr_dynamic_fn_register("pib_watch_body_in", (apr_opt_fn_t *)body);
    pi_answer_register(PIB_ANSWER_CFILTER);
    pi_bodyin_register(PIB_BODYIN_FILTER);
}
