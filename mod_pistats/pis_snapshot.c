/* pis_snapshot.c -- copies shared memory and configuration into a
 * pis_snap, once per /pi-status request; the renderers work from that.
 *
 * Uses only mod_proxy's headers (struct layouts and flag macros), none of
 * its functions, so mod_pistats loads without mod_proxy.
 */
#include "httpd.h"
#include "http_config.h"
#include "apr_strings.h"
#include "mod_proxy.h"

#include "pis_config.h"
#include "pis_energy.h"
#include "pis_event_shm.h"
#include "pis_probe.h"
#include "pis_render.h"
#include "pis_public.h"
#include "pis_shm.h"
#include "pis_snapshot.h"

/* mod_proxy's member flags as balancer-manager abbreviates them. */
static const char *worker_state(apr_pool_t *p, const proxy_worker *w)
{
    static const struct { unsigned int bit; const char *name; } flags[] = {
        { PROXY_WORKER_IGNORE_ERRORS, "Ign" },
        { PROXY_WORKER_DRAIN, "Drn" },
        { PROXY_WORKER_DISABLED, "Dis" },
        { PROXY_WORKER_STOPPED, "Stop" },
        { PROXY_WORKER_IN_ERROR, "Err" },
        { PROXY_WORKER_HOT_STANDBY, "Stby" },
        { PROXY_WORKER_HOT_SPARE, "Spar" },
        { PROXY_WORKER_HC_FAIL, "HcFl" },
    };
    const char *out = PROXY_WORKER_IS_USABLE(w) ? "Ok" : "";
    size_t i;

    for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        if (w->s->status & flags[i].bit) {
            out = *out ? apr_pstrcat(p, out, " ", flags[i].name, NULL)
                       : flags[i].name;
        }
    }
    return *out ? out : "-";
}

static void fill_traffic(pis_member_snap *m, const pis_slot *sl,
                         uint32_t now_s)
{
    uint64_t recent[PIS_HIST_BUCKETS];
    unsigned i;

    m->inflight = pis_slot_inflight(sl);
    m->requests = pi_ctr_read(&sl->requests);
    for (i = 0; i < 5; i++) {
        m->status_class[i] = pi_ctr_read(&sl->status_class[i]);
    }
    m->proxy_errors = pi_ctr_read(&sl->proxy_errors);
    m->client_errors = pi_ctr_read(&sl->client_errors);
    m->bytes_in = pi_ctr_read(&sl->bytes_in);
    m->bytes_out = pi_ctr_read(&sl->bytes_out);
    m->rate1 = pis_slot_rate(sl, now_s, 1);
    m->rate10 = pis_slot_rate(sl, now_s, 10);
    m->rate60 = pis_slot_rate(sl, now_s, 60);
    pis_slot_recent_hist(sl, now_s, 60, recent);
    m->p50_us = pis_hist_quantile(recent, PIS_HIST_BUCKETS, 0.50);
    m->p95_us = pis_hist_quantile(recent, PIS_HIST_BUCKETS, 0.95);
    m->p99_us = pis_hist_quantile(recent, PIS_HIST_BUCKETS, 0.99);
    m->ewma_us = pis_slot_ewma(sl);
    m->hist_count = 0;
    for (i = 0; i < PIS_HIST_BUCKETS; i++) {
        m->hist[i] = pi_ctr_read(&sl->hist[i]);
        m->hist_count += m->hist[i];
    }
    m->hist_sum_us = (double)pi_ctr_read(&sl->hist_sum_us);
}

static void fill_telemetry(apr_pool_t *p, pis_member_snap *m,
                           const pis_slot *sl, double interval_s)
{
    pis_tel_shm tel;
    uint32_t now_ms = pi_now_ms();

    pis_slot_tel_read(sl, &tel);
    m->probed = pis_probe_active();
    m->tel = tel.t;
    m->tel_age_s = pis_tel_age_s(&tel, now_ms);
    m->tel_stale = pis_tel_stale(m->tel_age_s, interval_s);
    m->probe_error = tel.error[0] ? apr_pstrdup(p, tel.error) : NULL;
    if (!tel.has_any) {
        memset(&m->tel, 0, sizeof(m->tel));
    }
    m->severity = (pis_severity)pis_severity_of(&m->tel, m->tel_stale);
    pis_slot_history(sl, pi_now_s(), PIS_HISTORY_S,
                     (unsigned)(PIS_TEL_STALE_INTERVALS * interval_s + 0.5),
                     m->req_hist,
                     m->temp_hist);
}

/* Member w of balancer b (or, w NULL, the member named `added` that a
 * slot holds, added at run time) into m. */
static void fill_member(request_rec *r, server_rec *s, pis_member_snap *m,
                        proxy_balancer *b, proxy_worker *w,
                        const char *added, const pis_slot *sl,
                        double interval_s)
{
    memset(m, 0, sizeof(*m));
    m->name = w ? w->s->name_ex : apr_pstrdup(r->pool, added);
    m->route = w ? w->s->route : "";
    m->state = w ? worker_state(r->pool, w) : "added";
    m->usable = w ? PROXY_WORKER_IS_USABLE(w) : 1;
    m->lbfactor = w ? w->s->lbfactor : 100;
    m->p50_us = m->p95_us = m->p99_us = m->ewma_us = -1;
    m->tel_age_s = -1;
    if (w != NULL) {
        pis_fill_weight(s, b, w, m);
    }
    if (sl != NULL) {
        fill_traffic(m, sl, pi_now_s());
        fill_telemetry(r->pool, m, sl, interval_s);
    }
    else {
        int i;

        for (i = 0; i < PIS_HISTORY_S; i++) {
            m->temp_hist[i] = PIS_TEMP_NONE;
        }
    }
    pis_energy_snap(sl, pi_now_s(), m);
}

