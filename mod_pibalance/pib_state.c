/* pib_state.c -- per-member state of lbmethod "pi" (see pib_state.h). */
#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "apr_shm.h"

#include "pib_log.h"
#include "pib_state.h"

APLOG_USE_MODULE(pibalance);

typedef struct {
    const proxy_balancer *b;
    unsigned base, max;
    ap_conf_vector_t *section;    /* its <Proxy> section, or NULL */
} bal_range;

static pib_mstate *states;                 /* this generation's segment */
static bal_range *ranges;                  /* read-only after post_config */
static int nranges;

static proxy_server_conf *proxy_conf(server_rec *s)
{
    module *m = ap_find_linked_module("mod_proxy.c");

    return m ? ap_get_module_config(s->module_config, m) : NULL;
}

/* Does a <Proxy> section's path name balancer `name`?  mod_proxy names
 * a balancer by its URL up to the first slash after "balancer://", so
 * <Proxy "balancer://x/"> is balancer://x. */
static int section_names(const char *path, const char *name)
{
    apr_size_t n = strlen(name);

    return strncasecmp(path, name, n) == 0
           && (path[n] == '\0' || path[n] == '/');
}

/* The <Proxy "balancer://..."> section of b.  mod_proxy records it in
 * b->section_config only when the section line has parameters, so look
 * among the server's <Proxy> sections too: from the last, since a
 * virtual host's own sections follow the main server's, and a virtual
 * host's balancer may have the name of a main-server one. */
static ap_conf_vector_t *find_section(proxy_server_conf *pc,
                                      const proxy_balancer *b)
{
    module *m = ap_find_linked_module("mod_proxy.c");
    int i;

    if (b->section_config != NULL || m == NULL) {
        return b->section_config;
    }
    for (i = pc->sec_proxy->nelts - 1; i >= 0; i--) {
        ap_conf_vector_t *v = APR_ARRAY_IDX(pc->sec_proxy, i,
                                            ap_conf_vector_t *);
        const proxy_dir_conf *d = ap_get_module_config(v, m);

        if (d != NULL && d->p != NULL && d->r == NULL
            && section_names(d->p, b->s->name)) {
            return v;
        }
    }
    return NULL;
}

ap_conf_vector_t *pib_state_section(const proxy_balancer *b)
{
    int i;

    for (i = 0; i < nranges; i++) {
        if (ranges[i].b == b) {
            return ranges[i].section;
        }
    }
    return b->section_config;
}

apr_status_t pib_state_setup(apr_pool_t *pconf, server_rec *s)
{
    apr_array_header_t *r = apr_array_make(pconf, 8, sizeof(bal_range));
    unsigned total = 0;
    apr_shm_t *shm;
    apr_status_t rv;
    server_rec *v;

    states = NULL;
    for (v = s; v != NULL; v = v->next) {
        proxy_server_conf *pc = proxy_conf(v);
        int i;

        for (i = 0; pc != NULL && i < pc->balancers->nelts; i++) {
            proxy_balancer *b = &APR_ARRAY_IDX(pc->balancers, i,
                                               proxy_balancer);
            bal_range *br = apr_array_push(r);

            br->b = b;
            br->section = find_section(pc, b);
            br->base = total;
            br->max = b->max_workers > 0 ? (unsigned)b->max_workers
                      : (unsigned)b->workers->nelts;
            total += br->max;
        }
    }
    ranges = (bal_range *)r->elts;
    nranges = r->nelts;
    if (total == 0) {
        return APR_SUCCESS;
    }
    /* Anonymous, on pconf: inherited by this generation's children, gone
     * with it. */
    rv = apr_shm_create(&shm, total * sizeof(pib_mstate), NULL, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_ERR, rv, s, PIBLOGNO(10200)
                     "cannot create shared memory for %u members:"
                     " lbmethod pi runs without estimates or heat", total);
        return APR_SUCCESS;
    }
    states = apr_shm_baseaddr_get(shm);
    memset(states, 0, total * sizeof(pib_mstate));
    return APR_SUCCESS;
}

pib_mstate *pib_state_of(const proxy_balancer *b, unsigned *max)
{
    int i;

    *max = 0;
    if (states == NULL) {
        return NULL;
    }
    for (i = 0; i < nranges; i++) {
        if (ranges[i].b == b) {
            *max = ranges[i].max;
            return &states[ranges[i].base];
        }
    }
    return NULL;
}

pib_mstate *pib_state_get(const proxy_balancer *b, const proxy_worker *w)
{
    unsigned max;
    pib_mstate *base = pib_state_of(b, &max);

    return pib_state_at(base, max, w);
}
