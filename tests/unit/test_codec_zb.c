/* test_codec_zb.c -- the zstd and brotli rows round-trip through their
 * libraries' decoders, with random chunking and flush points; a flush
 * makes everything so far decodable; an unfinished stream is never a
 * complete frame; the zstd context pool gives contexts back. */
#include <stdlib.h>

#include <zstd.h>
#include <brotli/decode.h>

#include "unit.h"
#include "pib_codec.h"
#include "pib_codec_zstd.h"

typedef struct {
    unsigned char *data;
    size_t len, cap;
} zb_sink;

static void zb_emit(void *baton, const unsigned char *p, size_t n)
{
    zb_sink *k = baton;

    if (k->len + n > k->cap) {
        k->cap = (k->len + n) * 2;
        k->data = realloc(k->data, k->cap);
    }
    memcpy(k->data + k->len, p, n);
    k->len += n;
}

/* Decodes src (zstd or br) as a stream; returns 1 when it holds a
 * complete frame/stream, 0 when only a prefix, -1 on a decoding error;
 * *outlen bytes decoded into out. */
static int zb_decode(int br, const zb_sink *src, unsigned char *out,
                     size_t cap, size_t *outlen)
{
    if (br) {
        BrotliDecoderState *d = BrotliDecoderCreateInstance(NULL, NULL,
                                                            NULL);
        const uint8_t *in = src->data;
        size_t avail_in = src->len, avail_out = cap;
        uint8_t *next_out = out;
        BrotliDecoderResult r = BrotliDecoderDecompressStream(
            d, &avail_in, &in, &avail_out, &next_out, NULL);

        BrotliDecoderDestroyInstance(d);
        *outlen = cap - avail_out;
        return r == BROTLI_DECODER_RESULT_SUCCESS ? 1
               : r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT ? 0 : -1;
    }
    else {
        ZSTD_DCtx *d = ZSTD_createDCtx();
        ZSTD_inBuffer ib = { src->data, src->len, 0 };
        ZSTD_outBuffer ob = { out, cap, 0 };
        size_t r = ZSTD_decompressStream(d, &ob, &ib);

        ZSTD_freeDCtx(d);
        *outlen = ob.pos;
        return ZSTD_isError(r) ? -1 : r == 0 ? 1 : 0;
    }
}

static unsigned zb_rnd_state = 4242;

static unsigned zb_rnd(void)
{
    zb_rnd_state = zb_rnd_state * 1103515245u + 12345u;
    return (zb_rnd_state >> 16) & 0x7fff;
}

static unsigned char *zb_input(size_t n, int text)
{
    unsigned char *p = malloc(n ? n : 1);
    size_t i;

    for (i = 0; i < n; i++) {
        p[i] = text ? (unsigned char)("<td>phpinfo</td>\n"[(i + i / 97) % 17])
                    : (unsigned char)zb_rnd();
    }
    return p;
}

/* Feeds in random chunks, flushing at random points (switching a
 * one-pass row to streaming first, as the filter does); after each flush
 * everything so far decodes, and is not yet a complete frame. */
static int zb_feed(int br, pib_cstream *s, zb_sink *k,
                   const pib_codec_params *p, const unsigned char *in,
                   size_t n, int flushes)
{
    unsigned char *check = malloc(n + 1);
    size_t off = 0, got;
    int ok = 1;

    while (off < n) {
        size_t c = 1 + zb_rnd() % 9000;

        c = c > n - off ? n - off : c;
        ok &= s->codec->add(s, in + off, c) == 0;
        off += c;
        if (flushes && zb_rnd() % 3 == 0) {
            ok &= pib_cstream_to_stream(s, p) == 0;
            ok &= s->codec->flush(s) == 0;
            ok &= zb_decode(br, k, check, n + 1, &got) == 0;
            ok &= got == off && memcmp(check, in, off) == 0;
        }
    }
    free(check);
    return ok;
}

static void zb_round_trip(const pib_codec *codec, int level, size_t n,
                          int text, int flushes)
{
    int br = strcmp(codec->coding, "br") == 0;
    pib_codec_params p = { level, 15, 8, n, NULL };
    unsigned char *in = zb_input(n, text), *out = malloc(n + 1);
    zb_sink k = { NULL, 0, 0 };
    pib_cstream *s = malloc(sizeof(*s));
    size_t got = 0;

    CHECK_INT(pib_cstream_init(s, codec, &p, zb_emit, &k), 0);
    CHECK(zb_feed(br, s, &k, &p, in, n, flushes));
    CHECK_INT(s->codec->finish(s), 0);
    s->codec->end(s);
    s->codec->end(s);
    CHECK_INT(zb_decode(br, &k, out, n + 1, &got), 1);
    CHECK(got == n && memcmp(out, in, n) == 0);
    CHECK(s->in_bytes == n && s->out_bytes == k.len);
    if (text && n > 4096) {
        CHECK(k.len < n / 4);       /* it does compress */
    }
    free(in);
    free(out);
    free(k.data);
    free(s);
}

