/* test_cachekey.c -- the normalised Accept-Encoding (pib_cachekey.c): the
 * table of pib_cachekey.h, and the store level. */
#include "unit.h"
#include "pib_cachekey.h"

static const char *norm(const char *value, int refuse,
                        const pib_coding *offer, size_t n)
{
    pib_ae ae;

    pib_ae_init(&ae);
    if (value != NULL) {
        pib_ae_feed(&ae, value);
    }
    return pib_cachekey_ae(&ae, refuse, offer, n);
}

#define NORM_NULL(v, refuse, offer, n) \
    CHECK(norm((v), (refuse), (offer), (n)) == NULL)

void test_cachekey(void)
{
    static const pib_coding gz[] = { PIB_CODING_GZIP };
    static const pib_coding zbg[] = { PIB_CODING_ZSTD, PIB_CODING_BR,
                                      PIB_CODING_GZIP };
    static const char *const gzip_clients[] = {
        "gzip", "gzip, deflate, br", "br, gzip", "gzip, deflate, br, zstd",
        "deflate, gzip", "GZIP", "x-gzip", "gzip;q=0.8, *;q=0.1",
        "br;q=1.0, gzip;q=0.8, *;q=0.1", "*"
    };
    size_t i;

    /* the five strings of issue 18, and more: one value */
    for (i = 0; i < sizeof(gzip_clients) / sizeof(gzip_clients[0]); i++) {
        CHECK_STR(norm(gzip_clients[i], 0, gz, 1), "gzip");
    }
    NORM_NULL(NULL, 0, gz, 1);                  /* no header */
    NORM_NULL("", 0, gz, 1);
    NORM_NULL("br", 0, gz, 1);
    NORM_NULL("identity", 0, gz, 1);
    NORM_NULL("gzip;q=0", 0, gz, 1);
    NORM_NULL("gzip;q=0.5, identity", 0, gz, 1);
    NORM_NULL("gzip;q=0.1, *;q=0.8", 0, gz, 1);
    NORM_NULL("*;q=0", 0, gz, 1);
    NORM_NULL("gzip", 1, gz, 1);                /* no-gzip */
    NORM_NULL("gzip", 0, gz, 0);                /* nothing on offer */
    /* a wider offer: the chosen coding, never the raw string */
    CHECK_STR(norm("gzip, deflate, br, zstd", 0, zbg, 3), "zstd");
    CHECK_STR(norm("gzip, deflate, br", 0, zbg, 3), "br");
    CHECK_STR(norm("br, gzip", 0, zbg, 3), "br");
    CHECK_STR(norm("deflate, gzip", 0, zbg, 3), "gzip");
    NORM_NULL("deflate", 0, zbg, 3);

    CHECK_STR(pib_coding_token(PIB_CODING_GZIP), "gzip");
    CHECK(pib_coding_token(PIB_CODING_IDENTITY) == NULL);
    CHECK(pib_coding_token(PIB_CODING_ANY) == NULL);

    /* store level: only for a stored response with one configured */
    CHECK_INT(pib_store_level(1, 12, 1), 12);
    CHECK_INT(pib_store_level(1, 12, 0), 1);
    CHECK_INT(pib_store_level(1, 0, 1), 1);
    CHECK_INT(pib_store_level(0, 9, 1), 9);     /* paused, still stored */
    CHECK_INT(pib_store_level(0, 0, 1), 0);
    CHECK_INT(pib_zlib_level(12), 9);
    CHECK_INT(pib_zlib_level(9), 9);
    CHECK_INT(pib_zlib_level(1), 1);

    /* a stored copy, whole or not */
    {
        static const unsigned char gzh[] = { 0x1f, 0x8b, 0x08, 0x00 };
        static const unsigned char bad[] = { 'x', 0x8b, 0x08, 0x00 };

        CHECK_INT(pib_copy_intact(270, 270, 1, gzh, 4), 1);
        CHECK_INT(pib_copy_intact(270, 0, 1, gzh, 0), 0);   /* emptied */
        CHECK_INT(pib_copy_intact(270, 100, 1, gzh, 4), 0); /* truncated */
        CHECK_INT(pib_copy_intact(270, 270, 1, bad, 4), 0); /* overwritten */
        CHECK_INT(pib_copy_intact(-1, 270, 1, gzh, 4), 1);  /* no length */
        CHECK_INT(pib_copy_intact(-1, 0, 1, gzh, 0), 0);    /* empty gzip */
        CHECK_INT(pib_copy_intact(5, 5, 0, bad, 4), 1);     /* identity */
        CHECK_INT(pib_copy_intact(5, 4, 0, bad, 4), 0);
        CHECK_INT(pib_copy_intact(0, 0, 0, NULL, 0), 1);
        CHECK_INT(pib_copy_intact(-1, 270, 1, gzh, 2), 1);  /* not seen */
        CHECK_INT(pib_copy_intact(270, 270, 1, NULL, 0), 1); /* a file */
    }
}
