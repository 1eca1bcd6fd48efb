/* pib_slots.h -- lbmethod "pi"'s member states kept across graceful
 * restarts: a table of slots, each a member's key and its pib_mstate, in
 * one segment the parent made once (pure; unit-tested in
 * tests/unit/test_mstate.c).
 *
 * One writer assigns slots: the parent, in post_config, single-threaded;
 * children only use the states (pib_mstate.c's lock-free operations).  A
 * generation's assignment: pib_slots_begin(), pib_slots_assign() for
 * every member of the new configuration (a key found keeps its slot and
 * its state: the drain, the estimate, the slow start, what was logged;
 * a new key takes a free slot, cleared), pib_slots_end() (a key the new
 * configuration lacks gives its slot up).  A slot given up is not taken
 * again before two more generations: children of the old one may still
 * write to it for a while after a graceful restart.
 *
 * The head's first four words never move: magic, layout version, slot
 * size, capacity; a segment of another layout is never read
 * (pib_slots_ok()).  Keys longer than a slot holds keep a prefix and a
 * hash of the whole.
 */
#ifndef PIB_SLOTS_H
#define PIB_SLOTS_H

#include <stddef.h>
#include <stdint.h>

#include "pib_mstate.h"

#define PIB_SLOTS_MAGIC   0x50694253U     /* "PiBS" */
#define PIB_SLOTS_VERSION 1U
#define PIB_SKEY_MAX      256

typedef struct {
    uint32_t magic, version, slot_size, capacity;
    uint32_t gen;                 /* bumped by pib_slots_begin() */
    uint32_t pad[3];
} pib_slots_head;

typedef struct {
    char key[PIB_SKEY_MAX];
    uint32_t used;
    uint32_t gen_seen;            /* the last generation that had it */
    uint32_t gen_freed;           /* when it was given up */
    uint32_t pad;
    pib_mstate st;
} pib_kslot;

/* The bytes a table of `capacity` slots takes. */
size_t pib_slots_size(unsigned capacity);

/* Initialises a zeroed segment of pib_slots_size(capacity) bytes. */
void pib_slots_init(void *seg, unsigned capacity);

/* Whether a segment of `size` bytes is a table of this layout. */
int pib_slots_ok(const void *seg, size_t size);

unsigned pib_slots_capacity(const void *seg);

/* A generation's assignment (see above).  assign returns the slot of
 * key, found or taken (cleared), or -1 when none is free. */
void pib_slots_begin(void *seg);
int pib_slots_assign(void *seg, const char *key);
void pib_slots_end(void *seg);

pib_mstate *pib_slots_state(void *seg, unsigned i);

#endif /* PIB_SLOTS_H */
