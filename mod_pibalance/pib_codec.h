/* pib_codec.h -- gzip encoders as a table of functions (pure).
 *
 * Two rows: "zlib" streams (flushes honoured, memory bounded by the
 * deflate state plus one output buffer) and "oneshot" buffers a whole
 * body of known length and compresses it with libdeflate when it ends.
 * Both produce standard gzip (RFC 1952).  A third algorithm is a new
 * row, not an #ifdef.  No httpd headers: unit-tested in test_codec.c.
 */
#ifndef PIB_CODEC_H
#define PIB_CODEC_H

#include <stddef.h>
#include <zlib.h>

#include "pib_pool.h"

#define PIB_CODEC_OUTBUF 8192

/* Receives compressed bytes; data is valid only during the call. */
typedef void (*pib_emit_fn)(void *baton, const unsigned char *data,
                            size_t len);

typedef struct {
    int level;          /* 1..9 */
    int window_bits;    /* 9..15, zlib only */
    int mem_level;      /* 1..9, zlib only */
    size_t expect;      /* oneshot: the whole body's length */
} pib_codec_params;

typedef struct pib_cstream pib_cstream;

/* Every function returns 0 on success, -1 on failure (out of memory,
 * library error); after a failure only end() may be called. */
typedef struct {
    const char *name;
    int (*init)(pib_cstream *s, const pib_codec_params *p);
    int (*add)(pib_cstream *s, const unsigned char *in, size_t n);
    int (*flush)(pib_cstream *s);   /* everything so far goes out */
    int (*finish)(pib_cstream *s);  /* trailer: a complete gzip stream */
    void (*end)(pib_cstream *s);    /* frees; safe to call twice */
} pib_codec;

extern const pib_codec pib_codec_zlib;
extern const pib_codec pib_codec_oneshot;

struct pib_cstream {
    const pib_codec *codec;
    pib_emit_fn emit;
    void *baton;
    unsigned long long in_bytes;    /* uncompressed bytes added */
    unsigned long long out_bytes;   /* compressed bytes emitted */
    z_stream z;
    int z_live;
    int level;                      /* oneshot: libdeflate level */
    unsigned char *buf;             /* oneshot: the body so far */
    size_t len, cap;                /* held, and at most (announced) */
    size_t buf_cap;                 /* buf's size (pib_buf_take) */
    unsigned char out[PIB_CODEC_OUTBUF];
};

/* Sets up s (caller-owned memory) with codec.  Returns 0 or -1. */
int pib_cstream_init(pib_cstream *s, const pib_codec *codec,
                     const pib_codec_params *p, pib_emit_fn emit,
                     void *baton);

/* Turns a oneshot stream into a zlib one, feeding it what was buffered;
 * a no-op for a zlib stream.  Used when a FLUSH arrives or the body
 * outgrows its announced length.  Returns 0 or -1. */
int pib_cstream_to_zlib(pib_cstream *s, const pib_codec_params *p);

#endif /* PIB_CODEC_H */
