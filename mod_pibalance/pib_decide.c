/* pib_decide.c -- does a response qualify for gzip on the master? (pure)
 *
 * Worked table (policy: default types, minimum 256):
 *
 *   status type              length  CE    client  verdict
 *   200    text/html         50000   -     gzip    compress
 *   200    text/html         50000   -     -       vary_only
 *   200    text/html         100     -     gzip    small
 *   200    text/html         -1      -     gzip    compress (streamed)
 *   200    image/png         50000   -     gzip    type
 *   200    text/html         50000   br    gzip    encoded
 *   206    text/html         1000    -     gzip    range
 *   304    (none), -gzip tag -1      -     any     compress (headers only)
 *   304    (none), plain tag -1      -     gzip    type (no Vary)
 *   304    image/png         -1      -     gzip    type (no Vary)
 *   204    -                 -       -     gzip    no_body
 *
 * The same table is tests/unit/test_decide.c.
 */
#include <string.h>

#include "pib_decide.h"

const char *const pib_default_types[] = {
    "text/html", "text/plain", "text/css", "text/xml", "text/javascript",
    "application/javascript", "application/json", "application/xml",
    "image/svg+xml"
};
const size_t pib_default_ntypes =
    sizeof(pib_default_types) / sizeof(pib_default_types[0]);

static int pib_lc(int c)
{
    return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

static int pib_ws(int c)
{
    return c == ' ' || c == '\t';
}

/* Case-insensitive: does s[0..n) equal the lower-case word? */
static int pib_word_is(const char *s, size_t n, const char *word)
{
    size_t i;

    if (strlen(word) != n) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        if (pib_lc((unsigned char)s[i]) != word[i]) {
            return 0;
        }
    }
    return 1;
}

int pib_type_listed(const char *content_type, const char *const *types,
                    size_t ntypes)
{
    const char *p, *end;
    size_t i;

    if (content_type == NULL) {
        return 0;
    }
    for (p = content_type; pib_ws((unsigned char)*p); p++) {
    }
    for (end = p; *end && *end != ';' && !pib_ws((unsigned char)*end);
         end++) {
    }
    for (i = 0; i < ntypes; i++) {
        if (pib_word_is(p, (size_t)(end - p), types[i])) {
            return 1;
        }
    }
    return 0;
}

/* Calls fn on every comma-separated, trimmed, non-empty element of list
 * (up to any ';' or '='); stops and returns 1 as soon as fn does. */
static int pib_any_element(const char *list,
                           int (*fn)(const char *, size_t))
{
    const char *p = list, *e;

    while (p && *p) {
        while (pib_ws((unsigned char)*p) || *p == ',') {
            p++;
        }
        for (e = p; *e && *e != ',' && *e != ';' && *e != '='
             && !pib_ws((unsigned char)*e); e++) {
        }
        if (e > p && fn(p, (size_t)(e - p))) {
            return 1;
        }
        p = strchr(e, ',');
    }
    return 0;
}

static int pib_is_real_coding(const char *s, size_t n)
{
    return !pib_word_is(s, n, "identity") && !pib_word_is(s, n, "7bit")
           && !pib_word_is(s, n, "8bit") && !pib_word_is(s, n, "binary");
}

int pib_is_encoded(const char *content_encoding)
{
    return pib_any_element(content_encoding, pib_is_real_coding);
}

static int pib_is_no_transform(const char *s, size_t n)
{
    return pib_word_is(s, n, "no-transform");
}

int pib_has_no_transform(const char *cache_control)
{
    return pib_any_element(cache_control, pib_is_no_transform);
}

static int pib_status_has_body(int status)
{
    return status >= 200 && status != 204 && status != 205;
}

pib_verdict pib_should_compress(const pib_resp *resp, const pib_policy *pol)
{
    int not_modified = resp->status == 304;

    if (!pib_status_has_body(resp->status) || resp->subrequest) {
        return PIB_DEC_NO_BODY;
    }
    if (pib_is_encoded(resp->content_encoding)) {
        return PIB_DEC_ENCODED;
    }
    if (resp->status == 206 || resp->content_range != NULL) {
        return PIB_DEC_RANGE;
    }
    if (pib_has_no_transform(resp->cache_control)) {
        return PIB_DEC_NO_TRANSFORM;
    }
    if (not_modified && resp->content_type == NULL) {
        if (!resp->inm_gzip) {
            return PIB_DEC_TYPE;        /* unknown, never proven ours */
        }
    }
    else if (!pib_type_listed(resp->content_type, pol->types, pol->ntypes)) {
        return PIB_DEC_TYPE;
    }
    if (!not_modified && resp->length >= 0
        && resp->length < pol->min_length) {
        return PIB_DEC_SMALL;
    }
    if (not_modified && resp->inm_gzip && !resp->inm_plain) {
        return PIB_DEC_COMPRESS;        /* the gzip copy is still good */
    }
    if (!resp->client_gzip || resp->paused) {
        return PIB_DEC_VARY_ONLY;
    }
    return PIB_DEC_COMPRESS;
}

int pib_pause_streams(long long pause_us, unsigned long long held,
                      size_t len, long long expect)
{
    return pause_us >= PIB_PAUSE_STREAM_US && expect >= 0
           && held + len < (unsigned long long)expect;
}

pib_codec_choice pib_choose_codec(long long expect, long long buffer)
{
    return expect >= 0 && expect <= buffer
           ? PIB_CODEC_ONE_PASS : PIB_CODEC_STREAM;
}

long long pib_whole_body_length(long long summed, int header_only)
{
    return summed == 0 && header_only ? -1 : summed;
}

const char *pib_verdict_name(pib_verdict v)
{
    static const char *const names[] = {
        "no_body", "encoded", "range", "no_transform", "type", "small",
        "vary_only", "compress"
    };

    return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}
