/* pib_score.h -- lbmethod "pi": expected wait, heat, throttling, slow
 * start.  Pure logic (libc and libm), unit-tested in tests/unit.
 *
 * A member's expected wait is (in flight + 1) x estimate / weight, where
 *   estimate = a peak-EWMA of its response time (time constant
 *              PiBalanceDecay: a slowdown is taken at once, forgiven
 *              slowly; without new samples it halves every PiBalanceDecay,
 *              so a member that was slow once is tried again);
 *   weight   = loadfactor x thermal x throttle x slow-start ramp.
 * See pib_score.c for the worked example and docs/lbmethod-pi.md.
 */
#ifndef PIB_SCORE_H
#define PIB_SCORE_H

#include <stddef.h>
#include <stdint.h>

#include "pi_thermal.h"

/* Settings of one balancer (PiBalance* directives, merged). */
typedef struct {
    double decay_s;            /* PiBalanceDecay */
    int soft_dc, hard_dc;      /* PiBalanceThermal, tenths of C */
    double floor;              /* PiBalanceThermalFloor */
    int hyst_dc;               /* PiBalanceThermalHysteresis, tenths */
    double throttle_factor;    /* PiBalanceThrottleFactor */
    double slowstart_s;        /* PiBalanceSlowStart */
    double remote_max_age_s;   /* PiBalanceRemoteMaxAge; < 0: 1.5 probe
                                  intervals, 0: other masters' load off */
    int energy;                /* PiBalanceEnergy: 1 on */
    double energy_tol;         /* PiBalanceEnergyTolerance, a fraction */
} pib_tuning;

#define PIB_DEFAULT_DECAY_S      10.0
#define PIB_DEFAULT_SOFT_DC      PI_TEMP_WARN_DC   /* 70 C */
#define PIB_DEFAULT_HARD_DC      PI_TEMP_CRIT_DC   /* 80 C */
#define PIB_DEFAULT_FLOOR        0.1
#define PIB_DEFAULT_HYST_DC      50
#define PIB_DEFAULT_THROTTLE     0.5
#define PIB_DEFAULT_SLOWSTART_S  30.0
#define PIB_DEFAULT_REMOTE_AGE_S -1.0  /* 1.5 x PiStatsProbeInterval */
#define PIB_RAMP_START           0.1   /* slow start begins at 10% */
#define PIB_IDLE_TOLERANCE       2.0   /* idle members: estimates this far
                                          apart decide, closer ones tie */
#define PIB_IDLE_MIN_DIFF_US     5000.0 /* ... and at least this far: sub-
                                          millisecond jitter is no signal */

void pib_tuning_default(pib_tuning *t);

/* Thermal factor for a temperature: 1 at or below soft, falling linearly
 * to floor at hard (and floor above; draining is pib_thermal_drained's
 * call). */
double pib_thermal_factor(const pib_tuning *t, int temp_dc);

/* Hysteresis: drained above hard; once drained, re-admitted only below
 * hard - hysteresis. */
int pib_thermal_drained(const pib_tuning *t, int temp_dc, int was_drained);

/* Slow start: the weight multiplier `since_s` seconds after a member came
 * back: 10% rising linearly to 100% at slowstart_s. */
double pib_ramp(const pib_tuning *t, double since_s);

/* The in-flight cap of a warm member: its CPUs (4 when unknown) scaled
 * by the thermal factor, at least 1; 0 means no cap (factor 1). */
unsigned long pib_inflight_cap(double thermal_factor, long cpus);

/* Peak-EWMA: a sample above the estimate replaces it; one below pulls it
 * down with weight 1 - e^(-dt/decay).  est 0 means no estimate yet. */
uint32_t pib_est_update(uint32_t est_us, uint32_t dt_ms, uint32_t sample_us,
                        double decay_s);

/* The sample a failed attempt that took took_us counts as, for a member
 * estimated at est_us: at least 1 s and never below the estimate; with
 * `compound` (the caller's: it waited the member's whole timeout, right
 * after another failure), four times the estimate, up to
 * PIB_FAIL_MAX_US.  So the requests in flight to a node that hangs,
 * timing out one after another, keep it out however long the others'
 * queues get, while fast failures (refused, an application restarting)
 * cost a second each. */
