/* pib_adapt_glue.c -- samples the master's CPU (/proc/stat deltas) and
 * hottest thermal zone for PiBalanceDeflateAdaptive.
 *
 * The state lives in a small anonymous shared segment created in
 * post_config, so every child sees one state and a change is logged once.
 * Sampling is lazy: the first request of a new second that wins a 32-bit
 * compare-and-swap on the segment's "last second" reads the files (a few
 * hundred bytes, no lock, never blocks other requests) and steps the pure
 * state machine in pib_adapt.c.  Only 32-bit atomics (ARMv6/v7 safe); the
 * jiffy counters are kept modulo 2^32 and only the CAS winner writes them.
 * Without the segment (creation failed) each process keeps its own state.
 */
#include <fcntl.h>
#include <glob.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "apr_atomic.h"
#include "apr_shm.h"
#include "apr_time.h"

#include "pib_log.h"
#include "pib_public.h"
#include "pib_adapt.h"
#include "pib_adapt_glue.h"
#include "pib_deflate_conf.h"

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
    if (!pib_adapt_conf_get()->on) {
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

/* Reads up to cap-1 bytes of a small file; -1 on failure. */
static int pib_read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0) {
        return -1;
    }
    n = read(fd, buf, cap - 1);
    close(fd);
    if (n < 0) {
        return -1;
    }
    buf[n] = '\0';
    return (int)n;
}

/* The hottest zone in millidegrees, -1 when none is readable. */
static int pib_hottest(const char *pattern)
{
    glob_t g;
    size_t i;
    int best = -1;

    if (glob(pattern, 0, NULL, &g) != 0) {
        return -1;
    }
    for (i = 0; i < g.gl_pathc && i < 64; i++) {
        char buf[32], *end;
        long v;

        if (pib_read_small(g.gl_pathv[i], buf, sizeof(buf)) > 0) {
            v = strtol(buf, &end, 10);
            if (end != buf && v > best && v < 200000) {
                best = (int)v;
            }
        }
    }
    globfree(&g);
    return best;
}

static int pib_sample_cpu(const pib_adapt_conf *c)
{
    char buf[512];
    unsigned busy, total;
    int pct = -1;

    if (pib_read_small(c->stat_path, buf, sizeof(buf)) <= 0
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

static void pib_sample(const pib_adapt_conf *c, server_rec *s)
{
    int busy = pib_sample_cpu(c), temp = pib_hottest(c->thermal);
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
    ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, PIBLOGNO(10111)
                 "PiBalanceDeflateAdaptive: compression %s -> %s "
                 "(cpu %d%% busy, temperature %d.%d C)",
                 pib_adapt_name(cur), pib_adapt_name(next), busy,
                 temp / 1000, temp < 0 ? 0 : (temp % 1000) / 100);
}

int pib_adapt_level_now(int configured, server_rec *s)
{
    const pib_adapt_conf *c = pib_adapt_conf_get();
    apr_uint32_t now, last;

    if (!c->on) {
        return configured;
    }
    now = (apr_uint32_t)apr_time_sec(apr_time_now());
    last = apr_atomic_read32(&pib_adapt_st->last_sec);
    if (now != last
        && apr_atomic_cas32(&pib_adapt_st->last_sec, now, last) == last) {
        pib_sample(c, s);
    }
    return pib_adapt_level(
        (pib_adapt_state)apr_atomic_read32(&pib_adapt_st->state),
        configured);
}

static int pib_deflate_state(pi_deflate_state *out)
{
    pib_adapt_state st;

    if (!PI_STAMP_OK(out, PI_DEFLATE_STATE_VERSION)) {
        return -1;
    }
    st = (pib_adapt_state)apr_atomic_read32(&pib_adapt_st->state);
    out->adaptive = pib_adapt_conf_get()->on;
    out->name = pib_adapt_name(st);
    out->cpu_busy_pct = (int)apr_atomic_read32(&pib_adapt_st->busy_pct) - 1;
    out->temp_mc = (int)apr_atomic_read32(&pib_adapt_st->temp_mc) - 1;
    out->changes = apr_atomic_read32(&pib_adapt_st->changes);
    return 0;
}

void pib_adapt_register(apr_pool_t *p)
{
    (void)p;
    APR_REGISTER_OPTIONAL_FN(pib_deflate_state);
}
