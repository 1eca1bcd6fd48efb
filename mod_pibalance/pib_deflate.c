/* pib_deflate.c -- the PIB_DEFLATE output filter: gzip, br or zstd on
 * the master (the coding: pib_coding_pick(), PiBalanceDeflateCodecs).
 *
 * States (pib_fstate):
 *
 *   undecided --first brigade--> pass      (headers untouched, or only
 *                                           Vary/ETag for HEAD, 304 and
 *                                           clients without gzip)
 *             \-----------------> compress --EOS--> done
 *
 * The decision is pib_should_compress() (pure, pib_decide.c).  The bucket
 * loop hands data, FLUSH, EOS and other metadata to one helper each.
 * Bodies of known length up to PiBalanceDeflateBuffer are buffered and
 * compressed in one pass (Content-Length is then set); anything else
 * streams (chunked).  Which encoder: pib_encoder_pick() (gzip level 1:
 * ISA-L's igzip where built, else libdeflate and zlib).
 * mod_proxy_http passes a FLUSH whenever a read from the node would
 * block -- on a real network, between any two packets -- so a FLUSH reaching a held body is dropped,
 * and only the data ending a long pause (pib_pause_streams) turns the
 * body into a zlib stream, sync-flushed and passed on at once.  A FLUSH
 * of a streamed body is honoured at once.
 *
 * A body that ends early (error bucket from mod_proxy, or fewer bytes
 * than announced) is sync-flushed but never finished: the client gets
 * a gzip stream without its trailer, which no decoder takes as complete.
 *
 * Memory per request: the codec (zlib state, or the buffered body when
 * one-shot) plus at most PIB_PASS_AT bytes of output before it is passed.
 */
#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "util_filter.h"
#include "apr_strings.h"


#include "pi_clock.h"
#include "pib_log.h"
#include "pib_public.h"
#include "pib_ae.h"
#include "pib_decide.h"
#include "pib_codec.h"
#include "pib_coding_table.h"
#include "pib_codec_zstd.h"
#include "pib_deflate.h"
#include "pib_config.h"
#include "pib_upstream.h"
#include "pib_adapt_glue.h"
#include "pib_counts.h"
#include "pib_codings.h"
#include "pib_cache.h"
#include "pib_dict.h"

APLOG_USE_MODULE(pibalance);

#define PIB_PASS_AT (64 * 1024)

typedef enum {
    PIB_FS_UNDECIDED,
    PIB_FS_PASS,
    PIB_FS_COMPRESS,
    PIB_FS_DONE
} pib_fstate;

typedef struct {
    pib_fstate state;
    apr_bucket_brigade *out;    /* compressed, not yet passed */
    apr_size_t out_pending;
    pib_cstream *cs;
    pib_codec_params params;
    apr_off_t expect;           /* announced length, -1 unknown */
    apr_time_t paused_at;       /* a held body's pause began, or 0 */
    int broken;                 /* the body ended early */
    int trickled;               /* held, then streamed after a pause */
    int inm_gzip;               /* a 304 for the client's compressed copy */
    int fastest;                /* adaptive "reduced": fastest encoder */
    pib_coding coding;          /* the coding chosen for this response */
    pib_coding inm_coding;      /* the coding of that copy (its suffix) */
    pib_dict_req dreq;          /* dictionaries (pib_dict.c) */
} pib_fctx;

/* ---- deciding ----------------------------------------------------------- */

typedef struct {
    apr_pool_t *pool;
    const char *acc;
} pib_join;

static int pib_join_cb(void *rec, const char *key, const char *val)
{
    pib_join *j = rec;

    (void)key;
    j->acc = j->acc ? apr_pstrcat(j->pool, j->acc, ", ", val, NULL) : val;
    return 1;
}

