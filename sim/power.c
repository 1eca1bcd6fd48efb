/*
 * power.c - see power.h.
 */
#include <math.h>
#include "power.h"

void sim_power_defaults(struct sim_power_params *p)
{
    p->idle_w = -1.0;
    p->busy_w = -1.0;
}

int sim_power_on(const struct sim_power_params *p)
{
    return p->idle_w >= 0.0 && p->busy_w >= 0.0;
}

double sim_power_draw(const struct sim_power_params *p, double u)
{
    u = u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
    return p->idle_w + (p->busy_w - p->idle_w) * u;
}

void sim_power_step(struct sim_power *s, const struct sim_power_params *p,
                    double u, double dt)
{
    double w = sim_power_draw(p, u);

    if (!sim_power_on(p) || dt <= 0.0)
        return;
    s->energy_j += w * dt;
    if (!s->started) {
        s->report_w = w;
        s->started = 1;
        return;
    }
    s->report_w = w + (s->report_w - w) * exp(-dt / SIM_POWER_TAU_S);
}
