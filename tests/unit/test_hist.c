/* test_hist.c -- pis_hist: bucket edges (the table in pis_hist.h), the
 * bucket a duration falls in on both sides of every edge, the 4.92% bound
 * of a reported quantile, and which sample a quantile picks. */
#include <math.h>
#include <stdint.h>

#include "unit.h"
#include "pis_hist.h"

#define LAST (PIS_HIST_BUCKETS - 1)

/* The table in pis_hist.h, and the points around it. */
static void bucket_table(void)
{
    static const struct { uint32_t us; unsigned b; } want[] = {
        { 0, 0 }, { 1, 0 }, { 99, 0 },
        { 100, 1 }, { 110, 1 }, { 111, 2 },          /* edge 110.07 */
        { 908, 23 }, { 909, 24 }, { 910, 24 },       /* edge 908.52 */
        { 999, 24 }, { 1000, 25 },                   /* 1 ms */
        { 9999, 48 }, { 10000, 49 },                 /* 10 ms */
        { 99999, 72 }, { 100000, 73 },               /* 100 ms */
        { 999999, 96 }, { 1000000, 97 },             /* 1 s */
        { 90851757, 143 }, { 90851758, 144 },        /* edge 90.852 s */
        { 99999999, 144 }, { 100000000, LAST },      /* 100 s */
        { 4000000000u, LAST }, { UINT32_MAX, LAST },
    };
    size_t i;

    CHECK_INT(PIS_HIST_BUCKETS, 146);
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        if (pis_hist_bucket(want[i].us) != want[i].b) {
            fprintf(stderr, "  %u us: bucket %u, want %u\n", want[i].us,
                    pis_hist_bucket(want[i].us), want[i].b);
        }
        CHECK_INT(pis_hist_bucket(want[i].us), want[i].b);
    }
}

/* Upper edges: 100 us, x 10^(1/24) each bucket, the decades exact. */
static void upper_edges(void)
{
    static const struct { unsigned b; double us; } want[] = {
        { 0, 100.0 }, { 1, 110.0694 }, { 23, 1000.0 / 1.100694 },
        { 24, 1000.0 }, { 48, 10000.0 }, { 72, 100000.0 },
        { 96, 1000000.0 }, { 120, 10000000.0 }, { 143, 90851757.57 },
        { 144, 100000000.0 },
    };
    double step = pow(10.0, 1.0 / PIS_HIST_PER_DECADE);
    size_t i;
    unsigned b;
    int ratios_ok = 1;

    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        CHECK(fabs(pis_hist_upper_us(want[i].b) / want[i].us - 1) < 1e-5);
    }
    CHECK(isinf(pis_hist_upper_us(LAST)));
    CHECK(isinf(pis_hist_upper_us(LAST + 7)));
    for (b = 1; b < LAST; b++) {
        double r = pis_hist_upper_us(b) / pis_hist_upper_us(b - 1);

        ratios_ok &= fabs(r - step) < 1e-9;
    }
    CHECK(ratios_ok);
}

/* Every integer duration at or above a bucket's lower edge and below its
 * upper edge lands in it: checked on both sides of each of the 145
 * edges, so pis_hist_bucket() and pis_hist_upper_us() agree. */
static void bucket_edges_agree(void)
{
    unsigned b, wrong = 0;

    for (b = 0; b < LAST; b++) {
        double edge = pis_hist_upper_us(b);        /* lower edge of b + 1 */
        uint32_t first = (uint32_t)ceil(edge);     /* first us in b + 1 */

        if (pis_hist_bucket(first) != b + 1
            || pis_hist_bucket(first - 1) != b
            || (first + 1 < pis_hist_upper_us(b + 1)
                && pis_hist_bucket(first + 1) != b + 1)) {
            fprintf(stderr, "  edge %u (%.3f us): %u->%u %u->%u\n", b, edge,
                    first - 1, pis_hist_bucket(first - 1), first,
                    pis_hist_bucket(first));
            wrong++;
        }
    }
    CHECK_INT(wrong, 0);
}

/* One sample: the reported value is the bucket's geometric middle, within
 * 10^(1/48) - 1 = 4.92% of the sample (under 5%) from 100 us to 100 s;
 * bucket 0 reports 50 us, the last its lower edge (100 s). */
