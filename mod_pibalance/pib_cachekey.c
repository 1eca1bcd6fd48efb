/* pib_cachekey.c -- the Accept-Encoding that Apache's cache keys on
 * (see pib_cachekey.h).  Pure: no httpd headers. */
#include "pib_cachekey.h"

const char *pib_coding_token(pib_coding c)
{
    switch (c) {
    case PIB_CODING_GZIP:
        return "gzip";
    case PIB_CODING_BR:
        return "br";
    case PIB_CODING_ZSTD:
        return "zstd";
    case PIB_CODING_DEFLATE:
        return "deflate";
    default:
        return NULL;
    }
}

const char *pib_cachekey_ae(const pib_ae *ae, int refuse,
                            const pib_coding *offer, size_t n)
{
    if (refuse || ae == NULL || !ae->seen || n == 0) {
        return NULL;
    }
    return pib_coding_token(pib_ae_choose(ae, offer, n));
}

int pib_store_level(int level, int store_level, int will_store)
{
    return (will_store && store_level > 0) ? store_level : level;
}

int pib_zlib_level(int level)
{
    return level > 9 ? 9 : level;
}
