/* test_ae.c -- Accept-Encoding negotiation and ETag suffixes. */
#include "unit.h"
#include "pib_ae.h"

/* Feeds up to three lines; returns pib_ae_wants_gzip(). */
static int wants(const char *l1, const char *l2, const char *l3)
{
    pib_ae ae;

    pib_ae_init(&ae);
    pib_ae_feed(&ae, l1);
    pib_ae_feed(&ae, l2);
    pib_ae_feed(&ae, l3);
    return pib_ae_wants_gzip(&ae);
}

static int coding_q(const char *line, pib_coding c)
{
    pib_ae ae;

    pib_ae_init(&ae);
    pib_ae_feed(&ae, line);
    return pib_ae_q(&ae, c);
}

static pib_coding choose(const char *line, const pib_coding *offer,
                         size_t n)
{
    pib_ae ae;

    pib_ae_init(&ae);
    pib_ae_feed(&ae, line);
    return pib_ae_choose(&ae, offer, n);
}

static void table(void)
{
    static const struct { const char *ae; int want; } t[] = {
        { "gzip", 1 }, { "GZIP", 1 }, { "x-gzip", 1 }, { "X-Gzip", 1 },
        { "deflate, gzip, br", 1 }, { "br", 0 }, { "", 0 },
        { "*", 1 }, { "*;q=0", 0 }, { "br, *;q=0.1", 1 },
        { "br, *;q=0.1, identity;q=0", 1 },
        { "gzip;q=0", 0 }, { "gzip; q=0.000", 0 }, { "gzip;q=0.001", 1 },
        { "gzip;q=0.001, identity;q=0.001", 1 },
        { "gzip;Q=0.5", 1 },          /* unlisted identity never outranks */
        { "gzip;q=0.5, identity;q=0.5", 1 },  /* tie goes to gzip */
        { "gzip;q=0.5, identity;q=0", 1 },
        { "identity;q=0", 0 },                /* gzip not listed */
        { "identity;q=0, *", 1 },
        { "gzip;q=0, *", 0 },                 /* explicit beats * */
        { "*;q=0, gzip", 1 },
        { "  gzip  ;  q=1  ", 1 }, { "\tgzip\t", 1 },
        { "gzip;q=1.5", 0 }, { "gzip;q=abc", 0 }, { "gzip;q=", 0 },
        { "gzip;q=0.5555", 0 }, { "gzip;q=1.000", 1 }, { "gzip;q=1.001", 0 },
        /* issue 15 item 7: identity the client did not list */
        { "br, gzip;q=0.8", 1 }, { "gzip;q=0.8, *;q=0.1", 1 },
        { "gzip;q=0.1, *;q=0.8", 0 }, { "gzip;q=0.8, *;q=0.8", 1 },
        { "gzip;q=0.5, identity", 0 }, { "gzip;q=0.5, identity;q=0.6", 0 },
        { "gzip;q=0.7, identity;q=0.6, *;q=0.9", 1 },
        { "*;q=0.2, br", 1 }, { "br;q=0.9, deflate", 0 },
        { ",,, ;;; ==", 0 }, { ",gzip,", 1 }, { "gzip;;", 1 },
        { "gzip;level=9", 1 }, { "gzip;level", 0 }, { "gzip/x", 0 },
        { "\"gzip\"", 0 }, { "gzipx", 0 }, { "gzi", 0 },
        { "x-gzip;q=0, gzip", 1 }, { "gzip;q=0, x-gzip;q=0.9, identity;q=0.5",
                                     1 },
    };
    size_t i;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        if (wants(t[i].ae, NULL, NULL) != t[i].want) {
            fprintf(stderr, "  AE case: \"%s\"\n", t[i].ae);
        }
        CHECK_INT(wants(t[i].ae, NULL, NULL), t[i].want);
    }
    CHECK_INT(wants(NULL, NULL, NULL), 0);        /* no header at all */
    CHECK_INT(coding_q("gzip;q=0.8", PIB_CODING_GZIP), 800);
    CHECK_INT(coding_q("gzip;q=0.05", PIB_CODING_GZIP), 50);
    CHECK_INT(coding_q("*;q=0.3", PIB_CODING_GZIP), 300);
    CHECK_INT(coding_q("*;q=0.3", PIB_CODING_IDENTITY), 300);
    CHECK_INT(coding_q("br", PIB_CODING_GZIP), PIB_Q_UNSET);
    CHECK_INT(coding_q("br", PIB_CODING_IDENTITY), PIB_Q_UNSET);
    CHECK_INT(coding_q("x-gzip;q=0.2, gzip;q=0.1", PIB_CODING_GZIP), 200);
    CHECK_INT(coding_q("identity;q=0, *", PIB_CODING_IDENTITY), 0);
    CHECK_INT(coding_q("BR;q=0.4, *;q=0.9", PIB_CODING_BR), 400);
    CHECK_INT(coding_q("zstd;q=0.25", PIB_CODING_ZSTD), 250);
    CHECK_INT(coding_q("deflate", PIB_CODING_DEFLATE), 1000);
    CHECK_INT(coding_q("zstd", PIB_CODING_COUNT), PIB_Q_UNSET);
}

/* The parser knows every coding; the server's offer decides what can be
 * chosen: highest q, ties to the server's order (for zstd/br later). */