/* Every value of a response header, joined; NULL when absent. */
static const char *pib_header_all(request_rec *r, const char *name)
{
    pib_join j = { r->pool, NULL };

    apr_table_do(pib_join_cb, &j, r->headers_out, name, NULL);
    apr_table_do(pib_join_cb, &j, r->err_headers_out, name, NULL);
    return j.acc;
}

/* The announced Content-Length, or the size of a body that is whole in
 * this brigade; -1 when unknown (also for an empty HEAD response). */
static apr_off_t pib_body_length(request_rec *r, apr_bucket_brigade *bb)
{
    const char *cl = apr_table_get(r->headers_out, "Content-Length");
    apr_off_t len = 0;
    apr_bucket *e;
    char *end;

    if (cl != NULL) {
        if (apr_strtoff(&len, cl, &end, 10) == APR_SUCCESS && *end == '\0'
            && len >= 0) {
            return len;
        }
        return -1;
    }
    if (!APR_BUCKET_IS_EOS(APR_BRIGADE_LAST(bb))) {
        return -1;
    }
    for (e = APR_BRIGADE_FIRST(bb); e != APR_BRIGADE_SENTINEL(bb);
         e = APR_BUCKET_NEXT(e)) {
        if (e->length == (apr_size_t)-1) {
            return -1;
        }
        len += (apr_off_t)e->length;
    }
    return (apr_off_t)pib_whole_body_length((long long)len,
                                            r->header_only);
}

/* Does the client's If-None-Match hold this 304's ETag with one of our
 * suffixes (*coding: the copy it revalidates, a row of the coding table)
 * or without one (*plain)?  *coding is PIB_CODING_IDENTITY for neither. */
static void pib_inm_holds(request_rec *r, pib_coding *coding, int *plain)
{
    const char *inm = pib_client_header(r, "If-None-Match");
    const char *etag = apr_table_get(r->headers_out, "ETag");
    apr_size_t n, i;
    char *suffixed;

    *coding = PIB_CODING_IDENTITY;
    *plain = 0;
    if (r->status != HTTP_NOT_MODIFIED || inm == NULL || etag == NULL) {
        return;
    }
    n = strlen(etag) + PIB_ETAG_SUFFIX_MAX + 2;
    suffixed = apr_palloc(r->pool, n);
    for (i = 0; i < PIB_NCODINGS; i++) {
        if (pib_etag_add_suffix_for(etag, pib_coding_rows[i].etag_suffix,
                                    suffixed, n)
            && pib_etag_in_list(inm, suffixed)) {
            *coding = pib_coding_rows[i].coding;
            break;
        }
    }
    *plain = pib_etag_in_list(inm, etag);
}

/* The coding this response would get (pib_coding_pick, the one rule),
 * dcz aside: it needs a dictionary the request names and the master
 * holds, decided after (pib_dict_decide). */
static pib_coding pib_coding_of(request_rec *r, const pib_deflate_conf *conf)
{
    pib_ae ae;

    pib_client_ae(r, &ae);
    ae.q[PIB_CODING_DCZ] = 0;
    return pib_coding_pick(&ae, apr_table_get(r->subprocess_env, "no-gzip")
                                != NULL, conf->codings);
}

static pib_verdict pib_judge(request_rec *r, const pib_deflate_conf *conf,
                             apr_off_t length, int level, pib_fctx *ctx)
{
    const char *enc = pib_header_all(r, "Content-Encoding");
    pib_policy pol;
    pib_resp resp;

    if (r->content_encoding != NULL) {
        enc = enc ? apr_pstrcat(r->pool, enc, ", ", r->content_encoding,
                                NULL) : r->content_encoding;
    }
    resp.status = r->status;
    resp.subrequest = r->main != NULL;
    resp.content_type = r->content_type;
    resp.content_encoding = enc;
    resp.content_range = apr_table_get(r->headers_out, "Content-Range");
    resp.cache_control = pib_header_all(r, "Cache-Control");
    resp.length = (long long)length;
    resp.client_gzip = ctx->coding != PIB_CODING_IDENTITY;
    resp.paused = level == 0;
    pib_inm_holds(r, &ctx->inm_coding, &resp.inm_plain);
    resp.inm_gzip = ctx->inm_coding != PIB_CODING_IDENTITY;
    ctx->inm_gzip = resp.inm_gzip;
    pol.types = (const char *const *)conf->types->elts;
    pol.ntypes = (size_t)conf->types->nelts;
    pol.min_length = conf->min_length;
    return pib_should_compress(&resp, &pol);
}

