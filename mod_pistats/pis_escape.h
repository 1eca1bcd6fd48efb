/* pis_escape.h -- the output of /pi-status and what every format
 * escapes: an emit callback (ap_rwrite in httpd, a memory buffer in the
 * unit tests), and writers that escape a string for HTML, JSON, a
 * Prometheus label or one "Key: value" line.  Pure, unit-tested in
 * tests/unit/test_render*.c; every string that came from configuration
 * or from a node goes through one of these.
 */
#ifndef PIS_ESCAPE_H
#define PIS_ESCAPE_H

#include <stddef.h>

#if defined(__GNUC__)
#define PIS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PIS_PRINTF(f, a)
#endif

typedef void (*pis_emit_fn)(void *ctx, const char *s, size_t n);

typedef struct {
    pis_emit_fn emit;
    void *ctx;
} pis_out;

/* Writes s (NUL-terminated), or its escaped form. */
void pis_put(pis_out *o, const char *s);
void pis_put_html(pis_out *o, const char *s);

/* printf into the output; one call writes at most 255 bytes. */
void pis_putf(pis_out *o, const char *fmt, ...) PIS_PRINTF(2, 3);

/* s with every control character (below 0x20, and 0x7f) written as '?',
 * for one-line "Key: value" output; NULL or "" writes `dflt`. */
void pis_put_clean(pis_out *o, const char *s, const char *dflt);

/* s as a JSON string, quotes included: \" \\ and control characters
 * escaped, valid UTF-8 passed through, each invalid byte written as
 * \ufffd.  NULL writes null. */
void pis_put_json(pis_out *o, const char *s);

/* s escaped for a Prometheus label value (\\ \" \n), other control
 * characters and invalid UTF-8 bytes written as U+FFFD. */
void pis_put_label(pis_out *o, const char *s);

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when the bytes
 * there are not one (overlong, surrogate, above U+10FFFF, cut short). */
size_t pis_utf8_len(const unsigned char *s);

/* A finite double in C-locale "%.15g" form ("0.25", "1e-05"); returns
 * -1 (and writes "null") when v is NaN or infinite. */
int pis_fmt_double(char *buf, size_t size, double v);

#endif /* PIS_ESCAPE_H */
