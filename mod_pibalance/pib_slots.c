/* pib_slots.c -- member states kept across graceful restarts (see
 * pib_slots.h).  The parent assigns, alone, in post_config: plain loads
 * and stores; a search is linear (a few hundred slots, once a start). */
#include <string.h>

#include "pib_slots.h"

static pib_kslot *slots(void *seg)
{
    return (pib_kslot *)((char *)seg + sizeof(pib_slots_head));
}

size_t pib_slots_size(unsigned capacity)
{
    return sizeof(pib_slots_head) + (size_t)capacity * sizeof(pib_kslot);
}

void pib_slots_init(void *seg, unsigned capacity)
{
    pib_slots_head *h = seg;

    h->magic = PIB_SLOTS_MAGIC;
    h->version = PIB_SLOTS_VERSION;
    h->slot_size = (uint32_t)sizeof(pib_kslot);
    h->capacity = capacity;
    h->gen = 0;
}

int pib_slots_ok(const void *seg, size_t size)
{
    const pib_slots_head *h = seg;

    return seg != NULL && size >= sizeof(*h) && h->magic == PIB_SLOTS_MAGIC
           && h->version == PIB_SLOTS_VERSION
           && h->slot_size == sizeof(pib_kslot)
           && size >= pib_slots_size(h->capacity);
}

unsigned pib_slots_capacity(const void *seg)
{
    return ((const pib_slots_head *)seg)->capacity;
}

/* The key as a slot holds it: whole, or a prefix and a hash (FNV-1a). */
static void slot_key(const char *key, char *out)
{
    size_t n = strlen(key);
    uint32_t h = 2166136261U;
    size_t i;

    if (n < PIB_SKEY_MAX) {
        memcpy(out, key, n + 1);
        return;
    }
    for (i = 0; i < n; i++) {
        h = (h ^ (unsigned char)key[i]) * 16777619U;
    }
    memcpy(out, key, PIB_SKEY_MAX - 10);
    for (i = 0; i < 8; i++) {
        out[PIB_SKEY_MAX - 10 + i] = "0123456789abcdef"[(h >> (28 - 4 * i))
                                                        & 15];
    }
    out[PIB_SKEY_MAX - 2] = '#';
    out[PIB_SKEY_MAX - 1] = '\0';
}

void pib_slots_begin(void *seg)
{
    pib_slots_head *h = seg;

    h->gen = h->gen + 1 ? h->gen + 1 : 1;
}

/* A slot not used and not given up within the last two generations. */
static int cooled(const pib_kslot *k, uint32_t gen)
{
    return !k->used && (k->gen_freed == 0 || gen - k->gen_freed >= 2);
}

int pib_slots_assign(void *seg, const char *key)
{
    pib_slots_head *h = seg;
    pib_kslot *k = slots(seg);
    char want[PIB_SKEY_MAX];
    unsigned i;
    int free_at = -1;

    slot_key(key, want);
    for (i = 0; i < h->capacity; i++) {
        if (k[i].used && strcmp(k[i].key, want) == 0) {
            k[i].gen_seen = h->gen;
            return (int)i;
        }
        if (free_at < 0 && cooled(&k[i], h->gen)) {
            free_at = (int)i;
        }
    }
    if (free_at >= 0) {
        pib_kslot *f = &k[free_at];

        memset(&f->st, 0, sizeof(f->st));
        memcpy(f->key, want, sizeof(want));
        f->used = 1;
        f->gen_seen = h->gen;
    }
    return free_at;
}

void pib_slots_end(void *seg)
{
    pib_slots_head *h = seg;
    pib_kslot *k = slots(seg);
    unsigned i;

    for (i = 0; i < h->capacity; i++) {
        if (k[i].used && k[i].gen_seen != h->gen) {
            k[i].used = 0;
            k[i].gen_freed = h->gen;
        }
    }
}

pib_mstate *pib_slots_state(void *seg, unsigned i)
{
    return i < pib_slots_capacity(seg) ? &slots(seg)[i].st : NULL;
}
