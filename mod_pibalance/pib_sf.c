/* pib_sf.c -- RFC 9842's structured fields, parsed and written (pure;
 * contracts in pib_sf.h).
 *
 * A small recursive-descent reader over RFC 8941's grammar: bare items
 * (integer, decimal, string, token, byte sequence, boolean), parameters,
 * inner lists, dictionaries.  Unknown members are parsed (so that a
 * malformed one still fails the whole field, as RFC 8941 requires) and
 * dropped.  Cost: one pass over the value, no allocation.
 */
#include <string.h>

#include "pib_sf.h"

typedef struct {
    const char *p;
} pib_sfr;

static int pib_sf_lcalpha(char c) { return c >= 'a' && c <= 'z'; }
static int pib_sf_digit(char c) { return c >= '0' && c <= '9'; }
static int pib_sf_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void pib_sf_sp(pib_sfr *r)
{
    while (*r->p == ' ') {
        r->p++;
    }
}

static void pib_sf_ows(pib_sfr *r)
{
    while (*r->p == ' ' || *r->p == '\t') {
        r->p++;
    }
}

static int pib_b64_value(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (pib_sf_digit(c)) return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Reads ':' base64 ':' into out (at most cap bytes; *n the count).
 * Returns 0, -1 on a syntax error or overflow (out may be NULL: skip). */
static int pib_sf_binary(pib_sfr *r, unsigned char *out, size_t cap,
                         size_t *n)
{
    unsigned acc = 0;
    int bits = 0, pad = 0;
    size_t got = 0;

    if (*r->p != ':') {
        return -1;
    }
    for (r->p++; *r->p != ':'; r->p++) {
        int v = pib_b64_value(*r->p);

        if (*r->p == '=') {
            pad++;
            continue;
        }
        if (v < 0 || pad > 0) {
            return -1;              /* not base64, or data after '=' */
        }
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (out != NULL) {
                if (got == cap) {
                    return -1;
                }
                out[got] = (unsigned char)(acc >> bits);
            }
            got++;
            acc &= (1u << bits) - 1;
        }
    }
    r->p++;
    if (pad > 2 || bits >= 6) {
        return -1;                  /* one base64 character left over */
    }
    *n = got;
    return 0;
}

/* Reads an sf-string into out (NUL-ended; NULL: skip).  -1 on a syntax
 * error or when more than max characters or cap - 1 bytes. */
static int pib_sf_str(pib_sfr *r, char *out, size_t cap, size_t max)
{
    size_t n = 0;

    if (*r->p != '"') {
        return -1;
    }
    for (r->p++;; r->p++) {
        char c = *r->p;

        if (c == '\\') {
            c = *++r->p;
            if (c != '"' && c != '\\') {
                return -1;
            }
        }
        else if (c == '"') {
            break;
        }
        else if (c < 0x20 || c > 0x7e) {
            return -1;              /* includes the NUL: unterminated */
        }
        if (n == max || (out != NULL && n + 1 >= cap)) {
            return -1;
        }
        if (out != NULL) {
            out[n] = c;
        }
        n++;
    }
    r->p++;
    if (out != NULL) {
        out[n] = '\0';
    }
    return 0;
}

/* Reads a token into out (NULL: skip; cap as for strings). */
static int pib_sf_token(pib_sfr *r, char *out, size_t cap)
{
    const char *s = r->p;
    size_t n;

    if (!pib_sf_alpha(*s) && *s != '*') {
        return -1;
    }
    while (*r->p != '\0'
           && (pib_sf_alpha(*r->p) || pib_sf_digit(*r->p)
               || strchr("!#$%&'*+-.^_`|~:/", *r->p) != NULL)) {
        r->p++;
    }
    n = (size_t)(r->p - s);
    if (out != NULL) {
        if (n + 1 > cap) {
            return -1;
        }
        memcpy(out, s, n);
        out[n] = '\0';
    }
    return 0;
}

/* Integer or decimal (RFC 8941 4.2.4), skipped. */
static int pib_sf_number(pib_sfr *r)
{
    int digits = 0, frac = -1;

    if (*r->p == '-') {
        r->p++;
    }
    if (!pib_sf_digit(*r->p)) {
        return -1;
    }
    for (; pib_sf_digit(*r->p) || (*r->p == '.' && frac < 0); r->p++) {
        if (*r->p == '.') {
            if (digits > 12) {
                return -1;
            }
            frac = 0;
        }
        else if (frac >= 0) {
            frac++;
        }
        else {
            digits++;
        }
        if ((frac < 0 && digits > 15) || frac > 3) {
            return -1;
        }
    }
    return frac == 0 ? -1 : 0;      /* "1." is not a decimal */
}

/* Any bare item, skipped. */
static int pib_sf_skip_bare(pib_sfr *r)
{
    size_t n;

    switch (*r->p) {
    case '"':
        return pib_sf_str(r, NULL, 0, (size_t)-1);
    case ':':
        return pib_sf_binary(r, NULL, 0, &n);
    case '?':
        r->p++;
        if (*r->p != '0' && *r->p != '1') {
            return -1;
        }
        r->p++;
        return 0;
    default:
        if (*r->p == '-' || pib_sf_digit(*r->p)) {
            return pib_sf_number(r);
        }
        return pib_sf_token(r, NULL, 0);
    }
}

