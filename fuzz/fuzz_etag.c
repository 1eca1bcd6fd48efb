/* fuzz_etag.c -- ETag handling on the master: the "-gzip" suffix added
 * to a compressed response's ETag, and removed from If-None-Match /
 * If-Match lists before they go to the node.
 *
 * Output buffers are malloc'ed at exactly the size passed, so a write
 * past outsz is an ASan report.  Checks: add_suffix writes exactly
 * etag-minus-quote + "-gzip\"" or leaves out untouched; unsuffix never
 * grows the list, drops one suffix per tag changed ("-br" 3 bytes,
 * "-gzip"/"-zstd" 5), and undoes
 * add_suffix for a strong tag without an inner quote; etag_in_list reads
 * nothing outside its strings and finds a well-formed tag in itself.
 */
#include "fuzz_common.h"
#include "pib_ae.h"

#define SL (sizeof(PIB_ETAG_SUFFIX) - 1)

static void check_add(const char *etag, size_t outsz)
{
    size_t n = strlen(etag);
    char *out = malloc(outsz ? outsz : 1);

    memset(out, 'Z', outsz ? outsz : 1);
    if (pib_etag_add_suffix(etag, out, outsz)) {
        char *back = malloc(n + SL + 1);

        FZ_ASSERT(n >= 2 && etag[0] == '"' && etag[n - 1] == '"');
        FZ_ASSERT(outsz >= n + SL + 1);
        FZ_ASSERT(strlen(out) == n + SL);
        FZ_ASSERT(memcmp(out, etag, n - 1) == 0);
        FZ_ASSERT(strcmp(out + n - 1, PIB_ETAG_SUFFIX "\"") == 0);
        /* The node gets its own tag back. */
        if (memchr(etag + 1, '"', n - 2) == NULL) {
            FZ_ASSERT(pib_etag_unsuffix_list(out, back, n + SL + 1) == 1);
            FZ_ASSERT(strcmp(back, etag) == 0);
        }
        free(back);
    }
    else {
        size_t i;

        for (i = 0; i < outsz; i++) {
            FZ_ASSERT(out[i] == 'Z');       /* untouched */
        }
    }
    free(out);
}

static void check_unsuffix(const char *list, size_t outsz)
{
    size_t n = strlen(list);
    char *out = malloc(outsz ? outsz : 1);
    int changed = pib_etag_unsuffix_list(list, out, outsz);

    if (outsz < n + 1) {
        FZ_ASSERT(changed == 0);
        FZ_ASSERT(outsz == 0 || out[0] == '\0');
    }
    else {
        size_t gone = n - strlen(out);

        /* each tag changed lost one suffix: "-br" (3 bytes) to "-gzip" or
         * "-zstd" (5) */
        FZ_ASSERT(changed >= 0);
        FZ_ASSERT(strlen(out) <= n);
        FZ_ASSERT(gone >= 3 * (size_t)changed
                  && gone <= PIB_ETAG_SUFFIX_MAX * (size_t)changed);
        if (changed == 0) {
            FZ_ASSERT(strcmp(out, list) == 0);
        }
    }
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = { data, size };
    uint32_t slack = fz_u8(&in) % 12;
    char *s = fz_str(&in, 8192);
    size_t n = strlen(s);

    /* Sizes around the documented need (n + 6 and n + 1). */
    check_add(s, n + SL + 1 > slack ? n + SL + 1 - slack + 5 : 0);
    check_add(s, n + SL + 1);
    check_add(s, slack < 6 ? n + slack : 0);
    check_unsuffix(s, n + 1);
    check_unsuffix(s, n + 1 > slack ? n + 1 - slack : 0);
    check_unsuffix(s, n + 1 + slack);
    /* pib_etag_in_list: an exact-size copy (ASan sees over-reads); a tag
     * is always in a list of itself alone; "*" and NULL never match. */
    {
        char *exact = strdup(s);

        if (exact == NULL) {
            abort();
        }
        (void)pib_etag_in_list(exact, exact);
        (void)pib_etag_in_list("\"a\", W/\"b\"", exact);
        FZ_ASSERT(!pib_etag_in_list("*", exact));
        FZ_ASSERT(!pib_etag_in_list(NULL, exact));
        if (n >= 2 && exact[0] == '"' && exact[n - 1] == '"'
            && memchr(exact + 1, '"', n - 2) == NULL) {
            FZ_ASSERT(pib_etag_in_list(exact, exact));
        }
        free(exact);
    }
    pib_etag_unsuffix_list(NULL, NULL, 0);
    free(s);
    return 0;
}
