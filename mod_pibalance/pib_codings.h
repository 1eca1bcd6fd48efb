/* pib_codings.h -- PiBalanceDeflateCodecs: which codings the master may
 * produce, in its order of preference, with a level each; and the one
 * choice of coding for a request (pure).
 *
 * No httpd headers: unit-tested in tests/unit/test_codings.c.
 */
#ifndef PIB_CODINGS_H
#define PIB_CODINGS_H

#include <stddef.h>

#include "pib_ae.h"

#include "pib_coding_table.h"

/* The codings, their level ranges and defaults: pib_coding_table.h.
 * Level 1 of every scale is its fastest, which is what the adaptive
 * rule's reduced step uses (pib_adapt_level). */
#define PIB_CODINGS_MAX PIB_NCODINGS

typedef struct {
    size_t n;                            /* codings offered, >= 1 */
    pib_coding order[PIB_CODINGS_MAX];   /* the server's preference */
    int level[PIB_CODING_COUNT];         /* 0: unset (gzip: always) */
} pib_codings;

/* The default: gzip alone. */
void pib_codings_default(pib_codings *c);

/* Parses the arguments of PiBalanceDeflateCodecs: each a coding of the
 * table, with "=N" for one that takes a level (case-insensitive), in the
 * order of preference.  Returns NULL, or a static message for why
 * argv[*bad] was refused (unknown coding, listed twice, level out of
 * range, a level for gzip, nothing listed); *c is then unspecified. */
const char *pib_codings_parse(pib_codings *c, int argc,
                              const char *const argv[], int *bad);

/* What PiBalanceDeflateCodecs accepts, for messages: "gzip,
 * br[=1..11], zstd[=1..19]" (from the table; static). */
const char *pib_codings_accepted(void);

/* The level of coding k in c: the level given, else its default;
 * gzip_level for gzip (PiBalanceDeflateLevel). */
int pib_codings_level(const pib_codings *c, pib_coding k, int gzip_level);

/* THE choice of coding for a response: among the codings c offers,
 * the one the client's Accept-Encoding prefers (pib_ae_choose: RFC 9110
 * 12.5.3, q=0 excludes, "*" counts, identity only when the client ranks
 * it higher; a tie goes to the server's order), or PIB_CODING_IDENTITY.
 * no_gzip (the "no-gzip" variable, as mod_deflate reads it) turns every
 * coding off.  Deterministic in (ae, no_gzip, c): a cache keys its
 * variants on it. */
pib_coding pib_coding_pick(const pib_ae *ae, int no_gzip,
                           const pib_codings *c);

/* Content-Encoding token of a coding (its row's), NULL for the others. */
const char *pib_coding_token(pib_coding k);

#endif /* PIB_CODINGS_H */
