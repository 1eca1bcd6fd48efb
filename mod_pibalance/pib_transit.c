/* pib_transit.c -- a member's state changes, applied, logged and posted
 * once (see pib_transit.h).  Each change is a compare-and-swap of
 * pib_mstate.c, so of the children that see it at once, one logs it.
 * Cost: on the pick's path, a few plain loads when nothing changes.
 */
#include "httpd.h"
#include "http_log.h"
#include "apr_strings.h"
#include "mod_proxy.h"

#include "pi_api.h"
#include "pi_num.h"
#include "pib_event.h"
#include "pib_log.h"
#include "pib_state.h"
#include "pib_transit.h"

APLOG_USE_MODULE(pibalance);

static void fmt_temp(const pib_tel *in, char *buf, size_t n)
{
    if (in->has_temp) {
        pi_format_dc(in->temp_dc, buf, n);
    }
    else {
        apr_cpystrn(buf, "unknown", n);
    }
}

void pib_transit_telemetry(server_rec *s, const proxy_balancer *b,
                           const proxy_worker *w, pib_mstate *st,
                           const pib_tel *tel, const pib_view *v,
                           uint32_t now)
{
    char temp[24], bits[24];
    const char *bal = b->s->name, *name = w->s->name_ex;

    fmt_temp(tel, temp, sizeof(temp));
    if (v->fresh) {
        if (pib_ms_note_fresh(st)) {
            int forgot = pib_ms_forget_failures(st);

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
    else if (pib_ms_note_stale(st)) {
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, PIBLOGNO(10203)
                     "pi: %s telemetry missing or stale: thermal factor"
                     " 1", w->s->name_ex);
        pib_event(PI_EVENT_STALE, bal, name, 0, 0, "thermal factor 1");
    }
    if (pib_ms_note_throttled(st, v->throttled)) {
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, PIBLOGNO(10204)
                     "pi: %s %s at %s C (throttle bits 0x%lx)",
                     w->s->name_ex, v->throttled ? "throttled"
                     : "no longer throttled", temp, tel->throttled);
        apr_snprintf(bits, sizeof(bits), "bits 0x%lx", tel->throttled);
        pib_event(v->throttled ? PI_EVENT_THROTTLED : PI_EVENT_UNTHROTTLED,
                  bal, name, tel->has_temp, tel->temp_dc, bits);
    }
    if (pib_ms_note_drained(st, v->drained)) {
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

/* mod_proxy retries a member in error after its retry= and makes it
 * usable for that try: usable is not back, serving is
 * (pib_transit_back()). */
void pib_transit_downs(proxy_balancer *b, pib_mstate *states, unsigned max)
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

/* What its failures did to the estimate says nothing about it now, and
 * compounded they would keep it out for minutes: it starts again from no
 * sample (the median of the others), ramping. */
void pib_transit_back(const proxy_balancer *b, const proxy_worker *w,
                      pib_mstate *st, uint32_t now)
{
    if (!PROXY_WORKER_IS_USABLE(w) || PROXY_WORKER_IS_DRAINING(w)
        || !pib_ms_note_up(st)) {
        return;
    }
    pib_ms_forget_failures(st);
    pib_ms_start_ramp(st, now);
    pib_event(PI_EVENT_BACK, b->s->name, w->s->name_ex, 0, 0, "slow start");
    ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, NULL, PIBLOGNO(10205)
                 "pi: %s serves again: slow start", w->s->name_ex);
}

