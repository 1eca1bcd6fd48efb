/* pis_public.h -- what mod_pistats and mod_pibalance offer each other,
 * as optional functions: either module loads and works without the
 * other (APR_RETRIEVE_OPTIONAL_FN gives NULL then).
 */
#ifndef PIS_PUBLIC_H
#define PIS_PUBLIC_H

#include "httpd.h"
#include "apr_optional.h"
#include "mod_proxy.h"

#include "pis_sensor.h"
#include "pis_snap.h"

/* ---- offered by mod_pistats ------------------------------------------ */

/* A member's node telemetry and response time, as the probe and the
 * request hooks last saw them. */
typedef struct {
    pis_telemetry tel;             /* has_* flags say what is known */
    int tel_stale;                 /* no good reading within 3 intervals */
    double tel_age_s;              /* -1: never */
    double ewma_us;                /* response-time EWMA, -1: no sample */
    double last_us;                /* unused yet: -1 */
    unsigned long inflight;        /* requests in flight (all children) */
    unsigned long requests;        /* finished requests (low 32 bits) */
} pis_member_info;

/* Fills *out for member w of balancer b (in server s).  Returns 0, or -1
 * when the member has no statistics.  Lock-free; never blocks. */
APR_DECLARE_OPTIONAL_FN(int, pis_get_member_info,
                        (server_rec *s, proxy_balancer *b, proxy_worker *w,
                         pis_member_info *out));

/* ---- offered by mod_pibalance ---------------------------------------- */

/* The effective weight lbmethod "pi" gives member w (in loadfactor
 * units) and its thermal state ("ok", "warm", "drained", "stale", ...).
 * Returns 0, or -1 when the balancer does not use lbmethod "pi". */
APR_DECLARE_OPTIONAL_FN(int, pib_get_member_weight,
                        (server_rec *s, proxy_balancer *b, proxy_worker *w,
                         double *weight, const char **thermal_state));

/* The offload compressor's state: pib_deflate_state() in
 * mod_pibalance/pib_public.h. */

/* ---- mod_pistats' own use (pis_public.c) ----------------------------- */
void pis_public_register(void);
void pis_public_bind(void);
const char *pis_deflate_state(apr_pool_t *p);
/* The offload counters into snap (has_deflate_counts 0 without
 * mod_pibalance). */
void pis_deflate_counts(pis_snap *snap);

#endif /* PIS_PUBLIC_H */
