/* fuzz_common.h -- a tiny FuzzedDataProvider for the C targets.
 *
 * Takes integers from the front and strings from the rest of the input;
 * when the bytes run out every read returns 0 / "".  Strings are copied
 * to malloc'ed buffers of exactly their size so ASan sees any overread.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *p;
    size_t n;
} fz_in;

static inline uint32_t fz_u32(fz_in *in, uint32_t max)
{
    uint32_t v = 0;
    int i;

    for (i = 0; i < 4 && in->n > 0; i++) {
        v = (v << 8) | *in->p++;
        in->n--;
    }
    return max == UINT32_MAX ? v : v % (max + 1);
}

static inline uint8_t fz_u8(fz_in *in)
{
    uint8_t v = 0;

    if (in->n > 0) {
        v = *in->p++;
        in->n--;
    }
    return v;
}

/* A NUL-terminated string of at most max bytes (no NUL inside), ended
 * in the input by a 0x00 byte or by the end, followed by suffix (not
 * from the input), in one malloc'ed buffer of exactly its size.  The
 * caller frees it. */
static inline char *fz_str_suffix(fz_in *in, size_t max, const char *suffix)
{
    size_t len = 0, slen = strlen(suffix);
    char *s;

    while (len < in->n && len < max && in->p[len] != 0) {
        len++;
    }
    s = malloc(len + slen + 1);
    if (s == NULL) {
        abort();
    }
    memcpy(s, in->p, len);
    memcpy(s + len, suffix, slen + 1);
    in->p += len;
    in->n -= len;
    if (in->n > 0 && *in->p == 0) {
        in->p++;
        in->n--;
    }
    return s;
}

static inline char *fz_str(fz_in *in, size_t max)
{
    return fz_str_suffix(in, max, "");
}

/* Fails loudly: libFuzzer records the input as a crash. */
#define FZ_ASSERT(c) do { \
    if (!(c)) { \
        fprintf(stderr, "FUZZ ASSERT %s:%d: %s\n", __FILE__, __LINE__, #c); \
        abort(); \
    } \
} while (0)

/* Growable output buffer for renderers and codecs. */
typedef struct {
    char *data;
    size_t len, cap;
} fz_buf;

static inline void fz_buf_add(fz_buf *b, const void *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->data = realloc(b->data, b->cap);
        if (b->data == NULL) {
            abort();
        }
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

#endif /* FUZZ_COMMON_H */