#define PIB_FAIL_MIN_US  1000000U
#define PIB_FAIL_MAX_US  60000000U
uint32_t pib_fail_sample(uint32_t took_us, uint32_t est_us, int compound);

/* The estimate as seen `age_ms` after its last sample: halved every
 * decay_s, so a member nobody picks is retried in time. */
double pib_est_now(uint32_t est_us, uint32_t age_ms, double decay_s);

/* One candidate of a pick. */
typedef struct {
    unsigned long inflight;    /* requests in flight to it */
    unsigned long remote;      /* other masters' requests in flight to it
                                  (pib_remote_inflight): count toward
                                  its cap only, not its wait */
    double est_us;             /* estimate; < 0: no sample yet */
    double silence_us;         /* no answer since a request picked this
                                  long ago (0: none): its estimate is
                                  at least that */
    double weight;             /* effective weight (> 0) */
    int drained;               /* too hot: only if every member is */
    int capped;                /* at its in-flight cap */
    unsigned long cap;         /* that cap (0: none) */
    int cooling;               /* the cap is below its CPUs: one more
                                  request would heat it, not just queue */
    int has_temp;
    int temp_dc;               /* for the all-drained fallback */
    int credit;                /* smooth round-robin credit (lbstatus) */
    int ramping;               /* in its slow start: wins no idle pick
                                  on its estimate alone */
    /* PiBalanceEnergy (pib_choose_energy) */
    long cpus;                 /* from its telemetry; <= 0: unknown, 4 */
    int has_jpr;               /* a joules-per-request figure */
    double jpr_j;              /* joules per request above its idle draw,
                                  last minute (pi_api.h) */
} pib_cand;

/* The effective estimate of a member, the one both the pick and the
 * status page use: its own (est_us; < 0: no sample yet, then median_us,
 * the median of the others'), raised to its silence (silence_us: no
 * answer since a pick that long ago, 0: none).  *by_silence (if not
 * NULL): whether the silence raised it, i.e. the member is "silent". */
double pib_effective_estimate(double est_us, double median_us,
                              double silence_us, int *by_silence);

/* The median of the known estimates of n candidates (1 if none). */
double pib_median_estimate(const pib_cand *c, size_t n);

/* Chooses among n candidates (n >= 1): fills unknown estimates with the
 * median of the known ones, raises each to its silence, skips drained
 * and capped members unless all are (all drained: the coolest; all
 * capped: one whose cap is not cooling it, else the least over its cap),
 * compares expected waits, and breaks ties with the smooth weighted
 * round-robin credit, which it updates: every candidate tied for the pick
 * gains its weight in percent, the winner pays back the total, and each
 * credit is kept within +-that total; a member that lost picks for any
 * length of time (drained, slower) saves up no credit for its return.
 * Returns the index of the winner.  Allocates nothing. */
size_t pib_choose(pib_cand *c, size_t n);

/* PiBalanceEnergy: pib_choose, then, among the candidates whose expected
 * wait is at most (1 + tolerance) times the winner's and that would start
 * the request at once with PIB_ENERGY_HEADROOM CPUs still free after it
 * (in flight + 2 <= CPUs), neither
 * drained nor capped, the one with the fewest joules per request above
 * its idle draw, if it takes at least PIB_ENERGY_MARGIN fewer than the
 * winner (which must have a figure itself).  tolerance < 0: pib_choose.
 * Worked table in pib_score.c; docs/lbmethod-pi.md. */
#define PIB_ENERGY_MARGIN        0.10  /* 10% fewer joules to matter */
#define PIB_ENERGY_TOLERANCE     0.25  /* PiBalanceEnergyTolerance */
#define PIB_ENERGY_HEADROOM      1     /* CPUs left free after a move */
size_t pib_choose_energy(pib_cand *c, size_t n, double tolerance);

/* The comparison pib_choose uses: nonzero when a is strictly better. */
int pib_better(const pib_cand *a, const pib_cand *b);

#endif /* PIB_SCORE_H */
