/* dictbuild.c -- which dictionary for a dynamic page: the last page seen,
 * or zstd's dictionary builder trained on sampled pages?  (issue 30)
 *
 *   dictbuild LEVEL SAMPLES DICTSIZE PAGE...
 *
 * The pages are in the order a master would see them.  For every page
 * after the first SAMPLES, prints nothing; at the end, one line per way
 * of making the dictionary with the mean bytes of the dcz body (header
 * included) over those pages, and the zstd bytes without a dictionary:
 *
 *   none      no dictionary (plain zstd at LEVEL)
 *   recent    the page just before (a new dictionary every page)
 *   first     the first page, kept (a dictionary made once)
 *   stale-K   the page K pages before (K = SAMPLES: how a kept recent page
 *             ages)
 *   trained   ZDICT_trainFromBuffer over the first SAMPLES pages, DICTSIZE
 *             bytes, its content section used as raw content (what a dcz
 *             decoder does with the bytes it was given)
 *   concat    the last SAMPLES pages' tails concatenated up to DICTSIZE
 *
 * Every dictionary is raw content (ZSTD_dct_rawContent), as in dcz.
 * Also prints the time to build the trained dictionary.
 */
#define ZSTD_STATIC_LINKING_ONLY
#define ZDICT_STATIC_LINKING_ONLY
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>
#include <zdict.h>

typedef struct { unsigned char *p; size_t n; } blob;

static blob slurp(const char *path)
{
    blob b = { NULL, 0 };
    FILE *f = fopen(path, "rb");
    long n;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0) {
        perror(path);
        exit(2);
    }
    rewind(f);
    b.p = malloc((size_t)n + 1);
    b.n = fread(b.p, 1, (size_t)n, f);
    fclose(f);
    return b;
}

static size_t dcz_size(ZSTD_CCtx *c, int level, const blob *dict,
                       const blob *src)
{
    size_t cap = ZSTD_compressBound(src->n), n;
    void *out = malloc(cap);
    ZSTD_CDict *cd = NULL;

    ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
    if (dict != NULL && dict->n > 0) {
        cd = ZSTD_createCDict_advanced(dict->p, dict->n, ZSTD_dlm_byRef,
                                       ZSTD_dct_rawContent,
                                       ZSTD_getCParams(level, src->n,
                                                       dict->n),
                                       ZSTD_defaultCMem);
        ZSTD_CCtx_refCDict(c, cd);
    }
    n = ZSTD_compress2(c, out, cap, src->p, src->n);
    ZSTD_freeCDict(cd);
    free(out);
    if (ZSTD_isError(n)) {
        fprintf(stderr, "zstd: %s\n", ZSTD_getErrorName(n));
        exit(2);
    }
    return n + (dict != NULL ? 40 : 0);
}

int main(int argc, char **argv)
{
    int level, samples, npages, i;
    size_t dictsize, hdr;
    blob *pg, trained = { NULL, 0 }, concat = { NULL, 0 };
    double sum[6] = { 0 }, ms;
    const char *name[6] = { "none", "recent", "first", "stale-K", "trained",
                            "concat" };
    ZSTD_CCtx *c = ZSTD_createCCtx();
    struct timespec t0, t1;

    if (argc < 5) {
        fprintf(stderr, "usage: dictbuild LEVEL SAMPLES DICTSIZE PAGE...\n");
        return 2;
    }
    level = atoi(argv[1]);
    samples = atoi(argv[2]);
    dictsize = (size_t)atol(argv[3]);
    npages = argc - 4;
    if (samples < 1 || samples >= npages) {
        fprintf(stderr, "need more pages than samples\n");
        return 2;
    }
    pg = calloc((size_t)npages, sizeof(*pg));
    for (i = 0; i < npages; i++) {
        pg[i] = slurp(argv[4 + i]);
    }
    {
        size_t total = 0, *sizes = calloc((size_t)samples, sizeof(size_t));
        unsigned char *all;

        for (i = 0; i < samples; i++) {
            total += pg[i].n;
        }
        all = malloc(total);
        total = 0;
        for (i = 0; i < samples; i++) {
            memcpy(all + total, pg[i].p, pg[i].n);
            total += pg[i].n;
            sizes[i] = pg[i].n;
        }
        trained.p = malloc(dictsize);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        trained.n = ZDICT_trainFromBuffer(trained.p, dictsize, all, sizes,
                                          (unsigned)samples);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
        if (ZDICT_isError(trained.n)) {
            fprintf(stderr, "train: %s\n", ZDICT_getErrorName(trained.n));
            trained.n = 0;
        }
        else {
            hdr = ZDICT_getDictHeaderSize(trained.p, trained.n);
            if (!ZDICT_isError(hdr)) {  /* keep the content only */
                memmove(trained.p, trained.p + hdr, trained.n - hdr);
                trained.n -= hdr;
            }
        }
        /* concat: the last pages' tails, newest last (zstd prefers the
         * end of a raw dictionary: closest offsets) */
        concat.p = malloc(dictsize);
        for (i = samples - 1; i >= 0 && concat.n < dictsize; i--) {
            size_t take = pg[i].n / (size_t)samples;
            if (take > dictsize - concat.n) {
                take = dictsize - concat.n;
            }
            memmove(concat.p + take, concat.p, concat.n);
            memcpy(concat.p, pg[i].p + pg[i].n - take, take);
            concat.n += take;
        }
        free(all);
        free(sizes);
    }
    for (i = samples; i < npages; i++) {
        sum[0] += (double)dcz_size(c, level, NULL, &pg[i]);
        sum[1] += (double)dcz_size(c, level, &pg[i - 1], &pg[i]);
        sum[2] += (double)dcz_size(c, level, &pg[0], &pg[i]);
        sum[3] += (double)dcz_size(c, level, &pg[i - samples], &pg[i]);
        sum[4] += (double)dcz_size(c, level, &trained, &pg[i]);
        sum[5] += (double)dcz_size(c, level, &concat, &pg[i]);
    }
    for (i = 0; i < 6; i++) {
        printf("%-8s %9.0f bytes/page\n", name[i], sum[i] / (npages - samples));
    }
    printf("trained dictionary: %zu bytes of content, built in %.1f ms "
           "from %d pages\n", trained.n, ms, samples);
    ZSTD_freeCCtx(c);
    return 0;
}
