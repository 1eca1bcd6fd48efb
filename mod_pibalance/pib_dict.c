/* pib_dict.c -- the master's dictionaries at run time (glue; contract in
 * pib_dict.h).
 *
 * Per child: the prepared dictionaries (pib_dcache.c) and, per prefix of
 * dynamic pages, its samples, the measured ratio against its current
 * dictionary and whether a build is under way.  One mutex guards the
 * prefix table; it is never held for a compression, a file read or a
 * build.  A build runs in a thread of its own (ZDICT training takes
 * ~0.1-0.3 s on x86, more on a Pi: not in a request's time), at most one
 * per prefix across every child (an O_EXCL lock file, taken over when
 * older than two minutes: a child that died while building), then the
 * new dictionary is written, made current and the store pruned.  Child
 * exit joins the threads.
 *
 * Left out: a dictionary for a prefix is made from this child's own
 * samples (each child samples what it serves; with several children the
 * first to have enough builds for all), and the served dictionary is
 * not compressed by the offload filter (a quick handler runs before
 * insert_filter): it is sent gzip-compressed here, one pass, when the
 * client accepts gzip.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apr_hash.h"
#include "apr_strings.h"
#include "apr_thread_mutex.h"
#include "apr_thread_proc.h"
#include "httpd.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "util_filter.h"

#include "pib_dict.h"
#include "pib_dcache.h"
#include "pib_dbuild.h"
#include "pib_dpolicy.h"
#include "pib_ae.h"
#include "pib_sf.h"
#include "pib_ae.h"
#include "pib_codec.h"
#include "pib_log.h"
#include "pib_config.h"
#include "pib_upstream.h"

APLOG_USE_MODULE(pibalance);

#define PIB_DICT_CUR_REREAD 5       /* seconds between .cur reads */
#define PIB_DICT_LOCK_STALE 120     /* seconds: a dead builder's lock */

typedef struct {
    const char *prefix;
    pib_dsamples s;
    unsigned long count;            /* responses seen */
    double seen_in, seen_out;       /* against the current, decayed */
    unsigned seen;
    int have;                       /* a current dictionary is known */
    unsigned char cur[PIB_DCZ_HASH_LEN];
    long long cur_created;
    double cur_ratio;
    long long cur_read;             /* when .cur was last read */
    int building;
    long long last_build;
} pib_dprefix;

typedef struct {
    pib_dict_conf conf;             /* strings live in the config pool */
    pib_dprefix *p;
    pib_dsamples s;                 /* a copy: the build owns it */
    pib_dbuild_why why;
    apr_pool_t *pool;               /* the thread's own */
    char lock[4096];
} pib_djob;

static pib_dcache *pib_dict_cache;
static apr_thread_mutex_t *pib_dict_mutex;
static apr_hash_t *pib_dict_prefixes;
static apr_pool_t *pib_dict_pool;
static apr_array_header_t *pib_dict_threads;
static server_rec *pib_dict_server;

static long long pib_dict_now(void)
{
    return (long long)apr_time_sec(apr_time_now());
}

static apr_status_t pib_dict_child_exit(void *data)
{
    int i;

    (void)data;
    if (pib_dict_threads != NULL) {
        for (i = 0; i < pib_dict_threads->nelts; i++) {
            apr_status_t rv;

            apr_thread_join(&rv, APR_ARRAY_IDX(pib_dict_threads, i,
                                               apr_thread_t *));
        }
    }
    pib_dcache_destroy(pib_dict_cache);
    pib_dict_cache = NULL;
    return APR_SUCCESS;
}

