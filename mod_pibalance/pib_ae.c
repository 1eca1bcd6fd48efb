/* pib_ae.c -- Accept-Encoding negotiation and ETag suffixes (pure).
 *
 * The parser walks the field value once, element by element:
 *
 *   "gzip;q=0.8, identity ; q=0.5, *;q=0"
 *      token     params           effect
 *      gzip      q=0.8            q[GZIP]     = 800
 *      identity  q=0.5            q[IDENTITY] = 500
 *      *         q=0              q[ANY]      = 0
 *
 *   "br, gzip;q=0.8"          q[BR] = 1000, q[GZIP] = 800, identity not
 *                             mentioned: gzip (a listed coding beats an
 *                             identity the client did not list)
 *   "gzip;q=0.8, *;q=0.1"     identity gets 100 from "*": gzip
 *
 * An element that does not parse (bad token, bad q) is skipped whole, so
 * garbage can only make us compress less, never crash or compress for a
 * client that refused gzip.  Every known coding is parsed with its q;
 * which of them the master produces is the caller's offer (gzip only
 * today).
 */
#include <string.h>

#include "pib_ae.h"
#include "pib_coding_table.h"

static int pib_lower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

static int pib_is_ows(int c)
{
    return c == ' ' || c == '\t';
}

/* RFC 9110 tchar. */
static int pib_is_tchar(int c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')) {
        return 1;
    }
    return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static const char *pib_skip_ows(const char *p)
{
    while (pib_is_ows((unsigned char)*p)) {
        p++;
    }
    return p;
}

static int pib_token_is(const char *p, size_t n, const char *want)
{
    size_t i;

    if (strlen(want) != n) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        if (pib_lower((unsigned char)p[i]) != want[i]) {
            return 0;
        }
    }
    return 1;
}

/* qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ).
 * Returns thousandths, or -1 when malformed. */
static int pib_parse_q(const char *p, size_t n)
{
    int q, scale = 100;
    size_t i;

    if (n == 0 || (p[0] != '0' && p[0] != '1')) {
        return -1;
    }
    q = (p[0] - '0') * 1000;
    if (n == 1) {
        return q;
    }
    if (p[1] != '.' || n > 5) {
        return -1;
    }
    for (i = 2; i < n; i++, scale /= 10) {
        if (p[i] < '0' || p[i] > '9') {
            return -1;
        }
        q += (p[i] - '0') * scale;
    }
    return q > 1000 ? -1 : q;
}

/* Parses ";name=value" parameters from p up to end.  Returns the q (1000
 * when absent), or -1 when the parameters are malformed. */
static int pib_parse_params(const char *p, const char *end)
{
    int q = 1000;

    while (p < end) {
        const char *name, *val;

        p = pib_skip_ows(p);
        if (p == end) {
            break;
        }
        if (*p++ != ';') {
            return -1;
        }
        p = pib_skip_ows(p);
        for (name = p; p < end && pib_is_tchar((unsigned char)*p); p++) {
        }
        if (p == name) {
            continue;               /* "gzip;" or "gzip;;": tolerated */
        }
        if (p == end || *p != '=') {
            return -1;
        }
        val = ++p;
        while (p < end && !pib_is_ows((unsigned char)*p) && *p != ';') {
            p++;
        }
        if (pib_token_is(name, (size_t)(val - 1 - name), "q")) {
            q = pib_parse_q(val, (size_t)(p - val));
            if (q < 0) {
                return -1;
            }
        }
    }
    return q;
}

/* The tokens a client may name that the coding table does not hold:
 * an alias (RFC 9110 12.5.3: x-gzip is gzip), codings the master does not
 * produce, identity and "*". */
static const struct {
    const char *token;
    pib_coding coding;
} pib_other_names[] = {
    { "x-gzip", PIB_CODING_GZIP }, { "deflate", PIB_CODING_DEFLATE },
    { "identity", PIB_CODING_IDENTITY }, { "*", PIB_CODING_ANY },
};

/* The coding a token names: a row of the table, else one of the others;
 * PIB_CODING_COUNT for none. */
static pib_coding pib_coding_named(const char *tok, size_t n)
{
    const pib_coding_row *row = pib_coding_row_named(tok, n);
    size_t i;

    if (row != NULL) {
        return row->coding;
    }
    for (i = 0; i < sizeof(pib_other_names) / sizeof(pib_other_names[0]);
         i++) {
        if (pib_token_is(tok, n, pib_other_names[i].token)) {
            return pib_other_names[i].coding;
        }
    }
    return PIB_CODING_COUNT;
}

static void pib_ae_note(pib_ae *ae, const char *tok, size_t n, int q)
{
    pib_coding c = pib_coding_named(tok, n);

    if (c != PIB_CODING_COUNT && q > ae->q[c]) {
        ae->q[c] = q;
    }
}

/* One element, from p to end (no comma inside). */
static void pib_ae_element(pib_ae *ae, const char *p, const char *end)
{
    const char *tok;
    int q;

    p = pib_skip_ows(p);
    for (tok = p; p < end && pib_is_tchar((unsigned char)*p); p++) {
    }
    if (p == tok) {
        return;                     /* empty element or garbage */
    }
    q = pib_parse_params(p, end);
    if (q >= 0) {
        pib_ae_note(ae, tok, (size_t)(p - tok), q);
    }
}

void pib_ae_init(pib_ae *ae)
{
    int i;

    ae->seen = 0;
    for (i = 0; i < PIB_CODING_COUNT; i++) {
        ae->q[i] = PIB_Q_UNSET;
    }
}

