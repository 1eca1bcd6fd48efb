/* pis_event_shm.h -- the ring of recent events (pis_event.h) in its own
 * small shared segment, and pis_post_event (include/pi_api.h). */
#ifndef PIS_EVENT_SHM_H
#define PIS_EVENT_SHM_H

#include "httpd.h"

#include "pis_event.h"

/* post_config (parent): attaches to the segment a graceful restart kept,
 * or makes it.  Without it, events are not kept (logged once). */
void pis_events_setup(server_rec *s);

/* The ring, or NULL. */
pis_event_ring *pis_events_ring(void);

/* register_hooks: offers pis_post_event. */
void pis_events_register(void);

#endif /* PIS_EVENT_SHM_H */
