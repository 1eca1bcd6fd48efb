/* pib_log.h -- log message tags of mod_pibalance.
 *
 * Like httpd's APLOGNO(), every log line at debug or above starts with a
 * tag that is never reused (t/config/logtags.t: one call site a tag).
 * Ranges, by the part that logs:
 *
 *   10000-10099  wiring (mod_pibalance.c)
 *   10100-10199  the deflate offload (pib_deflate.c, pib_pool_glue.c,
 *                pib_adapt_glue.c, pib_counts.c)
 *   10200-10299  lbmethod pi's state (pib_state.c, pib_transit.c)
 *   11000-11099  mod_proxy's hooks (pib_proxyhook.c)
 *   12100-12199  lbmethod pi's returns (pib_transit.c)
 *   12500-12899  with mod_cache (pib_cache.c)
 *   12900-12999  shared segments' layouts (pib_counts.c)
 *   13000-13999  power, dictionaries, encoders (issues 30-32);
 *                13100-13299 dictionaries (pib_dict.c)
 */
#ifndef PIB_LOG_H
#define PIB_LOG_H

#define PIBLOGNO(n) "PIB" #n ": "

#endif /* PIB_LOG_H */
