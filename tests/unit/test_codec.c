/* test_codec.c -- the gzip rows (zlib, libdeflate, and ISA-L's igzip
 * when built with it) round-trip through zlib's gunzip, with
 * random chunking and flush points; a flush makes everything so far
 * decodable; a stream never finished is never a complete gzip stream. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <libdeflate.h>

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
            ok &= pib_cstream_to_stream(s, p) == 0;
            ok &= s->codec->flush(s) == 0;
            gunzip(k, check, n + 1, &got);
            ok &= got == off && memcmp(check, in, off) == 0;
        }
    }
    free(check);
    return ok;
}

static void round_trip_at(const pib_codec *codec, int level, size_t n,
                          int text, int flushes)
{
    pib_codec_params p = { level, 15, 8, n, NULL };
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

static void round_trip(const pib_codec *codec, size_t n, int text,
                       int flushes)
{
    round_trip_at(codec, 1, n, text, flushes);
}

/* ISA-L's rows (when built with it): every level, both rows, the sizes
 * of the other rows' tests, flushes; a flush at the very start and two
 * in a row; an unfinished stream is never complete; the state pool
 * gives every state back.  Without ISA-L there are no rows. */
static void igzip_rows(const size_t *sizes, size_t nsizes)
{
    const pib_codec *one = pib_codec_igzip(1), *st = pib_codec_igzip(0);
    unsigned long live, idle, live0, idle0;
    pib_codec_params p = { 1, 15, 8, 0, NULL };
    unsigned char *in = make_input(70000, 1), *out = malloc(70001);
    sink k = { NULL, 0, 0 };
    pib_cstream s;
    size_t i, got;
    int level, text;

#if !PIB_HAVE_ISAL
    CHECK(one == NULL && st == NULL);
    free(in);
    free(out);
    return;
#endif
    CHECK(one != NULL && st != NULL && one->stream == st);
    if (one == NULL || st == NULL) {
        free(in);
        free(out);
        return;
    }
    CHECK_STR(one->coding, "gzip");
    CHECK_STR(st->name, "igzip");
    pib_igzip_counts(&live0, &idle0);
    for (level = 0; level <= PIB_IGZIP_LEVEL_MAX; level++) {
        for (i = 0; i < nsizes; i++) {
            if (sizes[i] > 1024 * 1024 && level != 1) {
                continue;               /* 10 MiB: the default level */
            }
            for (text = 0; text < 2; text++) {
                round_trip_at(st, level, sizes[i], text, 0);
                round_trip_at(st, level, sizes[i], text, 1);
                round_trip_at(one, level, sizes[i], text, 0);
                round_trip_at(one, level, sizes[i], text, 1);
            }
        }
    }
    /* flush before any data, twice in a row, then data, then finish */
    CHECK_INT(pib_cstream_init(&s, st, &p, sink_emit, &k), 0);
    CHECK_INT(s.codec->flush(&s), 0);
    CHECK_INT(gunzip(&k, out, 70001, &got), Z_OK);
    CHECK_INT(got, 0);
    CHECK_INT(s.codec->add(&s, in, 30000), 0);
    CHECK_INT(s.codec->flush(&s), 0);
    CHECK_INT(s.codec->flush(&s), 0);
    CHECK_INT(gunzip(&k, out, 70001, &got), Z_OK);
    CHECK(got == 30000 && memcmp(out, in, 30000) == 0);
    CHECK_INT(s.codec->add(&s, in + 30000, 40000), 0);
    CHECK_INT(s.codec->finish(&s), 0);
    s.codec->end(&s);
    CHECK_INT(gunzip(&k, out, 70001, &got), Z_STREAM_END);
    CHECK(got == 70000 && memcmp(out, in, 70000) == 0);
    /* flushed, never finished: decodable so far, never complete */
    k.len = 0;
    CHECK_INT(pib_cstream_init(&s, st, &p, sink_emit, &k), 0);
    CHECK_INT(s.codec->add(&s, in, 5000), 0);
    CHECK_INT(s.codec->flush(&s), 0);
    s.codec->end(&s);
    CHECK_INT(gunzip(&k, out, 70001, &got), Z_OK);
    CHECK_INT(got, 5000);
    /* a level igzip has not */
    p.level = PIB_IGZIP_LEVEL_MAX + 1;
    CHECK_INT(pib_cstream_init(&s, st, &p, sink_emit, &k), -1);
    s.codec->end(&s);
    pib_igzip_counts(&live, &idle);
    CHECK_INT((long)(live - idle), (long)(live0 - idle0));  /* all back */
    pib_igzip_drain();
    pib_igzip_counts(&live, &idle);
    CHECK_INT(idle, 0);
    free(in);
    free(out);
    free(k.data);
}

