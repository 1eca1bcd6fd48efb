/* pib_cachekey.h -- the Accept-Encoding that Apache's cache keys on (pure).
 *
 * mod_cache selects a stored variant by comparing the request headers
 * named in Vary byte for byte (cache_storage.c): "gzip, deflate, br" and
 * "br, gzip" are two variants of one gzip body.  Before the cache looks
 * (pib_cache.c, post_read_request) the client's Accept-Encoding is
 * replaced by the one coding the offload will produce for it, so there is
 * one stored copy per URL and coding:
 *
 *   client's Accept-Encoding              normalised (offer: gzip)
 *   gzip / gzip, deflate, br / br, gzip   gzip
 *   gzip, deflate, br, zstd               gzip
 *   deflate, gzip / gzip;q=0.8, *;q=0.1   gzip
 *   (none) / br / gzip;q=0 / identity     (header removed)
 *   gzip;q=0.5, identity                  (header removed)
 *
 * The choice is pib_ae_choose()'s, on the codings the server offers, so a
 * new coding on offer (br, zstd) becomes a new normalised value here
 * without a change.  No httpd headers: tests/unit/test_cachekey.c.
 */
#ifndef PIB_CACHEKEY_H
#define PIB_CACHEKEY_H

#include <stddef.h>

#include "pib_ae.h"
#include "pib_codings.h"

/* The normalised Accept-Encoding for a client that said *ae: the token of
 * the coding pib_ae_choose() picks among offer[0..n), or NULL (remove the
 * header: identity).  refuse (env no-gzip) means identity. */
const char *pib_cachekey_ae(const pib_ae *ae, int refuse,
                            const pib_coding *offer, size_t n);

/* The level of a response the cache will store: store_level when one is
 * configured (> 0) and the response will be stored, else level (the
 * request's level, 0 when compression is paused).  A copy compressed once
 * and served many times affords a better level; a paused master still
 * compresses the copy it stores, since every hit of an identity copy
 * would go out uncompressed until it expires. */
int pib_store_level(int level, int store_level, int will_store);

/* The level a zlib stream can take (1..9) for a requested level (up to
 * libdeflate's 12). */
int pib_zlib_level(int level);

/* Is a stored copy, as the cache hands it out, whole?  announced: its
 * Content-Length (-1 when it has none), have: the body bytes recalled,
 * gzip: its Content-Encoding is gzip, head/nhead: its first bytes.  0
 * (broken) when the length differs from the one announced, or a gzip body
 * does not start with the gzip magic (1f 8b 08).  Checking the CRC would
 * cost an inflate per hit: left out (the length catches a truncated or
 * emptied copy, the magic one overwritten from its start). */
int pib_copy_intact(long long announced, long long have, int gzip,
                    const unsigned char *head, size_t nhead);

#endif /* PIB_CACHEKEY_H */
