/* pis_event_shm.c -- the events ring's shared segment (pis_event_shm.h).
 *
 * Like the member table (pis_shm.c): anonymous, on the process pool, so
 * it is inherited by every child and outlives graceful restarts (recent
 * events stay on the page across a reload); found again through the
 * pool's user data.  A kept segment of another layout is replaced.
 * 16.4 KiB in all (PIS_EVENT_N entries).
 */
#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "apr_shm.h"

#include "pi_api.h"
#include "pi_clock.h"
#include "pis_event_shm.h"
#include "pis_log.h"

APLOG_USE_MODULE(pistats);

#define PIS_EVENTS_USERDATA "pistats-events-shm"

static pis_event_ring *ring;

pis_event_ring *pis_events_ring(void)
{
    return ring;
}

void pis_events_setup(server_rec *s)
{
    apr_pool_t *proc = s->process->pool;
    apr_shm_t *shm = NULL;
    apr_status_t rv;

    apr_pool_userdata_get((void **)&shm, PIS_EVENTS_USERDATA, proc);
    if (shm != NULL && apr_shm_size_get(shm) >= sizeof(pis_event_ring)
        && pis_event_ring_ok(apr_shm_baseaddr_get(shm))) {
        ring = apr_shm_baseaddr_get(shm);
        return;
    }
    ring = NULL;
    if (shm != NULL) {
        /* Kept by a graceful restart, of another layout (an upgrade of
         * mod_pistats.so): given up, as pis_shm.c gives up its table.
         * Children of the old generation keep their own mapping; the
         * memory goes with the last of them. */
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, PISLOGNO(12601)
                     "recent events of another layout: the list starts"
                     " again, empty");
        apr_pool_userdata_set(NULL, PIS_EVENTS_USERDATA,
                              apr_pool_cleanup_null, proc);
        apr_shm_destroy(shm);
    }
    rv = apr_shm_create(&shm, sizeof(pis_event_ring), NULL, proc);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, rv, s, PISLOGNO(12600)
                     "cannot create shared memory for recent events:"
                     " /pi-status shows none");
        return;
    }
    memset(apr_shm_baseaddr_get(shm), 0, sizeof(pis_event_ring));
    pis_event_ring_init(apr_shm_baseaddr_get(shm));
    apr_pool_userdata_set(shm, PIS_EVENTS_USERDATA, apr_pool_cleanup_null,
                          proc);
    ring = apr_shm_baseaddr_get(shm);
}

static int post_event(const pi_event *ev)
{
    pis_event e;
    apr_time_t now = apr_time_now();

    if (!PI_STAMP_OK(ev, PI_EVENT_VERSION) || ring == NULL
        || ev->kind <= PIS_EV_NONE || ev->kind >= PIS_EV_KINDS) {
        return -1;
    }
    pis_event_make(&e, ev->kind, (uint32_t)apr_time_sec(now),
                   (uint32_t)(apr_time_msec(now) % 1000),
                   ev->has_temp ? ev->temp_dc : PIS_EVENT_NO_TEMP,
                   ev->balancer, ev->member, ev->detail);
    pis_event_post(ring, &e);
    return 0;
}

void pis_events_register(void)
{
    APR_OPTIONAL_FN_TYPE(pis_post_event) *fn = post_event;

    apr_dynamic_fn_register("pis_post_event", (apr_opt_fn_t *)fn);
}
