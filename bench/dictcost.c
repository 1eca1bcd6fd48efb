/* dictcost.c -- bytes and master CPU per response of gzip-1, zstd-3,
 * br-4 and dcz-3 for a returning client (issue 30 items 5 and 7),
 * through mod_pibalance's own codec rows, one pass (a body of known
 * length, as the master compresses most pages).
 *
 *   dictcost NAME MODE SECONDS FILE0 FILE1 ... FILEn
 *
 * FILE0..FILEn are versions of one resource in order; each of versions
 * 1..n is compressed by every coding and the mean bytes and CPU per
 * response printed.  MODE says what dcz compresses against, as the
 * master would hold it:
 *   prefix    FILE0 for every version (a dynamic page: the prefix's
 *             dictionary, made from an earlier page)
 *   previous  version k-1 for version k (a versioned script: the client
 *             holds the previous one)
 * The one-time cost of preparing a dictionary (its CDict, once per child
 * and level) is measured apart and not in the per-response CPU: dcz's
 * row prepares on first use, so every cell is run once before timing.
 * CPU is this thread's (CLOCK_THREAD_CPUTIME_ID); each cell runs for
 * SECONDS of CPU, at most 100,000 times and 10 x SECONDS of wall time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pib_codec.h"
#include "pib_dcz.h"

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

static size_t one(const pib_codec *row, int level, pib_dict *d,
                  const unsigned char *in, size_t n)
{
    pib_codec_params p = { level, 15, 8, n, d };
    pib_cstream s;
    size_t out = 0;
    int ok = pib_cstream_init(&s, row, &p, count_emit, &out) == 0
             && row->add(&s, in, n) == 0 && row->finish(&s) == 0;

    row->end(&s);
    return ok ? out : 0;
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b;
    long len;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) <= 0) {
        perror(path);
        exit(2);
    }
    rewind(f);
    b = malloc((size_t)len);
    *n = fread(b, 1, (size_t)len, f);
    fclose(f);
    return b;
}

int main(int argc, char **argv)
{
    static const struct { const char *name; const pib_codec *row; int level;
                          int dict; } cells[] = {
        { "gzip-1", &pib_codec_oneshot, 1, 0 },
        { "zstd-3", &pib_codec_zstd_oneshot, 3, 0 },
        { "br-4", &pib_codec_br_oneshot, 4, 0 },
        { "dcz-3", &pib_codec_dcz_oneshot, 3, 1 },
    };
    int nv, i, c, prev;
    double secs, prep = 0;
    unsigned char **v;
    size_t *len, total = 0;
    pib_dict **dict;

    if (argc < 6) {
        fprintf(stderr, "usage: dictcost NAME prefix|previous SECONDS "
                        "FILE0 FILE1...\n");
        return 2;
    }
    prev = strcmp(argv[2], "previous") == 0;
    secs = atof(argv[3]);
    nv = argc - 4;
    v = calloc((size_t)nv, sizeof(*v));
    len = calloc((size_t)nv, sizeof(*len));
    dict = calloc((size_t)nv, sizeof(*dict));
    for (i = 0; i < nv; i++) {
        v[i] = slurp(argv[4 + i], &len[i]);
        if (i > 0) {
            total += len[i];
        }
    }
    for (i = 1; i < nv; i++) {
        int from = prev ? i - 1 : 0;
        double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);

        dict[i] = pib_dict_make(v[from], len[from]);
        if (dict[i] == NULL || pib_dict_cdict(dict[i], 3) == NULL) {
            fprintf(stderr, "dictionary failed\n");
            return 2;
        }
        prep += clock_s(CLOCK_THREAD_CPUTIME_ID) - t0;
    }
    printf("# %s: %d versions of %.0f bytes on average, dcz against %s\n",
           argv[1], nv - 1, (double)total / (nv - 1),
           prev ? "the previous version" : "version 0 (the prefix's)");
    printf("%-10s %-7s %10s %8s %12s %9s\n", "resource", "coding",
           "bytes", "ratio", "cpu_us/resp", "x_zstd3");
    {
        double bytes[4] = { 0 }, us[4] = { 0 };

        for (c = 0; c < 4; c++) {
            double cpu0, wall0;
            long runs = 0;

            for (i = 1; i < nv; i++) {  /* also the warm-up */
                size_t o = one(cells[c].row, cells[c].level,
                               cells[c].dict ? dict[i] : NULL, v[i], len[i]);

                if (o == 0) {
                    fprintf(stderr, "%s failed\n", cells[c].name);
                    return 2;
                }
                bytes[c] += (double)o;
            }
            cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
            wall0 = clock_s(CLOCK_MONOTONIC);
            while (runs < 100000
                   && clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0 < secs
                   && clock_s(CLOCK_MONOTONIC) - wall0 < 10 * secs) {
                for (i = 1; i < nv; i++, runs++) {
                    one(cells[c].row, cells[c].level,
                        cells[c].dict ? dict[i] : NULL, v[i], len[i]);
                }
            }
            us[c] = (clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0) / runs * 1e6;
        }
        for (c = 0; c < 4; c++) {
            printf("%-10s %-7s %10.0f %8.4f %12.1f %9.2f\n", argv[1],
                   cells[c].name, bytes[c] / (nv - 1),
                   bytes[c] / (double)total, us[c], us[c] / us[1]);
        }
        printf("%-10s dcz bytes / gzip-1 bytes: 1/%.0f\n", argv[1],
               bytes[0] / bytes[3]);
    }
    printf("%-10s prepare one dictionary (CDict, level 3): %.1f us\n",
           argv[1], prep / (nv - 1) * 1e6);
    return 0;
}