static void pib_suffix_etag(request_rec *r, pib_coding coding)
{
    const char *etag = apr_table_get(r->headers_out, "ETag");
    apr_size_t n;
    char *out;

    if (etag == NULL) {
        return;
    }
    n = strlen(etag) + PIB_ETAG_SUFFIX_MAX + 2;
    out = apr_palloc(r->pool, n);
    if (pib_etag_add_suffix_for(etag, pib_etag_suffix(coding), out, n)) {
        apr_table_setn(r->headers_out, "ETag", out);
    }
}

/* The node's digests describe its identity bytes: Content-Digest the
 * content, Repr-Digest the representation (RFC 9530), whose content
 * coding we change; Digest (RFC 3230) the instance, coding included;
 * Content-MD5 the body.  None is true of a compressed body: they go. */
static void pib_drop_digests(request_rec *r)
{
    static const char *const names[] = {
        "Content-Digest", "Repr-Digest", "Digest", "Content-MD5"
    };
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        apr_table_unset(r->headers_out, names[i]);
        apr_table_unset(r->err_headers_out, names[i]);
    }
}

static void pib_set_coding_headers(request_rec *r, pib_coding coding)
{
    const char *token = pib_coding_token(coding);

    apr_table_unset(r->err_headers_out, "Content-Encoding");
    apr_table_setn(r->headers_out, "Content-Encoding", token);
    r->content_encoding = token;
    apr_table_unset(r->headers_out, "Content-Length");
    pib_drop_digests(r);
    pib_suffix_etag(r, coding);
    /* The bytes differ with level, codec and flush points under one
     * strong ETag: no range is ever cut from them.  The master's own
     * byterange filter (after us) sees no Range, as mod_filter does for
     * a filter declared byteranges=no. */
    apr_table_setn(r->headers_out, "Accept-Ranges", "none");
    apr_table_unset(r->err_headers_out, "Accept-Ranges");
}

static apr_status_t pib_codec_cleanup(void *data)
{
    pib_cstream *cs = data;

    cs->codec->end(cs);
    return APR_SUCCESS;
}

static void pib_emit_bucket(void *baton, const unsigned char *p, size_t n)
{
    pib_fctx *ctx = baton;
    apr_bucket *b = apr_bucket_heap_create((const char *)p, n, NULL,
                                           ctx->out->bucket_alloc);

    APR_BRIGADE_INSERT_TAIL(ctx->out, b);
    ctx->out_pending += n;
}

/* Output that lives until the codec's end(), which pib_on_eos calls only
 * after passing it on: a transient bucket, which a filter that keeps it
 * longer copies (apr_bucket_setaside), so the usual case copies none. */
static void pib_emit_transient(void *baton, const unsigned char *p, size_t n)
{
    pib_fctx *ctx = baton;
    apr_bucket *b = apr_bucket_transient_create((const char *)p, n,
                                                ctx->out->bucket_alloc);

    APR_BRIGADE_INSERT_TAIL(ctx->out, b);
    ctx->out_pending += n;
}

/* Picks one-shot or streaming for the chosen coding and sets the codec
 * up. */
