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
 *
 * Heat event example (same node, idle, heat_at 60, heat_for 120,
 * heat_ambient 50): at 40.0 degC until 60 s, then toward 90 degC with
 * tau 30: 80.0 degC (throttled) at ~108 s, 89.1 at 180 s; then back toward
 * 40: bits fall to 0x60000 below 78.0 degC at ~188 s, 40.9 at 300 s.
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
    p->heat_at = -1.0;
    p->heat_for = 0.0;
    p->heat_every = 0.0;
    p->heat_ambient = 0.0;
    p->heat_k = 0.0;
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
    t->heat = 0;
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

/* Start of the event period containing t (t >= heat_at). */
static double heat_base(const struct sim_thermal_params *p, double t)
{
    if (p->heat_every <= 0.0)
        return p->heat_at;
    return p->heat_at + floor((t - p->heat_at) / p->heat_every)
                        * p->heat_every;
}

int sim_thermal_heat_active(const struct sim_thermal_params *p, double t)
{
    if (p->heat_at < 0.0 || t < p->heat_at)
        return 0;
    return t - heat_base(p, t) < p->heat_for;
}

double sim_thermal_heat_next(const struct sim_thermal_params *p, double t)
{
    double base;

    if (p->heat_at < 0.0)
        return INFINITY;
    if (t < p->heat_at)
        return p->heat_at;
    base = heat_base(p, t);
    if (t - base < p->heat_for)
        return base + p->heat_for;
    return p->heat_every > 0.0 ? base + p->heat_every : INFINITY;
}

#define HEAT_MIN_PIECE 1e-9       /* seconds; guards against rounding */
#define HEAT_MAX_PIECES 100000    /* then the rest is one step */

void sim_thermal_advance(struct sim_thermal *t,
                         const struct sim_thermal_params *p,
                         double now_s, double u, double dt)
{
    struct sim_thermal_params hot = *p;
    int pieces = 0;

    if (p->heat_at < 0.0) {
        sim_thermal_step(t, p, u, dt);
        return;
    }
    hot.ambient += p->heat_ambient;
    hot.k += p->heat_k;
    while (dt > 0.0) {
        double piece = sim_thermal_heat_next(p, now_s) - now_s;

        if (!(piece >= HEAT_MIN_PIECE))
            piece = HEAT_MIN_PIECE;
        if (piece > dt || ++pieces >= HEAT_MAX_PIECES)
            piece = dt;
        sim_thermal_step(t, sim_thermal_heat_active(p, now_s) ? &hot : p,
                         u, piece);
        now_s += piece;
        dt -= piece;
    }
    t->heat = sim_thermal_heat_active(p, now_s);
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
