/* fuzz_sf.c -- RFC 9842's structured fields (pib_sf.c): Available-
 * Dictionary, Dictionary-ID and Use-As-Dictionary values from outside,
 * and our own Use-As-Dictionary written from fuzzed strings.
 *
 * Checks: 64 hex digits parse to bytes that print back as the same
 * digits (lower case); a parsed hash, written back, parses to the same 32 bytes and
 * is exactly ":" + 44 base64 + ":"; a parsed string is printable ASCII,
 * at most 1024 characters, and fits its buffer; a parsed
 * Use-As-Dictionary has a non-empty printable match and at most
 * PIB_SF_DESTS_MAX destinations; whatever pib_sf_format_uad writes (into
 * a buffer of exactly cap bytes) parses back to the same match and id,
 * and it writes nothing when a value is not printable.
 */
#include "fuzz_common.h"
#include "pib_sf.h"

static int printable(const char *s)
{
    for (; *s != '\0'; s++) {
        if (*s < 0x20 || *s > 0x7e) {
            return 0;
        }
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = { data, size };
    size_t cap = fz_u8(&in);
    char *v = fz_str(&in, 4096), *match = fz_str(&in, 300),
         *id = fz_str(&in, 64);
    unsigned char h[PIB_SF_HASH_LEN], h2[PIB_SF_HASH_LEN];
    char b[PIB_SF_BINARY_LEN + 1], s[PIB_SF_ID_MAX + 1], *out;
    pib_sf_uad *u = malloc(sizeof(*u));

    if (pib_sf_parse_hash(v, h) == 0) {
        pib_sf_format_hash(h, b);
        FZ_ASSERT(strlen(b) == PIB_SF_BINARY_LEN && b[0] == ':');
        FZ_ASSERT(pib_sf_parse_hash(b, h2) == 0);
        FZ_ASSERT(memcmp(h, h2, sizeof(h)) == 0);
    }
    if (pib_sf_parse_hex(v, h) == 0) {    /* a file name, a URL's tail */
        char hex[PIB_SF_HEX_LEN + 1];
        size_t i;

        pib_sf_hex(h, hex);
        FZ_ASSERT(strlen(v) == PIB_SF_HEX_LEN);
        for (i = 0; i < PIB_SF_HEX_LEN; i++) {
            FZ_ASSERT(hex[i] == (v[i] >= 'A' && v[i] <= 'F' ? v[i] + 32
                                                             : v[i]));
        }
    }
    if (pib_sf_parse_string(v, s, sizeof(s)) == 0) {
        FZ_ASSERT(strlen(s) <= PIB_SF_ID_MAX && printable(s));
    }
    if (pib_sf_parse_uad(v, u) == 0) {
        FZ_ASSERT(u->match[0] != '\0' && printable(u->match));
        FZ_ASSERT(printable(u->id));
        FZ_ASSERT(u->ndest >= 0 && u->ndest <= PIB_SF_DESTS_MAX);
    }
    out = malloc(cap ? cap : 1);
    if (pib_sf_format_uad(out, cap, match, NULL, *id ? id : NULL) > 0) {
        FZ_ASSERT(printable(match) && printable(id));
        FZ_ASSERT(strlen(out) < cap);
        FZ_ASSERT(pib_sf_parse_uad(out, u) == 0);
        FZ_ASSERT(strcmp(u->match, match) == 0);
        FZ_ASSERT(strcmp(u->id, id) == 0);
    }
    else {
        FZ_ASSERT(!printable(match) || *match == '\0' || !printable(id)
                  || cap < 2 * strlen(match) + 2 * strlen(id) + 24);
    }
    free(out);
    free(u);
    free(v);
    free(match);
    free(id);
    return 0;
}
