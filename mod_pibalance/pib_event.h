/* pib_event.h -- posts mod_pibalance's state changes to mod_pistats'
 * recent events (pis_post_event, include/pi_api.h), when it is loaded. */
#ifndef PIB_EVENT_H
#define PIB_EVENT_H

/* post_config: looks pis_post_event up (NULL without mod_pistats). */
void pib_event_bind(void);

/* One event (PI_EVENT_*): balancer and member may be NULL (the
 * offload), temp_dc counts only with has_temp, detail may be NULL.
 * Lock-free and cheap: called where the change is logged, once. */
void pib_event(int kind, const char *balancer, const char *member,
               int has_temp, int temp_dc, const char *detail);

#endif /* PIB_EVENT_H */
