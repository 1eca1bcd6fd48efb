/* pi_ctr64.h -- a 64-bit counter made of two 32-bit words, lock-free on
 * 32-bit ARM (pure, static inline: see pi_local.h).
 *
 * ARMv6/v7 have no 64-bit atomic add we may count on (it may be a
 * library call with a lock), so a counter is a low word added atomically
 * and a high word bumped by whoever makes the low word wrap.  A reader
 * re-reads until the high word is stable (at most 8 tries: a reader
 * never spins behind writers; a count read across a wrap that raced 8
 * times may be 2^32 off once).  Lives in shared memory: two uint32_t,
 * no padding, the same layout on every target.
 */
#ifndef PI_CTR64_H
#define PI_CTR64_H

#include <stdint.h>

typedef struct {
    uint32_t lo, hi;
} pi_ctr64;

/* Adds n.  Any number of writers at once. */
static inline void pi_ctr_add(pi_ctr64 *c, uint32_t n)
{
    uint32_t old = __atomic_fetch_add(&c->lo, n, __ATOMIC_ACQ_REL);

    if ((uint32_t)(old + n) < old) {
        __atomic_fetch_add(&c->hi, 1, __ATOMIC_ACQ_REL);
    }
}

/* The count. */
static inline uint64_t pi_ctr_read(const pi_ctr64 *c)
{
    uint32_t h1, h2, lo;
    int tries = 0;

    do {
        h1 = __atomic_load_n(&c->hi, __ATOMIC_ACQUIRE);
        lo = __atomic_load_n(&c->lo, __ATOMIC_ACQUIRE);
        h2 = __atomic_load_n(&c->hi, __ATOMIC_ACQUIRE);
    } while (h1 != h2 && ++tries < 8);
    return ((uint64_t)h2 << 32) | lo;
}

#endif /* PI_CTR64_H */