void pib_dict_child_init(apr_pool_t *pchild, server_rec *s,
                         const pib_dict_conf *c)
{
    if (c->root == NULL) {
        return;
    }
    pib_dict_server = s;
    pib_dict_cache = pib_dcache_create(c->root, PIB_DICT_ENTRIES,
                                       c->max_one);
    if (pib_dict_cache == NULL
        || apr_pool_create(&pib_dict_pool, pchild) != APR_SUCCESS
        || apr_thread_mutex_create(&pib_dict_mutex, APR_THREAD_MUTEX_DEFAULT,
                                   pchild) != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s, PIBLOGNO(13100)
                     "dictionaries: out of memory in this child; no dcz "
                     "here");
        pib_dcache_destroy(pib_dict_cache);
        pib_dict_cache = NULL;
        return;
    }
    pib_dict_prefixes = apr_hash_make(pib_dict_pool);
    pib_dict_threads = apr_array_make(pib_dict_pool, 4,
                                      sizeof(apr_thread_t *));
    /* A pre-cleanup: a pool's sub-pools (pib_dict_pool: the threads'
     * array) are destroyed before its cleanups run, so a plain cleanup
     * read freed memory (prefork children crashed at exit). */
    apr_pool_pre_cleanup_register(pchild, NULL, pib_dict_child_exit);
}

/* ---- a request's dictionary ---------------------------------------------- */

static apr_status_t pib_dict_release(void *d)
{
    pib_dcache_release(pib_dict_cache, d);
    return APR_SUCCESS;
}

pib_dict *pib_dict_lookup(request_rec *r, const pib_dict_conf *c,
                          int *named)
{
    const char *v = apr_table_get(r->headers_in, "Available-Dictionary");
    unsigned char h[PIB_DCZ_HASH_LEN];
    pib_dmeta m;
    pib_dict *d;

    *named = v != NULL;
    if (c->root == NULL || pib_dict_cache == NULL || v == NULL
        || pib_sf_parse_hash(v, h) != 0
        || (d = pib_dcache_get(pib_dict_cache, h, pib_dict_now(), &m))
           == NULL) {
        return NULL;
    }
    if (m.created + c->lifetime <= pib_dict_now()) {
        pib_dcache_release(pib_dict_cache, d);  /* no client holds it */
        return NULL;
    }
    apr_pool_cleanup_register(r->pool, d, pib_dict_release,
                              apr_pool_cleanup_null);
    return d;
}

int pib_dict_held(const unsigned char *hash, void *conf)
{
    const pib_dict_conf *c = conf;
    pib_dmeta m;
    pib_dict *d;
    int ok;

    if (c->root == NULL || pib_dict_cache == NULL
        || (d = pib_dcache_get(pib_dict_cache, hash, pib_dict_now(), &m))
           == NULL) {
        return 0;
    }
    ok = m.created + c->lifetime > pib_dict_now();
    pib_dcache_release(pib_dict_cache, d);
    return ok;
}

/* ---- prefixes -------------------------------------------------------------- */

/* The prefix's state, made on first use.  Caller holds the mutex. */
static pib_dprefix *pib_dict_prefix(const char *prefix)
{
    pib_dprefix *p = apr_hash_get(pib_dict_prefixes, prefix,
                                  APR_HASH_KEY_STRING);

    if (p == NULL) {
        p = apr_pcalloc(pib_dict_pool, sizeof(*p));
        p->prefix = apr_pstrdup(pib_dict_pool, prefix);
        apr_hash_set(pib_dict_prefixes, p->prefix, APR_HASH_KEY_STRING, p);
    }
    return p;
}

/* Rereads the prefix's current dictionary when due (outside the mutex:
 * the caller passed its state; a racing update is harmless). */
static void pib_dict_refresh(const pib_dict_conf *c, pib_dprefix *p,
                             long long now)
{
    unsigned char h[PIB_DCZ_HASH_LEN];
    pib_dmeta m;
    pib_dict *d;
    int have, changed;

    apr_thread_mutex_lock(pib_dict_mutex);
    if (now - p->cur_read < PIB_DICT_CUR_REREAD) {
        apr_thread_mutex_unlock(pib_dict_mutex);
        return;
    }
    p->cur_read = now;
    apr_thread_mutex_unlock(pib_dict_mutex);

    have = pib_dstore_current(c->root, p->prefix, h) == 0
           && (d = pib_dcache_get(pib_dict_cache, h, now, &m)) != NULL;
    if (have) {
        pib_dcache_release(pib_dict_cache, d);
        have = m.created + c->lifetime > now;
    }
    apr_thread_mutex_lock(pib_dict_mutex);
    changed = have != p->have || (have && memcmp(h, p->cur, sizeof(h)));
    p->have = have;
    if (have && changed) {
        memcpy(p->cur, h, sizeof(h));
        p->cur_created = m.created;
        p->cur_ratio = m.ratio;
        p->seen = 0;
        p->seen_in = p->seen_out = 0;
    }
    apr_thread_mutex_unlock(pib_dict_mutex);
}

