/*
 * thermal.h - pure thermal and throttle model of one simulated Pi node.
 *
 * Scope: first-order heating toward ambient + k*u with time constant tau,
 * Pi-firmware-like throttle bits, a 1-minute load average.  No I/O, no
 * clocks: the caller passes elapsed time, so the model is unit-testable.
 * A scheduled heat event (a case fan that stops, an ambient step) raises
 * ambient and k for a while, optionally again every period; the balancer
 * cannot prevent it by sending less load, since ambient alone sets the
 * temperature at zero utilisation.
 * Non-goals: under-voltage bits (0x1, 0x10000) are never set.
 */
#ifndef SIM_THERMAL_H
#define SIM_THERMAL_H

/* Firmware get_throttled bits (vcgencmd get_throttled). */
#define SIM_THR_FREQ_CAPPED      0x2u
#define SIM_THR_THROTTLED        0x4u
#define SIM_THR_SOFT_LIMIT       0x8u
#define SIM_THR_FREQ_CAPPED_EVER 0x20000u
#define SIM_THR_THROTTLED_EVER   0x40000u
#define SIM_THR_SOFT_LIMIT_EVER  0x80000u

#define SIM_DEF_AMBIENT          40.0
#define SIM_DEF_K                45.0
#define SIM_DEF_TAU              30.0
#define SIM_DEF_THROTTLE_AT      80.0
#define SIM_DEF_HYSTERESIS       2.0
#define SIM_DEF_THROTTLE_SLOW    2.0
#define SIM_DEF_SOFT_LIMIT       0.0     /* 0 = no soft limit */
#define SIM_DEF_SOFT_SLOW        1.15
#define SIM_LOAD_WINDOW_S        60.0    /* like the kernel's loadavg[0] */

struct sim_thermal_params {
    double ambient;           /* degC, also the initial temperature */
    double k;                 /* degC above ambient at full load */
    double tau;               /* seconds, > 0 */
    double throttle_at;       /* degC, hard limit */
    double hysteresis;        /* un-throttle below throttle_at - this */
    double throttle_slowdown; /* service time factor while throttled */
    double soft_limit;        /* degC, 0 disables */
    double soft_slowdown;     /* service time factor at/above soft limit */
    /* Heat event: in force from heat_at for heat_for seconds (seconds
     * after start), again every heat_every seconds (0 = once); meanwhile
     * ambient is raised by heat_ambient and k by heat_k.  heat_at < 0:
     * no event (then the model is exactly the one without events). */
    double heat_at, heat_for, heat_every, heat_ambient, heat_k;
};

struct sim_thermal {
    double temp;              /* degC */
    double peak;              /* highest temp seen */
    double throttled_s;       /* seconds spent throttled */
    double load_u;            /* EWMA of utilisation, 60 s window */
    unsigned bits;            /* "now" bits | sticky bits */
    int throttled;            /* hard throttle state (with hysteresis) */
    int soft;                 /* at/above soft limit */
    int heat;                 /* heat event in force (sim_thermal_advance) */
};

/* Fills p with the defaults above. */
void sim_thermal_defaults(struct sim_thermal_params *p);

/* Starts the model at ambient temperature, no bits, zero load. */
void sim_thermal_init(struct sim_thermal *t,
                      const struct sim_thermal_params *p);

/*
 * Advances the model by dt seconds with mean utilisation u (clamped to
 * [0,1]) over that step.  Exact solution of dT/dt = (ambient + k*u - T)/tau
 * for constant u, so the result does not depend on the step size:
 *     T' = target + (T - target) * exp(-dt / tau)
 * Then updates throttle state and bits.  The time of the step counts as
 * throttled if the node was throttled at its start.
 */
void sim_thermal_step(struct sim_thermal *t,
                      const struct sim_thermal_params *p,
                      double u, double dt);

/* 1 if p's heat event is in force at t seconds after start, else 0. */
int sim_thermal_heat_active(const struct sim_thermal_params *p, double t);

/*
 * The first time after t (seconds after start) at which p's heat event
 * starts or ends; INFINITY if never.
 */
double sim_thermal_heat_next(const struct sim_thermal_params *p, double t);

/*
 * sim_thermal_step with the heat event schedule: advances by dt seconds
 * from time now_s (seconds after start), splitting the step where the
 * event starts or ends, each piece stepped with ambient + heat_ambient
 * and k + heat_k while the event is in force.  So the result still does
 * not depend on the step size.  Sets t->heat to the state at now_s + dt.
 * Without an event (heat_at < 0) it is exactly sim_thermal_step.
 */
void sim_thermal_advance(struct sim_thermal *t,
                         const struct sim_thermal_params *p,
                         double now_s, double u, double dt);

/* Service time multiplier for the current state (1.0 when cool). */
double sim_thermal_slowdown(const struct sim_thermal *t,
                            const struct sim_thermal_params *p);

/* 1-minute load average as reported: EWMA(u) * cpus. */
double sim_thermal_load1(const struct sim_thermal *t, int cpus);

#endif
