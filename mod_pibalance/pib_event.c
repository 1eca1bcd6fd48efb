/* pib_event.c -- mod_pibalance's side of pis_post_event (pib_event.h).
 * Without mod_pistats the events are only in the error log. */
#include "httpd.h"

#include "pi_api.h"
#include "pib_event.h"

static APR_OPTIONAL_FN_TYPE(pis_post_event) *post_fn;

void pib_event_bind(void)
{
    post_fn = APR_RETRIEVE_OPTIONAL_FN(pis_post_event);
}

void pib_event(int kind, const char *balancer, const char *member,
               int has_temp, int temp_dc, const char *detail)
{
    pi_event ev;

    if (post_fn == NULL) {
        return;
    }
    memset(&ev, 0, sizeof(ev));
    PI_STAMP_INIT(&ev, PI_EVENT_VERSION);
    ev.kind = kind;
    ev.has_temp = has_temp;
    ev.temp_dc = temp_dc;
    ev.balancer = balancer;
    ev.member = member;
    ev.detail = detail;
    (void)post_fn(&ev);
}
