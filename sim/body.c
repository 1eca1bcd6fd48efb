/*
 * body.c - see body.h.  Text comes from a fixed word list and a fixed-seed
 * xorshift generator, so it compresses roughly like real pages (about
 * 3:1 to 5:1) and is byte-identical on every run and platform.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "body.h"

struct sbuf {
    char *p;
    size_t len, cap;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = (b->cap + (size_t)n + 1) * 2;
        char *p = realloc(b->p, cap);

        if (!p)
            return;
        b->p = p;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static unsigned rng_next(unsigned *s)
{
    unsigned x = *s;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

static const char *const words[] = {
    "node", "cluster", "request", "apache", "balancer", "thermal", "gzip",
    "module", "worker", "status", "memory", "config", "session", "value",
    "enabled", "disabled", "default", "local", "master", "path", "include",
    "handler", "output", "buffer", "limit", "timeout", "socket", "client",
    "server", "cache", "upload", "max", "size", "error", "display", "log",
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

static void sb_words(struct sbuf *b, unsigned *seed, int n, char sep)
{
    int i;

    for (i = 0; i < n; i++)
        sb_printf(b, "%s%s", i ? (sep == '_' ? "_" : " ") : "",
                  words[rng_next(seed) % NWORDS]);
}

char *sim_body_generate(size_t size)
{
    struct sbuf b = { NULL, 0, 0 };
    unsigned seed = 0x9e3779b9u;
    int para = 0;

    sb_printf(&b, "<!DOCTYPE html>\n<html><head><title>pisim</title>"
              "</head>\n<body>\n");
    while (b.len < size + 32) {
        sb_printf(&b, "<p id=\"p%d\">", para++);
        sb_words(&b, &seed, 12 + (int)(rng_next(&seed) % 12), ' ');
        sb_printf(&b, " %u.</p>\n", rng_next(&seed) % 100000);
    }
    if (!b.p)
        return NULL;
    if (size >= 16)
        memcpy(b.p + size - 15, "</body></html>\n", 15);
    b.p[size] = '\0';
    return b.p;
}

static const char *const modules[] = {
    "apache2handler", "bcmath", "calendar", "Core", "ctype", "curl", "date",
    "dom", "exif", "fileinfo", "filter", "ftp", "gd", "gettext", "hash",
    "iconv", "json", "libxml", "mbstring", "mysqli", "mysqlnd", "openssl",
    "pcre", "PDO", "pdo_mysql", "Phar", "posix", "readline", "Reflection",
    "session", "shmop", "SimpleXML", "sockets", "sodium", "SPL", "standard",
    "sysvmsg", "tokenizer", "xml", "xmlreader", "xmlwriter", "xsl",
    "Zend OPcache", "zip", "zlib",
};
#define NMODULES (sizeof(modules) / sizeof(modules[0]))

static void php_head(struct sbuf *b)
{
    sb_printf(b, "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 "
              "Transitional//EN\" \"DTD/xhtml1-transitional.dtd\">\n"
              "<html xmlns=\"http://www.w3.org/1999/xhtml\"><head>\n"
              "<style type=\"text/css\">\nbody {background-color: #fff; "
              "color: #222; font-family: sans-serif;}\n"
              "table {border-collapse: collapse; width: 934px;}\n"
              ".e {background-color: #ccf; width: 300px; font-weight: "
              "bold;}\n.v {background-color: #ddd; max-width: 300px; "
              "overflow-x: auto; word-wrap: break-word;}\n</style>\n"
              "<title>PHP 8.2.7 - phpinfo()</title></head>\n"
              "<body><div class=\"center\">\n<table>\n<tr class=\"h\"><td>"
              "<h1 class=\"p\">PHP Version 8.2.7</h1></td></tr>\n</table>\n");
}

/* n characters of base64-like noise: session ids, cookies, hashes. */
static void sb_token(struct sbuf *b, unsigned *seed, int n)
{
    static const char a64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                              "0123456789+/";
    char t[160];
    int i;

    if (n > (int)sizeof(t) - 1)
        n = (int)sizeof(t) - 1;
    for (i = 0; i < n; i++)
        t[i] = a64[rng_next(seed) % 64];
    t[n] = '\0';
    sb_printf(b, "%s", t);
}

