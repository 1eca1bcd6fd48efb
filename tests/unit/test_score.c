/* test_score.c -- lbmethod "pi": expected wait, heat, throttle, slow
 * start, the all-hot fallback, and no starvation after a slowdown. */
#include <limits.h>
#include <math.h>

#include "unit.h"
#include "pib_score.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static pib_cand cand(unsigned long inflight, double est_ms, double weight)
{
    pib_cand c;

    memset(&c, 0, sizeof(c));
    c.inflight = inflight;
    c.est_us = est_ms * 1000.0;
    c.weight = weight;
    return c;
}

/* The worked example in pib_score.c. */
static void worked_example(void)
{
    pib_tuning t;
    pib_cand c[3];
    double warm;

    pib_tuning_default(&t);
    warm = pib_thermal_factor(&t, 740);
    CHECK(NEAR(warm, 0.64));
    c[0] = cand(2, 10, 1.0);
    c[1] = cand(0, 20, 1.0);
    c[2] = cand(1, 10, warm);
    CHECK_INT(pib_choose(c, 3), 1);
    c[1].inflight = 1;
    CHECK_INT(pib_choose(c, 3), 0);
}

/* PiBalanceEnergy: pib_score.c's table. */
static pib_cand energy_cand(unsigned long inflight, double est_ms,
                            double jpr_mj)
{
    pib_cand c = cand(inflight, est_ms, 1.0);

    c.cpus = 4;
    c.has_jpr = 1;
    c.jpr_j = jpr_mj / 1000.0;
    return c;
}

static void energy_table(void)
{
    pib_cand c[3];

#define TABLE(b_inflight) \
    (c[0] = energy_cand(0, 20, 16.5), c[1] = energy_cand(b_inflight, 8, 9.0), \
     c[2] = energy_cand(1, 20, 16.0))
    TABLE(2);
    CHECK_INT(pib_choose(c, 3), 0);                  /* A: 20 ms */
    TABLE(2);
    CHECK_INT(pib_choose_energy(c, 3, 0.25), 1);     /* B: 24 <= 25 ms */
    TABLE(2);
    CHECK_INT(pib_choose_energy(c, 3, -1), 0);       /* off */
    TABLE(2);
    CHECK_INT(pib_choose_energy(c, 3, 0.10), 0);     /* 24 > 22 ms */
    TABLE(3);
    CHECK_INT(pib_choose_energy(c, 3, 0.25), 0);     /* 32 > 25 ms */
    TABLE(3);
    CHECK_INT(pib_choose_energy(c, 3, 10.0), 0);     /* 1 CPU left: kept */
    /* B's figure under 10% below A's: no move; unknown: no move */
    TABLE(2);
    c[1].jpr_j = 0.0155;
    CHECK_INT(pib_choose_energy(c, 3, 0.25), 0);
    TABLE(2);
    c[1].has_jpr = 0;
    CHECK_INT(pib_choose_energy(c, 3, 0.25), 0);
    /* the winner without a figure keeps it: nothing to compare */
    TABLE(2);
    c[0].has_jpr = 0;
    CHECK_INT(pib_choose_energy(c, 3, 0.25), 0);
    /* a drained or capped neighbour never gets it */
    TABLE(2);
    c[1].capped = 1;
    c[1].cap = 2;
    CHECK_INT(pib_choose_energy(c, 3, 0.25), 0);
    TABLE(2);
    c[1].drained = 1;
    CHECK_INT(pib_choose_energy(c, 3, 0.25), 0);
    /* two that qualify: the fewer joules, then the shorter wait */
    c[0] = energy_cand(0, 20, 16.5);
    c[1] = energy_cand(2, 8, 9.0);
    c[2] = energy_cand(1, 11, 9.0);                  /* 22 ms, 9 mJ */
    CHECK_INT(pib_choose_energy(c, 3, 0.25), 2);
    c[2].jpr_j = 0.0095;
    CHECK_INT(pib_choose_energy(c, 3, 0.25), 1);
    /* idle members 1 and 3 ms: a tie by the idle rule, whatever the
     * tolerance (their ratio is jitter) */
    c[0] = energy_cand(0, 1, 16.5);
    c[1] = energy_cand(0, 3, 9.0);
    c[2] = energy_cand(0, 3, 16.0);
    CHECK_INT(pib_choose_energy(c, 3, 0.0), 1);
    /* CPUs unknown: 4 */
    TABLE(2);
    c[1].cpus = 0;
    CHECK_INT(pib_choose_energy(c, 3, 0.25), 1);     /* 2 + 2 <= 4 */
    TABLE(2);
    c[1].cpus = 3;
    CHECK_INT(pib_choose_energy(c, 3, 0.25), 0);     /* 2 + 2 > 3 */
#undef TABLE
}