const char *pib_dict_link(request_rec *r, const pib_dict_conf *c,
                          const char *prefix)
{
    char hex[PIB_SF_HEX_LEN + 1];
    pib_dprefix *p;
    int have;

    if (c->root == NULL || pib_dict_cache == NULL) {
        return NULL;
    }
    apr_thread_mutex_lock(pib_dict_mutex);
    p = pib_dict_prefix(prefix);
    apr_thread_mutex_unlock(pib_dict_mutex);
    pib_dict_refresh(c, p, pib_dict_now());
    apr_thread_mutex_lock(pib_dict_mutex);
    have = p->have;
    if (have) {
        pib_sf_hex(p->cur, hex);
    }
    apr_thread_mutex_unlock(pib_dict_mutex);
    return have ? apr_psprintf(r->pool, "<%s%s>; rel=\"compression-"
                               "dictionary\"", c->url, hex) : NULL;
}

/* ---- builds ---------------------------------------------------------------- */

/* Takes the prefix's build lock across children: 0, or -1 when another
 * holds it (a lock older than PIB_DICT_LOCK_STALE is taken over). */
static int pib_dict_lock_take(const pib_dict_conf *c, const char *prefix,
                              char *path, size_t cap, long long now)
{
    char id[17];
    struct stat st;
    int fd, tries;

    pib_dstore_prefix_id(prefix, id);
    apr_snprintf(path, cap, "%s/%s.lock", c->root, id);
    for (tries = 0; tries < 2; tries++) {
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
        if (fd >= 0) {
            close(fd);
            return 0;
        }
        if (errno != EEXIST || stat(path, &st) != 0
            || now - (long long)st.st_mtime < PIB_DICT_LOCK_STALE) {
            return -1;
        }
        unlink(path);
    }
    return -1;
}

static const char *pib_dict_why_name(pib_dbuild_why w)
{
    return w == PIB_DBUILD_MISSING ? "none yet"
           : w == PIB_DBUILD_DRIFT ? "the ratio drifted"
           : w == PIB_DBUILD_AGING ? "half its lifetime passed" : "?";
}

static void *APR_THREAD_FUNC pib_dict_build(apr_thread_t *t, void *arg)
{
    pib_djob *j = arg;
    pib_dbuilt b;

    j->pool = apr_thread_pool_get(t);
    apr_time_t t0 = apr_time_now();
    long long now = pib_dict_now();
    int ok = 0;

    if (pib_dbuild_make(&j->s, j->conf.level, j->conf.max_one, &b) == 0) {
        unsigned char h[PIB_DCZ_HASH_LEN];
        pib_dmeta m;
        unsigned long held;
        unsigned long long total;

        memset(&m, 0, sizeof(m));
        apr_cpystrn(m.prefix, j->p->prefix, sizeof(m.prefix));
        m.kind = b.kind;
        m.created = now;
        m.ratio = b.ratio;
        ok = pib_sha256(b.bytes, b.len, h) == 0
             && pib_dstore_put(j->conf.root, h, &m, b.bytes, b.len) == 0
             && pib_dstore_set_current(j->conf.root, j->p->prefix, h) == 0;
        if (ok) {
            pib_dstore_prune(j->conf.root, (unsigned long long)
                             j->conf.max_total, now, j->conf.lifetime,
                             &held, &total);
            ap_log_error(APLOG_MARK, APLOG_INFO, 0, pib_dict_server,
                         PIBLOGNO(13101) "dictionary for %s built (%s): "
                         "%s, %" APR_SIZE_T_FMT " bytes, %.2f%% of identity"
                         " on held-out pages (page %.2f%%, %s), "
                         "%" APR_TIME_T_FMT " ms; %lu held, %" APR_UINT64_T_FMT
                         " bytes",
                         j->p->prefix, pib_dict_why_name(j->why),
                         b.kind == PIB_DKIND_TRAINED ? "trained" : "a page",
                         b.len, b.ratio * 100, b.ratio_page * 100,
                         b.ratio_trained < 0 ? "too few samples to train"
                         : apr_psprintf(j->pool, "trained %.2f%%",
                                        b.ratio_trained * 100),
                         apr_time_as_msec(apr_time_now() - t0), held,
                         (apr_uint64_t)total);
        }
        else {
            ap_log_error(APLOG_MARK, APLOG_WARNING, errno, pib_dict_server,
                         PIBLOGNO(13102) "dictionary for %s: cannot write "
                         "it under %s", j->p->prefix, j->conf.root);
        }
        free(b.bytes);
    }
    unlink(j->lock);
    pib_dsamples_clear(&j->s);
    apr_thread_mutex_lock(pib_dict_mutex);
    j->p->building = 0;
    j->p->last_build = now;
    j->p->cur_read = 0;             /* read the new current one */
    apr_thread_mutex_unlock(pib_dict_mutex);
    free(j);
    /* Returns, never apr_thread_exit(): its pthread_exit() unwinds the
     * stack by force, which leaves AddressSanitizer's marks of the
     * frames' scopes behind; glibc gives the cached stack to the next
     * thread, whose exit then trips on them (a child killed by SIGSEGV
     * at exit under ASan).  The thread's pool goes with pib_dict_pool. */
    return NULL;
}

