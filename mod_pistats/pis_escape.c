/* pis_escape.c -- the output of /pi-status and what every format escapes
 * (see pis_escape.h): plain, printf, one-line, HTML, JSON and Prometheus
 * label text, UTF-8 checking, and C-locale doubles.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pis_escape.h"

void pis_put(pis_out *o, const char *s)
{
    o->emit(o->ctx, s, strlen(s));
}

void pis_put_html(pis_out *o, const char *s)
{
    const char *run = s;

    for (; *s; s++) {
        const char *rep = NULL;

        switch (*s) {
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '&': rep = "&amp;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        default: continue;
        }
        o->emit(o->ctx, run, (size_t)(s - run));
        pis_put(o, rep);
        run = s + 1;
    }
    o->emit(o->ctx, run, (size_t)(s - run));
}

void pis_putf(pis_out *o, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (n > 0) {
        o->emit(o->ctx, buf, (size_t)n < sizeof(buf) ? (size_t)n
                                                    : sizeof(buf) - 1);
    }
}

void pis_put_clean(pis_out *o, const char *s, const char *dflt)
{
    const char *run;

    if (s == NULL || *s == '\0') {
        pis_put(o, dflt);
        return;
    }
    for (run = s; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c < 0x20 || c == 0x7f) {
            o->emit(o->ctx, run, (size_t)(s - run));
            pis_put(o, "?");
            run = s + 1;
        }
    }
    o->emit(o->ctx, run, (size_t)(s - run));
}

/*   lead byte | length | continuation bytes, first one's range
 *   ----------+--------+-------------------------------------
 *   00..7f    | 1      | -
 *   c2..df    | 2      | 80..bf
 *   e0        | 3      | a0..bf (no overlong)
 *   e1..ec    | 3      | 80..bf
 *   ed        | 3      | 80..9f (no surrogates)
 *   ee..ef    | 3      | 80..bf
 *   f0        | 4      | 90..bf (no overlong)
 *   f1..f3    | 4      | 80..bf
 *   f4        | 4      | 80..8f (up to U+10FFFF)
 */
size_t pis_utf8_len(const unsigned char *s)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xbf;
    size_t n, i;

    if (c < 0x80) {
        return 1;
    }
    if (c < 0xc2 || c > 0xf4) {
        return 0;
    }
    n = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    if (c == 0xe0) { lo = 0xa0; }
    if (c == 0xed) { hi = 0x9f; }
    if (c == 0xf0) { lo = 0x90; }
    if (c == 0xf4) { hi = 0x8f; }
    if (s[1] < lo || s[1] > hi) {
        return 0;
    }
    for (i = 2; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xbf) {
            return 0;
        }
    }
    return n;
}

/* The JSON escape of byte c, or NULL when it is written as is. */
static const char *json_escape(unsigned char c, char *buf, size_t size)
{
    switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: break;
    }
    if (c < 0x20 || c == 0x7f) {
        snprintf(buf, size, "\\u%04x", (unsigned)c);
        return buf;
    }
    return NULL;
}

void pis_put_json(pis_out *o, const char *s)
{
    const unsigned char *p = (const unsigned char *)s, *run;
    char buf[8];

    if (s == NULL) {
        pis_put(o, "null");
        return;
    }
    pis_put(o, "\"");
    for (run = p; *p; ) {
        size_t n = pis_utf8_len(p);
        const char *rep = n == 1 ? json_escape(*p, buf, sizeof(buf))
                        : n == 0 ? "\\ufffd" : NULL;

        if (rep != NULL) {
            o->emit(o->ctx, (const char *)run, (size_t)(p - run));
            pis_put(o, rep);
            run = p + (n ? n : 1);
        }
        p += n ? n : 1;
    }
    o->emit(o->ctx, (const char *)run, (size_t)(p - run));
    pis_put(o, "\"");
}

void pis_put_label(pis_out *o, const char *s)
{
    const unsigned char *p = (const unsigned char *)s, *run;

    for (run = p; *p; ) {
        size_t n = pis_utf8_len(p);
        const char *rep = NULL;

        if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f))) {
            rep = "\xef\xbf\xbd";            /* U+FFFD */
        }
        if (*p == '\\') { rep = "\\\\"; }
        if (*p == '"') { rep = "\\\""; }
        if (*p == '\n') { rep = "\\n"; }
        if (rep != NULL) {
            o->emit(o->ctx, (const char *)run, (size_t)(p - run));
            pis_put(o, rep);
            run = p + (n ? n : 1);
        }
        p += n ? n : 1;
    }
    o->emit(o->ctx, (const char *)run, (size_t)(p - run));
}

int pis_fmt_double(char *buf, size_t size, double v)
{
    char *c;

    if (!isfinite(v)) {
        snprintf(buf, size, "null");
        return -1;
    }
    if (v == 0) {
        v = 0;                          /* no "-0" */
    }
    /* 15 digits would round the finite values from 1.797693134862315e308
     * up past DBL_MAX ("1.79769313486232e+308" reads back as infinity,
     * and Prometheus then rejects the whole scrape): those get 17. */
    snprintf(buf, size, fabs(v) < 1.797693134862315e308 ? "%.15g" : "%.17g",
             v);
    for (c = buf; *c; c++) {
        if (*c == ',') {
            *c = '.';                   /* a decimal comma locale */
        }
    }
    return 0;
}
