/* pib_adapt_glue.h -- samples the master's CPU and temperature for
 * PiBalanceDeflateAdaptive; shares the state across children. */
#ifndef PIB_ADAPT_GLUE_H
#define PIB_ADAPT_GLUE_H

#include "httpd.h"

#include "pi_api.h"
#include "pib_adapt.h"

/* post_config (real pass): creates the shared state. */
apr_status_t pib_adapt_init(apr_pool_t *pconf, server_rec *s);

/* The level to compress a new response at, given the configured one;
 * 0 = do not compress now.  Samples at most once a second (one thread
 * of one child wins the second); never blocks. */
int pib_adapt_level_now(int configured, server_rec *s);

/* The state itself (full, reduced, off), sampled as above: a reduced
 * response takes its coding's fastest encoder (pib_encoder_pick). */
pib_adapt_state pib_adapt_state_now(server_rec *s);

/* The optional function pib_deflate_state (include/pi_api.h),
 * registered by pib_public.c. */
int pib_deflate_state(pi_deflate_state *out);

#endif /* PIB_ADAPT_GLUE_H */
