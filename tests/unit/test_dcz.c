/* test_dcz.c -- dictionaries and the dcz rows: SHA-256 against known
 * digests; the 40-byte header byte for byte; one-pass and streaming
 * output decoded by libzstd with the same dictionary, byte-exact, with
 * random chunking and flush points and the one-pass row turned into a
 * stream; the dictionary is used (a delta of a near copy is tiny); a
 * frame's window stays within 8 MiB; a fifth level falls back to loading
 * by reference; bytes that look like a zstd structured dictionary and
 * rows without a dictionary are refused. */
#define ZSTD_STATIC_LINKING_ONLY    /* ZSTD_getFrameHeader */
#include <stdlib.h>

#include <zstd.h>

#include "unit.h"
#include "pib_dcz.h"

typedef struct {
    unsigned char *data;
    size_t len, cap;
} dcz_sink;

static void dcz_emit(void *baton, const unsigned char *p, size_t n)
{
    dcz_sink *k = baton;

    if (k->len + n > k->cap) {
        k->cap = (k->len + n) * 2;
        k->data = realloc(k->data, k->cap);
    }
    memcpy(k->data + k->len, p, n);
    k->len += n;
}

static unsigned long dcz_rand_state = 12345;

static unsigned dcz_rand(void)
{
    dcz_rand_state = dcz_rand_state * 1103515245UL + 12345UL;
    return (unsigned)(dcz_rand_state >> 16) & 0x7fff;
}

/* A page-like body: rows of markup, a few values depending on version. */
static unsigned char *dcz_page(int version, size_t *len)
{
    size_t cap = 80000, n = 0;
    unsigned char *p = malloc(cap);
    int i;

    for (i = 0; i < 1200 && n + 80 < cap; i++) {
        n += (size_t)snprintf((char *)p + n, cap - n,
                              "<tr><td class=\"e\">key_%d</td>"
                              "<td class=\"v\">%d</td></tr>\n", i,
                              i % 97 == 0 ? version * 31 + i : i * 7);
    }
    *len = n;
    return p;
}

/* Decodes a dcz body: checks the header against d, then the frame with
 * d as raw dictionary.  Returns the decoded length or -1. */
static long dcz_decode(const pib_dict *d, const dcz_sink *k,
                       unsigned char *out, size_t cap)
{
    unsigned char h[PIB_DCZ_HEADER_LEN];
    ZSTD_DCtx *dc;
    size_t r;

    pib_dcz_header(d, h);
    if (k->len < sizeof(h) || memcmp(k->data, h, sizeof(h)) != 0) {
        return -1;
    }
    dc = ZSTD_createDCtx();
    r = ZSTD_decompress_usingDict(dc, out, cap, k->data + sizeof(h),
                                  k->len - sizeof(h), d->bytes, d->len);
    ZSTD_freeDCtx(dc);
    return ZSTD_isError(r) ? -1 : (long)r;
}

static void test_sha(void)
{
    static const unsigned char abc[32] = {
        0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40,
        0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17,
        0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad
    };
    static const unsigned char empty[4] = { 0xe3, 0xb0, 0xc4, 0x42 };
    unsigned char h[32];

    CHECK_INT(pib_sha256((const unsigned char *)"abc", 3, h), 0);
    CHECK(memcmp(h, abc, 32) == 0);
    CHECK_INT(pib_sha256((const unsigned char *)"", 0, h), 0);
    CHECK(memcmp(h, empty, 4) == 0);
}

static void test_header(void)
{
    pib_dict *d = pib_dict_make((const unsigned char *)"abc", 3);
    unsigned char h[PIB_DCZ_HEADER_LEN], want[8] = {
        0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00 };

    CHECK(d != NULL);
    if (d == NULL) {
        return;
    }
    pib_dcz_header(d, h);
    CHECK(memcmp(h, want, 8) == 0);
    CHECK(memcmp(h + 8, d->hash, 32) == 0);
    CHECK_INT(h[8], 0xba);
    CHECK_INT(h[39], 0xad);
    pib_dict_free(d);
}

static void test_refusals(void)
{
    static const unsigned char magic[8] = { 0x37, 0xa4, 0x30, 0xec, 1, 2,
                                            3, 4 };
    pib_codec_params p = { 3, 0, 0, 100, NULL };
    pib_cstream s;
    dcz_sink k = { NULL, 0, 0 };
    unsigned char *out;
    size_t n;

    CHECK(pib_dcb_unsupported() != NULL);   /* no dcb row: always refused */
#ifndef PIB_HAVE_BROTLI_DICT
    CHECK(strstr(pib_dcb_unsupported(), "libbrotli 1.1") != NULL);
#endif
    CHECK(pib_dict_make(magic, sizeof(magic)) == NULL);
    CHECK(pib_dict_make(magic, 0) == NULL);
    CHECK_INT(pib_dcz_compress(NULL, 3, magic, 8, &out, &n), -1);
    CHECK_INT(pib_cstream_init(&s, &pib_codec_dcz, &p, dcz_emit, &k), -1);
    s.codec->end(&s);
    CHECK_INT(pib_cstream_init(&s, &pib_codec_dcz_oneshot, &p, dcz_emit,
                               &k), -1);
    s.codec->end(&s);
    {
        pib_dict *d = pib_dict_make(magic + 4, 4);

        CHECK_INT(pib_dcz_compress(d, 0, magic, 8, &out, &n), -1);
        CHECK_INT(pib_dcz_compress(d, 20, magic, 8, &out, &n), -1);
        pib_dict_free(d);
    }
    free(k.data);
}

