/* pib_coding_table.h -- the codings the master produces: one row each,
 * which everything else reads (pure; unit-tested in test_codings.c).
 *
 * A row says how the coding is named (its Content-Encoding token and
 * ETag suffix), where it is counted (its index in the offload counters
 * and in /pi-status), which levels PiBalanceDeflateCodecs accepts for it,
 * and which codec rows encode it (pib_codec.h: one that streams, one that
 * compresses a whole body in one pass).  As HAProxy's comp_algos[]: a new
 * coding is a new row here, and a new enum value in pib_ae.h.
 *
 *   coding  token  ETag    counter  levels      default  encoders
 *   gzip    gzip   -gzip   0        (Level)     1        zlib, libdeflate;
 *                                                         igzip (ISA-L):
 *                                                         pib_encoder_pick
 *   br      br     -br     1        1..11       4        brotli
 *   zstd    zstd   -zstd   2        1..19       3        zstd
 *   dcz     dcz    -dcz    3        1..19       3        zstd + dictionary
 *
 * dcz (pib_dcz.h) is chosen only for a request that names a dictionary
 * the master holds (pib_dpolicy.h): for any other request the filter
 * takes it off the client's list before the pick.
 * gzip's level is PiBalanceDeflateLevel (1..9), not given in the list.
 * zstd stops at 19: above that it needs more than the 8 MiB window
 * browsers decode.  brotli's quality 0 is left out: 0 is the adaptive
 * rule's "do not compress".
 */
#ifndef PIB_CODING_TABLE_H
#define PIB_CODING_TABLE_H

#include <stddef.h>

#include "pib_ae.h"

struct pib_codec;

typedef struct {
    pib_coding coding;
    const char *token;          /* Content-Encoding, Accept-Encoding */
    const char *etag_suffix;    /* inserted before an ETag's closing quote */
    int counter;                /* index of its counters, 0.. */
    int level_max;              /* CODING=N accepted up to this; 0: none */
    int level_default;          /* when the list gives none */
    const char *level_error;    /* why a level out of range is refused */
    const struct pib_codec *stream;    /* streams, flushes honoured */
    const struct pib_codec *one_pass;  /* a whole body at once */
} pib_coding_row;

#define PIB_NCODINGS 4

extern const pib_coding_row pib_coding_rows[PIB_NCODINGS];

/* The row of coding c; NULL for a coding the master does not produce
 * (identity, deflate, "*"). */
const pib_coding_row *pib_coding_row_of(pib_coding c);

/* The row whose token is the len bytes at s (case-insensitive); NULL. */
const pib_coding_row *pib_coding_row_named(const char *s, size_t len);

#endif /* PIB_CODING_TABLE_H */
