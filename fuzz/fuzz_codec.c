/* fuzz_codec.c -- the compressor table round trip: a random body, cut
 * into random chunks with random flush points, through a gzip codec row
 * (zlib or igzip streaming, or libdeflate's or igzip's one pass with a
 * right or wrong announced length, switched to its streaming row on a
 * flush or an overrun as pib_deflate.c does), must gunzip with zlib to
 * exactly the body.  The igzip rows (ISA-L) where the build has them;
 * elsewhere those inputs take libdeflate's and zlib's.
 *
 * Also checked: after every flush the output so far inflates to exactly
 * the input so far; in_bytes and out_bytes count what went in and out;
 * a stream ended without finish() never inflates to a complete gzip
 * stream (a cut-off response must not look complete).
 */
#include <zlib.h>

#include "fuzz_common.h"
#include "pib_codec.h"

#define BODY_MAX (256 * 1024)

static void emit(void *baton, const unsigned char *p, size_t n)
{
    fz_buf_add(baton, p, n);
}

/* Inflates the gzip in src; returns Z_STREAM_END when complete.  *outlen
 * gets the bytes produced (at most cap). */
static int gunzip(const fz_buf *src, unsigned char *out, size_t cap,
                  size_t *outlen)
{
    z_stream z;
    int rc;

    memset(&z, 0, sizeof(z));
    FZ_ASSERT(inflateInit2(&z, 16 + 15) == Z_OK);
    z.next_in = (Bytef *)src->data;
    z.avail_in = (uInt)src->len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    rc = inflate(&z, Z_SYNC_FLUSH);
    *outlen = cap - z.avail_out;
    if (rc == Z_STREAM_END) {
        FZ_ASSERT(z.avail_in == 0);         /* nothing after the trailer */
    }
    inflateEnd(&z);
    return rc;
}

/* Everything added so far (len bytes of body) is decodable. */
static void check_prefix(const fz_buf *out, const unsigned char *body,
                         size_t len, unsigned char *tmp)
{
    size_t got;
    int rc = gunzip(out, tmp, len + 1, &got);

    FZ_ASSERT(rc == Z_OK || rc == Z_BUF_ERROR);
    FZ_ASSERT(got == len && memcmp(tmp, body, len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = { data, size };
    pib_codec_params p;
    pib_cstream s;
    fz_buf out = { 0 };
    unsigned char *body, *tmp;
    uint8_t mode = fz_u8(&in), reps = 1 + fz_u8(&in) % 16;
    uint32_t seed = fz_u32(&in, UINT32_MAX);
    size_t blen, i, off = 0;
    int oneshot = mode & 1, finish = (mode & 0x30) != 0, rc;
    const pib_codec *row = oneshot ? &pib_codec_oneshot : &pib_codec_zlib;

    p.level = 1 + fz_u8(&in) % 9;
    if ((mode & 0x40) && pib_codec_igzip(oneshot) != NULL) {
        row = pib_codec_igzip(oneshot);
        p.level = p.level % (PIB_IGZIP_LEVEL_MAX + 1);
    }
    p.window_bits = 9 + fz_u8(&in) % 7;
    p.mem_level = 1 + fz_u8(&in) % 9;

    /* The body: the rest of the input, repeated. */
    blen = in.n * reps > BODY_MAX ? BODY_MAX : in.n * reps;
    body = malloc(blen + 1);
    tmp = malloc(blen + 1);
    for (i = 0; i < blen; i++) {
        body[i] = in.p[i % in.n];
    }
    /* Announced length: right, short or long. */
    p.expect = (mode & 6) == 0 ? blen / 2 : (mode & 6) == 2 ? blen + 100
                                                             : blen;

    FZ_ASSERT(pib_cstream_init(&s, row, &p, emit, &out) == 0);
    while (off < blen) {
        size_t c;

        seed = seed * 1103515245u + 12345u;
        c = 1 + (seed >> 8) % ((seed & 0x80) ? 64 : 20000);
        c = c > blen - off ? blen - off : c;
        if (s.codec->add(&s, body + off, c) != 0) {
            FZ_ASSERT(PIB_CODEC_ONE_PASS_ROW(s.codec));    /* overrun */
            FZ_ASSERT(pib_cstream_to_stream(&s, &p) == 0);
            FZ_ASSERT(s.codec->add(&s, body + off, c) == 0);
        }
        off += c;
        FZ_ASSERT(s.in_bytes == off);
        if (((seed >> 20) & 7) == 0) {              /* a FLUSH bucket */
            if (s.codec->flush(&s) != 0) {
                FZ_ASSERT(PIB_CODEC_ONE_PASS_ROW(s.codec));
                FZ_ASSERT(pib_cstream_to_stream(&s, &p) == 0);
                FZ_ASSERT(s.codec->flush(&s) == 0);
            }
            check_prefix(&out, body, off, tmp);
        }
    }
    if (finish) {
        size_t got;

        if (s.codec->finish(&s) != 0) {
            /* a one pass whose output overran its buffer: stream it, as
             * pib_deflate.c's pib_end_stream does */
            FZ_ASSERT(PIB_CODEC_ONE_PASS_ROW(s.codec) && out.len == 0);
            FZ_ASSERT(pib_cstream_to_stream(&s, &p) == 0);
            FZ_ASSERT(s.codec->finish(&s) == 0);
        }
        FZ_ASSERT(s.out_bytes == out.len);
        rc = gunzip(&out, tmp, blen + 1, &got);
        FZ_ASSERT(rc == Z_STREAM_END);
        FZ_ASSERT(got == blen && memcmp(tmp, body, blen) == 0);
    }
    else if (out.len > 0) {
        size_t got;

        /* Cut off: whatever arrived never looks like a whole body. */
        FZ_ASSERT(gunzip(&out, tmp, blen + 1, &got) != Z_STREAM_END);
    }
    s.codec->end(&s);
    s.codec->end(&s);                               /* safe twice */
    free(out.data);
    free(body);
    free(tmp);
    return 0;
}
