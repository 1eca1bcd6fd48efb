/* pib_score.c -- lbmethod "pi": pick the member with the lowest expected
 * wait (see pib_score.h).
 *
 * Worked example (tests/unit/test_score.c replays it).  Three members of
 * loadfactor 1; C is warm (74 C with PiBalanceThermal 70 80 and floor
 * 0.1: thermal factor 1 - 0.9 x 4/10 = 0.64):
 *
 *   member | in flight | estimate | weight | wait = (n+1) x est / weight
 *   -------+-----------+----------+--------+----------------------------
 *     A    |     2     |  10 ms   |  1.00  |  30 ms
 *     B    |     0     |  20 ms   |  1.00  |  20 ms   <- chosen
 *     C    |     1     |  10 ms   |  0.64  |  31 ms
 *
 * With B's request in flight, B's wait is 40 ms and A (30 ms) is next.
 *
 * A warm member is capped at ceil(CPUs x thermal factor) requests in
 * flight.  When every member is at its cap the request still goes
 * somewhere: preferably to a member whose cap is its CPU count (one more
 * there only queues), never first to one whose cap is below its CPUs
 * (one more there would run and heat a node being cooled).  With
 * several masters, the requests the others have in flight to the member
 * (`remote`, from its BusyWorkers, pib_member.c) count toward its cap,
 * so the cap holds for the node, not for each master; they do not enter
 * the expected wait (see pib_member.h: herding).
 *
 * Two rules keep Apache's meaning of loadfactor where waits do not
 * differ:
 * - idle members (nothing in flight) compare by estimate alone, and only
 *   when one is PIB_IDLE_TOLERANCE times and PIB_IDLE_MIN_DIFF_US faster:
 *   a request to an idle node waits its service time, whatever the
 *   node's weight, and sub-millisecond jitter is no signal; except that a
 *   member in its slow start wins no idle pick on its estimate (after a
 *   drain that estimate is old: slow start must hold);
 * - waits within 1% of each other, and idle members closer than that,
 *   are ties, broken by a smooth weighted round-robin over the effective
 *   weights (byrequests' bookkeeping), so sequential traffic shares in
 *   proportion to loadfactor x thermal x throttle x ramp.  Only the
 *   members tied for a pick gain credit (nginx's smooth round robin runs
 *   over the eligible peers only), and a credit stays within +-(the gains
 *   of one pick): one that lost picks for a long time (drained, slower)
 *   comes back with no credit saved up.
 * Expected waits are compared by cross-multiplying, never dividing.
 *
 * PiBalanceEnergy (pib_choose_energy) then looks at the winner's
 * neighbours: a candidate whose wait is within the tolerance of the
 * winner's, that would start the request at once and still have a CPU
 * free after it (in flight + 2 <= CPUs: neither this request nor the
 * next queues there) and takes at least 10% fewer joules
 * per request above its idle draw gets it instead; the fewest joules
 * among several such, then the shorter wait, then the first.  Worked
 * table (tests/unit/test_score.c replays it): two Pi 4s and a Pi 5 of 4
 * CPUs, tolerance 25%:
 *
 *   member | in flight | estimate | wait  | J/request above idle
 *   -------+-----------+----------+-------+----------------------------
 *   A Pi 4 |     0     |  20 ms   | 20 ms | 16.5 mJ   <- pib_choose
 *   B Pi 5 |     2     |   8 ms   | 24 ms |  9.0 mJ   <- with energy:
 *   C Pi 4 |     1     |  20 ms   | 40 ms | 16.0 mJ      24 <= 1.25 x 20
 *
 * With B at 3 in flight (wait 32 ms > 25 ms) A keeps it; with tolerance
 * 10% (22 ms) too; with B at 3 in flight (one CPU left) too, whatever
 * the tolerance.  Members pib_choose calls tied (idle ones under 2x or 5 ms
 * apart) are within any tolerance.  Under saturation every member has a queue, so the rule
 * has nothing to move; it never overrides a drain, a cap or a member
 * without a figure.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pib_score.h"

#define PIB_MEDIAN_MAX 256             /* estimates considered for it */

