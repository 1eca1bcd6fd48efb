/* pib_codec_igzip.c -- gzip through ISA-L's igzip: two rows of the codec
 * table (pure), built when configure finds libisal (PIB_HAVE_ISAL; Debian
 * has it for amd64 and arm64, not armhf).  Without it pib_codec_igzip()
 * returns NULL and gzip stays with libdeflate and zlib.
 *
 * Why: on the 67 KB benchmark page (sim/phpinfo-bench.html, one x86
 * core) igzip level 1 compresses in ~0.4x libdeflate level 1's CPU for
 * 4.8% more bytes (21,712 against 20,725), and its streaming API costs
 * what its one-pass call costs, where zlib costs ~3x libdeflate
 * (bench/RESULTS-offload.md, issue 32).  Levels are ISA-L's own, 0..3:
 * 0 (no hash chains, static-like codes: 26,367 B, the fastest), 1 and 2
 * (dynamic Huffman blocks), 3 (lazier matching: ~libdeflate's cost).
 *
 * Both rows use isal_deflate (the stateful API) with IGZIP_GZIP (a
 * 10-byte header, mtime 0, and the CRC-32/ISIZE trailer): it costs what
 * isal_deflate_stateless costs (197.8 against 202.7 us a page), and
 * needs no whole body.  One pass: each piece is compressed as it comes,
 * into one output buffer emitted at the end with Content-Length (no
 * copy of the body, none of the output; see pib_igzip_one_init).
 * Streaming: isal_deflate with NO_FLUSH for data, SYNC_FLUSH for a FLUSH
 * (the block is closed and byte-aligned with an empty stored block, as
 * zlib's Z_SYNC_FLUSH does: everything so far decodes), end_of_stream at
 * the end.
 *
 * The state (struct isal_zstream, 82 KB: its history buffer is inside)
 * and the level buffer a level needs (ISAL_DEF_LVLx_SMALL: 0 at level 0,
 * 84 KiB at 1, 132 KiB at 2, 148 KiB at 3; the larger default sizes gave
 * the same bytes and speed on the benchmark page) are one allocation,
 * pooled per level: at most PIB_IGZIP_IDLE_MAX idle of each, the extra
 * of a burst freed.  pib_igzip_drain() frees them at child exit.  Memory
 * per streamed response: one state (82-230 KB) plus PIB_CODEC_OUTBUF.
 * Left out: hist_bits (PiBalanceDeflateWindowBits is zlib's only: the
 * state's size does not shrink with it) and custom Huffman tables.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pib_codec.h"

#if PIB_HAVE_ISAL

#include <isa-l/igzip_lib.h>

typedef struct pib_igzip_state {
    struct isal_zstream z;
    int level;
    struct pib_igzip_state *next;       /* in the idle list */
    unsigned char lbuf[];               /* the level's buffer */
} pib_igzip_state;

static const uint32_t pib_igzip_lbuf[PIB_IGZIP_LEVEL_MAX + 1] = {
    0, ISAL_DEF_LVL1_SMALL, ISAL_DEF_LVL2_SMALL, ISAL_DEF_LVL3_SMALL
};

/* ---- the state pool ------------------------------------------------------ */

static pthread_mutex_t pib_igzip_mutex = PTHREAD_MUTEX_INITIALIZER;
static pib_igzip_state *pib_igzip_idle[PIB_IGZIP_LEVEL_MAX + 1];
static unsigned pib_igzip_nidle[PIB_IGZIP_LEVEL_MAX + 1];
static unsigned long pib_igzip_nlive;

static pib_igzip_state *pib_igzip_take(int level)
{
    pib_igzip_state *st = NULL;

    if (level < 0 || level > PIB_IGZIP_LEVEL_MAX) {
        return NULL;
    }
    pthread_mutex_lock(&pib_igzip_mutex);
    if ((st = pib_igzip_idle[level]) != NULL) {
        pib_igzip_idle[level] = st->next;
        pib_igzip_nidle[level]--;
    }
    pthread_mutex_unlock(&pib_igzip_mutex);
    if (st == NULL) {
        st = malloc(sizeof(*st) + pib_igzip_lbuf[level]);
        if (st == NULL) {
            return NULL;
        }
        st->level = level;
        pthread_mutex_lock(&pib_igzip_mutex);
        pib_igzip_nlive++;
        pthread_mutex_unlock(&pib_igzip_mutex);
    }
    return st;
}

static void pib_igzip_put(pib_igzip_state *st)
{
    if (st == NULL) {
        return;
    }
    pthread_mutex_lock(&pib_igzip_mutex);
    if (pib_igzip_nidle[st->level] < PIB_IGZIP_IDLE_MAX) {
        st->next = pib_igzip_idle[st->level];
        pib_igzip_idle[st->level] = st;
        pib_igzip_nidle[st->level]++;
        st = NULL;
    }
    else {
        pib_igzip_nlive--;
    }
    pthread_mutex_unlock(&pib_igzip_mutex);
    free(st);                           /* NULL is fine */
}

