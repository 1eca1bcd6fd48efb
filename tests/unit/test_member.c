/* test_member.c -- lbmethod "pi"'s member policy (pib_member.c: freshness,
 * weight, state names, cooling, the compound-failure and silence rules),
 * the effective estimate the pick and the status page share
 * (pib_score.c).  The shared state's operations: test_mstate.c. */
#include <math.h>

#include "unit.h"
#include "pib_member.h"
#include "pib_score.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static pib_tel fresh_tel(int temp_dc)
{
    pib_tel tel;

    memset(&tel, 0, sizeof(tel));
    tel.answered = 1;
    tel.has_temp = 1;
    tel.temp_dc = temp_dc;
    return tel;
}

/* Missing, stale or empty telemetry is not fresh and weighs nothing:
 * factor 1, never a drain, whatever it says. */
static void freshness(void)
{
    pib_tuning t;
    pib_tel tel = fresh_tel(900);
    pib_view v;

    pib_tuning_default(&t);
    CHECK(pib_tel_fresh(&tel));
    tel.answered = 0;
    CHECK(!pib_tel_fresh(&tel));
    pib_view_from_tel(&t, &tel, 0, &v);
    CHECK(!v.fresh && !v.drained && v.thermal == 1.0);
    CHECK_STR(pib_view_state_name(&v, 0), "stale");
    tel = fresh_tel(900);
    tel.stale = 1;
    CHECK(!pib_tel_fresh(&tel));
    tel = fresh_tel(900);
    tel.has_temp = 0;
    CHECK(!pib_tel_fresh(&tel));                /* nothing it weighs by */
    tel.has_throttled = 1;                      /* bits alone: fresh */
    CHECK(pib_tel_fresh(&tel));
    tel.has_cpus = 1;
    tel.cpus = 8;
    pib_view_from_tel(&t, &tel, 0, &v);
    CHECK_INT(v.cpus, 8);
    CHECK(!v.throttled && v.throttle == 1.0);
}

/* Weight = loadfactor x thermal x throttle x ramp; the state names in
 * their order. */
static void weight_and_names(void)
{
    pib_tuning t;
    pib_tel tel = fresh_tel(740);               /* warm: 0.64 */
    pib_view v;

    pib_tuning_default(&t);
    pib_view_from_tel(&t, &tel, 0, &v);
    CHECK(NEAR(v.thermal, 0.64) && !v.drained);
    CHECK(NEAR(pib_view_weigh(&v, 200), 1.28));
    CHECK(NEAR(v.weight, 1.28));
    CHECK_STR(pib_view_state_name(&v, 0), "warm");
    CHECK_STR(pib_view_state_name(&v, 1), "silent");
    tel.has_throttled = 1;
    tel.throttled = 0x4;                        /* throttled now */
    pib_view_from_tel(&t, &tel, 0, &v);
    CHECK(v.throttled && NEAR(pib_view_weigh(&v, 100), 0.64 * 0.5));
    CHECK_STR(pib_view_state_name(&v, 0), "throttled");
    tel.throttled = 0x40000;                    /* only "has been" bits */
    pib_view_from_tel(&t, &tel, 0, &v);
    CHECK(!v.throttled);
    tel = fresh_tel(810);                       /* above hard: drained */
    pib_view_from_tel(&t, &tel, 0, &v);
    CHECK(v.drained && NEAR(v.thermal, t.floor));
    CHECK_STR(pib_view_state_name(&v, 0), "drained");
    tel.temp_dc = 760;                          /* hysteresis: still */
    pib_view_from_tel(&t, &tel, 1, &v);
    CHECK(v.drained);
    pib_view_from_tel(&t, &tel, 0, &v);
    CHECK(!v.drained);
    tel.temp_dc = 500;
    pib_view_from_tel(&t, &tel, 0, &v);
    CHECK_STR(pib_view_state_name(&v, 0), "ok");
    v.ramp = 0.1;
    CHECK(NEAR(pib_view_weigh(&v, 100), 0.1));
    CHECK_STR(pib_view_state_name(&v, 0), "ramping");
}

