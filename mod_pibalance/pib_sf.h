/* pib_sf.h -- the structured fields of RFC 9842 (RFC 8941 syntax), pure:
 * no httpd headers; unit-tested in test_sf.c, fuzzed by fuzz/fuzz_sf.c.
 *
 *   Available-Dictionary: :<base64 of the SHA-256>:    (sf-binary)
 *   Dictionary-ID: "..."                               (sf-string)
 *   Use-As-Dictionary: match="/app/page", match-dest=("document"),
 *                      id="...", type=raw              (sf-dictionary)
 *
 * Parsers take a NUL-terminated value (httpd joins repeated headers with
 * ", "), discard the leading and trailing spaces the grammar allows, and
 * refuse anything else: a malformed or unexpected value is "no
 * dictionary", never an error.  Left out: sf-list and sf-date (none of
 * these fields uses them); a Use-As-Dictionary member's parameters are
 * skipped, as RFC 8941 lets a recipient do with ones it does not know.
 */
#ifndef PIB_SF_H
#define PIB_SF_H

#include <stddef.h>

#define PIB_SF_HASH_LEN   32
#define PIB_SF_HEX_LEN    64    /* a hash in lower-case hex, no NUL */
#define PIB_SF_BINARY_LEN 46    /* ':' + 44 base64 + ':' for 32 bytes */
#define PIB_SF_ID_MAX     1024  /* RFC 9842: id and Dictionary-ID */
#define PIB_SF_MATCH_MAX  1024  /* ours: a match pattern's length */
#define PIB_SF_DESTS_MAX  8     /* match-dest entries kept */

/* Available-Dictionary: 0 and hash filled when v is one sf-binary of
 * exactly 32 bytes (padded or not), else -1. */
int pib_sf_parse_hash(const char *v, unsigned char hash[PIB_SF_HASH_LEN]);

/* ":<base64>:" of hash into out (PIB_SF_BINARY_LEN + 1 bytes, NUL-ended). */
void pib_sf_format_hash(const unsigned char hash[PIB_SF_HASH_LEN],
                        char out[PIB_SF_BINARY_LEN + 1]);

/* hash as 64 lower-case hex digits and a NUL (a dictionary's file name). */
void pib_sf_hex(const unsigned char hash[PIB_SF_HASH_LEN],
                char out[PIB_SF_HEX_LEN + 1]);

/* 64 hex digits (either case) to the 32 bytes; 0, or -1 for anything
 * else (other length, other characters). */
int pib_sf_parse_hex(const char *s, unsigned char hash[PIB_SF_HASH_LEN]);

/* Dictionary-ID: 0 and the string (unescaped, NUL-ended) in out when v is
 * one sf-string of at most PIB_SF_ID_MAX characters that fits cap, else
 * -1. */
int pib_sf_parse_string(const char *v, char *out, size_t cap);

/* 1 when s may be written as an sf-string (printable ASCII, 0x20-0x7e),
 * of at most max characters; else 0. */
int pib_sf_string_ok(const char *s, size_t max);

typedef struct {
    char match[PIB_SF_MATCH_MAX + 1];
    char id[PIB_SF_ID_MAX + 1];
    char dest[PIB_SF_DESTS_MAX][16];
    int ndest;                  /* 0: every destination */
} pib_sf_uad;

/* Use-As-Dictionary: 0 when v is an sf-dictionary with a string match
 * (required, non-empty), match-dest an inner list of strings (optional),
 * id a string (optional) and type, if present, the token raw; unknown
 * keys skipped; a key given twice: the last wins (RFC 8941).  Else -1
 * (then the response is not a dictionary). */
int pib_sf_parse_uad(const char *v, pib_sf_uad *out);

/* Use-As-Dictionary for match (and dest, one destination, and id, when
 * not NULL) into out: its length, or 0 when a value is not a valid
 * sf-string or out (cap bytes) is too small. */
size_t pib_sf_format_uad(char *out, size_t cap, const char *match,
                         const char *dest, const char *id);

#endif /* PIB_SF_H */
