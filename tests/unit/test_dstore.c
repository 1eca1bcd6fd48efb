/* test_dstore.c -- the dictionaries on disk: the eviction table of
 * pib_dstore.c's comment and its edge cases (all expired, the current
 * one kept while others can go, ties), the file header round trip and
 * malformed headers, and put/get/current/touch/prune in a temporary
 * directory (a truncated file, a file of another name and a hash that
 * is not there are refused; prune keeps the bound). */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "pib_dstore.h"
#include "pib_dcz.h"

static pib_dstore_ent ds_ent(const char *hex, unsigned long long size,
                             long long used, long long created, int cur)
{
    pib_dstore_ent e;

    memset(&e, 0, sizeof(e));
    strcpy(e.hex, hex);
    e.size = size;
    e.used = used;
    e.created = created;
    e.current = cur;
    e.evict = 7;                    /* overwritten */
    return e;
}

static void test_victims(void)
{
    pib_dstore_ent e[4];

    /* the worked example */
    e[0] = ds_ent("a", 40, 90, 60, 1);
    e[1] = ds_ent("b", 40, 80, 55, 0);
    e[2] = ds_ent("c", 40, 70, 52, 0);
    e[3] = ds_ent("d", 10, 99, 40, 0);
    CHECK_INT(pib_dstore_victims(e, 4, 100, 100, 50), 2);
    CHECK_INT(e[0].evict, 0);
    CHECK_INT(e[1].evict, 0);
    CHECK_INT(e[2].evict, 1);
    CHECK_INT(e[3].evict, 1);
    /* within the bound: only the expired go */
    e[0] = ds_ent("a", 40, 90, 60, 1);
    e[1] = ds_ent("b", 40, 10, 55, 0);
    CHECK_INT(pib_dstore_victims(e, 2, 1000, 100, 50), 0);
    CHECK_INT(pib_dstore_victims(e, 2, 1000, 105, 50), 1);
    CHECK_INT(e[1].evict, 1);
    /* a current one goes last, even when used least */
    e[0] = ds_ent("a", 60, 10, 90, 1);
    e[1] = ds_ent("b", 60, 95, 90, 0);
    e[2] = ds_ent("c", 60, 96, 90, 0);
    CHECK_INT(pib_dstore_victims(e, 3, 130, 100, 50), 1);
    CHECK_INT(e[0].evict, 0);
    CHECK_INT(e[1].evict, 1);
    /* bound below the current one alone: it goes too */
    CHECK_INT(pib_dstore_victims(e, 3, 10, 100, 50), 3);
    /* ties: older creation first, then hex */
    e[0] = ds_ent("b", 50, 50, 80, 0);
    e[1] = ds_ent("a", 50, 50, 80, 0);
    e[2] = ds_ent("c", 50, 50, 70, 0);
    CHECK_INT(pib_dstore_victims(e, 3, 60, 100, 50), 2);
    CHECK_INT(e[2].evict, 1);
    CHECK_INT(e[1].evict, 1);
    CHECK_INT(e[0].evict, 0);
    CHECK_INT(pib_dstore_victims(e, 0, 0, 100, 50), 0);
}

static void test_meta(void)
{
    pib_dmeta m = { "/app/", PIB_DKIND_TRAINED, 1764900000, 0.0125 }, back;
    char head[512];
    size_t n = pib_dmeta_format(&m, head, sizeof(head)), body;

    CHECK(n > 0);
    CHECK_STR(head, "PIBDICT1\nprefix /app/\nkind trained\n"
                    "created 1764900000\nratio 0.012500\n\n");
    memcpy(head + n, "XYZ", 3);
    CHECK_INT(pib_dmeta_parse((unsigned char *)head, n + 3, &back, &body), 0);
    CHECK_INT(body, n);
    CHECK_STR(back.prefix, "/app/");
    CHECK_INT(back.kind, PIB_DKIND_TRAINED);
    CHECK_INT(back.created, 1764900000);
    CHECK(back.ratio > 0.0124 && back.ratio < 0.0126);
    /* header without its blank line, with a bad number, missing a key */
    CHECK_INT(pib_dmeta_parse((unsigned char *)head, n - 1, &back, &body),
              -1);
    {
        static const char *bad[] = {
            "PIBDICT1\nprefix /a\nkind page\ncreated x\nratio 1\n\n",
            "PIBDICT1\nprefix /a\nkind book\ncreated 1\nratio 1\n\n",
            "PIBDICT1\nprefix /a\nkind page\ncreated 1\n\n",
            "PIBDICT2\nprefix /a\nkind page\ncreated 1\nratio 1\n\n",
            "PIBDICT1\nprefix\nkind page\ncreated 1\nratio 1\n\n",
            /* a key twice (the second one invalid; fuzz_dict found the
             * ratio overwritten by it) */
            "PIBDICT1\nprefix /a\nkind page\ncreated 1\nratio 1\n"
            "ratio -6\n\n",
            "PIBDICT1\nprefix /a\nkind page\ncreated 1\ncreated x\n"
            "ratio 1\n\n",
            "PIBDICT1\nprefix /a\nprefix /b\nkind page\ncreated 1\n"
            "ratio 1\n\n",
        };
        size_t i;

        for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            CHECK_INT(pib_dmeta_parse((const unsigned char *)bad[i],
                                      strlen(bad[i]) + 1, &back, &body), -1);
        }
    }
    strcpy(m.prefix, "/a b");
    CHECK_INT(pib_dmeta_format(&m, head, sizeof(head)), 0);
    strcpy(m.prefix, "/a");
    CHECK_INT(pib_dmeta_format(&m, head, 20), 0);
}

