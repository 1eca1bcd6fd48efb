/* pib_ae.h -- Accept-Encoding negotiation and ETag suffixes (pure).
 *
 * No httpd headers: unit-tested in tests/unit/test_ae.c.
 */
#ifndef PIB_AE_H
#define PIB_AE_H

#include <stddef.h>

/* q-values are kept in thousandths: "q=0.5" is 500, "q=1" is 1000. */
#define PIB_Q_UNSET (-1)

/* What the client said, accumulated over every Accept-Encoding line. */
typedef struct {
    int seen;       /* at least one Accept-Encoding line was fed */
    int gzip_q;     /* best of "gzip" / "x-gzip", or PIB_Q_UNSET */
    int identity_q; /* "identity", or PIB_Q_UNSET */
    int star_q;     /* "*", or PIB_Q_UNSET */
} pib_ae;

void pib_ae_init(pib_ae *ae);

/* Parses one Accept-Encoding field value and merges it into *ae.  Tokens
 * are case-insensitive, whitespace is optional, parameters other than q
 * are ignored, an element with a malformed q is ignored, empty elements
 * and garbage never fail.  Several lines may be fed (haproxy#987). */
void pib_ae_feed(pib_ae *ae, const char *value);

/* The effective q (thousandths) of gzip and of identity, RFC 9110 12.5.3:
 * a listed coding wins over "*"; identity is acceptable (1000) unless
 * excluded by "identity;q=0" or "*;q=0". */
int pib_ae_gzip_q(const pib_ae *ae);
int pib_ae_identity_q(const pib_ae *ae);

/* 1 when the response should be gzipped for this client: a header was
 * sent, gzip's q is above 0 and not below identity's (ties go to gzip). */
int pib_ae_wants_gzip(const pib_ae *ae);

/* The suffix a compressed representation's strong ETag gets. */
#define PIB_ETAG_SUFFIX "-gzip"

/* Writes etag with "-gzip" inserted before the closing quote into out
 * (outsz bytes, room for strlen(etag) + 6).  Returns 1 when done, 0 when
 * the tag is weak ("W/..."), malformed, already suffixed, or out is too
 * small; out is then untouched. */
int pib_etag_add_suffix(const char *etag, char *out, size_t outsz);

/* Copies an If-None-Match / If-Match list into out (room for
 * strlen(in) + 1), removing "-gzip" at the end of every entity-tag, weak
 * or strong.  Returns the number of tags changed.  Anything that does not
 * parse is copied as is. */
int pib_etag_unsuffix_list(const char *in, char *out, size_t outsz);

#endif /* PIB_AE_H */
