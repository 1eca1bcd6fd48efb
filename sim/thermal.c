/*
 * thermal.c - see thermal.h.  Worked example (ambient 40, k 45, tau 30,
 * full load u = 1, so the target is 85 degC):
 *
 *     t (s)   T (degC)   state
 *     0       40.0       cool, bits 0x0
 *     30      68.4       63.2% of the way to 85
 *     60      78.9
 *     ~66     80.0       throttled: bits 0x6 | 0x60000 = 0x60006
 *     then u = 0: cools; at T < 78.0 bits fall to 0x60000 (sticky only)
 *
 * tests/test_thermal.c checks these rows.
 */
#include <math.h>
#include "thermal.h"

void sim_thermal_defaults(struct sim_thermal_params *p)
{
    p->ambient = SIM_DEF_AMBIENT;
    p->k = SIM_DEF_K;
    p->tau = SIM_DEF_TAU;
    p->throttle_at = SIM_DEF_THROTTLE_AT;
    p->hysteresis = SIM_DEF_HYSTERESIS;
    p->throttle_slowdown = SIM_DEF_THROTTLE_SLOW;
    p->soft_limit = SIM_DEF_SOFT_LIMIT;
    p->soft_slowdown = SIM_DEF_SOFT_SLOW;
}

void sim_thermal_init(struct sim_thermal *t,
                      const struct sim_thermal_params *p)
{
    t->temp = p->ambient;
    t->peak = p->ambient;
    t->throttled_s = 0.0;
    t->load_u = 0.0;
    t->bits = 0;
    t->throttled = 0;
    t->soft = 0;
}

static void update_state(struct sim_thermal *t,
                         const struct sim_thermal_params *p)
{
    unsigned sticky = t->bits & 0xffff0000u;

    if (!t->throttled && t->temp >= p->throttle_at)
        t->throttled = 1;
    else if (t->throttled && t->temp < p->throttle_at - p->hysteresis)
        t->throttled = 0;
    t->soft = p->soft_limit > 0.0 && t->temp >= p->soft_limit;

    t->bits = sticky;
    if (t->throttled)
        t->bits |= SIM_THR_FREQ_CAPPED | SIM_THR_THROTTLED
                   | SIM_THR_FREQ_CAPPED_EVER | SIM_THR_THROTTLED_EVER;
    if (t->soft)
        t->bits |= SIM_THR_SOFT_LIMIT | SIM_THR_SOFT_LIMIT_EVER;
}

void sim_thermal_step(struct sim_thermal *t,
                      const struct sim_thermal_params *p,
                      double u, double dt)
{
    double target, decay;

    if (dt <= 0.0)
        return;
    if (u < 0.0)
        u = 0.0;
    if (u > 1.0)
        u = 1.0;
    if (t->throttled)
        t->throttled_s += dt;
    target = p->ambient + p->k * u;
    decay = exp(-dt / p->tau);
    t->temp = target + (t->temp - target) * decay;
    if (t->temp > t->peak)
        t->peak = t->temp;
    decay = exp(-dt / SIM_LOAD_WINDOW_S);
    t->load_u = u + (t->load_u - u) * decay;
    update_state(t, p);
}

double sim_thermal_slowdown(const struct sim_thermal *t,
                            const struct sim_thermal_params *p)
{
    if (t->throttled)
        return p->throttle_slowdown;
    if (t->soft)
        return p->soft_slowdown;
    return 1.0;
}

double sim_thermal_load1(const struct sim_thermal *t, int cpus)
{
    return t->load_u * (double)cpus;
}
