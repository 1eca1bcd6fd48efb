/* test_agent.c -- pi-telemetry-agent's pure parts (agent/pia_request.c):
 * the request head and line, what each request is answered, the
 * --listen and seconds options. */
#include "unit.h"
#include "pia_request.h"

#define S(x) x, sizeof(x) - 1

static void head_length(void)
{
    CHECK_INT((int)pia_head_length(S("GET / HTTP/1.0\r\n\r\n")), 18);
    CHECK_INT((int)pia_head_length(S("GET / HTTP/1.0\n\nrest")), 16);
    CHECK_INT((int)pia_head_length(S("GET / HTTP/1.1\r\nHost: a\r\n\r\n")),
              27);
    CHECK_INT((int)pia_head_length(S("GET / HTTP/1.0\r\n")), 0);
    CHECK_INT((int)pia_head_length(S("GET / HTTP/1.0\r\n\r")), 0);
    CHECK_INT((int)pia_head_length(S("")), 0);
}

/* Request line -> answer, for the page at /pi-status. */
static void request_table(void)
{
    static const struct {
        const char *line;
        pia_answer want;
        int head, refresh;
    } rows[] = {
        { "GET /pi-status?auto HTTP/1.0\r\n", PIA_AUTO, 0, 0 },
        { "GET /pi-status?auto HTTP/1.1\r\nHost: x\r\n", PIA_AUTO, 0, 0 },
        { "HEAD /pi-status?auto HTTP/1.1\n", PIA_AUTO, 1, 0 },
        { "GET /pi-status HTTP/1.1\r\n", PIA_HTML, 0, 0 },
        { "GET /pi-status?refresh=5 HTTP/1.1\r\n", PIA_HTML, 0, 5 },
        { "GET /pi-status?refresh=5&auto HTTP/1.1\r\n", PIA_AUTO, 0, 5 },
        { "GET /pi-status?json HTTP/1.1\r\n", PIA_NOT_FOUND, 0, 0 },
        { "GET /pi-status?prometheus HTTP/1.1\r\n", PIA_NOT_FOUND, 0, 0 },
        { "GET / HTTP/1.1\r\n", PIA_NOT_FOUND, 0, 0 },
        { "GET /pi-status/ HTTP/1.1\r\n", PIA_NOT_FOUND, 0, 0 },
        { "GET /pi-statusx?auto HTTP/1.1\r\n", PIA_NOT_FOUND, 0, 0 },
        { "POST /pi-status?auto HTTP/1.1\r\n", PIA_NOT_ALLOWED, 0, 0 },
        { "DELETE /pi-status HTTP/1.0\r\n", PIA_NOT_ALLOWED, 0, 0 },
        { "POST /other HTTP/1.0\r\n", PIA_NOT_FOUND, 0, 0 },
        { "GET /pi-status?auto HTTP/2.0\r\n", PIA_BAD_REQUEST, 0, 0 },
        { "GET /pi-status?auto HTTP/1.0 x\r\n", PIA_BAD_REQUEST, 0, 0 },
        { "GET  /pi-status HTTP/1.0\r\n", PIA_BAD_REQUEST, 0, 0 },
        { "get /pi-status HTTP/1.0\r\n", PIA_BAD_REQUEST, 0, 0 },
        { "GET pi-status HTTP/1.0\r\n", PIA_BAD_REQUEST, 0, 0 },
        { "GET /pi-status\r\n", PIA_BAD_REQUEST, 0, 0 },
        { "GET /pi\x01status HTTP/1.0\r\n", PIA_BAD_REQUEST, 0, 0 },
        { "\r\n", PIA_BAD_REQUEST, 0, 0 },
        { "garbage\r\n", PIA_BAD_REQUEST, 0, 0 },
    };
    size_t i;
    pia_request r;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        pia_parse_request(rows[i].line, strlen(rows[i].line), "/pi-status",
                          &r);
        CHECK_INT(r.answer, rows[i].want);
        CHECK_INT(r.head, rows[i].head);
        CHECK_INT(r.refresh, rows[i].refresh);
    }
    /* Another configured path. */
    pia_parse_request(S("GET /node/status?auto HTTP/1.0\r\n"),
                      "/node/status", &r);
    CHECK_INT(r.answer, PIA_AUTO);
    pia_parse_request(S("GET /pi-status?auto HTTP/1.0\r\n"),
                      "/node/status", &r);
    CHECK_INT(r.answer, PIA_NOT_FOUND);
    CHECK_STR(pia_status_line(PIA_AUTO), "200 OK");
    CHECK_STR(pia_status_line(PIA_BAD_REQUEST), "400 Bad Request");
    CHECK_STR(pia_status_line(PIA_NOT_FOUND), "404 Not Found");
    CHECK_STR(pia_status_line(PIA_NOT_ALLOWED), "405 Method Not Allowed");
}

