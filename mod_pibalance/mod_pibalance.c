/* mod_pibalance.c -- module wiring: registers lbmethod "pi" and checks
 * its dependencies.  The configuration (every directive) is pib_config.c;
 * the method lives in pib_lbmethod.c, the pick in pib_score.c.  Deflate
 * offload: the filter in pib_deflate.c, the upstream request in
 * pib_upstream.c, its counters in pib_counts.c, with mod_cache in
 * pib_cache.c.
 */
#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "ap_provider.h"
#include "mod_proxy.h"

#include "pib_attempt.h"
#include "pib_lbmethod.h"
#include "pib_deflate.h"
#include "pib_config.h"
#include "pib_upstream.h"
#include "pib_adapt_glue.h"
#include "pib_counts.h"
#include "pib_log.h"
#include "pib_pool_glue.h"
#include "pib_public.h"
#include "pib_state.h"
#include "pib_cache.h"
#include "pib_dict.h"

module AP_MODULE_DECLARE_DATA pibalance_module;

static int pib_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                           apr_pool_t *ptemp, server_rec *s)
{
    (void)plog;
    (void)ptemp;
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG) {
        return OK;
    }
    if (!pib_lbmethod_bind()) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s, PIBLOGNO(10000)
                     "mod_proxy must be loaded for mod_pibalance");
        return !OK;
    }
    pib_lbmethod_check(s);
    if (pib_state_setup(pconf, s) != APR_SUCCESS) {
        return !OK;
    }
    pib_counts_init(s);
    return pib_adapt_init(pconf, s) == APR_SUCCESS ? OK : !OK;
}

static int pib_pre_config(apr_pool_t *pconf, apr_pool_t *plog,
                          apr_pool_t *ptemp)
{
    (void)pconf;
    (void)plog;
    (void)ptemp;
    pib_conf_reset();
    return OK;
}

static void pib_register_hooks(apr_pool_t *p)
{
    ap_register_provider(p, PROXY_LBMETHOD, "pi", "0", &pib_lbmethod);
    ap_hook_pre_config(pib_pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    static const char *const after_balancer[] = { "mod_proxy_balancer.c",
                                                  NULL };

    ap_hook_post_config(pib_post_config, after_balancer, NULL,
                        APR_HOOK_MIDDLE);
    pib_attempt_register(p);
    pib_public_register(p);
    pib_deflate_register(p);
    pib_pool_register(p);
    pib_upstream_register(p);
    pib_cache_register(p);
    pib_dict_register(p);
}

AP_DECLARE_MODULE(pibalance) = {
    STANDARD20_MODULE_STUFF,
    pib_create_dir,         /* create per-directory config */
    pib_merge_dir,          /* merge per-directory config */
    pib_create_srv,         /* create per-server config */
    pib_merge_srv,          /* merge per-server config */
    pib_cmds,               /* directives (pib_config.c) */
    pib_register_hooks,
    AP_MODULE_FLAG_NONE
};
