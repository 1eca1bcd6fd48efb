/* mod_pistats.c -- module wiring.  Telemetry: pis_sensor.c (this node),
 * pis_telemetry.c (the text a node serves); per-member
 * statistics: pis_slot.c in shared memory (pis_shm.c), fed by the request
 * hooks (pis_track.c) and the probe (pis_probe.c); the page: snapshot
 * (pis_snapshot.c), then render (pis_render*.c), in pis_handler.c. */
#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_protocol.h"
#include "mod_status.h"

#include "pis_config.h"
#include "pis_event_shm.h"
#include "pis_handler.h"
#include "pis_log.h"
#include "pis_power_watch.h"
#include "pis_probe.h"
#include "pis_public.h"
#include "pis_shm.h"
#include "pis_track.h"

static int pis_pre_config(apr_pool_t *pconf, apr_pool_t *plog,
                          apr_pool_t *ptemp)
{
    (void)plog;
    (void)ptemp;
    pis_track_pre_config(pconf);
    return OK;
}

/* Cross-directive checks, also run by "httpd -t". */
static int pis_check_config(apr_pool_t *pconf, apr_pool_t *plog,
                            apr_pool_t *ptemp, server_rec *s)
{
    (void)pconf;
    (void)plog;
    if (pis_power_check_config(ptemp, s) != OK) {
        return !OK;
    }
    for (; s != NULL; s = s->next) {
        pis_srv_conf *c = pis_srv(s);

        if (pis_conf_probe_timeout(c) >= pis_conf_probe_interval(c)) {
            ap_log_error(APLOG_MARK, APLOG_EMERG, 0, s, PISLOGNO(10001)
                         "PiStatsProbeTimeout (%" APR_TIME_T_FMT " ms) must"
                         " be shorter than PiStatsProbeInterval (%"
                         APR_TIME_T_FMT " ms) in %s:%u",
                         apr_time_as_msec(pis_conf_probe_timeout(c)),
                         apr_time_as_msec(pis_conf_probe_interval(c)),
                         s->server_hostname ? s->server_hostname : "",
                         (unsigned)s->port);
            return !OK;
        }
    }
    return OK;
}

static int pis_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                           apr_pool_t *ptemp, server_rec *s)
{
    (void)plog;
    (void)ptemp;
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG) {
        return OK;
    }
    pis_public_bind();
    pis_power_setup(pconf, s);
    if (ap_find_linked_module("mod_proxy.c") == NULL) {
        return OK;                     /* a node: telemetry only */
    }
    pis_events_setup(s);
    if (pis_shm_setup(pconf, s, pis_conf_max_members(pis_srv(s)))
        != APR_SUCCESS) {
        return OK;                     /* logged; serve without stats */
    }
    return pis_probe_post_config(pconf, s);
}

static void pis_child_init(apr_pool_t *pchild, server_rec *s)
{
    pis_shm_child_init(pchild, s);
    pis_probe_child_init(pchild, s);
}

static void pis_register_hooks(apr_pool_t *p)
{
    static const char *const before_watchdog[] = { "mod_watchdog.c", NULL };
    static const char *const after_balancer[] = { "mod_proxy_balancer.c",
                                                  NULL };

    ap_hook_pre_config(pis_pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_check_config(pis_check_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(pis_post_config, after_balancer, before_watchdog,
                        APR_HOOK_LAST);
    /* before mod_watchdog starts the probe thread: the member index is
     * complete before a round reads it */
    ap_hook_child_init(pis_child_init, after_balancer, before_watchdog,
                       APR_HOOK_MIDDLE);
    ap_hook_handler(pis_handler, NULL, NULL, APR_HOOK_MIDDLE);
    APR_OPTIONAL_HOOK(ap, status_hook, pis_status_hook, NULL, NULL,
                      APR_HOOK_MIDDLE);
    pis_track_register(p);
    pis_public_register();
    pis_events_register();
}

AP_DECLARE_MODULE(pistats) = {
    STANDARD20_MODULE_STUFF,
    NULL,                       /* create per-directory config */
    NULL,                       /* merge per-directory config */
    pis_create_srv_conf,        /* create per-server config */
    pis_merge_srv_conf,         /* merge per-server config */
    pis_cmds,                   /* directives */
    pis_register_hooks,
    AP_MODULE_FLAG_NONE
};