static void test_files(void)
{
    char root[] = "/tmp/pib-dstore-XXXXXX", path[256];
    unsigned char h1[32], h2[32], got[32], *b;
    static const unsigned char d1[] = "<html>one</html>",
                               d2[] = "<html>two, longer</html>";
    pib_dmeta m = { "/app/", PIB_DKIND_PAGE, 1000, 0.5 }, mm;
    unsigned long held;
    unsigned long long total;
    size_t n;
    FILE *f;

    if (mkdtemp(root) == NULL) {
        CHECK(0);
        return;
    }
    pib_sha256(d1, sizeof(d1), h1);
    pib_sha256(d2, sizeof(d2), h2);
    CHECK_INT(pib_dstore_get(root, h1, 1 << 20, &b, &n, &mm), -1);
    CHECK_INT(pib_dstore_put(root, h1, &m, d1, sizeof(d1)), 0);
    CHECK_INT(pib_dstore_get(root, h1, 1 << 20, &b, &n, &mm), 0);
    CHECK_INT(n, sizeof(d1));
    CHECK(b != NULL && memcmp(b, d1, n) == 0);
    CHECK_STR(mm.prefix, "/app/");
    free(b);
    CHECK_INT(pib_dstore_get(root, h1, 4, &b, &n, &mm), -1);  /* > max */
    CHECK(b == NULL);
    CHECK_INT(pib_dstore_current(root, "/app/", got), -1);
    CHECK_INT(pib_dstore_set_current(root, "/app/", h1), 0);
    CHECK_INT(pib_dstore_current(root, "/app/", got), 0);
    CHECK(memcmp(got, h1, 32) == 0);
    CHECK_INT(pib_dstore_current(root, "/other/", got), -1);
    m.created = 2000;
    CHECK_INT(pib_dstore_put(root, h2, &m, d2, sizeof(d2)), 0);
    CHECK_INT(pib_dstore_touch(root, h2), 0);
    /* a truncated file is not a dictionary */
    {
        char hex[65];

        pib_sf_hex(h2, hex);
        snprintf(path, sizeof(path), "%s/%s.dict", root, hex);
        CHECK_INT(truncate(path, 30), 0);
        CHECK_INT(pib_dstore_get(root, h2, 1 << 20, &b, &n, &mm), -1);
        CHECK_INT(pib_dstore_put(root, h2, &m, d2, sizeof(d2)), 0);
    }
    /* a stray file is left alone */
    snprintf(path, sizeof(path), "%s/notes.txt", root);
    f = fopen(path, "w");
    fputs("x", f);
    fclose(f);
    /* both fit */
    CHECK_INT(pib_dstore_prune(root, 1 << 20, 2500, 3600, &held, &total), 0);
    CHECK_INT(held, 2);
    /* h1 expired (created 1000 + 3600 <= 4700), current or not */
    CHECK_INT(pib_dstore_prune(root, 1 << 20, 4700, 3600, &held, &total), 1);
    CHECK_INT(held, 1);
    CHECK_INT(pib_dstore_get(root, h1, 1 << 20, &b, &n, &mm), -1);
    /* a bound below the one left */
    CHECK_INT(pib_dstore_prune(root, 10, 2500, 3600, &held, &total), 1);
    CHECK_INT(held, 0);
    CHECK_INT(total, 0);
    CHECK_INT(access(path, F_OK), 0);
    unlink(path);
    {
        char id[17];

        pib_dstore_prefix_id("/app/", id);
        CHECK_INT(strlen(id), 16);
        snprintf(path, sizeof(path), "%s/%s.cur", root, id);
        CHECK_INT(unlink(path), 0);
    }
    CHECK_INT(rmdir(root), 0);              /* nothing else was left */
    CHECK_INT(pib_dstore_prune("/nonexistent/pib", 1, 1, 1, &held, &total),
              -1);
}

void test_dstore(void)
{
    test_victims();
    test_meta();
    test_files();
}
