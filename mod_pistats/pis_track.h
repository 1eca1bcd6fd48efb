/* pis_track.h -- per-request tracking of balancer members. */
#ifndef PIS_TRACK_H
#define PIS_TRACK_H

#include "httpd.h"

/* register_hooks: the hooks that need no symbol of mod_proxy. */
void pis_track_register(apr_pool_t *p);

/* pre_config: hooks into mod_proxy's scheme_handler, found at run time
 * so mod_pistats loads without mod_proxy (on a node). */
void pis_track_pre_config(apr_pool_t *pconf);

#endif /* PIS_TRACK_H */