void pib_tuning_default(pib_tuning *t)
{
    t->decay_s = PIB_DEFAULT_DECAY_S;
    t->soft_dc = PIB_DEFAULT_SOFT_DC;
    t->hard_dc = PIB_DEFAULT_HARD_DC;
    t->floor = PIB_DEFAULT_FLOOR;
    t->hyst_dc = PIB_DEFAULT_HYST_DC;
    t->throttle_factor = PIB_DEFAULT_THROTTLE;
    t->slowstart_s = PIB_DEFAULT_SLOWSTART_S;
    t->remote_max_age_s = PIB_DEFAULT_REMOTE_AGE_S;
    t->energy = 0;                     /* PiBalanceEnergy Off */
    t->energy_tol = PIB_ENERGY_TOLERANCE;
}

double pib_thermal_factor(const pib_tuning *t, int temp_dc)
{
    if (temp_dc <= t->soft_dc) {
        return 1.0;
    }
    if (temp_dc >= t->hard_dc) {
        return t->floor;
    }
    return 1.0 - (1.0 - t->floor) * (double)(temp_dc - t->soft_dc)
                 / (double)(t->hard_dc - t->soft_dc);
}

int pib_thermal_drained(const pib_tuning *t, int temp_dc, int was_drained)
{
    if (was_drained) {
        return temp_dc >= t->hard_dc - t->hyst_dc;
    }
    return temp_dc > t->hard_dc;
}

double pib_ramp(const pib_tuning *t, double since_s)
{
    if (t->slowstart_s <= 0 || since_s >= t->slowstart_s) {
        return 1.0;
    }
    if (since_s < 0) {
        since_s = 0;
    }
    return PIB_RAMP_START + (1.0 - PIB_RAMP_START) * since_s / t->slowstart_s;
}

unsigned long pib_inflight_cap(double thermal_factor, long cpus)
{
    double cap;

    if (thermal_factor >= 1.0) {
        return 0;
    }
    cap = ceil((double)(cpus > 0 ? cpus : 4) * thermal_factor);
    return cap < 1 ? 1 : (unsigned long)cap;
}

uint32_t pib_est_update(uint32_t est_us, uint32_t dt_ms, uint32_t sample_us,
                        double decay_s)
{
    double w, v;

    if (sample_us == 0) {
        sample_us = 1;
    }
    if (est_us == 0 || sample_us >= est_us) {
        return sample_us;              /* first, or slower: take it now */
    }
    w = exp(-(double)dt_ms / (decay_s * 1000.0));
    v = (double)est_us * w + (double)sample_us * (1.0 - w);
    return v < 1.0 ? 1 : (uint32_t)(v + 0.5);
}

uint32_t pib_fail_sample(uint32_t took_us, uint32_t est_us, int compound)
{
    uint32_t us = took_us < PIB_FAIL_MIN_US ? PIB_FAIL_MIN_US : took_us;

    if (us < est_us) {
        us = est_us;
    }
    if (compound) {
        uint64_t four = 4 * (uint64_t)est_us;

        four = four > PIB_FAIL_MAX_US ? PIB_FAIL_MAX_US : four;
        us = us < four ? (uint32_t)four : us;
    }
    return us;
}

double pib_est_now(uint32_t est_us, uint32_t age_ms, double decay_s)
{
    if (est_us == 0) {
        return -1.0;
    }
    return (double)est_us * pow(0.5, (double)age_ms / (decay_s * 1000.0));
}

/* (n + 1) x est / weight of a against b, cross-multiplied: < 0, 0, > 0. */
static int compare_waits(const pib_cand *a, const pib_cand *b)
{
    double wa = (double)(a->inflight + 1) * a->est_us * b->weight;
    double wb = (double)(b->inflight + 1) * b->est_us * a->weight;

    if (wa < wb * 0.99) {
        return -1;
    }
    if (wb < wa * 0.99) {
        return 1;
    }
    return 0;
}

