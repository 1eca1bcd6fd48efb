/* pib_counts.c -- the deflate offload's counters (see pib_counts.h). */
#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "apr_shm.h"
#include "apr_strings.h"

#include "pi_ctr64.h"
#include "pib_log.h"
#include "pib_public.h"
#include "pib_counts.h"
#include "pib_counts_layout.h"

APLOG_USE_MODULE(pibalance);

/* The segment outlives graceful restarts (process pool); its layout
 * stamp (pib_counts_layout.h) keeps a build from reading or writing the
 * segment of another one. */
#define PIB_COUNTS_KEY "pibalance-deflate-counts"

typedef struct {
    pib_counts_head head;
    pi_ctr64 c[PIB_CNT_N];
} pib_counts_shm;

static pib_counts_shm pib_counts_local;
static pib_counts_shm *pib_counts = &pib_counts_local;

apr_status_t pib_counts_init(server_rec *s)
{
    apr_pool_t *proc = s->process->pool;
    apr_shm_t *shm = NULL;
    apr_status_t rv;
    const char *key = PIB_COUNTS_KEY;

    apr_pool_userdata_get((void **)&shm, key, proc);
    if (shm != NULL && !pib_counts_layout_ok(apr_shm_baseaddr_get(shm),
                                             apr_shm_size_get(shm),
                                             PIB_CNT_N, sizeof(pi_ctr64))) {
        const pib_counts_head *h = apr_shm_baseaddr_get(shm);

        /* An upgrade of mod_pibalance.so by a graceful restart: the
         * first four words never move, safe to name. */
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, PIBLOGNO(12900)
                     "PiBalanceDeflate: offload counters of another layout"
                     " (magic 0x%08x, version %u, %u counters; this build:"
                     " version %u, %u): they start again from zero",
                     h->magic, h->version, h->count, PIB_COUNTS_VERSION,
                     (unsigned)PIB_CNT_N);
        apr_pool_userdata_set(NULL, key, apr_pool_cleanup_null, proc);
        apr_shm_destroy(shm);
        shm = NULL;
    }
    if (shm == NULL) {
        rv = apr_shm_create(&shm, sizeof(pib_counts_shm), NULL, proc);
        if (rv != APR_SUCCESS) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, rv, s, PIBLOGNO(10112)
                         "PiBalanceDeflate: no shared memory for the "
                         "offload counters; each process counts its own");
            pib_counts = &pib_counts_local;
            return APR_SUCCESS;
        }
        memset(apr_shm_baseaddr_get(shm), 0, sizeof(pib_counts_shm));
        ((pib_counts_shm *)apr_shm_baseaddr_get(shm))->head
            = (pib_counts_head){ PIB_COUNTS_MAGIC, PIB_COUNTS_VERSION,
                                 PIB_CNT_N, 0 };
        apr_pool_userdata_set(shm, key, apr_pool_cleanup_null, proc);
    }
    pib_counts = apr_shm_baseaddr_get(shm);
    return APR_SUCCESS;
}

void pib_count(pib_counter which)
{
    pi_ctr_add(&pib_counts->c[which], 1);
}

void pib_count_add(int which, apr_uint64_t n)
{
    if (which < 0 || which >= PIB_CNT_N) {
        return;
    }
    while (n > 0) {                 /* pi_ctr_add takes 32 bits */
        uint32_t step = n > 0xffffffffu ? 0xffffffffu : (uint32_t)n;

        pi_ctr_add(&pib_counts->c[which], step);
        n -= step;
    }
}

void pib_count_coding(int k, apr_uint64_t in, apr_uint64_t out)
{
    if (k < 0 || k >= PIB_NCODINGS) {
        return;
    }
    pib_count_add(PIB_CNT_CODING + 3 * k, 1);
    pib_count_add(PIB_CNT_CODING + 3 * k + 1, in);
    pib_count_add(PIB_CNT_CODING + 3 * k + 2, out);
}

apr_uint64_t pib_count_get(pib_counter which)
{
    return pi_ctr_read(&pib_counts->c[which]);
}

int pib_deflate_counters(pi_deflate_counts *out)
{
    int k;

    if (!PI_STAMP_OK(out, PI_DEFLATE_COUNTS_VERSION)) {
        return -1;
    }
    out->one_pass = pib_count_get(PIB_CNT_ONE_PASS);
    out->streamed = pib_count_get(PIB_CNT_STREAMED);
    out->trickled = pib_count_get(PIB_CNT_TRICKLED);
    out->compressor_waits = pib_count_get(PIB_CNT_WAITS);
    out->ncodings = PIB_NCODINGS;
    for (k = 0; k < PIB_NCODINGS && k < PI_CODINGS_MAX; k++) {
        const pib_coding_row *row = &pib_coding_rows[k];
        const pi_ctr64 *c = &pib_counts->c[PIB_CNT_CODING + 3 * row->counter];

        out->coding_name[k] = row->token;
        out->coding_responses[k] = pi_ctr_read(&c[0]);
        out->coding_bytes_in[k] = pi_ctr_read(&c[1]);
        out->coding_bytes_out[k] = pi_ctr_read(&c[2]);
    }
    out->cache_hits = pib_count_get(PIB_CNT_CACHE_HIT);
    out->cache_misses = pib_count_get(PIB_CNT_CACHE_MISS);
    out->cache_revalidated = pib_count_get(PIB_CNT_CACHE_REVAL);
    out->cache_bytes_saved = pib_count_get(PIB_CNT_CACHE_SAVED);
    return 0;
}
