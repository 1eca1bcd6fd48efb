/* pib_codec_zstd.h -- the zstd rows' pool of compression contexts
 * (pure, thread-safe; why pooled: pib_codec_zstd.c). */
#ifndef PIB_CODEC_ZSTD_H
#define PIB_CODEC_ZSTD_H

#define PIB_ZSTD_IDLE_MAX 16

struct ZSTD_CCtx_s;

/* A context from the pool (or a new one), reset, with level and the
 * content checksum set and, when pledged >= 0, that content size
 * pledged.  NULL when out of memory or level is refused.  Thread-safe;
 * give it back with pib_zstd_put.  (The dcz rows take theirs here too.) */
struct ZSTD_CCtx_s *pib_zstd_take(int level, long long pledged);

/* Gives a context back to the pool (freed when PIB_ZSTD_IDLE_MAX are
 * idle already).  Thread-safe. */
void pib_zstd_put(struct ZSTD_CCtx_s *c);

/* Frees the idle contexts (at child exit).  Thread-safe. */
void pib_zstd_drain(void);

/* Contexts allocated and not freed, and how many of them are idle. */
void pib_zstd_counts(unsigned long *live, unsigned long *idle);

#endif /* PIB_CODEC_ZSTD_H */