void pib_igzip_drain(void)
{
    int l;

    pthread_mutex_lock(&pib_igzip_mutex);
    for (l = 0; l <= PIB_IGZIP_LEVEL_MAX; l++) {
        while (pib_igzip_idle[l] != NULL) {
            pib_igzip_state *st = pib_igzip_idle[l];

            pib_igzip_idle[l] = st->next;
            free(st);
            pib_igzip_nlive--;
        }
        pib_igzip_nidle[l] = 0;
    }
    pthread_mutex_unlock(&pib_igzip_mutex);
}

void pib_igzip_counts(unsigned long *live, unsigned long *idle)
{
    int l;

    pthread_mutex_lock(&pib_igzip_mutex);
    *live = pib_igzip_nlive;
    *idle = 0;
    for (l = 0; l <= PIB_IGZIP_LEVEL_MAX; l++) {
        *idle += pib_igzip_nidle[l];
    }
    pthread_mutex_unlock(&pib_igzip_mutex);
}

/* Sets z up for a new gzip stream at the state's level. */
static void pib_igzip_setup(pib_igzip_state *st, int stateless)
{
    struct isal_zstream *z = &st->z;

    if (stateless) {
        isal_deflate_stateless_init(z);
    }
    else {
        isal_deflate_init(z);
    }
    z->level = (uint32_t)st->level;
    z->level_buf = pib_igzip_lbuf[st->level] ? st->lbuf : NULL;
    z->level_buf_size = pib_igzip_lbuf[st->level];
    z->gzip_flag = IGZIP_GZIP;
    z->flush = NO_FLUSH;
    z->end_of_stream = 0;
}

/* ---- streaming ---------------------------------------------------------- */

static int pib_igzip_init(pib_cstream *s, const pib_codec_params *p)
{
    pib_igzip_state *st = pib_igzip_take(p->level);

    if (st == NULL) {
        return -1;
    }
    pib_igzip_setup(st, 0);
    s->enc = st;
    return 0;
}

/* Runs isal_deflate over in[0..n) with the given flush mode (and the end
 * of the stream when last), emitting each output buffer, until the input
 * is used up and the encoder has nothing left to write (for last: until
 * the trailer is out). */
static int pib_igzip_run(pib_cstream *s, const unsigned char *in, size_t n,
                         uint16_t flush, int last)
{
    pib_igzip_state *st = s->enc;
    struct isal_zstream *z = &st->z;

    z->next_in = (uint8_t *)in;
    z->avail_in = (uint32_t)n;
    z->flush = flush;
    z->end_of_stream = (uint16_t)last;
    for (;;) {
        uint32_t in0 = z->avail_in;
        size_t wrote;

        z->next_out = s->out;
        z->avail_out = sizeof(s->out);
        if (isal_deflate(z) != COMP_OK) {
            return -1;
        }
        wrote = sizeof(s->out) - z->avail_out;
        pib_cstream_emit(s, s->out, wrote);
        if (z->avail_in > 0 || z->avail_out == 0) {
            continue;                   /* more to take, or to write */
        }
        if (last ? z->internal_state.state == ZSTATE_END
                 : flush == NO_FLUSH
                   || z->internal_state.state == ZSTATE_NEW_HDR) {
            return 0;
        }
        if (wrote == 0 && in0 == 0) {
            return -1;                  /* no progress: never loop */
        }
    }
}

static int pib_igzip_add(pib_cstream *s, const unsigned char *in, size_t n)
{
    while (n > 0) {
        size_t chunk = n > 0x40000000u ? 0x40000000u : n;

        if (pib_igzip_run(s, in, chunk, NO_FLUSH, 0) != 0) {
            return -1;
        }
        s->in_bytes += chunk;
        in += chunk;
        n -= chunk;
    }
    return 0;
}

static int pib_igzip_flush(pib_cstream *s)
{
    return pib_igzip_run(s, NULL, 0, SYNC_FLUSH, 0);
}

static int pib_igzip_finish(pib_cstream *s)
{
    return pib_igzip_run(s, NULL, 0, NO_FLUSH, 1);
}

static void pib_igzip_end(pib_cstream *s)
{
    if (s->enc != NULL) {
        pib_igzip_put(s->enc);
        s->enc = NULL;
    }
}

static const pib_codec pib_codec_igzip_stream = {
    "igzip", pib_igzip_init, pib_igzip_add, pib_igzip_flush,
    pib_igzip_finish, pib_igzip_end, NULL, "gzip", NULL
};

/* ---- one pass ----------------------------------------------------------- */

