/* pi_num.c -- numbers as text, both ways (see pi_num.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pi_num.h"

int pi_parse_number(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v;

    if (s == NULL || *s == '\0'
        || strspn(s, "0123456789+-.eE") != strlen(s)) {
        return -1;                     /* decimal only: no hex, no blanks */
    }
    errno = 0;
    v = strtod(s, &end);
    if (errno != 0 || *end != '\0' || !isfinite(v) || v < lo || v > hi) {
        return -1;
    }
    *out = v;
    return 0;
}

int pi_parse_whole(const char *s, long lo, long hi, long *out)
{
    double v;

    if (s == NULL || strspn(s, "0123456789") != strlen(s)
        || pi_parse_number(s, (double)lo, (double)hi, &v) != 0) {
        return -1;
    }
    *out = (long)v;
    return 0;
}

void pi_trim(const char **s, size_t *len)
{
    while (*len > 0 && isspace((unsigned char)**s)) {
        (*s)++;
        (*len)--;
    }
    while (*len > 0 && isspace((unsigned char)(*s)[*len - 1])) {
        (*len)--;
    }
}

int pi_parse_ulong(const char *text, size_t len, unsigned long *out)
{
    unsigned long v = 0;
    size_t i;

    pi_trim(&text, &len);
    if (len == 0) {
        return -1;
    }
    for (i = 0; i < len; i++) {
        unsigned d;

        if (text[i] < '0' || text[i] > '9') {
            return -1;
        }
        d = (unsigned)(text[i] - '0');
        if (v > (ULONG_MAX - d) / 10) {
            return -1;
        }
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int pi_parse_fixed(const char *text, size_t len, int scale_digits,
                   long *out)
{
    const long limit = LONG_MAX / 1000;   /* keeps scaling overflow-free */
    long ip = 0, fp = 0;
    int neg = 0, fdigits = 0, seen = 0;
    size_t i = 0;

    pi_trim(&text, &len);
    if (len > 0 && (text[0] == '-' || text[0] == '+')) {
        neg = text[0] == '-';
        i = 1;
    }
    for (; i < len && text[i] >= '0' && text[i] <= '9'; i++, seen = 1) {
        if (ip > limit) {
            return -1;
        }
        ip = ip * 10 + (text[i] - '0');
    }
    if (i < len && text[i] == '.') {
        for (i++; i < len && text[i] >= '0' && text[i] <= '9'; i++) {
            seen = 1;
            if (fdigits < scale_digits) {
                fp = fp * 10 + (text[i] - '0');
                fdigits++;
            }
        }
    }
    if (!seen || i != len) {
        return -1;
    }
    for (; fdigits < scale_digits; fdigits++) {
        fp *= 10;
    }
    for (i = 0; i < (size_t)scale_digits; i++) {
        if (ip > limit) {
            return -1;
        }
        ip *= 10;
    }
    *out = neg ? -(ip + fp) : ip + fp;
    return 0;
}

void pi_format_fixed(long v, int digits, char *buf, size_t size)
{
    unsigned long a = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
    unsigned long scale = 1;
    int i;

    for (i = 0; i < digits; i++) {
        scale *= 10;
    }
    if (digits == 0) {
        snprintf(buf, size, "%s%lu", v < 0 ? "-" : "", a);
        return;
    }
    snprintf(buf, size, "%s%lu.%0*lu", v < 0 ? "-" : "", a / scale,
             digits, a % scale);
}
