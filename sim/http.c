/*
 * http.c - see http.h.  The head is examined line by line; the buffer is
 * never modified.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "http.h"

struct span {
    const char *p;
    size_t n;
};

static int is_tchar(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
           || (c >= '0' && c <= '9') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static int span_ieq(struct span s, const char *lit)
{
    size_t n = strlen(lit);

    return s.n == n && strncasecmp(s.p, lit, n) == 0;
}

static int span_eq(struct span s, const char *lit)
{
    size_t n = strlen(lit);

    return s.n == n && memcmp(s.p, lit, n) == 0;
}

static struct span trim(struct span s)
{
    while (s.n && (s.p[0] == ' ' || s.p[0] == '\t')) {
        s.p++;
        s.n--;
    }
    while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t'))
        s.n--;
    return s;
}

/* Next line of buf[*pos..end): without its LF and CR; -1 if no LF yet. */
static int next_line(const char *buf, size_t end, size_t *pos,
                     struct span *line)
{
    const char *lf = memchr(buf + *pos, '\n', end - *pos);

    if (!lf)
        return -1;
    line->p = buf + *pos;
    line->n = (size_t)(lf - line->p);
    if (line->n && line->p[line->n - 1] == '\r')
        line->n--;
    *pos = (size_t)(lf - buf) + 1;
    return 0;
}

/* Bytes that can never appear in a head: catches TLS, binary junk early. */
static int has_bad_ctl(struct span s)
{
    size_t i;

    for (i = 0; i < s.n; i++) {
        unsigned char c = (unsigned char)s.p[i];

        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return 1;
    }
    return 0;
}

/* Splits s at the first occurrence of ch: head in *a, rest in *b. */
static int split(struct span s, char ch, struct span *a, struct span *b)
{
    const char *c = memchr(s.p, ch, s.n);

    if (!c)
        return -1;
    a->p = s.p;
    a->n = (size_t)(c - s.p);
    b->p = c + 1;
    b->n = s.n - a->n - 1;
    return 0;
}

static int find_query_auto(struct span q)
{
    size_t i;

    for (i = 0; i + 4 <= q.n; i++)
        if (memcmp(q.p + i, "auto", 4) == 0)
            return 1;
    return 0;
}

static void classify_target(struct span t, struct sim_http_req *req)
{
    struct span path = t, query = { "", 0 }, tmp;
    const char *slash;

    if (t.n > 7 && (strncasecmp(t.p, "http://", 7) == 0
                    || strncasecmp(t.p, "https://", 8) == 0)) {
        tmp.p = memchr(t.p, ':', t.n) + 3;
        tmp.n = t.n - (size_t)(tmp.p - t.p);
        slash = memchr(tmp.p, '/', tmp.n);
        path.p = slash ? slash : "/";
        path.n = slash ? t.n - (size_t)(slash - t.p) : 1;
    }
    if (split(path, '?', &tmp, &query) == 0)
        path = tmp;
    req->is_status = span_eq(path, "/pi-status") && find_query_auto(query);
}

static enum sim_http_rc parse_version(struct span v, int *minor)
{
    if (v.n == 8 && memcmp(v.p, "HTTP/1.", 7) == 0
        && (v.p[7] == '0' || v.p[7] == '1')) {
        *minor = v.p[7] - '0';
        return SIM_HTTP_OK;
    }
    if (v.n == 8 && memcmp(v.p, "HTTP/", 5) == 0 && v.p[5] >= '0'
        && v.p[5] <= '9' && v.p[6] == '.' && v.p[7] >= '0' && v.p[7] <= '9')
        return SIM_HTTP_VERSION;
    return SIM_HTTP_BAD;
}

static enum sim_http_rc parse_request_line(struct span l,
                                           struct sim_http_req *req)
{
    struct span m, t, v, rest;
    size_t i;

    if (split(l, ' ', &m, &rest) < 0 || split(rest, ' ', &t, &v) < 0)
        return SIM_HTTP_BAD;
    if (m.n == 0 || m.n > 20 || t.n == 0 || memchr(v.p, ' ', v.n))
        return SIM_HTTP_BAD;
    for (i = 0; i < m.n; i++)
        if (!is_tchar(m.p[i]))
            return SIM_HTTP_BAD;
    if (t.p[0] != '/' && !(t.n > 7 && memmem(t.p, t.n, "://", 3))
        && !(t.n == 1 && t.p[0] == '*'))
        return SIM_HTTP_BAD;
    req->method = span_eq(m, "GET") ? SIM_GET
                  : span_eq(m, "HEAD") ? SIM_HEAD : SIM_OTHER;
    classify_target(t, req);
    return parse_version(v, &req->minor);
}

/* Connection: comma-separated tokens; "close" wins over "keep-alive". */
static void parse_connection(struct span v, int *close, int *keep)
{
    struct span tok, rest;

    while (v.n) {
        if (split(v, ',', &tok, &rest) < 0) {
            tok = v;
            rest.p = v.p + v.n;
            rest.n = 0;
        }
        tok = trim(tok);
        if (span_ieq(tok, "close"))
            *close = 1;
        else if (span_ieq(tok, "keep-alive"))
            *keep = 1;
        v = rest;
    }
}

