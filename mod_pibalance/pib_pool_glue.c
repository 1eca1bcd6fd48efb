/* pib_pool_glue.c -- the life of a child's compressor pools (pib_pool.c,
 * pure): sized at child start (PiBalanceDeflateCompressors, else the
 * cores, at most ThreadsPerChild), their waits counted server-wide
 * (pib_counts.c), drained when the child exits.  As pib_adapt.c pairs
 * with pib_adapt_glue.c.
 */
#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "ap_mpm.h"

#include <unistd.h>

#include "pib_codec.h"
#include "pib_codec_zstd.h"
#include "pib_config.h"
#include "pib_counts.h"
#include "pib_log.h"
#include "pib_pool.h"
#include "pib_pool_glue.h"

APLOG_USE_MODULE(pibalance);

/* The idle libdeflate compressors go with the child (valgrind saw them
 * lost once httpd -X had unloaded the module holding the pool). */
static apr_status_t pib_ld_drain_cleanup(void *data)
{
    server_rec *s = data;
    unsigned long waits = pib_ld_waits();

    if (waits > 0) {
        ap_log_error(APLOG_MARK, APLOG_INFO, 0, s, PIBLOGNO(10103)
                     "PiBalanceDeflate: a response waited for a compressor "
                     "%lu times in this child (PiBalanceDeflateCompressors "
                     "%u)", waits, pib_ld_get_limit());
    }
    pib_ld_drain();
    pib_zstd_drain();
    pib_igzip_drain();
    return APR_SUCCESS;
}

/* PiBalanceDeflateCompressors, else the cores (compressing is all CPU),
 * at most ThreadsPerChild: a prefork child needs one. */
static unsigned pib_ld_limit_of(void)
{
    int n = pib_conf_compressors(), threads = 0;
    long cpus;

    if (n != PIB_UNSET) {
        return (unsigned)n;
    }
    cpus = sysconf(_SC_NPROCESSORS_ONLN);
    n = cpus < 1 ? 1 : cpus > PIB_LD_MAX ? PIB_LD_MAX : (int)cpus;
    if (ap_mpm_query(AP_MPMQ_MAX_THREADS, &threads) == APR_SUCCESS
        && threads > 0 && n > threads) {
        n = threads;
    }
    return (unsigned)n;
}

static void pib_count_wait(void)
{
    pib_count(PIB_CNT_WAITS);
}

static void pib_pool_child_init(apr_pool_t *pchild, server_rec *s)
{
    pib_ld_set_limit(pib_ld_limit_of());
    pib_ld_set_wait_hook(pib_count_wait);
    apr_pool_cleanup_register(pchild, s, pib_ld_drain_cleanup,
                              apr_pool_cleanup_null);
}

void pib_pool_register(apr_pool_t *p)
{
    (void)p;
    ap_hook_child_init(pib_pool_child_init, NULL, NULL, APR_HOOK_MIDDLE);
}