/* Thermal curve: 1 at soft, floor at hard, linear between. */
static void thermal_curve(void)
{
    static const struct { int dc; double f; } want[] = {
        { 200, 1.0 }, { 700, 1.0 }, { 750, 0.55 }, { 790, 0.19 },
        { 800, 0.1 }, { 900, 0.1 },
    };
    pib_tuning t;
    size_t i;

    pib_tuning_default(&t);
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        CHECK(fabs(pib_thermal_factor(&t, want[i].dc) - want[i].f) < 1e-9);
    }
    t.floor = 0.5;
    CHECK(NEAR(pib_thermal_factor(&t, 750), 0.75));
}

/* Drained above hard, re-admitted below hard - hysteresis. */
static void hysteresis(void)
{
    static const struct { int dc, was, now; } steps[] = {
        { 790, 0, 0 }, { 800, 0, 0 }, { 801, 0, 1 }, { 850, 1, 1 },
        { 780, 1, 1 }, { 751, 1, 1 }, { 750, 1, 1 }, { 749, 1, 0 },
        { 790, 0, 0 },
    };
    pib_tuning t;
    size_t i;

    pib_tuning_default(&t);
    for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        CHECK_INT(pib_thermal_drained(&t, steps[i].dc, steps[i].was),
                  steps[i].now);
    }
}

static void slow_start(void)
{
    pib_tuning t;

    pib_tuning_default(&t);
    CHECK(NEAR(pib_ramp(&t, 0), 0.1));
    CHECK(NEAR(pib_ramp(&t, 15), 0.55));
    CHECK(NEAR(pib_ramp(&t, 30), 1.0));
    CHECK(NEAR(pib_ramp(&t, 300), 1.0));
    CHECK(NEAR(pib_ramp(&t, -5), 0.1));
    t.slowstart_s = 0;
    CHECK(NEAR(pib_ramp(&t, 0), 1.0));
}

static void caps(void)
{
    CHECK_INT(pib_inflight_cap(1.0, 4), 0);
    CHECK_INT(pib_inflight_cap(0.64, 4), 3);
    CHECK_INT(pib_inflight_cap(0.5, 4), 2);
    CHECK_INT(pib_inflight_cap(0.1, 4), 1);
    CHECK_INT(pib_inflight_cap(0.5, 0), 2);     /* CPUs unknown: 4 */
    CHECK_INT(pib_inflight_cap(0.3, 16), 5);
}

/* Peak-EWMA: slowdowns at once, recovery with the time constant. */
static void estimator(void)
{
    uint32_t e = pib_est_update(0, 0, 5000, 10);

    CHECK_INT(e, 5000);
    CHECK_INT(pib_est_update(e, 1, 50000, 10), 50000);
    /* one time constant later a fast sample covers 63% of the way */
    e = pib_est_update(50000, 10000, 5000, 10);
    CHECK(fabs((double)e - (5000 + 45000 * exp(-1.0))) < 1.0);
    /* no sample for one decay: halved; for three: an eighth */
    CHECK(NEAR(pib_est_now(8000, 10000, 10), 4000));
    CHECK(NEAR(pib_est_now(8000, 30000, 10), 1000));
    CHECK(pib_est_now(0, 0, 10) < 0);
}

/* The silence rule: a member silent for longer than its estimate is
 * estimated at its silence, also when it has no sample yet (after the
 * median fill); a shorter silence changes nothing.  A hung member (20 ms
 * like the others, as many in flight) loses the pick once its silence
 * outweighs its estimate. */
