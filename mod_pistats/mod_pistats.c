/* mod_pistats.c -- module wiring: directives, the pi-status handler and
 * its per-process cache.  Telemetry is in pis_sensor.c, rendering in
 * pis_render.c, the handler in pis_handler.c. */
#include "httpd.h"
#include "http_config.h"
#include "http_protocol.h"

#include "pis_config.h"
#include "pis_handler.h"

static void pis_child_init(apr_pool_t *pchild, server_rec *s)
{
    pis_handler_child_init(pchild, s);
}

static void pis_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_handler(pis_handler, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(pis_child_init, NULL, NULL, APR_HOOK_MIDDLE);
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
