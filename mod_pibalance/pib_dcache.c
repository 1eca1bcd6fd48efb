/* pib_dcache.c -- a child's prepared dictionaries (pure; contract in
 * pib_dcache.h).
 *
 * A small array searched linearly (max is tens: each entry is a
 * dictionary of tens of kilobytes plus its CDicts), each entry with a
 * reference count; a dictionary evicted while a response still uses it
 * is freed by the last release.  Cost of a hit: the mutex and a memcmp
 * per entry; of a miss: one file read and one SHA-256, outside the lock
 * (two threads missing the same hash at once both read it; the second
 * keeps the first's copy).
 */
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "pib_dcache.h"

typedef struct {
    pib_dict *d;
    pib_dmeta meta;
    unsigned refs;
    long long used;                 /* tick of the last lookup */
    long long touched;              /* seconds: the last mtime refresh */
} pib_dcent;

/* A dictionary out of the table still referenced: freed at release. */
typedef struct pib_dorphan {
    pib_dict *d;
    unsigned refs;
    struct pib_dorphan *next;
} pib_dorphan;

struct pib_dcache {
    pthread_mutex_t lock;
    char *root;
    size_t max_bytes;
    unsigned max, n;
    long long tick;
    unsigned long loads, refused;
    pib_dcent *e;
    pib_dorphan *orphans;
};

pib_dcache *pib_dcache_create(const char *root, unsigned max,
                              size_t max_bytes)
{
    pib_dcache *c = calloc(1, sizeof(*c));

    if (c == NULL || max == 0 || (c->root = strdup(root)) == NULL
        || (c->e = calloc(max, sizeof(*c->e))) == NULL
        || pthread_mutex_init(&c->lock, NULL) != 0) {
        if (c != NULL) {
            free(c->root);
            free(c->e);
            free(c);
        }
        return NULL;
    }
    c->max = max;
    c->max_bytes = max_bytes;
    return c;
}

static pib_dcent *pib_dcache_find(pib_dcache *c, const unsigned char *h)
{
    unsigned i;

    for (i = 0; i < c->n; i++) {
        if (memcmp(c->e[i].d->hash, h, PIB_DCZ_HASH_LEN) == 0) {
            return &c->e[i];
        }
    }
    return NULL;
}

/* A hit under the lock: counts the use; returns whether to touch. */
static int pib_dcache_hit(pib_dcache *c, pib_dcent *e, long long now,
                          pib_dmeta *meta)
{
    int touch = now - e->touched >= PIB_DSTORE_TOUCH_S;

    e->refs++;
    e->used = ++c->tick;
    if (touch) {
        e->touched = now;
    }
    if (meta != NULL) {
        *meta = e->meta;
    }
    return touch;
}

/* Makes room for one entry: a free slot, or the least recently used
 * entry no response is using, freed.  NULL when every entry is in use
 * (the caller then lends the dictionary out of the table). */
static pib_dcent *pib_dcache_room(pib_dcache *c)
{
    pib_dcent *lru = NULL;
    unsigned i;

    if (c->n < c->max) {
        return &c->e[c->n++];
    }
    for (i = 0; i < c->n; i++) {
        if (c->e[i].refs == 0 && (lru == NULL || c->e[i].used < lru->used)) {
            lru = &c->e[i];
        }
    }
    if (lru != NULL) {
        pib_dict_free(lru->d);
        memset(lru, 0, sizeof(*lru));
    }
    return lru;
}

pib_dict *pib_dcache_get(pib_dcache *c, const unsigned char *hash,
                         long long now, pib_dmeta *meta)
{
    pib_dcent *e;
    pib_dict *d = NULL;
    pib_dmeta m;
    unsigned char *bytes = NULL;
    size_t n;
    int touch;

    pthread_mutex_lock(&c->lock);
    if ((e = pib_dcache_find(c, hash)) != NULL) {
        d = e->d;
        touch = pib_dcache_hit(c, e, now, meta);
        pthread_mutex_unlock(&c->lock);
        if (touch) {
            pib_dstore_touch(c->root, hash);
        }
        return d;
    }
    pthread_mutex_unlock(&c->lock);

    /* a miss: read and check outside the lock */
    if (pib_dstore_get(c->root, hash, c->max_bytes, &bytes, &n, &m) != 0
        || (d = pib_dict_adopt(bytes, n)) == NULL
        || memcmp(d->hash, hash, PIB_DCZ_HASH_LEN) != 0) {
        pib_dict_free(d);           /* bytes changed behind our back */
        pthread_mutex_lock(&c->lock);
        c->refused++;
        pthread_mutex_unlock(&c->lock);
        return NULL;
    }
    pib_dstore_touch(c->root, hash);

    pthread_mutex_lock(&c->lock);
    c->loads++;
    if ((e = pib_dcache_find(c, hash)) != NULL) {   /* another thread's */
        pib_dict_free(d);
        d = e->d;
        pib_dcache_hit(c, e, now, meta);
    }
    else if ((e = pib_dcache_room(c)) != NULL) {
        e->d = d;
        e->meta = m;
        e->touched = now;
        pib_dcache_hit(c, e, now, meta);
    }
    else {                          /* every entry in use: lend it */
        pib_dorphan *o = malloc(sizeof(*o));

        if (o == NULL) {
            pthread_mutex_unlock(&c->lock);
            pib_dict_free(d);
            return NULL;
        }
        o->d = d;
        o->refs = 1;
        o->next = c->orphans;
        c->orphans = o;
        if (meta != NULL) {
            *meta = m;
        }
    }
    pthread_mutex_unlock(&c->lock);
    return d;
}

void pib_dcache_release(pib_dcache *c, pib_dict *d)
{
    pib_dorphan **o, *dead = NULL;
    unsigned i;

    if (d == NULL) {
        return;
    }
    pthread_mutex_lock(&c->lock);
    for (i = 0; i < c->n; i++) {
        if (c->e[i].d == d) {
            if (c->e[i].refs > 0) {
                c->e[i].refs--;
            }
            pthread_mutex_unlock(&c->lock);
            return;
        }
    }
    for (o = &c->orphans; *o != NULL; o = &(*o)->next) {
        if ((*o)->d == d) {
            if (--(*o)->refs == 0) {
                dead = *o;
                *o = dead->next;
            }
            break;
        }
    }
    pthread_mutex_unlock(&c->lock);
    if (dead != NULL) {
        pib_dict_free(dead->d);
        free(dead);
    }
}

void pib_dcache_counts(pib_dcache *c, unsigned *held,
                       unsigned long long *bytes, unsigned long *loads,
                       unsigned long *refused)
{
    unsigned i;

    pthread_mutex_lock(&c->lock);
    *held = c->n;
    *bytes = 0;
    for (i = 0; i < c->n; i++) {
        *bytes += c->e[i].d->len;
    }
    *loads = c->loads;
    *refused = c->refused;
    pthread_mutex_unlock(&c->lock);
}

void pib_dcache_destroy(pib_dcache *c)
{
    unsigned i;

    if (c == NULL) {
        return;
    }
    for (i = 0; i < c->n; i++) {
        pib_dict_free(c->e[i].d);
    }
    while (c->orphans != NULL) {
        pib_dorphan *o = c->orphans;

        c->orphans = o->next;
        pib_dict_free(o->d);
        free(o);
    }
    pthread_mutex_destroy(&c->lock);
    free(c->e);
    free(c->root);
    free(c);
}
