/*
 * power.h - pure power model of one simulated Pi node: its draw from its
 * utilisation, the energy it used, and what its sensor reports.
 *
 * Scope: P = idle_w + (busy_w - idle_w) * u, u the step's mean utilisation
 * (busy slots / slots), so a node's energy is exactly the integral of
 * that; the reported PowerW is P averaged with a 1 s time constant (an
 * INA219's averaging, roughly), so a probe every 2 s sees a smooth value.
 * The caller passes elapsed time, so the model is unit-testable.
 * Non-goals: heat's effect on the draw (leakage), fans, supply losses.
 * Worked example (tests/test_power.c): idle 2.7 W, busy 6.0 W, half
 * utilised for 10 s: 4.35 W, 43.5 J.
 */
#ifndef SIM_POWER_H
#define SIM_POWER_H

#define SIM_POWER_TAU_S 1.0       /* the reported power's averaging */

struct sim_power_params {
    double idle_w;                /* < 0: the node has no power sensor */
    double busy_w;                /* at full utilisation */
};

struct sim_power {
    double energy_j;              /* used since start */
    double report_w;              /* what PowerW says */
    int started;
};

/* idle_w and busy_w -1: no sensor. */
void sim_power_defaults(struct sim_power_params *p);

/* Whether the node reports power. */
int sim_power_on(const struct sim_power_params *p);

/* The draw at utilisation u (clamped to [0, 1]). */
double sim_power_draw(const struct sim_power_params *p, double u);

/* Advances by dt seconds at mean utilisation u. */
void sim_power_step(struct sim_power *s, const struct sim_power_params *p,
                    double u, double dt);

#endif
