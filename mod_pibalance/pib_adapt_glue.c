/* pib_adapt_glue.c -- samples the master's CPU (/proc/stat deltas) and
 * hottest thermal zone for PiBalanceDeflateAdaptive.
 *
 * The state lives in a small anonymous shared segment created in
 * post_config, so every child sees one state and a change is logged once.
 * The files are read by the helpers both modules share (common/:
 * pi_file.h, pi_thermal.h).
 * Sampling is lazy: the first request of a new second that wins a 32-bit
 * compare-and-swap on the segment's "last second" reads the files (a few
 * hundred bytes, no lock, never blocks other requests) and steps the pure
 * state machine in pib_adapt.c.  Only 32-bit atomics (ARMv6/v7 safe); the
 * jiffy counters are kept modulo 2^32 and only the CAS winner writes them.
 * Without the segment (creation failed) each process keeps its own state.
 */
#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "apr_atomic.h"
#include "apr_shm.h"

#include "pi_clock.h"
#include "pi_file.h"
#include "pi_thermal.h"
#include "pib_log.h"
#include "pib_public.h"
#include "pib_adapt.h"
#include "pib_adapt_glue.h"
#include "pib_event.h"
#include "pib_config.h"

APLOG_USE_MODULE(pibalance);

typedef struct {
    volatile apr_uint32_t last_sec;     /* CAS: who samples this second */
    volatile apr_uint32_t state;        /* pib_adapt_state */
    volatile apr_uint32_t busy_pct;     /* +1, 0 = unknown */
    volatile apr_uint32_t temp_mc;      /* +1, 0 = unknown */
    volatile apr_uint32_t changes;
    apr_uint32_t busy0, total0;         /* previous /proc/stat sample */
    apr_uint32_t have0;
} pib_adapt_shared;

static pib_adapt_shared pib_adapt_local;
static pib_adapt_shared *pib_adapt_st = &pib_adapt_local;

apr_status_t pib_adapt_init(apr_pool_t *pconf, server_rec *s)
{
    apr_shm_t *shm;
    apr_status_t rv;

    pib_adapt_st = &pib_adapt_local;
    memset(&pib_adapt_local, 0, sizeof(pib_adapt_local));
    if (!pib_conf_adapt()->on) {
        return APR_SUCCESS;
    }
    rv = apr_shm_create(&shm, sizeof(pib_adapt_shared), NULL, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, rv, s, PIBLOGNO(10110)
                     "PiBalanceDeflateAdaptive: no shared memory, each "
                     "child adapts on its own");
        return APR_SUCCESS;
    }
    pib_adapt_st = apr_shm_baseaddr_get(shm);
    memset(pib_adapt_st, 0, sizeof(*pib_adapt_st));
    return APR_SUCCESS;
}

static int pib_sample_cpu(const pib_adapt_conf *c)
{
    char buf[512];
    unsigned busy, total;
    int pct = -1;

    if (pi_read_file(c->stat_path, buf, sizeof(buf), PI_READ_HEAD) <= 0
        || pib_procstat_parse(buf, &busy, &total) != 0) {
        return -1;
    }
    if (pib_adapt_st->have0) {
        pct = pib_cpu_busy_pct(pib_adapt_st->busy0, pib_adapt_st->total0,
                               busy, total);
    }
    pib_adapt_st->busy0 = busy;
    pib_adapt_st->total0 = total;
    pib_adapt_st->have0 = 1;
    return pct;
}

/* The hottest zone of the master in millidegrees, -1 when none is
 * readable (or below 0 C: pib_adapt_step takes below 0 as unknown). */
static int pib_sample_temp(const pib_adapt_conf *c)
{
    int mc;

    return pi_read_hottest(c->thermal, &mc) > 0 && mc >= 0 ? mc : -1;
}

static void pib_sample(const pib_adapt_conf *c, server_rec *s)
{
    int busy = pib_sample_cpu(c), temp = pib_sample_temp(c);
    char temp_txt[24] = "unknown", what[44];
    pib_adapt_state cur = (pib_adapt_state)apr_atomic_read32(
                              &pib_adapt_st->state);
    pib_adapt_state next = pib_adapt_step(cur, busy, temp, c);

    apr_atomic_set32(&pib_adapt_st->busy_pct, (apr_uint32_t)(busy + 1));
    apr_atomic_set32(&pib_adapt_st->temp_mc, (apr_uint32_t)(temp + 1));
    if (next == cur) {
        return;
    }
    apr_atomic_set32(&pib_adapt_st->state, next);
    apr_atomic_inc32(&pib_adapt_st->changes);
    if (temp >= 0) {
        pi_format_dc(pi_mc_to_dc(temp), temp_txt, sizeof(temp_txt) - 2);
        strcat(temp_txt, " C");
    }
    ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, PIBLOGNO(10111)
                 "PiBalanceDeflateAdaptive: compression %s -> %s "
                 "(cpu %d%% busy, temperature %s)",
                 pib_adapt_name(cur), pib_adapt_name(next), busy,
                 temp_txt);
    apr_snprintf(what, sizeof(what), "%s -> %s (cpu %d%%)",
                 pib_adapt_name(cur), pib_adapt_name(next), busy);
    pib_event(PI_EVENT_OFFLOAD, NULL, NULL, temp >= 0,
              temp >= 0 ? pi_mc_to_dc(temp) : 0, what);
}

pib_adapt_state pib_adapt_state_now(server_rec *s)
{
    const pib_adapt_conf *c = pib_conf_adapt();
    apr_uint32_t now, last;

    if (!c->on) {
        return PIB_ADAPT_FULL;
    }
    now = pi_mono_s();
    last = apr_atomic_read32(&pib_adapt_st->last_sec);
    if (now != last
        && apr_atomic_cas32(&pib_adapt_st->last_sec, now, last) == last) {
        pib_sample(c, s);
    }
    return (pib_adapt_state)apr_atomic_read32(&pib_adapt_st->state);
}

int pib_adapt_level_now(int configured, server_rec *s)
{
    return pib_adapt_level(pib_adapt_state_now(s), configured);
}

int pib_deflate_state(pi_deflate_state *out)
{
    pib_adapt_state st;

    if (!PI_STAMP_OK(out, PI_DEFLATE_STATE_VERSION)) {
        return -1;
    }
    st = (pib_adapt_state)apr_atomic_read32(&pib_adapt_st->state);
    out->adaptive = pib_conf_adapt()->on;
    out->name = pib_adapt_name(st);
    out->cpu_busy_pct = (int)apr_atomic_read32(&pib_adapt_st->busy_pct) - 1;
    out->temp_mc = (int)apr_atomic_read32(&pib_adapt_st->temp_mc) - 1;
    out->changes = apr_atomic_read32(&pib_adapt_st->changes);
    return 0;
}
