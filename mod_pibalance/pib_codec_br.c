/* pib_codec_br.c -- brotli (RFC 7932) rows of the codec table (pure).
 *
 * Streaming: BrotliEncoderCompressStream with OPERATION_PROCESS for data,
 * OPERATION_FLUSH for a FLUSH (everything so far becomes decodable),
 * OPERATION_FINISH at the end.  One pass: the body is held (pib_held_*)
 * and compressed by BrotliEncoderCompress.
 *
 * Window: 2^18 (256 KiB), mod_brotli's default; brotli's own default
 * (2^22) costs the master 16 times the window memory for no gain on
 * pages of a few hundred KB.  Mode TEXT: we compress text types.
 *
 * Not pooled, unlike zlib's and zstd's states: libbrotlienc (1.0.9, the
 * Debian 12 one) has no way to reset an encoder for a new stream, so one
 * is made per streamed response and freed with it.  Memory per
 * response: the encoder (quality 4, window 2^18: ~1 MiB) plus
 * PIB_CODEC_OUTBUF, or the held body and its compressed bound.
 */
#include <string.h>

#include <brotli/encode.h>

#include "pib_codec.h"

#define PIB_BR_LGWIN 18

static int pib_br_init(pib_cstream *s, const pib_codec_params *p)
{
    BrotliEncoderState *e = BrotliEncoderCreateInstance(NULL, NULL, NULL);

    if (e == NULL) {
        return -1;
    }
    s->enc = e;
    if (!BrotliEncoderSetParameter(e, BROTLI_PARAM_QUALITY,
                                   (uint32_t)p->level)
        || !BrotliEncoderSetParameter(e, BROTLI_PARAM_LGWIN, PIB_BR_LGWIN)
        || !BrotliEncoderSetParameter(e, BROTLI_PARAM_MODE,
                                      BROTLI_MODE_TEXT)) {
        return -1;
    }
    return 0;
}

/* Runs the encoder over in[0..n) with op, emitting each full output
 * buffer, until the input is used up and nothing is left to write. */
static int pib_br_run(pib_cstream *s, const unsigned char *in, size_t n,
                      BrotliEncoderOperation op)
{
    BrotliEncoderState *e = s->enc;
    const uint8_t *next_in = in;
    size_t avail_in = n;

    for (;;) {
        uint8_t *next_out = s->out;
        size_t avail_out = sizeof(s->out);

        if (!BrotliEncoderCompressStream(e, op, &avail_in, &next_in,
                                         &avail_out, &next_out, NULL)) {
            return -1;
        }
        pib_cstream_emit(s, s->out, sizeof(s->out) - avail_out);
        if (avail_in == 0 && !BrotliEncoderHasMoreOutput(e)
            && (op != BROTLI_OPERATION_FINISH
                || BrotliEncoderIsFinished(e))) {
            return 0;
        }
    }
}

static int pib_br_add(pib_cstream *s, const unsigned char *in, size_t n)
{
    if (pib_br_run(s, in, n, BROTLI_OPERATION_PROCESS) != 0) {
        return -1;
    }
    s->in_bytes += n;
    return 0;
}

static int pib_br_flush(pib_cstream *s)
{
    return pib_br_run(s, NULL, 0, BROTLI_OPERATION_FLUSH);
}

static int pib_br_finish(pib_cstream *s)
{
    return pib_br_run(s, NULL, 0, BROTLI_OPERATION_FINISH);
}

static void pib_br_end(pib_cstream *s)
{
    if (s->enc != NULL) {
        BrotliEncoderDestroyInstance(s->enc);
        s->enc = NULL;
    }
}

const pib_codec pib_codec_br = {
    "br", pib_br_init, pib_br_add, pib_br_flush, pib_br_finish, pib_br_end,
    NULL, "br"
};

/* ---- one pass ----------------------------------------------------------- */

static int pib_br_one_finish(pib_cstream *s)
{
    size_t bound = BrotliEncoderMaxCompressedSize(s->len), out_cap, n;
    unsigned char *out;
    int ok;

    if (bound == 0) {
        return -1;                  /* too large for brotli's bound */
    }
    out = pib_buf_take(bound, &out_cap);
    if (out == NULL) {
        return -1;
    }
    n = bound;
    ok = BrotliEncoderCompress(s->level, PIB_BR_LGWIN, BROTLI_MODE_TEXT,
                               s->len, s->buf, &n, out);
    if (!ok) {
        pib_buf_put(out, out_cap);
        return -1;
    }
    pib_held_give(s, out, n, out_cap);
    return 0;
}

const pib_codec pib_codec_br_oneshot = {
    "br-oneshot", pib_held_init, pib_held_add, pib_held_flush,
    pib_br_one_finish, pib_held_end, &pib_codec_br, "br"
};
