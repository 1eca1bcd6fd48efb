/* pib_cachekey.c -- the Accept-Encoding that Apache's cache keys on
 * (see pib_cachekey.h).  Pure: no httpd headers. */
#include "pib_cachekey.h"

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

int pib_copy_intact(long long announced, long long have, int gzip,
                    const unsigned char *head, size_t nhead)
{
    if (announced >= 0 && announced != have) {
        return 0;
    }
    if (gzip && have > 0) {
        if (nhead < 3 && (long long)nhead < have) {
            return 1;           /* not enough seen to tell: trust it */
        }
        if (nhead < 3 || head[0] != 0x1f || head[1] != 0x8b
            || head[2] != 0x08) {
            return 0;
        }
    }
    if (gzip && have == 0) {
        return 0;               /* a gzip body is never empty */
    }
    return 1;
}
