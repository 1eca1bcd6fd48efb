/* pib_cache.h -- the offload together with Apache's cache (mod_cache).
 *
 * The directives are in pib_config.c (per server).
 *
 * PiBalanceDeflateCacheKey On (server config, virtual host): before
 * mod_cache looks (post_read_request, ahead of its quick handler) the
 * request's Accept-Encoding becomes the coding the offload will produce
 * (pib_cachekey.h), so every client that gets gzip shares one stored copy
 * per URL and identity clients a second one with the node's exact bytes.
 * The client's own value is kept in the note PIB_NOTE_CLIENT_AE and put
 * back before the request is logged.
 *
 * PiBalanceDeflateStoreLevel N (server config, virtual host): the level
 * of a response mod_cache's CACHE_SAVE filter is about to store.
 *
 * PiBalanceDeflateCacheRefresh conditional|full (server config, virtual
 * host): how mod_cache refreshes a stale copy from an HTTP node; "full"
 * sends a request mod_cache will store without conditions
 * (pib_cache_refresh_whole), for mod_cache_socache.
 */
#ifndef PIB_CACHE_H
#define PIB_CACHE_H

#include "httpd.h"
#include "http_config.h"

#define PIB_NOTE_CLIENT_AE "pibalance-client-ae"

/* The level for this response: the store level when one is configured
 * and CACHE_SAVE is in r's output filters, else level. */
int pib_cache_level(request_rec *r, int level);

/* In mod_proxy's fixups (up: the node's copy of the headers): with
 * PiBalanceDeflateCacheRefresh full, removes If-None-Match and
 * If-Modified-Since from a request whose response mod_cache will store.
 * Returns 1 when it did. */
int pib_cache_refresh_whole(request_rec *r, apr_table_t *up);

void pib_cache_register(apr_pool_t *p);

#endif /* PIB_CACHE_H */
