/* pib_codec_zstd.h -- the zstd rows' pool of compression contexts
 * (pure, thread-safe; why pooled: pib_codec_zstd.c). */
#ifndef PIB_CODEC_ZSTD_H
#define PIB_CODEC_ZSTD_H

#define PIB_ZSTD_IDLE_MAX 16

struct ZSTD_CCtx_s;

/* Gives a context back to the pool (freed when PIB_ZSTD_IDLE_MAX are
 * idle already).  Thread-safe. */
void pib_zstd_put(struct ZSTD_CCtx_s *c);

/* Frees the idle contexts (at child exit).  Thread-safe. */
void pib_zstd_drain(void);

/* Contexts allocated and not freed, and how many of them are idle. */
void pib_zstd_counts(unsigned long *live, unsigned long *idle);

#endif /* PIB_CODEC_ZSTD_H */