void pib_ae_feed(pib_ae *ae, const char *value)
{
    const char *p = value, *comma;

    if (value == NULL) {
        return;
    }
    ae->seen = 1;
    for (;;) {
        comma = strchr(p, ',');
        pib_ae_element(ae, p, comma ? comma : p + strlen(p));
        if (comma == NULL) {
            break;
        }
        p = comma + 1;
    }
}

int pib_ae_q(const pib_ae *ae, pib_coding c)
{
    if ((unsigned)c >= PIB_CODING_COUNT) {
        return PIB_Q_UNSET;
    }
    return ae->q[c] != PIB_Q_UNSET ? ae->q[c] : ae->q[PIB_CODING_ANY];
}

pib_coding pib_ae_choose(const pib_ae *ae, const pib_coding *offer,
                         size_t n)
{
    pib_coding best = PIB_CODING_IDENTITY;
    int best_q = 0;
    size_t i;

    if (!ae->seen) {
        return PIB_CODING_IDENTITY;
    }
    for (i = 0; i < n; i++) {
        int q = pib_ae_q(ae, offer[i]);

        if (offer[i] != PIB_CODING_IDENTITY && q > best_q) {
            best = offer[i];
            best_q = q;
        }
    }
    /* PIB_Q_UNSET (identity not mentioned) is below every q > 0 */
    if (best != PIB_CODING_IDENTITY
        && pib_ae_q(ae, PIB_CODING_IDENTITY) > best_q) {
        return PIB_CODING_IDENTITY;
    }
    return best;
}

int pib_ae_wants_gzip(const pib_ae *ae)
{
    static const pib_coding gzip_only[] = { PIB_CODING_GZIP };

    return pib_ae_choose(ae, gzip_only, 1) == PIB_CODING_GZIP;
}

const char *pib_etag_suffix(pib_coding c)
{
    const pib_coding_row *row = pib_coding_row_of(c);

    return row != NULL ? row->etag_suffix : NULL;
}

/* The length of our suffix ending the n bytes at p, or 0. */
static size_t pib_suffix_at_end(const char *p, size_t n)
{
    size_t i;

    for (i = 0; i < PIB_NCODINGS; i++) {
        const char *suffix = pib_coding_rows[i].etag_suffix;
        size_t sl = strlen(suffix);

        if (n >= sl && memcmp(p + n - sl, suffix, sl) == 0) {
            return sl;
        }
    }
    return 0;
}

int pib_etag_add_suffix_for(const char *etag, const char *suffix,
                            char *out, size_t outsz)
{
    size_t n = etag ? strlen(etag) : 0;
    size_t sl = suffix ? strlen(suffix) : 0;

    if (sl == 0 || n < 2 || etag[0] != '"' || etag[n - 1] != '"'
        || n + sl + 1 > outsz) {
        return 0;                   /* weak, malformed or no room */
    }
    if (pib_suffix_at_end(etag + 1, n - 2) > 0) {
        return 0;                   /* already ours */
    }
    memcpy(out, etag, n - 1);
    memcpy(out + n - 1, suffix, sl);
    memcpy(out + n - 1 + sl, "\"", 2);
    return 1;
}

int pib_etag_add_suffix(const char *etag, char *out, size_t outsz)
{
    return pib_etag_add_suffix_for(etag, PIB_ETAG_SUFFIX, out, outsz);
}

/* Copies one quoted string starting at in[0] == '"'.  Returns the input
 * consumed; *changed is set when the suffix was dropped. */
static size_t pib_copy_tag(const char *in, char **out, int *changed)
{
    const char *close = strchr(in + 1, '"');
    size_t sl, n;

    if (close == NULL) {
        n = strlen(in);
        memcpy(*out, in, n);
        *out += n;
        return n;
    }
    n = (size_t)(close - in);       /* opening quote + opaque part */
    sl = pib_suffix_at_end(in + 1, n - 1);
    if (sl > 0) {
        n -= sl;
        *changed = 1;
    }
    memcpy(*out, in, n);
    (*out)[n] = '"';
    *out += n + 1;
    return (size_t)(close - in) + 1;
}

int pib_etag_unsuffix_list(const char *in, char *out, size_t outsz)
{
    int count = 0;

    if (in == NULL || outsz < strlen(in) + 1) {
        if (outsz > 0) {
            out[0] = '\0';
        }
        return 0;
    }
    while (*in) {
        if (*in == '"') {
            int changed = 0;

            in += pib_copy_tag(in, &out, &changed);
            count += changed;
        }
        else {
            *out++ = *in++;
        }
    }
    *out = '\0';
    return count;
}

/* The opaque part of the tag at p ("W/" skipped): *start, *len.  Returns
 * the input after it, or NULL when p holds no quoted tag. */
static const char *pib_tag_opaque(const char *p, const char **start,
                                  size_t *len)
{
    const char *close;

    if (p[0] == 'W' && p[1] == '/') {
        p += 2;
    }
    if (*p != '"' || (close = strchr(p + 1, '"')) == NULL) {
        return NULL;
    }
    *start = p + 1;
    *len = (size_t)(close - p - 1);
    return close + 1;
}

int pib_etag_in_list(const char *list, const char *etag)
{
    const char *want, *got, *p = list;
    size_t wlen, glen;

    if (list == NULL || etag == NULL
        || pib_tag_opaque(etag, &want, &wlen) == NULL) {
        return 0;
    }
    while (p != NULL && *p) {
        while (pib_is_ows((unsigned char)*p) || *p == ',') {
            p++;
        }
        if (*p == '\0') {
            break;
        }
        p = pib_tag_opaque(p, &got, &glen);
        if (p != NULL && glen == wlen && memcmp(got, want, wlen) == 0) {
            return 1;
        }
    }
    return 0;
}
