/* dczenc.c -- compresses stdin as dcz (RFC 9842) against the dictionary
 * file DICT with mod_pibalance's own encoder (pib_dcz.c), to stdout: the
 * 40-byte header and the zstd frame.  For t/bin/dcz-refserver.py
 * --encoder, so that a real browser decodes our bytes, not the CLI's.
 *
 *   dczenc DICT [LEVEL] < body > body.dcz
 */
#include <stdio.h>
#include <stdlib.h>

#include "pib_dcz.h"

static unsigned char *slurp(FILE *f, size_t *n)
{
    size_t cap = 1 << 16;
    unsigned char *b = malloc(cap);
    size_t r;

    *n = 0;
    while (b != NULL && (r = fread(b + *n, 1, cap - *n, f)) > 0) {
        *n += r;
        if (*n == cap) {
            b = realloc(b, cap *= 2);
        }
    }
    return b;
}

int main(int argc, char **argv)
{
    FILE *f = argc >= 2 ? fopen(argv[1], "rb") : NULL;
    size_t dn, bn, on;
    unsigned char *dict, *body, *out;
    pib_dict *d;

    if (f == NULL) {
        fprintf(stderr, "usage: dczenc DICT [LEVEL] < body\n");
        return 2;
    }
    dict = slurp(f, &dn);
    fclose(f);
    body = slurp(stdin, &bn);
    if ((d = pib_dict_adopt(dict, dn)) == NULL
        || pib_dcz_compress(d, argc >= 3 ? atoi(argv[2]) : 3, body, bn,
                            &out, &on) != 0
        || fwrite(out, 1, on, stdout) != on) {
        fprintf(stderr, "dczenc: failed\n");
        return 1;
    }
    return 0;
}
