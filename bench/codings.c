/* codings.c -- bytes per page and CPU per page of every coding and level
 * the offload can produce (issue 19), through mod_pibalance's own codec
 * rows: one pass (a body of known length, as most pages are) and
 * streamed (PiBalanceDeflateBuffer 0 or unknown length).
 *
 *   codings FILE [SECONDS_PER_CELL [ROUNDS [quick]]]
 *                    one line per coding, level, row: bytes, CPU us a
 *                    page (the least and the median of ROUNDS rounds,
 *                    interleaved cell by cell), pages/s at the least;
 *                    quick: the fast levels only (bench/offload.sh)
 *
 * gzip's rows: libdeflate (oneshot), zlib, and ISA-L's igzip at levels
 * 0-3 where the build has it; zstd from -5 (its fast levels) to 19.
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

#define PIB_ROUNDS_MAX 15
#define PIB_CELLS_MAX 64

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

typedef struct {
    const char *coding;
    const pib_codec *row;
    int level;
    size_t bytes;
    double us[PIB_ROUNDS_MAX];      /* CPU us a page, each round */
} bench_cell;

/* One round of one cell: compresses the page for secs of CPU time. */
static void cell_round(bench_cell *c, int round, const unsigned char *in,
                       size_t n, double secs)
{
    double c0, w0 = clock_s(CLOCK_MONOTONIC), cpu;
    long pages = 0;

    c->bytes = one(c->row, c->level, in, n);        /* warm the pools */
    c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    do {
        one(c->row, c->level, in, n);
        pages++;
        cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    } while (cpu < secs && pages < 100000
             && clock_s(CLOCK_MONOTONIC) - w0 < 10 * secs);
    c->us[round] = cpu / pages * 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static void cell_print(bench_cell *c, int rounds)
{
    double v[PIB_ROUNDS_MAX];

    memcpy(v, c->us, sizeof(v[0]) * (size_t)rounds);
    qsort(v, (size_t)rounds, sizeof(v[0]), cmp_double);
    printf("%-5s %3d %-13s %7zu bytes  %8.1f us/page (min)  %8.1f "
           "(median)  %8.0f pages/s\n", c->coding, c->level, c->row->name,
           c->bytes, v[0], v[rounds / 2], 1e6 / v[0]);
}

static size_t add(bench_cell *cells, size_t n, const char *coding,
                  const pib_codec *row, int level)
{
    if (row != NULL && n < PIB_CELLS_MAX) {
        cells[n].coding = coding;
        cells[n].row = row;
        cells[n].level = level;
        n++;
    }
    return n;
}

int main(int argc, char **argv)
{
    static const int gz[] = { 1, 6, 9 }, zs[] = { -5, -3, -1, 1, 3, 6, 9, 19 },
                     br[] = { 1, 4, 5, 6, 9, 11 };
    static bench_cell cells[PIB_CELLS_MAX];
    double secs = argc > 2 ? atof(argv[2]) : 0.3;
    int rounds = argc > 3 ? atoi(argv[3]) : 1, r, quick = argc > 4;
    unsigned char *in;
    size_t n, i, nc = 0;
    FILE *f;
    long len;

    if (argc < 2 || (f = fopen(argv[1], "rb")) == NULL) {
        fprintf(stderr, "usage: codings FILE [SECONDS_PER_CELL [ROUNDS "
                "[quick]]]\n");
        return 2;
    }
    rounds = rounds < 1 ? 1 : rounds > PIB_ROUNDS_MAX ? PIB_ROUNDS_MAX
                                                      : rounds;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    rewind(f);
    in = malloc((size_t)len + 1);
    n = fread(in, 1, (size_t)len, f);
    fclose(f);
    printf("# %s: %zu bytes, %d round(s) of %.2f CPU s a cell\n", argv[1],
           n, rounds, secs);
    for (i = 0; i < sizeof(gz) / sizeof(gz[0]); i++) {
        nc = add(cells, nc, "gzip", &pib_codec_oneshot, gz[i]);
        if (!quick) {
            nc = add(cells, nc, "gzip", &pib_codec_zlib, gz[i]);
        }
    }
    for (i = 0; i <= PIB_IGZIP_LEVEL_MAX; i++) {
        nc = add(cells, nc, "gzip", pib_codec_igzip(1), (int)i);
        nc = add(cells, nc, "gzip", pib_codec_igzip(0), (int)i);
    }
    for (i = 0; i < sizeof(zs) / sizeof(zs[0]); i++) {
        if (quick && zs[i] > 3) {
            break;
        }
        nc = add(cells, nc, "zstd", &pib_codec_zstd_oneshot, zs[i]);
        nc = add(cells, nc, "zstd", &pib_codec_zstd, zs[i]);
    }
    for (i = 0; i < sizeof(br) / sizeof(br[0]) && !quick; i++) {
        nc = add(cells, nc, "br", &pib_codec_br_oneshot, br[i]);
        nc = add(cells, nc, "br", &pib_codec_br, br[i]);
    }
    for (r = 0; r < rounds; r++) {          /* interleaved: cell by cell */
        for (i = 0; i < nc; i++) {
            cell_round(&cells[i], r, in, n, secs);
        }
    }
    for (i = 0; i < nc; i++) {
        cell_print(&cells[i], rounds);
    }
    free(in);
    return 0;
}
