/* test_slot.c -- pis_slot: the 64-bit counters made of two 32-bit words
 * (and their wrap), in flight across the 32-bit wrap, status classes,
 * the per-second ring (rates, history, reuse after PIS_RING_S seconds),
 * the quantile windows (epochs, reuse after PIS_WIN_N windows), the EWMA
 * (first sample, minimum weight, time constant, the millisecond clock's
 * wrap), the telemetry history, and reset. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "unit.h"
#include "pis_slot.h"

#define T0 1796140000u           /* a wall clock second, T0 % 10 == 0 */

static pis_slot *new_slot(void)
{
    pis_slot *s = calloc(1, sizeof(*s));

    if (s == NULL) {
        abort();
    }
    s->state = PIS_SLOT_USED;
    strcpy(s->key, "vh|balancer://b|http://n1");
    return s;
}

/* One finished request of dur_us microseconds at second sec. */
static void finish_at(pis_slot *s, uint32_t sec, uint32_t ms, uint32_t dur_us,
                      int status)
{
    pis_sample x;

    memset(&x, 0, sizeof(x));
    x.now_s = sec;
    x.now_ms = ms;
    x.dur_us = dur_us;
    x.status = status;
    pis_slot_start(s);
    pis_slot_finish(s, &x);
}

/* pi_ctr64: the low word adds atomically, its wrap carries into hi. */
static void counter_wrap(void)
{
    static const struct {
        uint32_t hi, lo, add;
        uint64_t want;
    } steps[] = {
        { 0, 0, 0, 0 },
        { 0, 0, 1, 1 },
        { 0, 0xFFFFFFFEu, 1, 0xFFFFFFFFull },
        { 0, 0xFFFFFFFFu, 1, 0x100000000ull },           /* wraps */
        { 0, 0xFFFFFFF0u, 0x20, 0x100000010ull },
        { 0, 0xFFFFFFFFu, 0, 0xFFFFFFFFull },            /* +0: no carry */
        { 5, 0xFFFFFFFFu, 0xFFFFFFFFu, 0x6FFFFFFFEull },
        { 0xFFFFFFFEu, 0xFFFFFFFFu, 1, 0xFFFFFFFF00000000ull },
        { 7, 0x80000000u, 0x80000000u, 0x800000000ull }, /* exactly 2^32 */
    };
    size_t i;

    for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        pi_ctr64 c;

        c.hi = steps[i].hi;
        c.lo = steps[i].lo;
        pi_ctr_add(&c, steps[i].add);
        if (pi_ctr_read(&c) != steps[i].want) {
            fprintf(stderr, "  step %zu: %llx\n", i,
                    (unsigned long long)pi_ctr_read(&c));
        }
        CHECK(pi_ctr_read(&c) == steps[i].want);
    }
}

/* A slot's byte and request counters carry past 4 GiB / 2^32. */
static void slot_counters_wrap(void)
{
    pis_slot *s = new_slot();
    pis_sample x;

    s->bytes_in.lo = 0xFFFFFF00u;
    s->bytes_out.lo = 0xFFFFFFFFu;
    s->bytes_out.hi = 2;
    s->requests.lo = 0xFFFFFFFFu;
    memset(&x, 0, sizeof(x));
    x.now_s = T0;
    x.dur_us = 1000;
    x.status = 200;
    x.bytes_in = 0x200;
    x.bytes_out = 1;
    pis_slot_start(s);
    pis_slot_finish(s, &x);
    CHECK(pi_ctr_read(&s->bytes_in) == 0x100000100ull);
    CHECK(pi_ctr_read(&s->bytes_out) == 0x300000000ull);
    CHECK(pi_ctr_read(&s->requests) == 0x100000000ull);
    CHECK(pi_ctr_read(&s->hist_sum_us) == 1000);
    free(s);
}

/* In flight = started - finished, across the 32-bit wrap; never the
 * 4-billion value of finished passing started for a moment. */