static int pib_codec_start(request_rec *r, pib_fctx *ctx,
                           const pib_deflate_conf *conf, int level)
{
    int one_pass = pib_choose_codec((long long)ctx->expect,
                                    (long long)conf->buffer)
                   == PIB_CODEC_ONE_PASS;
    pib_encoder enc;
    const pib_codec *codec;

    if (pib_encoder_pick(ctx->coding, level, ctx->fastest, one_pass, &enc)
        != 0) {
        return 0;
    }
    codec = enc.row;
    level = enc.level;
    ctx->params.level = level;
    ctx->params.window_bits = conf->window_bits;
    ctx->params.mem_level = conf->mem_level;
    ctx->params.expect = one_pass ? (size_t)ctx->expect : 0;
    ctx->cs = apr_palloc(r->pool, sizeof(*ctx->cs));
    if (pib_cstream_init(ctx->cs, codec, &ctx->params, pib_emit_bucket,
                         ctx) != 0) {
        ctx->cs->codec->end(ctx->cs);
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, PIBLOGNO(10100)
                      "deflate: cannot set up %s (level %d): sending "
                      "identity", codec->name, level);
        return 0;
    }
    ctx->cs->emit_held = pib_emit_transient;
    apr_pool_cleanup_register(r->pool, ctx->cs, pib_codec_cleanup,
                              apr_pool_cleanup_null);
    return 1;
}

/* Headers only (HEAD, 304): what the GET would carry. */
static void pib_headers_only(request_rec *r, const pib_fctx *ctx)
{
    if (r->status == HTTP_NOT_MODIFIED) {
        if (ctx->inm_gzip) {
            pib_drop_digests(r);
            /* the client holds a compressed copy: its coding's tag */
            pib_suffix_etag(r, ctx->inm_coding);
        }
        return;
    }
    pib_set_coding_headers(r, ctx->coding); /* no length: it is unknown */
}

/* The first brigade (state undecided): the one decision of the filter,
 * pib_judge(), made once. */
static pib_fstate pib_on_start(ap_filter_t *f, pib_fctx *ctx,
                               apr_bucket_brigade *bb)
{
    request_rec *r = f->r;
    const pib_deflate_conf *conf = pib_conf_deflate(r);
    pib_adapt_state st;
    int level;
    pib_verdict v;

    /* the adaptive rule's steps are each coding's own: full is its
     * configured level, reduced its fastest encoder (pib_encoder_pick),
     * off none */
    ctx->coding = pib_coding_of(r, conf);
    st = pib_adapt_state_now(r->server);
    level = pib_adapt_level(st, pib_codings_level(conf->codings,
                                                  ctx->coding, conf->level));
    ctx->fastest = st == PIB_ADAPT_LOW;
    if (ctx->coding == PIB_CODING_GZIP) {   /* PiBalanceDeflateStoreLevel */
        int stored = pib_cache_level(r, level);

        ctx->fastest = ctx->fastest && stored == level;
        level = stored;
    }
    ctx->expect = pib_body_length(r, bb);
    v = pib_judge(r, conf, ctx->expect, level, ctx);
    apr_table_setn(r->notes, "pibalance-deflate", pib_verdict_name(v));
    ap_log_rerror(APLOG_MARK, APLOG_TRACE1, 0, r, "deflate: %s (status "
                  "%d, length %" APR_OFF_T_FMT ", %s level %d)",
                  pib_verdict_name(v), r->status, ctx->expect,
                  pib_coding_token(ctx->coding) ? pib_coding_token(
                      ctx->coding) : "identity", level);
    if (v < PIB_DEC_VARY_ONLY) {
        return PIB_FS_PASS;
    }
    apr_table_mergen(r->headers_out, "Vary", "Accept-Encoding");
    pib_dict_decide(r, conf->codings, conf->dict_prefix,
                    v == PIB_DEC_COMPRESS && !r->header_only
                    && r->status == HTTP_OK, &ctx->dreq);
    if (ctx->dreq.use_dcz) {
        ctx->coding = PIB_CODING_DCZ;
        level = pib_adapt_level_now(pib_codings_level(conf->codings,
                                                      PIB_CODING_DCZ,
                                                      conf->level),
                                    r->server);
        ctx->params.dict = ctx->dreq.dict;
    }
    if (v == PIB_DEC_VARY_ONLY) {
        return PIB_FS_PASS;
    }
    if (r->header_only || r->status == HTTP_NOT_MODIFIED) {
        pib_headers_only(r, ctx);
        return PIB_FS_PASS;
    }
    if (level == 0 && ctx->coding == PIB_CODING_DCZ) {
        level = 1;                  /* paused: dcz is cheaper than none */
    }
    if (!pib_codec_start(r, ctx, conf, level)) {
        return PIB_FS_PASS;
    }
    pib_dict_headers(r, &ctx->dreq, PIB_CODEC_ONE_PASS_ROW(ctx->cs->codec));
    pib_set_coding_headers(r, ctx->coding);
    apr_table_unset(r->headers_in, "Range");  /* see pib_set_coding_headers */
    return PIB_FS_COMPRESS;
}