/* Cooling: a cap below the CPUs (4 when unknown); no cap, no cooling. */
static void cooling(void)
{
    CHECK(!pib_cap_cooling(0, 4));
    CHECK(pib_cap_cooling(3, 4));
    CHECK(!pib_cap_cooling(4, 4));
    CHECK(pib_cap_cooling(3, 0));
    CHECK(!pib_cap_cooling(4, 0));
    CHECK(pib_cap_cooling(7, 8));
}

/* Compounds only a failure right after a failure that waited the whole
 * timeout, within 10% (5000 ms: from 4546 ms on). */
static void compound(void)
{
    CHECK(pib_fail_compounds(1, 1, 5000000, 5000));
    CHECK(pib_fail_compounds(1, 1, 4546000, 5000));
    CHECK(!pib_fail_compounds(1, 1, 4545000, 5000));
    CHECK(!pib_fail_compounds(1, 0, 9000000, 5000));  /* first failure */
    CHECK(!pib_fail_compounds(0, 1, 9000000, 5000));  /* an answer */
}

/* The silence rule: a mark's age, up to timeout + 1 s; then lost. */
static void silence(void)
{
    int lost = 7;

    CHECK_INT(pib_stall_ms(0, 5000, 1000, &lost), 0);
    CHECK(!lost);
    CHECK_INT(pib_stall_ms(1000, 3000, 1000, &lost), 2000);
    CHECK(!lost);
    CHECK_INT(pib_stall_ms(1000, 3001, 1000, &lost), 0);
    CHECK(lost);
    CHECK_INT(pib_stall_ms(0xfffffc18U, 1000, 5000, &lost), 2000);
    CHECK(!lost);                               /* the clock wrapped */
    CHECK_INT(pib_stall_ms(1500, 1000, 5000, &lost), 0);
    CHECK(!lost);                               /* a mark just ahead */
}

/* One effective estimate: the median when there is no sample, raised to
 * the silence, which then says "silent". */
static void effective_estimate(void)
{
    int silent = 7;

    CHECK(NEAR(pib_effective_estimate(2000, 9000, 0, &silent), 2000));
    CHECK(!silent);
    CHECK(NEAR(pib_effective_estimate(-1, 9000, 0, &silent), 9000));
    CHECK(!silent);
    CHECK(NEAR(pib_effective_estimate(-1, 9000, 9500, &silent), 9500));
    CHECK(silent);
    CHECK(NEAR(pib_effective_estimate(2000, 0, 2000, &silent), 2000));
    CHECK(!silent);                             /* not above: not silent */
    CHECK(NEAR(pib_effective_estimate(2000, 0, 2001, NULL), 2001));
}

/* Other masters' requests in flight: pib_member.h's worked table, and
 * each way the reading is not used. */
static void remote_rule(void)
{
    pib_tel tel = fresh_tel(740);

    tel.has_busy = 1;
    tel.busy = 6;
    tel.own_inflight = 2;
    tel.age_ms = 1000;
    tel.interval_ms = 2000;
    CHECK_INT(pib_remote_inflight(&tel, 3.0), 3);
    CHECK_INT(pib_remote_inflight(&tel, -1.0), 3);   /* 1.5 x 2 s */
    tel.busy = 2;
    tel.own_inflight = 3;                            /* never negative */
    CHECK_INT(pib_remote_inflight(&tel, 3.0), 0);
    tel.busy = 3;
    tel.own_inflight = 2;                            /* 3 - 1 - 2 */
    CHECK_INT(pib_remote_inflight(&tel, 3.0), 0);
    tel.busy = 6;
    tel.age_ms = 3500;                               /* expired */
    CHECK_INT(pib_remote_inflight(&tel, 3.0), 0);
    CHECK_INT(pib_remote_inflight(&tel, -1.0), 0);   /* > 3 s */
    tel.age_ms = 2999;
    CHECK_INT(pib_remote_inflight(&tel, -1.0), 3);
    tel.age_ms = 1000;
    CHECK_INT(pib_remote_inflight(&tel, 0.0), 0);    /* off */
    tel.age_ms = -1;                                 /* never read */
    CHECK_INT(pib_remote_inflight(&tel, 3.0), 0);
    tel.age_ms = 1000;
    tel.stale = 1;
    CHECK_INT(pib_remote_inflight(&tel, 3.0), 0);
    tel.stale = 0;
    tel.answered = 0;
    CHECK_INT(pib_remote_inflight(&tel, 3.0), 0);
    tel.answered = 1;
    tel.has_busy = 0;                                /* an older node */
    CHECK_INT(pib_remote_inflight(&tel, 3.0), 0);
    tel.has_busy = 1;
    tel.interval_ms = 0;                             /* no interval */
    CHECK_INT(pib_remote_inflight(&tel, -1.0), 0);

    CHECK(!pib_cap_reached(2, 0, 3));
    CHECK(pib_cap_reached(2, 1, 3));
    CHECK(pib_cap_reached(0, 5, 3));
    CHECK(!pib_cap_reached(9, 9, 0));                /* no cap */
}

