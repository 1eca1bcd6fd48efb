/* pis_claim.c -- member slots claimed and given up without a lock (see
 * pis_claim.h).
 *
 * A claim of key K by one process at slot x, racing others:
 *
 *   1. take a FREE slot x by compare-and-swap (FREE -> CLAIMING); wait
 *      until no writer of its former owner is pinned; clear it, write K;
 *      publish KEYED;
 *   2. look at every other slot: one USED with K -> give x up, use that;
 *      one KEYED with K (a racing claim) -> kill the higher-numbered of
 *      the two (KEYED -> DEAD by compare-and-swap);
 *   3. promote x (KEYED -> USED by compare-and-swap); if x was killed,
 *      give it up and look again.
 *
 * Two claims that both reach USED would each have published KEYED before
 * looking (sequentially consistent atomics), so at least one saw the
 * other, and then either killed it before it was promoted, or found it
 * USED and gave up its own: one key never holds two slots.
 *
 *   claims of K at slots 3 and 5   | 3 sees 5 | 5 sees 3 | result
 *   -------------------------------+----------+----------+------------
 *   both look before either is USED|   yes    |   yes    | 5 killed, 3
 *   5 promoted before 3 looks      |   USED   |   no     | 3 gives up, 5
 *   3 looks before 5 publishes     |   no     |   yes    | 5 killed, 3
 */
#include <sched.h>
#include <string.h>

#include "pis_claim.h"

#define PIS_PIN_WAIT   100        /* sched_yield()s before a slot is skipped */
#define PIS_CLAIM_TRIES 1000

void (*pis_claim_test_hook)(int point);

static void hook(int point)
{
    if (pis_claim_test_hook != NULL) {
        pis_claim_test_hook(point);
    }
}

