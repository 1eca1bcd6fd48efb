/* test_dpolicy.c -- the dictionary decision: the table of
 * pib_dpolicy.c's comment, row by row; every refusal (not listed, not
 * compressible, cookie, private, no-store, no-transform, cross-site and
 * its directive) stops everything, Vary included; credentials stop only
 * what would make a dictionary of the response; Cache-Control parsing
 * (whole directives, quoted values, s-maxage first); URLPattern escaping
 * of a path. */
#include "unit.h"
#include "pib_dpolicy.h"

static pib_dd_in dd_base(void)
{
    pib_dd_in in;

    memset(&in, 0, sizeof(in));
    in.dcz_listed = 1;
    in.compressible = 1;
    in.client_dcz = 1;
    in.self_on = 1;
    in.prefix_on = 1;
    in.prefix_has_dict = 1;
    in.fresh = 1;
    in.sec_fetch_site = "same-origin";
    return in;
}

#define DD_ROW(o, u, m, s, l, p) do { \
    CHECK_INT((o).use_dcz, u); CHECK_INT((o).miss, m); \
    CHECK_INT((o).announce_self, s); CHECK_INT((o).announce_link, l); \
    CHECK_INT((o).sample, p); } while (0)

static void test_table(void)
{
    pib_dd_in in = dd_base();
    pib_dd_out o;

    in.client_dcz = 0;                      /* row 2 */
    pib_dd_decide(&in, &o);
    DD_ROW(o, 0, 0, 0, 0, 1);
    in.browser = 1;                         /* a browser without one yet */
    pib_dd_decide(&in, &o);
    DD_ROW(o, 0, 0, 1, 1, 1);
    in.browser = 0;
    CHECK_INT(o.why, PIB_DD_OK);
    CHECK_INT(o.vary, 1);
    in = dd_base();                         /* row 3: names none */
    pib_dd_decide(&in, &o);
    DD_ROW(o, 0, 0, 1, 1, 1);
    in.avail_present = 1;                   /* row 4: garbage */
    pib_dd_decide(&in, &o);
    DD_ROW(o, 0, 1, 1, 1, 1);
    in.avail_ok = 1;                        /* row 4: unknown */
    pib_dd_decide(&in, &o);
    DD_ROW(o, 0, 1, 1, 1, 1);
    in.held = 1;                            /* row 5 */
    pib_dd_decide(&in, &o);
    DD_ROW(o, 1, 0, 1, 1, 1);
    /* credentials: compressed against it, never one itself */
    in.req_credentials = 1;
    pib_dd_decide(&in, &o);
    DD_ROW(o, 1, 0, 0, 0, 0);
    /* not fresh: no self; no prefix dictionary yet: no link */
    in = dd_base();
    in.fresh = 0;
    in.prefix_has_dict = 0;
    pib_dd_decide(&in, &o);
    DD_ROW(o, 0, 0, 0, 0, 1);
    /* neither self nor prefix here: nothing but dcz for a held hash, and
     * Vary only when the client names one */
    in = dd_base();
    in.self_on = in.prefix_on = 0;
    pib_dd_decide(&in, &o);
    DD_ROW(o, 0, 0, 0, 0, 0);
    CHECK_INT(o.vary, 0);
    in.avail_present = in.avail_ok = in.held = 1;
    pib_dd_decide(&in, &o);
    DD_ROW(o, 1, 0, 0, 0, 0);
    CHECK_INT(o.vary, 1);
}

static void test_refusals(void)
{
    static const struct { const char *cc; int cookie; const char *site;
                          int allow; int listed; int comp; pib_dd_why why; }
    rows[] = {
        { NULL, 0, NULL, 0, 0, 1, PIB_DD_NOT_LISTED },
        { NULL, 0, NULL, 0, 1, 0, PIB_DD_NOT_COMPRESSIBLE },
        { NULL, 1, NULL, 0, 1, 1, PIB_DD_COOKIE },
        { "max-age=60, private", 0, NULL, 0, 1, 1, PIB_DD_PRIVATE },
        { "PRIVATE=\"set-cookie\"", 0, NULL, 0, 1, 1, PIB_DD_PRIVATE },
        { "no-store", 0, NULL, 0, 1, 1, PIB_DD_PRIVATE },
        { "public, No-Transform", 0, NULL, 0, 1, 1, PIB_DD_NO_TRANSFORM },
        { NULL, 0, "cross-site", 0, 1, 1, PIB_DD_CROSS_SITE },
        { NULL, 0, "Cross-Site", 0, 1, 1, PIB_DD_CROSS_SITE },
        { NULL, 0, "cross-site", 1, 1, 1, PIB_DD_OK },
        { NULL, 0, "same-site", 0, 1, 1, PIB_DD_OK },
        { NULL, 0, "none", 0, 1, 1, PIB_DD_OK },
        { "privateer, no-storex", 0, NULL, 0, 1, 1, PIB_DD_OK },
        { "x=\"private, no-store\"", 0, NULL, 0, 1, 1, PIB_DD_OK },
    };
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        pib_dd_in in = dd_base();
        pib_dd_out o;

        in.cache_control = rows[i].cc;
        in.sets_cookie = rows[i].cookie;
        in.sec_fetch_site = rows[i].site;
        in.cross_site_allowed = rows[i].allow;
        in.dcz_listed = rows[i].listed;
        in.compressible = rows[i].comp;
        in.avail_present = in.avail_ok = in.held = 1;
        pib_dd_decide(&in, &o);
        CHECK_INT(o.why, rows[i].why);
        if (rows[i].why != PIB_DD_OK) {
            DD_ROW(o, 0, 0, 0, 0, 0);
            CHECK_INT(o.vary, 0);
        }
        else {
            CHECK_INT(o.use_dcz, 1);
        }
    }
}