/* ---- compressing -------------------------------------------------------- */

static apr_status_t pib_pass_out(ap_filter_t *f, pib_fctx *ctx)
{
    apr_status_t rv = ap_pass_brigade(f->next, ctx->out);

    apr_brigade_cleanup(ctx->out);
    ctx->out_pending = 0;
    return rv;
}

static apr_status_t pib_codec_failed(ap_filter_t *f, const char *what)
{
    ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, f->r, PIBLOGNO(10101)
                  "deflate: %s failed; response truncated", what);
    return APR_EGENERAL;
}

/* Everything so far goes out, decodable; switches one-shot to zlib. */
static int pib_sync(pib_fctx *ctx)
{
    if (pib_cstream_to_stream(ctx->cs, &ctx->params) != 0) {
        return -1;
    }
    return ctx->cs->codec->flush(ctx->cs);
}

static apr_status_t pib_on_data(ap_filter_t *f, pib_fctx *ctx,
                                apr_bucket *e)
{
    pib_cstream *cs = ctx->cs;
    const char *data;
    apr_size_t len;
    apr_status_t rv = apr_bucket_read(e, &data, &len, APR_BLOCK_READ);
    int trickled = 0;

    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (len > 0 && ctx->paused_at != 0) {
        /* the end of a pause in a held body */
        trickled = pib_pause_streams(pi_mono_us() - ctx->paused_at,
                                     cs->in_bytes, len, ctx->expect);
        ctx->paused_at = 0;
    }
    if (len > 0 && cs->codec->add(cs, (const unsigned char *)data, len)) {
        /* one-shot refuses more than announced: stream instead */
        if (pib_cstream_to_stream(cs, &ctx->params) != 0
            || cs->codec->add(cs, (const unsigned char *)data, len) != 0) {
            return pib_codec_failed(f, "compressing");
        }
    }
    apr_bucket_delete(e);
    if (trickled) {
        ctx->trickled = 1;
        if (pib_sync(ctx) != 0) {
            return pib_codec_failed(f, "flushing");
        }
        return pib_pass_out(f, ctx);
    }
    return ctx->out_pending >= PIB_PASS_AT ? pib_pass_out(f, ctx)
                                           : APR_SUCCESS;
}

static apr_status_t pib_on_flush(ap_filter_t *f, pib_fctx *ctx,
                                 apr_bucket *e)
{
    if (PIB_CODEC_ONE_PASS_ROW(ctx->cs->codec)) {
        ctx->paused_at = pi_mono_us();    /* see pib_on_data */
        apr_bucket_delete(e);
        return APR_SUCCESS;
    }
    if (pib_sync(ctx) != 0) {
        return pib_codec_failed(f, "flushing");
    }
    APR_BUCKET_REMOVE(e);
    APR_BRIGADE_INSERT_TAIL(ctx->out, e);
    return pib_pass_out(f, ctx);
}