static uint32_t ld(const uint32_t *p)
{
    return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static void st(uint32_t *p, uint32_t v)
{
    __atomic_store_n(p, v, __ATOMIC_SEQ_CST);
}

static int cas(uint32_t *p, uint32_t *expect, uint32_t v)
{
    return __atomic_compare_exchange_n(p, expect, v, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
}

size_t pis_table_size(unsigned capacity)
{
    return offsetof(pis_table, slots) + (size_t)capacity * sizeof(pis_slot);
}

void pis_table_init(pis_table *t, unsigned capacity, uint32_t now_s)
{
    t->magic = PIS_TABLE_MAGIC;
    t->version = PIS_LAYOUT_VERSION;
    t->header_size = (uint32_t)offsetof(pis_table, slots);
    t->slot_size = (uint32_t)sizeof(pis_slot);
    t->capacity = capacity;
    t->gen = 0;
    t->start_s = now_s;
}

pis_table_verdict pis_table_check(const pis_table *t, size_t size)
{
    if (size < 4 * sizeof(uint32_t) || t->magic != PIS_TABLE_MAGIC) {
        return PIS_TABLE_MAGIC_BAD;
    }
    if (t->version != PIS_LAYOUT_VERSION) {
        return PIS_TABLE_VERSION_BAD;
    }
    if (t->header_size != offsetof(pis_table, slots)
        || t->slot_size != sizeof(pis_slot)) {
        return PIS_TABLE_SIZES_BAD;
    }
    if (size < pis_table_size(t->capacity)) {
        return PIS_TABLE_TOO_SMALL;
    }
    return PIS_TABLE_OK;
}

const char *pis_table_verdict_str(pis_table_verdict v)
{
    switch (v) {
    case PIS_TABLE_OK:          return "same layout";
    case PIS_TABLE_MAGIC_BAD:   return "no known magic";
    case PIS_TABLE_VERSION_BAD: return "another layout version";
    case PIS_TABLE_SIZES_BAD:   return "another header or slot size";
    case PIS_TABLE_TOO_SMALL:   return "a segment shorter than its table";
    }
    return "?";
}

pis_slot *pis_table_slot(pis_table *t, unsigned i)
{
    return (pis_slot *)((char *)t->slots + (size_t)i * sizeof(pis_slot));
}

static int key_is(const pis_slot *sl, const char *key)
{
    return strncmp(sl->key, key, sizeof(sl->key)) == 0;
}

int pis_claim_find(pis_table *t, const char *key)
{
    unsigned i;

    for (i = 0; i < t->capacity; i++) {
        pis_slot *sl = pis_table_slot(t, i);

        if (ld(&sl->state) == PIS_SLOT_USED && key_is(sl, key)) {
            return (int)i;
        }
    }
    return -1;
}

/* Step 1's wait: writers of the former owner pin for a few
 * instructions; a process killed while pinned leaves the slot unusable
 * (skipped) rather than risk a write into its next owner. */
static int wait_unpinned(pis_slot *sl)
{
    unsigned n;

    for (n = 0; n < PIS_PIN_WAIT; n++) {
        if (ld(&sl->pins) == 0) {
            return 1;
        }
        sched_yield();
    }
    return 0;
}

/* Step 2 and 3 for slot x: its index, or -2 (lost: look again). */
static int settle(pis_table *t, unsigned x, const char *key)
{
    pis_slot *mine = pis_table_slot(t, x);
    uint32_t expect;
    unsigned j;

    for (j = 0; j < t->capacity; j++) {
        pis_slot *sl = pis_table_slot(t, j);
        uint32_t s = ld(&sl->state);
        pis_slot *victim;

        if (j == x || (s != PIS_SLOT_USED && s != PIS_SLOT_KEYED)
            || !key_is(sl, key)) {
            continue;
        }
        if (s == PIS_SLOT_USED) {
            st(&mine->state, PIS_SLOT_FREE);
            return -2;
        }
        victim = j > x ? sl : mine;
        expect = PIS_SLOT_KEYED;
        if (!cas(&victim->state, &expect, PIS_SLOT_DEAD)
            && victim == sl && expect == PIS_SLOT_USED && key_is(sl, key)) {
            st(&mine->state, PIS_SLOT_FREE);   /* promoted meanwhile */
            return -2;
        }
        if (victim == mine) {
            break;
        }
    }
    expect = PIS_SLOT_KEYED;
    if (cas(&mine->state, &expect, PIS_SLOT_USED)) {
        return (int)x;
    }
    st(&mine->state, PIS_SLOT_FREE);           /* killed */
    return -2;
}

/* One pass of steps 1-3: index, -1 (no free slot) or -2 (look again). */
static int claim_once(pis_table *t, const char *key, uint32_t gen)
{
    unsigned i;

    for (i = 0; i < t->capacity; i++) {
        pis_slot *sl = pis_table_slot(t, i);
        uint32_t expect = PIS_SLOT_FREE;

        if (!cas(&sl->state, &expect, PIS_SLOT_CLAIMING)) {
            continue;
        }
        if (!wait_unpinned(sl)) {
            st(&sl->state, PIS_SLOT_FREE);
            continue;
        }
        hook(1);
        pis_slot_reset(sl);
        memset(sl->key, 0, sizeof(sl->key));
        strncpy(sl->key, key, sizeof(sl->key) - 1);
        sl->gen = gen;
        st(&sl->state, PIS_SLOT_KEYED);
        hook(2);
        return settle(t, i, key);
    }
    return -1;
}

int pis_claim_take(pis_table *t, const char *key, uint32_t gen)
{
    unsigned n;

    for (n = 0; n < PIS_CLAIM_TRIES; n++) {
        int i = pis_claim_find(t, key);

        if (i >= 0) {
            st(&pis_table_slot(t, (unsigned)i)->gen, gen);
            return i;
        }
        i = claim_once(t, key, gen);
        if (i != -2) {
            return i;
        }
        sched_yield();
    }
    return -1;
}

void pis_claim_release(pis_table *t, unsigned i)
{
    pis_slot *sl = pis_table_slot(t, i);

    /* owner first: a writer that pins after this sees the change */
    __atomic_add_fetch(&sl->owner, 1, __ATOMIC_SEQ_CST);
    st(&sl->state, PIS_SLOT_FREE);
}

int pis_claim_ref(pis_table *t, unsigned i, const char *key,
                  pis_slot_ref *out)
{
    pis_slot *sl = pis_table_slot(t, i);
    uint32_t o = ld(&sl->owner);

    /* The key is written only while the slot is not USED, after the
     * release that bumped owner: an unchanged owner around the checks
     * means the slot held key with owner o. */
    if (ld(&sl->state) != PIS_SLOT_USED || !key_is(sl, key)
        || ld(&sl->owner) != o) {
        return -1;
    }
    out->slot = sl;
    out->owner = o;
    return 0;
}

int pis_slot_key_copy(pis_table *t, unsigned i, char *buf, size_t n,
                      uint32_t *owner)
{
    pis_slot *sl = pis_table_slot(t, i);
    uint32_t o = ld(&sl->owner);
    size_t k;

    if (n == 0 || ld(&sl->state) != PIS_SLOT_USED) {
        return -1;
    }
    /* Byte by byte, atomically: a racing claim may rewrite the key (the
     * copy is then thrown away below), never tear a byte. */
    for (k = 0; k + 1 < n && k < sizeof(sl->key); k++) {
        buf[k] = __atomic_load_n(&sl->key[k], __ATOMIC_RELAXED);
        if (buf[k] == '\0') {
            break;
        }
    }
    buf[k < n ? k : n - 1] = '\0';
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (ld(&sl->state) != PIS_SLOT_USED || ld(&sl->owner) != o) {
        return -1;
    }
    *owner = o;
    return 0;
}

int pis_slot_owned(const pis_slot_ref *ref)
{
    return ref->slot != NULL && ld(&ref->slot->owner) == ref->owner
           && ld(&ref->slot->state) == PIS_SLOT_USED;
}

int pis_slot_pin(const pis_slot_ref *ref)
{
    if (ref->slot == NULL) {
        return 0;
    }
    __atomic_add_fetch(&ref->slot->pins, 1, __ATOMIC_SEQ_CST);
    if (ld(&ref->slot->owner) == ref->owner) {
        return 1;
    }
    __atomic_sub_fetch(&ref->slot->pins, 1, __ATOMIC_SEQ_CST);
    return 0;
}

void pis_slot_unpin(const pis_slot_ref *ref)
{
    __atomic_sub_fetch(&ref->slot->pins, 1, __ATOMIC_SEQ_CST);
}

unsigned pis_claim_used(pis_table *t)
{
    unsigned i, n = 0;

    for (i = 0; i < t->capacity; i++) {
        n += ld(&pis_table_slot(t, i)->state) == PIS_SLOT_USED;
    }
    return n;
}
