/* test_dcache.c -- a child's prepared dictionaries: a miss on an
 * unknown hash; a load, then hits without disk (the file removed behind
 * the cache's back is still served from memory); a file whose bytes no
 * longer match its name refused; the least recently used unreferenced
 * one evicted at the bound; when every entry is in use a dictionary is
 * lent out of the table and freed at its release; threads sharing one
 * cache (ASan/valgrind would see a double free or a leak). */
#include <stdlib.h>
#include <pthread.h>
#include <unistd.h>

#include "unit.h"
#include "pib_dcache.h"

static void dc_put(const char *root, const char *text, unsigned char *h)
{
    pib_dmeta m = { "/p/", PIB_DKIND_PAGE, 100, 0.1 };

    pib_sha256((const unsigned char *)text, strlen(text), h);
    pib_dstore_put(root, h, &m, (const unsigned char *)text, strlen(text));
}

typedef struct {
    pib_dcache *c;
    unsigned char (*h)[32];
    int ok;
} dc_job;

static void *dc_thread(void *arg)
{
    dc_job *j = arg;
    int i;

    for (i = 0; i < 2000; i++) {
        pib_dict *d = pib_dcache_get(j->c, j->h[i % 3], 1000 + i, NULL);

        if (d == NULL || memcmp(d->hash, j->h[i % 3], 32) != 0) {
            j->ok = 0;
        }
        pib_dcache_release(j->c, d);
    }
    return NULL;
}

void test_dcache(void)
{
    char root[] = "/tmp/pib-dcache-XXXXXX", cmd[128];
    unsigned char h[4][32], nope[32];
    pib_dcache *c;
    pib_dict *a, *b, *x;
    pib_dmeta m;
    unsigned held;
    unsigned long long bytes;
    unsigned long loads, refused;

    if (mkdtemp(root) == NULL || (c = pib_dcache_create(root, 2, 1 << 20))
                                 == NULL) {
        CHECK(0);
        return;
    }
    dc_put(root, "first dictionary", h[0]);
    dc_put(root, "second dictionary", h[1]);
    dc_put(root, "third dictionary", h[2]);
    memset(nope, 7, sizeof(nope));
    CHECK(pib_dcache_get(c, nope, 100, NULL) == NULL);

    a = pib_dcache_get(c, h[0], 100, &m);
    CHECK(a != NULL && a->len == 16 && memcmp(a->bytes, "first", 5) == 0);
    CHECK_STR(m.prefix, "/p/");
    pib_dcache_release(c, a);
    {
        char hex[65], path[256];

        pib_sf_hex(h[0], hex);
        snprintf(path, sizeof(path), "%s/%s.dict", root, hex);
        unlink(path);                       /* held: served from memory */
        CHECK(pib_dcache_get(c, h[0], 101, NULL) == a);
        pib_dcache_release(c, a);
        /* a file changed under its name is refused */
        pib_sf_hex(h[1], hex);
        snprintf(path, sizeof(path), "%s/%s.dict", root, hex);
        {
            FILE *f = fopen(path, "r+");

            fseek(f, -3, SEEK_END);
            fputs("XYZ", f);
            fclose(f);
        }
        CHECK(pib_dcache_get(c, h[1], 102, NULL) == NULL);
        dc_put(root, "second dictionary", h[1]);
    }
    pib_dcache_counts(c, &held, &bytes, &loads, &refused);
    CHECK_INT(held, 1);
    CHECK_INT(loads, 1);
    CHECK_INT(refused, 2);                  /* nope, the changed file */

    /* the bound: h[0] used first, then h[1]; h[2] evicts h[0] */
    b = pib_dcache_get(c, h[1], 103, NULL);
    pib_dcache_release(c, b);
    x = pib_dcache_get(c, h[2], 104, NULL);
    CHECK(x != NULL);
    pib_dcache_release(c, x);
    pib_dcache_counts(c, &held, &bytes, &loads, &refused);
    CHECK_INT(held, 2);
    CHECK_INT(bytes, 17 + 16);
    CHECK(pib_dcache_get(c, h[0], 105, NULL) == NULL);  /* gone from disk */

    /* every entry in use: the next one is lent and freed at release */
    b = pib_dcache_get(c, h[1], 106, NULL);
    x = pib_dcache_get(c, h[2], 106, NULL);
    dc_put(root, "fourth dictionary!", h[3]);
    a = pib_dcache_get(c, h[3], 107, NULL);
    CHECK(a != NULL && a->len == 18);
    pib_dcache_counts(c, &held, &bytes, &loads, &refused);
    CHECK_INT(held, 2);
    pib_dcache_release(c, a);
    pib_dcache_release(c, b);
    pib_dcache_release(c, x);

    /* threads: three hashes over a table of two */
    {
        pthread_t t[3];
        dc_job j = { c, h + 1, 1 };
        int i;

        for (i = 0; i < 3; i++) {
            pthread_create(&t[i], NULL, dc_thread, &j);
        }
        for (i = 0; i < 3; i++) {
            pthread_join(t[i], NULL);
        }
        CHECK(j.ok);
    }
    pib_dcache_destroy(c);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    CHECK_INT(system(cmd), 0);
}
