/* test_agent.c -- pi-telemetry-agent's pure parts: the request head and
 * line, what each request is answered, the --listen and seconds options
 * (agent/pia_request.c); peers and which slot a newcomer gets
 * (agent/pia_admit.c, the table of pia_admit.h replayed). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>

#include "unit.h"
#include "pia_admit.h"
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
    /* Empty lines before the request line are not its end. */
    CHECK_INT((int)pia_head_length(S("\r\nGET / HTTP/1.0\r\n\r\n")), 20);
    CHECK_INT((int)pia_head_length(S("\r\n\r\nGET / HTTP/1.0\n\n")), 20);
    CHECK_INT((int)pia_head_length(S("\n\r\n\nGET / HTTP/1.0\r\n")), 0);
    CHECK_INT((int)pia_head_length(S("\r\n\r\n")), 0);
    CHECK_INT((int)pia_head_length(S("\r\n\r")), 0);
}

static void empty_lines(void)
{
    CHECK_INT((int)pia_skip_empty_lines(S("GET")), 0);
    CHECK_INT((int)pia_skip_empty_lines(S("\r\nGET")), 2);
    CHECK_INT((int)pia_skip_empty_lines(S("\n\r\n\nGET")), 4);
    CHECK_INT((int)pia_skip_empty_lines(S("\r\n\r")), 2);  /* half a CRLF */
    CHECK_INT((int)pia_skip_empty_lines(S("\rGET")), 0);
    CHECK_INT((int)pia_skip_empty_lines(S(" \r\nGET")), 0);
    CHECK_INT((int)pia_skip_empty_lines(S("")), 0);
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
        { "\r\nGET /pi-status?auto HTTP/1.0\r\n", PIA_AUTO, 0, 0 },
        { "\r\n\n\r\nHEAD /pi-status HTTP/1.1\r\n", PIA_HTML, 1, 0 },
        { "\r\n\r\n", PIA_BAD_REQUEST, 0, 0 },
        { "\r\n \r\nGET /pi-status HTTP/1.1\r\n", PIA_BAD_REQUEST, 0, 0 },
        { "\rGET /pi-status HTTP/1.1\r\n", PIA_BAD_REQUEST, 0, 0 },
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

/* Slots from a spec: "Ra1 Lb2 F" is slot 0 reading (peer a, seq 1),
 * slot 1 lingering (peer b, seq 2), slot 2 free; W is writing.  Peer x
 * is the address 10.0.0.x. */
static size_t slots_of(const char *spec, pia_slot_state *st, size_t max)
{
    size_t n = 0;

    memset(st, 0, max * sizeof(*st));
    for (; *spec && n < max; n++) {
        pia_slot_state *s = &st[n];

        s->phase = spec[0] == 'R' ? PIA_SLOT_READING
                   : spec[0] == 'W' ? PIA_SLOT_WRITING
                   : spec[0] == 'L' ? PIA_SLOT_LINGERING : PIA_SLOT_FREE;
        if (s->phase != PIA_SLOT_FREE) {
            s->peer.b[10] = s->peer.b[11] = 0xff;
            s->peer.b[12] = 10;
            s->peer.b[15] = (unsigned char)spec[1];
            s->seq = strtoul(spec + 2, NULL, 10);
        }
        spec += strcspn(spec, " ");
        spec += *spec == ' ';
    }
    return n;
}

/* The table of pia_admit.h, and the cases around it. */
static void admit_table(void)
{
    static const struct {
        const char *slots;
        char peer;
        unsigned per_peer;
        long want;
        int evict;
    } rows[] = {
        { "Ra1 Rb2 Wc3", 'd', 8, 0, 1 },      /* full: oldest reading */
        { "Rb2 Ra1 Wc3", 'd', 8, 1, 1 },      /* oldest by seq, not index */
        { "Ra1 Lb2 Wc3", 'd', 8, 1, 1 },      /* lingering before reading */
        { "Ra1 Lb3 Lb2", 'c', 8, 2, 1 },      /* the oldest lingering */
        { "Wa1 Wb2 Wc3", 'd', 8, -1, 0 },     /* all sending: refused */
        { "Ra1 Ra2 F", 'a', 2, -1, 0 },       /* at its bound: refused */
        { "Ra1 La2 F", 'a', 2, 1, 1 },        /* ... but its lingering goes */
        { "Ra1 La2 F", 'b', 2, 2, 0 },        /* another peer: the free one */
        { "La1 Rb2 Rb3", 'b', 2, -1, 0 },     /* not another's lingering */
        { "F Ra1 F", 'a', 8, 0, 0 },          /* a free slot, not evicting */
        { "Ra1 Rb2 Rc3", 'a', 1, -1, 0 },     /* per peer 1 */
        { "F", 'a', 1, 0, 0 },
        { "Ra5 Ra4 Rb1", 'c', 8, 2, 1 },
    };
    pia_slot_state st[8];
    pia_peer p;
    size_t i, n;
    int evict;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        n = slots_of(rows[i].slots, st, 8);
        memset(&p, 0, sizeof(p));
        p.b[10] = p.b[11] = 0xff;
        p.b[12] = 10;
        p.b[15] = (unsigned char)rows[i].peer;
        evict = -1;
        CHECK_INT(pia_admit(st, n, &p, rows[i].per_peer, &evict),
                  rows[i].want);
        CHECK_INT(evict, rows[i].evict);
    }
}

