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

#include <stdio.h>

#include "pib_coding_table.h"
#include "pib_codings.h"
#include "pib_dcz.h"

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

/* The words of the messages that list the codings, made once from the
 * table: "gzip, br and zstd" and "gzip, br[=1..11], zstd[=1..19]". */
static char pib_names[96], pib_accepted[160];

static void pib_words(void)
{
    size_t i, n = 0, m = 0;

    if (pib_names[0] != '\0') {
        return;
    }
    for (i = 0; i < PIB_NCODINGS; i++) {
        const pib_coding_row *k = &pib_coding_rows[i];
        const char *sep = i == 0 ? "" : i + 1 == PIB_NCODINGS ? " and "
                                                              : ", ";

        n += (size_t)snprintf(pib_names + n, sizeof(pib_names) - n, "%s%s",
                              sep, k->token);
        m += (size_t)snprintf(pib_accepted + m, sizeof(pib_accepted) - m,
                              k->level_max ? "%s%s[=1..%d]" : "%s%s",
                              i ? ", " : "", k->token, k->level_max);
        n = n < sizeof(pib_names) ? n : sizeof(pib_names) - 1;
        m = m < sizeof(pib_accepted) ? m : sizeof(pib_accepted) - 1;
    }
}

const char *pib_codings_accepted(void)
{
    pib_words();
    return pib_accepted;
}

static const char *pib_codings_one(pib_codings *c, const char *arg)
{
    static char unknown[160];
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg), j;
    const pib_coding_row *k = pib_coding_row_named(arg, len);

    if (k == NULL && len == 3 && strncasecmp(arg, "dcb", 3) == 0) {
        return pib_dcb_unsupported();   /* brotli 1.1, or no row yet */
    }
    if (k == NULL) {
        pib_words();
        snprintf(unknown, sizeof(unknown),
                 "unknown coding: the codings are %s", pib_names);
        return unknown;
    }
    for (j = 0; j < c->n; j++) {
        if (c->order[j] == k->coding) {
            return "coding listed twice";
        }
    }
    if (eq != NULL) {
        int v;

        if (k->level_max == 0) {
            return k->level_error;
        }
        v = pib_level_of(eq + 1, k->level_max);
        if (v < 0) {
            return k->level_error;
        }
        c->level[k->coding] = v;
    }
    c->order[c->n++] = k->coding;
    return NULL;
}

const char *pib_codings_parse(pib_codings *c, int argc,
                              const char *const argv[], int *bad)
{
    int i;

    memset(c, 0, sizeof(*c));
    *bad = 0;
    if (argc < 1) {
        return "name at least one coding";
    }
    for (i = 0; i < argc; i++) {
        /* at most PIB_NCODINGS pass: one more is a duplicate */
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
    const pib_coding_row *row = pib_coding_row_of(k);

    if (row == NULL) {
        return 0;
    }
    if (row->level_max == 0) {
        return gzip_level;            /* gzip: PiBalanceDeflateLevel */
    }
    return c->level[k] > 0 ? c->level[k] : row->level_default;
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
    const pib_coding_row *row = pib_coding_row_of(k);

    return row != NULL ? row->token : NULL;
}
