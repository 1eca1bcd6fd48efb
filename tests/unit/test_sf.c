/* test_sf.c -- RFC 9842's structured fields: Available-Dictionary
 * (sf-binary of 32 bytes: padded, unpadded, spaces, and every way of
 * being wrong), the hash written back (round trip), hex names,
 * Dictionary-ID (sf-string escapes and limits), Use-As-Dictionary parsed
 * (what chromium and RFC 9842's examples send, unknown keys and
 * parameters skipped, wrong types refused) and written (escaping, and
 * parsed back to the same values). */
#include "unit.h"
#include "pib_sf.h"

/* SHA-256("abc"): ba7816bf...15ad; its base64 as chromium sends it. */
static const unsigned char sf_abc[32] = {
    0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40,
    0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17,
    0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad
};
#define SF_ABC "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="

static void test_hash(void)
{
    unsigned char h[32];
    char out[PIB_SF_BINARY_LEN + 1], hex[PIB_SF_HEX_LEN + 1];
    static const char *bad[] = {
        "", ":", "::", SF_ABC, ":" SF_ABC, SF_ABC ":",
        ":" SF_ABC ":x", ":" SF_ABC "::",
        ":ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0A:",  /* 33 bytes */
        ":ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa=:",   /* 31 */
        ":ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0=:",  /* url-safe */
        ":ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAF=a0:",  /* data after = */
        ":ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0===:",
        ":ungWv48Bz+pBQUDeXa4iI7 ADYaOWF3qctBD/YfIAFa0=:",
        "\t:" SF_ABC ":", "\"" SF_ABC "\"",
        ":" SF_ABC ":, :" SF_ABC ":",                      /* two */
    };
    size_t i;

    memset(h, 0, sizeof(h));
    CHECK_INT(pib_sf_parse_hash(":" SF_ABC ":", h), 0);
    CHECK(memcmp(h, sf_abc, 32) == 0);
    memset(h, 0, sizeof(h));
    CHECK_INT(pib_sf_parse_hash("  :ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/"
                                "YfIAFa0:  ", h), 0);   /* unpadded */
    CHECK(memcmp(h, sf_abc, 32) == 0);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (pib_sf_parse_hash(bad[i], h) != -1) {
            CHECK_STR(bad[i], "(refused)");
        }
    }
    CHECK_INT(pib_sf_parse_hash(NULL, h), -1);
    pib_sf_format_hash(sf_abc, out);
    CHECK_STR(out, ":" SF_ABC ":");
    pib_sf_hex(sf_abc, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223"
                   "b00361a396177a9cb410ff61f20015ad");
    CHECK_INT(pib_sf_parse_hex(hex, h), 0);
    CHECK(memcmp(h, sf_abc, 32) == 0);
    CHECK_INT(pib_sf_parse_hex("BA7816BF8F01CFEA414140DE5DAE2223"
                               "B00361A396177A9CB410FF61F20015AD", h), 0);
    CHECK(memcmp(h, sf_abc, 32) == 0);
    CHECK_INT(pib_sf_parse_hex("ba7816bf", h), -1);
    CHECK_INT(pib_sf_parse_hex("ga7816bf8f01cfea414140de5dae2223"
                               "b00361a396177a9cb410ff61f20015ad", h), -1);
    CHECK_INT(pib_sf_parse_hex(NULL, h), -1);
    /* round trip for every byte value in every position */
    for (i = 0; i < 256; i++) {
        unsigned char a[32], b[32];
        size_t j;

        for (j = 0; j < 32; j++) {
            a[j] = (unsigned char)(i * 31 + j * 7);
        }
        pib_sf_format_hash(a, out);
        CHECK_INT(strlen(out), PIB_SF_BINARY_LEN);
        if (pib_sf_parse_hash(out, b) != 0 || memcmp(a, b, 32) != 0) {
            CHECK_STR(out, "(round trip)");
        }
    }
}