/* Starts a build of p when due.  Caller holds the mutex. */
static void pib_dict_maybe_build(const pib_dict_conf *c, pib_dprefix *p,
                                 long long now)
{
    pib_dbuild_why why = pib_dbuild_due(p->have, now, p->cur_created,
                                        c->lifetime, p->cur_ratio,
                                        p->seen_in > 0
                                        ? p->seen_out / p->seen_in : 0,
                                        p->seen);
    pib_djob *j;
    apr_thread_t *t;
    int i;

    if (why == PIB_DBUILD_NONE || p->building || p->s.n < PIB_DBUILD_MIN
        || now - p->last_build < PIB_DICT_BUILD_GAP_S
        || (j = calloc(1, sizeof(*j))) == NULL) {
        return;
    }
    if (pib_dict_lock_take(c, p->prefix, j->lock, sizeof(j->lock), now)
        != 0) {
        free(j);
        p->last_build = now;        /* another child builds: wait a gap */
        return;
    }
    if (why == PIB_DBUILD_MISSING) {
        unsigned char h[PIB_DCZ_HASH_LEN];

        /* another child may have built one since we last looked */
        if (pib_dstore_current(c->root, p->prefix, h) == 0) {
            unlink(j->lock);
            free(j);
            p->cur_read = 0;        /* read it at the next response */
            return;
        }
    }
    j->conf = *c;
    j->p = p;
    j->why = why;
    for (i = 0; i < p->s.n; i++) {
        size_t n;
        const unsigned char *b = pib_dsamples_get(&p->s, i, &n);

        if (pib_dsamples_add(&j->s, b, n) != 0) {
            break;
        }
    }
    p->building = 1;
    if (apr_thread_create(&t, NULL, pib_dict_build, j, pib_dict_pool)
        != APR_SUCCESS) {
        p->building = 0;
        unlink(j->lock);
        pib_dsamples_clear(&j->s);
        free(j);
        return;
    }
    APR_ARRAY_PUSH(pib_dict_threads, apr_thread_t *) = t;
}

