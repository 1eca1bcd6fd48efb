/* pis_hist.h -- log-scale response-time histogram and quantiles.
 *
 * Pure logic.  24 buckets per decade from 100 us to 100 s: bucket edges
 * grow by 10^(1/24) = 1.1007, so reporting a bucket's geometric middle is
 * off by at most 10^(1/48) - 1 = 4.92% (under the 5% asked for).  Bucket
 * 0 holds everything under 100 us, the last bucket everything from 100 s
 * up.  tests/unit/test_hist.c checks this table and every edge.
 *
 *   bucket | from (us)          | to (us)
 *   -------+--------------------+--------------------
 *        0 | 0                  | 100
 *        1 | 100                | 110.07
 *       24 | 908.52             | 1000      (1 ms)
 *       48 | 9085.2             | 10000     (10 ms)
 *      144 | 90851758           | 100000000 (100 s)
 *      145 | 100000000          | infinity
 */
#ifndef PIS_HIST_H
#define PIS_HIST_H

#include <stddef.h>
#include <stdint.h>

#define PIS_HIST_PER_DECADE 24
#define PIS_HIST_MIN_US     100.0
#define PIS_HIST_DECADES    6
#define PIS_HIST_BUCKETS    (PIS_HIST_PER_DECADE * PIS_HIST_DECADES + 2)

/* The bucket a duration in microseconds falls in. */
unsigned pis_hist_bucket(uint32_t us);

/* Upper edge of bucket b in microseconds (lower edge of b + 1); for the
 * last bucket, infinity. */
double pis_hist_upper_us(unsigned b);

/* The q-quantile (0 < q < 1) of a histogram, as the geometric middle of
 * the bucket holding it (bucket 0: 50 us; the last bucket: its lower
 * edge).  Returns -1 when the histogram is empty. */
double pis_hist_quantile(const uint64_t *counts, unsigned nbuckets,
                         double q);

#endif /* PIS_HIST_H */