static void inflight(void)
{
    static const struct { uint32_t started, finished, want; } rows[] = {
        { 0, 0, 0 }, { 3, 1, 2 }, { 5, 0xFFFFFFFEu, 7 },
        { 0xFFFFFFFFu, 0xFFFFFFFFu, 0 }, { 4, 6, 0 },
    };
    pis_slot *s = new_slot();
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        s->started = rows[i].started;
        s->finished = rows[i].finished;
        CHECK_INT(pis_slot_inflight(s), rows[i].want);
    }
    s->started = 0xFFFFFFFFu;
    s->finished = 0xFFFFFFFEu;
    pis_slot_start(s);                       /* started wraps to 0 */
    CHECK_INT(pis_slot_inflight(s), 2);
    finish_at(s, T0, 1, 10, 200);
    CHECK_INT(pis_slot_inflight(s), 2);      /* one in, one out */
    free(s);
}

/* Status classes; a proxy error is not the node's 5xx. */
static void status_classes(void)
{
    static const struct { int status, proxy_error, cls; } rows[] = {
        { 100, 0, 0 }, { 200, 0, 1 }, { 204, 0, 1 }, { 304, 0, 2 },
        { 404, 0, 3 }, { 500, 0, 4 }, { 599, 0, 4 },
        { 502, 1, -1 }, { 0, 1, -1 }, { 0, 0, -2 }, { 600, 0, -2 },
        { 99, 0, -2 },
    };
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        pis_slot *s = new_slot();
        pis_sample x;
        int c, total = 0;

        memset(&x, 0, sizeof(x));
        x.now_s = T0;
        x.status = rows[i].status;
        x.proxy_error = rows[i].proxy_error;
        pis_slot_start(s);
        pis_slot_finish(s, &x);
        for (c = 0; c < 5; c++) {
            total += (int)pi_ctr_read(&s->status_class[c]);
        }
        CHECK(pi_ctr_read(&s->requests) == 1);
        CHECK_INT(pi_ctr_read(&s->proxy_errors), rows[i].cls == -1);
        CHECK_INT(total, rows[i].cls >= 0);
        if (rows[i].cls >= 0) {
            CHECK(pi_ctr_read(&s->status_class[rows[i].cls]) == 1);
        }
        free(s);
    }
}

/* Rates over the complete seconds before now: the current second is not
 * counted, nor a second older than the window, nor a ring entry that
 * still holds a second PIS_RING_S earlier. */
static void rates(void)
{
    static const struct { uint32_t ago, n; } load[] = {   /* in time order */
        { 300, 8 },
        { 61, 9 },            /* just outside 60 s */
        { 60, 6 }, { 30, 7 }, { 11, 4 }, { 10, 1 }, { 5, 5 }, { 1, 3 },
        { 0, 2 },             /* the current second: not yet counted */
    };
    static const struct { unsigned secs; double want; } want[] = {
        { 1, 3.0 }, { 2, 1.5 }, { 10, 9 / 10.0 }, { 11, 13 / 11.0 },
        { 60, 26 / 60.0 }, { 61, 35 / 61.0 }, { 299, 35 / 299.0 },
        { 300, 43 / 300.0 }, { 0, 0.0 },
    };
    pis_slot *s = new_slot();
    uint32_t now = T0 + 7;
    size_t i;
    uint32_t k;

    for (i = 0; i < sizeof(load) / sizeof(load[0]); i++) {
        for (k = 0; k < load[i].n; k++) {
            finish_at(s, now - load[i].ago, 1000, 5000, 200);
        }
    }
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        double got = pis_slot_rate(s, now, want[i].secs);

        if (fabs(got - want[i].want) > 1e-9) {
            fprintf(stderr, "  rate(%u) = %g, want %g\n", want[i].secs, got,
                    want[i].want);
        }
        CHECK(fabs(got - want[i].want) < 1e-9);
    }
    /* The same seconds seen PIS_RING_S seconds later are gone... */
    CHECK(pis_slot_rate(s, now + PIS_RING_S, 60) == 0.0);
    /* ...and a second that reuses a ring entry starts from zero. */
    finish_at(s, now - 5 + PIS_RING_S, 1000, 5000, 200);
    CHECK(fabs(pis_slot_rate(s, now + PIS_RING_S, 10) - 0.1) < 1e-9);
    CHECK(fabs(pis_slot_rate(s, now, 10) - 0.4) < 1e-9);     /* 5 s ago: 0 */
    free(s);
}