/* A stream flushed but never finished decodes to what came so far and
 * is never taken as complete (the filter's "body ended early"). */
static void zb_unfinished(const pib_codec *codec)
{
    int br = strcmp(codec->coding, "br") == 0;
    pib_codec_params p = { 3, 15, 8, 20000, NULL };
    unsigned char *in = zb_input(20000, 1), out[20001];
    zb_sink k = { NULL, 0, 0 };
    pib_cstream s;
    size_t got;

    CHECK_INT(pib_cstream_init(&s, codec, &p, zb_emit, &k), 0);
    CHECK_INT(s.codec->add(&s, in, 20000), 0);
    CHECK_INT(pib_cstream_to_stream(&s, &p), 0);
    CHECK_INT(s.codec->flush(&s), 0);
    s.codec->end(&s);
    CHECK_INT(zb_decode(br, &k, out, sizeof(out), &got), 0);
    CHECK(got == 20000 && memcmp(out, in, got) == 0);
    free(in);
    free(k.data);
}

/* The rows the filter picks, by coding and one-pass. */
static void zb_rows(void)
{
    CHECK(pib_codec_for(PIB_CODING_GZIP, 1) == &pib_codec_oneshot);
    CHECK(pib_codec_for(PIB_CODING_GZIP, 0) == &pib_codec_zlib);
    CHECK(pib_codec_for(PIB_CODING_ZSTD, 1) == &pib_codec_zstd_oneshot);
    CHECK(pib_codec_for(PIB_CODING_ZSTD, 0) == &pib_codec_zstd);
    CHECK(pib_codec_for(PIB_CODING_BR, 1) == &pib_codec_br_oneshot);
    CHECK(pib_codec_for(PIB_CODING_BR, 0) == &pib_codec_br);
    CHECK(pib_codec_for(PIB_CODING_IDENTITY, 0) == NULL);
    CHECK(pib_codec_for(PIB_CODING_DEFLATE, 1) == NULL);
    CHECK(pib_codec_zstd_oneshot.stream == &pib_codec_zstd);
    CHECK(pib_codec_br_oneshot.stream == &pib_codec_br);
    CHECK(pib_codec_zstd.stream == NULL && pib_codec_br.stream == NULL);
}

/* zstd contexts come back to the pool and are reused, not remade. */
static void zb_zstd_pool(void)
{
    unsigned long live0, idle0, live, idle;
    int i;

    pib_zstd_drain();
    pib_zstd_counts(&live0, &idle0);
    CHECK_INT(idle0, 0);
    for (i = 0; i < 5; i++) {
        zb_round_trip(&pib_codec_zstd, 3, 3000, 1, 0);
        zb_round_trip(&pib_codec_zstd_oneshot, 3, 3000, 1, 0);
    }
    pib_zstd_counts(&live, &idle);
    CHECK_INT(live, 1);             /* one at a time: one made */
    CHECK_INT(idle, 1);
    pib_zstd_drain();
    pib_zstd_counts(&live, &idle);
    CHECK_INT(live, 0);
    CHECK_INT(idle, 0);
}

void test_codec_zb(void)
{
    static const size_t sizes[] = { 0, 1, 255, 65537, 3 * 1024 * 1024 };
    static const pib_codec *const rows[] = {
        &pib_codec_zstd, &pib_codec_zstd_oneshot,
        &pib_codec_br, &pib_codec_br_oneshot
    };
    size_t i, j;
    int text;

    for (j = 0; j < sizeof(rows) / sizeof(rows[0]); j++) {
        int top = strcmp(rows[j]->coding, "br") == 0 ? 11 : 19;

        for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
            for (text = 0; text < 2; text++) {
                zb_round_trip(rows[j], 1, sizes[i], text, 0);
                zb_round_trip(rows[j], 1, sizes[i], text, 1);
            }
        }
        zb_round_trip(rows[j], 4, 65537, 1, 1);
        zb_round_trip(rows[j], top, 65537, 1, 0);
        zb_unfinished(rows[j]);
    }
    zb_rows();
    zb_zstd_pool();
}
