/* pib_proxyhook.c -- registers on mod_proxy's scheme_handler hook without
 * calling proxy_hook_scheme_handler() from register_hooks.
 *
 * Why: Debian's apache2.conf loads the mods-enabled .load files in name order, so
 * pibalance.load comes before proxy.load.  A direct call is an undefined
 * symbol when mod_pibalance.so is loaded (it is linked with -z now, and
 * register_hooks runs at LoadModule time), and `apache2ctl -t` fails with
 * "undefined symbol: proxy_hook_scheme_handler".  The optional hooks
 * (fixups, request_status) have no such problem: they go through APR's
 * registry by name.  scheme_handler is an exported hook: we look its
 * registration function up with dlsym in pre_config, when every module is
 * loaded (LoadModule uses RTLD_GLOBAL), and httpd sorts the hooks again
 * after pre_config, so the order asked for holds.  mod_pistats does the
 * same (pis_track.c).  build/install-test.sh loads the modules in Debian's
 * order.
 */
#include <dlfcn.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "mod_proxy.h"

#include "pib_log.h"
#include "pib_proxyhook.h"

APLOG_USE_MODULE(pibalance);

typedef void pib_hook_scheme_fn(proxy_HOOK_scheme_handler_t *pf,
                                const char * const *pre,
                                const char * const *succ, int order);

/* Set from register_hooks, read in pre_config of the same cycle: both run
 * in the parent, before any child exists. */
static proxy_HOOK_scheme_handler_t *scheme_fn;
static int scheme_order;

static int proxyhook_pre_config(apr_pool_t *pconf, apr_pool_t *plog,
                                apr_pool_t *ptemp)
{
    pib_hook_scheme_fn *hook;

    (void)pconf;
    (void)plog;
    (void)ptemp;
    if (scheme_fn == NULL
        || ap_find_linked_module("mod_proxy.c") == NULL) {
        return OK;                  /* post_config names the missing module */
    }
    *(void **)&hook = dlsym(RTLD_DEFAULT, "proxy_hook_scheme_handler");
    if (hook == NULL) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, NULL, PIBLOGNO(11000)
                     "mod_proxy is loaded but proxy_hook_scheme_handler"
                     " is not found: mod_proxy too old?");
        return !OK;
    }
    hook(scheme_fn, NULL, NULL, scheme_order);
    return OK;
}

void pib_proxyhook_scheme(proxy_HOOK_scheme_handler_t *fn, int order)
{
    scheme_fn = fn;
    scheme_order = order;
    ap_hook_pre_config(proxyhook_pre_config, NULL, NULL,
                       APR_HOOK_REALLY_FIRST);
}