/* The quantile windows: PIS_WIN_S seconds each, tagged by epoch; recent
 * histograms sum the current window and the complete ones before it,
 * 60 s -> the current window and 6 more (60-70 s). */
static void windows(void)
{
    static const struct { uint32_t at; uint32_t us; } load[] = {
        { T0 + 9, 15000000 }, /* 7 windows back: out (its window is now
                                 the current one's) */
        { T0 + 10, 1500000 }, /* 6 windows back: in 60 s */
        { T0 + 20, 150000 },  /* 5 windows back */
        { T0 + 69, 15000 },   /* previous window */
        { T0 + 70, 1500 },    /* current window, its first second */
        { T0 + 75, 150 },     /* current window (epoch T0/10 + 7) */
    };
    /* load[] newest first: the current window, 1 back, 5, 6, 7 back */
    static const struct { unsigned secs; unsigned n[6]; } want[] = {
        { 0, { 0, 0, 0, 0, 1, 1 } },
        { 1, { 0, 0, 0, 1, 1, 1 } },      /* a partial window + 1 */
        { 10, { 0, 0, 0, 1, 1, 1 } },
        { 11, { 0, 0, 0, 1, 1, 1 } },
        { 50, { 0, 0, 1, 1, 1, 1 } },
        { 60, { 0, 1, 1, 1, 1, 1 } },
        { 600, { 0, 1, 1, 1, 1, 1 } },   /* capped at PIS_WIN_N windows */
    };
    uint64_t counts[PIS_HIST_BUCKETS];
    pis_slot *s = new_slot();
    uint32_t now = T0 + 75;
    size_t i, j;

    for (i = 0; i < sizeof(load) / sizeof(load[0]); i++) {
        finish_at(s, load[i].at, 1000, load[i].us, 200);
    }
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        pis_slot_recent_hist(s, now, want[i].secs, counts);
        for (j = 0; j < sizeof(load) / sizeof(load[0]); j++) {
            if (counts[pis_hist_bucket(load[j].us)] != want[i].n[j]) {
                fprintf(stderr, "  recent(%u): %u us counted %llu\n",
                        want[i].secs, load[j].us,
                        (unsigned long long)
                        counts[pis_hist_bucket(load[j].us)]);
            }
            CHECK(counts[pis_hist_bucket(load[j].us)] == want[i].n[j]);
        }
    }
    /* all-time histogram keeps everything */
    CHECK(pi_ctr_read(&s->hist[pis_hist_bucket(15000000)]) == 1);
    /* A window reused PIS_WIN_N windows later starts from zero. */
    finish_at(s, T0 + 75 + PIS_WIN_N * PIS_WIN_S, 1000, 150, 200);
    pis_slot_recent_hist(s, now + PIS_WIN_N * PIS_WIN_S, 1, counts);
    CHECK(counts[pis_hist_bucket(150)] == 1);
    CHECK(counts[pis_hist_bucket(1500)] == 0);
    /* ... and nothing of 70 s later shows as the current window */
    pis_slot_recent_hist(s, now, 1, counts);
    CHECK(counts[pis_hist_bucket(150)] == 0);
    CHECK(counts[pis_hist_bucket(15000)] == 1);
    free(s);
}

/* EWMA: the first sample is the value; then weight 1 - e^(-dt/tau), at
 * least 0.05; dt on a millisecond clock that may wrap. */
