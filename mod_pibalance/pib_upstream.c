/* pib_upstream.c -- what the node receives on an offloaded request.
 *
 * HTTP and WebSocket members: mod_proxy's optional "fixups" hook runs
 * while r->headers_in is a temporary copy made for the upstream request,
 * so removing Accept-Encoding there changes only what the node sees;
 * logs, mod_deflate and our own filter still read the client's header.
 * The same hook takes our "-gzip" off the entity-tags of If-None-Match
 * and If-Match, so the node can answer 304 / compare them, and drops a
 * Range guarded by an If-Range date for a gzip client
 * (pib_drop_date_range).
 *
 * Other members (ajp://, fcgi://, scgi://, uwsgi://, h2://): fixups does
 * not run.  Those handlers read r->headers_in itself (AJP request header,
 * HTTP_ACCEPT_ENCODING variable), so a scheme_handler hook that runs
 * before every handler removes the header (and the variable) from the
 * real request, keeping the client's values in the request config; the
 * request_status hook (after the handler) and, as a fallback,
 * log_transaction put them back.  Our filter reads the kept copy.  While
 * the handler runs, other filters of this request see no Accept-Encoding:
 * that is the documented limitation for non-HTTP members.
 */
#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_request.h"
#include "mod_proxy.h"
#include "apr_strings.h"
#include "apr_optional_hooks.h"

#include "pib_log.h"
#include "pib_cache.h"
#include "pib_config.h"
#include "pib_upstream.h"
#include "pib_proxyhook.h"
#include "pib_req.h"

APLOG_USE_MODULE(pibalance);
extern module AP_MODULE_DECLARE_DATA pibalance_module;

/* The client's headers, kept while they are away (request config). */
typedef struct {
    apr_table_t *kept;          /* Accept-Encoding, If-*-Match, the env */
    int away;
} pib_kept;

static int pib_offloaded(request_rec *r)
{
    const pib_deflate_conf *c = pib_conf_deflate(r);

    return c != NULL && c->enabled == 1;
}

/* Takes "-gzip" off every tag of one conditional header of t.  Returns
 * the number of tags changed. */
static int pib_unsuffix(apr_pool_t *p, apr_table_t *t, const char *name)
{
    const char *v = apr_table_get(t, name);
    apr_size_t n;
    char *out;
    int changed;

    if (v == NULL) {
        return 0;
    }
    n = strlen(v) + 1;
    out = apr_palloc(p, n);
    changed = pib_etag_unsuffix_list(v, out, n);
    if (changed > 0) {
        apr_table_setn(t, name, out);
    }
    return changed;
}

static int pib_ae_cb(void *rec, const char *key, const char *val)
{
    (void)key;
    pib_ae_feed(rec, val);
    return 1;
}

/* If-Range with a date (not an entity-tag) cannot say whether the client
 * holds the gzip copy or the identity one (both have the node's
 * Last-Modified): a gzip client gets the whole body, never the node's
 * identity bytes to splice onto gzip ones (the same for br and zstd).  An If-Range with our "-gzip"
 * tag is left as it is: the node cannot match it, so it sends the whole
 * body too.  Returns 1 when Range was dropped from t. */
static int pib_drop_date_range(request_rec *r, apr_table_t *t)
{
    const char *ir = apr_table_get(t, "If-Range");
    const pib_deflate_conf *conf = pib_conf_deflate(r);
    pib_ae ae;

    if (conf == NULL || ir == NULL || apr_table_get(t, "Range") == NULL
        || ir[0] == '"' || (ir[0] == 'W' && ir[1] == '/')
        || apr_table_get(r->subprocess_env, "no-gzip")) {
        return 0;
    }
    pib_ae_init(&ae);
    apr_table_do(pib_ae_cb, &ae, t, "Accept-Encoding", NULL);
    if (pib_coding_pick(&ae, 0, conf->codings)
        == PIB_CODING_IDENTITY) {
        return 0;
    }
    apr_table_unset(t, "Range");
    apr_table_unset(t, "If-Range");
    return 1;
}

/* Strips what the node must not see from headers t; notes in r. */
static void pib_strip(request_rec *r, apr_table_t *t)
{
    int n;

    pib_drop_date_range(r, t);
    apr_table_unset(t, "Accept-Encoding");
    n = pib_unsuffix(r->pool, t, "If-None-Match");
    n += pib_unsuffix(r->pool, t, "If-Match");
    if (n > 0) {
        apr_table_setn(r->notes, PIB_NOTE_UNSUFFIXED, "1");
    }
}

static int pib_proxy_fixups(request_rec *r)
{
    pib_cache_refresh_whole(r, r->headers_in);  /* before our unsuffix */
    if (pib_offloaded(r)) {
        pib_strip(r, r->headers_in);   /* the upstream copy only */
    }
    return OK;
}