/* Two masters in front of a warm member W (74 C, 4 CPUs: cap 3) and a
 * cool one C; no request ends.  Each master picks in turn and the node's
 * reading is as fresh as can be (BusyWorkers = both masters' requests +
 * the probe's).  With the rule the node holds 3 at most, as with one
 * master; with it off (max age 0) or with an expired reading each master
 * keeps its own cap: 6. */
static unsigned long two_masters(double max_age_s, long age_ms)
{
    pib_tuning t;
    pib_view vw;
    pib_tel tw = fresh_tel(740);
    unsigned long own_w[2] = { 0, 0 }, own_c[2] = { 0, 0 }, cap;
    int credit[2][2] = { { 0, 0 }, { 0, 0 } };
    int round;

    pib_tuning_default(&t);
    tw.has_cpus = 1;
    tw.cpus = 4;
    tw.has_busy = 1;
    tw.interval_ms = 2000;
    tw.age_ms = age_ms;
    pib_view_from_tel(&t, &tw, 0, &vw);
    pib_view_weigh(&vw, 100);
    cap = pib_inflight_cap(vw.thermal, vw.cpus);
    CHECK_INT(cap, 3);
    for (round = 0; round < 40; round++) {
        int m = round % 2;
        pib_cand c[2];
        size_t best;

        memset(c, 0, sizeof(c));
        tw.busy = own_w[0] + own_w[1] + 1;
        tw.own_inflight = own_w[m];
        c[0].inflight = own_w[m];
        c[0].remote = pib_remote_inflight(&tw, max_age_s);
        c[0].est_us = 10000;
        c[0].weight = vw.weight;
        c[0].cap = cap;
        c[0].capped = pib_cap_reached(c[0].inflight, c[0].remote, cap);
        c[0].cooling = pib_cap_cooling(cap, vw.cpus);
        c[0].credit = credit[m][0];
        c[1].inflight = own_c[m];
        c[1].est_us = 10000;
        c[1].weight = 1.0;
        c[1].credit = credit[m][1];
        best = pib_choose(c, 2);
        credit[m][0] = c[0].credit;
        credit[m][1] = c[1].credit;
        if (best == 0) {
            own_w[m]++;
        }
        else {
            own_c[m]++;
        }
    }
    return own_w[0] + own_w[1];
}

static void cap_across_masters(void)
{
    CHECK_INT(two_masters(-1.0, 500), 3);     /* fresh: the node's cap */
    CHECK_INT(two_masters(0.0, 500), 6);      /* off: each master's */
    CHECK_INT(two_masters(-1.0, 5000), 6);    /* expired: ignored */
}

/* Every member capped: the one least over its cap, others' included. */
static void capped_fallback_counts_remote(void)
{
    pib_cand c[2];

    memset(c, 0, sizeof(c));
    c[0].inflight = 1;
    c[0].remote = 4;                 /* 5 of cap 2 */
    c[1].inflight = 3;               /* 3 of cap 2 */
    c[0].cap = c[1].cap = 2;
    c[0].capped = c[1].capped = 1;
    c[0].cooling = c[1].cooling = 1;
    c[0].est_us = c[1].est_us = 10000;
    c[0].weight = c[1].weight = 0.3;
    CHECK_INT(pib_choose(c, 2), 1);
    c[0].remote = 0;                 /* 1 of cap 2 */
    CHECK_INT(pib_choose(c, 2), 0);
}

void test_member(void)
{
    remote_rule();
    cap_across_masters();
    capped_fallback_counts_remote();
    freshness();
    weight_and_names();
    cooling();
    compound();
    silence();
    effective_estimate();
}
