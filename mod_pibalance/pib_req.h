/* pib_req.h -- mod_pibalance's per-request record: the one slot a module
 * has in r->request_config, shared by its parts. */
#ifndef PIB_REQ_H
#define PIB_REQ_H

#include "httpd.h"

typedef struct {
    void *upstream;        /* pib_upstream.c: headers kept from the node */
    void *attempt;         /* pib_attempt.c: the member being timed */
    void *resolved;        /* pib_config.c: the offload's settings */
} pib_req;

/* The request's record; NULL when none exists and create is 0. */
pib_req *pib_req_get(request_rec *r, int create);

#endif /* PIB_REQ_H */