static void ewma(void)
{
    static const struct {
        uint32_t ms, us;
        double want, tol;
    } steps[] = {
        { 5000, 1000, 1000, 0 },            /* first sample */
        { 5000, 2000, 1050, 0.5 },          /* dt 0: weight 0.05 */
        { 5100, 2050, 1100, 0.5 },          /* dt 100 ms: still 0.05 */
        { 5100 + 6931, 3100, 2100, 1.0 },   /* dt tau*ln2: weight 1/2 */
        { 5100 + 6931 + 100000, 500, 500, 1.0 }, /* 10 tau: all new */
    };
    pis_slot *s = new_slot();
    size_t i;

    CHECK(pis_slot_ewma(s) == -1.0);
    for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        finish_at(s, T0, steps[i].ms, steps[i].us, 200);
        if (fabs(pis_slot_ewma(s) - steps[i].want) > steps[i].tol) {
            fprintf(stderr, "  ewma step %zu: %g, want %g\n", i,
                    pis_slot_ewma(s), steps[i].want);
        }
        CHECK(fabs(pis_slot_ewma(s) - steps[i].want) <= steps[i].tol);
    }
    /* The millisecond clock wraps between two samples: dt = 6931 ms. */
    pis_slot_reset(s);
    finish_at(s, T0, 0xFFFFFFFFu - 999, 1000, 200);
    finish_at(s, T0, 5931, 3000, 200);
    CHECK(fabs(pis_slot_ewma(s) - 2000) <= 1.0);
    /* Two threads: one read the clock (9999), another read it later
     * (10000) and updated first.  The first one's dt is not 49.7 days:
     * it weighs 0.05, like any burst. */
    pis_slot_reset(s);
    finish_at(s, T0, 5000, 1000, 200);
    finish_at(s, T0, 10000, 1000, 200);
    finish_at(s, T0, 9999, 3000, 200);
    CHECK(fabs(pis_slot_ewma(s) - 1100) <= 0.5);
    /* A sample at ms 0 is still "a sample" (stamped 1, not "none"). */
    pis_slot_reset(s);
    finish_at(s, T0, 0, 800, 200);
    CHECK(pis_slot_ewma(s) == 800.0);
    finish_at(s, T0, 0, 1800, 200);
    CHECK(fabs(pis_slot_ewma(s) - 850) <= 0.5);
    /* Never 0 (0 means "no sample"), even for 0 us. */
    pis_slot_reset(s);
    finish_at(s, T0, 10, 0, 200);
    CHECK(pis_slot_ewma(s) == 1.0);
    free(s);
}

/* History: n seconds ending with the last complete one, oldest first;
 * the temperature carried forward hold_s seconds. */
static void history(void)
{
    pis_slot *s = new_slot();
    pis_telemetry t;
    uint32_t req[10];
    int16_t temp[10];
    uint32_t now = T0 + 100;
    static const uint32_t want_req[10] = { 0, 1, 0, 0, 0, 0, 0, 0, 2, 3 };
    static const int16_t U = INT16_MIN;
    /* 450 held 3 s; 512 held 3 s past a failed probe and a good one
     * without a temperature (neither writes one) */
    static const int16_t want_temp[10] = { U, 450, 450, 450, 450, U, 512,
                                           512, 512, 512 };
    unsigned i;

    /* seconds now-10 .. now-1 */
    finish_at(s, now - 9, 1, 100, 200);
    finish_at(s, now - 2, 1, 100, 200);
    finish_at(s, now - 2, 1, 100, 200);
    for (i = 0; i < 3; i++) {
        finish_at(s, now - 1, 1, 100, 200);
    }
    finish_at(s, now, 1, 100, 200);           /* current: not shown */
    memset(&t, 0, sizeof(t));
    t.has_temp = 1;
    t.temp_dc = 450;
    pis_slot_tel_write(s, now - 9, 1000, &t, NULL);
    t.temp_dc = 512;
    pis_slot_tel_write(s, now - 4, 2000, &t, NULL);
    pis_slot_tel_write(s, now - 3, 3000, NULL, "timeout");  /* no temp */
    t.has_temp = 0;
    pis_slot_tel_write(s, now - 2, 4000, &t, NULL);         /* unknown */
    pis_slot_history(s, now, 10, 3, req, temp);
    for (i = 0; i < 10; i++) {
        if (req[i] != want_req[i] || temp[i] != want_temp[i]) {
            fprintf(stderr, "  history[%u]: %u req, %d dC\n", i, req[i],
                    temp[i]);
        }
        CHECK_INT(req[i], want_req[i]);
        CHECK_INT(temp[i], want_temp[i]);
    }
    /* held 2 s: the last second has none */
    pis_slot_history(s, now, 10, 2, req, temp);
    CHECK_INT(temp[8], 512);
    CHECK_INT(temp[9], INT16_MIN);
    CHECK_INT(temp[4], INT16_MIN);
    /* PIS_RING_S seconds later all of it is gone */
    pis_slot_history(s, now + PIS_RING_S, 10, 3, req, temp);
    for (i = 0; i < 10; i++) {
        CHECK_INT(req[i], 0);
        CHECK_INT(temp[i], INT16_MIN);
    }
    free(s);
}

