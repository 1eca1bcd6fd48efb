/* pib_ae.h -- Accept-Encoding negotiation and ETag suffixes (pure).
 *
 * No httpd headers: unit-tested in tests/unit/test_ae.c.
 */
#ifndef PIB_AE_H
#define PIB_AE_H

#include <stddef.h>

/* q-values are kept in thousandths: "q=0.5" is 500, "q=1" is 1000. */
#define PIB_Q_UNSET (-1)

/* The content-codings the parser knows.  Only gzip is produced today;
 * the others are parsed with their q so that a second coding is a new
 * entry in the server's offer, not a new parser.  PIB_CODING_ANY is
 * "*".  Other tokens are skipped: no server of ours can produce them. */
typedef enum {
    PIB_CODING_GZIP,        /* "gzip" and "x-gzip" */
    PIB_CODING_BR,
    PIB_CODING_ZSTD,
    PIB_CODING_DCZ,         /* zstd against a dictionary (RFC 9842) */
    PIB_CODING_DEFLATE,
    PIB_CODING_IDENTITY,
    PIB_CODING_ANY,
    PIB_CODING_COUNT
} pib_coding;

/* What the client said, accumulated over every Accept-Encoding line. */
typedef struct {
    int seen;                   /* at least one line was fed */
    int q[PIB_CODING_COUNT];    /* highest q listed, or PIB_Q_UNSET */
} pib_ae;

void pib_ae_init(pib_ae *ae);

/* Parses one Accept-Encoding field value and merges it into *ae.  Tokens
 * are case-insensitive, whitespace is optional, parameters other than q
 * are ignored, an element with a malformed q is ignored, empty elements
 * and garbage never fail.  Several lines may be fed (haproxy#987).  A
 * coding listed twice keeps its highest q. */
void pib_ae_feed(pib_ae *ae, const char *value);

/* The q (thousandths) the client gave coding c, RFC 9110 12.5.3: its own
 * element, else that of "*", else PIB_Q_UNSET (not mentioned at all). */
int pib_ae_q(const pib_ae *ae, pib_coding c);

/* The coding to send, among the n codings the server offers (in its
 * order of preference), or PIB_CODING_IDENTITY.  Rules:
 *
 *   - no Accept-Encoding at all: identity;
 *   - an offered coding needs q > 0; the highest q wins, a tie goes to
 *     the one offered first;
 *   - identity wins over it only when the client gave identity a higher
 *     q, by its own element or by "*".  An identity the client did not
 *     mention never outranks a listed coding (what mod_deflate, nginx
 *     and HAProxy do): "br, gzip;q=0.8" and "gzip;q=0.8, *;q=0.1" get
 *     gzip, "gzip;q=0.1, *;q=0.8" and "gzip;q=0.5, identity" identity.
 */
pib_coding pib_ae_choose(const pib_ae *ae, const pib_coding *offer,
                         size_t n);

/* 1 when pib_ae_choose() with gzip alone on offer picks gzip. */
int pib_ae_wants_gzip(const pib_ae *ae);

/* The suffix a compressed representation's strong ETag gets. */
#define PIB_ETAG_SUFFIX "-gzip"
#define PIB_ETAG_SUFFIX_MAX 5       /* strlen of the longest suffix */

/* The ETag suffix of coding c: "-gzip", "-br", "-zstd"; NULL for the
 * others. */
const char *pib_etag_suffix(pib_coding c);

/* Writes etag with suffix inserted before the closing quote into out
 * (outsz bytes, room for strlen(etag) + strlen(suffix) + 1).  Returns 1
 * when done, 0 when the tag is weak ("W/..."), malformed, already ends
 * in one of our suffixes, or out is too small; out is then untouched. */
int pib_etag_add_suffix_for(const char *etag, const char *suffix,
                            char *out, size_t outsz);

/* pib_etag_add_suffix_for() with "-gzip". */
int pib_etag_add_suffix(const char *etag, char *out, size_t outsz);

/* Copies an If-None-Match / If-Match list into out (room for
 * strlen(in) + 1), removing our suffix ("-gzip", "-br" or "-zstd") at the
 * end of every entity-tag, weak or strong.  Returns the number of tags changed.  Anything that does not
 * parse is copied as is. */
int pib_etag_unsuffix_list(const char *in, char *out, size_t outsz);

/* 1 when the If-None-Match list has an entity-tag equal to etag by the
 * weak comparison (RFC 9110 8.8.3.2: "W/" ignored on both sides, opaque
 * parts byte for byte).  "*" and NULL never match here. */
int pib_etag_in_list(const char *list, const char *etag);

#endif /* PIB_AE_H */
