/* codings.c -- bytes per page and CPU per page of every coding and level
 * the offload can produce (issue 19), through mod_pibalance's own codec
 * rows: one pass (a body of known length, as most pages are) and
 * streamed (PiBalanceDeflateBuffer 0 or unknown length).
 *
 *   codings FILE [SECONDS_PER_CELL]   one line per coding, level, row
 *
 * CPU is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID): other work on
 * a shared machine does not change it much.  Every loop is bounded by
 * CPU time (default 0.3 s a cell), by count (100,000) and by wall time
 * (ten times the CPU time).  Built by bench/codings.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pib_codec.h"

static double clock_s(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void count_emit(void *baton, const unsigned char *p, size_t n)
{
    (void)p;
    *(size_t *)baton += n;
}

/* Compresses the page once; returns the compressed size, 0 on error. */
static size_t one(const pib_codec *row, int level, const unsigned char *in,
                  size_t n)
{
    pib_codec_params p = { level, 15, 8, n, NULL };
    pib_cstream s;
    size_t out = 0;
    int ok;

    ok = pib_cstream_init(&s, row, &p, count_emit, &out) == 0
         && s.codec->add(&s, in, n) == 0 && s.codec->finish(&s) == 0;
    s.codec->end(&s);
    return ok ? out : 0;
}

static void cell(const char *coding, const pib_codec *row, int level,
                 const unsigned char *in, size_t n, double secs)
{
    double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
    double cpu;
    size_t bytes = one(row, level, in, n);      /* warm the pools */
    long pages = 0;

    c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    do {
        one(row, level, in, n);
        pages++;
        cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    } while (cpu < secs && pages < 100000
             && clock_s(CLOCK_MONOTONIC) - w0 < 10 * secs);
    printf("%-5s %2d %-12s %7zu bytes  %8.1f us/page  %8.0f pages/s\n",
           coding, level, row->name, bytes, cpu / pages * 1e6,
           pages / cpu);
}

int main(int argc, char **argv)
{
    static const int gz[] = { 1, 6, 9 }, zs[] = { 1, 3, 6, 9, 19 },
                     br[] = { 1, 4, 5, 6, 9, 11 };
    double secs = argc > 2 ? atof(argv[2]) : 0.3;
    unsigned char *in;
    size_t n, i;
    FILE *f;
    long len;

    if (argc < 2 || (f = fopen(argv[1], "rb")) == NULL) {
        fprintf(stderr, "usage: codings FILE [SECONDS_PER_CELL]\n");
        return 2;
    }
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    rewind(f);
    in = malloc((size_t)len + 1);
    n = fread(in, 1, (size_t)len, f);
    fclose(f);
    printf("# %s: %zu bytes\n", argv[1], n);
    for (i = 0; i < sizeof(gz) / sizeof(gz[0]); i++) {
        cell("gzip", &pib_codec_oneshot, gz[i], in, n, secs);
        cell("gzip", &pib_codec_zlib, gz[i], in, n, secs);
    }
    for (i = 0; i < sizeof(zs) / sizeof(zs[0]); i++) {
        cell("zstd", &pib_codec_zstd_oneshot, zs[i], in, n, secs);
        cell("zstd", &pib_codec_zstd, zs[i], in, n, secs);
    }
    for (i = 0; i < sizeof(br) / sizeof(br[0]); i++) {
        cell("br", &pib_codec_br_oneshot, br[i], in, n, secs);
        cell("br", &pib_codec_br, br[i], in, n, secs);
    }
    free(in);
    return 0;
}
