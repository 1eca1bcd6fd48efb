/* test_http.c - request head parser, Accept-Encoding, bodies, gzip. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "testhelp.h"
#include "body.h"
#include "gzpool.h"
#include "http.h"

static enum sim_http_rc parse(const char *s, struct sim_http_req *r)
{
    return sim_http_parse(s, strlen(s), r);
}

static void test_parse(void)
{
    struct sim_http_req r;
    char *big;

    CHECK(parse("GET / HTTP/1.1\r\nHost: x\r\n\r\n", &r) == SIM_HTTP_OK
          && r.method == SIM_GET && r.keep_alive && r.minor == 1
          && !r.gzip_ok && !r.is_status && r.head_len == 27, "simple GET");
    CHECK(parse("GET / HTTP/1.1\r\nHost: x\r\n", &r) == SIM_HTTP_MORE,
          "incomplete");
    CHECK(parse("GET / HTTP/1.0\r\n\r\n", &r) == SIM_HTTP_OK
          && !r.keep_alive, "1.0 closes");
    CHECK(parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", &r)
          == SIM_HTTP_OK && r.keep_alive, "1.0 keep-alive");
    CHECK(parse("HEAD /x HTTP/1.1\r\nConnection: foo, close\r\n\r\n", &r)
          == SIM_HTTP_OK && r.method == SIM_HEAD && !r.keep_alive,
          "HEAD + close");
    CHECK(parse("GET /pi-status?auto HTTP/1.1\r\n\r\n", &r) == SIM_HTTP_OK
          && r.is_status, "status");
    CHECK(parse("GET /pi-status?refresh=2&auto=1 HTTP/1.1\n\n", &r)
          == SIM_HTTP_OK && r.is_status, "status, bare LF");
    CHECK(parse("GET /pi-status HTTP/1.1\r\n\r\n", &r) == SIM_HTTP_OK
          && !r.is_status, "status page without auto is a page");
    CHECK(parse("GET /pi-statusx?auto HTTP/1.1\r\n\r\n", &r) == SIM_HTTP_OK
          && !r.is_status, "other path");
    CHECK(parse("POST /f HTTP/1.1\r\nContent-Length: 12\r\n\r\n", &r)
          == SIM_HTTP_OK && r.method == SIM_OTHER && r.content_length == 12,
          "POST body length");
    CHECK(parse("GET / HTTP/1.1\r\nAccept-Encoding: br, gzip;q=0.5\r\n\r\n",
                &r) == SIM_HTTP_OK && r.gzip_ok, "gzip accepted");
    CHECK(parse("GARBAGE\r\n\r\n", &r) == SIM_HTTP_BAD, "garbage");
    CHECK(parse("\x16\x03\x01\x02", &r) == SIM_HTTP_BAD, "TLS hello");
    CHECK(parse("GET / HTTP/2.0\r\n\r\n", &r) == SIM_HTTP_VERSION, "505");
    CHECK(parse("GET / HTTP/1.1\r\nbad header\r\n\r\n", &r) == SIM_HTTP_BAD,
          "header without colon");
    CHECK(parse("GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n", &r) == SIM_HTTP_BAD,
          "obs-fold");
    CHECK(parse("GET / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", &r)
          == SIM_HTTP_BAD, "bad length");
    CHECK(parse("GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2"
                "\r\n\r\n", &r) == SIM_HTTP_BAD, "conflicting lengths");
    CHECK(parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", &r)
          == SIM_HTTP_UNSUPPORTED, "chunked 501");
    big = malloc(SIM_HTTP_HEAD_MAX + 100);
    memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
    memset(big + 19, 'a', SIM_HTTP_HEAD_MAX + 80);
    CHECK(sim_http_parse(big, SIM_HTTP_HEAD_MAX, &r) == SIM_HTTP_TOO_BIG,
          "431");
    memcpy(big + SIM_HTTP_HEAD_MAX - 100, "\r\n\r\n", 4);
    CHECK(sim_http_parse(big, SIM_HTTP_HEAD_MAX, &r) == SIM_HTTP_OK,
          "16 KiB head just fits");
    free(big);
}

static void test_accept_encoding(void)
{
    static const struct { const char *v; int ok; } t[] = {
        { "gzip", 1 }, { "GZIP", 1 }, { "deflate, gzip", 1 },
        { "x-gzip", 1 }, { "gzip;q=0", 0 }, { "gzip; q=0.0", 0 },
        { "br", 0 }, { "*", 1 }, { "*;q=0", 0 }, { "gzip;q=0, *", 0 },
        { "", 0 }, { "identity", 0 }, { "gzipx", 0 },
    };
    size_t i;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        CHECK(sim_http_accepts_gzip(t[i].v, strlen(t[i].v)) == t[i].ok,
              t[i].v);
}

static void test_bodies_and_gzip(void)
{
    char *a = sim_body_generate(5000), *b = sim_body_generate(5000);
    char *gz = NULL, *back;
    size_t len, gzlen = 0;
    uLongf backlen = 60000;
    z_stream zs = { 0 };

    CHECK(a && b && strlen(a) == 5000 && memcmp(a, b, 5000) == 0,
          "generated body deterministic, exact size");
    CHECK(strstr(a, "</body></html>\n") == a + 4985, "body ends the page");
    free(a);
    free(b);
    a = sim_body_phpinfo(&len);
    CHECK(a && len > 45000 && len < 56000 && strstr(a, "PHP Version"),
          "phpinfo ~50 KB");
    CHECK(sim_gzip(a, len, 6, &gz, &gzlen) == 0 && gzlen < len / 2
          && gz[0] == '\x1f' && (unsigned char)gz[1] == 0x8b,
          "gzip member, compresses");
    back = malloc(backlen);
    inflateInit2(&zs, 15 + 16);
    zs.next_in = (Bytef *)gz;
    zs.avail_in = (uInt)gzlen;
    zs.next_out = (Bytef *)back;
    zs.avail_out = (uInt)backlen;
    CHECK(inflate(&zs, Z_FINISH) == Z_STREAM_END && zs.total_out == len
          && memcmp(back, a, len) == 0, "gzip round trip");
    inflateEnd(&zs);
    free(back);
    free(gz);
    free(a);
}

int main(void)
{
    test_parse();
    test_accept_encoding();
    test_bodies_and_gzip();
    return test_report();
}