/* One pass: a near copy of the dictionary comes out tiny, decodes
 * byte-exact, and its frame's window is the body (single segment). */
static void test_one_pass(void)
{
    size_t n1, n2, n;
    unsigned char *v1 = dcz_page(1, &n1), *v2 = dcz_page(2, &n2), *out;
    unsigned char *back = malloc(n2 + 1);
    pib_dict *d = pib_dict_make(v1, n1);
    dcz_sink k = { NULL, 0, 0 };
    ZSTD_frameHeader fh;
    size_t plain = ZSTD_compress(back, n2 + 1 > ZSTD_compressBound(n2)
                                 ? n2 + 1 : n2 + 1, v2, n2, 3);

    CHECK(d != NULL);
    CHECK_INT(pib_dcz_compress(d, 3, v2, n2, &out, &n), 0);
    k.data = out;
    k.len = k.cap = n;
    CHECK_INT(dcz_decode(d, &k, back, n2 + 1), (long)n2);
    CHECK(memcmp(back, v2, n2) == 0);
    /* 13 changed rows in ~50 KB: the delta is a few hundred bytes, plain
     * zstd several KB */
    CHECK(n < 600);
    CHECK(ZSTD_isError(plain) || n * 5 < plain);
    CHECK_INT(ZSTD_getFrameHeader(&fh, out + 40, n - 40), 0);
    CHECK(fh.windowSize <= (8u << 20));
    CHECK_INT(fh.frameContentSize, n2);
    free(out);
    pib_dict_free(d);
    free(v1);
    free(v2);
    free(back);
}

/* Through the rows: random chunks, random flushes, one-pass rows turned
 * into streams half-way; each level's CDict is made once (the fifth
 * level has no slot and loads the dictionary by reference). */
static void test_rows(void)
{
    static const int levels[] = { 1, 3, 5, 9, 19 };
    size_t n1, n2;
    unsigned char *v1 = dcz_page(1, &n1), *v2 = dcz_page(7, &n2);
    unsigned char *back = malloc(n2 + 1);
    pib_dict *d = pib_dict_make(v1, n1);
    int round;

    for (round = 0; round < 40; round++) {
        int level = levels[round % 5], one = round % 3 == 0;
        pib_codec_params p = { level, 0, 0, one ? n2 : 0, d };
        pib_cstream s;
        dcz_sink k = { NULL, 0, 0 };
        size_t at = 0;
        int ok = pib_cstream_init(&s, one ? &pib_codec_dcz_oneshot
                                          : &pib_codec_dcz, &p, dcz_emit,
                                  &k) == 0;

        while (ok && at < n2) {
            size_t c = 1 + dcz_rand() % 9000;

            if (c > n2 - at) {
                c = n2 - at;
            }
            ok = s.codec->add(&s, v2 + at, c) == 0;
            at += c;
            if (ok && dcz_rand() % 4 == 0) {
                if (PIB_CODEC_ONE_PASS_ROW(s.codec)) {
                    ok = pib_cstream_to_stream(&s, &p) == 0;
                }
                if (ok) {
                    size_t before = k.len;
                    unsigned char *part = malloc(n2 + 1);

                    ok = s.codec->flush(&s) == 0;
                    /* everything so far decodes: a prefix of the body */
                    if (ok && k.len > before) {
                        ZSTD_DCtx *dc = ZSTD_createDCtx();
                        ZSTD_inBuffer ib = { k.data + 40, k.len - 40, 0 };
                        ZSTD_outBuffer ob = { part, n2 + 1, 0 };

                        ZSTD_DCtx_refPrefix(dc, d->bytes, d->len);
                        ZSTD_decompressStream(dc, &ob, &ib);
                        CHECK_INT(ob.pos, at);
                        CHECK(memcmp(part, v2, ob.pos) == 0);
                        ZSTD_freeDCtx(dc);
                    }
                    free(part);
                }
            }
        }
        CHECK(ok);
        CHECK_INT(s.codec->finish(&s), 0);
        CHECK_INT(dcz_decode(d, &k, back, n2 + 1), (long)n2);
        CHECK(memcmp(back, v2, n2) == 0);
        CHECK(s.in_bytes == n2);
        CHECK(s.out_bytes == k.len);
        s.codec->end(&s);
        s.codec->end(&s);           /* safe twice */
        free(k.data);
    }
    CHECK_INT(d->level[0], 1);
    CHECK_INT(d->level[3], 9);
    CHECK(pib_dict_cdict(d, 19) == NULL);   /* no slot: by reference */
    CHECK(pib_dict_cdict(d, 3) == d->cdict[1]);
    pib_dict_free(d);
    free(v1);
    free(v2);
    free(back);
}

/* An empty body is a valid frame too (a header and an empty frame). */
static void test_empty(void)
{
    pib_dict *d = pib_dict_make((const unsigned char *)"dictionary", 10);
    pib_codec_params p = { 3, 0, 0, 0, d };
    pib_cstream s;
    dcz_sink k = { NULL, 0, 0 };
    unsigned char back[4];

    CHECK_INT(pib_cstream_init(&s, &pib_codec_dcz, &p, dcz_emit, &k), 0);
    CHECK_INT(s.codec->finish(&s), 0);
    CHECK(k.len > 40);
    CHECK_INT(dcz_decode(d, &k, back, sizeof(back)), 0);
    s.codec->end(&s);
    free(k.data);
    pib_dict_free(d);
}

void test_dcz(void)
{
    test_sha();
    test_header();
    test_refusals();
    test_one_pass();
    test_rows();
    test_empty();
}
