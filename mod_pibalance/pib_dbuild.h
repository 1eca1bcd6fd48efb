/* pib_dbuild.h -- making a dictionary for a path prefix of dynamic pages
 * (RFC 9842, issue 30 item 2b), pure: no httpd headers; unit-tested in
 * test_dbuild.c.
 *
 * Which dictionary, decided by numbers (bench/dictbuild.c, run on
 * t/bin/dynpage.py's pages; bench/RESULTS-dictionary.md):
 *   one page whose values change:   the previous page 208 B a page,
 *                                   trained on 20 pages 1,409 B
 *   30 different pages of a prefix: the previous page 4,447 B,
 *                                   trained on 30 pages 1,477 B,
 *                                   trained on 10 pages 6,143 B
 * Neither wins everywhere, so the builder makes both from the samples it
 * holds and keeps the one that compresses the newest samples (held out
 * from training) best: a page when the prefix serves one page, trained
 * content when its pages differ and there are enough of them.  Training
 * costs ~250 ms of one x86 core for 16 pages of 50-70 KB (several times
 * that on a Pi), once per build; builds happen when a prefix has no
 * dictionary, when the measured ratio drifts, or when the current one
 * is half-way to its lifetime.
 */
#ifndef PIB_DBUILD_H
#define PIB_DBUILD_H

#include <stddef.h>

#include "pib_dstore.h"

#define PIB_DBUILD_SAMPLES  16  /* pages held per prefix, per child */
#define PIB_DBUILD_MIN      4   /* fewest to build from */
#define PIB_DBUILD_TRAIN_MIN 8  /* fewest to train on (fewer: a page) */

typedef struct {
    unsigned char *buf[PIB_DBUILD_SAMPLES];
    size_t len[PIB_DBUILD_SAMPLES];
    int n;                          /* held */
    int next;                       /* ring position of the next one */
} pib_dsamples;

/* Adds a copy of p[0..n) as the newest sample (the oldest dropped when
 * full).  0, or -1 when memory runs out. */
int pib_dsamples_add(pib_dsamples *s, const unsigned char *p, size_t n);

/* The i-th sample, oldest first (0 <= i < s->n). */
const unsigned char *pib_dsamples_get(const pib_dsamples *s, int i,
                                      size_t *n);

void pib_dsamples_clear(pib_dsamples *s);

typedef struct {
    unsigned char *bytes;           /* malloc'd: the dictionary */
    size_t len;
    pib_dkind kind;                 /* PAGE or TRAINED */
    double ratio;                   /* dcz/identity over the held-out */
    double ratio_page, ratio_trained;   /* each candidate's (or -1) */
} pib_dbuilt;

/* Builds from the samples (at least PIB_DBUILD_MIN): holds the newest
 * quarter out, makes a page candidate (the sample before them, its last
 * max_dict bytes) and, with PIB_DBUILD_TRAIN_MIN samples to train on, a
 * trained one (ZDICT_trainFromBuffer, max_dict bytes, content only),
 * compresses the held-out samples with each as dcz at level and keeps
 * the smaller; a page is then the newest sample.  0 and out filled, or
 * -1 (too few samples, out of memory). */
int pib_dbuild_make(const pib_dsamples *s, int level, size_t max_dict,
                    pib_dbuilt *out);

typedef enum {
    PIB_DBUILD_NONE = 0,
    PIB_DBUILD_MISSING,             /* the prefix has no dictionary */
    PIB_DBUILD_DRIFT,               /* pages compress worse than built */
    PIB_DBUILD_AGING                /* half-way to its lifetime */
} pib_dbuild_why;

/* Whether to build now.  have: a current dictionary exists (created at
 * created, ratio built_ratio at build); seen_ratio over seen recent
 * samples compressed against it.  Drift: at least 4 samples seen and
 * seen_ratio above both twice built_ratio and built_ratio + 0.02 (a
 * page at 0.3% going to 0.7% is not worth a new dictionary).  Pure. */
pib_dbuild_why pib_dbuild_due(int have, long long now, long long created,
                              long long lifetime, double built_ratio,
                              double seen_ratio, unsigned seen);

#endif /* PIB_DBUILD_H */