static void silence(void)
{
    pib_cand c[3];
    uint32_t ms;

    c[0] = cand(0, 20, 1);
    c[1] = cand(0, 40, 1);
    c[1].silence_us = 5000;
    c[2] = cand(0, 0, 1);
    c[2].est_us = -1;
    c[2].silence_us = 90000;
    pib_choose(c, 3);
    CHECK(NEAR(c[1].est_us, 40000));
    CHECK(NEAR(c[2].est_us, 90000));    /* median 30 ms, silent 90 */
    CHECK(NEAR(pib_median_estimate(c, 3), 40000));
    for (ms = 0; ms <= 200; ms += 10) {
        c[0] = cand(3, 20, 1);
        c[1] = cand(3, 20, 1);
        c[2] = cand(3, 20, 1);
        c[2].silence_us = ms * 1000.0;
        c[2].credit = 1000;             /* the tie-break favours it */
        if (ms <= 20) {
            CHECK_INT(pib_choose(c, 3), 2);
        }
        else if (ms >= 30) {
            CHECK(pib_choose(c, 3) != 2);
        }
    }
}

/* A failure: at least 1 s, never below the estimate; compounding (a
 * timeout right after a failure), 4x the estimate up to 60 s. */
static void failures(void)
{
    uint32_t e = 20000;
    int i;

    CHECK_INT(pib_fail_sample(3000, 20000, 0), 1000000);
    CHECK_INT(pib_fail_sample(3000000, 20000, 0), 3000000);
    CHECK_INT(pib_fail_sample(3000, 2000000, 0), 2000000);
    CHECK_INT(pib_fail_sample(3000000, 3000000, 1), 12000000);
    CHECK_INT(pib_fail_sample(3000000, 20000000, 1), PIB_FAIL_MAX_US);
    CHECK_INT(pib_fail_sample(90000000, 20000000, 1), 90000000);
    CHECK_INT(pib_fail_sample(0, 0x7fffffffU, 1), 0x7fffffffU);
    for (i = 0; i < 30; i++) {          /* 30 timeouts of 3 s, a hang */
        e = pib_est_update(e, 1, pib_fail_sample(3000000, e, i > 0), 10);
    }
    CHECK_INT(e, PIB_FAIL_MAX_US);
}

/* Heat: drained members only when all are; then the coolest. */
static void all_hot(void)
{
    pib_cand c[3];

    c[0] = cand(0, 10, 1);
    c[1] = cand(5, 10, 1);
    c[2] = cand(0, 1, 1);
    c[0].drained = c[2].drained = 1;
    CHECK_INT(pib_choose(c, 3), 1);              /* the only cool one */
    c[1].drained = 1;
    c[0].has_temp = c[1].has_temp = c[2].has_temp = 1;
    c[0].temp_dc = 905;
    c[1].temp_dc = 880;
    c[2].temp_dc = 910;
    CHECK_INT(pib_choose(c, 3), 1);              /* the coolest */
}

/* A capped member is skipped while another can take the request. */
static void capped(void)
{
    pib_cand c[2];

    c[0] = cand(2, 1, 1);
    c[1] = cand(6, 10, 1);
    c[0].capped = 1;
    CHECK_INT(pib_choose(c, 2), 1);
    c[1].capped = 1;
    CHECK_INT(pib_choose(c, 2), 0);              /* all capped: waits */
}

/* Every member at its cap: the request queues where its cap is its CPU
 * count, not on a member capped below its CPUs to cool it, even when
 * that one's wait is shorter; all cooling: the least over its cap. */
static void capped_all(void)
{
    pib_cand c[3];

    c[0] = cand(16, 100, 1);                     /* warm, capped at 4 */
    c[0].capped = 1;
    c[0].cap = 4;
    c[1] = cand(28, 70, 1);                      /* warm, capped at 4 */
    c[1].capped = 1;
    c[1].cap = 4;
    c[2] = cand(2, 7, 0.2);                      /* hot, capped at 2 of 4 */
    c[2].capped = 1;
    c[2].cap = 2;
    c[2].cooling = 1;
    CHECK_INT(pib_choose(c, 3), 0);              /* not 2: it would heat */
    c[0].cooling = c[1].cooling = 1;             /* all being cooled */
    c[0].cap = c[1].cap = 3;
    CHECK_INT(pib_choose(c, 3), 2);              /* 3/2 over vs 17/3, 29/3 */
    c[2].inflight = 11;
    CHECK_INT(pib_choose(c, 3), 0);              /* 12/2 vs 17/3 vs 29/3 */
}