/* pib_encoder_pick's worked table (pib_codec.h). */
static void encoder_pick(void)
{
    static const struct {
        pib_coding c;
        int level, fastest, one_pass;
        const char *row;        /* with ISA-L */
        int row_level;
        const char *row_plain;  /* without */
        int plain_level;
    } t[] = {
        { PIB_CODING_GZIP, 1, 0, 1, "igzip-oneshot", 1, "oneshot", 1 },
        { PIB_CODING_GZIP, 1, 0, 0, "igzip", 1, "zlib", 1 },
        { PIB_CODING_GZIP, 6, 0, 1, "oneshot", 6, "oneshot", 6 },
        { PIB_CODING_GZIP, 6, 0, 0, "zlib", 6, "zlib", 6 },
        { PIB_CODING_GZIP, 12, 0, 1, "oneshot", 12, "oneshot", 12 },
        { PIB_CODING_GZIP, 6, 1, 1, "igzip-oneshot", 0, "oneshot", 1 },
        { PIB_CODING_GZIP, 1, 1, 0, "igzip", 0, "zlib", 1 },
        { PIB_CODING_ZSTD, 3, 0, 1, "zstd-oneshot", 3, "zstd-oneshot", 3 },
        { PIB_CODING_ZSTD, 3, 1, 0, "zstd", -1, "zstd", -1 },
        { PIB_CODING_BR, 4, 0, 0, "br", 4, "br", 4 },
        { PIB_CODING_BR, 4, 1, 1, "br-oneshot", 1, "br-oneshot", 1 },
    };
    size_t i;
    pib_encoder e = { NULL, 99 };
    int isal = pib_codec_igzip(1) != NULL;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        CHECK_INT(pib_encoder_pick(t[i].c, t[i].level, t[i].fastest,
                                   t[i].one_pass, &e), 0);
        CHECK_STR(e.row->name, isal ? t[i].row : t[i].row_plain);
        CHECK_INT(e.level, isal ? t[i].row_level : t[i].plain_level);
    }
    e.row = NULL;
    CHECK_INT(pib_encoder_pick(PIB_CODING_IDENTITY, 1, 0, 1, &e), -1);
    CHECK(e.row == NULL);
}

/* A oneshot stream refuses more than announced; switching to zlib keeps
 * every byte. */
static void overflow_switch(void)
{
    pib_codec_params p = { 6, 12, 4, 100, NULL };
    unsigned char *in = make_input(300, 1), out[400];
    sink k = { NULL, 0, 0 };
    pib_cstream s;
    size_t got;

    CHECK_INT(pib_cstream_init(&s, &pib_codec_oneshot, &p, sink_emit, &k),
              0);
    CHECK_INT(s.codec->add(&s, in, 80), 0);
    CHECK_INT(s.codec->add(&s, in + 80, 220), -1);
    CHECK_INT(s.codec->flush(&s), -1);
    CHECK_INT(pib_cstream_to_stream(&s, &p), 0);
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
    pib_codec_params p = { 1, 15, 8, 0, NULL };
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
    pib_codec_params p = { 42, 15, 8, 0, NULL };
    sink k = { NULL, 0, 0 };
    pib_cstream s;

    CHECK_INT(pib_cstream_init(&s, &pib_codec_zlib, &p, sink_emit, &k), -1);
    s.codec->end(&s);
}

/* A thread that takes a level-7 compressor (it must wait: all are out)
 * and tells when it has one. */
typedef struct {
    struct libdeflate_compressor *got;
    volatile int done;
} taker;

