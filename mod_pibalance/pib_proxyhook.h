/* pib_proxyhook.h -- mod_proxy's exported (non-optional) hooks, without a
 * link-time dependency on mod_proxy. */
#ifndef PIB_PROXYHOOK_H
#define PIB_PROXYHOOK_H

#include "httpd.h"
#include "mod_proxy.h"

/* Asks for fn on mod_proxy's scheme_handler hook at the given order.  Call
 * once per configuration cycle, from register_hooks: the hook is added in
 * pre_config, once every module is loaded, whatever the LoadModule order.
 * Without mod_proxy nothing is added (post_config refuses to start). */
void pib_proxyhook_scheme(proxy_HOOK_scheme_handler_t *fn, int order);

#endif /* PIB_PROXYHOOK_H */
