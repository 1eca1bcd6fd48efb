/* pib_public.h -- what mod_pibalance offers other modules (mod_pistats).
 *
 * Retrieve with APR_RETRIEVE_OPTIONAL_FN(pib_deflate_state) (or
 * pib_deflate_counters) in post_config; it is NULL when mod_pibalance is
 * not loaded.
 *
 * Request notes set by the deflate offload on every compressed response
 * (decimal strings, readable in post_request and in LogFormat %{...}n):
 *   pibalance-deflate-in     bytes before compression
 *   pibalance-deflate-out    bytes after compression (gzip framing included)
 *   pibalance-deflate-ratio  out * 100 / in, whole percent (absent if in is 0)
 */
#ifndef PIB_PUBLIC_H
#define PIB_PUBLIC_H

#include "apr_optional.h"

#define PIB_NOTE_DEFLATE_IN    "pibalance-deflate-in"
#define PIB_NOTE_DEFLATE_OUT   "pibalance-deflate-out"
#define PIB_NOTE_DEFLATE_RATIO "pibalance-deflate-ratio"

/* The adaptive compression state, as last sampled (any child). */
typedef struct {
    int adaptive;       /* PiBalanceDeflateAdaptive is On */
    int state;          /* 0 full, 1 reduced (level 1), 2 off */
    const char *name;   /* "full", "reduced", "off" (static) */
    int cpu_busy_pct;   /* last sample, -1 unknown */
    int temp_mc;        /* hottest zone, millidegrees C, -1 unknown */
    unsigned changes;   /* state changes since start-up */
} pib_deflate_status;

/* Fills *out.  Lock-free; cheap enough for every status page hit. */
APR_DECLARE_OPTIONAL_FN(void, pib_deflate_state, (pib_deflate_status *out));

/* How the offload's compressed responses went, all children, since the
 * server started (graceful restarts keep them).  Counted when the
 * response ends. */
typedef struct {
    apr_uint64_t one_pass;          /* held whole, libdeflate, with
                                     * Content-Length */
    apr_uint64_t streamed;          /* zlib, chunked */
    apr_uint64_t trickled;          /* of streamed: held, then streamed
                                     * after the node paused 250 ms */
    apr_uint64_t compressor_waits;  /* found every libdeflate compressor
                                     * of its level busy and waited */
} pib_deflate_counts;

/* Fills *out.  Lock-free. */
APR_DECLARE_OPTIONAL_FN(void, pib_deflate_counters,
                        (pib_deflate_counts *out));

#endif /* PIB_PUBLIC_H */
