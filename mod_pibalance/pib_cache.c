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
 * server's configuration: no <Location> or <Proxy> is known yet): in the
 * module's server configuration (pib_config.c), a virtual host inheriting
 * each one it does not set from the main server.
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
#include "apr_strings.h"
#include "apr_portable.h"

#include <unistd.h>

#include "pib_log.h"
#include "pib_ae.h"
#include "pib_cachekey.h"
#include "pib_cache.h"
#include "pib_dict.h"
#include "pib_dpolicy.h"
#include "pib_sf.h"
#include "pib_config.h"
#include "pib_counts.h"

APLOG_USE_MODULE(pibalance);
extern module AP_MODULE_DECLARE_DATA pibalance_module;

/* The codings the offload produces, in its order of preference: the
 * server's PiBalanceDeflateCodecs (the quick handler runs before any
 * <Location> or <Proxy> is known), gzip alone when it is not set. */
static const pib_codings *pib_cache_offer(request_rec *r)
{
    static pib_codings gzip_alone;
    const pib_deflate_conf *dc = pib_conf_deflate(r);

    if (dc != NULL && dc->codings != NULL) {
        return dc->codings;
    }
    if (gzip_alone.n == 0) {
        pib_codings_default(&gzip_alone);
    }
    return &gzip_alone;
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

static void pib_cache_note_conds(request_rec *r);

/* dcz in the key only where the master holds the dictionary the request
 * names (pib_dd_cache_key): then Available-Dictionary in its canonical
 * form; else dcz off the client's list and the header gone, so unknown
 * hashes never multiply the stored copies. */
static void pib_cache_dict_key(request_rec *r, pib_ae *ae)
{
    char key[PIB_SF_BINARY_LEN + 1];
    const char *k = pib_dd_cache_key(
        pib_ae_q(ae, PIB_CODING_DCZ) > 0,
        apr_table_get(r->headers_in, "Available-Dictionary"),
        pib_dict_held, (void *)pib_conf_dict(), key);

    if (k == NULL) {
        ae->q[PIB_CODING_DCZ] = 0;
        apr_table_unset(r->headers_in, "Available-Dictionary");
    }
    else {
        apr_table_setn(r->headers_in, "Available-Dictionary",
                       apr_pstrdup(r->pool, k));
    }
}

static int pib_cache_read(request_rec *r)
{
    pib_ae_seen seen;
    const pib_codings *offer;
    const char *v;

    pib_cache_note_conds(r);
    if (!pib_conf_cache_key(r->server)
        || apr_table_get(r->notes, PIB_NOTE_CLIENT_AE) != NULL) {
        return DECLINED;
    }
    pib_ae_init(&seen.ae);
    seen.pool = r->pool;
    seen.raw = NULL;
    apr_table_do(pib_cache_ae_cb, &seen, r->headers_in, "Accept-Encoding",
                 NULL);
    offer = pib_cache_offer(r);
    pib_cache_dict_key(r, &seen.ae);
    v = pib_cachekey_ae(&seen.ae,
                        apr_table_get(r->subprocess_env, "no-gzip") != NULL,
                        offer->order, offer->n);
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

/* mod_cache's verdict on the request as it ended (after a refetch of a
 * broken copy: the redirected request's), counted for /pi-status. */
static void pib_cache_count(request_rec *r)
{
    const apr_table_t *env;

    while (r->next != NULL) {
        r = r->next;
    }
    env = r->subprocess_env;
    if (apr_table_get(env, "cache-hit") != NULL) {
        pib_count(PIB_CNT_CACHE_HIT);
        pib_count_add(PIB_CNT_CACHE_SAVED, (apr_uint64_t)r->bytes_sent);
    }
    else if (apr_table_get(env, "cache-revalidate") != NULL) {
        pib_count(PIB_CNT_CACHE_REVAL);
        pib_count_add(PIB_CNT_CACHE_SAVED, (apr_uint64_t)r->bytes_sent);
    }
    else if (apr_table_get(env, "cache-miss") != NULL) {
        pib_count(PIB_CNT_CACHE_MISS);
    }
}

/* Logs (%{Accept-Encoding}i) show what the client sent; the counters. */
static int pib_cache_log(request_rec *r)
{
    const char *raw = apr_table_get(r->notes, PIB_NOTE_CLIENT_AE);

    if (raw == NULL) {
        return DECLINED;
    }
    pib_cache_count(r);
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

/* ---- PiBalanceDeflateCacheRefresh full ----------------------------------
 *
 * mod_cache refreshes a stale copy with a conditional request: it takes
 * the client's If-* headers away and sends its own If-None-Match (the
 * stored ETag) and If-Modified-Since (the stored Last-Modified).
 * mod_cache_socache keeps no body when the node answers that with 304
 * (docs/offload.md).  With "full", the client's two headers are noted
 * before mod_cache looks (pib_cache_read); a request that mod_cache will
 * store (CACHE_SAVE among its filters) and whose two headers are no
 * longer the client's goes to the node without them, so the node sends
 * the whole page and mod_cache stores it whole.  The client's own
 * conditions are never taken away: a response mod_cache does not store
 * after all (no Content-Length, too large, no-store) still gets its 304.
 * A client that sent the stored copy's own validators cannot be told
 * from mod_cache: that refresh stays conditional (the check below drops
 * the empty copy it leaves). */

#define PIB_NOTE_CLIENT_INM "pibalance-client-inm"
#define PIB_NOTE_CLIENT_IMS "pibalance-client-ims"

static void pib_cache_note_conds(request_rec *r)
{
    const char *inm, *ims;

    if (!pib_conf_refresh_full(r->server)
        || apr_table_get(r->notes, PIB_NOTE_CLIENT_INM) != NULL) {
        return;
    }
    inm = apr_table_get(r->headers_in, "If-None-Match");
    ims = apr_table_get(r->headers_in, "If-Modified-Since");
    apr_table_setn(r->notes, PIB_NOTE_CLIENT_INM, inm ? inm : "");
    apr_table_setn(r->notes, PIB_NOTE_CLIENT_IMS, ims ? ims : "");
}

static int pib_same(const char *now, const char *client)
{
    return strcmp(now ? now : "", client) == 0;
}

int pib_cache_refresh_whole(request_rec *r, apr_table_t *up)
{
    const char *inm = apr_table_get(r->notes, PIB_NOTE_CLIENT_INM);
    const char *ims = apr_table_get(r->notes, PIB_NOTE_CLIENT_IMS);

    if (inm == NULL || ims == NULL
        || (pib_same(apr_table_get(up, "If-None-Match"), inm)
            && pib_same(apr_table_get(up, "If-Modified-Since"), ims))
        || !pib_will_store(r)) {
        return 0;
    }
    apr_table_unset(up, "If-None-Match");
    apr_table_unset(up, "If-Modified-Since");
    ap_log_rerror(APLOG_MARK, APLOG_TRACE1, 0, r, "deflate: mod_cache "
                  "refreshes %s: the whole page asked for "
                  "(PiBalanceDeflateCacheRefresh full)", r->unparsed_uri);
    return 1;
}

int pib_cache_level(request_rec *r, int level)
{
    int store = pib_conf_store_level(r->server);

    if (store <= 0) {
        return level;
    }
    return pib_store_level(level, store, pib_will_store(r));
}

/* ---- a stored copy that is not whole ------------------------------------
 *
 * PIB_CACHE_CHECK sits after mod_cache's CACHE_OUT (CONTENT_SET+2: the
 * quick handler removes only the filters before CACHE_OUT) on requests
 * whose key we set.  On a hit or a copy a 304 refreshed (mod_cache's
 * "cache-hit" and "cache-revalidate" notes, set before the body is
 * recalled) the whole stored body arrives in the first
 * brigade, before anything went to the client.  A copy that is not whole
 * (pib_copy_intact: its length, a gzip body's magic; a file bucket's
 * first bytes are read with pread, so it stays a file for sendfile) is
 * dropped: the request goes again
 * through an internal redirect with "Cache-Control: no-cache", which
 * mod_cache answers from the node and stores over the broken copy.  Once
 * a request: the redirected one never checks.  mod_cache_socache loses
 * the body of a copy a 304 refreshed (httpd 2.4.71, its store_headers
 * and commit_entity on a recalled entry), so with it this is what keeps
 * such a copy from ever reaching a client (docs/offload.md).
 */

#define PIB_CACHE_CHECK_FILTER "PIB_CACHE_CHECK"

static apr_off_t pib_announced(request_rec *r)
{
    const char *cl = apr_table_get(r->headers_out, "Content-Length");
    apr_off_t len;
    char *end;

    if (cl == NULL || apr_strtoff(&len, cl, &end, 10) != APR_SUCCESS
        || *end != '\0' || len < 0) {
        return -1;
    }
    return len;
}

/* The first 3 bytes of a file bucket, read with pread(): the bucket
 * stays a file (sendfile) and the descriptor's offset is not moved.
 * Returns how many were read. */
static size_t pib_file_head(apr_bucket *e, unsigned char *head)
{
    apr_bucket_file *fb = e->data;
    apr_os_file_t fd;
    ssize_t n;

    if (e->length < 3 || apr_os_file_get(&fd, fb->fd) != APR_SUCCESS) {
        return 0;
    }
    n = pread(fd, head, 3, (off_t)e->start);
    return n == 3 ? 3 : 0;
}

/* 1 when the brigade holds a whole body (EOS, every length known), with
 * its length in *have and up to 3 of its first bytes in head (count in
 * nhead; only from buckets in memory). */
static int pib_whole_body(apr_bucket_brigade *bb, apr_off_t *have,
                          unsigned char *head, size_t *nhead)
{
    apr_bucket *e;
    int in_order = 1;

    *have = 0;
    *nhead = 0;
    for (e = APR_BRIGADE_FIRST(bb); e != APR_BRIGADE_SENTINEL(bb);
         e = APR_BUCKET_NEXT(e)) {
        if (APR_BUCKET_IS_EOS(e)) {
            return 1;
        }
        if (e->length == (apr_size_t)-1) {
            return 0;
        }
        if (e->length == 0) {
            continue;
        }
        if (in_order && *nhead == 0 && APR_BUCKET_IS_FILE(e)) {
            *nhead = pib_file_head(e, head);
        }
        else if (in_order && *nhead < 3 && !APR_BUCKET_IS_FILE(e)
                 && !APR_BUCKET_IS_METADATA(e)) {
            const char *d;
            apr_size_t n;

            if (apr_bucket_read(e, &d, &n, APR_NONBLOCK_READ) == APR_SUCCESS) {
                while (*nhead < 3 && n-- > 0) {
                    head[(*nhead)++] = (unsigned char)*d++;
                }
            }
        }
        if (APR_BUCKET_IS_FILE(e)) {
            in_order = 0;
        }
        *have += (apr_off_t)e->length;
    }
    return 0;
}

static apr_status_t pib_cache_check(ap_filter_t *f, apr_bucket_brigade *bb)
{
    request_rec *r = f->r;
    const char *ce = apr_table_get(r->headers_out, "Content-Encoding");
    unsigned char head[3];
    size_t nhead;
    apr_off_t have;

    if (APR_BRIGADE_EMPTY(bb)) {
        return APR_SUCCESS;
    }
    ap_remove_output_filter(f);
    if ((apr_table_get(r->subprocess_env, "cache-hit") == NULL
         && apr_table_get(r->subprocess_env, "cache-revalidate") == NULL)
        || r->status != HTTP_OK || r->header_only
        || !pib_whole_body(bb, &have, head, &nhead)
        || pib_copy_intact((long long)pib_announced(r), (long long)have,
                           ce != NULL && strcasecmp(ce, "gzip") == 0,
                           head, nhead)) {
        return ap_pass_brigade(f->next, bb);
    }
    ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, PIBLOGNO(12501)
                  "deflate: the stored copy of %s is not whole (%"
                  APR_OFF_T_FMT " bytes of %" APR_OFF_T_FMT ", %s): "
                  "dropped, fetched again", r->unparsed_uri, have,
                  pib_announced(r), ce ? ce : "identity");
    apr_brigade_cleanup(bb);
    apr_table_mergen(r->headers_in, "Cache-Control", "no-cache");
    apr_table_unset(r->headers_out, "Content-Length");
    ap_internal_redirect(r->unparsed_uri, r);
    return APR_SUCCESS;
}

static void pib_cache_insert(request_rec *r)
{
    if (r->prev == NULL && r->main == NULL
        && apr_table_get(r->notes, PIB_NOTE_CLIENT_AE) != NULL) {
        ap_add_output_filter(PIB_CACHE_CHECK_FILTER, NULL, r, r->connection);
    }
}

/* ---- start-up ----------------------------------------------------------- */

/* check_config: runs for "httpd -t" too. */
static int pib_cache_check_config(apr_pool_t *pconf, apr_pool_t *plog,
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
        if (pib_conf_refresh_full(v)) {
            ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_ERR, 0, v,
                         PIBLOGNO(12800) "PiBalanceDeflateCacheRefresh full "
                         "needs mod_cache (LoadModule cache_module)");
            return !OK;
        }
        if (pib_conf_cache_key(v)) {
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
    ap_hook_check_config(pib_cache_check_config, NULL, NULL,
                         APR_HOOK_MIDDLE);
    ap_register_output_filter(PIB_CACHE_CHECK_FILTER, pib_cache_check, NULL,
                              AP_FTYPE_CONTENT_SET + 2);
    ap_hook_insert_filter(pib_cache_insert, NULL, NULL, APR_HOOK_MIDDLE);
}