void pib_dict_sample(request_rec *r, const pib_dict_conf *c,
                     const char *prefix, const unsigned char *body,
                     apr_size_t n)
{
    long long now = pib_dict_now();
    pib_dprefix *p;
    int take, have;
    unsigned char cur[PIB_DCZ_HASH_LEN];

    (void)r;
    if (c->root == NULL || pib_dict_cache == NULL || n == 0
        || n > c->max_one) {
        return;
    }
    apr_thread_mutex_lock(pib_dict_mutex);
    p = pib_dict_prefix(prefix);
    apr_thread_mutex_unlock(pib_dict_mutex);
    pib_dict_refresh(c, p, now);

    apr_thread_mutex_lock(pib_dict_mutex);
    p->count++;
    have = p->have;
    memcpy(cur, p->cur, sizeof(cur));
    take = !have || p->count % PIB_DICT_SAMPLE_EVERY == 0;
    if (take && pib_dsamples_add(&p->s, body, n) != 0) {
        take = 0;
    }
    apr_thread_mutex_unlock(pib_dict_mutex);
    if (!take) {
        return;
    }
    if (have) {                     /* how the current one does now */
        pib_dict *d = pib_dcache_get(pib_dict_cache, cur, now, NULL);
        unsigned char *z;
        size_t zn;

        if (d != NULL && pib_dcz_compress(d, c->level, body, n, &z, &zn)
                         == 0) {
            free(z);
            apr_thread_mutex_lock(pib_dict_mutex);
            if (p->seen >= PIB_DBUILD_SAMPLES) {  /* keep it recent */
                p->seen_in *= 0.875;
                p->seen_out *= 0.875;
            }
            else {
                p->seen++;
            }
            p->seen_in += (double)n;
            p->seen_out += (double)zn;
            apr_thread_mutex_unlock(pib_dict_mutex);
        }
        pib_dcache_release(pib_dict_cache, d);
    }
    apr_thread_mutex_lock(pib_dict_mutex);
    pib_dict_maybe_build(c, p, now);
    apr_thread_mutex_unlock(pib_dict_mutex);
}

int pib_dict_keep_self(request_rec *r, const pib_dict_conf *c,
                       const unsigned char *body, apr_size_t n)
{
    unsigned char h[PIB_DCZ_HASH_LEN];
    char pattern[PIB_SF_MATCH_MAX + 1];
    pib_dmeta m;
    pib_dict *d;

    if (c->root == NULL || pib_dict_cache == NULL || n == 0
        || n > c->max_one || pib_sha256(body, n, h) != 0
        || pib_dd_pattern(r->uri, 0, pattern, sizeof(pattern)) == 0) {
        return -1;
    }
    if ((d = pib_dcache_get(pib_dict_cache, h, pib_dict_now(), NULL))
        != NULL) {
        pib_dcache_release(pib_dict_cache, d);
        return 0;                   /* held already */
    }
    memset(&m, 0, sizeof(m));
    apr_cpystrn(m.prefix, pattern, sizeof(m.prefix));
    m.kind = PIB_DKIND_SELF;
    m.created = pib_dict_now();
    if (strchr(m.prefix, ' ') != NULL
        || pib_dstore_put(c->root, h, &m, body, n) != 0) {
        return -1;
    }
    return 0;
}

/* ---- serving ---------------------------------------------------------------- */

static void pib_dict_emit(void *baton, const unsigned char *p, size_t n)
{
    apr_brigade_write(baton, NULL, NULL, (const char *)p, n);
}

/* The dictionary gzip-compressed (one pass, level 1: a client fetches
 * it once) into bb, Content-Length set; 0, or -1 (bb then holds part). */
static int pib_dict_gzip(request_rec *r, apr_bucket_brigade *bb,
                         const pib_dict *d)
{
    pib_codec_params p = { 1, 15, 8, d->len, NULL };
    pib_cstream *s = apr_pcalloc(r->pool, sizeof(*s));
    int ok = pib_cstream_init(s, &pib_codec_oneshot, &p, pib_dict_emit,
                              bb) == 0
             && s->codec->add(s, d->bytes, d->len) == 0
             && s->codec->finish(s) == 0;

    s->codec->end(s);
    if (!ok) {
        return -1;
    }
    ap_set_content_length(r, (apr_off_t)s->out_bytes);
    if (r->header_only) {
        apr_brigade_cleanup(bb);
    }
    return 0;
}

