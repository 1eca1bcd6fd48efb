/* pib_settings.c -- the settings of a balancer that uses lbmethod "pi",
 * for /pi-status (pib_get_balancer_settings, include/pi_api.h).
 *
 * The thermal settings are pib_lbconf_resolve()'s, the same the finder
 * uses.  The offload's are those of the balancer's <Proxy> section over
 * its server's: a <Location> that sets PiBalanceDeflate* for some URLs
 * only is not shown (a balancer has no one level then).  Cost: a few
 * table looks, no allocation, no lock.
 */
#include "httpd.h"
#include "http_config.h"
#include "mod_proxy.h"

#include "pi_api.h"
#include "pib_adapt_glue.h"
#include "pib_deflate_conf.h"
#include "pib_lbconf.h"
#include "pib_settings.h"
#include "pib_state.h"

extern module AP_MODULE_DECLARE_DATA pibalance_module;

/* The offload at b: its section's value where set, else the server's. */
static void deflate_of(server_rec *s, proxy_balancer *b,
                       pi_balancer_settings *out)
{
    const pib_dir_conf *srv = ap_get_module_config(s->lookup_defaults,
                                                   &pibalance_module);
    ap_conf_vector_t *v = pib_state_section(b);
    const pib_dir_conf *sec = v ? ap_get_module_config(v, &pibalance_module)
                                : NULL;
    int on = PIB_UNSET, level = PIB_UNSET;

    if (sec != NULL) {
        on = sec->deflate.enabled;
        level = sec->deflate.level;
    }
    if (srv != NULL) {
        on = on != PIB_UNSET ? on : srv->deflate.enabled;
        level = level != PIB_UNSET ? level : srv->deflate.level;
    }
    out->deflate_on = on > 0;
    out->deflate_level = level != PIB_UNSET ? level : PIB_DEFLATE_LEVEL;
    out->deflate_level_now = out->deflate_on
        ? pib_adapt_level_now(out->deflate_level, s) : 0;
}

static int get_settings(server_rec *s, proxy_balancer *b,
                        pi_balancer_settings *out)
{
    pib_tuning t;

    if (!PI_STAMP_OK(out, PI_BALANCER_SETTINGS_VERSION)
        || b->lbmethod == NULL || strcmp(b->lbmethod->name, "pi") != 0) {
        return -1;
    }
    pib_lbconf_resolve(s, b, &t);
    out->soft_dc = t.soft_dc;
    out->hard_dc = t.hard_dc;
    out->hyst_dc = t.hyst_dc;
    out->floor = t.floor;
    out->throttle_factor = t.throttle_factor;
    out->slowstart_s = t.slowstart_s;
    out->decay_s = t.decay_s;
    deflate_of(s, b, out);
    return 0;
}

void pib_settings_register(apr_pool_t *p)
{
    APR_OPTIONAL_FN_TYPE(pib_get_balancer_settings) *fn = get_settings;

    (void)p;
    apr_dynamic_fn_register("pib_get_balancer_settings",
                            (apr_opt_fn_t *)fn);
}