static void test_string(void)
{
    char out[64];

    CHECK_INT(pib_sf_parse_string("\"abc\"", out, sizeof(out)), 0);
    CHECK_STR(out, "abc");
    CHECK_INT(pib_sf_parse_string(" \"a\\\"b\\\\c\" ", out, sizeof(out)), 0);
    CHECK_STR(out, "a\"b\\c");
    CHECK_INT(pib_sf_parse_string("\"\"", out, sizeof(out)), 0);
    CHECK_STR(out, "");
    CHECK_INT(pib_sf_parse_string("\"a\\nb\"", out, sizeof(out)), -1);
    CHECK_INT(pib_sf_parse_string("\"abc", out, sizeof(out)), -1);
    CHECK_INT(pib_sf_parse_string("abc", out, sizeof(out)), -1);
    CHECK_INT(pib_sf_parse_string("\"a\"x", out, sizeof(out)), -1);
    CHECK_INT(pib_sf_parse_string("\"a\tb\"", out, sizeof(out)), -1);
    CHECK_INT(pib_sf_parse_string("\"\xc3\xa9\"", out, sizeof(out)), -1);
    CHECK_INT(pib_sf_parse_string("\"abcdef\"", out, 6), -1);  /* cap */
    CHECK_INT(pib_sf_parse_string("\"abcde\"", out, 6), 0);
    CHECK_INT(pib_sf_string_ok("/app/*", 10), 1);
    CHECK_INT(pib_sf_string_ok("/app/\x7f", 10), 0);
    CHECK_INT(pib_sf_string_ok("/app/\n", 10), 0);
    CHECK_INT(pib_sf_string_ok("abcd", 3), 0);
}

static void test_uad_parse(void)
{
    pib_sf_uad u;
    static const char *bad[] = {
        "", "match", "match=", "match=/app", "match=\"\"", "id=\"x\"",
        "match=\"/a\", type=dict", "match=\"/a\", type=\"raw\"",
        "match=\"/a\", match-dest=\"document\"",
        "match=\"/a\", match-dest=(document)",
        "match=\"/a\",", "match=\"/a\" id=\"x\"", "Match=\"/a\"",
        "match=\"/a\", id=1", "match=(\"/a\")", "match=\"/a\", x=(1 2",
        "match=\"/a\", x=1.", "match=\"/a\", x=1.2345", "match=\"/a\", x=?2",
        "match=\"/a\"; p=\"unterminated",
    };
    size_t i;

    CHECK_INT(pib_sf_parse_uad("match=\"/page\", match-dest=(\"document\")",
                               &u), 0);
    CHECK_STR(u.match, "/page");
    CHECK_INT(u.ndest, 1);
    CHECK_STR(u.dest[0], "document");
    CHECK_STR(u.id, "");
    CHECK_INT(pib_sf_parse_uad("match=\"/js/app*.js\", match-dest=(\"script\""
                               " \"style\");x, id=\"v\\\"1\", type=raw, "
                               "future=?1;a=1;b=:AA==:, n=-12.5, l=(1 tok)",
                               &u), 0);
    CHECK_STR(u.match, "/js/app*.js");
    CHECK_INT(u.ndest, 2);
    CHECK_STR(u.dest[1], "style");
    CHECK_STR(u.id, "v\"1");
    CHECK_INT(pib_sf_parse_uad("match=\"/a\",match=\"/b\"", &u), 0);
    CHECK_STR(u.match, "/b");                   /* the last one wins */
    CHECK_INT(pib_sf_parse_uad("match=\"/a\", match-dest=()", &u), 0);
    CHECK_INT(u.ndest, 0);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (pib_sf_parse_uad(bad[i], &u) != -1) {
            CHECK_STR(bad[i], "(refused)");
        }
    }
    CHECK_INT(pib_sf_parse_uad(NULL, &u), -1);
}

static void test_uad_format(void)
{
    char out[256];
    pib_sf_uad u;
    size_t n;

    n = pib_sf_format_uad(out, sizeof(out), "/page", "document", NULL);
    CHECK_STR(out, "match=\"/page\", match-dest=(\"document\")");
    CHECK_INT(n, strlen(out));
    pib_sf_format_uad(out, sizeof(out), "/s/app.js", NULL, "d1");
    CHECK_STR(out, "match=\"/s/app.js\", id=\"d1\"");
    pib_sf_format_uad(out, sizeof(out), "/q\"\\", NULL, NULL);
    CHECK_STR(out, "match=\"/q\\\"\\\\\"");
    CHECK_INT(pib_sf_parse_uad(out, &u), 0);
    CHECK_STR(u.match, "/q\"\\");
    CHECK_INT(pib_sf_format_uad(out, sizeof(out), "", NULL, NULL), 0);
    CHECK_INT(pib_sf_format_uad(out, sizeof(out), "/a\n", NULL, NULL), 0);
    CHECK_INT(pib_sf_format_uad(out, sizeof(out), "/a", "doc\x01", NULL), 0);
    CHECK_INT(pib_sf_format_uad(out, 10, "/page", NULL, NULL), 0);
    CHECK_INT(pib_sf_format_uad(out, 14, "/page", NULL, NULL), 13);
    CHECK_INT(pib_sf_format_uad(out, 13, "/page", NULL, NULL), 0);
}

void test_sf(void)
{
    test_hash();
    test_string();
    test_uad_parse();
    test_uad_format();
}
