/* test_codings.c -- PiBalanceDeflateCodecs' parser, the one choice of
 * coding (the worked table of pib_codings.c, and more), levels, the
 * ETag suffix of each coding. */
#include "unit.h"
#include "pib_codings.h"

static const char *parse(pib_codings *c, const char *a0, const char *a1,
                         const char *a2, const char *a3, int *bad)
{
    const char *argv[4] = { a0, a1, a2, a3 };
    int argc = a0 == NULL ? 0 : a1 == NULL ? 1 : a2 == NULL ? 2
               : a3 == NULL ? 3 : 4;

    return pib_codings_parse(c, argc, argv, bad);
}

static void codings_parse(void)
{
    pib_codings c;
    int bad = -1;

    CHECK(parse(&c, "zstd=3", "br=4", "gzip", NULL, &bad) == NULL);
    CHECK_INT(c.n, 3);
    CHECK_INT(c.order[0], PIB_CODING_ZSTD);
    CHECK_INT(c.order[1], PIB_CODING_BR);
    CHECK_INT(c.order[2], PIB_CODING_GZIP);
    CHECK_INT(pib_codings_level(&c, PIB_CODING_ZSTD, 1), 3);
    CHECK_INT(pib_codings_level(&c, PIB_CODING_BR, 1), 4);
    CHECK_INT(pib_codings_level(&c, PIB_CODING_GZIP, 6), 6);

    CHECK(parse(&c, "GZIP", "Br", NULL, NULL, &bad) == NULL);
    CHECK_INT(c.n, 2);
    CHECK_INT(c.order[0], PIB_CODING_GZIP);
    CHECK_INT(pib_codings_level(&c, PIB_CODING_BR, 1), 4);
    CHECK_INT(pib_codings_level(&c, PIB_CODING_ZSTD, 1), 3);
    CHECK(parse(&c, "zstd=19", "br=11", NULL, NULL, &bad) == NULL);
    CHECK(parse(&c, "zstd=1", "br=1", NULL, NULL, &bad) == NULL);

    /* refused: which argument, and why */
    CHECK(parse(&c, "gzip", "deflate", NULL, NULL, &bad) != NULL);
    CHECK_INT(bad, 1);
    CHECK(parse(&c, "gzip", "br", "gzip", NULL, &bad) != NULL);
    CHECK_INT(bad, 2);
    CHECK(parse(&c, "zstd", "zstd=3", NULL, NULL, &bad) != NULL);
    CHECK_INT(bad, 1);
    CHECK(parse(&c, "gzip", "br", "zstd", "br", &bad) != NULL);
    CHECK_INT(bad, 3);
    CHECK(parse(&c, "zstd=20", NULL, NULL, NULL, &bad) != NULL);
    CHECK(parse(&c, "zstd=0", NULL, NULL, NULL, &bad) != NULL);
    CHECK(parse(&c, "br=12", NULL, NULL, NULL, &bad) != NULL);
    CHECK(parse(&c, "br=0", NULL, NULL, NULL, &bad) != NULL);
    CHECK(parse(&c, "br=", NULL, NULL, NULL, &bad) != NULL);
    CHECK(parse(&c, "br=04", NULL, NULL, NULL, &bad) != NULL);
    CHECK(parse(&c, "br=4x", NULL, NULL, NULL, &bad) != NULL);
    CHECK(parse(&c, "br=-1", NULL, NULL, NULL, &bad) != NULL);
    CHECK(parse(&c, "zstd=99999999999", NULL, NULL, NULL, &bad) != NULL);
    CHECK(parse(&c, "gzip=6", NULL, NULL, NULL, &bad) != NULL);
    CHECK(parse(&c, "identity", NULL, NULL, NULL, &bad) != NULL);
    CHECK(parse(&c, "*", NULL, NULL, NULL, &bad) != NULL);
    CHECK(parse(&c, "x-gzip", NULL, NULL, NULL, &bad) != NULL);
    CHECK(parse(&c, "", NULL, NULL, NULL, &bad) != NULL);
    CHECK(parse(&c, NULL, NULL, NULL, NULL, &bad) != NULL);

    pib_codings_default(&c);
    CHECK_INT(c.n, 1);
    CHECK_INT(c.order[0], PIB_CODING_GZIP);
}

static pib_coding pick(const char *ae_value, int no_gzip,
                       const char *a0, const char *a1, const char *a2)
{
    pib_codings c;
    pib_ae ae;
    int bad;

    if (a0 == NULL) {
        pib_codings_default(&c);
    }
    else if (parse(&c, a0, a1, a2, NULL, &bad) != NULL) {
        return PIB_CODING_COUNT;
    }
    pib_ae_init(&ae);
    pib_ae_feed(&ae, ae_value);
    return pib_coding_pick(&ae, no_gzip, &c);
}

