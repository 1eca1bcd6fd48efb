/* pib_cache.h -- the offload together with Apache's cache (mod_cache).
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

/* The module's server configuration: these directives. */
void *pib_cache_create_srv(apr_pool_t *p, server_rec *s);
void *pib_cache_merge_srv(apr_pool_t *p, void *basev, void *addv);

void pib_cache_register(apr_pool_t *p);

extern const char *pib_set_cache_key(cmd_parms *cmd, void *dc, int on);
extern const char *pib_set_store_level(cmd_parms *cmd, void *dc,
                                       const char *arg);
extern const char *pib_set_cache_refresh(cmd_parms *cmd, void *dc,
                                         const char *arg);

#define PIB_CACHE_CMDS \
    AP_INIT_FLAG("PiBalanceDeflateCacheKey", pib_set_cache_key, NULL, \
                 RSRC_CONF, "On: Accept-Encoding becomes the coding the " \
                 "offload produces before mod_cache looks (default Off)"), \
    AP_INIT_TAKE1("PiBalanceDeflateStoreLevel", pib_set_store_level, \
                  NULL, RSRC_CONF, "gzip level 1..12 of a response " \
                  "mod_cache stores (default: PiBalanceDeflateLevel)"), \
    AP_INIT_TAKE1("PiBalanceDeflateCacheRefresh", pib_set_cache_refresh, \
                  NULL, RSRC_CONF, "conditional (default) or full: how " \
                  "mod_cache refreshes a stale copy from the node"),

#endif /* PIB_CACHE_H */
