/* ceiling.c -- single-core compression ceilings for one page: how many
 * pages per second zlib and libdeflate could gzip if the CPU did nothing
 * else.  zlib pays deflateInit2/deflateEnd per page (as a filter does);
 * libdeflate reuses one compressor (as mod_pibalance does per thread).
 *
 *   ceiling FILE [SECONDS_PER_CELL]   prints one line per codec and level
 *
 * Time is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so other work
 * on a shared machine does not lower the figures; compare them with the
 * fronts' CPU time per page.  Every loop is bounded by CPU time (default
 * 0.3 s per cell), by count, and by wall time (ten times the CPU time).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include <libdeflate.h>

static double clock_s(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void)
{
    return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

static size_t zlib_once(const unsigned char *in, size_t n, unsigned char *out,
                        size_t cap, int level)
{
    z_stream z;
    size_t got;

    memset(&z, 0, sizeof(z));
    if (deflateInit2(&z, level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY)
        != Z_OK) {
        return 0;
    }
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    got = cap - z.avail_out;
    deflateEnd(&z);
    return got;
}

static void cell(const char *name, int level, const unsigned char *in,
                 size_t n, unsigned char *out, size_t cap, double secs)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    double t0 = now(), w0 = clock_s(CLOCK_MONOTONIC), dt;
    long pages = 0;
    size_t got = 0;

    do {
        got = name[0] == 'z' ? zlib_once(in, n, out, cap, level)
                             : libdeflate_gzip_compress(c, in, n, out, cap);
        pages++;
    } while (pages < 1000000
             && (pages % 16 || (now() - t0 < secs
                                && clock_s(CLOCK_MONOTONIC) - w0 < 10 * secs)));
    dt = now() - t0;
    printf("%-10s %d %8.0f %8.1f %7zu\n", name, level, pages / dt,
           pages * (double)n / dt / 1e6, got);
    libdeflate_free_compressor(c);
}

int main(int argc, char **argv)
{
    double secs = argc > 2 ? atof(argv[2]) : 0.3;
    unsigned char *in, *out;
    size_t n, cap;
    FILE *f;
    int level;

    if (argc < 2 || (f = fopen(argv[1], "rb")) == NULL) {
        fprintf(stderr, "usage: ceiling FILE [SECONDS_PER_CELL]\n");
        return 2;
    }
    in = malloc(16 << 20);
    n = fread(in, 1, 16 << 20, f);
    fclose(f);
    cap = n + n / 2 + 1024;
    out = malloc(cap);
    printf("# codec   level pages/s     MB/s   bytes   (input %zu bytes)\n",
           n);
    for (level = 1; level <= 9; level++) {
        cell("zlib", level, in, n, out, cap, secs);
        cell("libdeflate", level, in, n, out, cap, secs);
    }
    for (; level <= 12; level++) {      /* PiBalanceDeflateStoreLevel */
        cell("libdeflate", level, in, n, out, cap, secs);
    }
    free(in);
    free(out);
    return 0;
}