/* Idle members: loadfactor shares (1:3), unknown estimates = median. */
static void idle_shares(void)
{
    pib_cand c[2];
    int n[2] = { 0, 0 }, i;

    c[0] = cand(0, 5, 1);
    c[1] = cand(0, 6, 3);
    for (i = 0; i < 400; i++) {
        c[0].est_us = 5000;
        c[1].est_us = 6000;
        n[pib_choose(c, 2)]++;
    }
    CHECK_INT(n[0], 100);
    CHECK_INT(n[1], 300);
    /* twice as slow and idle: the faster one */
    c[0] = cand(0, 5, 1);
    c[1] = cand(0, 11, 1);
    CHECK_INT(pib_choose(c, 2), 0);
    /* no sample yet: the median of the others */
    c[0] = cand(1, 10, 1);
    c[1] = cand(1, 30, 1);
    c[2 - 1].est_us = -1;
    pib_choose(c, 2);
    CHECK(NEAR(c[1].est_us, 10000));
}

/* A transient slowdown does not starve a member (traefik#12306): with a
 * simulated clock, 10 requests a second, A steadily 10 ms with two in
 * flight, B slow once (1 s): B is tried again within a minute. */
static void no_starvation(void)
{
    pib_tuning t;
    uint32_t b_est = 1000000, b_ms = 0, now;
    int retried_at = -1;

    pib_tuning_default(&t);
    for (now = 0; now <= 120000 && retried_at < 0; now += 100) {
        pib_cand c[2];

        c[0] = cand(2, 10, 1);
        c[1] = cand(0, 0, 1);
        c[1].est_us = pib_est_now(b_est, now - b_ms, t.decay_s);
        if (pib_choose(c, 2) == 1) {
            retried_at = (int)now;
        }
    }
    CHECK(retried_at > 0 && retried_at < 60000);
}

/* The tie-break credit is bounded (issue 15, item 3): a member drained
 * for 300,000 picks at loadfactor 100 (once ~215,000 overflowed the int)
 * comes back with at most one extra win, and then shares by its ramped
 * weight: slow start holds after a drain of any length. */
static void credit_bound(void)
{
    pib_cand c[3];
    int credit[3] = { 0, 0, 0 }, won_c = 0, lo = 0, hi = 0;
    long i, total = 10000 + 10000 + 1000;
    size_t k;

    for (i = 0; i < 300000; i++) {
        c[0] = cand(0, 1, 100);
        c[1] = cand(0, 1, 100);
        c[2] = cand(0, 1, 100 * 0.1);  /* at the thermal floor, drained */
        c[2].drained = 1;
        for (k = 0; k < 3; k++) {
            c[k].credit = credit[k];
        }
        won_c += pib_choose(c, 3) == 2;
        for (k = 0; k < 3; k++) {
            credit[k] = c[k].credit;
            lo = credit[k] < lo ? credit[k] : lo;
            hi = credit[k] > hi ? credit[k] : hi;
        }
    }
    CHECK_INT(won_c, 0);               /* drained: never picked */
    won_c = 0;
    CHECK_INT(credit[2], 0);           /* and saved up no credit */
    CHECK(hi <= total && lo >= -2 * total);
    /* Re-admitted at 10% (slow start): 1,000 of 21,000 per pick, so 1 in
     * 21 picks, plus at most the one extra win. */
    total = 10000 + 10000 + 1000;
    for (i = 0; i < 42; i++) {
        c[0] = cand(0, 1, 100);
        c[1] = cand(0, 1, 100);
        c[2] = cand(0, 1, 10);
        for (k = 0; k < 3; k++) {
            c[k].credit = credit[k];
        }
        won_c += pib_choose(c, 3) == 2;
        for (k = 0; k < 3; k++) {
            credit[k] = c[k].credit;
        }
    }
    CHECK(won_c >= 1 && won_c <= 3);
    /* A credit read back from anywhere (lbstatus) cannot overflow. */
    c[0] = cand(0, 1, 100);
    c[1] = cand(0, 1, 1);
    c[0].credit = INT_MAX;
    c[1].credit = -INT_MAX;
    CHECK_INT(pib_choose(c, 2), 0);
    CHECK(c[0].credit <= 0 && c[0].credit >= -10100);
    CHECK_INT(c[1].credit, -10100);
}