static int parse_length(struct span v, long long *out)
{
    long long n = 0;
    size_t i;

    if (v.n == 0 || v.n > 15)
        return -1;
    for (i = 0; i < v.n; i++) {
        if (v.p[i] < '0' || v.p[i] > '9')
            return -1;
        n = n * 10 + (v.p[i] - '0');
    }
    if (*out >= 0 && *out != n)
        return -1;
    *out = n;
    return 0;
}

static enum sim_http_rc parse_header(struct span l, struct sim_http_req *req,
                                     int *close, int *keep)
{
    struct span name, value;
    size_t i;

    if (l.p[0] == ' ' || l.p[0] == '\t' || split(l, ':', &name, &value) < 0
        || name.n == 0)
        return SIM_HTTP_BAD;
    for (i = 0; i < name.n; i++)
        if (!is_tchar(name.p[i]))
            return SIM_HTTP_BAD;
    value = trim(value);
    if (span_ieq(name, "Connection"))
        parse_connection(value, close, keep);
    else if (span_ieq(name, "Accept-Encoding"))
        req->gzip_ok = sim_http_accepts_gzip(value.p, value.n);
    else if (span_ieq(name, "Content-Length")
             && parse_length(value, &req->content_length) < 0)
        return SIM_HTTP_BAD;
    else if (span_ieq(name, "Transfer-Encoding"))
        return SIM_HTTP_UNSUPPORTED;
    return SIM_HTTP_OK;
}

/* Finds the end of the head; returns its length or 0 when incomplete. */
static size_t head_end(const char *buf, size_t len)
{
    size_t i;

    for (i = 0; i + 1 < len; i++) {
        if (buf[i] != '\n')
            continue;
        if (buf[i + 1] == '\n')
            return i + 2;
        if (buf[i + 1] == '\r' && i + 2 < len && buf[i + 2] == '\n')
            return i + 3;
    }
    return 0;
}

static size_t skip_blank_lines(const char *buf, size_t len)
{
    size_t i = 0;

    while (i < len && (buf[i] == '\r' || buf[i] == '\n'))
        i++;
    return i;
}

enum sim_http_rc sim_http_parse(const char *buf, size_t len,
                                struct sim_http_req *req)
{
    size_t start = skip_blank_lines(buf, len), end, pos;
    struct span line, first = { buf + start, len - start };
    enum sim_http_rc rc;
    int close = 0, keep = 0;

    memset(req, 0, sizeof(*req));
    req->content_length = -1;
    if (memchr(first.p, '\n', first.n))
        first.n = (size_t)((const char *)memchr(first.p, '\n', first.n)
                           - first.p);
    if (first.n && first.p[first.n - 1] == '\r')
        first.n--;
    if (has_bad_ctl(first))
        return SIM_HTTP_BAD;
    end = head_end(buf + start, len - start);
    if (end == 0 || start + end > SIM_HTTP_HEAD_MAX)
        return (len >= SIM_HTTP_HEAD_MAX || start + end > SIM_HTTP_HEAD_MAX)
               ? SIM_HTTP_TOO_BIG : SIM_HTTP_MORE;
    end += start;
    pos = start;
    next_line(buf, end, &pos, &line);
    rc = parse_request_line(line, req);
    while (rc == SIM_HTTP_OK && next_line(buf, end, &pos, &line) == 0
           && line.n > 0) {
        rc = has_bad_ctl(line) ? SIM_HTTP_BAD
                               : parse_header(line, req, &close, &keep);
    }
    if (rc != SIM_HTTP_OK)
        return rc;
    req->keep_alive = close ? 0 : req->minor == 1 ? 1 : keep;
    if (req->content_length < 0)
        req->content_length = 0;
    req->head_len = end;
    return SIM_HTTP_OK;
}

/* q-value of a parameter list such as "; q=0.5"; 1.0 when absent. */
static double qvalue(struct span params)
{
    struct span p, rest;
    char num[16];

    while (params.n) {
        if (split(params, ';', &p, &rest) < 0) {
            p = params;
            rest.n = 0;
            rest.p = params.p + params.n;
        }
        p = trim(p);
        if (p.n > 2 && (p.p[0] == 'q' || p.p[0] == 'Q') && p.p[1] == '='
            && p.n - 2 < sizeof(num)) {
            memcpy(num, p.p + 2, p.n - 2);
            num[p.n - 2] = '\0';
            return strtod(num, NULL);
        }
        params = rest;
    }
    return 1.0;
}

int sim_http_accepts_gzip(const char *v, size_t len)
{
    struct span s = { v, len }, elem, rest, coding, params;
    double gzip_q = -1.0, star_q = -1.0;

    while (s.n) {
        if (split(s, ',', &elem, &rest) < 0) {
            elem = s;
            rest.n = 0;
            rest.p = s.p + s.n;
        }
        if (split(elem, ';', &coding, &params) < 0) {
            coding = elem;
            params.n = 0;
            params.p = elem.p + elem.n;
        }
        coding = trim(coding);
        if (span_ieq(coding, "gzip") || span_ieq(coding, "x-gzip"))
            gzip_q = qvalue(params);
        else if (span_ieq(coding, "*"))
            star_q = qvalue(params);
        s = rest;
    }
    if (gzip_q >= 0.0)
        return gzip_q > 0.0;
    return star_q > 0.0;
}

const char *sim_http_reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default:  return "Unknown";
    }
}