/* $_SERVER / $_COOKIE / environment rows: one name, one noisy value. */
static void php_dense_rows(struct sbuf *b, unsigned *seed, int rows)
{
    int i;

    sb_printf(b, "<h2>PHP Variables</h2>\n<table>\n<tr class=\"h\">"
              "<th>Variable</th><th>Value</th></tr>\n");
    for (i = 0; i < rows; i++) {
        sb_printf(b, "<tr><td class=\"e\">$_SERVER['");
        sb_words(b, seed, 2, '_');
        sb_printf(b, "']</td><td class=\"v\">");
        sb_token(b, seed, 40 + (int)(rng_next(seed) % 112));
        sb_printf(b, "</td></tr>\n");
    }
    sb_printf(b, "</table>\n");
}

static void php_tail(struct sbuf *b)
{
    sb_printf(b, "<h2>PHP License</h2>\n<p>This program is free software; "
              "generated by pisim for benchmarks.</p>\n</div></body></html>"
              "\n");
}

static void php_module(struct sbuf *b, const char *name, unsigned *seed)
{
    int rows = 4 + (int)(rng_next(seed) % 14), i;

    sb_printf(b, "<h2><a name=\"module_%s\">%s</a></h2>\n<table>\n"
              "<tr class=\"h\"><th>Directive</th><th>Local Value</th>"
              "<th>Master Value</th></tr>\n", name, name);
    for (i = 0; i < rows; i++) {
        unsigned v = rng_next(seed) % 9;

        sb_printf(b, "<tr><td class=\"e\">%s.", name);
        sb_words(b, seed, 2, '_');
        if (v < 3)
            sb_printf(b, "</td><td class=\"v\">%u</td><td class=\"v\">"
                      "%u</td></tr>\n", rng_next(seed) % 65536,
                      rng_next(seed) % 65536);
        else if (v < 6)
            sb_printf(b, "</td><td class=\"v\"><i>no value</i></td>"
                      "<td class=\"v\">%s</td></tr>\n",
                      v == 3 ? "On" : v == 4 ? "Off"
                      : "/usr/lib/php/20220829");
        else {
            sb_printf(b, "</td><td class=\"v\">");
            sb_words(b, seed, 3 + (int)(v % 4), ' ');
            sb_printf(b, "</td><td class=\"v\">%08x</td></tr>\n",
                      rng_next(seed));
        }
    }
    sb_printf(b, "</table>\n");
}

char *sim_body_phpinfo(size_t *len)
{
    struct sbuf b = { NULL, 0, 0 };
    unsigned seed = 20240607u;
    size_t i = 0;

    php_head(&b);
    while (b.len < SIM_PHPINFO_TARGET - 200) {
        php_module(&b, modules[i % NMODULES], &seed);
        i++;
    }
    php_tail(&b);
    *len = b.len;
    return b.p;
}

char *sim_body_phpinfo_dense(size_t *len)
{
    struct sbuf b = { NULL, 0, 0 };
    unsigned seed = 20240607u;
    size_t i = 0;

    php_head(&b);
    while (b.len < SIM_PHPINFO_TARGET - 200) {
        if (i % 2)
            php_dense_rows(&b, &seed, 14 + (int)(rng_next(&seed) % 12));
        else
            php_module(&b, modules[(i / 2) % NMODULES], &seed);
        i++;
    }
    php_tail(&b);
    *len = b.len;
    return b.p;
}

char *sim_body_phpinfo_bench(size_t *len)
{
    struct sbuf b = { NULL, 0, 0 };
    unsigned seed = 20240607u;
    size_t i = 0, m = 0;

    php_head(&b);
    while (b.len < SIM_PHPINFO_BENCH_TARGET - 1000) {
        if (i % 4 == 3)         /* one section in four: $_SERVER rows */
            php_dense_rows(&b, &seed, 14 + (int)(rng_next(&seed) % 8));
        else
            php_module(&b, modules[m++ % NMODULES], &seed);
        i++;
    }
    php_tail(&b);
    *len = b.len;
    return b.p;
}

char *sim_body_load(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;

    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && n <= 64L << 20
        && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
        *len = fread(buf, 1, (size_t)n, f);
        buf[*len] = '\0';
    } else {
        snprintf(err, errlen, "%s: cannot read (over 64 MiB?)", path);
    }
    fclose(f);
    return buf;
}
