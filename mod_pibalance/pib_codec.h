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

/* The process's libdeflate compressors (see pib_codec.c): at most
 * `limit` of each level exist (pib_ld_set_limit, 1..PIB_LD_MAX, default
 * PIB_LD_DEFAULT), made when first needed and kept.  take returns an
 * idle one of that level, else a new one while fewer than the limit
 * exist, else waits until one is given back (NULL: level outside 0..12
 * or out of memory); put gives it back.  Thread-safe; never hold one
 * across anything that blocks. */
#define PIB_LD_MAX 64
#define PIB_LD_DEFAULT 4
struct libdeflate_compressor;
void pib_ld_set_limit(unsigned n);
unsigned pib_ld_get_limit(void);
struct libdeflate_compressor *pib_ld_take(int level);
void pib_ld_put(struct libdeflate_compressor *c, int level);
/* How many takes have had to wait for a compressor (since start). */
unsigned long pib_ld_waits(void);
/* fn is called (under the pool's lock: keep it to an atomic add) each
 * time a take has to wait; NULL for none. */
void pib_ld_set_wait_hook(void (*fn)(void));
/* The process's pool of oneshot buffers (held bodies and libdeflate's
 * output).  take returns an idle buffer of at least `need` bytes, else a
 * new one of `need` rounded up to PIB_BUF_GRAIN (NULL: out of memory),
 * and its capacity in *cap; put gives it back, freeing it when it is
 * larger than PIB_BUF_KEEP_MAX or PIB_BUF_IDLE_MAX are idle already.
 * Thread-safe. */
#define PIB_BUF_IDLE_MAX 16
#define PIB_BUF_KEEP_MAX (256 * 1024)
#define PIB_BUF_GRAIN    (16 * 1024)
unsigned char *pib_buf_take(size_t need, size_t *cap);
void pib_buf_put(unsigned char *buf, size_t cap);
/* Buffers allocated and not freed, and how many of them are idle. */
void pib_buf_counts(unsigned long *live, unsigned long *idle);

/* Frees the idle compressors and buffers (at child exit: the pools live
 * in the module's static memory, gone once httpd unloads it).
 * Thread-safe; one in use is kept (put) when given back, as a new one
 * may be made in place of each freed. */
void pib_ld_drain(void);
/* Compressors allocated and not freed, and how many of them are idle. */
void pib_ld_counts(unsigned long *live, unsigned long *idle);

#endif /* PIB_CODEC_H */