static void single_sample(void)
{
    static const uint32_t us[] = {
        100, 101, 110, 150, 999, 1000, 1234, 20000, 333333, 5000000,
        90851757, 90851758, 99999999,
    };
    uint64_t counts[PIS_HIST_BUCKETS];
    size_t i;
    uint32_t v;
    double worst = 0, bound = pow(10.0, 1.0 / 48) - 1 + 1e-12;

    memset(counts, 0, sizeof(counts));
    CHECK(pis_hist_quantile(counts, PIS_HIST_BUCKETS, 0.5) == -1);
    for (i = 0; i < sizeof(us) / sizeof(us[0]); i++) {
        double got;

        memset(counts, 0, sizeof(counts));
        counts[pis_hist_bucket(us[i])] = 1;
        got = pis_hist_quantile(counts, PIS_HIST_BUCKETS, 0.99);
        CHECK(fabs(got / us[i] - 1) <= bound);
    }
    /* the bound over the whole range, one duration in 997 */
    for (v = 100; v < 100000000; v += 997 + v / 50) {
        double got;
        unsigned b = pis_hist_bucket(v);

        memset(counts, 0, sizeof(counts));
        counts[b] = 3;
        got = pis_hist_quantile(counts, PIS_HIST_BUCKETS, 0.5);
        if (fabs(got / v - 1) > worst) {
            worst = fabs(got / v - 1);
        }
    }
    CHECK(bound < 0.05);
    CHECK(worst <= bound);
    CHECK(worst > 0.045);           /* the bound is tight, not vacuous */
    memset(counts, 0, sizeof(counts));
    counts[0] = 1;
    CHECK(pis_hist_quantile(counts, PIS_HIST_BUCKETS, 0.5) == 50.0);
    counts[0] = 0;
    counts[LAST] = 1;
    CHECK(fabs(pis_hist_quantile(counts, PIS_HIST_BUCKETS, 0.5) - 1e8)
          < 1e-3);
}

/* Which sample a quantile picks: the smallest value with at least q of
 * the samples at or below it.  lo samples in bucket 10, hi in bucket 90. */
static void quantile_rank(void)
{
    static const struct { unsigned lo, hi; double q; int low; } want[] = {
        { 1, 0, 0.5, 1 },     { 1, 1, 0.5, 1 },     { 1, 1, 0.51, 0 },
        { 50, 50, 0.5, 1 },   { 49, 51, 0.5, 0 },
        { 95, 5, 0.95, 1 },   { 94, 6, 0.95, 0 },
        { 99, 1, 0.99, 1 },   { 98, 2, 0.99, 0 },
        { 990, 10, 0.99, 1 }, { 989, 11, 0.99, 0 },
        { 7, 93, 0.07, 1 },   { 6, 94, 0.07, 0 },   /* 0.07*100 > 7 in double */
        { 29, 71, 0.29, 1 },  { 28, 72, 0.29, 0 },
        { 0, 5, 0.5, 0 },     { 5, 0, 0.999, 1 },
    };
    uint64_t counts[PIS_HIST_BUCKETS];
    size_t i;

    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        double got;

        memset(counts, 0, sizeof(counts));
        counts[10] = want[i].lo;
        counts[90] = want[i].hi;
        got = pis_hist_quantile(counts, PIS_HIST_BUCKETS, want[i].q);
        if ((got < 10000) != want[i].low) {
            fprintf(stderr, "  %u/%u q=%g: %.1f us\n", want[i].lo,
                    want[i].hi, want[i].q, got);
        }
        CHECK_INT(got < 10000, want[i].low);
    }
}

/* The same rule for every total up to 2000 and the quantiles in percent
 * the pages show and a few more: k = ceil(pct * n / 100) samples in the
 * low bucket give the low bucket; k - 1 give the high one. */
static void quantile_rank_sweep(void)
{
    static const unsigned pct[] = { 1, 7, 10, 25, 50, 57, 90, 95, 99 };
    uint64_t counts[PIS_HIST_BUCKETS];
    unsigned n, wrong = 0;
    size_t i;

    memset(counts, 0, sizeof(counts));
    for (i = 0; i < sizeof(pct) / sizeof(pct[0]); i++) {
        double q = pct[i] / 100.0;

        for (n = 1; n <= 2000; n++) {
            unsigned k = (pct[i] * n + 99) / 100;

            counts[10] = k;
            counts[90] = n - k;
            if (pis_hist_quantile(counts, PIS_HIST_BUCKETS, q) >= 10000) {
                wrong++;
            }
            counts[10] = k - 1;
            counts[90] = n - k + 1;
            if (pis_hist_quantile(counts, PIS_HIST_BUCKETS, q) < 10000) {
                wrong++;
            }
        }
    }
    CHECK_INT(wrong, 0);
}

void test_hist(void)
{
    bucket_table();
    upper_edges();
    bucket_edges_agree();
    single_sample();
    quantile_rank();
    quantile_rank_sweep();
}
