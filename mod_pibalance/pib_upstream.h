/* pib_upstream.h -- what the node receives: no Accept-Encoding, ETags
 * without our "-gzip" suffix. */
#ifndef PIB_UPSTREAM_H
#define PIB_UPSTREAM_H

#include "httpd.h"
#include "pib_ae.h"

/* Note set when an If-None-Match or If-Match tag lost its "-gzip". */
#define PIB_NOTE_UNSUFFIXED "pibalance-deflate-unsuffixed"

/* Registers mod_proxy's fixups, scheme_handler and request_status hooks. */
void pib_upstream_register(apr_pool_t *p);

/* Feeds the client's Accept-Encoding lines into *ae: the request's own,
 * or the copy kept while they were removed for an ajp:// or fcgi://
 * member. */
void pib_client_ae(request_rec *r, pib_ae *ae);

/* The client's value of request header name (the first line), even while
 * it is held back from an ajp:// or fcgi:// member; NULL when absent. */
const char *pib_client_header(request_rec *r, const char *name);

#endif /* PIB_UPSTREAM_H */
