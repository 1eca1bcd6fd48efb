/* test_codec.c -- both codecs round-trip through zlib's gunzip, with
 * random chunking and flush points; a flush makes everything so far
 * decodable; a stream never finished is never a complete gzip stream. */
#include <stdlib.h>

#include "unit.h"
#include "pib_codec.h"

typedef struct {
    unsigned char *data;
    size_t len, cap;
} sink;

static void sink_emit(void *baton, const unsigned char *p, size_t n)
{
    sink *k = baton;

    if (k->len + n > k->cap) {
        k->cap = (k->len + n) * 2;
        k->data = realloc(k->data, k->cap);
    }
    memcpy(k->data + k->len, p, n);
    k->len += n;
}

/* Gunzips src; returns Z_STREAM_END for a complete stream (then *outlen
 * bytes in out), else the last zlib code. */
static int gunzip(const sink *src, unsigned char *out, size_t cap,
                  size_t *outlen)
{
    z_stream z;
    int rc;

    memset(&z, 0, sizeof(z));
    inflateInit2(&z, 16 + 15);
    z.next_in = src->data;
    z.avail_in = (uInt)src->len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    rc = inflate(&z, Z_SYNC_FLUSH);
    *outlen = cap - z.avail_out;
    inflateEnd(&z);
    return rc;
}

static unsigned rnd_state = 12345;

static unsigned rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (rnd_state >> 16) & 0x7fff;
}

/* Text-like (compressible) or random bytes. */
static unsigned char *make_input(size_t n, int text)
{
    unsigned char *p = malloc(n ? n : 1);
    size_t i;

    for (i = 0; i < n; i++) {
        p[i] = text ? (unsigned char)("<td>phpinfo</td>\n"[(i + i / 97) % 17])
                    : (unsigned char)rnd();
    }
    return p;
}

/* Adds in in random chunks; flushes at random points when flushes is
 * set, checking each flush leaves everything so far decodable. */
static int feed(pib_cstream *s, sink *k, const pib_codec_params *p,
                const unsigned char *in, size_t n, int flushes)
{
    unsigned char *check = malloc(n + 1);
    size_t off = 0, got;
    int ok = 1;

    while (off < n) {
        size_t c = 1 + rnd() % 9000;

        c = c > n - off ? n - off : c;
        ok &= s->codec->add(s, in + off, c) == 0;
        off += c;
        if (flushes && rnd() % 3 == 0) {
            ok &= pib_cstream_to_zlib(s, p) == 0;
            ok &= s->codec->flush(s) == 0;
            gunzip(k, check, n + 1, &got);
            ok &= got == off && memcmp(check, in, off) == 0;
        }
    }
    free(check);
    return ok;
}

static void round_trip(const pib_codec *codec, size_t n, int text,
                       int flushes)
{
    pib_codec_params p = { 1, 15, 8, n };
    unsigned char *in = make_input(n, text), *out = malloc(n + 1);
    sink k = { NULL, 0, 0 };
    pib_cstream *s = malloc(sizeof(*s));
    size_t got = 0;

    CHECK_INT(pib_cstream_init(s, codec, &p, sink_emit, &k), 0);
    CHECK(feed(s, &k, &p, in, n, flushes));
    CHECK_INT(s->codec->finish(s), 0);
    s->codec->end(s);
    s->codec->end(s);
    CHECK_INT(gunzip(&k, out, n + 1, &got), Z_STREAM_END);
    CHECK(got == n && memcmp(out, in, n) == 0);
    CHECK(s->in_bytes == n && s->out_bytes == k.len);
    free(in);
    free(out);
    free(k.data);
    free(s);
}

/* A oneshot stream refuses more than announced; switching to zlib keeps
 * every byte. */
static void overflow_switch(void)
{
    pib_codec_params p = { 6, 12, 4, 100 };
    unsigned char *in = make_input(300, 1), out[400];
    sink k = { NULL, 0, 0 };
    pib_cstream s;
    size_t got;

    CHECK_INT(pib_cstream_init(&s, &pib_codec_oneshot, &p, sink_emit, &k),
              0);
    CHECK_INT(s.codec->add(&s, in, 80), 0);
    CHECK_INT(s.codec->add(&s, in + 80, 220), -1);
    CHECK_INT(s.codec->flush(&s), -1);
    CHECK_INT(pib_cstream_to_zlib(&s, &p), 0);
    CHECK_STR(s.codec->name, "zlib");
    CHECK_INT(s.codec->add(&s, in + 80, 220), 0);
    CHECK_INT(s.codec->finish(&s), 0);
    s.codec->end(&s);
    CHECK_INT(gunzip(&k, out, sizeof(out), &got), Z_STREAM_END);
    CHECK(got == 300 && memcmp(out, in, 300) == 0);
    free(in);
    free(k.data);
}

/* Flushed but never finished: decodable so far, never complete. */
static void truncated(void)
{
    pib_codec_params p = { 1, 15, 8, 0 };
    unsigned char *in = make_input(5000, 1), out[6000];
    sink k = { NULL, 0, 0 };
    pib_cstream s;
    size_t got;

    CHECK_INT(pib_cstream_init(&s, &pib_codec_zlib, &p, sink_emit, &k), 0);
    CHECK_INT(s.codec->add(&s, in, 5000), 0);
    CHECK_INT(s.codec->flush(&s), 0);
    s.codec->end(&s);
    CHECK_INT(gunzip(&k, out, sizeof(out), &got), Z_OK);
    CHECK_INT(got, 5000);
    free(in);
    free(k.data);
}

/* A bad level fails init cleanly. */
static void bad_params(void)
{
    pib_codec_params p = { 42, 15, 8, 0 };
    sink k = { NULL, 0, 0 };
    pib_cstream s;

    CHECK_INT(pib_cstream_init(&s, &pib_codec_zlib, &p, sink_emit, &k), -1);
    s.codec->end(&s);
}

void test_codec(void)
{
    static const size_t sizes[] = { 0, 1, 255, 256, 65535, 65537,
                                    10 * 1024 * 1024 };
    size_t i;
    int text;

    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        for (text = 0; text < 2; text++) {
            round_trip(&pib_codec_zlib, sizes[i], text, 0);
            round_trip(&pib_codec_zlib, sizes[i], text, 1);
            round_trip(&pib_codec_oneshot, sizes[i], text, 0);
            round_trip(&pib_codec_oneshot, sizes[i], text, 1);
        }
    }
    overflow_switch();
    truncated();
    bad_params();
}