static int pib_is_http_scheme(const char *url)
{
    return strncasecmp(url, "http:", 5) == 0
           || strncasecmp(url, "https:", 6) == 0
           || strncasecmp(url, "ws:", 3) == 0
           || strncasecmp(url, "wss:", 4) == 0;
}

static pib_kept *pib_kept_get(request_rec *r, int create)
{
    pib_req *q = pib_req_get(r, create);
    pib_kept *k = q ? q->upstream : NULL;

    if (k == NULL && create) {
        k = apr_pcalloc(r->pool, sizeof(*k));
        k->kept = apr_table_make(r->pool, 4);
        q->upstream = k;
    }
    return k;
}

static int pib_keep_cb(void *rec, const char *key, const char *val)
{
    apr_table_addn(rec, key, val);
    return 1;
}

/* Before every scheme handler: a non-HTTP member reads r->headers_in
 * itself, so the client's headers go away until the handler is done. */
static int pib_scheme_pre(request_rec *r, proxy_worker *worker,
                          proxy_server_conf *conf, char *url,
                          const char *proxyhost, apr_port_t proxyport)
{
    pib_kept *k;

    (void)worker;
    (void)conf;
    (void)proxyhost;
    (void)proxyport;
    if (url == NULL || pib_is_http_scheme(url) || !pib_offloaded(r)) {
        return DECLINED;
    }
    k = pib_kept_get(r, 1);
    if (k->away) {
        return DECLINED;            /* failover: already stripped */
    }
    apr_table_do(pib_keep_cb, k->kept, r->headers_in, "Accept-Encoding",
                 "If-None-Match", "If-Match", "Range", "If-Range", NULL);
    apr_table_do(pib_keep_cb, k->kept, r->subprocess_env,
                 "HTTP_ACCEPT_ENCODING", NULL);
    pib_strip(r, r->headers_in);
    apr_table_unset(r->subprocess_env, "HTTP_ACCEPT_ENCODING");
    k->away = 1;
    ap_log_rerror(APLOG_MARK, APLOG_TRACE1, 0, r, "deflate: request "
                  "headers held back from %.*s member",
                  (int)strcspn(url, ":"), url);
    return DECLINED;
}

static void pib_put_back(request_rec *r)
{
    pib_kept *k = pib_kept_get(r, 0);

    if (k == NULL || !k->away) {
        return;
    }
    apr_table_unset(r->headers_in, "If-None-Match");
    apr_table_unset(r->headers_in, "If-Match");
    apr_table_unset(r->headers_in, "Range");
    apr_table_unset(r->headers_in, "If-Range");
    apr_table_do(pib_keep_cb, r->headers_in, k->kept, "Accept-Encoding",
                 "If-None-Match", "If-Match", "Range", "If-Range", NULL);
    apr_table_do(pib_keep_cb, r->subprocess_env, k->kept,
                 "HTTP_ACCEPT_ENCODING", NULL);
    k->away = 0;
}

static int pib_request_status(int *status, request_rec *r)
{
    (void)status;
    pib_put_back(r);
    return DECLINED;
}

static int pib_log_first(request_rec *r)
{
    pib_put_back(r);
    return DECLINED;
}

void pib_client_ae(request_rec *r, pib_ae *ae)
{
    pib_kept *k = pib_kept_get(r, 0);
    const apr_array_header_t *arr;
    const apr_table_entry_t *e;
    apr_table_t *t = (k != NULL && k->away) ? k->kept : r->headers_in;
    int i;

    pib_ae_init(ae);
    arr = apr_table_elts(t);
    e = (const apr_table_entry_t *)arr->elts;
    for (i = 0; i < arr->nelts; i++) {
        if (e[i].key && strcasecmp(e[i].key, "Accept-Encoding") == 0) {
            pib_ae_feed(ae, e[i].val);
        }
    }
}

const char *pib_client_header(request_rec *r, const char *name)
{
    pib_kept *k = pib_kept_get(r, 0);

    return apr_table_get((k != NULL && k->away) ? k->kept : r->headers_in,
                         name);
}

void pib_upstream_register(apr_pool_t *p)
{
    (void)p;
    APR_OPTIONAL_HOOK(proxy, fixups, pib_proxy_fixups, NULL, NULL,
                      APR_HOOK_MIDDLE);
    APR_OPTIONAL_HOOK(proxy, request_status, pib_request_status, NULL,
                      NULL, APR_HOOK_REALLY_FIRST);
    pib_proxyhook_scheme(pib_scheme_pre, APR_HOOK_REALLY_FIRST);
    ap_hook_log_transaction(pib_log_first, NULL, NULL,
                            APR_HOOK_REALLY_FIRST);
}
