/* test_energy.c -- a member's energy (pis_energy.h): the worked example,
 * gaps and unknown readings that are not integrated, the spread over
 * seconds, the last minute and its joules per request, the history, and
 * the slot's size. */
#include <math.h>
#include <stdlib.h>

#include "unit.h"
#include "pis_energy.h"

#define NEAR(a, b, eps) (fabs((double)(a) - (double)(b)) <= (eps))
#define GAP 6000U                       /* 3 intervals of 2 s */

static void requests_at(pis_slot *s, uint32_t sec, uint32_t n)
{
    pis_sample x;
    uint32_t i;

    memset(&x, 0, sizeof(x));
    x.now_s = sec;
    x.now_ms = sec * 1000;
    x.dur_us = 1000;
    x.status = 200;
    for (i = 0; i < n; i++) {
        pis_slot_start(s);
        pis_slot_finish(s, &x);
    }
}

/* pis_energy.h's table: 3 W at 10.0 s, 5 W at 12.0 s, 40 requests. */
static void worked_example(void)
{
    pis_slot *s = calloc(1, sizeof(*s));
    pis_energy_view v;
    int32_t mw[4];

    requests_at(s, 10, 15);
    requests_at(s, 11, 25);
    requests_at(s, 12, 7);             /* not integrated yet: not counted */
    pis_energy_add(s, 10000, 500000, 3000, GAP);
    pis_energy_read(s, &v);
    CHECK(!v.has_energy && v.has_idle && NEAR(v.idle_w, 3.0, 1e-9));
    CHECK(!v.has_jpr);
    pis_energy_add(s, 12000, 502000, 5000, GAP);
    pis_energy_read(s, &v);
    CHECK(v.has_energy && NEAR(v.energy_j, 8.0, 1e-9));
    CHECK_INT(v.window_s, 2);
    CHECK(NEAR(v.window_j, 8.0, 1e-9));
    CHECK_INT(v.window_requests, 40);
    CHECK(v.has_jpr && NEAR(v.jpr_j, 0.2, 1e-9));
    CHECK(NEAR(v.jpr_above_idle_j, 0.05, 1e-9));
    CHECK_INT(s->energy_ring[10].uj, 3500000);
    CHECK_INT(s->energy_ring[11].uj, 4500000);
    pis_energy_history(s, 13, 4, mw);  /* seconds 9..12 */
    CHECK_INT(mw[0], -1);
    CHECK_INT(mw[1], 3500);
    CHECK_INT(mw[2], 4500);
    CHECK_INT(mw[3], -1);
    free(s);
}

/* Readings more than max_gap apart: the gap adds nothing; a reading
 * without PowerW ends the chain; the monotonic clock may wrap. */
static void gaps(void)
{
    pis_slot *s = calloc(1, sizeof(*s));
    pis_energy_view v;
    uint32_t m0 = 0xfffff000U;         /* wraps 4096 ms later */

    pis_energy_add(s, 100000, m0, 4000, GAP);
    pis_energy_add(s, 102000, m0 + 2000, 4000, GAP);        /* 8 J */
    pis_energy_add(s, 104000, m0 + 4000, 4000, GAP);        /* 8 J: wrap */
    pis_energy_read(s, &v);
    CHECK(NEAR(v.energy_j, 16.0, 1e-9));
    /* a missed probe: 4 s apart, still within 3 intervals */
    pis_energy_add(s, 108000, m0 + 8000, 4000, GAP);
    pis_energy_read(s, &v);
    CHECK(NEAR(v.energy_j, 32.0, 1e-9));
    /* stale: 20 s without a reading, then two: only the last pair */
    pis_energy_add(s, 128000, m0 + 28000, 6000, GAP);
    pis_energy_read(s, &v);
    CHECK(NEAR(v.energy_j, 32.0, 1e-9));
    pis_energy_add(s, 130000, m0 + 30000, 6000, GAP);
    pis_energy_read(s, &v);
    CHECK(NEAR(v.energy_j, 44.0, 1e-9));
    /* PowerW unknown: nothing from it, nor from the next good one */
    pis_energy_add(s, 132000, m0 + 32000, -1, GAP);
    pis_energy_add(s, 134000, m0 + 34000, 6000, GAP);
    pis_energy_read(s, &v);
    CHECK(NEAR(v.energy_j, 44.0, 1e-9));
    pis_energy_add(s, 136000, m0 + 36000, 6000, GAP);
    pis_energy_read(s, &v);
    CHECK(NEAR(v.energy_j, 56.0, 1e-9));
    /* a clock that did not move, or went back: nothing */
    pis_energy_add(s, 136000, m0 + 36000, 6000, GAP);
    pis_energy_add(s, 137000, m0 + 35000, 6000, GAP);
    pis_energy_read(s, &v);
    CHECK(NEAR(v.energy_j, 56.0, 1e-9));
    /* the gap seconds are not in the minute: only whole ones are */
    CHECK_INT(v.window_s, 12);  /* 100-107, 128-129, 134-135 */
    CHECK(NEAR(v.window_j, 56.0, 1e-9));
    free(s);
}

