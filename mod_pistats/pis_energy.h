/* pis_energy.h -- a member's energy: the integral over time of the power
 * its node reports (PowerW), kept in its slot (pis_slot.h).
 *
 * Pure (libc and GCC's __atomic builtins on 32-bit words), unit-tested
 * in tests/unit/test_energy.c.  One writer per slot, the probe that
 * holds the member's claim (pis_probe.c), calls pis_energy_add with each
 * good reading; readers (the status page, lbmethod "pi" through
 * pi_api.h) read without a lock.
 *
 * The rule (docs/metrics.md):
 *
 * - Between two good readings with PowerW, at most max_gap_ms apart
 *   (three probe intervals: the staleness rule of pis_tel_stale), the
 *   power is taken to change linearly from one to the next (the
 *   trapezoid rule), and that energy is added.  The interval is
 *   measured on a monotonic clock, so a wall-clock step (NTP) does not
 *   stretch or reverse it.
 * - A longer gap (telemetry stale, a node down, the probe off) is not
 *   integrated: the counter does not grow as if the power were known; it
 *   resumes from the next pair of readings.  A reading without PowerW
 *   (unknown, or a node without a sensor) ends the chain the same way.
 *   So the counter under-counts across gaps rather than inventing.
 * - The energy of an interval is also spread over the wall-clock
 *   seconds it covered (a ring of PIS_RING_S seconds, like the request
 *   ring), with how many milliseconds of each it covered: a second is
 *   "wholly integrated" when all 1000 are.
 * - Joules per request over the last minute = energy of the wholly
 *   integrated seconds among the 60 complete ones before the reading /
 *   requests finished in those same seconds.  Seconds the probe could
 *   not integrate (a gap, the last interval not yet closed by the next
 *   reading) count in neither.  The idle draw is the lowest reading the
 *   slot has seen (its life: a full restart or the member's slot being
 *   taken anew forgets it); "above idle" subtracts it from each
 *   integrated second: (energy - idle x seconds) / requests, which does
 *   not depend on how many requests the node gets (the figure
 *   PiBalanceEnergy compares: docs/lbmethod-pi.md).
 *
 * Worked example (test_energy.c replays it): readings of 3.00 W at
 * t = 10.0 s and 5.00 W at 12.0 s add 8 J; the seconds 10 and 11 get
 * 3.5 J and 4.5 J, each wholly integrated.  With 40 requests in those
 * two seconds: 0.2 J (200 mJ) a request, (8 - 3 x 2) / 40 = 50 mJ above
 * the idle 3.00 W.
 */
#ifndef PIS_ENERGY_H
#define PIS_ENERGY_H

#include <stdint.h>

#include "pis_slot.h"
#include "pis_snap.h"

#define PIS_ENERGY_WINDOW_S 60     /* the "last minute" */

/* A good reading of the member's telemetry at wall_ms (its seconds name
 * the ring's entries) and mono_ms (a monotonic clock, for the
 * interval): mw its PowerW in milliwatts, or < 0 when it had none.
 * Integrates from the previous reading (see above), then recomputes the
 * last minute's figures.  One writer per slot. */
void pis_energy_add(pis_slot *s, uint64_t wall_ms, uint32_t mono_ms,
                    long mw, uint32_t max_gap_ms);

/* What a reader sees of a slot's energy. */
typedef struct {
    int has_energy;                /* something was ever integrated */
    double energy_j;               /* all-time */
    int has_idle;
    double idle_w;                 /* lowest reading */
    unsigned window_s;             /* wholly integrated s of the minute */
    double window_j;               /* their energy */
    uint64_t window_requests;      /* requests in them */
    uint32_t window_at_s;          /* when the minute ended; 0: never */
    int has_jpr;                   /* window_requests > 0 */
    double jpr_j;                  /* window_j / window_requests */
    double jpr_above_idle_j;       /* (window_j - idle x s) / requests,
                                    * at least 0 (idle unknown: jpr_j) */
} pis_energy_view;

/* Reads the slot's energy figures (as the last reading left them). */
void pis_energy_read(const pis_slot *s, pis_energy_view *v);

/* The per-request figures of a minute: energy mj over covered_s whole
 * seconds with `requests` finished in them, idle_mw the idle draw (< 0:
 * unknown).  Returns 1 and sets *jpr and *above (joules), or 0 when
 * there were no requests. */
int pis_energy_per_request(uint64_t mj, unsigned covered_s,
                           uint64_t requests, long idle_mw, double *jpr,
                           double *above);

/* n seconds of power history ending with the last complete second
 * before now_s, oldest first: each second's mean power over what was
 * integrated of it, milliwatts, or -1 where nothing was. */
void pis_energy_history(const pis_slot *s, uint32_t now_s, unsigned n,
                        int32_t *mw);

/* The snapshot's energy figures of member m (sl: its slot, NULL when
 * it has none) as of second now_s; m's telemetry (tel, tel_stale) is
 * filled already: stale telemetry has no joules per request. */
void pis_energy_snap(const pis_slot *sl, uint32_t now_s,
                     pis_member_snap *m);

/* A balancer's totals from its members' figures: the fresh power, the
 * joules per request of the last minute. */
void pis_energy_totals(pis_balancer_snap *b);

#endif /* PIS_ENERGY_H */