static void *take7(void *arg)
{
    taker *t = arg;

    t->got = pib_ld_take(7);
    __atomic_store_n(&t->done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* The compressors: an idle one is reused, levels are kept apart, no more
 * than the limit of a level exist -- a take beyond it waits until one is
 * given back and gets that one --, a bad level gives NULL, drain frees
 * the idle ones.  Counts are relative: other tests above used the
 * compressors too. */
static void pool(void)
{
    struct libdeflate_compressor *c[3], *a, *b;
    unsigned long live0, idle0, live, idle, waits0;
    pthread_t th;
    taker tk = { NULL, 0 };
    int i;

    pib_ld_set_limit(0);
    CHECK_INT((long)pib_ld_get_limit(), 1);      /* clamped */
    pib_ld_set_limit(PIB_LD_MAX + 1);
    CHECK_INT((long)pib_ld_get_limit(), PIB_LD_MAX);
    pib_ld_set_limit(3);

    pib_ld_counts(&live0, &idle0);
    a = pib_ld_take(4);
    CHECK(a != NULL);
    pib_ld_put(a, 4);
    b = pib_ld_take(4);
    CHECK(b == a);                       /* reused, not allocated */
    pib_ld_put(b, 4);
    CHECK(pib_ld_take(13) == NULL);
    CHECK(pib_ld_take(-1) == NULL);
    pib_ld_put(NULL, 4);                 /* harmless */
    pib_ld_put(a, 13);                   /* a bad level: ignored */
    pib_ld_counts(&live, &idle);
    CHECK_INT((long)(live - live0), 1);
    CHECK_INT((long)(idle - idle0), 1);

    /* level 7: three out, a fourth take waits until one comes back */
    for (i = 0; i < 3; i++) {
        c[i] = pib_ld_take(7);
        CHECK(c[i] != NULL);
    }
    a = pib_ld_take(4);                  /* another level: not held up */
    CHECK(a != NULL);
    pib_ld_put(a, 4);
    waits0 = pib_ld_waits();
    CHECK_INT(pthread_create(&th, NULL, take7, &tk), 0);
    for (i = 0; i < 2000 && pib_ld_waits() == waits0; i++) {
        usleep(1000);                    /* until it waits (2 s at most) */
    }
    CHECK_INT((long)(pib_ld_waits() - waits0), 1);
    usleep(20000);
    CHECK_INT(__atomic_load_n(&tk.done, __ATOMIC_SEQ_CST), 0);
    pib_ld_put(c[1], 7);
    pthread_join(th, NULL);
    CHECK(tk.got == c[1]);               /* the one given back */
    pib_ld_counts(&live, &idle);
    CHECK_INT((long)(live - live0), 1 + 3);
    pib_ld_put(tk.got, 7);
    pib_ld_put(c[0], 7);
    pib_ld_put(c[2], 7);
    pib_ld_counts(&live, &idle);
    CHECK_INT((long)(idle - idle0), 1 + 3);      /* all kept */

    /* a limit lowered while some are out: those given back beyond it are
     * freed */
    for (i = 0; i < 3; i++) {
        c[i] = pib_ld_take(7);
    }
    pib_ld_set_limit(1);
    for (i = 0; i < 3; i++) {
        pib_ld_put(c[i], 7);
    }
    pib_ld_counts(&live, &idle);
    CHECK_INT((long)(live - live0), 1 + 1);
    pib_ld_set_limit(3);

    /* drain frees every idle one; one in use stays counted and is kept
     * when given back */
    a = pib_ld_take(4);
    CHECK(a != NULL);
    pib_ld_counts(&live0, &idle0);
    CHECK(idle0 > 0);
    pib_ld_drain();
    pib_ld_counts(&live, &idle);
    CHECK_INT((long)idle, 0);
    CHECK_INT((long)live, (long)(live0 - idle0));
    pib_ld_put(a, 4);
    pib_ld_counts(&live, &idle);
    CHECK_INT((long)idle, 1);
    CHECK(pib_ld_take(4) == a);
    pib_ld_put(a, 4);
    pib_ld_set_limit(PIB_LD_DEFAULT);
}

/* The buffer pool: the smallest idle buffer that fits is reused, sizes
 * round up to the grain, big ones and ones beyond PIB_BUF_IDLE_MAX idle
 * are freed, drain frees the idle ones. */
static void buffers(void)
{
    unsigned char *b[PIB_BUF_IDLE_MAX + 2], *x, *y;
    size_t cap[PIB_BUF_IDLE_MAX + 2], c1, c2;
    unsigned long live0, idle0, live, idle;
    int i;

    pib_ld_drain();
    pib_buf_counts(&live0, &idle0);
    CHECK_INT((long)idle0, 0);
    x = pib_buf_take(0, &c1);           /* an empty body still gets one */
    CHECK(x != NULL && c1 == PIB_BUF_GRAIN);
    pib_buf_put(x, c1);
    pib_ld_drain();
    CHECK(pib_buf_take((size_t)-1, &c1) == NULL && c1 == 0);
    x = pib_buf_take(50000, &c1);
    CHECK(x != NULL && c1 >= 50000 && c1 % PIB_BUF_GRAIN == 0
          && c1 < 50000 + PIB_BUF_GRAIN);
    y = pib_buf_take(100000, &c2);
    CHECK(y != NULL && c2 >= 100000);
    memset(x, 'x', c1);                 /* all of cap is ours (ASan) */
    memset(y, 'y', c2);
    pib_buf_put(y, c2);
    pib_buf_put(x, c1);
    CHECK(pib_buf_take(40000, &c1) == x);   /* the smaller that fits */
    CHECK(pib_buf_take(60000, &c2) == y);
    pib_buf_put(x, c1);
    pib_buf_put(y, c2);
    x = pib_buf_take(PIB_BUF_KEEP_MAX + 1, &c1);
    CHECK(x != NULL);
    pib_buf_counts(&live, &idle);
    CHECK_INT((long)(live - live0), 3);
    pib_buf_put(x, c1);                 /* too big to keep: freed */
    pib_buf_counts(&live, &idle);
    CHECK_INT((long)(live - live0), 2);
    CHECK_INT((long)idle, 2);

    for (i = 0; i < PIB_BUF_IDLE_MAX + 2; i++) {
        b[i] = pib_buf_take(300000 - i, &cap[i]);   /* none idle fits */
        CHECK(b[i] != NULL && cap[i] >= (size_t)(300000 - i));
    }
    for (i = 0; i < PIB_BUF_IDLE_MAX + 2; i++) {
        pib_buf_put(b[i], cap[i]);      /* 300,000 > KEEP_MAX: freed */
    }
    pib_buf_counts(&live, &idle);
    CHECK_INT((long)(live - live0), 2);
    for (i = 0; i < PIB_BUF_IDLE_MAX + 2; i++) {
        b[i] = pib_buf_take(1000, &cap[i]);
    }
    for (i = 0; i < PIB_BUF_IDLE_MAX + 2; i++) {
        pib_buf_put(b[i], cap[i]);
    }
    pib_buf_counts(&live, &idle);
    CHECK_INT((long)idle, PIB_BUF_IDLE_MAX);
    CHECK_INT((long)(live - live0), PIB_BUF_IDLE_MAX);
    pib_ld_drain();
    pib_buf_counts(&live, &idle);
    CHECK_INT((long)idle, 0);
    CHECK_INT((long)live, (long)live0);
}

/* Threads compressing at once each get their own compressor, and the
 * output of every one gunzips to its input. */
#define POOL_THREADS 6
#define POOL_ROUNDS 40

static void *pool_worker(void *arg)
{
    long *bad = arg;
    unsigned char in[20000], out[30000];
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    int r;
    size_t i;

    for (r = 0; r < POOL_ROUNDS; r++) {
        struct libdeflate_compressor *c = pib_ld_take(1);
        size_t n, got = 0;

        for (i = 0; i < sizeof(in); i++) {
            in[i] = (unsigned char)("pibalance "[(i + r) % 10]);
        }
        n = c ? libdeflate_gzip_compress(c, in, sizeof(in), out, sizeof(out))
              : 0;
        pib_ld_put(c, 1);
        if (n == 0 || libdeflate_gzip_decompress(d, out, n, in, sizeof(in),
                                                 &got) != LIBDEFLATE_SUCCESS
            || got != sizeof(in)) {
            (*bad)++;
        }
    }
    libdeflate_free_decompressor(d);
    return NULL;
}

static void pool_threads(void)
{
    pthread_t t[POOL_THREADS];
    long bad[POOL_THREADS] = { 0 };
    unsigned long live0, idle0, live, idle;
    int i;

    pib_ld_drain();
    pib_ld_set_limit(2);                 /* fewer than the threads */
    pib_ld_counts(&live0, &idle0);
    for (i = 0; i < POOL_THREADS; i++) {
        CHECK_INT(pthread_create(&t[i], NULL, pool_worker, &bad[i]), 0);
    }
    for (i = 0; i < POOL_THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK_INT(bad[i], 0);
    }
    pib_ld_counts(&live, &idle);
    CHECK(live - live0 <= 2);            /* never more than the limit */
    CHECK_INT((long)(live - idle), (long)(live0 - idle0)); /* all back */
    pib_ld_set_limit(PIB_LD_DEFAULT);
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
    igzip_rows(sizes, sizeof(sizes) / sizeof(sizes[0]));
    encoder_pick();
    overflow_switch();
    truncated();
    bad_params();
    pool();
    buffers();
    pool_threads();
}
