/* pib_counts_layout.h -- the layout stamp of the offload counters'
 * shared segment (pure, static inline; unit-tested in
 * tests/unit/test_api.c).
 *
 * The segment outlives graceful restarts, and a restart may load a
 * mod_pibalance.so whose counters differ (a coding added): it carries a
 * magic, a layout version and its counters' count in its first words, as
 * mod_pistats' table does (pis_claim.h), and a build uses only a segment
 * of its own layout; one of another is given up and a new one made.
 * Bump PIB_COUNTS_VERSION with every change of the counters' order.
 */
#ifndef PIB_COUNTS_LAYOUT_H
#define PIB_COUNTS_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define PIB_COUNTS_MAGIC   0x50694463U      /* "PiDc" */
#define PIB_COUNTS_VERSION 2U               /* 1: keyed by its size */
/* (The count of counters follows the coding table: a new coding makes a
 * segment of another layout without a new version.) */

/* The first four words, whatever the version. */
typedef struct {
    uint32_t magic;
    uint32_t version;
    uint32_t count;                         /* counters that follow */
    uint32_t pad;
} pib_counts_head;

/* Whether a segment of `size` bytes starting with *h is one of this
 * build: magic, version and `count` counters of `ctr_size` bytes. */
static inline int pib_counts_layout_ok(const pib_counts_head *h,
                                       size_t size, uint32_t count,
                                       size_t ctr_size)
{
    return size >= sizeof(*h) && h->magic == PIB_COUNTS_MAGIC
           && h->version == PIB_COUNTS_VERSION && h->count == count
           && size >= sizeof(*h) + (size_t)count * ctr_size;
}

#endif /* PIB_COUNTS_LAYOUT_H */
