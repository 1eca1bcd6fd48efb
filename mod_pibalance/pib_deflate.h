/* pib_deflate.h -- the PIB_DEFLATE output filter (gzip on the master). */
#ifndef PIB_DEFLATE_H
#define PIB_DEFLATE_H

#include "httpd.h"

#define PIB_DEFLATE_FILTER "PIB_DEFLATE"

/* Registers the filter and the insert_filter hook. */
void pib_deflate_register(apr_pool_t *p);

#endif /* PIB_DEFLATE_H */
