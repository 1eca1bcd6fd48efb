/* pib_codec.c -- gzip encoders as a table of functions (pure).
 *
 * Why two: on one x86 core and the ~50 KB phpinfo page, libdeflate level 1
 * is ~2.4x faster than zlib level 1 and its output is smaller, but it has
 * no streaming API.  So whole bodies of known length go to libdeflate in
 * one call, and everything that streams goes to zlib.
 *
 * Memory: zlib's deflate state is (1 << (window_bits + 2)) +
 * (1 << (mem_level + 9)) bytes (256 KiB at 15/8) plus PIB_CODEC_OUTBUF;
 * oneshot holds the body (at most PiBalanceDeflateBuffer) plus its
 * compressed bound.  The compressors and buffers oneshot uses are kept
 * and reused: pib_pool.c says why and what that costs.
 */
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "pib_codec.h"
#include "pib_coding_table.h"

void pib_cstream_emit(pib_cstream *s, const unsigned char *p, size_t n)
{
    if (n > 0) {
        s->out_bytes += n;
        s->emit(s->baton, p, n);
    }
}

void pib_cstream_emit_held(pib_cstream *s, const unsigned char *p,
                           size_t n)
{
    if (n > 0) {
        s->out_bytes += n;
        (s->emit_held != NULL ? s->emit_held : s->emit)(s->baton, p, n);
    }
}

/* ---- zlib: streaming gzip ---------------------------------------------- */

static int pib_zlib_init(pib_cstream *s, const pib_codec_params *p)
{
    memset(&s->z, 0, sizeof(s->z));
    /* libdeflate goes to 12 (PiBalanceDeflateStoreLevel), zlib to 9 */
    if (deflateInit2(&s->z, p->level > 9 && p->level <= 12 ? 9 : p->level,
                     Z_DEFLATED, p->window_bits + 16,
                     p->mem_level, Z_DEFAULT_STRATEGY) != Z_OK) {
        return -1;
    }
    s->z_live = 1;
    s->z.next_out = s->out;
    s->z.avail_out = sizeof(s->out);
    return 0;
}

/* Runs deflate(mode) until it needs more input (or, for Z_FINISH, until
 * the stream ends), emitting every full output buffer. */
static int pib_zlib_run(pib_cstream *s, int mode)
{
    for (;;) {
        int rc = deflate(&s->z, mode);

        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
            return -1;
        }
        if (s->z.avail_out == 0) {
            pib_cstream_emit(s, s->out, sizeof(s->out));
            s->z.next_out = s->out;
            s->z.avail_out = sizeof(s->out);
            continue;               /* there may be more pending */
        }
        if (mode == Z_FINISH ? rc == Z_STREAM_END : s->z.avail_in == 0) {
            return 0;
        }
    }
}

/* Emits what sits in the output buffer. */
static void pib_zlib_drain(pib_cstream *s)
{
    pib_cstream_emit(s, s->out, sizeof(s->out) - s->z.avail_out);
    s->z.next_out = s->out;
    s->z.avail_out = sizeof(s->out);
}

static int pib_zlib_add(pib_cstream *s, const unsigned char *in, size_t n)
{
    while (n > 0) {
        uInt chunk = n > 0x40000000u ? 0x40000000u : (uInt)n;

        s->z.next_in = (Bytef *)in;
        s->z.avail_in = chunk;
        if (pib_zlib_run(s, Z_NO_FLUSH) != 0) {
            return -1;
        }
        s->in_bytes += chunk;
        in += chunk;
        n -= chunk;
    }
    return 0;
}

static int pib_zlib_flush(pib_cstream *s)
{
    s->z.avail_in = 0;
    if (pib_zlib_run(s, Z_SYNC_FLUSH) != 0) {
        return -1;
    }
    pib_zlib_drain(s);
    return 0;
}

static int pib_zlib_finish(pib_cstream *s)
{
    s->z.avail_in = 0;
    if (pib_zlib_run(s, Z_FINISH) != 0) {
        return -1;
    }
    pib_zlib_drain(s);
    return 0;
}

static void pib_zlib_end(pib_cstream *s)
{
    if (s->z_live) {
        deflateEnd(&s->z);
        s->z_live = 0;
    }
}

const pib_codec pib_codec_zlib = {
    "zlib", pib_zlib_init, pib_zlib_add, pib_zlib_flush, pib_zlib_finish,
    pib_zlib_end, NULL, "gzip"
};