static void choose_among(void)
{
    static const pib_coding zbg[] = { PIB_CODING_ZSTD, PIB_CODING_BR,
                                      PIB_CODING_GZIP };
    static const pib_coding gz[] = { PIB_CODING_GZIP };

    CHECK_INT(choose("gzip, br", zbg, 3), PIB_CODING_BR);     /* tie */
    CHECK_INT(choose("gzip, br, zstd", zbg, 3), PIB_CODING_ZSTD);
    CHECK_INT(choose("gzip, br;q=0.9", zbg, 3), PIB_CODING_GZIP);
    CHECK_INT(choose("br;q=0.5, *;q=0.6", zbg, 3), PIB_CODING_ZSTD);
    CHECK_INT(choose("br;q=0.5, identity;q=0.6", zbg, 3),
              PIB_CODING_IDENTITY);
    CHECK_INT(choose("br", gz, 1), PIB_CODING_IDENTITY);
    CHECK_INT(choose("*;q=0", zbg, 3), PIB_CODING_IDENTITY);
    CHECK_INT(choose("gzip", zbg, 0), PIB_CODING_IDENTITY);   /* no offer */
    CHECK_INT(choose("", gz, 1), PIB_CODING_IDENTITY);
}

/* Several Accept-Encoding lines are one list (haproxy#987). */
static void several_lines(void)
{
    CHECK_INT(wants("br", "gzip", NULL), 1);
    CHECK_INT(wants("br", "deflate", NULL), 0);
    CHECK_INT(wants("gzip", "identity;q=0", NULL), 1);
    CHECK_INT(wants("identity;q=1", "gzip;q=0.5", NULL), 0);
    CHECK_INT(wants("", "x-gzip", ""), 1);
    CHECK_INT(wants("gzip;q=0", "br", "*"), 0);
}

static void etag_suffix(void)
{
    char out[64];

    CHECK_INT(pib_etag_add_suffix("\"abc\"", out, sizeof(out)), 1);
    CHECK_STR(out, "\"abc-gzip\"");
    CHECK_INT(pib_etag_add_suffix("\"\"", out, sizeof(out)), 1);
    CHECK_STR(out, "\"-gzip\"");
    CHECK_INT(pib_etag_add_suffix("W/\"abc\"", out, sizeof(out)), 0);
    CHECK_INT(pib_etag_add_suffix("\"abc-gzip\"", out, sizeof(out)), 0);
    CHECK_INT(pib_etag_add_suffix("abc", out, sizeof(out)), 0);
    CHECK_INT(pib_etag_add_suffix("\"", out, sizeof(out)), 0);
    CHECK_INT(pib_etag_add_suffix(NULL, out, sizeof(out)), 0);
    CHECK_INT(pib_etag_add_suffix("\"abc\"", out, 10), 0);  /* no room */
    CHECK_INT(pib_etag_add_suffix("\"abc\"", out, 11), 1);
}

static void etag_unsuffix(void)
{
    char out[128];

    CHECK_INT(pib_etag_unsuffix_list("\"abc-gzip\"", out, sizeof(out)), 1);
    CHECK_STR(out, "\"abc\"");
    CHECK_INT(pib_etag_unsuffix_list("\"a-gzip\", W/\"b-gzip\", \"c\"",
                                     out, sizeof(out)), 2);
    CHECK_STR(out, "\"a\", W/\"b\", \"c\"");
    CHECK_INT(pib_etag_unsuffix_list("*", out, sizeof(out)), 0);
    CHECK_STR(out, "*");
    CHECK_INT(pib_etag_unsuffix_list("\"-gzip\"", out, sizeof(out)), 1);
    CHECK_STR(out, "\"\"");
    CHECK_INT(pib_etag_unsuffix_list("\"x,-gzip\"", out, sizeof(out)), 1);
    CHECK_STR(out, "\"x,\"");
    CHECK_INT(pib_etag_unsuffix_list("\"open-gzip", out, sizeof(out)), 0);
    CHECK_STR(out, "\"open-gzip");
    CHECK_INT(pib_etag_unsuffix_list("gzip\"", out, sizeof(out)), 0);
    CHECK_STR(out, "gzip\"");
    CHECK_INT(pib_etag_unsuffix_list("\"a-gzip\"", out, 3), 0);
}

static void etag_in_list(void)
{
    CHECK_INT(pib_etag_in_list("\"a\"", "\"a\""), 1);
    CHECK_INT(pib_etag_in_list("\"b\", W/\"a\"", "\"a\""), 1);
    CHECK_INT(pib_etag_in_list(" \"x\" ,\"a-gzip\"", "\"a-gzip\""), 1);
    CHECK_INT(pib_etag_in_list("\"a-gzip\"", "\"a\""), 0);
    CHECK_INT(pib_etag_in_list("\"a\"", "W/\"a\""), 1);
    CHECK_INT(pib_etag_in_list("*", "\"a\""), 0);
    CHECK_INT(pib_etag_in_list("\"ab", "\"ab\""), 0);
    CHECK_INT(pib_etag_in_list("garbage, \"a\"", "\"a\""), 0);
    CHECK_INT(pib_etag_in_list(NULL, "\"a\""), 0);
    CHECK_INT(pib_etag_in_list("\"a\"", NULL), 0);
    CHECK_INT(pib_etag_in_list("\"a\"", "a"), 0);
}

void test_ae(void)
{
    etag_in_list();
    table();
    choose_among();
    several_lines();
    etag_suffix();
    etag_unsuffix();
}
