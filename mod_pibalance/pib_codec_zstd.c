/* pib_codec_zstd.c -- zstd (RFC 8878) rows of the codec table (pure).
 *
 * Streaming: ZSTD_compressStream2 with ZSTD_e_continue for data,
 * ZSTD_e_flush for a FLUSH (everything so far becomes decodable: the
 * current block is closed), ZSTD_e_end for the frame's end.  One pass:
 * the body is held (pib_held_*) and compressed by ZSTD_compress2, which
 * also writes the content size in the frame header.
 *
 * Compression contexts are reused: making one costs more than
 * compressing a small page (it allocates its tables on first use, ~1.2
 * MiB at level 3 with a 128 KiB input), and ZSTD_CCtx_reset() makes a
 * used one as good as new.  A process keeps at most PIB_ZSTD_IDLE_MAX
 * idle ones (a burst of more concurrent responses makes and frees the
 * extra); pib_zstd_drain() frees them at child exit.  Memory per
 * response: one context (its window grows to the body, at most 2^21 at
 * level 3, 2^23 at 19 -- the 8 MiB browsers decode) plus
 * PIB_CODEC_OUTBUF, or the held body and its compressed bound.
 */
#include <pthread.h>
#include <string.h>

#include <zstd.h>

#include "pib_codec.h"
#include "pib_codec_zstd.h"

/* ---- the context pool ------------------------------------------------- */

static pthread_mutex_t pib_zstd_mutex = PTHREAD_MUTEX_INITIALIZER;
static ZSTD_CCtx *pib_zstd_idle[PIB_ZSTD_IDLE_MAX];
static unsigned pib_zstd_nidle;
static unsigned long pib_zstd_nlive;

ZSTD_CCtx *pib_zstd_take(int level, long long pledged)
{
    ZSTD_CCtx *c = NULL;

    pthread_mutex_lock(&pib_zstd_mutex);
    if (pib_zstd_nidle > 0) {
        c = pib_zstd_idle[--pib_zstd_nidle];
    }
    pthread_mutex_unlock(&pib_zstd_mutex);
    if (c == NULL) {
        if ((c = ZSTD_createCCtx()) == NULL) {
            return NULL;
        }
        pthread_mutex_lock(&pib_zstd_mutex);
        pib_zstd_nlive++;
        pthread_mutex_unlock(&pib_zstd_mutex);
    }
    ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
    if (ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel,
                                            level))
        || ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1))
        || (pledged >= 0
            && ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(
                   c, (unsigned long long)pledged)))) {
        pib_zstd_put(c);
        return NULL;
    }
    return c;
}

void pib_zstd_put(ZSTD_CCtx *c)
{
    if (c == NULL) {
        return;
    }
    pthread_mutex_lock(&pib_zstd_mutex);
    if (pib_zstd_nidle < PIB_ZSTD_IDLE_MAX) {
        pib_zstd_idle[pib_zstd_nidle++] = c;
        c = NULL;
    }
    else {
        pib_zstd_nlive--;
    }
    pthread_mutex_unlock(&pib_zstd_mutex);
    ZSTD_freeCCtx(c);               /* NULL is fine */
}

void pib_zstd_drain(void)
{
    pthread_mutex_lock(&pib_zstd_mutex);
    while (pib_zstd_nidle > 0) {
        ZSTD_freeCCtx(pib_zstd_idle[--pib_zstd_nidle]);
        pib_zstd_nlive--;
    }
    pthread_mutex_unlock(&pib_zstd_mutex);
}

void pib_zstd_counts(unsigned long *live, unsigned long *idle)
{
    pthread_mutex_lock(&pib_zstd_mutex);
    *live = pib_zstd_nlive;
    *idle = pib_zstd_nidle;
    pthread_mutex_unlock(&pib_zstd_mutex);
}

/* ---- streaming ---------------------------------------------------------- */

static int pib_zstd_init(pib_cstream *s, const pib_codec_params *p)
{
    s->enc = pib_zstd_take(p->level, -1);
    return s->enc != NULL ? 0 : -1;
}

/* Runs the encoder over in[0..n) with op, emitting each full output
 * buffer, until the input is used up and (for flush and end) the
 * encoder has nothing left to write. */
static int pib_zstd_run(pib_cstream *s, const unsigned char *in, size_t n,
                        ZSTD_EndDirective op)
{
    ZSTD_inBuffer ib = { in, n, 0 };

    for (;;) {
        ZSTD_outBuffer ob = { s->out, sizeof(s->out), 0 };
        size_t left = ZSTD_compressStream2(s->enc, &ob, &ib, op);

        if (ZSTD_isError(left)) {
            return -1;
        }
        pib_cstream_emit(s, s->out, ob.pos);
        if (op == ZSTD_e_continue ? ib.pos == ib.size : left == 0) {
            return 0;
        }
    }
}

static int pib_zstd_add(pib_cstream *s, const unsigned char *in, size_t n)
{
    if (pib_zstd_run(s, in, n, ZSTD_e_continue) != 0) {
        return -1;
    }
    s->in_bytes += n;
    return 0;
}

static int pib_zstd_flush(pib_cstream *s)
{
    return pib_zstd_run(s, NULL, 0, ZSTD_e_flush);
}

static int pib_zstd_finish(pib_cstream *s)
{
    return pib_zstd_run(s, NULL, 0, ZSTD_e_end);
}

static void pib_zstd_end(pib_cstream *s)
{
    if (s->enc != NULL) {
        pib_zstd_put(s->enc);
        s->enc = NULL;
    }
}

const pib_codec pib_codec_zstd = {
    "zstd", pib_zstd_init, pib_zstd_add, pib_zstd_flush, pib_zstd_finish,
    pib_zstd_end, NULL, "zstd"
};

/* ---- one pass ----------------------------------------------------------- */

static int pib_zstd_one_finish(pib_cstream *s)
{
    ZSTD_CCtx *c = pib_zstd_take(s->level, -1);
    size_t bound = ZSTD_compressBound(s->len), out_cap, n;
    unsigned char *out;

    if (c == NULL) {
        return -1;
    }
    out = pib_buf_take(bound, &out_cap);
    if (out == NULL) {
        pib_zstd_put(c);
        return -1;
    }
    n = ZSTD_compress2(c, out, bound, s->buf, s->len);
    pib_zstd_put(c);
    if (ZSTD_isError(n)) {
        pib_buf_put(out, out_cap);
        return -1;
    }
    pib_held_give(s, out, n, out_cap);
    return 0;
}

const pib_codec pib_codec_zstd_oneshot = {
    "zstd-oneshot", pib_held_init, pib_held_add, pib_held_flush,
    pib_zstd_one_finish, pib_held_end, &pib_codec_zstd, "zstd"
};
