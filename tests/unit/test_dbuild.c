/* test_dbuild.c -- the prefix builder: the sample ring (oldest first,
 * the oldest dropped when full); one page whose values change gets a
 * page as dictionary, the newest, with a ratio under 2%; pages that
 * differ get whichever candidate compressed the held-out pages better,
 * and the ratio recorded is that one's; too few samples build nothing;
 * when to build again (the table of pib_dbuild_due). */
#include <stdlib.h>

#include "unit.h"
#include "pib_dbuild.h"
#include "pib_dcz.h"

static unsigned long db_state = 99;

static unsigned db_rand(void)
{
    db_state = db_state * 1103515245UL + 12345UL;
    return (unsigned)(db_state >> 16) & 0x7fff;
}

/* Version v of item k: rows chosen and ordered by k (as the pages of
 * one application differ), a few values changed by v. */
static unsigned char *db_page(int item, int v, size_t *len)
{
    size_t cap = 90000, n = 0;
    unsigned char *p = malloc(cap);
    unsigned long st = (unsigned long)item * 7919 + 1;
    int i;

    n += (size_t)snprintf((char *)p, cap, "<html><head><title>item %d"
                          "</title></head><body><table>\n", item);
    for (i = 0; i < 900 && n + 120 < cap; i++) {
        st = st * 1103515245UL + 12345UL;
        if (item >= 0 && (st >> 16) % 3 == 0) {
            continue;               /* this item leaves the row out */
        }
        n += (size_t)snprintf((char *)p + n, cap - n,
                              "<tr><td class=\"e\">setting_%d</td>"
                              "<td class=\"v\">%lu</td></tr>\n", i,
                              i % 113 == 0 ? (unsigned long)v * 17 + i
                                           : (unsigned long)i * 31 % 1009);
    }
    n += (size_t)snprintf((char *)p + n, cap - n, "</table></body></html>\n");
    *len = n;
    return p;
}

static void test_ring(void)
{
    pib_dsamples s;
    unsigned char b[1];
    size_t n;
    int i;

    memset(&s, 0, sizeof(s));
    for (i = 0; i < PIB_DBUILD_SAMPLES + 3; i++) {
        b[0] = (unsigned char)i;
        CHECK_INT(pib_dsamples_add(&s, b, 1), 0);
    }
    CHECK_INT(s.n, PIB_DBUILD_SAMPLES);
    CHECK_INT(pib_dsamples_get(&s, 0, &n)[0], 3);
    CHECK_INT(n, 1);
    CHECK_INT(pib_dsamples_get(&s, PIB_DBUILD_SAMPLES - 1, &n)[0],
              PIB_DBUILD_SAMPLES + 2);
    pib_dsamples_clear(&s);
    CHECK_INT(s.n, 0);
    b[0] = 42;
    pib_dsamples_add(&s, b, 1);
    CHECK_INT(pib_dsamples_get(&s, 0, &n)[0], 42);
    pib_dsamples_clear(&s);
}

static void test_one_page(void)
{
    pib_dsamples s;
    pib_dbuilt b;
    size_t n;
    int v;

    memset(&s, 0, sizeof(s));
    for (v = 1; v <= 3; v++) {
        unsigned char *p = db_page(-1, v, &n);

        pib_dsamples_add(&s, p, n);
        free(p);
    }
    CHECK_INT(pib_dbuild_make(&s, 3, 1 << 17, &b), -1);    /* too few */
    for (v = 4; v <= 16; v++) {
        unsigned char *p = db_page(-1, v, &n);

        pib_dsamples_add(&s, p, n);
        free(p);
    }
    CHECK_INT(pib_dbuild_make(&s, 3, 1 << 17, &b), 0);
    CHECK_INT(b.kind, PIB_DKIND_PAGE);
    CHECK(b.ratio > 0 && b.ratio < 0.02);
    CHECK(b.ratio_trained < 0 || b.ratio_trained > b.ratio);
    {
        const unsigned char *newest = pib_dsamples_get(&s, 15, &n);

        CHECK_INT(b.len, n);
        CHECK(b.bytes != NULL && memcmp(b.bytes, newest, n) == 0);
    }
    free(b.bytes);
    /* a bound below the page: its last bytes */
    CHECK_INT(pib_dbuild_make(&s, 3, 1000, &b), 0);
    CHECK(b.len <= 1000);
    free(b.bytes);
    pib_dsamples_clear(&s);
}

static void test_items(void)
{
    pib_dsamples s;
    pib_dbuilt b;
    size_t n;
    int i;

    memset(&s, 0, sizeof(s));
    for (i = 0; i < 16; i++) {
        unsigned char *p = db_page((int)(db_rand() % 12), i, &n);

        pib_dsamples_add(&s, p, n);
        free(p);
    }
    CHECK_INT(pib_dbuild_make(&s, 3, 1 << 16, &b), 0);
    CHECK(b.ratio_page > 0);
    CHECK(b.ratio_trained > 0);     /* 12 pages to train on: tried */
    CHECK(b.ratio == (b.ratio_page < b.ratio_trained ? b.ratio_page
                                                     : b.ratio_trained));
    CHECK_INT(b.kind, b.ratio_trained < b.ratio_page ? PIB_DKIND_TRAINED
                                                     : PIB_DKIND_PAGE);
    CHECK(b.len > 0 && b.len <= (1 << 16));
    /* what was recorded is what the dictionary does on those pages */
    {
        pib_dict *d = pib_dict_make(b.bytes, b.len);
        double in = 0, out = 0;

        for (i = 12; i < 16 && d != NULL; i++) {
            const unsigned char *p = pib_dsamples_get(&s, i, &n);
            unsigned char *z;
            size_t zn;

            if (pib_dcz_compress(d, 3, p, n, &z, &zn) == 0) {
                in += (double)n;
                out += (double)zn;
                free(z);
            }
        }
        if (b.kind == PIB_DKIND_TRAINED) {
            CHECK(in > 0 && out / in > b.ratio * 0.999
                  && out / in < b.ratio * 1.001);
        }
        else {
            CHECK(in > 0 && out / in <= b.ratio * 1.001);  /* newer page */
        }
        pib_dict_free(d);
    }
    free(b.bytes);
    pib_dsamples_clear(&s);
}

static void test_due(void)
{
    CHECK_INT(pib_dbuild_due(0, 100, 0, 3600, 0, 0, 0), PIB_DBUILD_MISSING);
    CHECK_INT(pib_dbuild_due(1, 100, 0, 3600, 0.01, 0.5, 3),
              PIB_DBUILD_NONE);             /* too few seen */
    CHECK_INT(pib_dbuild_due(1, 100, 0, 3600, 0.01, 0.05, 4),
              PIB_DBUILD_DRIFT);
    CHECK_INT(pib_dbuild_due(1, 100, 0, 3600, 0.003, 0.007, 10),
              PIB_DBUILD_NONE);             /* doubled, but tiny */
    CHECK_INT(pib_dbuild_due(1, 100, 0, 3600, 0.10, 0.19, 10),
              PIB_DBUILD_NONE);             /* worse, not doubled */
    CHECK_INT(pib_dbuild_due(1, 1799, 0, 3600, 0.01, 0.01, 10),
              PIB_DBUILD_NONE);
    CHECK_INT(pib_dbuild_due(1, 1800, 0, 3600, 0.01, 0.01, 10),
              PIB_DBUILD_AGING);
}

void test_dbuild(void)
{
    test_ring();
    test_one_page();
    test_items();
    test_due();
}
