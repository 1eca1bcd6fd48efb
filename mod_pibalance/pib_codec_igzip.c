/* pib_codec_igzip.c -- gzip through ISA-L's igzip: two rows of the codec
 * table (pure), built when configure finds libisal (PIB_HAVE_ISAL; Debian
 * has it for amd64 and arm64, not armhf).  Without it pib_codec_igzip()
 * returns NULL and gzip stays with libdeflate and zlib.
 *
 * Why: on the 67 KB benchmark page (sim/phpinfo-bench.html, one x86
 * core) igzip level 1 compresses in ~0.56x libdeflate level 1's CPU for
 * 4.8% more bytes (21,712 against 20,725), and its streaming API costs
 * what its one-pass call costs, where zlib costs ~3x libdeflate
 * (bench/RESULTS-offload.md, issue 32).  Levels are ISA-L's own, 0..3:
 * 0 (no hash chains, static-like codes: 26,367 B, the fastest), 1 and 2
 * (dynamic Huffman blocks), 3 (lazier matching: ~libdeflate's cost).
 *
 * One pass: the body is held (pib_held_*) and compressed by
 * isal_deflate_stateless with IGZIP_GZIP (a 10-byte header, mtime 0,
 * and the CRC-32/ISIZE trailer), into an output buffer of the body's
 * size plus stored-block overhead that is passed on as it is
 * (pib_held_give: no copy); a body that does not fit there (it cannot,
 * being incompressible) falls back to the streaming row.  Holding the
 * body is cheaper than feeding the pieces to the stateful isal_deflate
 * as they come, which copies them into its own window and slides it:
 * tried (c531215), 1,258,683 instructions a request on the 67 KB page
 * against 1,112,327 (libc's memcpy 186,475 against 43,589; callgrind,
 * bench/RESULTS-offload.md), so reverted.
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
    pib_igzip_finish, pib_igzip_end, NULL, "gzip"
};

/* ---- one pass ----------------------------------------------------------- */

/* Room for any body: stored blocks of at most 64 KiB cost 5 bytes each,
 * plus the gzip header and trailer and one block header's worth. */
static size_t pib_igzip_bound(size_t n)
{
    return n + (n / 65535 + 1) * 5 + ISAL_DEF_MAX_HDR_SIZE + 64;
}

static int pib_igzip_one_finish(pib_cstream *s)
{
    pib_igzip_state *st;
    size_t bound, out_cap, n;
    unsigned char *out;
    int rc;

    if (s->len > 0xffffffffu - 4096) {
        return -1;                      /* avail_in is 32 bits: stream */
    }
    if ((st = pib_igzip_take(s->level)) == NULL) {
        return -1;
    }
    bound = pib_igzip_bound(s->len);
    if ((out = pib_buf_take(bound, &out_cap)) == NULL) {
        pib_igzip_put(st);
        return -1;
    }
    pib_igzip_setup(st, 1);
    st->z.next_in = s->buf;
    st->z.avail_in = (uint32_t)s->len;
    st->z.end_of_stream = 1;
    st->z.next_out = out;
    st->z.avail_out = (uint32_t)(bound > 0xffffffffu ? 0xffffffffu : bound);
    rc = isal_deflate_stateless(&st->z);
    n = st->z.total_out;
    pib_igzip_put(st);                  /* another thread's from here on */
    if (rc != COMP_OK) {
        pib_buf_put(out, out_cap);
        return -1;
    }
    pib_held_give(s, out, n, out_cap);  /* passed on without a copy */
    return 0;
}

static const pib_codec pib_codec_igzip_oneshot = {
    "igzip-oneshot", pib_held_init, pib_held_add, pib_held_flush,
    pib_igzip_one_finish, pib_held_end, &pib_codec_igzip_stream, "gzip"
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
