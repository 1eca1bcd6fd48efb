/* pib_coding_table.c -- one row per coding the master produces (see
 * pib_coding_table.h).  Everything that names, counts, levels or encodes
 * a coding reads it: PiBalanceDeflateCodecs (pib_codings.c), the choice
 * of encoder (pib_codec.c), ETag suffixes (pib_ae.c), the counters
 * (pib_counts.c) and what /pi-status calls each one (include/pi_api.h's
 * pi_deflate_counts carries the tokens). */
#include <string.h>
#include <strings.h>

#include "pib_codec.h"
#include "pib_coding_table.h"
#include "pib_dcz.h"

const pib_coding_row pib_coding_rows[PIB_NCODINGS] = {
    { PIB_CODING_GZIP, "gzip", "-gzip", 0, 0, 1,
      "gzip takes no level here: its level is PiBalanceDeflateLevel",
      &pib_codec_zlib, &pib_codec_oneshot },
    { PIB_CODING_BR, "br", "-br", 1, 11, 4,
      "the br level (quality) must be a whole number in [1, 11]",
      &pib_codec_br, &pib_codec_br_oneshot },
    { PIB_CODING_ZSTD, "zstd", "-zstd", 2, 19, 3,
      "the zstd level must be a whole number in [1, 19]",
      &pib_codec_zstd, &pib_codec_zstd_oneshot },
    { PIB_CODING_DCZ, "dcz", "-dcz", 3, 19, 3,
      "the dcz level must be a whole number in [1, 19]",
      &pib_codec_dcz, &pib_codec_dcz_oneshot },
};

const pib_coding_row *pib_coding_row_of(pib_coding c)
{
    size_t i;

    for (i = 0; i < PIB_NCODINGS; i++) {
        if (pib_coding_rows[i].coding == c) {
            return &pib_coding_rows[i];
        }
    }
    return NULL;
}

const pib_coding_row *pib_coding_row_named(const char *s, size_t len)
{
    size_t i;

    for (i = 0; i < PIB_NCODINGS; i++) {
        const char *t = pib_coding_rows[i].token;

        if (strlen(t) == len && strncasecmp(s, t, len) == 0) {
            return &pib_coding_rows[i];
        }
    }
    return NULL;
}
