/* pis_public.c -- mod_pistats' side of the optional functions between
 * the two modules (include/pi_api.h, pis_public.h). */
#include "httpd.h"
#include "http_config.h"
#include "apr_strings.h"

#include "pi_answer.h"
#include "pi_bodyin.h"
#include "pis_config.h"
#include "pis_energy.h"
#include "pis_public.h"
#include "pis_shm.h"
#include "pis_snapshot.h"

#define PIS_STAMP_FILTER "PISTATS_ANSWERED_CONN"
#define PIS_BODYIN_FILTER "PISTATS_BODY_IN"

static APR_OPTIONAL_FN_TYPE(pib_get_member_weight) *get_weight;
static APR_OPTIONAL_FN_TYPE(pib_deflate_state) *get_deflate;
static APR_OPTIONAL_FN_TYPE(pib_deflate_counters) *get_counts;
static APR_OPTIONAL_FN_TYPE(pib_watch_upgrade_answer) *watch_answer;
static APR_OPTIONAL_FN_TYPE(pib_watch_body) *watch_body;
static APR_OPTIONAL_FN_TYPE(pib_body_state) *body_state;
static APR_OPTIONAL_FN_TYPE(pib_get_balancer_settings) *get_settings;

/* Version 3's energy fields (a few loads of the slot, no loop). */
static void member_energy(const pis_slot *sl, const pis_tel_shm *tel,
                          pi_member_tel *out)
{
    pis_energy_view v;

    pis_energy_read(sl, &v);
    out->has_power = tel->has_any && tel->t.has_power;
    out->power_mw = out->has_power ? tel->t.power_mw : 0;
    out->has_jpr = v.has_jpr && !out->stale;
    out->jpr_j = out->has_jpr ? v.jpr_j : 0;
    out->jpr_above_idle_j = out->has_jpr ? v.jpr_above_idle_j : 0;
    out->jpr_requests = out->has_jpr ? (unsigned long)v.window_requests : 0;
}

static int get_member_tel(server_rec *s, proxy_balancer *b,
                          proxy_worker *w, pi_member_tel *out)
{
    pis_slot *sl;
    pis_tel_shm tel;
    /* b is probed at its owner's interval (the main server's, for a
     * balancer s inherited): staleness is judged by that one. */
    apr_interval_time_t interval
        = pis_conf_probe_interval(pis_srv(pis_shm_owner(s, b)));
    double interval_s = (double)interval / APR_USEC_PER_SEC;

    if (!PI_STAMP_OK(out, PI_MEMBER_TEL_VERSION)
        || (sl = pis_shm_slot(NULL, s, b, w)) == NULL) {
        return -1;
    }
    pis_slot_tel_read(sl, &tel);
    out->stale = pis_tel_stale(pis_tel_age_s(&tel, pi_now_ms()),
                               interval_s);
    if (!tel.has_any) {
        memset(&tel.t, 0, sizeof(tel.t));
    }
    out->has_temp = tel.t.has_temp;
    out->temp_dc = tel.t.temp_dc;
    out->has_throttled = tel.t.has_throttled;
    out->throttled = tel.t.throttled;
    out->has_cpus = tel.t.has_cpus;
    out->cpus = tel.t.cpus;
    out->has_busy = tel.t.has_busy;
    out->busy = tel.t.busy;
    out->own_inflight = tel.own_inflight;
    out->age_ms = tel.has_any ? (long)pi_age_ms(pi_now_ms(), tel.ok_ms)
                              : -1;
    out->interval_ms = (long)(interval / 1000);
    member_energy(sl, &tel, out);
    return 0;
}

void pis_public_register(void)
{
    APR_OPTIONAL_FN_TYPE(pis_get_member_tel) *fn = get_member_tel;

    apr_dynamic_fn_register("pis_get_member_tel", (apr_opt_fn_t *)fn);
    pi_answer_register(PIS_STAMP_FILTER);
    pi_bodyin_register(PIS_BODYIN_FILTER);
}

/* post_config: look up what mod_pibalance offers (NULL without it). */
void pis_public_bind(void)
{
    get_weight = APR_RETRIEVE_OPTIONAL_FN(pib_get_member_weight);
    get_deflate = APR_RETRIEVE_OPTIONAL_FN(pib_deflate_state);
    get_counts = APR_RETRIEVE_OPTIONAL_FN(pib_deflate_counters);
    watch_answer = APR_RETRIEVE_OPTIONAL_FN(pib_watch_upgrade_answer);
    watch_body = APR_RETRIEVE_OPTIONAL_FN(pib_watch_body);
    body_state = APR_RETRIEVE_OPTIONAL_FN(pib_body_state);
    get_settings = APR_RETRIEVE_OPTIONAL_FN(pib_get_balancer_settings);
}

