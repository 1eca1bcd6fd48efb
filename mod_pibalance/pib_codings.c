/* pib_codings.c -- PiBalanceDeflateCodecs and the choice of coding
 * (see pib_codings.h; pure, no httpd headers).
 *
 * Worked example, offer "zstd br gzip":
 *
 *   Accept-Encoding                     chosen    why
 *   gzip, deflate, br, zstd             zstd      all q=1: server order
 *   gzip, deflate, br                   br        zstd not accepted
 *   zstd;q=0.5, br;q=0.9, gzip          gzip      gzip and br rank
 *                                                 above zstd; gzip q=1
 *   zstd;q=0, *                         br        "*" gives br q=1
 *   (none)                              identity
 */
#include <string.h>
#include <strings.h>

#include "pib_codings.h"

static const struct {
    const char *token;
    pib_coding coding;
    int max;                /* highest level; 0: no level accepted */
} pib_known[] = {
    { "gzip", PIB_CODING_GZIP, 0 },
    { "br", PIB_CODING_BR, PIB_BR_LEVEL_MAX },
    { "zstd", PIB_CODING_ZSTD, PIB_ZSTD_LEVEL_MAX },
};
#define PIB_NKNOWN (sizeof(pib_known) / sizeof(pib_known[0]))

void pib_codings_default(pib_codings *c)
{
    memset(c, 0, sizeof(*c));
    c->n = 1;
    c->order[0] = PIB_CODING_GZIP;
}

/* A level "1".."max", no sign, no leading zero; -1 when not one. */
static int pib_level_of(const char *s, int max)
{
    int v = 0;

    if (*s < '1' || *s > '9') {
        return -1;
    }
    for (; *s >= '0' && *s <= '9'; s++) {
        v = v * 10 + (*s - '0');
        if (v > max) {
            return -1;
        }
    }
    return *s == '\0' ? v : -1;
}

static const char *pib_codings_one(pib_codings *c, const char *arg)
{
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg), i, j;

    for (i = 0; i < PIB_NKNOWN; i++) {
        if (strlen(pib_known[i].token) == len
            && strncasecmp(arg, pib_known[i].token, len) == 0) {
            break;
        }
    }
    if (i == PIB_NKNOWN) {
        return "unknown coding: the codings are gzip, br and zstd";
    }
    for (j = 0; j < c->n; j++) {
        if (c->order[j] == pib_known[i].coding) {
            return "coding listed twice";
        }
    }
    if (eq != NULL) {
        int v;

        if (pib_known[i].max == 0) {
            return "gzip takes no level here: its level is "
                   "PiBalanceDeflateLevel";
        }
        v = pib_level_of(eq + 1, pib_known[i].max);
        if (v < 0) {
            return pib_known[i].coding == PIB_CODING_BR
                   ? "the br level (quality) must be a whole number in "
                     "[1, 11]"
                   : "the zstd level must be a whole number in [1, 19]";
        }
        c->level[pib_known[i].coding] = v;
    }
    c->order[c->n++] = pib_known[i].coding;
    return NULL;
}

const char *pib_codings_parse(pib_codings *c, int argc,
                              const char *const argv[], int *bad)
{
    int i;

    memset(c, 0, sizeof(*c));
    *bad = 0;
    if (argc < 1) {
        return "name at least one coding: gzip, br or zstd";
    }
    for (i = 0; i < argc; i++) {
        /* at most PIB_CODINGS_MAX pass: a fourth is a duplicate */
        const char *why = pib_codings_one(c, argv[i]);

        if (why != NULL) {
            *bad = i;
            return why;
        }
    }
    return NULL;
}

int pib_codings_level(const pib_codings *c, pib_coding k, int gzip_level)
{
    switch (k) {
    case PIB_CODING_GZIP:
        return gzip_level;
    case PIB_CODING_BR:
        return c->level[k] > 0 ? c->level[k] : PIB_BR_LEVEL;
    case PIB_CODING_ZSTD:
        return c->level[k] > 0 ? c->level[k] : PIB_ZSTD_LEVEL;
    default:
        return 0;
    }
}

pib_coding pib_coding_pick(const pib_ae *ae, int no_gzip,
                           const pib_codings *c)
{
    if (no_gzip) {
        return PIB_CODING_IDENTITY;
    }
    return pib_ae_choose(ae, c->order, c->n);
}

const char *pib_coding_token(pib_coding k)
{
    size_t i;

    for (i = 0; i < PIB_NKNOWN; i++) {
        if (pib_known[i].coding == k) {
            return pib_known[i].token;
        }
    }
    return NULL;
}
