/* pib_pool.h -- the process's pools of libdeflate compressors and of
 * the buffers oneshot holds bodies in (pure, thread-safe, unit-tested in
 * test_codec.c).  Used by the oneshot codec (pib_codec.c); sized by
 * PiBalanceDeflateCompressors; drained at child exit.  Why pooled, and
 * what it costs: pib_pool.c.
 */
#ifndef PIB_POOL_H
#define PIB_POOL_H

#include <stddef.h>

/* The process's libdeflate compressors: at most
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

#endif /* PIB_POOL_H */
