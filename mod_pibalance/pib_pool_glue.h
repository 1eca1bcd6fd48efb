/* pib_pool_glue.h -- the life of a child's compressor pools
 * (pib_pool_glue.c). */
#ifndef PIB_POOL_GLUE_H
#define PIB_POOL_GLUE_H

#include "httpd.h"

/* register_hooks: sizes the pools at child start, drains them at exit. */
void pib_pool_register(apr_pool_t *p);

#endif /* PIB_POOL_GLUE_H */