int pib_dict_serve(request_rec *r, const pib_dict_conf *c)
{
    size_t ul = c->url != NULL ? strlen(c->url) : 0;
    unsigned char h[PIB_DCZ_HASH_LEN];
    char pattern[PIB_SF_MATCH_MAX + 1], uad[PIB_SF_MATCH_MAX + 64];
    char hex[PIB_SF_HEX_LEN + 1];
    const char *etag, *ae;
    apr_bucket_brigade *bb;
    long long now = pib_dict_now(), left;
    pib_dmeta m;
    pib_dict *d;
    pib_ae acc;

    if (c->root == NULL || pib_dict_cache == NULL || ul == 0
        || strncmp(r->uri, c->url, ul) != 0) {
        return DECLINED;
    }
    if (r->method_number != M_GET) {
        return HTTP_METHOD_NOT_ALLOWED;
    }
    if (pib_sf_parse_hex(r->uri + ul, h) != 0
        || (d = pib_dcache_get(pib_dict_cache, h, now, &m)) == NULL) {
        return HTTP_NOT_FOUND;
    }
    apr_pool_cleanup_register(r->pool, d, pib_dict_release,
                              apr_pool_cleanup_null);
    left = m.created + c->lifetime - now;
    if (m.kind == PIB_DKIND_SELF || left <= 0
        || pib_dd_pattern(m.prefix, 1, pattern, sizeof(pattern)) == 0
        || pib_sf_format_uad(uad, sizeof(uad), pattern, NULL, NULL) == 0) {
        return HTTP_NOT_FOUND;      /* a resource's own, or expired */
    }
    pib_sf_hex(h, hex);
    etag = apr_psprintf(r->pool, "\"pibd-%.32s\"", hex);
    apr_table_setn(r->headers_out, "ETag", etag);
    apr_table_setn(r->headers_out, "Cache-Control",
                   apr_psprintf(r->pool, "public, max-age=%" APR_INT64_T_FMT,
                                (apr_int64_t)left));
    apr_table_setn(r->headers_out, "Use-As-Dictionary",
                   apr_pstrdup(r->pool, uad));
    apr_table_setn(r->headers_out, "X-Content-Type-Options", "nosniff");
    apr_table_setn(r->headers_out, "Vary", "Accept-Encoding");
    ap_set_content_type(r, "text/plain; charset=utf-8");
    if (pib_etag_in_list(apr_table_get(r->headers_in, "If-None-Match"),
                         etag)) {
        return HTTP_NOT_MODIFIED;
    }
    bb = apr_brigade_create(r->pool, r->connection->bucket_alloc);
    pib_ae_init(&acc);
    if ((ae = apr_table_get(r->headers_in, "Accept-Encoding")) != NULL) {
        pib_ae_feed(&acc, ae);
    }
    if (pib_ae_wants_gzip(&acc) && pib_dict_gzip(r, bb, d) == 0) {
        apr_table_setn(r->headers_out, "Content-Encoding", "gzip");
    }
    else {
        apr_brigade_cleanup(bb);
        ap_set_content_length(r, (apr_off_t)d->len);
        if (!r->header_only) {
            apr_brigade_write(bb, NULL, NULL, (const char *)d->bytes, d->len);
        }
    }
    APR_BRIGADE_INSERT_TAIL(bb, apr_bucket_eos_create(bb->bucket_alloc));
    return ap_pass_brigade(r->output_filters, bb) == APR_SUCCESS ? OK
           : AP_FILTER_ERROR;
}

void pib_dict_counts(unsigned *held, unsigned long long *bytes,
                     unsigned long *loads, unsigned long *refused)
{
    *held = 0;
    *bytes = 0;
    *loads = *refused = 0;
    if (pib_dict_cache != NULL) {
        pib_dcache_counts(pib_dict_cache, held, bytes, loads, refused);
    }
}

/* ---- the filter's side ------------------------------------------------------ */

static int pib_dict_listed(const pib_codings *c)
{
    size_t i;

    for (i = 0; c != NULL && i < c->n; i++) {
        if (c->order[i] == PIB_CODING_DCZ) {
            return 1;
        }
    }
    return 0;
}

static int pib_dict_has_cookie(void *rec, const char *k, const char *v)
{
    (void)k;
    (void)v;
    *(int *)rec = 1;
    return 0;
}