/* Room for any body: stored blocks of at most 64 KiB cost 5 bytes each,
 * plus the gzip header and trailer and one block header's worth. */
static size_t pib_igzip_bound(size_t n)
{
    return n + (n / 65535 + 1) * 5 + ISAL_DEF_MAX_HDR_SIZE + 64;
}

/* The one-pass row holds no body: it compresses each piece as it comes
 * (isal_deflate, the streaming state) straight into one output buffer
 * of the announced length's bound (s->buf, s->buf_cap; s->len bytes in
 * it), and emits that once, at finish.  Neither the body nor the output
 * is copied on the way (libdeflate's row copies the body into a held
 * buffer, its output into the emitted bucket).  A body that must stream
 * after all (a FLUSH, more than announced, an output that outgrows the
 * buffer) emits what is in the buffer and goes on as the streaming row,
 * with the same state. */
static int pib_igzip_one_init(pib_cstream *s, const pib_codec_params *p)
{
    size_t cap;

    if (p->expect > 0xffffffffu - 4096 || pib_igzip_init(s, p) != 0) {
        return -1;
    }
    s->buf = pib_buf_take(pib_igzip_bound(p->expect), &cap);
    if (s->buf == NULL) {
        return -1;
    }
    s->buf_cap = cap;
    s->cap = p->expect;             /* refuse more than announced */
    s->len = 0;
    return 0;
}

/* Emits what the output buffer holds and turns s into the streaming row
 * (the state goes on; output now goes through s->out). */
static int pib_igzip_one_to_stream(pib_cstream *s, const pib_codec_params *p)
{
    (void)p;
    pib_cstream_emit(s, s->buf, s->len);
    pib_buf_put(s->buf, s->buf_cap);
    s->buf = NULL;
    s->len = s->cap = s->buf_cap = 0;
    s->codec = &pib_codec_igzip_stream;
    return 0;
}

/* Runs the state over in[0..n) (and to the trailer when last) into the
 * output buffer; a full buffer turns s into the streaming row, which
 * finishes the job. */
static int pib_igzip_one_run(pib_cstream *s, const unsigned char *in,
                             size_t n, int last)
{
    pib_igzip_state *st = s->enc;
    struct isal_zstream *z = &st->z;

    z->next_in = (uint8_t *)in;
    z->avail_in = (uint32_t)n;
    z->flush = NO_FLUSH;
    z->end_of_stream = (uint16_t)last;
    z->next_out = s->buf + s->len;
    z->avail_out = (uint32_t)(s->buf_cap - s->len);
    if (isal_deflate(z) != COMP_OK) {
        return -1;
    }
    s->len = s->buf_cap - z->avail_out;
    if (last ? z->internal_state.state == ZSTATE_END : z->avail_in == 0) {
        return 0;
    }
    /* the buffer is full: stream the rest */
    in = z->next_in;
    n = z->avail_in;
    pib_igzip_one_to_stream(s, NULL);
    return pib_igzip_run(s, in, n, NO_FLUSH, last);
}

static int pib_igzip_one_add(pib_cstream *s, const unsigned char *in,
                             size_t n)
{
    if (n > s->cap - s->in_bytes) {
        return -1;                  /* more than announced: stream */
    }
    if (n > 0 && pib_igzip_one_run(s, in, n, 0) != 0) {
        return -1;
    }
    s->in_bytes += n;
    return 0;
}

static int pib_igzip_one_finish(pib_cstream *s)
{
    if (pib_igzip_one_run(s, NULL, 0, 1) != 0) {
        return -1;
    }
    if (s->buf != NULL) {               /* still one pass: all of it */
        pib_cstream_emit_held(s, s->buf, s->len);   /* kept until end */
    }
    return 0;
}

static void pib_igzip_one_end(pib_cstream *s)
{
    pib_buf_put(s->buf, s->buf_cap);
    s->buf = NULL;
    s->len = s->cap = s->buf_cap = 0;
    pib_igzip_end(s);
}

static const pib_codec pib_codec_igzip_oneshot = {
    "igzip-oneshot", pib_igzip_one_init, pib_igzip_one_add, pib_held_flush,
    pib_igzip_one_finish, pib_igzip_one_end, &pib_codec_igzip_stream,
    "gzip", pib_igzip_one_to_stream
};

const pib_codec *pib_codec_igzip(int one_pass)
{
    return one_pass ? &pib_codec_igzip_oneshot : &pib_codec_igzip_stream;
}

#else /* !PIB_HAVE_ISAL */

const pib_codec *pib_codec_igzip(int one_pass)
{
    (void)one_pass;
    return NULL;
}

void pib_igzip_drain(void)
{
}

void pib_igzip_counts(unsigned long *live, unsigned long *idle)
{
    *live = *idle = 0;
}

#endif