/* Slots in phase ph (any in use for PIA_SLOT_FREE), of peer (-1: any). */
static unsigned count_of(const pia_slot_state *st, size_t n, pia_phase ph,
                         int peer)
{
    unsigned c = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        c += (ph == PIA_SLOT_FREE ? st[i].phase != PIA_SLOT_FREE
                                  : st[i].phase == ph)
             && (peer < 0 || st[i].peer.b[15] == peer);
    }
    return c;
}

#define IN_USE PIA_SLOT_FREE         /* count_of: every slot in use */

/* A random walk of admissions and phase changes (a fixed LCG): a slot
 * sending its answer is never taken, a free one never "evicted", no peer
 * goes over its bound, and a refusal happens only when the rules leave
 * nothing to take. */
static void admit_walk(void)
{
    pia_slot_state st[8];
    unsigned long rnd = 12345;
    uint64_t seq = 0;
    unsigned per_peer = 3, bad = 0;
    int k;

    memset(st, 0, sizeof(st));
    for (k = 0; k < 20000; k++) {
        pia_peer p;
        int peer, evict;
        long i;

        rnd = rnd * 1103515245UL + 12345UL;
        peer = (int)((rnd >> 16) % 4);
        if ((rnd >> 8) % 3 == 0) {           /* a slot moves on */
            pia_slot_state *s = &st[(rnd >> 20) % 8];

            s->phase = s->phase == PIA_SLOT_LINGERING ? PIA_SLOT_FREE
                       : s->phase == PIA_SLOT_FREE ? PIA_SLOT_FREE
                       : (pia_phase)(s->phase + 1);
            continue;
        }
        memset(&p, 0, sizeof(p));
        p.b[15] = (unsigned char)peer;
        i = pia_admit(st, 8, &p, per_peer, &evict);
        if (i < 0) {
            int at_bound = count_of(st, 8, IN_USE, peer) >= per_peer;

            bad += at_bound
                   ? count_of(st, 8, PIA_SLOT_LINGERING, peer) != 0
                   : count_of(st, 8, PIA_SLOT_WRITING, -1) != 8;
            continue;
        }
        bad += evict ? st[i].phase == PIA_SLOT_FREE
                       || st[i].phase == PIA_SLOT_WRITING
                     : st[i].phase != PIA_SLOT_FREE;
        st[i].phase = PIA_SLOT_READING;
        st[i].peer = p;
        st[i].seq = ++seq;
        bad += count_of(st, 8, IN_USE, peer) > per_peer;
    }
    CHECK_INT(bad, 0);
}

static void peer_keys(void)
{
    static const unsigned char v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                          0xff, 0xff, 127, 0, 0, 1 };
    struct sockaddr_in in;
    struct sockaddr_in6 in6;
    struct sockaddr un = { 0 };
    pia_peer a, b;

    memset(&in, 0, sizeof(in));
    in.sin_family = AF_INET;
    in.sin_port = htons(80);
    inet_pton(AF_INET, "127.0.0.1", &in.sin_addr);
    pia_peer_of((struct sockaddr *)&in, &a);
    CHECK(memcmp(a.b, v4, 16) == 0);
    /* The same address mapped into IPv6, another port: the same peer. */
    memset(&in6, 0, sizeof(in6));
    in6.sin6_family = AF_INET6;
    in6.sin6_port = htons(81);
    inet_pton(AF_INET6, "::ffff:127.0.0.1", &in6.sin6_addr);
    pia_peer_of((struct sockaddr *)&in6, &b);
    CHECK(memcmp(a.b, b.b, 16) == 0);
    inet_pton(AF_INET6, "::1", &in6.sin6_addr);
    pia_peer_of((struct sockaddr *)&in6, &b);
    CHECK(memcmp(a.b, b.b, 16) != 0);
    CHECK_INT(b.b[15], 1);
    un.sa_family = AF_UNIX;
    pia_peer_of(&un, &b);
    memset(&a, 0, sizeof(a));
    CHECK(memcmp(a.b, b.b, 16) == 0);
}

void test_agent(void)
{
    head_length();
    empty_lines();
    admit_table();
    admit_walk();
    peer_keys();
    request_table();
    request_long();
    listen_option();
    seconds_option();
}
