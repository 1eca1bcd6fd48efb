/* fuzz_dict.c -- the dictionaries' other parsers of outside bytes: a
 * .dict file's header as read from disk (pib_dmeta_parse), a node's
 * Cache-Control (pib_cc_has, pib_cc_max_age) and a request path turned
 * into a URLPattern (pib_dd_pattern), into buffers of exactly the fuzzed
 * size.
 *
 * Checks: a parsed header names a body offset inside the input, a
 * printable prefix without spaces, a known kind and a ratio >= 0, and
 * formats back (pib_dmeta_format) to a header that parses to the same
 * meta; max-age is -1 or a number the value spells; a pattern fits, is
 * printable, starts with '/', and has every URLPattern character escaped.
 */
#include "fuzz_common.h"
#include "pib_dstore.h"
#include "pib_dpolicy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = { data, size };
    size_t cap = fz_u8(&in), hlen = fz_u8(&in) * 4, body, i;
    char *cc = fz_str(&in, 512), *path = fz_str(&in, 512), *out;
    unsigned char *head = malloc(hlen ? hlen : 1);
    pib_dmeta m, m2;
    long long age;

    hlen = hlen < in.n ? hlen : in.n;
    memcpy(head, in.p, hlen);
    if (pib_dmeta_parse(head, hlen, &m, &body) == 0) {
        char again[PIB_DSTORE_PREFIX_MAX + 128];
        size_t n, b2;

        FZ_ASSERT(body <= hlen);
        FZ_ASSERT(m.prefix[0] != '\0' && (unsigned)m.kind <= PIB_DKIND_SELF);
        FZ_ASSERT(m.ratio >= 0);
        n = pib_dmeta_format(&m, again, sizeof(again));
        if (n > 0) {
            FZ_ASSERT(pib_dmeta_parse((unsigned char *)again, n, &m2,
                                      &b2) == 0);
            FZ_ASSERT(b2 == n && strcmp(m.prefix, m2.prefix) == 0);
            FZ_ASSERT(m.kind == m2.kind && m.created == m2.created);
        }
    }
    age = pib_cc_max_age(cc);
    FZ_ASSERT(age >= -1 && age < 1000000000000LL);
    if (age >= 0) {
        FZ_ASSERT(strcasestr(cc, "max-age") != NULL
                  || strcasestr(cc, "s-maxage") != NULL);
    }
    (void)pib_cc_has(cc, "private");
    out = malloc(cap ? cap : 1);
    if (pib_dd_pattern(path, (int)(cap & 1), out, cap) > 0) {
        FZ_ASSERT(strlen(out) < cap && out[0] == '/');
        for (i = 0; out[i] != '\0'; i++) {
            FZ_ASSERT(out[i] > 0x20 && out[i] < 0x7f);
            if (out[i] == '\\') {
                FZ_ASSERT(strchr("\\*:(){}+[]", out[i + 1]) != NULL);
                i++;
            }
            else if (out[i] == '*') {
                FZ_ASSERT(out[i + 1] == '\0' && (cap & 1));
            }
            else {
                FZ_ASSERT(strchr(":(){}+[]", out[i]) == NULL);
            }
        }
    }
    free(out);
    free(head);
    free(cc);
    free(path);
    return 0;
}