int pis_watch_upgrade_answer(request_rec *r, pi_answer_fn *fn, void *baton)
{
    return watch_answer != NULL ? watch_answer(r, fn, baton)
                                : pi_answer_watch(r, fn, baton);
}

int pis_watch_body(request_rec *r, pi_bodyin_fn *fn, void *baton)
{
    return watch_body != NULL ? watch_body(r, fn, baton)
                              : pi_bodyin_watch(r, fn, baton);
}

void pis_body_state(request_rec *r, apr_interval_time_t *client_wait,
                    int *client_failed)
{
    if (body_state != NULL) {
        body_state(r, client_wait, client_failed);
    }
    else {
        pi_bodyin_state(r, client_wait, client_failed);
    }
}

void pis_fill_weight(server_rec *s, proxy_balancer *b, proxy_worker *w,
                     pis_member_snap *m)
{
    pi_member_weight mw;

    PI_STAMP_INIT(&mw, PI_MEMBER_WEIGHT_VERSION);
    if (get_weight != NULL && get_weight(s, b, w, &mw) == 0) {
        m->has_weight = 1;
        m->weight = mw.weight;
        m->thermal_state = mw.state ? mw.state : "";
        m->estimate_us = mw.estimate_us;
        m->last_failed = mw.last_failed;
    }
}

/* "full", "reduced (adaptive: CPU 97%, 71.2 C)", "off (adaptive: ...)",
 * or NULL without mod_pibalance. */
const char *pis_deflate_state(apr_pool_t *p)
{
    pi_deflate_state st;
    char cpu[16] = "unknown", temp[24] = "unknown";

    memset(&st, 0, sizeof(st));
    PI_STAMP_INIT(&st, PI_DEFLATE_STATE_VERSION);
    if (get_deflate == NULL || get_deflate(&st) != 0) {
        return NULL;
    }
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
    pi_deflate_counts c;
    int k;

    memset(&c, 0, sizeof(c));
    PI_STAMP_INIT(&c, PI_DEFLATE_COUNTS_VERSION);
    if (get_counts == NULL || get_counts(&c) != 0) {
        return;
    }
    snap->has_deflate_counts = 1;
    snap->deflate_one_pass = c.one_pass;
    snap->deflate_streamed = c.streamed;
    snap->deflate_trickled = c.trickled;
    snap->deflate_waits = c.compressor_waits;
    snap->cache_hits = c.cache_hits;
    snap->cache_misses = c.cache_misses;
    snap->cache_revalidated = c.cache_revalidated;
    snap->cache_bytes_saved = c.cache_bytes_saved;
    snap->ncodings = 0;
    for (k = 0; k < (int)c.ncodings && k < PI_CODINGS_MAX
                && k < PIS_NCODINGS_MAX; k++) {
        if (c.coding_name[k] == NULL) {
            break;
        }
        snap->ncodings++;
        snap->coding_name[k] = c.coding_name[k];
        snap->deflate_coding[k][0] = c.coding_responses[k];
        snap->deflate_coding[k][1] = c.coding_bytes_in[k];
        snap->deflate_coding[k][2] = c.coding_bytes_out[k];
    }
}

void pis_fill_settings(server_rec *s, proxy_balancer *b,
                       pis_balancer_snap *bs)
{
    pi_balancer_settings st;

    memset(&st, 0, sizeof(st));
    PI_STAMP_INIT(&st, PI_BALANCER_SETTINGS_VERSION);
    bs->has_settings = 0;
    if (get_settings == NULL || get_settings(s, b, &st) != 0) {
        return;
    }
    bs->has_settings = 1;
    bs->soft_dc = st.soft_dc;
    bs->hard_dc = st.hard_dc;
    bs->hyst_dc = st.hyst_dc;
    bs->floor = st.floor;
    bs->throttle_factor = st.throttle_factor;
    bs->slowstart_s = st.slowstart_s;
    bs->decay_s = st.decay_s;
    bs->deflate_on = st.deflate_on;
    bs->deflate_level = st.deflate_level;
    bs->deflate_level_now = st.deflate_level_now;
}

void pis_deflate_adaptive(pis_snap *snap)
{
    pi_deflate_state st;

    memset(&st, 0, sizeof(st));
    PI_STAMP_INIT(&st, PI_DEFLATE_STATE_VERSION);
    if (get_deflate == NULL || get_deflate(&st) != 0) {
        return;
    }
    snap->has_adaptive = 1;
    snap->adaptive_on = st.adaptive;
    snap->adaptive_name = st.name ? st.name : "full";
    snap->adaptive_changes = st.changes;
}
