/* pib_member.c -- lbmethod "pi": one member's view, weight, state name,
 * and the failure and silence rules (see pib_member.h). */
#include <stddef.h>
#include <string.h>

#include "pib_member.h"
#include "pib_mstate.h"

int pib_tel_fresh(const pib_tel *tel)
{
    return tel->answered && !tel->stale
           && (tel->has_temp || tel->has_throttled);
}

void pib_view_from_tel(const pib_tuning *t, const pib_tel *tel,
                       int was_drained, pib_view *v)
{
    memset(v, 0, sizeof(*v));
    v->thermal = v->throttle = v->ramp = 1.0;
    v->fresh = pib_tel_fresh(tel);
    if (v->fresh && tel->has_temp) {
        v->thermal = pib_thermal_factor(t, tel->temp_dc);
        v->drained = pib_thermal_drained(t, tel->temp_dc, was_drained);
    }
    if (v->fresh && tel->has_throttled
        && (tel->throttled & PI_THR_SLOW_NOW)) {
        v->throttled = 1;
        v->throttle = t->throttle_factor;
    }
    if (v->fresh && tel->has_cpus) {
        v->cpus = tel->cpus;
    }
}

double pib_view_weigh(pib_view *v, int lbfactor)
{
    v->weight = (double)lbfactor / 100.0 * v->thermal * v->throttle
                * v->ramp;
    return v->weight;
}

const char *pib_view_state_name(const pib_view *v, int silent)
{
    if (silent) {
        return "silent";
    }
    if (!v->fresh) {
        return "stale";
    }
    if (v->drained) {
        return "drained";
    }
    if (v->throttled) {
        return "throttled";
    }
    if (v->thermal < 1.0) {
        return "warm";
    }
    return v->ramp < 1.0 ? "ramping" : "ok";
}

unsigned long pib_remote_inflight(const pib_tel *tel, double max_age_s)
{
    double max_ms = max_age_s < 0 ? 1.5 * (double)tel->interval_ms
                                  : max_age_s * 1000.0;

    if (!tel->answered || tel->stale || !tel->has_busy || tel->age_ms < 0
        || (double)tel->age_ms > max_ms || max_ms <= 0
        || tel->busy <= tel->own_inflight + 1) {
        return 0;
    }
    return tel->busy - tel->own_inflight - 1;
}

int pib_cap_reached(unsigned long own, unsigned long remote,
                    unsigned long cap)
{
    return cap > 0 && own + remote >= cap;
}

int pib_cap_cooling(unsigned long cap, long cpus)
{
    return cap > 0 && (long)cap < (cpus > 0 ? cpus : 4);
}

int pib_fail_compounds(int failed, uint32_t failed_before, uint32_t took_us,
                       uint32_t timeout_ms)
{
    return failed && failed_before != 0
           && took_us / 1000 + took_us / 10000 >= timeout_ms;
}

uint32_t pib_stall_ms(uint32_t mark, uint32_t now, uint32_t timeout_ms,
                      int *lost)
{
    uint32_t stall;

    *lost = 0;
    if (mark == 0) {
        return 0;
    }
    stall = pi_age_ms(now, mark);
    if (stall > timeout_ms + PIB_MARK_LOST_MS) {
        *lost = 1;
        return 0;
    }
    return stall;
}