static apr_status_t pib_on_metadata(ap_filter_t *f, pib_fctx *ctx,
                                    apr_bucket *e)
{
    if (AP_BUCKET_IS_ERROR(e) && !ctx->broken) {
        /* mod_proxy: the backend broke.  What was decodable goes out
         * first, as it would without us: the client sees a truncated
         * response, not an error page in place of the body. */
        apr_status_t rv;

        ctx->broken = 1;
        if (pib_sync(ctx) != 0) {
            return pib_codec_failed(f, "flushing");
        }
        if ((rv = pib_pass_out(f, ctx)) != APR_SUCCESS) {
            return rv;
        }
    }
    APR_BUCKET_REMOVE(e);
    APR_BRIGADE_INSERT_TAIL(ctx->out, e);
    return APR_SUCCESS;
}

static void pib_set_notes(request_rec *r, const pib_cstream *cs)
{
    apr_uint64_t in = cs->in_bytes, out = cs->out_bytes;

    apr_table_setn(r->notes, PIB_NOTE_DEFLATE_IN,
                   apr_psprintf(r->pool, "%" APR_UINT64_T_FMT, in));
    apr_table_setn(r->notes, PIB_NOTE_DEFLATE_OUT,
                   apr_psprintf(r->pool, "%" APR_UINT64_T_FMT, out));
    if (in > 0) {
        apr_table_setn(r->notes, PIB_NOTE_DEFLATE_RATIO,
                       apr_psprintf(r->pool, "%" APR_UINT64_T_FMT,
                                    out * 100 / in));
    }
    apr_table_setn(r->notes, "pibalance-deflate-codec", cs->codec->name);
}

/* A complete body gets its trailer (and a length when one-shot); a short
 * one only what was decodable. */
static int pib_end_stream(request_rec *r, pib_fctx *ctx)
{
    pib_cstream *cs = ctx->cs;
    int oneshot = PIB_CODEC_ONE_PASS_ROW(cs->codec);

    if (ctx->broken || r->connection->aborted
        || (ctx->expect >= 0 && cs->in_bytes != (apr_uint64_t)ctx->expect)) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, PIBLOGNO(10102)
                      "deflate: body ended early after %" APR_UINT64_T_FMT
                      " bytes: %s stream left unfinished",
                      (apr_uint64_t)cs->in_bytes, cs->codec->coding);
        return pib_sync(ctx);
    }
    if (cs->codec->finish(cs) != 0) {
        if (!oneshot || pib_cstream_to_stream(cs, &ctx->params) != 0
            || cs->codec->finish(cs) != 0) {
            return -1;
        }
        oneshot = 0;
    }
    if (oneshot) {
        ap_set_content_length(r, (apr_off_t)cs->out_bytes);
    }
    return 0;
}

/* The server-wide counters: per coding, and how gzip went (one pass
 * through libdeflate, or streamed through zlib: those counted gzip only
 * before other codings existed, and still do). */
static void pib_count_end(const pib_fctx *ctx)
{
    const pib_coding_row *row = pib_coding_row_of(ctx->coding);

    if (row != NULL) {
        pib_count_coding(row->counter, ctx->cs->in_bytes,
                         ctx->cs->out_bytes);
    }
    if (ctx->coding != PIB_CODING_GZIP) {
        return;
    }
    if (PIB_CODEC_ONE_PASS_ROW(ctx->cs->codec)) {
        pib_count(PIB_CNT_ONE_PASS);
    }
    else {
        pib_count(PIB_CNT_STREAMED);
        if (ctx->trickled) {
            pib_count(PIB_CNT_TRICKLED);
        }
    }
}