/* A request line as long as the head buffer is refused, not overrun. */
static void request_long(void)
{
    static char line[PIA_HEAD_MAX + 64];
    pia_request r;
    size_t n;

    memcpy(line, "GET /", 5);
    memset(line + 5, 'a', sizeof(line) - 5);
    n = sizeof(line) - 20;
    memcpy(line + n, " HTTP/1.0\r\n", 11);
    pia_parse_request(line, n + 11, "/pi-status", &r);
    CHECK_INT(r.answer, PIA_BAD_REQUEST);
    /* A long query on the right path fits and is read. */
    memcpy(line, "GET /pi-status?auto&", 20);
    memset(line + 20, 'x', 4000);
    memcpy(line + 4020, " HTTP/1.0\r\n", 11);
    pia_parse_request(line, 4031, "/pi-status", &r);
    CHECK_INT(r.answer, PIA_AUTO);
}

static void listen_option(void)
{
    static const char *const bad[] = {
        "", "9181", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536",
        "127.0.0.1:-1", "127.0.0.1: 80", "127.0.0.1:80 ", "::1:80",
        "[::1:80", ":80", "127.0.0.1:8x", "[::[1]:80", "[]]:80", "[]:80",
    };
    char host[64];
    unsigned port = 1;
    size_t i;

    CHECK_INT(pia_parse_listen("127.0.0.1:9181", host, sizeof(host), &port),
              0);
    CHECK_STR(host, "127.0.0.1");
    CHECK_INT((int)port, 9181);
    CHECK_INT(pia_parse_listen("[::1]:80", host, sizeof(host), &port), 0);
    CHECK_STR(host, "::1");
    CHECK_INT((int)port, 80);
    CHECK_INT(pia_parse_listen("*:8080", host, sizeof(host), &port), 0);
    CHECK_STR(host, "");
    CHECK_INT(pia_parse_listen("node1.lan:0", host, sizeof(host), &port), 0);
    CHECK_STR(host, "node1.lan");
    CHECK_INT((int)port, 0);
    CHECK_INT(pia_parse_listen("a-rather-long-name:1", host, 8, &port), -1);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_INT(pia_parse_listen(bad[i], host, sizeof(host), &port), -1);
    }
}

static void seconds_option(void)
{
    unsigned v = 0;

    CHECK_INT(pia_parse_seconds("5", 1, 300, &v), 0);
    CHECK_INT((int)v, 5);
    CHECK_INT(pia_parse_seconds("300", 1, 300, &v), 0);
    CHECK_INT(pia_parse_seconds("301", 1, 300, &v), -1);
    CHECK_INT(pia_parse_seconds("0", 1, 300, &v), -1);
    CHECK_INT(pia_parse_seconds("1.5", 1, 300, &v), -1);
    CHECK_INT(pia_parse_seconds("", 1, 300, &v), -1);
    CHECK_INT(pia_parse_seconds("5s", 1, 300, &v), -1);
}

void test_agent(void)
{
    head_length();
    request_table();
    request_long();
    listen_option();
    seconds_option();
}
