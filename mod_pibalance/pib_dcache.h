/* pib_dcache.h -- a child's prepared dictionaries (pure: POSIX threads,
 * no httpd headers; unit-tested in test_dcache.c).
 *
 * The store on disk (pib_dstore.h) is shared by every child; this keeps,
 * per child, at most max dictionaries loaded, hashed and with their
 * CDicts, so that a response compressed against one costs no disk access
 * and no preparation.  A lookup that misses reads the file once, checks
 * that its bytes hash to the name (a file changed behind our back is a
 * miss), and keeps it, evicting the least recently used one that no
 * response is using.  A hit refreshes the file's mtime (its last use on
 * disk) at most once a PIB_DSTORE_TOUCH_S per dictionary per child.
 * Thread-safe: one mutex around the table (held for a lookup, never for
 * a disk read or a compression).
 */
#ifndef PIB_DCACHE_H
#define PIB_DCACHE_H

#include "pib_dcz.h"
#include "pib_dstore.h"

typedef struct pib_dcache pib_dcache;

/* A cache over root for at most max dictionaries of at most max_bytes
 * each.  NULL when out of memory. */
pib_dcache *pib_dcache_create(const char *root, unsigned max,
                              size_t max_bytes);

/* The dictionary of hash, referenced (release it), with its metadata in
 * *meta when not NULL; NULL when neither held nor on disk (a miss).
 * now: seconds, for the touch. */
pib_dict *pib_dcache_get(pib_dcache *c, const unsigned char *hash,
                         long long now, pib_dmeta *meta);

void pib_dcache_release(pib_dcache *c, pib_dict *d);

/* Counts: dictionaries held, their bytes, disk loads, loads refused
 * (missing or not matching their name). */
void pib_dcache_counts(pib_dcache *c, unsigned *held,
                       unsigned long long *bytes, unsigned long *loads,
                       unsigned long *refused);

/* Frees everything; no reference may be outstanding. */
void pib_dcache_destroy(pib_dcache *c);

#endif /* PIB_DCACHE_H */
