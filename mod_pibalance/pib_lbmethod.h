/* pib_lbmethod.h -- the lbmethod provider "pi" for mod_proxy_balancer. */
#ifndef PIB_LBMETHOD_H
#define PIB_LBMETHOD_H

#include "httpd.h"
#include "mod_proxy.h"

/* The provider registered under PROXY_LBMETHOD as "pi". */
extern const proxy_balancer_method pib_lbmethod;

/* Fetches mod_proxy's get_best_worker helper.  Call from post_config
 * (not the pre-config pass).  Returns 0 when mod_proxy is missing. */
int pib_lbmethod_bind(void);

/* register_hooks: the response-time hook and the optional function
 * mod_pistats reads effective weights through. */
void pib_lbmethod_register(apr_pool_t *p);

#endif /* PIB_LBMETHOD_H */
