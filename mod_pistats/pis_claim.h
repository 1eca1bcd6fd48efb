/* pis_claim.h -- the table of member slots: its header, and which slot
 * belongs to which member, without a lock.
 *
 * Pure (libc and GCC's __atomic builtins on 32-bit words), so it is
 * unit-tested without httpd, with threads racing (tests/unit/
 * test_claim.c).  pis_shm.c puts the table in shared memory and names
 * the keys ("vhost|balancer|member").
 *
 * Layout check.  The first four words of the header never move: a
 * magic, the layout version, the header size and the slot size.  A
 * graceful restart may load a newer mod_pistats.so while the segment of
 * the old one lives on; pis_table_check() says whether this build may
 * use it (else pis_shm.c makes a new one).  Bump PIS_LAYOUT_VERSION with
 * every change of pis_table or pis_slot.
 *
 * Ownership.  A slot belongs to one key at a time.  Each claim and each
 * release is seen by every process through `owner`, bumped when a slot
 * is given up: a writer remembers the owner it found (pis_claim_ref())
 * and writes only between pis_slot_pin() and pis_slot_unpin(), which
 * refuse a slot that changed hands.  A claim waits until no writer is
 * pinned before it clears a slot it takes.  So a child of an old
 * generation, whose members a graceful restart removed, never writes
 * into the slot of the member that took it over.
 */
#ifndef PIS_CLAIM_H
#define PIS_CLAIM_H

#include <stddef.h>
#include <stdint.h>

#include "pis_slot.h"

#define PIS_TABLE_MAGIC 0x50695354U       /* "PiST" */
#ifndef PIS_TEST_LAYOUT
#define PIS_LAYOUT_VERSION 5U       /* 5: power and energy (issue 31) */
#else
/* A build with another layout, for t/pistats/shm_layout.t only. */
#define PIS_LAYOUT_VERSION 1003U
#endif

typedef struct {
    /* These four never move, whatever the version. */
    uint32_t magic;
    uint32_t version;
    uint32_t header_size;         /* offsetof(pis_table, slots) */
    uint32_t slot_size;           /* sizeof(pis_slot) */

    uint32_t capacity;
    uint32_t gen;                 /* bumped by every post_config */
    uint32_t start_s;             /* when the segment was made */
#ifdef PIS_TEST_LAYOUT
    uint32_t test_pad[9];         /* another layout: slots moved */
#else
    uint32_t pad[1];
#endif
    pis_slot slots[1];            /* capacity of them */
} pis_table;

/* The bytes a table of capacity slots takes. */
size_t pis_table_size(unsigned capacity);

/* Initialises a zeroed segment of pis_table_size(capacity) bytes. */
void pis_table_init(pis_table *t, unsigned capacity, uint32_t now_s);

/* Why a segment of `size` bytes may not be used by this build. */
typedef enum {
    PIS_TABLE_OK = 0,
    PIS_TABLE_MAGIC_BAD,          /* not ours, or too old to say */
    PIS_TABLE_VERSION_BAD,        /* another layout version */
    PIS_TABLE_SIZES_BAD,          /* same version, other header/slot size */
    PIS_TABLE_TOO_SMALL           /* the segment is shorter than it says */
} pis_table_verdict;

pis_table_verdict pis_table_check(const pis_table *t, size_t size);
const char *pis_table_verdict_str(pis_table_verdict v);

pis_slot *pis_table_slot(pis_table *t, unsigned i);

/* A writer's handle: the slot and the owner it had when found. */
typedef struct {
    pis_slot *slot;
    uint32_t owner;
} pis_slot_ref;

/* The slot with key (state USED), or -1.  Lock-free, no writes. */
int pis_claim_find(pis_table *t, const char *key);

/* The slot of key: found, or claimed from the free ones (the lowest that
 * no writer is pinned to).  Racing claims of one key agree on one slot.
 * The slot is marked with generation gen.  Returns its index, or -1 when
 * no slot is free. */
int pis_claim_take(pis_table *t, const char *key, uint32_t gen);

/* Gives slot i up (a member that left): writers holding a reference to
 * it stop writing at once. */
void pis_claim_release(pis_table *t, unsigned i);

/* A reference to slot i if it still holds key: 0, else -1. */
int pis_claim_ref(pis_table *t, unsigned i, const char *key,
                  pis_slot_ref *out);

/* Whether the slot still belongs to the owner of ref (a read, for
 * readers; writers pin). */
int pis_slot_owned(const pis_slot_ref *ref);

/* Writers: pin returns 1 when the slot is still the reference's (then
 * write, and unpin), 0 when it changed hands (then do not write). */
int pis_slot_pin(const pis_slot_ref *ref);
void pis_slot_unpin(const pis_slot_ref *ref);

/* Readers that walk the table (not through a reference): copies slot
 * i's key into buf (n bytes, NUL-terminated) and its owner into *owner
 * when the slot is USED and kept its owner while the key was copied (so
 * the copy is that owner's whole key, not one being rewritten by a
 * racing claim).  Returns 0, or -1 when it is not USED or changed hands
 * meanwhile (skip it). */
int pis_slot_key_copy(pis_table *t, unsigned i, char *buf, size_t n,
                      uint32_t *owner);

/* The number of slots USED. */
unsigned pis_claim_used(pis_table *t);

/* Tests only (NULL in the modules): called with 1 when a claim has
 * taken a free slot, 2 when it has published its key, so a unit test can
 * stretch the windows in which racing claims interleave. */
extern void (*pis_claim_test_hook)(int point);

#endif /* PIS_CLAIM_H */