void pib_dict_decide(request_rec *r, const pib_codings *codings,
                     const char *prefix, int compressible,
                     pib_dict_req *out)
{
    const pib_dict_conf *c = pib_conf_dict();
    pib_dd_in in;
    pib_dd_out o;
    pib_ae ae;
    const char *link = NULL, *cc_a, *cc_b;
    int named = 0;

    memset(out, 0, sizeof(*out));
    if (c->root == NULL || pib_dict_cache == NULL
        || !pib_dict_listed(codings)) {
        return;
    }
    memset(&in, 0, sizeof(in));
    pib_client_ae(r, &ae);
    in.dcz_listed = 1;
    in.compressible = compressible;
    in.client_dcz = pib_ae_q(&ae, PIB_CODING_DCZ) > 0;
    in.browser = apr_table_get(r->headers_in, "Sec-Fetch-Dest") != NULL;
    if (in.client_dcz) {
        out->dict = pib_dict_lookup(r, c, &named);
    }
    in.avail_present = named;
    in.avail_ok = in.held = out->dict != NULL;
    in.sec_fetch_site = apr_table_get(r->headers_in, "Sec-Fetch-Site");
    in.cross_site_allowed = c->cross_site;
    apr_table_do(pib_dict_has_cookie, &in.sets_cookie, r->headers_out,
                 "Set-Cookie", "Set-Cookie2", NULL);
    apr_table_do(pib_dict_has_cookie, &in.sets_cookie, r->err_headers_out,
                 "Set-Cookie", "Set-Cookie2", NULL);
    cc_a = apr_table_get(r->headers_out, "Cache-Control");
    cc_b = apr_table_get(r->err_headers_out, "Cache-Control");
    in.cache_control = cc_a && cc_b ? apr_pstrcat(r->pool, cc_a, ", ", cc_b,
                                                  NULL)
                                    : cc_a ? cc_a : cc_b;
    in.req_credentials = apr_table_get(r->headers_in, "Cookie") != NULL
                         || apr_table_get(r->headers_in, "Authorization")
                            != NULL;
    in.fresh = pib_cc_max_age(in.cache_control) > 0;
    in.self_on = in.fresh;          /* only what may become a dictionary
                                     * varies when it names none */
    in.prefix_on = prefix != NULL && strncmp(r->uri, prefix,
                                             strlen(prefix)) == 0;
    if (in.prefix_on && (in.client_dcz || in.browser)) {
        link = pib_dict_link(r, c, prefix);
    }
    in.prefix_has_dict = link != NULL;
    pib_dd_decide(&in, &o);
    if (o.vary) {
        apr_table_mergen(r->headers_out, "Vary", "Available-Dictionary");
    }
    if (o.announce_link) {
        apr_table_addn(r->headers_out, "Link", link);
    }
    out->use_dcz = o.use_dcz;
    out->sample = o.sample && in.prefix_on;
    out->self = o.announce_self && !in.prefix_on;
    out->prefix = prefix;
    if (!out->use_dcz && out->dict != NULL) {
        out->dict = NULL;           /* released with r->pool */
    }
}

void pib_dict_headers(request_rec *r, pib_dict_req *q, int one_pass)
{
    char pattern[PIB_SF_MATCH_MAX + 1], uad[PIB_SF_MATCH_MAX + 64];

    if (!q->self) {
        return;
    }
    if (!one_pass || pib_dd_pattern(r->uri, 0, pattern, sizeof(pattern))
                     == 0
        || pib_sf_format_uad(uad, sizeof(uad), pattern, NULL, NULL) == 0) {
        q->self = 0;
        return;
    }
    apr_table_setn(r->headers_out, "Use-As-Dictionary",
                   apr_pstrdup(r->pool, uad));
}

void pib_dict_body(request_rec *r, const pib_dict_req *q,
                   const unsigned char *body, apr_size_t n)
{
    const pib_dict_conf *c = pib_conf_dict();

    if (q->sample) {
        pib_dict_sample(r, c, q->prefix, body, n);
    }
    if (q->self) {
        pib_dict_keep_self(r, c, body, n);
    }
}

static void pib_dict_child(apr_pool_t *pchild, server_rec *s)
{
    pib_dict_child_init(pchild, s, pib_conf_dict());
}

static int pib_dict_quick(request_rec *r, int lookup)
{
    (void)lookup;
    return pib_dict_serve(r, pib_conf_dict());
}

void pib_dict_register(apr_pool_t *p)
{
    static const char *const before_cache[] = { "mod_cache.c", NULL };

    (void)p;
    ap_hook_child_init(pib_dict_child, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_quick_handler(pib_dict_quick, NULL, before_cache,
                          APR_HOOK_FIRST);
}
