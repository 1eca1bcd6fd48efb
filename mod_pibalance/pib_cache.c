/* pib_cache.c -- the offload together with Apache's cache (pib_cache.h).
 *
 * Order of a request, quick handler on or off:
 *
 *   post_read_request  pib_cache_read: Accept-Encoding -> "gzip" or none
 *   quick_handler      mod_cache: Vary match on that value; a hit is
 *                      served here (CACHE_OUT), never reaching the node
 *   handler            mod_proxy: the node (our fixups drop the header)
 *   PIB_DEFLATE        CONTENT_SET: gzip, "-gzip" ETag, Vary
 *   CACHE_SAVE         CONTENT_SET+1: stores what we produced
 *   log_transaction    pib_cache_log: client's value back, counters
 *
 * The directives are per server (mod_cache's quick handler sees only the
 * server's configuration: no <Location> or <Proxy> is known yet), kept in
 * a table keyed by server_rec made while the configuration is read.  A
 * virtual host inherits each one it does not set from the main server.
 *
 * Left out: decompressing the stored gzip copy for identity clients (the
 * identity copy is a variant of its own: the node's exact bytes, no CPU
 * per hit; see docs/offload.md, "Compress once").
 */
#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_request.h"
#include "http_protocol.h"
#include "util_filter.h"
#include "apr_hash.h"
#include "apr_strings.h"

#include "pib_log.h"
#include "pib_ae.h"
#include "pib_cachekey.h"
#include "pib_cache.h"

APLOG_USE_MODULE(pibalance);

/* The codings the offload produces, in its order of preference.  Today
 * gzip; PiBalanceDeflateCodecs widens it, and the normalised value
 * follows (pib_cachekey_ae). */
static const pib_coding pib_cache_offer[] = { PIB_CODING_GZIP };

typedef struct {
    int key;                /* PiBalanceDeflateCacheKey, -1 unset */
    int store_level;        /* PiBalanceDeflateStoreLevel, -1 unset */
} pib_cache_conf;

static apr_hash_t *pib_cache_servers;   /* server_rec * -> conf */
static const pib_cache_conf *pib_cache_main;

void pib_cache_conf_reset(void)
{
    pib_cache_servers = NULL;
    pib_cache_main = NULL;
}

static pib_cache_conf *pib_cache_conf_for(cmd_parms *cmd)
{
    pib_cache_conf *c;

    if (pib_cache_servers == NULL) {
        pib_cache_servers = apr_hash_make(cmd->pool);
    }
    c = apr_hash_get(pib_cache_servers, &cmd->server, sizeof(server_rec *));
    if (c == NULL) {
        server_rec **k = apr_palloc(cmd->pool, sizeof(*k));

        *k = cmd->server;
        c = apr_palloc(cmd->pool, sizeof(*c));
        c->key = c->store_level = -1;
        apr_hash_set(pib_cache_servers, k, sizeof(*k), c);
        if (!cmd->server->is_virtual) {
            pib_cache_main = c;
        }
    }
    return c;
}

static const pib_cache_conf *pib_cache_conf_of(const server_rec *s)
{
    if (pib_cache_servers == NULL) {
        return NULL;
    }
    return apr_hash_get(pib_cache_servers, &s, sizeof(server_rec *));
}

/* A field of s's configuration, else the main server's, else -1. */
static int pib_cache_field(const server_rec *s, size_t off)
{
    const pib_cache_conf *c = pib_cache_conf_of(s);
    int v = c ? *(const int *)((const char *)c + off) : -1;

    if (v == -1 && pib_cache_main != NULL) {
        v = *(const int *)((const char *)pib_cache_main + off);
    }
    return v;
}

const char *pib_set_cache_key(cmd_parms *cmd, void *dc, int on)
{
    const char *err = ap_check_cmd_context(cmd, NOT_IN_DIR_LOC_FILE);

    (void)dc;
    if (err != NULL) {
        return err;
    }
    pib_cache_conf_for(cmd)->key = on;
    return NULL;
}

const char *pib_set_store_level(cmd_parms *cmd, void *dc, const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, NOT_IN_DIR_LOC_FILE);
    char *end;
    long v;

    (void)dc;
    if (err != NULL) {
        return err;
    }
    v = strtol(arg, &end, 10);
    if (*arg == '\0' || *end != '\0' || v < 1 || v > 12) {
        return apr_psprintf(cmd->pool, "%s: '%s' must be a whole number "
                            "1..12 (above 9: libdeflate only; a streamed "
                            "body gets zlib's 9)", cmd->cmd->name, arg);
    }
    pib_cache_conf_for(cmd)->store_level = (int)v;
    return NULL;
}