int pib_held_init(pib_cstream *s, const pib_codec_params *p)
{
    size_t cap;

    s->len = 0;
    s->buf = pib_buf_take(p->expect, &cap);
    s->cap = p->expect;                 /* refuse more than announced */
    s->buf_cap = cap;
    s->level = p->level;
    return s->buf != NULL ? 0 : -1;
}

/* Refuses (-1) more than the announced length: the caller then switches
 * to streaming with pib_cstream_to_stream(). */
int pib_held_add(pib_cstream *s, const unsigned char *in, size_t n)
{
    if (n > s->cap - s->len) {
        return -1;
    }
    memcpy(s->buf + s->len, in, n);
    s->len += n;
    s->in_bytes += n;
    return 0;
}

int pib_held_flush(pib_cstream *s)
{
    (void)s;
    return -1;                      /* no such thing: stream instead */
}

static int pib_one_finish(pib_cstream *s)
{
    struct libdeflate_compressor *c = pib_ld_take(s->level);
    size_t bound, n, out_cap;
    unsigned char *out;

    if (c == NULL) {
        return -1;
    }

    bound = libdeflate_gzip_compress_bound(c, s->len);
    out = pib_buf_take(bound, &out_cap);
    if (out == NULL) {
        pib_ld_put(c, s->level);
        return -1;
    }
    n = libdeflate_gzip_compress(c, s->buf, s->len, out, bound);
    pib_ld_put(c, s->level);
    if (n == 0) {
        pib_buf_put(out, out_cap);
        return -1;
    }
    pib_held_give(s, out, n, out_cap);
    return 0;
}

void pib_held_give(pib_cstream *s, unsigned char *out, size_t n,
                   size_t out_cap)
{
    pib_buf_put(s->held_out, s->held_out_cap);     /* none, normally */
    s->held_out = out;
    s->held_out_cap = out_cap;
    pib_cstream_emit_held(s, out, n);
}

void pib_held_end(pib_cstream *s)
{
    pib_buf_put(s->buf, s->buf_cap);
    s->buf = NULL;
    s->len = s->cap = s->buf_cap = 0;
    pib_buf_put(s->held_out, s->held_out_cap);
    s->held_out = NULL;
    s->held_out_cap = 0;
}

const pib_codec pib_codec_oneshot = {
    "oneshot", pib_held_init, pib_held_add, pib_held_flush, pib_one_finish,
    pib_held_end, &pib_codec_zlib, "gzip"
};

const pib_codec *pib_codec_for(pib_coding c, int one_pass)
{
    const pib_coding_row *row = pib_coding_row_of(c);

    return row == NULL ? NULL : one_pass ? row->one_pass : row->stream;
}

int pib_encoder_pick(pib_coding c, int level, int fastest, int one_pass,
                     pib_encoder *e)
{
    const pib_codec *row = pib_codec_for(c, one_pass);

    if (row == NULL) {
        return -1;
    }
    e->row = row;
    e->level = fastest ? 1 : level;
    switch (c) {
    case PIB_CODING_GZIP:
        if ((fastest || level == 1) && pib_codec_igzip(one_pass) != NULL) {
            e->row = pib_codec_igzip(one_pass);
            e->level = fastest ? 0 : 1;
        }
        break;
    case PIB_CODING_ZSTD:
        if (fastest) {
            e->level = -1;
        }
        break;
    default:
        break;
    }
    return 0;
}

/* ---- the stream --------------------------------------------------------- */

int pib_cstream_init(pib_cstream *s, const pib_codec *codec,
                     const pib_codec_params *p, pib_emit_fn emit,
                     void *baton)
{
    s->codec = codec;
    s->emit = emit;
    s->emit_held = NULL;
    s->baton = baton;
    s->in_bytes = s->out_bytes = 0;
    s->z_live = 0;
    s->enc = NULL;
    s->buf = NULL;
    s->len = s->cap = s->buf_cap = 0;
    s->held_out = NULL;
    s->held_out_cap = 0;
    return codec->init(s, p);
}

int pib_cstream_to_stream(pib_cstream *s, const pib_codec_params *p)
{
    unsigned char *held = s->buf;
    size_t n = s->len, held_cap = s->buf_cap;
    const pib_codec *to = s->codec->stream;
    int rc;

    if (to == NULL) {
        return 0;
    }
    s->buf = NULL;
    s->len = s->cap = s->buf_cap = 0;
    s->codec = to;
    s->in_bytes = 0;
    rc = to->init(s, p);
    if (rc == 0 && n > 0) {
        rc = to->add(s, held, n);
    }
    pib_buf_put(held, held_cap);
    return rc;
}
