/* pis_handler.h -- the pi-status handler. */
#ifndef PIS_HANDLER_H
#define PIS_HANDLER_H

#include "httpd.h"

/* The handler for "SetHandler pi-status". */
int pis_handler(request_rec *r);

/* mod_status' hook: a summary line per member in server-status. */
int pis_status_hook(request_rec *r, int flags);

#endif /* PIS_HANDLER_H */