/* ---- the key ------------------------------------------------------------ */

typedef struct {
    pib_ae ae;
    apr_pool_t *pool;
    const char *raw;            /* every line, joined */
} pib_ae_seen;

static int pib_cache_ae_cb(void *rec, const char *key, const char *val)
{
    pib_ae_seen *s = rec;

    (void)key;
    pib_ae_feed(&s->ae, val);
    s->raw = s->raw ? apr_pstrcat(s->pool, s->raw, ", ", val, NULL) : val;
    return 1;
}

static int pib_cache_read(request_rec *r)
{
    pib_ae_seen seen;
    const char *v;

    if (pib_cache_field(r->server, APR_OFFSETOF(pib_cache_conf, key)) != 1
        || apr_table_get(r->notes, PIB_NOTE_CLIENT_AE) != NULL) {
        return DECLINED;
    }
    pib_ae_init(&seen.ae);
    seen.pool = r->pool;
    seen.raw = NULL;
    apr_table_do(pib_cache_ae_cb, &seen, r->headers_in, "Accept-Encoding",
                 NULL);
    v = pib_cachekey_ae(&seen.ae,
                        apr_table_get(r->subprocess_env, "no-gzip") != NULL,
                        pib_cache_offer,
                        sizeof(pib_cache_offer) / sizeof(pib_cache_offer[0]));
    apr_table_setn(r->notes, PIB_NOTE_CLIENT_AE, seen.raw ? seen.raw : "");
    if (v != NULL) {
        apr_table_setn(r->headers_in, "Accept-Encoding", v);
    }
    else {
        apr_table_unset(r->headers_in, "Accept-Encoding");
    }
    ap_log_rerror(APLOG_MARK, APLOG_TRACE1, 0, r, "deflate: cache key "
                  "Accept-Encoding [%s] -> [%s]", seen.raw ? seen.raw : "",
                  v ? v : "");
    return DECLINED;
}

/* Logs (%{Accept-Encoding}i) show what the client sent. */
static int pib_cache_log(request_rec *r)
{
    const char *raw = apr_table_get(r->notes, PIB_NOTE_CLIENT_AE);

    if (raw == NULL) {
        return DECLINED;
    }
    if (*raw != '\0') {
        apr_table_setn(r->headers_in, "Accept-Encoding", raw);
    }
    else {
        apr_table_unset(r->headers_in, "Accept-Encoding");
    }
    return DECLINED;
}

/* ---- the store level ---------------------------------------------------- */

static int pib_will_store(request_rec *r)
{
    ap_filter_t *f;

    for (f = r->output_filters; f != NULL; f = f->next) {
        if (f->frec != NULL && f->frec->name != NULL
            && strcasecmp(f->frec->name, "CACHE_SAVE") == 0) {
            return 1;
        }
    }
    return 0;
}

int pib_cache_level(request_rec *r, int level)
{
    int store = pib_cache_field(r->server,
                                APR_OFFSETOF(pib_cache_conf, store_level));

    if (store <= 0) {
        return level;
    }
    return pib_store_level(level, store, pib_will_store(r));
}

/* ---- start-up ----------------------------------------------------------- */

static int pib_cache_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                                 apr_pool_t *ptemp, server_rec *s)
{
    server_rec *v;

    (void)pconf;
    (void)plog;
    (void)ptemp;
    if (ap_find_linked_module("mod_cache.c") != NULL) {
        return OK;
    }
    for (v = s; v != NULL; v = v->next) {
        if (pib_cache_field(v, APR_OFFSETOF(pib_cache_conf, key)) == 1) {
            ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_ERR, 0, v,
                         PIBLOGNO(12500) "PiBalanceDeflateCacheKey On "
                         "needs mod_cache (LoadModule cache_module, and "
                         "cache_disk_module or cache_socache_module)");
            return !OK;
        }
    }
    return OK;
}

void pib_cache_register(apr_pool_t *p)
{
    static const char *const after_setenvif[] = { "mod_setenvif.c", NULL };

    (void)p;
    ap_hook_post_read_request(pib_cache_read, after_setenvif, NULL,
                              APR_HOOK_MIDDLE);
    ap_hook_log_transaction(pib_cache_log, NULL, NULL,
                            APR_HOOK_REALLY_FIRST);
    ap_hook_post_config(pib_cache_post_config, NULL, NULL, APR_HOOK_MIDDLE);
}