/* a against b on everything but the credit: < 0 a is better, > 0 b is,
 * 0 a tie (the credit decides). */
static int compare(const pib_cand *a, const pib_cand *b)
{
    int cmp;

    if (a->drained != b->drained) {
        return a->drained ? 1 : -1;
    }
    if (a->drained) {                  /* every member is too hot */
        if (a->has_temp != b->has_temp) {
            return a->has_temp ? -1 : 1;
        }
        if (a->has_temp && a->temp_dc != b->temp_dc) {
            return a->temp_dc < b->temp_dc ? -1 : 1;
        }
        return 0;
    }
    if (a->capped != b->capped) {
        return a->capped ? 1 : -1;
    }
    if (a->capped) {
        /* Every member is at its cap, so the request queues somewhere.
         * At a member capped at its CPU count it only waits; at one
         * capped below (being cooled) it would run and heat it: that
         * only when all are, and then where it is least over its cap. */
        if (a->cooling != b->cooling) {
            return a->cooling ? 1 : -1;
        }
        if (a->cooling) {
            double oa = (double)(a->inflight + a->remote + 1)
                        * (double)b->cap;
            double ob = (double)(b->inflight + b->remote + 1)
                        * (double)a->cap;

            if (oa != ob) {
                return oa < ob ? -1 : 1;
            }
        }
    }
    if (a->inflight == 0 && b->inflight == 0) {
        cmp = fabs(a->est_us - b->est_us) < PIB_IDLE_MIN_DIFF_US ? 0
              : a->est_us * PIB_IDLE_TOLERANCE < b->est_us ? -1
              : b->est_us * PIB_IDLE_TOLERANCE < a->est_us ? 1 : 0;
        /* A member in its slow start wins no idle pick on its estimate
         * (which, after a drain, is old or the others' median): the
         * round robin over the ramped weights gives it its share. */
        if ((cmp < 0 && a->ramping) || (cmp > 0 && b->ramping)) {
            cmp = 0;
        }
    }
    else {
        cmp = compare_waits(a, b);
    }
    return cmp;
}

int pib_better(const pib_cand *a, const pib_cand *b)
{
    int cmp = compare(a, b);

    return cmp != 0 ? cmp < 0 : a->credit > b->credit;
}

double pib_effective_estimate(double est_us, double median_us,
                              double silence_us, int *by_silence)
{
    int raised;

    if (est_us < 0) {
        est_us = median_us;
    }
    raised = silence_us > est_us;
    if (by_silence != NULL) {
        *by_silence = raised;
    }
    return raised ? silence_us : est_us;
}

/* Median of the known estimates (insertion sort: n is small). */
double pib_median_estimate(const pib_cand *c, size_t n)
{
    double v[PIB_MEDIAN_MAX];
    size_t k = 0, i, j;

    for (i = 0; i < n && k < PIB_MEDIAN_MAX; i++) {
        if (c[i].est_us >= 0) {
            double x = c[i].est_us;

            for (j = k; j > 0 && v[j - 1] > x; j--) {
                v[j] = v[j - 1];
            }
            v[j] = x;
            k++;
        }
    }
    if (k == 0) {
        return 1.0;                    /* nothing known: all equal */
    }
    return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2.0;
}

/* credit + gain, saturating (a credit read back from lbstatus may be
 * anything: another method wrote it, or an old bug). */
static int credit_add(int credit, int gain)
{
    return credit > INT_MAX - gain ? INT_MAX : credit + gain;
}

/* The credit kept within [-total, total], total being the gains of one
 * pick.  Only the members tied for a pick gain credit, and the round
 * robin's credits never leave that range; the bound is for a credit read
 * back from lbstatus that another method or a changed membership left.
 * Before both rules, a member that kept losing (drained for heat, capped,
 * slower) gained credit without bound: back, it won every tie, slow start
 * or not, for as long as it had lost (and the int overflowed after
 * ~215,000 lost picks at loadfactor 100). */
