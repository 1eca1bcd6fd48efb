/* test_decide.c -- should_compress: the worked table of pib_decide.c and
 * every skip rule; when a pause in a held body makes it stream. */
#include "unit.h"
#include "pib_decide.h"

static pib_resp base(void)
{
    pib_resp r = { 200, 0, "text/html; charset=UTF-8", NULL, NULL, NULL,
                   50000, 1, 0, 0, 0 };
    return r;
}

static void worked_table(void)
{
    pib_policy pol = { pib_default_types, 0, 256 };
    pib_resp r;

    pol.ntypes = pib_default_ntypes;
    r = base();
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_COMPRESS);
    r.client_gzip = 0;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_VARY_ONLY);
    r = base(); r.length = 100;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_SMALL);
    r.length = 255;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_SMALL);
    r.length = 256;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_COMPRESS);
    r.length = -1;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_COMPRESS);
    r = base(); r.content_type = "image/png";
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_TYPE);
    r = base(); r.content_encoding = "br";
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_ENCODED);
    r = base(); r.status = 206; r.content_range = "bytes 0-9/100";
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_RANGE);
    r = base(); r.status = 304; r.content_type = NULL; r.length = -1;
    r.inm_gzip = 1;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_COMPRESS);
    r.inm_gzip = 0; r.inm_plain = 1;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_TYPE);
    r = base(); r.status = 304; r.content_type = "image/png"; r.length = -1;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_TYPE);
    r = base(); r.status = 204;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_NO_BODY);
}

static void skip_rules(void)
{
    pib_policy pol = { pib_default_types, 0, 256 };
    pib_resp r;

    pol.ntypes = pib_default_ntypes;
    r = base(); r.status = 101;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_NO_BODY);
    r.status = 205;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_NO_BODY);
    r = base(); r.subrequest = 1;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_NO_BODY);
    r = base(); r.status = 404;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_COMPRESS);
    r = base(); r.content_range = "bytes 0-9/100";
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_RANGE);
    r = base(); r.cache_control = "public, No-Transform";
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_NO_TRANSFORM);
    r.cache_control = "max-age=60, no-transformer";
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_COMPRESS);
    r = base(); r.content_type = NULL;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_TYPE);
    r = base(); r.paused = 1;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_VARY_ONLY);
    r = base(); r.status = 304; r.content_type = "image/png";
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_TYPE);
    r.content_type = "text/css"; r.length = 10;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_COMPRESS);
    /* issue 15 item 9: a 304 for the gzip copy keeps it, whatever the
     * client and the adaptive state; both copies: the one sent now */
    r = base(); r.status = 304; r.content_type = NULL; r.inm_gzip = 1;
    r.client_gzip = 0;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_COMPRESS);
    r.client_gzip = 1; r.paused = 1;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_COMPRESS);
    r.inm_plain = 1;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_VARY_ONLY);
    r.paused = 0;
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_COMPRESS);
    r.content_type = "image/png";
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_TYPE);
    r = base(); r.status = 304; r.content_type = NULL; r.inm_gzip = 1;
    r.cache_control = "no-transform";
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_NO_TRANSFORM);
    r = base(); r.content_encoding = "identity";
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_COMPRESS);
    r.content_encoding = "gzip";
    CHECK_INT(pib_should_compress(&r, &pol), PIB_DEC_ENCODED);
    CHECK_STR(pib_verdict_name(PIB_DEC_NO_TRANSFORM), "no_transform");
    CHECK_STR(pib_verdict_name((pib_verdict)99), "?");
}

static void types_and_tokens(void)
{
    const char *const two[] = { "text/html", "application/json" };

    CHECK(pib_type_listed("text/html", two, 2));
    CHECK(pib_type_listed("Text/HTML;charset=utf-8", two, 2));
    CHECK(pib_type_listed("  application/json ; x=1", two, 2));
    CHECK(!pib_type_listed("text/htmlx", two, 2));
    CHECK(!pib_type_listed("text/htm", two, 2));
    CHECK(!pib_type_listed("", two, 2));
    CHECK(!pib_type_listed(NULL, two, 2));
    CHECK(pib_type_listed("image/svg+xml", pib_default_types,
                          pib_default_ntypes));
    CHECK(!pib_is_encoded(NULL));
    CHECK(!pib_is_encoded("identity"));
    CHECK(!pib_is_encoded(" Identity , 8bit"));
    CHECK(pib_is_encoded("identity, gzip"));
    CHECK(pib_is_encoded("X-GZIP"));
    CHECK(!pib_is_encoded(", ,"));
    CHECK(pib_has_no_transform("no-transform"));
    CHECK(pib_has_no_transform("max-age=0,no-transform"));
    CHECK(!pib_has_no_transform("private=\"no-transform\""));
    CHECK(!pib_has_no_transform(NULL));
}

/* A pause in a held body: only a long one, with more to come, streams. */
static void pauses(void)
{
    const long long ms = 1000;

    CHECK(!pib_pause_streams(20 * ms, 40000, 40000, 160000));
    CHECK(!pib_pause_streams(PIB_PAUSE_STREAM_US - 1, 40000, 40000, 160000));
    CHECK(pib_pause_streams(PIB_PAUSE_STREAM_US, 40000, 40000, 160000));
    CHECK(pib_pause_streams(10000 * ms, 0, 1, 160000));
    /* these bytes end the body: nothing left to wait for */
    CHECK(!pib_pause_streams(10000 * ms, 120000, 40000, 160000));
    /* more than announced (the filter streams it for that reason) */
    CHECK(!pib_pause_streams(10000 * ms, 150000, 40000, 160000));
    /* unknown length: never held */
    CHECK(!pib_pause_streams(10000 * ms, 0, 10, -1));
    CHECK(!pib_pause_streams(-5 * ms, 0, 10, 160000));
}

/* The codec choice (PiBalanceDeflateBuffer 1000 here) and the HEAD
 * length rule. */
static void codec_and_head(void)
{
    CHECK(pib_choose_codec(-1, 1000) == PIB_CODEC_STREAM);
    CHECK(pib_choose_codec(0, 1000) == PIB_CODEC_ONE_PASS);
    CHECK(pib_choose_codec(1000, 1000) == PIB_CODEC_ONE_PASS);
    CHECK(pib_choose_codec(1001, 1000) == PIB_CODEC_STREAM);
    CHECK(pib_choose_codec(5000000000LL, 1000) == PIB_CODEC_STREAM);
    CHECK_INT(pib_whole_body_length(0, 1), -1);    /* empty HEAD */
    CHECK_INT(pib_whole_body_length(0, 0), 0);     /* an empty GET */
    CHECK_INT(pib_whole_body_length(1234, 1), 1234);
    CHECK_INT(pib_whole_body_length(1234, 0), 1234);
}

void test_decide(void)
{
    codec_and_head();
    worked_table();
    skip_rules();
    types_and_tokens();
    pauses();
}
