/* pib_codec.h -- encoders as a table of functions (pure).
 *
 * Two rows per coding: one streams (flushes honoured, memory bounded by
 * the encoder's state plus one output buffer), one buffers a whole body
 * of known length and compresses it in one pass when it ends.  gzip:
 * "zlib" and "oneshot" (libdeflate), standard gzip (RFC 1952), here,
 * and "igzip" and "igzip-oneshot" (ISA-L) in pib_codec_igzip.c;
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

/* gzip through ISA-L's igzip (pib_codec_igzip.c), levels 0..
 * PIB_IGZIP_LEVEL_MAX (ISA-L's own scale), one-pass or streaming; NULL
 * in a build without ISA-L (configure's summary says which).  Its state
 * pool: at most PIB_IGZIP_IDLE_MAX idle of each level; drain frees the
 * idle ones (at child exit); counts says how many are allocated and
 * idle.  Thread-safe. */
#define PIB_IGZIP_LEVEL_MAX 3
#define PIB_IGZIP_IDLE_MAX 16
const pib_codec *pib_codec_igzip(int one_pass);
void pib_igzip_drain(void);
void pib_igzip_counts(unsigned long *live, unsigned long *idle);

/* The row for coding c (gzip, br, zstd), one-pass or streaming; NULL
 * for any other coding. */
const pib_codec *pib_codec_for(pib_coding c, int one_pass);

/* The encoder of a response: which row, at which level of the row's own
 * scale (pib_encoder_pick). */
typedef struct {
    const pib_codec *row;
    int level;
} pib_encoder;

/* THE choice of encoder for coding c (gzip, br, zstd), a body held for
 * one pass or streamed, the coding's level (gzip: PiBalanceDeflateLevel
 * or the store level, libdeflate's 1..12; zstd 1..19; br 1..11), and
 * fastest: the adaptive rule's reduced step.  Worked table (gzip with
 * ISA-L; without it every igzip row below is libdeflate's or zlib's at
 * level 1):
 *
 *   coding  level  fastest   one pass          streamed
 *   gzip    1      no        igzip-oneshot 1   igzip 1
 *   gzip    6      no        oneshot 6         zlib 6
 *   gzip    12     no        oneshot 12        zlib 9
 *   gzip    any    yes       igzip-oneshot 0   igzip 0
 *   zstd    3      no        zstd-oneshot 3    zstd 3
 *   zstd    any    yes       zstd-oneshot -1   zstd -1
 *   br      4      no        br-oneshot 4      br 4
 *   br      any    yes       br-oneshot 1      br 1
 *
 * Why (bench/RESULTS-offload.md, issue 32): igzip 1 costs ~0.4-0.55x
 * libdeflate 1's CPU for ~5% more bytes, and streams at its one-pass
 * cost; igzip 0 and zstd -1 are each coding's fastest that still sends
 * fewer bytes than HAProxy's gzip.  Returns 0, or -1 for a coding with
 * no rows (*e untouched). */
int pib_encoder_pick(pib_coding c, int level, int fastest, int one_pass,
                     pib_encoder *e);

/* 1 for a row that holds the body and compresses it in one pass. */
#define PIB_CODEC_ONE_PASS_ROW(codec) ((codec)->stream != NULL)

struct pib_cstream {
    const pib_codec *codec;
    pib_emit_fn emit;
    void *baton;
    /* Optional (NULL: emit): receives output that stays valid until
     * end(), so that the receiver need not copy it (igzip's one pass
     * hands over its whole output buffer so). */
    pib_emit_fn emit_held;
    unsigned long long in_bytes;    /* uncompressed bytes added */
    unsigned long long out_bytes;   /* compressed bytes emitted */
    z_stream z;
    int z_live;
    void *enc;                      /* zstd, br: the encoder's state */
    int level;                      /* one-pass: the level */
    unsigned char *buf;             /* oneshot: the body so far */
    size_t len, cap;                /* held, and at most (announced) */
    size_t buf_cap;                 /* buf's size (pib_buf_take) */
    unsigned char *held_out;        /* one pass: the output, until end() */
    size_t held_out_cap;
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
/* The same for bytes that stay valid until end(): emit_held if set. */
void pib_cstream_emit_held(pib_cstream *s, const unsigned char *p,
                           size_t n);

/* For the one-pass rows' finish: hands n bytes of out (a pib_buf_take
 * buffer of out_cap bytes) to emit_held and keeps out until end(), which
 * gives it back (pib_held_end): the receiver need not copy it. */
void pib_held_give(pib_cstream *s, unsigned char *out, size_t n,
                   size_t out_cap);

#endif /* PIB_CODEC_H */