/* Sub-millijoule parts carry; a wall clock step moves the seconds, not
 * the counter; an interval longer than the ring keeps the counter. */
static void carry_and_clock(void)
{
    pis_slot *s = calloc(1, sizeof(*s));
    pis_energy_view v;
    uint32_t i;

    /* 3 mW for 1000 steps of 1 ms: 3 uJ each, 3 mJ in all, in the
     * counter and in the ring's second alike */
    pis_energy_add(s, 10000000, 1000, 3, GAP);
    for (i = 1; i <= 1000; i++) {
        pis_energy_add(s, 10000000 + i, 1000 + i, 3, GAP);
    }
    pis_energy_read(s, &v);
    CHECK(NEAR(v.energy_j, 0.003, 1e-9));
    CHECK_INT(pi_ctr_read(&s->energy.mj), 3);
    CHECK_INT(s->energy_ring[10000 % PIS_RING_S].uj, 3000);
    CHECK_INT(s->energy_ring[10000 % PIS_RING_S].ms, 1000);
    /* the wall clock jumps back an hour: the interval is the
     * monotonic one (1 s, 3 mW to 3 W) */
    pis_energy_add(s, 10001000 - 3600000, 3000, 3000, GAP);
    pis_energy_read(s, &v);
    CHECK(NEAR(v.energy_j, 0.003 + (3 + 3000) / 2.0 * 1000 / 1e6, 1e-9));
    free(s);

    s = calloc(1, sizeof(*s));
    /* an hour between readings (PiStatsProbeInterval 1h): counted */
    pis_energy_add(s, 0, 0, 2000, 3U * 3600 * 1000);
    pis_energy_add(s, 3600000, 3600000, 2000, 3U * 3600 * 1000);
    pis_energy_read(s, &v);
    CHECK(NEAR(v.energy_j, 7200.0, 1e-9));
    CHECK_INT(v.window_s, 60);
    CHECK(NEAR(v.window_j, 120.0, 1e-6));
    free(s);
}

/* The two clocks round apart by a millisecond: the seconds still come
 * out whole (the interval starts where the last one ended). */
static void clocks_apart(void)
{
    pis_slot *s = calloc(1, sizeof(*s));
    pis_energy_view v;
    uint32_t i;

    for (i = 0; i <= 40; i++) {        /* every 500 ms, mono 1 ms off */
        pis_energy_add(s, 20000000 + 500 * i, 7 + 500 * i + (i % 2), 2000,
                       1500);
    }
    pis_energy_read(s, &v);
    CHECK_INT(v.window_s, 20);
    CHECK(NEAR(v.window_j, 40.0, 0.01));
    free(s);
}

static void per_request(void)
{
    double j = -1, a = -1;

    CHECK_INT(pis_energy_per_request(8000, 2, 40, 3000, &j, &a), 1);
    CHECK(NEAR(j, 0.2, 1e-12) && NEAR(a, 0.05, 1e-12));
    CHECK_INT(pis_energy_per_request(8000, 2, 0, 3000, &j, &a), 0);
    /* idle unknown: above idle is the whole */
    CHECK_INT(pis_energy_per_request(8000, 2, 40, -1, &j, &a), 1);
    CHECK(NEAR(a, 0.2, 1e-12));
    /* below the idle estimate (it was noisy): 0, not negative */
    CHECK_INT(pis_energy_per_request(5000, 2, 10, 3000, &j, &a), 1);
    CHECK(NEAR(a, 0.0, 1e-12));
}

void test_energy(void)
{
    worked_example();
    gaps();
    carry_and_clock();
    clocks_apart();
    per_request();
    /* docs/metrics.md gives the slot's size: under 16 KiB */
    CHECK(sizeof(pis_slot) < 16384);
    printf("slot: %u bytes\n", (unsigned)sizeof(pis_slot));
}
