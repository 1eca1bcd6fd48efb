/* pis_hist.c -- log-scale histogram (see pis_hist.h for the table). */
#include <math.h>

#include "pis_hist.h"

unsigned pis_hist_bucket(uint32_t us)
{
    double b;

    if (us < PIS_HIST_MIN_US) {
        return 0;
    }
    b = floor(log10((double)us / PIS_HIST_MIN_US) * PIS_HIST_PER_DECADE
              + 1e-9) + 1;
    if (b > PIS_HIST_BUCKETS - 1) {
        return PIS_HIST_BUCKETS - 1;
    }
    return (unsigned)b;
}

double pis_hist_upper_us(unsigned b)
{
    if (b >= PIS_HIST_BUCKETS - 1) {
        return INFINITY;
    }
    return PIS_HIST_MIN_US * pow(10.0, (double)b / PIS_HIST_PER_DECADE);
}

static double middle_us(unsigned b)
{
    if (b == 0) {
        return PIS_HIST_MIN_US / 2;
    }
    if (b >= PIS_HIST_BUCKETS - 1) {
        return pis_hist_upper_us(b - 1);
    }
    return sqrt(pis_hist_upper_us(b - 1) * pis_hist_upper_us(b));
}

double pis_hist_quantile(const uint64_t *counts, unsigned nbuckets,
                         double q)
{
    uint64_t total = 0, seen = 0, rank;
    unsigned b;

    for (b = 0; b < nbuckets; b++) {
        total += counts[b];
    }
    if (total == 0) {
        return -1;
    }
    /* the smallest value with at least q of the samples at or below it:
     * rank = ceil(q * total), with q * total taken a hair low, since q is
     * a binary fraction near a decimal one (0.07 * 100 is 7.000000000000001
     * in double: rank 8 instead of 7, tests/unit/test_hist.c) */
    rank = (uint64_t)ceil(q * (double)total * (1.0 - 1e-12));
    if (rank < 1) {
        rank = 1;
    }
    for (b = 0; b < nbuckets; b++) {
        seen += counts[b];
        if (seen >= rank) {
            return middle_us(b);
        }
    }
    return middle_us(nbuckets - 1);
}
