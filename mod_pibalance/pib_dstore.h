/* pib_dstore.h -- the master's dictionaries on disk (RFC 9842), pure:
 * POSIX calls, no httpd headers; unit-tested in test_dstore.c.
 *
 * Why disk (as mod_cache_disk keeps its files) and not a socache: every
 * child and every restart, graceful or not, sees the same files (a
 * socache segment made in post_config is made anew at each restart, and
 * shmcb copies an entry out under a global mutex on every read); a child
 * reads a dictionary once and then keeps it prepared (pib_dcache.c), so
 * the file system is off the hot path; the size bound and the eviction
 * are ours, by last use, which shmcb's cyclic buffer cannot do.
 *
 * Layout under the root directory (PiBalanceDictionaryRoot):
 *   <64 hex of SHA-256>.dict   "PIBDICT1\n", "key value\n" lines (prefix,
 *                              kind, created, ratio), a blank line, then
 *                              the dictionary's bytes (what is hashed)
 *   <16 hex of the prefix>.cur the hex of the prefix's current dictionary
 * Every file is written to a temporary name and renamed: a reader sees a
 * whole file or none.  A file's mtime is its last use (touched at most
 * once a minute per child); eviction removes the expired first (created
 * + lifetime passed: no client still holds it), then the least recently
 * used until the total is within the bound, a prefix's current one last.
 */
#ifndef PIB_DSTORE_H
#define PIB_DSTORE_H

#include <stddef.h>
#include <time.h>

#include "pib_sf.h"

#define PIB_DSTORE_TOUCH_S   60     /* mtime refreshed at most this often */
#define PIB_DSTORE_PREFIX_MAX 255

typedef enum {
    PIB_DKIND_PAGE = 0,     /* a response the master sent (a page) */
    PIB_DKIND_TRAINED,      /* zstd's builder over sampled pages */
    PIB_DKIND_SELF          /* a resource that is its next version's */
} pib_dkind;

typedef struct {
    char prefix[PIB_DSTORE_PREFIX_MAX + 1]; /* path prefix, or the URL path */
    pib_dkind kind;
    long long created;                      /* seconds since the epoch */
    double ratio;                           /* dcz/identity when built */
} pib_dmeta;

/* One file as the eviction sees it. */
typedef struct {
    char hex[PIB_SF_HEX_LEN + 1];
    unsigned long long size;                /* bytes on disk */
    long long used;                         /* mtime */
    long long created;
    int current;                            /* some prefix's current one */
    int evict;                              /* out: chosen */
} pib_dstore_ent;

/* Marks (evict = 1) the entries to remove: every one with created +
 * lifetime <= now, then, least recently used first (ties: the older
 * creation, then the hex), non-current before current, until the rest
 * total at most limit bytes.  Returns how many were marked.  Pure. */
size_t pib_dstore_victims(pib_dstore_ent *e, size_t n,
                          unsigned long long limit, long long now,
                          long long lifetime);

/* The header of a .dict file for meta into out; its length, or 0 when
 * it does not fit or the prefix holds a byte below 0x21 or above 0x7e. */
size_t pib_dmeta_format(const pib_dmeta *m, char *out, size_t cap);

/* Parses a .dict file's header from buf[0..n): 0, meta filled and *body
 * the offset of the dictionary's bytes; -1 when malformed. */
int pib_dmeta_parse(const unsigned char *buf, size_t n, pib_dmeta *m,
                    size_t *body);

/* Writes bytes[0..n) with meta as <root>/<hex>.dict (atomic).  hash must
 * be the bytes' SHA-256.  0, or -1 with errno. */
int pib_dstore_put(const char *root, const unsigned char *hash,
                   const pib_dmeta *m, const unsigned char *bytes, size_t n);

/* Reads <root>/<hex of hash>.dict: 0 with *bytes (malloc'd, the
 * dictionary only), *n and meta; -1 when absent, unreadable, larger than
 * max or not a whole file of ours (and then nothing is allocated).  The
 * caller checks the hash (pib_dict_adopt computes it). */
int pib_dstore_get(const char *root, const unsigned char *hash,
                   size_t max, unsigned char **bytes, size_t *n,
                   pib_dmeta *m);

/* Sets the current dictionary of prefix (atomic), or reads it: 0 or -1. */
int pib_dstore_set_current(const char *root, const char *prefix,
                           const unsigned char *hash);
int pib_dstore_current(const char *root, const char *prefix,
                       unsigned char *hash);

/* Refreshes the mtime of hash's file (its last use).  0 or -1. */
int pib_dstore_touch(const char *root, const unsigned char *hash);

/* Lists the root, marks victims (pib_dstore_victims) and removes them.
 * *held and *total receive what is left (count, bytes).  Returns the
 * number removed, or -1 when the root cannot be read. */
long pib_dstore_prune(const char *root, unsigned long long limit,
                      long long now, long long lifetime,
                      unsigned long *held, unsigned long long *total);

/* The file names' parts: 16 hex of SHA-256(prefix), NUL-ended. */
void pib_dstore_prefix_id(const char *prefix, char out[17]);

#endif /* PIB_DSTORE_H */