static void codings_pick(void)
{
    static const struct {
        const char *ae;
        pib_coding want;
    } t[] = {   /* offer "zstd br gzip": the table in pib_codings.c */
        { "gzip, deflate, br, zstd", PIB_CODING_ZSTD },
        { "gzip, deflate, br", PIB_CODING_BR },
        { "zstd;q=0.5, br;q=0.9, gzip", PIB_CODING_GZIP },
        { "zstd;q=0, *", PIB_CODING_BR },
        { NULL, PIB_CODING_IDENTITY },
        { "", PIB_CODING_IDENTITY },
        { "identity", PIB_CODING_IDENTITY },
        { "zstd;q=0, br;q=0, gzip;q=0", PIB_CODING_IDENTITY },
        { "*;q=0", PIB_CODING_IDENTITY },
        { "zstd;q=0.1, identity;q=0.5", PIB_CODING_IDENTITY },
        { "zstd;q=0.5, identity;q=0.5", PIB_CODING_ZSTD },
        { "ZSTD;Q=0.8, BR;q=0.8", PIB_CODING_ZSTD },
        { "br;q=0.800, zstd;q=0.8", PIB_CODING_ZSTD },
        { "br;q=0.801, zstd;q=0.8", PIB_CODING_BR },
        { "x-gzip", PIB_CODING_GZIP },
        { "br;q=1.5, gzip", PIB_CODING_GZIP },    /* malformed q: ignored */
        { "*;q=0.5, zstd;q=0.2", PIB_CODING_BR },
    };
    size_t i;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        if (pick(t[i].ae, 0, "zstd", "br", "gzip") != t[i].want) {
            fprintf(stderr, "  AE case: \"%s\"\n",
                    t[i].ae ? t[i].ae : "(none)");
        }
        CHECK_INT(pick(t[i].ae, 0, "zstd", "br", "gzip"), t[i].want);
    }
    /* the server's order breaks ties, not the client's */
    CHECK_INT(pick("zstd, br, gzip", 0, "gzip", "br", "zstd"),
              PIB_CODING_GZIP);
    CHECK_INT(pick("zstd, br", 0, "gzip", "br", "zstd"), PIB_CODING_BR);
    /* the default offers gzip alone */
    CHECK_INT(pick("br, zstd", 0, NULL, NULL, NULL), PIB_CODING_IDENTITY);
    CHECK_INT(pick("br, zstd, gzip", 0, NULL, NULL, NULL),
              PIB_CODING_GZIP);
    /* no-gzip turns every coding off */
    CHECK_INT(pick("br, zstd, gzip", 1, "zstd", "br", "gzip"),
              PIB_CODING_IDENTITY);
    CHECK_STR(pib_coding_token(PIB_CODING_ZSTD), "zstd");
    CHECK_STR(pib_coding_token(PIB_CODING_BR), "br");
    CHECK_STR(pib_coding_token(PIB_CODING_GZIP), "gzip");
    CHECK(pib_coding_token(PIB_CODING_IDENTITY) == NULL);
}

static void codings_etag(void)
{
    char out[64], list[128];

    CHECK_STR(pib_etag_suffix(PIB_CODING_ZSTD), "-zstd");
    CHECK_STR(pib_etag_suffix(PIB_CODING_BR), "-br");
    CHECK_STR(pib_etag_suffix(PIB_CODING_GZIP), "-gzip");
    CHECK(pib_etag_suffix(PIB_CODING_IDENTITY) == NULL);
    CHECK_INT(pib_etag_add_suffix_for("\"abc\"", "-zstd", out,
                                      sizeof(out)), 1);
    CHECK_STR(out, "\"abc-zstd\"");
    CHECK_INT(pib_etag_add_suffix_for("\"abc\"", "-br", out, sizeof(out)),
              1);
    CHECK_STR(out, "\"abc-br\"");
    CHECK_INT(pib_etag_add_suffix_for("\"abc\"", "-zstd", out, 10), 0);
    CHECK_INT(pib_etag_add_suffix_for("\"abc\"", "-zstd", out, 11), 1);
    CHECK_INT(pib_etag_add_suffix_for("\"abc-br\"", "-zstd", out,
                                      sizeof(out)), 0);
    CHECK_INT(pib_etag_add_suffix_for("W/\"abc\"", "-br", out,
                                      sizeof(out)), 0);
    CHECK_INT(pib_etag_add_suffix_for("\"abc\"", NULL, out, sizeof(out)),
              0);
    CHECK_INT(pib_etag_unsuffix_list("\"a-zstd\", W/\"b-br\", \"c-gzip\", "
                                     "\"d\", \"e-brr\"", list,
                                     sizeof(list)), 3);
    CHECK_STR(list, "\"a\", W/\"b\", \"c\", \"d\", \"e-brr\"");
    CHECK_INT(pib_etag_unsuffix_list("\"-br\"", list, sizeof(list)), 1);
    CHECK_STR(list, "\"\"");
    CHECK_INT(pib_etag_unsuffix_list("\"br\"", list, sizeof(list)), 0);
    CHECK_STR(list, "\"br\"");
}

void test_codings(void)
{
    codings_parse();
    codings_pick();
    codings_etag();
}