static int credit_bound(int credit, long total)
{
    long t = total > INT_MAX ? INT_MAX : total;

    return credit > t ? (int)t : credit < -t ? (int)-t : credit;
}

size_t pib_choose(pib_cand *c, size_t n)
{
    double median = pib_median_estimate(c, n);
    long total = 0;
    size_t i, lead = 0, best;

    for (i = 0; i < n; i++) {
        c[i].est_us = pib_effective_estimate(c[i].est_us, median,
                                             c[i].silence_us, NULL);
        if (c[i].weight <= 0) {
            c[i].weight = 0.01;
        }
    }
    for (i = 1; i < n; i++) {          /* one that nothing beats */
        if (compare(&c[i], &c[lead]) < 0) {
            lead = i;
        }
    }
    /* The round robin runs over the members tied with it only: one that
     * lost on its wait, its heat or its cap gains no credit meanwhile. */
    for (i = 0; i < n; i++) {
        int gain = (int)(c[i].weight * 100.0 + 0.5);

        if (i == lead || compare(&c[i], &c[lead]) == 0) {
            gain = gain < 1 ? 1 : gain;
            c[i].credit = credit_add(c[i].credit, gain);
            total += gain;
        }
    }
    best = lead;
    for (i = 0; i < n; i++) {
        c[i].credit = credit_bound(c[i].credit, total);
        if (i != lead && compare(&c[i], &c[lead]) == 0
            && c[i].credit > c[best].credit) {
            best = i;
        }
    }
    c[best].credit -= (int)total;
    return best;
}

/* Whether candidate a (not the winner w) may take w's request for its
 * energy: both plain (not drained or capped), a not queueing it and
 * keeping PIB_ENERGY_HEADROOM CPUs free after it (so that the next
 * request does not queue there either: without it, at 80% load, the rule
 * moved requests into the fast members' last slots and p99 rose ~9%,
 * bench/RESULTS-run.md), its
 * wait within the tolerance of w's (cross-multiplied), or a tie by
 * pib_choose's own rules (idle members a few milliseconds apart: their
 * estimates' ratio is jitter, not a wait). */
static int energy_eligible(const pib_cand *a, const pib_cand *w,
                           double tolerance)
{
    long cpus = a->cpus > 0 ? a->cpus : 4;
    double wa = (double)(a->inflight + 1) * a->est_us * w->weight;
    double ww = (double)(w->inflight + 1) * w->est_us * a->weight;

    return !a->drained && !a->capped && a->has_jpr
           && a->inflight + 1 + PIB_ENERGY_HEADROOM <= (unsigned long)cpus
           && (wa <= (1.0 + tolerance) * ww || compare(a, w) == 0);
}

size_t pib_choose_energy(pib_cand *c, size_t n, double tolerance)
{
    size_t best = pib_choose(c, n), pick = best, i;

    if (tolerance < 0 || c[best].drained || c[best].capped
        || !c[best].has_jpr) {
        return best;
    }
    for (i = 0; i < n; i++) {
        if (i == best || !energy_eligible(&c[i], &c[best], tolerance)
            || c[i].jpr_j * (1.0 + PIB_ENERGY_MARGIN) > c[best].jpr_j) {
            continue;
        }
        if (pick == best || c[i].jpr_j < c[pick].jpr_j
            || (c[i].jpr_j == c[pick].jpr_j
                && (double)(c[i].inflight + 1) * c[i].est_us * c[pick].weight
                   < (double)(c[pick].inflight + 1) * c[pick].est_us
                     * c[i].weight)) {
            pick = i;
        }
    }
    /* The round robin's credits stay as pib_choose left them: the tie's
     * winner has paid for this pick, so ties go on sharing by weight
     * among themselves; the energy rule only moves a request to a
     * neighbour. */
    return pick;
}