/* Slots of this balancer claimed at run time (balancer-manager) for
 * members this process has not seen, or by another generation (a
 * graceful restart under way).  Each key is read as a whole copy of one
 * owner's (pis_slot_key_copy): slots are claimed and rekeyed by other
 * processes while this walks them. */
static void add_runtime_members(request_rec *r, server_rec *s,
                                proxy_balancer *b,
                                apr_array_header_t *members,
                                double interval_s)
{
    pis_table *t = pis_shm_table();
    const char *prefix;
    size_t plen;
    unsigned i;
    int j;

    prefix = pis_shm_prefix(r->pool, s, b);
    plen = strlen(prefix);
    for (i = 0; i < t->capacity; i++) {
        char key[PIS_KEY_MAX];
        uint32_t owner;
        int seen = 0;

        if (pis_slot_key_copy(t, i, key, sizeof(key), &owner) != 0
            || strncmp(key, prefix, plen) != 0 || key[plen] == '\0') {
            continue;
        }
        for (j = 0; j < members->nelts && !seen; j++) {
            seen = strcmp(APR_ARRAY_IDX(members, j, pis_member_snap).name,
                          key + plen) == 0;
        }
        if (!seen) {
            fill_member(r, s, apr_array_push(members), b, NULL, key + plen,
                        pis_table_slot(t, i), interval_s);
        }
    }
}

static void fill_balancer(request_rec *r, server_rec *s, proxy_balancer *b,
                          pis_balancer_snap *bs)
{
    apr_array_header_t *members = apr_array_make(r->pool, 8,
                                                 sizeof(pis_member_snap));
    double interval_s = (double)pis_conf_probe_interval(pis_srv(s))
                        / APR_USEC_PER_SEC;
    apr_port_t port;
    int i;

    bs->name = b->s->name;
    port = s->port ? s->port : s->addrs ? s->addrs->host_port : 0;
    bs->vhost = port ? apr_psprintf(r->pool, "%s:%u", s->server_hostname,
                                    (unsigned)port)
                     : s->server_hostname;
    bs->lbmethod = b->s->lbpname[0] ? b->s->lbpname
                   : b->lbmethod ? b->lbmethod->name : "";
    for (i = 0; i < b->workers->nelts; i++) {
        proxy_worker *w = APR_ARRAY_IDX(b->workers, i, proxy_worker *);

        fill_member(r, s, apr_array_push(members), b, w, NULL,
                    pis_shm_slot(r->pool, s, b, w), interval_s);
    }
    pis_fill_settings(s, b, bs);
    if (pis_shm_table() != NULL) {
        add_runtime_members(r, s, b, members, interval_s);
    }
    bs->nmembers = (unsigned)members->nelts;
    bs->members = (pis_member_snap *)members->elts;
    pis_energy_totals(bs);
}

/* Does the page of server `here` show the balancers of server s?  Its
 * own (a virtual host's page shows that host's balancers); the main
 * server's page shows every server's.  A node's virtual host has none. */
static int shown_from(server_rec *here, server_rec *s)
{
    return here == s || !here->is_virtual;
}

void pis_snapshot(request_rec *r, const pis_telemetry *self, pis_snap *snap)
{
    apr_array_header_t *bal = apr_array_make(r->pool, 4,
                                             sizeof(pis_balancer_snap));
    pis_table *t = pis_shm_table();
    server_rec *s;

    memset(snap, 0, sizeof(*snap));
    snap->self = *self;
    snap->server_version = ap_get_server_banner();
    snap->now = (double)apr_time_now() / APR_USEC_PER_SEC;
    snap->uptime_s = t ? pi_mono_s() - t->start_s : 0;
    snap->probe_interval_s = pis_probe_active()
        ? (double)pis_conf_probe_interval(pis_srv(r->server))
          / APR_USEC_PER_SEC : 0;
    snap->deflate_state = pis_deflate_state(r->pool);
    pis_deflate_counts(snap);
    pis_deflate_adaptive(snap);
    if (ap_find_linked_module("mod_proxy.c") != NULL) {
        for (s = ap_server_conf; s != NULL; s = s->next) {
            if (!shown_from(r->server, s)) {
                continue;
            }
            proxy_server_conf *pc = pis_proxy_conf(s);
            int i;

            for (i = 0; pc != NULL && i < pc->balancers->nelts; i++) {
                proxy_balancer *b = &APR_ARRAY_IDX(pc->balancers, i,
                                                   proxy_balancer);

                if (!pis_shm_inherited(s, b)) {
                    fill_balancer(r, s, b, apr_array_push(bal));
                }
            }
        }
    }
    if (pis_events_ring() != NULL) {
        pis_event *ev = apr_palloc(r->pool, PIS_EVENT_N * sizeof(*ev));

        snap->nevents = pis_event_recent(pis_events_ring(), ev,
                                         PIS_EVENT_N);
        snap->events = ev;
    }
    snap->nbalancers = (unsigned)bal->nelts;
    snap->balancers = (pis_balancer_snap *)bal->elts;
    pis_snap_mark_shared(snap);
}
