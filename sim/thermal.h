/*
 * thermal.h - pure thermal and throttle model of one simulated Pi node.
 *
 * Scope: first-order heating toward ambient + k*u with time constant tau,
 * Pi-firmware-like throttle bits, a 1-minute load average.  No I/O, no
 * clocks: the caller passes elapsed time, so the model is unit-testable.
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
};

struct sim_thermal {
    double temp;              /* degC */
    double peak;              /* highest temp seen */
    double throttled_s;       /* seconds spent throttled */
    double load_u;            /* EWMA of utilisation, 60 s window */
    unsigned bits;            /* "now" bits | sticky bits */
    int throttled;            /* hard throttle state (with hysteresis) */
    int soft;                 /* at/above soft limit */
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

/* Service time multiplier for the current state (1.0 when cool). */
double sim_thermal_slowdown(const struct sim_thermal *t,
                            const struct sim_thermal_params *p);

/* 1-minute load average as reported: EWMA(u) * cpus. */
double sim_thermal_load1(const struct sim_thermal *t, int cpus);

#endif
