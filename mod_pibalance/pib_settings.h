/* pib_settings.h -- mod_pibalance's side of pib_get_balancer_settings
 * (include/pi_api.h): what decides a member's fate, for /pi-status. */
#ifndef PIB_SETTINGS_H
#define PIB_SETTINGS_H

#include "httpd.h"

/* register_hooks: offers the optional function. */
void pib_settings_register(apr_pool_t *p);

#endif /* PIB_SETTINGS_H */