static int pib_sf_key(pib_sfr *r, char *out, size_t cap)
{
    size_t n = 0;

    if (!pib_sf_lcalpha(*r->p) && *r->p != '*') {
        return -1;
    }
    while (pib_sf_lcalpha(*r->p) || pib_sf_digit(*r->p)
           || strchr("_-.*", *r->p) != NULL) {
        if (*r->p == '\0') {
            break;
        }
        if (n + 1 < cap) {
            out[n++] = *r->p;
        }
        else {
            out[0] = '\0';          /* too long to be a key we know */
            n = cap;
        }
        r->p++;
    }
    if (n < cap) {
        out[n] = '\0';
    }
    return 0;
}

/* ";" key ["=" bare-item] ..., skipped. */
static int pib_sf_skip_params(pib_sfr *r)
{
    char key[32];

    while (*r->p == ';') {
        r->p++;
        pib_sf_sp(r);
        if (pib_sf_key(r, key, sizeof(key)) != 0) {
            return -1;
        }
        if (*r->p == '=') {
            r->p++;
            if (pib_sf_skip_bare(r) != 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* An inner list; strings kept into u->dest when u is not NULL. */
static int pib_sf_inner(pib_sfr *r, pib_sf_uad *u)
{
    if (*r->p != '(') {
        return -1;
    }
    if (u != NULL) {
        u->ndest = 0;
    }
    r->p++;
    for (;;) {
        pib_sf_sp(r);
        if (*r->p == ')') {
            r->p++;
            return pib_sf_skip_params(r);
        }
        if (u != NULL) {
            char d[sizeof(u->dest[0])];

            if (pib_sf_str(r, d, sizeof(d), sizeof(d) - 1) != 0) {
                return -1;          /* match-dest: strings only */
            }
            if (u->ndest < PIB_SF_DESTS_MAX) {
                memcpy(u->dest[u->ndest++], d, sizeof(d));
            }
        }
        else if (pib_sf_skip_bare(r) != 0) {
            return -1;
        }
        if (pib_sf_skip_params(r) != 0) {
            return -1;
        }
        if (*r->p != ' ' && *r->p != ')') {
            return -1;
        }
    }
}

int pib_sf_parse_hash(const char *v, unsigned char hash[PIB_SF_HASH_LEN])
{
    pib_sfr r = { v };
    unsigned char tmp[PIB_SF_HASH_LEN];
    size_t n = 0;

    if (v == NULL) {
        return -1;
    }
    pib_sf_sp(&r);
    if (pib_sf_binary(&r, tmp, sizeof(tmp), &n) != 0
        || n != PIB_SF_HASH_LEN) {
        return -1;
    }
    pib_sf_sp(&r);
    if (*r.p != '\0') {
        return -1;
    }
    memcpy(hash, tmp, sizeof(tmp));
    return 0;
}

void pib_sf_format_hash(const unsigned char hash[PIB_SF_HASH_LEN],
                        char out[PIB_SF_BINARY_LEN + 1])
{
    static const char b64[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i, o = 0;

    out[o++] = ':';
    for (i = 0; i < PIB_SF_HASH_LEN; i += 3) {
        unsigned v = (unsigned)hash[i] << 16;
        size_t left = PIB_SF_HASH_LEN - i;

        if (left > 1) v |= (unsigned)hash[i + 1] << 8;
        if (left > 2) v |= hash[i + 2];
        out[o++] = b64[(v >> 18) & 63];
        out[o++] = b64[(v >> 12) & 63];
        out[o++] = left > 1 ? b64[(v >> 6) & 63] : '=';
        out[o++] = left > 2 ? b64[v & 63] : '=';
    }
    out[o++] = ':';
    out[o] = '\0';
}

void pib_sf_hex(const unsigned char hash[PIB_SF_HASH_LEN],
                char out[PIB_SF_HEX_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    int i;

    for (i = 0; i < PIB_SF_HASH_LEN; i++) {
        out[2 * i] = hex[hash[i] >> 4];
        out[2 * i + 1] = hex[hash[i] & 15];
    }
    out[PIB_SF_HEX_LEN] = '\0';
}

int pib_sf_parse_hex(const char *s, unsigned char hash[PIB_SF_HASH_LEN])
{
    unsigned char tmp[PIB_SF_HASH_LEN];
    int i;

    if (s == NULL || strlen(s) != PIB_SF_HEX_LEN) {
        return -1;
    }
    for (i = 0; i < PIB_SF_HEX_LEN; i++) {
        char c = s[i];
        int v = c >= '0' && c <= '9' ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

        if (v < 0) {
            return -1;
        }
        tmp[i / 2] = (unsigned char)(i % 2 ? (tmp[i / 2] | v) : v << 4);
    }
    memcpy(hash, tmp, sizeof(tmp));
    return 0;
}

int pib_sf_parse_string(const char *v, char *out, size_t cap)
{
    pib_sfr r = { v };

    if (v == NULL || cap == 0) {
        return -1;
    }
    pib_sf_sp(&r);
    if (pib_sf_str(&r, out, cap, PIB_SF_ID_MAX) != 0) {
        return -1;
    }
    pib_sf_sp(&r);
    return *r.p == '\0' ? 0 : -1;
}

int pib_sf_string_ok(const char *s, size_t max)
{
    size_t n = 0;

    for (; *s != '\0'; s++, n++) {
        if (*s < 0x20 || *s > 0x7e || n == max) {
            return 0;
        }
    }
    return 1;
}

/* One member of Use-As-Dictionary: known keys into u (*seen_type set
 * when type=raw is read, -1 returned for another type). */
static int pib_sf_uad_member(pib_sfr *r, pib_sf_uad *u, int *has_match)
{
    char key[16];

    if (pib_sf_key(r, key, sizeof(key)) != 0) {
        return -1;
    }
    if (*r->p != '=') {             /* boolean true: not one of ours */
        return strcmp(key, "match") == 0 || strcmp(key, "id") == 0
               || strcmp(key, "match-dest") == 0 || strcmp(key, "type") == 0
               ? -1 : pib_sf_skip_params(r);
    }
    r->p++;
    if (strcmp(key, "match") == 0) {
        if (pib_sf_str(r, u->match, sizeof(u->match), PIB_SF_MATCH_MAX) != 0)
            return -1;
        *has_match = u->match[0] != '\0';
    }
    else if (strcmp(key, "id") == 0) {
        if (pib_sf_str(r, u->id, sizeof(u->id), PIB_SF_ID_MAX) != 0)
            return -1;
    }
    else if (strcmp(key, "match-dest") == 0) {
        if (pib_sf_inner(r, u) != 0)
            return -1;
        return 0;                   /* its parameters were read */
    }
    else if (strcmp(key, "type") == 0) {
        char t[8];

        if (pib_sf_token(r, t, sizeof(t)) != 0 || strcmp(t, "raw") != 0)
            return -1;
    }
    else if (*r->p == '(') {
        return pib_sf_inner(r, NULL);
    }
    else if (pib_sf_skip_bare(r) != 0) {
        return -1;
    }
    return pib_sf_skip_params(r);
}

int pib_sf_parse_uad(const char *v, pib_sf_uad *out)
{
    pib_sfr r = { v };
    int has_match = 0;

    if (v == NULL) {
        return -1;
    }
    memset(out, 0, sizeof(*out));
    pib_sf_sp(&r);
    while (*r.p != '\0') {
        if (pib_sf_uad_member(&r, out, &has_match) != 0) {
            return -1;
        }
        pib_sf_ows(&r);
        if (*r.p == '\0') {
            break;
        }
        if (*r.p != ',') {
            return -1;
        }
        r.p++;
        pib_sf_ows(&r);
        if (*r.p == '\0') {
            return -1;              /* a trailing comma */
        }
    }
    return has_match ? 0 : -1;
}

/* Appends s as an sf-string (quotes, \ and " escaped) at out + *n,
 * leaving room for the NUL. */
static int pib_sf_put_str(char *out, size_t cap, size_t *n, const char *s)
{
    if (*n + 2 >= cap) {
        return -1;
    }
    out[(*n)++] = '"';
    for (; *s != '\0'; s++) {
        size_t need = (*s == '"' || *s == '\\') ? 2 : 1;

        if (*n + need + 1 >= cap) {     /* this, the quote, the NUL */
            return -1;
        }
        if (need == 2) {
            out[(*n)++] = '\\';
        }
        out[(*n)++] = *s;
    }
    out[(*n)++] = '"';
    return 0;
}

static int pib_sf_put(char *out, size_t cap, size_t *n, const char *s)
{
    size_t len = strlen(s);

    if (*n + len >= cap) {
        return -1;
    }
    memcpy(out + *n, s, len);
    *n += len;
    return 0;
}

size_t pib_sf_format_uad(char *out, size_t cap, const char *match,
                         const char *dest, const char *id)
{
    size_t n = 0;

    if (match == NULL || *match == '\0' || cap == 0
        || !pib_sf_string_ok(match, PIB_SF_MATCH_MAX)
        || (dest != NULL && !pib_sf_string_ok(dest, 15))
        || (id != NULL && !pib_sf_string_ok(id, PIB_SF_ID_MAX))) {
        return 0;
    }
    if (pib_sf_put(out, cap, &n, "match=") != 0
        || pib_sf_put_str(out, cap, &n, match) != 0
        || (dest != NULL
            && (pib_sf_put(out, cap, &n, ", match-dest=(") != 0
                || pib_sf_put_str(out, cap, &n, dest) != 0
                || pib_sf_put(out, cap, &n, ")") != 0))
        || (id != NULL
            && (pib_sf_put(out, cap, &n, ", id=") != 0
                || pib_sf_put_str(out, cap, &n, id) != 0))) {
        return 0;
    }
    out[n] = '\0';
    return n;
}