/* Telemetry: the last good reading stays while errors come; reset clears
 * the statistics but not the slot's identity. */
static void telemetry_and_reset(void)
{
    pis_slot *s = new_slot();
    pis_telemetry t;
    pis_tel_shm got;

    memset(&t, 0, sizeof(t));
    strcpy(t.node, "pi-1");
    t.has_temp = 1;
    t.temp_dc = 483;
    t.has_busy = 1;
    t.busy = 5;
    pis_slot_start(s);
    pis_slot_start(s);                 /* two of ours in flight now */
    pis_slot_tel_write(s, T0, 1000, &t, NULL);
    pis_slot_tel_read(s, &got);
    CHECK_INT(got.own_inflight, 2);    /* stored with the reading */
    CHECK(got.t.has_busy && got.t.busy == 5);
    pis_slot_start(s);                 /* a failed probe keeps it */
    pis_slot_tel_write(s, T0 + 1, 2000, NULL,
                       "a very long error text that does not fit the "
                       "slot's error buffer at all");
    pis_slot_tel_read(s, &got);
    CHECK_STR(got.t.node, "pi-1");
    CHECK_INT(got.t.temp_dc, 483);
    CHECK_INT(got.ok_ms, 1000);
    CHECK_INT(got.has_any, 1);
    CHECK_INT(strlen(got.error), PIS_ERR_MAX - 1);
    CHECK_INT(got.seq % 2, 0);
    CHECK_INT(got.own_inflight, 2);
    finish_at(s, T0, 5, 100, 200);
    pis_slot_reset(s);
    CHECK_STR(s->key, "vh|balancer://b|http://n1");
    CHECK_INT(s->state, PIS_SLOT_USED);
    CHECK(pi_ctr_read(&s->requests) == 0);
    CHECK(pis_slot_ewma(s) == -1.0);
    CHECK(pis_slot_rate(s, T0 + 1, 1) == 0.0);
    pis_slot_tel_read(s, &got);
    CHECK_INT(got.has_any, 0);
    free(s);
}

/* The staleness rule: never read, or older than three probe intervals
 * (2 s interval: stale past 6 s).  The clock wraps. */
static void telemetry_staleness(void)
{
    pis_tel_shm tel;

    memset(&tel, 0, sizeof(tel));
    CHECK(pis_tel_age_s(&tel, 5000) < 0);
    CHECK(pis_tel_stale(pis_tel_age_s(&tel, 5000), 2.0));
    tel.has_any = 1;
    tel.ok_ms = 1000;
    CHECK(pis_tel_age_s(&tel, 3500) == 2.5);
    CHECK(!pis_tel_stale(pis_tel_age_s(&tel, 7000), 2.0));   /* 6 s */
    CHECK(pis_tel_stale(pis_tel_age_s(&tel, 7001), 2.0));    /* 6.001 s */
    CHECK(!pis_tel_stale(0.0, 2.0));
    tel.ok_ms = 0xffffff00U;                                 /* wraps */
    CHECK(pis_tel_age_s(&tel, 0x100) == 0.512);
    CHECK(!pis_tel_stale(pis_tel_age_s(&tel, 0x100), 0.2));
    CHECK(pis_tel_stale(pis_tel_age_s(&tel, 0x100), 0.1));
    /* A reading the probe stored after the reader took its clock (the
     * reading is "newer" than now by a few ms): 0 s old, fresh -- taken
     * unsigned it was 49.7 days, stale, and a drained node was weighed
     * as cool for that moment (issue 28 item 6). */
    tel.ok_ms = 5003;
    CHECK(pis_tel_age_s(&tel, 5000) == 0.0);
    CHECK(!pis_tel_stale(pis_tel_age_s(&tel, 5000), 2.0));
    tel.ok_ms = 3;                                           /* across 0 */
    CHECK(pis_tel_age_s(&tel, 0xfffffffeU) == 0.0);
}

void test_slot(void)
{
    telemetry_staleness();
    counter_wrap();
    slot_counters_wrap();
    inflight();
    status_classes();
    rates();
    windows();
    ewma();
    history();
    telemetry_and_reset();
}
