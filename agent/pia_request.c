/* pia_request.c -- the agent's request line and option values (see
 * pia_request.h). */
#include <string.h>

#include "pi_num.h"
#include "pia_request.h"

size_t pia_skip_empty_lines(const char *buf, size_t len)
{
    size_t i = 0;

    for (;;) {
        if (i < len && buf[i] == '\n') {
            i++;
        } else if (i + 1 < len && buf[i] == '\r' && buf[i + 1] == '\n') {
            i += 2;
        } else {
            return i;
        }
    }
}

size_t pia_head_length(const char *buf, size_t len)
{
    size_t i;

    for (i = pia_skip_empty_lines(buf, len); i < len; i++) {
        if (buf[i] != '\n') {
            continue;
        }
        if (i + 1 < len && buf[i + 1] == '\n') {
            return i + 2;
        }
        if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n') {
            return i + 3;
        }
    }
    return 0;
}

/* A method is an RFC 9110 token: letters here (GET, HEAD, POST, ...). */
static int is_method(const char *m, size_t n)
{
    size_t i;

    if (n == 0 || n > 16) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        if (m[i] < 'A' || m[i] > 'Z') {
            return 0;
        }
    }
    return 1;
}

/* The target: printable ASCII, starting with '/'. */
static int is_target(const char *t, size_t n)
{
    size_t i;

    if (n == 0 || t[0] != '/') {
        return 0;
    }
    for (i = 0; i < n; i++) {
        if ((unsigned char)t[i] <= 0x20 || (unsigned char)t[i] >= 0x7f) {
            return 0;
        }
    }
    return 1;
}

static int is_version(const char *v, size_t n)
{
    return n == 8 && memcmp(v, "HTTP/1.", 7) == 0
           && (v[7] == '0' || v[7] == '1');
}

/* Sets the answer for a well-formed line: path, method, then query. */
static void decide(const char *m, size_t mlen, const char *t, size_t tlen,
                   const char *path, pia_request *r)
{
    const char *q = memchr(t, '?', tlen);
    size_t plen = q ? (size_t)(q - t) : tlen;
    char args[PIA_HEAD_MAX];
    pis_query pq;

    if (plen != strlen(path) || memcmp(t, path, plen) != 0) {
        r->answer = PIA_NOT_FOUND;
        return;
    }
    r->head = mlen == 4 && memcmp(m, "HEAD", 4) == 0;
    if (!r->head && !(mlen == 3 && memcmp(m, "GET", 3) == 0)) {
        r->answer = PIA_NOT_ALLOWED;
        return;
    }
    args[0] = '\0';
    if (q != NULL) {
        memcpy(args, q + 1, tlen - plen - 1);
        args[tlen - plen - 1] = '\0';
    }
    pis_parse_query(q ? args : NULL, &pq);
    r->refresh = pq.refresh;
    r->answer = pq.format == PIS_FMT_AUTO ? PIA_AUTO
                : pq.format == PIS_FMT_HTML ? PIA_HTML : PIA_NOT_FOUND;
}

void pia_parse_request(const char *buf, size_t len, const char *path,
                       pia_request *r)
{
    size_t skip = pia_skip_empty_lines(buf, len);
    const char *end, *sp1, *sp2;
    size_t llen;

    buf += skip;
    len -= skip;
    end = memchr(buf, '\n', len);
    memset(r, 0, sizeof(*r));
    r->answer = PIA_BAD_REQUEST;
    llen = end ? (size_t)(end - buf) : len;
    if (llen > 0 && buf[llen - 1] == '\r') {
        llen--;
    }
    if (llen >= PIA_HEAD_MAX) {
        return;
    }
    sp1 = memchr(buf, ' ', llen);
    sp2 = sp1 ? memchr(sp1 + 1, ' ', llen - (size_t)(sp1 + 1 - buf)) : NULL;
    if (sp2 == NULL
        || !is_method(buf, (size_t)(sp1 - buf))
        || !is_target(sp1 + 1, (size_t)(sp2 - sp1 - 1))
        || !is_version(sp2 + 1, llen - (size_t)(sp2 + 1 - buf))) {
        return;
    }
    decide(buf, (size_t)(sp1 - buf), sp1 + 1, (size_t)(sp2 - sp1 - 1),
           path, r);
}

const char *pia_status_line(pia_answer a)
{
    switch (a) {
    case PIA_AUTO:
    case PIA_HTML:
        return "200 OK";
    case PIA_NOT_FOUND:
        return "404 Not Found";
    case PIA_NOT_ALLOWED:
        return "405 Method Not Allowed";
    default:
        return "400 Bad Request";
    }
}

int pia_parse_listen(const char *s, char *host, size_t size,
                     unsigned *port)
{
    const char *colon = strrchr(s, ':');
    const char *h = s;
    size_t hlen;
    long p;

    if (colon == NULL || pi_parse_whole(colon + 1, 0, 65535, &p) != 0) {
        return -1;
    }
    hlen = (size_t)(colon - s);
    if (hlen >= 2 && s[0] == '[' && s[hlen - 1] == ']') {
        h++;
        hlen -= 2;
    } else if (memchr(s, ':', hlen) != NULL || memchr(s, '[', hlen)) {
        return -1;                       /* an IPv6 address needs [] */
    }
    if (memchr(h, '[', hlen) != NULL || memchr(h, ']', hlen) != NULL) {
        return -1;
    }
    if (hlen == 1 && h[0] == '*') {
        hlen = 0;
    } else if (hlen == 0) {
        return -1;
    }
    if (hlen >= size) {
        return -1;
    }
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    *port = (unsigned)p;
    return 0;
}

int pia_parse_seconds(const char *s, unsigned min, unsigned max,
                      unsigned *out)
{
    long v;

    if (pi_parse_whole(s, (long)min, (long)max, &v) != 0) {
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}
