/* pib_member.h -- lbmethod "pi": what it makes of one member, the
 * policy the pick and /pi-status share.  Pure (libc and libm),
 * unit-tested in tests/unit/test_member.c; pib_lbmethod.c gathers the
 * inputs (mod_pistats' telemetry, the member's shared state, mod_proxy's
 * settings) and applies the results.
 *
 *   freshness   telemetry is used only when mod_pistats answered, it is
 *               not stale, and it has a temperature or throttle bits;
 *               missing or stale telemetry gives factor 1, never a drain
 *   weight      loadfactor x thermal x throttle x slow-start ramp
 *   cooling     a warm member's in-flight cap below its CPUs (4 when
 *               unknown): one more request would heat it, not just queue
 *   compound    a failure right after another that waited the member's
 *               whole timeout (within 10%) compounds (pib_fail_sample)
 *   silence     a pick unanswered for S ms raises the member's estimate
 *               to S; a mark older than its timeout and a second was
 *               left by a dead child and is ignored
 *   state name  "silent", "stale", "drained", "throttled", "warm",
 *               "ramping" or "ok", in that order
 *   remote      other masters' requests in flight to the member, from
 *               the node's BusyWorkers: they count toward a warm
 *               member's in-flight cap, so the cap holds across masters
 *               (docs/multi-master.md)
 */
#ifndef PIB_MEMBER_H
#define PIB_MEMBER_H

#include <stdint.h>

#include "pib_score.h"

/* A member's telemetry as mod_pistats gave it (include/pi_api.h's
 * pi_member_tel): answered 0 when it gave none. */
typedef struct {
    int answered;
    int stale;
    int has_temp;
    int temp_dc;                   /* tenths of C */
    int has_throttled;
    unsigned long throttled;       /* firmware bits */
    int has_cpus;
    long cpus;
    int has_busy;                  /* the node's BusyWorkers */
    unsigned long busy;
    unsigned long own_inflight;    /* ours when that was read */
    long age_ms;                   /* the reading's age, -1: none */
    long interval_ms;              /* the probe's interval */
    int has_jpr;                   /* PiBalanceEnergy's figure (none when
                                    * stale: pis_get_member_tel) */
    double jpr_above_idle_j;       /* J/request above idle, last minute */
} pib_tel;

/* What lbmethod "pi" makes of one member now. */
typedef struct {
    double thermal, throttle, ramp, weight;
    int drained, fresh, throttled;
    long cpus;                     /* 0: unknown */
} pib_view;

/* The freshness rule: 1 when tel may weigh the member. */
int pib_tel_fresh(const pib_tel *tel);

/* The telemetry's part of the view: freshness, thermal factor, drain
 * (hysteresis from was_drained), throttle factor, CPUs.  Ramp 1 and
 * weight 0 until pib_view_weigh(). */
void pib_view_from_tel(const pib_tuning *t, const pib_tel *tel,
                       int was_drained, pib_view *v);

/* The effective weight, in loadfactor units: lbfactor (x 100, as
 * mod_proxy keeps it) / 100 x thermal x throttle x ramp; stored in
 * v->weight and returned. */
double pib_view_weigh(pib_view *v, int lbfactor);

/* The state /pi-status shows for the member (static string). */
const char *pib_view_state_name(const pib_view *v, int silent);

/* The cooling rule for an in-flight cap (0: none) and the CPUs (0:
 * unknown). */
int pib_cap_cooling(unsigned long cap, long cpus);

/* Requests other masters have in flight to the member, as its last
 * reading showed:
 *
 *     remote = BusyWorkers - 1 - own_inflight      (at least 0)
 *
 * BusyWorkers counts every request the node is handling: the probe's own
 * (the 1), this master's (own_inflight, taken when the reading was
 * stored) and the other masters'.  Only ours are subtracted, never our
 * current count: both sides of the difference are of the same moment.
 * 0 (not counted) when the node gave no BusyWorkers, the telemetry did
 * not answer or is stale, the reading is older than max_age_s (< 0: 1.5
 * x the probe interval; 0: always 0, the rule is off) -- Envoy's expiry
 * of backend-reported load: a reading that old says little about now.
 *
 *   BusyWorkers | own then | age    | max age | remote
 *   ------------+----------+--------+---------+-------
 *        6      |    2     | 1.0 s  |  3 s    |   3
 *        2      |    3     | 1.0 s  |  3 s    |   0   (never negative)
 *        6      |    2     | 3.5 s  |  3 s    |   0   (expired)
 *        6      |    2     | 1.0 s  |  0      |   0   (off)
 *
 * Herding: every master sees the same reading at about the same time.
 * So the remote load only counts toward the in-flight cap of a warm
 * member (a bound that protects a hot node), never in the expected wait
 * that ranks members: masters do not all move to the member that
 * looked least loaded a probe ago (Mitzenmacher's stale-information
 * herd).  Each master's probe has its own phase, and a capped member
 * still takes requests when every member is capped. */
unsigned long pib_remote_inflight(const pib_tel *tel, double max_age_s);

/* The cap rule across masters: whether a member with `own` requests of
 * ours and `remote` of others in flight is at its cap (0: none). */
int pib_cap_reached(unsigned long own, unsigned long remote,
                    unsigned long cap);

/* The compound-failure rule: a failed attempt that took took_us, after
 * another failure (failed_before), compounds when it waited the member's
 * whole timeout_ms within 10% (took/1000 + took/10000 >= timeout). */
int pib_fail_compounds(int failed, uint32_t failed_before, uint32_t took_us,
                       uint32_t timeout_ms);

/* The silence rule, part one: how long a pick marked at `mark` (0:
 * none) has gone unanswered at `now`, in ms (0: not silent).  A mark
 * older than timeout_ms + PIB_MARK_LOST_MS was lost with a child: 0, and
 * *lost set (the caller may clear it). */
#define PIB_MARK_LOST_MS 1000U
uint32_t pib_stall_ms(uint32_t mark, uint32_t now, uint32_t timeout_ms,
                      int *lost);

#endif /* PIB_MEMBER_H */
