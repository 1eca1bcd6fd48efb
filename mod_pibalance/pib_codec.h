/* pib_codec.h -- encoders as a table of functions (pure).
 *
 * Two rows per coding: one streams (flushes honoured, memory bounded by
 * the encoder's state plus one output buffer), one buffers a whole body
 * of known length and compresses it in one pass when it ends.  gzip:
 * "zlib" and "oneshot" (libdeflate), standard gzip (RFC 1952), here;
 * zstd (RFC 8878) in pib_codec_zstd.c, br (RFC 7932) in pib_codec_br.c.
 * A one-pass row names the streaming row it turns into when a body must
 * stream after all (pib_cstream_to_stream).  No httpd headers:
 * unit-tested in test_codec.c.
 */
#ifndef PIB_CODEC_H
#define PIB_CODEC_H

#include <stddef.h>
#include <zlib.h>

#include "pib_pool.h"
#include "pib_ae.h"

#define PIB_CODEC_OUTBUF 8192

/* Receives compressed bytes; data is valid only during the call. */
typedef void (*pib_emit_fn)(void *baton, const unsigned char *data,
                            size_t len);

typedef struct {
    int level;          /* gzip 1..9, zstd 1..19, br 1..11 */
    int window_bits;    /* 9..15, zlib only */
    int mem_level;      /* 1..9, zlib only */
    size_t expect;      /* oneshot: the whole body's length */
    struct pib_dict *dict;  /* dcz: the dictionary (pib_dcz.h); else NULL */
} pib_codec_params;

typedef struct pib_cstream pib_cstream;

/* Every function returns 0 on success, -1 on failure (out of memory,
 * library error); after a failure only end() may be called. */
typedef struct pib_codec {
    const char *name;
    int (*init)(pib_cstream *s, const pib_codec_params *p);
    int (*add)(pib_cstream *s, const unsigned char *in, size_t n);
    int (*flush)(pib_cstream *s);   /* everything so far goes out */
    int (*finish)(pib_cstream *s);  /* trailer: a complete gzip stream */
    void (*end)(pib_cstream *s);    /* frees; safe to call twice */
    const struct pib_codec *stream; /* one-pass rows: the streaming row
                                     * of the same coding; else NULL */
    const char *coding;             /* Content-Encoding: "gzip", ... */
} pib_codec;

extern const pib_codec pib_codec_zlib;
extern const pib_codec pib_codec_oneshot;
extern const pib_codec pib_codec_zstd;
extern const pib_codec pib_codec_zstd_oneshot;
extern const pib_codec pib_codec_br;
extern const pib_codec pib_codec_br_oneshot;
/* dcz (pib_dcz.h) rows: pib_codec_dcz, pib_codec_dcz_oneshot. */

/* The row for coding c (gzip, br, zstd), one-pass or streaming; NULL
 * for any other coding. */
const pib_codec *pib_codec_for(pib_coding c, int one_pass);

/* 1 for a row that holds the body and compresses it in one pass. */
#define PIB_CODEC_ONE_PASS_ROW(codec) ((codec)->stream != NULL)

struct pib_cstream {
    const pib_codec *codec;
    pib_emit_fn emit;
    void *baton;
    unsigned long long in_bytes;    /* uncompressed bytes added */
    unsigned long long out_bytes;   /* compressed bytes emitted */
    z_stream z;
    int z_live;
    void *enc;                      /* zstd, br: the encoder's state */
    int level;                      /* one-pass: the level */
    unsigned char *buf;             /* oneshot: the body so far */
    size_t len, cap;                /* held, and at most (announced) */
    size_t buf_cap;                 /* buf's size (pib_buf_take) */
    unsigned char out[PIB_CODEC_OUTBUF];
};

/* Sets up s (caller-owned memory) with codec.  Returns 0 or -1. */
int pib_cstream_init(pib_cstream *s, const pib_codec *codec,
                     const pib_codec_params *p, pib_emit_fn emit,
                     void *baton);

/* Turns a one-pass stream into its coding's streaming row, feeding it
 * what was buffered; a no-op for a streaming row.  Used when a FLUSH
 * arrives or the body outgrows its announced length.  Returns 0 or -1. */
int pib_cstream_to_stream(pib_cstream *s, const pib_codec_params *p);

/* For the one-pass rows of every coding: hold the body (init, add,
 * flush refuses, end frees).  finish is the coding's own. */
int pib_held_init(pib_cstream *s, const pib_codec_params *p);
int pib_held_add(pib_cstream *s, const unsigned char *in, size_t n);
int pib_held_flush(pib_cstream *s);
void pib_held_end(pib_cstream *s);

/* Hands n compressed bytes to the stream's emit function, counted. */
void pib_cstream_emit(pib_cstream *s, const unsigned char *p, size_t n);

#endif /* PIB_CODEC_H */