/* A member in its slow start wins no idle pick on its estimate: drained
 * for long, its estimate halved towards nothing while the others' rose
 * on a busy machine (1 ms against 12 ms); at 10 % of its weight it gets
 * about 10 of 210 idle picks, not all of them.  When it is the slower
 * one, the faster still wins on the estimate. */
static void ramp_idle(void)
{
    pib_cand c[3];
    int credit[3] = { 0, 0, 0 }, won = 0, i;
    size_t k;

    for (i = 0; i < 210; i++) {
        c[0] = cand(0, 12, 1);
        c[1] = cand(0, 12, 1);
        c[2] = cand(0, 1, 0.1);
        c[2].ramping = 1;
        for (k = 0; k < 3; k++) {
            c[k].credit = credit[k];
        }
        won += pib_choose(c, 3) == 2;
        for (k = 0; k < 3; k++) {
            credit[k] = c[k].credit;
        }
    }
    CHECK(won >= 9 && won <= 11);
    c[0] = cand(0, 1, 1);
    c[1] = cand(0, 12, 0.1);
    c[1].ramping = 1;
    CHECK_INT(pib_choose(c, 2), 0);
    c[0] = cand(0, 12, 1);
    c[1] = cand(0, 1, 0.1);
    c[1].ramping = 1;
    c[1].credit = -1000;
    CHECK_INT(pib_choose(c, 2), 0);
}

/* A member out of the tie (slower: 12 ms against 4 ms, idle) gains no
 * credit, so the two tied share by their own weights, 1 : 0.1 (a ramping
 * member), not as if the third's gains were theirs to pay: 10 of 110. */
static void credit_ties_only(void)
{
    pib_cand c[3];
    int credit[3] = { 0, 0, 0 }, won[3] = { 0, 0, 0 }, i;
    size_t k;

    for (i = 0; i < 110; i++) {
        c[0] = cand(0, 12, 1);
        c[1] = cand(0, 4, 1);
        c[2] = cand(0, 4, 0.1);
        c[2].ramping = 1;
        for (k = 0; k < 3; k++) {
            c[k].credit = credit[k];
        }
        won[pib_choose(c, 3)]++;
        for (k = 0; k < 3; k++) {
            credit[k] = c[k].credit;
        }
    }
    CHECK_INT(won[0], 0);
    CHECK_INT(won[2], 10);
    CHECK_INT(credit[0], 0);
}

/* The bound changes nothing while every member takes part: weights
 * 1:2:7 share exactly 1:2:7 over 1,000 picks, credits within +-1,000. */
static void credit_bound_fair(void)
{
    pib_cand c[3];
    int n[3] = { 0, 0, 0 }, i, out = 0;

    c[0] = cand(0, 1, 1);
    c[1] = cand(0, 1, 2);
    c[2] = cand(0, 1, 7);
    for (i = 0; i < 1000; i++) {
        c[0].est_us = c[1].est_us = c[2].est_us = 1000;
        n[pib_choose(c, 3)]++;
        out += c[0].credit < -1000 || c[0].credit > 1000;
    }
    CHECK_INT(out, 0);
    CHECK_INT(n[0], 100);
    CHECK_INT(n[1], 200);
    CHECK_INT(n[2], 700);
}

void test_score(void)
{
    worked_example();
    energy_table();
    thermal_curve();
    hysteresis();
    slow_start();
    caps();
    estimator();
    silence();
    failures();
    all_hot();
    capped();
    capped_all();
    idle_shares();
    no_starvation();
    credit_bound();
    credit_bound_fair();
    ramp_idle();
    credit_ties_only();
}
