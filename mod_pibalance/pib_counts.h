/* pib_counts.h -- the deflate offload's counters, server-wide.
 *
 * How compressed responses went (one pass through libdeflate, or
 * streamed through zlib, of which trickled: held, then streamed because
 * the node paused inside the body) and how often one waited for a
 * libdeflate compressor.  In a small anonymous shared segment on the
 * process pool, made by the first post_config: every child adds to it,
 * graceful restarts keep it.  Lock-free, 32-bit atomics only (ARMv6/v7):
 * a count is two words, the high one bumped by whoever wraps the low one.
 * Shown by mod_pistats through pib_deflate_counters() (include/pi_api.h).
 */
#ifndef PIB_COUNTS_H
#define PIB_COUNTS_H

#include "httpd.h"

#include "pi_api.h"
#include "pib_coding_table.h"

typedef enum {
    PIB_CNT_ONE_PASS,
    PIB_CNT_STREAMED,
    PIB_CNT_TRICKLED,
    PIB_CNT_WAITS,
    PIB_CNT_CACHE_HIT,          /* pib_cache.c: mod_cache's verdicts */
    PIB_CNT_CACHE_MISS,
    PIB_CNT_CACHE_REVAL,
    PIB_CNT_CACHE_SAVED,        /* bytes */
    /* per coding, at its row's counter (pib_coding_table.h): responses,
     * bytes in, bytes out */
    PIB_CNT_CODING,
    PIB_CNT_N = PIB_CNT_CODING + 3 * PIB_NCODINGS
} pib_counter;

/* post_config: finds or makes the segment (without it, each process
 * counts on its own and a warning says so).  Always APR_SUCCESS. */
apr_status_t pib_counts_init(server_rec *s);

void pib_count(pib_counter which);
void pib_count_add(int which, apr_uint64_t n);

/* A compressed response of the coding whose row's counter is k ended:
 * one response, in and out bytes. */
void pib_count_coding(int k, apr_uint64_t in, apr_uint64_t out);
apr_uint64_t pib_count_get(pib_counter which);

/* The optional function pib_deflate_counters (include/pi_api.h),
 * registered by pib_public.c. */
int pib_deflate_counters(pi_deflate_counts *out);

#endif /* PIB_COUNTS_H */
