/* pib_dbuild.c -- a dictionary for a prefix of dynamic pages: samples,
 * two candidates, the better one kept (pure; the numbers behind it in
 * pib_dbuild.h).
 *
 * Cost per build: one ZDICT_trainFromBuffer over at most 12 pages (its
 * working memory ~6 MB, freed at once) and up to 8 one-pass dcz
 * compressions of the held-out pages; memory held between builds: the
 * samples, at most PIB_DBUILD_SAMPLES bodies of at most the dictionary
 * size bound each (the caller refuses larger ones).
 */
#define ZDICT_STATIC_LINKING_ONLY   /* ZDICT_getDictHeaderSize */
#include <stdlib.h>
#include <string.h>

#include <zdict.h>

#include "pib_dbuild.h"
#include "pib_dcz.h"

int pib_dsamples_add(pib_dsamples *s, const unsigned char *p, size_t n)
{
    unsigned char *c = malloc(n ? n : 1);

    if (c == NULL) {
        return -1;
    }
    memcpy(c, p, n);
    free(s->buf[s->next]);          /* the oldest, when full */
    s->buf[s->next] = c;
    s->len[s->next] = n;
    s->next = (s->next + 1) % PIB_DBUILD_SAMPLES;
    if (s->n < PIB_DBUILD_SAMPLES) {
        s->n++;
    }
    return 0;
}

const unsigned char *pib_dsamples_get(const pib_dsamples *s, int i,
                                      size_t *n)
{
    int at = (s->next - s->n + i + 2 * PIB_DBUILD_SAMPLES)
             % PIB_DBUILD_SAMPLES;

    *n = s->len[at];
    return s->buf[at];
}

void pib_dsamples_clear(pib_dsamples *s)
{
    int i;

    for (i = 0; i < PIB_DBUILD_SAMPLES; i++) {
        free(s->buf[i]);
    }
    memset(s, 0, sizeof(*s));
}

/* dcz bytes over identity bytes for samples [from, to) against d; -1
 * when a compression fails. */
static double pib_dbuild_ratio(pib_dict *d, int level,
                               const pib_dsamples *s, int from, int to)
{
    double in = 0, out = 0;
    int i;

    for (i = from; i < to; i++) {
        size_t n, zn;
        const unsigned char *p = pib_dsamples_get(s, i, &n);
        unsigned char *z;

        if (pib_dcz_compress(d, level, p, n, &z, &zn) != 0) {
            return -1;
        }
        free(z);
        in += (double)n;
        out += (double)zn;
    }
    return in > 0 ? out / in : -1;
}

/* The last max bytes of sample i as a dictionary. */
static pib_dict *pib_dbuild_page(const pib_dsamples *s, int i, size_t max)
{
    size_t n;
    const unsigned char *p = pib_dsamples_get(s, i, &n);

    if (n > max) {
        p += n - max;
        n = max;
    }
    return pib_dict_make(p, n);
}

/* Trained content over samples [0, to), at most max bytes; NULL when
 * the builder fails (too little data to train on, for one). */
static pib_dict *pib_dbuild_trained(const pib_dsamples *s, int to,
                                    size_t max)
{
    size_t total = 0, sizes[PIB_DBUILD_SAMPLES], got, hdr;
    unsigned char *all, *dict;
    pib_dict *d = NULL;
    int i;

    for (i = 0; i < to; i++) {
        pib_dsamples_get(s, i, &sizes[i]);
        total += sizes[i];
    }
    if ((all = malloc(total ? total : 1)) == NULL
        || (dict = malloc(max)) == NULL) {
        free(all);
        return NULL;
    }
    for (total = 0, i = 0; i < to; i++) {
        size_t n;
        const unsigned char *p = pib_dsamples_get(s, i, &n);

        memcpy(all + total, p, n);
        total += n;
    }
    got = ZDICT_trainFromBuffer(dict, max, all, sizes, (unsigned)to);
    free(all);
    if (!ZDICT_isError(got)
        && !ZDICT_isError(hdr = ZDICT_getDictHeaderSize(dict, got))
        && hdr < got) {
        /* the content only: the same bytes for every decoder */
        memmove(dict, dict + hdr, got - hdr);
        d = pib_dict_adopt(dict, got - hdr);
        dict = NULL;
    }
    free(dict);
    return d;
}

int pib_dbuild_make(const pib_dsamples *s, int level, size_t max_dict,
                    pib_dbuilt *out)
{
    int hold = s->n / 4 > 0 ? s->n / 4 : 1, train = s->n - hold;
    pib_dict *page, *trained = NULL;
    double rp, rt = -1;

    memset(out, 0, sizeof(*out));
    out->ratio_page = out->ratio_trained = -1;
    if (s->n < PIB_DBUILD_MIN || max_dict == 0
        || (page = pib_dbuild_page(s, train - 1, max_dict)) == NULL) {
        return -1;
    }
    rp = pib_dbuild_ratio(page, level, s, train, s->n);
    pib_dict_free(page);
    if (train >= PIB_DBUILD_TRAIN_MIN
        && (trained = pib_dbuild_trained(s, train, max_dict)) != NULL) {
        rt = pib_dbuild_ratio(trained, level, s, train, s->n);
    }
    out->ratio_page = rp;
    out->ratio_trained = rt;
    if (rt >= 0 && (rp < 0 || rt < rp)) {
        out->kind = PIB_DKIND_TRAINED;
        out->ratio = rt;
        out->len = trained->len;
        out->bytes = trained->bytes;        /* taken over */
        trained->bytes = NULL;
        trained->len = 0;
    }
    else if (rp >= 0) {
        size_t n;
        const unsigned char *p = pib_dsamples_get(s, s->n - 1, &n);

        if (n > max_dict) {
            p += n - max_dict;
            n = max_dict;
        }
        if ((out->bytes = malloc(n)) != NULL) {
            memcpy(out->bytes, p, n);
            out->len = n;
            out->kind = PIB_DKIND_PAGE;
            out->ratio = rp;
        }
    }
    pib_dict_free(trained);         /* its bytes, unless taken over */
    return out->bytes != NULL ? 0 : -1;
}

pib_dbuild_why pib_dbuild_due(int have, long long now, long long created,
                              long long lifetime, double built_ratio,
                              double seen_ratio, unsigned seen)
{
    if (!have) {
        return PIB_DBUILD_MISSING;
    }
    if (seen >= 4 && seen_ratio > 2 * built_ratio
        && seen_ratio > built_ratio + 0.02) {
        return PIB_DBUILD_DRIFT;
    }
    if (now - created >= lifetime / 2) {
        return PIB_DBUILD_AGING;
    }
    return PIB_DBUILD_NONE;
}