static apr_status_t pib_on_eos(ap_filter_t *f, pib_fctx *ctx, apr_bucket *e)
{
    apr_status_t rv;
    int rc;

    /* A dictionary's sample: the whole body, where the row held it (an
     * igzip one-pass row holds none: no sample from it). */
    if ((ctx->dreq.sample || ctx->dreq.self)
        && PIB_CODEC_ONE_PASS_ROW(ctx->cs->codec) && !ctx->broken
        && ctx->cs->buf != NULL && ctx->cs->len == ctx->cs->in_bytes) {
        pib_dict_body(f->r, &ctx->dreq, ctx->cs->buf, ctx->cs->len);
    }
    rc = pib_end_stream(f->r, ctx);

    pib_set_notes(f->r, ctx->cs);
    pib_count_end(ctx);
    ctx->state = PIB_FS_DONE;
    if (rc != 0) {
        ctx->cs->codec->end(ctx->cs);
        return pib_codec_failed(f, "finishing");
    }
    APR_BUCKET_REMOVE(e);
    APR_BRIGADE_INSERT_TAIL(ctx->out, e);
    rv = pib_pass_out(f, ctx);
    ctx->cs->codec->end(ctx->cs);   /* after: the output may be transient */
    return rv;
}

static apr_status_t pib_compress(ap_filter_t *f, pib_fctx *ctx,
                                 apr_bucket_brigade *bb)
{
    apr_status_t rv = APR_SUCCESS;

    while (rv == APR_SUCCESS && !APR_BRIGADE_EMPTY(bb)
           && ctx->state == PIB_FS_COMPRESS) {
        apr_bucket *e = APR_BRIGADE_FIRST(bb);

        if (APR_BUCKET_IS_EOS(e)) {
            rv = pib_on_eos(f, ctx, e);
        }
        else if (APR_BUCKET_IS_FLUSH(e)) {
            rv = pib_on_flush(f, ctx, e);
        }
        else if (APR_BUCKET_IS_METADATA(e)) {
            rv = pib_on_metadata(f, ctx, e);
        }
        else {
            rv = pib_on_data(f, ctx, e);
        }
    }
    apr_brigade_cleanup(bb);        /* anything after EOS, or on error */
    return rv;
}

static apr_status_t pib_deflate_filter(ap_filter_t *f,
                                       apr_bucket_brigade *bb)
{
    pib_fctx *ctx = f->ctx;

    if (APR_BRIGADE_EMPTY(bb)) {
        return APR_SUCCESS;
    }
    if (ctx == NULL) {
        f->ctx = ctx = apr_pcalloc(f->r->pool, sizeof(*ctx));
        ctx->state = PIB_FS_UNDECIDED;
    }
    if (ctx->state == PIB_FS_UNDECIDED) {
        ctx->state = pib_on_start(f, ctx, bb);
        if (ctx->state == PIB_FS_COMPRESS) {
            ctx->out = apr_brigade_create(f->r->pool, f->c->bucket_alloc);
        }
    }
    if (ctx->state != PIB_FS_COMPRESS) {
        ap_remove_output_filter(f);
        return ap_pass_brigade(f->next, bb);
    }
    return pib_compress(f, ctx, bb);
}

static void pib_deflate_insert(request_rec *r)
{
    const pib_deflate_conf *conf = pib_conf_deflate(r);

    if (conf != NULL && conf->enabled == 1) {
        ap_add_output_filter(PIB_DEFLATE_FILTER, NULL, r, r->connection);
    }
}

static int pib_deflate_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                                   apr_pool_t *ptemp, server_rec *s)
{
    (void)pconf;
    (void)plog;
    (void)ptemp;
    pib_conf_fixup_main(s);
    return OK;
}

void pib_deflate_register(apr_pool_t *p)
{
    (void)p;
    ap_hook_post_config(pib_deflate_post_config, NULL, NULL,
                        APR_HOOK_MIDDLE);
    ap_register_output_filter(PIB_DEFLATE_FILTER, pib_deflate_filter, NULL,
                              AP_FTYPE_CONTENT_SET);
    ap_hook_insert_filter(pib_deflate_insert, NULL, NULL, APR_HOOK_MIDDLE);
}
