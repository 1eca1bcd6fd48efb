/* pis_public.c -- the optional functions between mod_pistats and
 * mod_pibalance (see pis_public.h). */
#include "httpd.h"
#include "http_config.h"
#include "apr_strings.h"

#include "pis_config.h"
#include "pis_public.h"
#include "pis_shm.h"
#include "pis_snapshot.h"
#include "pib_public.h"

static APR_OPTIONAL_FN_TYPE(pib_get_member_weight) *get_weight;
static APR_OPTIONAL_FN_TYPE(pib_deflate_state) *get_deflate;
static APR_OPTIONAL_FN_TYPE(pib_deflate_counters) *get_counts;

static int get_member_info(server_rec *s, proxy_balancer *b,
                           proxy_worker *w, pis_member_info *out)
{
    pis_slot *sl = pis_shm_slot(NULL, s, b, w);
    pis_tel_shm tel;
    double interval_s = (double)pis_conf_probe_interval(pis_srv(s))
                        / APR_USEC_PER_SEC;

    if (sl == NULL) {
        return -1;
    }
    pis_slot_tel_read(sl, &tel);
    out->tel = tel.t;
    out->tel_age_s = tel.has_any
        ? (double)(uint32_t)(pis_now_ms() - tel.ok_ms) / 1000.0 : -1.0;
    out->tel_stale = !tel.has_any || out->tel_age_s > 3 * interval_s;
    if (!tel.has_any) {
        memset(&out->tel, 0, sizeof(out->tel));
    }
    out->ewma_us = pis_slot_ewma(sl);
    out->last_us = -1;
    out->inflight = pis_slot_inflight(sl);
    out->requests = (unsigned long)pis_ctr_read(&sl->requests);
    return 0;
}

void pis_public_register(void)
{
    APR_OPTIONAL_FN_TYPE(pis_get_member_info) *fn = get_member_info;

    apr_dynamic_fn_register("pis_get_member_info", (apr_opt_fn_t *)fn);
}

/* post_config: look up what mod_pibalance offers (NULL without it). */
void pis_public_bind(void)
{
    get_weight = APR_RETRIEVE_OPTIONAL_FN(pib_get_member_weight);
    get_deflate = APR_RETRIEVE_OPTIONAL_FN(pib_deflate_state);
    get_counts = APR_RETRIEVE_OPTIONAL_FN(pib_deflate_counters);
}

void pis_fill_weight(request_rec *r, proxy_balancer *b, proxy_worker *w,
                     pis_member_snap *m)
{
    double weight;
    const char *state = NULL;

    if (get_weight != NULL
        && get_weight(r->server, b, w, &weight, &state) == 0) {
        m->has_weight = 1;
        m->weight = weight;
        m->thermal_state = state ? state : "";
    }
}

/* "full", "reduced (adaptive: CPU 97%, 71.2 C)", "off (adaptive: ...)",
 * or NULL without mod_pibalance. */
const char *pis_deflate_state(apr_pool_t *p)
{
    pib_deflate_status st;
    char cpu[16] = "unknown", temp[24] = "unknown";

    if (get_deflate == NULL) {
        return NULL;
    }
    memset(&st, 0, sizeof(st));
    get_deflate(&st);
    if (!st.adaptive) {
        return st.name ? st.name : "full";
    }
    if (st.cpu_busy_pct >= 0) {
        apr_snprintf(cpu, sizeof(cpu), "%d%%", st.cpu_busy_pct);
    }
    if (st.temp_mc >= 0) {
        apr_snprintf(temp, sizeof(temp), "%d.%d C", st.temp_mc / 1000,
                     st.temp_mc % 1000 / 100);
    }
    return apr_psprintf(p, "%s (adaptive: master CPU %s, %s, %u changes)",
                        st.name ? st.name : "?", cpu, temp, st.changes);
}

void pis_deflate_counts(pis_snap *snap)
{
    pib_deflate_counts c;

    if (get_counts == NULL) {
        return;
    }
    memset(&c, 0, sizeof(c));
    get_counts(&c);
    snap->has_deflate_counts = 1;
    snap->deflate_one_pass = c.one_pass;
    snap->deflate_streamed = c.streamed;
    snap->deflate_trickled = c.trickled;
    snap->deflate_waits = c.compressor_waits;
}