static void test_cc(void)
{
    CHECK_INT(pib_cc_max_age("max-age=3600"), 3600);
    CHECK_INT(pib_cc_max_age("public, max-age=60, s-maxage=600"), 600);
    CHECK_INT(pib_cc_max_age("max-age=\"120\""), 120);
    CHECK_INT(pib_cc_max_age("max-age = 5"), -1);  /* no spaces in RFC 9111 */
    CHECK_INT(pib_cc_max_age("no-cache"), -1);
    CHECK_INT(pib_cc_max_age("max-age="), -1);
    CHECK_INT(pib_cc_max_age("max-age=12x"), -1);
    CHECK_INT(pib_cc_max_age("max-agex=5"), -1);
    CHECK_INT(pib_cc_max_age("max-age=0"), 0);
    CHECK_INT(pib_cc_max_age(NULL), -1);
    CHECK_INT(pib_cc_has("a=\"x,private\", b", "private"), 0);
    CHECK_INT(pib_cc_has("a=\"unterminated, private", "private"), 0);
    CHECK_INT(pib_cc_has(" ,, no-store", "no-store"), 1);
}

static void test_pattern(void)
{
    char out[64];

    CHECK_INT(pib_dd_pattern("/s/app.js?v=3", 0, out, sizeof(out)), 9);
    CHECK_STR(out, "/s/app.js");
    pib_dd_pattern("/app/", 1, out, sizeof(out));
    CHECK_STR(out, "/app/*");
    pib_dd_pattern("/a:b/(c)*{d}+[e]\\", 0, out, sizeof(out));
    CHECK_STR(out, "/a\\:b/\\(c\\)\\*\\{d\\}\\+\\[e\\]\\\\");
    CHECK_INT(pib_dd_pattern("relative", 0, out, sizeof(out)), 0);
    CHECK_INT(pib_dd_pattern("/a b", 0, out, sizeof(out)), 0);
    CHECK_INT(pib_dd_pattern(NULL, 0, out, sizeof(out)), 0);
    CHECK_INT(pib_dd_pattern("/abc", 0, out, 5), 4);
    CHECK_INT(pib_dd_pattern("/abc", 1, out, 5), 0);
    CHECK_INT(pib_dd_pattern("/ab:", 0, out, 5), 0);
}

static int dd_held_abc(const unsigned char *h, void *baton)
{
    (*(int *)baton)++;
    return h[0] == 0xba && h[31] == 0xad;   /* SHA-256("abc") */
}

static void test_cache_key(void)
{
    char out[47];
    int asked = 0;
    const char *abc = ":ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=:";

    CHECK_STR(pib_dd_cache_key(1, abc, dd_held_abc, &asked, out), abc);
    /* unpadded, spaced: the same key */
    CHECK_STR(pib_dd_cache_key(1, "  :ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/"
                                  "YfIAFa0: ", dd_held_abc, &asked, out),
              abc);
    CHECK_INT(asked, 2);
    /* not held, no dcz, malformed, absent: no key (header removed) */
    CHECK(pib_dd_cache_key(1, ":AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:",
                           dd_held_abc, &asked, out) == NULL);
    CHECK(pib_dd_cache_key(0, abc, dd_held_abc, &asked, out) == NULL);
    CHECK(pib_dd_cache_key(1, ":abc:", dd_held_abc, &asked, out) == NULL);
    CHECK(pib_dd_cache_key(1, NULL, dd_held_abc, &asked, out) == NULL);
    CHECK(pib_dd_cache_key(1, abc, NULL, NULL, out) == NULL);
    CHECK_INT(asked, 3);            /* held() only for a parsed hash */
}

void test_dpolicy(void)
{
    test_cache_key();
    test_table();
    test_refusals();
    test_cc();
    test_pattern();
}
