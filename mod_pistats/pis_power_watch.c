/* pis_power_watch.c -- PiStatsPowerSensor at start-up and at run time
 * (see pis_power_watch.h). */
#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "apr_hash.h"
#include "apr_shm.h"
#include "apr_strings.h"

#include "pis_config.h"
#include "pis_log.h"
#include "pis_power.h"
#include "pis_power_watch.h"

APLOG_USE_MODULE(pistats);

#define PIS_POWER_UNSEEN 0xffffffffU   /* no reading yet this generation */
#define PIS_POWER_GONE   0U            /* unreadable: PowerW unknown */

static apr_hash_t *state_of;           /* pattern -> uint32_t in shm */

static const char *where(apr_pool_t *p, server_rec *s)
{
    return apr_psprintf(p, "%s:%u", s->server_hostname
                        ? s->server_hostname : "", (unsigned)s->port);
}

static void warn_none(apr_pool_t *p, server_rec *s, const char *pattern)
{
    ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, PISLOGNO(13001)
                 "PiStatsPowerSensor %s matches no file yet (in %s): PowerW"
                 " is unknown until the sensor is there", pattern,
                 where(p, s));
}

int pis_power_check_config(apr_pool_t *ptemp, server_rec *s)
{
    apr_hash_t *seen = apr_hash_make(ptemp);
    /* "httpd -t" says it here; a start says it in post_config, when
     * the error log is open (here it would go to the console). */
    int warn = ap_state_query(AP_SQ_RUN_MODE) == AP_SQ_RM_CONFIG_TEST;
    char buf[512];

    for (; s != NULL; s = s->next) {
        const char *pattern = pis_srv(s)->power_glob, *why;
        unsigned matched;

        if (pattern == NULL || apr_hash_get(seen, pattern,
                                            APR_HASH_KEY_STRING)) {
            continue;                  /* none, or checked (inherited) */
        }
        apr_hash_set(seen, pattern, APR_HASH_KEY_STRING, pattern);
        why = pis_power_check_now(pattern, &matched, buf, sizeof(buf));
        if (why != NULL) {
            ap_log_error(APLOG_MARK, APLOG_EMERG, 0, s, PISLOGNO(13000)
                         "PiStatsPowerSensor %s %s (in %s)", pattern, why,
                         where(ptemp, s));
            return !OK;
        }
        if (matched == 0 && warn) {
            warn_none(ptemp, s, pattern);
        }
    }
    return OK;
}

void pis_power_setup(apr_pool_t *pconf, server_rec *s)
{
    apr_shm_t *shm = NULL;
    uint32_t *words = NULL;
    unsigned n = 0, i = 0, channels;
    long mw;
    server_rec *v;

    state_of = apr_hash_make(pconf);
    for (v = s; v != NULL; v = v->next) {
        n += pis_srv(v)->power_glob != NULL;
    }
    /* Anonymous, on pconf: made before the children fork, each
     * generation its own.  Without it each process logs for itself. */
    if (n > 0 && apr_shm_create(&shm, n * sizeof(uint32_t), NULL, pconf)
                 == APR_SUCCESS) {
        words = apr_shm_baseaddr_get(shm);
    }
    for (v = s; v != NULL; v = v->next) {
        const char *pattern = pis_srv(v)->power_glob;
        uint32_t *w;

        if (pattern == NULL
            || apr_hash_get(state_of, pattern, APR_HASH_KEY_STRING)) {
            continue;
        }
        w = words != NULL ? &words[i++] : apr_palloc(pconf, sizeof(*w));
        *w = PIS_POWER_UNSEEN;
        apr_hash_set(state_of, pattern, APR_HASH_KEY_STRING, w);
        if (pis_power_read(pattern, &mw, &channels) != 0 && channels == 0) {
            warn_none(pconf, v, pattern);
        }
    }
}

/* What changed, in words, once. */
static void log_change(server_rec *s, const char *pattern, uint32_t was,
                       uint32_t now)
{
    if (now == PIS_POWER_GONE) {
        if (was == PIS_POWER_UNSEEN) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, PISLOGNO(13005)
                         "PiStatsPowerSensor %s: cannot be read: PowerW"
                         " unknown", pattern);
        }
        else {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, PISLOGNO(13002)
                         "PiStatsPowerSensor %s: no longer readable (was"
                         " %u channels): PowerW unknown", pattern, was);
        }
    }
    else if (was == PIS_POWER_GONE) {
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, PISLOGNO(13003)
                     "PiStatsPowerSensor %s: readable again, %u channels",
                     pattern, now);
    }
    else if (was != PIS_POWER_UNSEEN) {
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, PISLOGNO(13004)
                     "PiStatsPowerSensor %s: now %u channels (was %u)",
                     pattern, now, was);
    }
}

void pis_power_note(server_rec *s, const char *pattern,
                    const pis_telemetry *t)
{
    uint32_t *w, old, now;

    if (pattern == NULL || state_of == NULL
        || (w = apr_hash_get(state_of, pattern, APR_HASH_KEY_STRING))
           == NULL) {
        return;
    }
    now = t->has_power ? (t->power_channels ? t->power_channels : 1)
                       : PIS_POWER_GONE;
    old = __atomic_load_n(w, __ATOMIC_ACQUIRE);
    if (old != now && __atomic_compare_exchange_n(w, &old, now, 0,
                                                  __ATOMIC_ACQ_REL,
                                                  __ATOMIC_ACQUIRE)) {
        log_change(s, pattern, old, now);
    }
}
