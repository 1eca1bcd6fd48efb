/* pib_state.c -- per-member state of lbmethod "pi" (see pib_state.h):
 * which state each member slot of each balancer has this generation. */
#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "apr_shm.h"

#include "pib_log.h"
#include "pib_slots.h"
#include "pib_state.h"

APLOG_USE_MODULE(pibalance);

typedef struct {
    const proxy_balancer *b;
    unsigned max;                 /* its max_workers (growth included) */
    pib_mstate **of;              /* each member slot's state, by index */
    ap_conf_vector_t *section;    /* its <Proxy> section, or NULL */
} bal_range;

#define PIB_STATES_USERDATA "pibalance-member-states"

static void *table;                        /* the process's slot table */
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

/* The table a graceful restart kept, if it is of this layout and holds
 * `need` slots; else a new one on the process pool (inherited by every
 * child of every generation, gone with the last process), the old one
 * given up (its children keep their mappings).  NULL: none could be
 * made. */
static void *table_for(server_rec *s, unsigned need)
{
    apr_pool_t *proc = s->process->pool;
    apr_shm_t *shm = NULL;
    unsigned cap;
    apr_status_t rv;

    apr_pool_userdata_get((void **)&shm, PIB_STATES_USERDATA, proc);
    if (shm != NULL && pib_slots_ok(apr_shm_baseaddr_get(shm),
                                    apr_shm_size_get(shm))
        && pib_slots_capacity(apr_shm_baseaddr_get(shm)) >= need) {
        return apr_shm_baseaddr_get(shm);
    }
    if (shm != NULL) {
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, PIBLOGNO(10207)
                     "pi: the members' states of the last configuration "
                     "cannot hold this one's %u (another layout, or more "
                     "members): they start again", need);
        apr_pool_userdata_set(NULL, PIB_STATES_USERDATA,
                              apr_pool_cleanup_null, proc);
        apr_shm_destroy(shm);
    }
    cap = need < 64 ? 128 : 2 * need;        /* room to grow */
    rv = apr_shm_create(&shm, pib_slots_size(cap), NULL, proc);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_ERR, rv, s, PIBLOGNO(10200)
                     "cannot create shared memory for %u members:"
                     " lbmethod pi runs without estimates or heat", need);
        return NULL;
    }
    memset(apr_shm_baseaddr_get(shm), 0, pib_slots_size(cap));
    pib_slots_init(apr_shm_baseaddr_get(shm), cap);
    apr_pool_userdata_set(shm, PIB_STATES_USERDATA, apr_pool_cleanup_null,
                          proc);
    return apr_shm_baseaddr_get(shm);
}

/* A member slot's key: its server, its balancer, its name, or (a slot
 * for a member added at run time) its index. */
static const char *key_of(apr_pool_t *p, server_rec *s,
                          const proxy_balancer *b, int i)
{
    apr_port_t port = s->port ? s->port
                      : s->addrs ? s->addrs->host_port : 0;
    const char *who = i < b->workers->nelts
        ? APR_ARRAY_IDX(b->workers, i, proxy_worker *)->s->name_ex
        : apr_psprintf(p, "#%d", i);

    return apr_psprintf(p, "%s:%u|%s|%s", s->server_hostname
                        ? s->server_hostname : "", (unsigned)port,
                        b->s->name, who);
}

/* Assigns every member slot of balancer b of server s its state. */
static void assign(apr_pool_t *pconf, server_rec *s, bal_range *br)
{
    unsigned i;

    br->of = apr_pcalloc(pconf, (br->max ? br->max : 1) * sizeof(*br->of));
    for (i = 0; table != NULL && i < br->max; i++) {
        int k = pib_slots_assign(table, key_of(pconf, s, br->b, (int)i));

        br->of[i] = k < 0 ? NULL : pib_slots_state(table, (unsigned)k);
    }
}

apr_status_t pib_state_setup(apr_pool_t *pconf, server_rec *s)
{
    apr_array_header_t *r = apr_array_make(pconf, 8, sizeof(bal_range));
    apr_array_header_t *owner = apr_array_make(pconf, 8,
                                               sizeof(server_rec *));
    unsigned total = 0;
    server_rec *v;
    int i;

    for (v = s; v != NULL; v = v->next) {
        proxy_server_conf *pc = proxy_conf(v);

        for (i = 0; pc != NULL && i < pc->balancers->nelts; i++) {
            proxy_balancer *b = &APR_ARRAY_IDX(pc->balancers, i,
                                               proxy_balancer);
            bal_range *br = apr_array_push(r);

            br->b = b;
            br->section = find_section(pc, b);
            br->max = b->max_workers > 0 ? (unsigned)b->max_workers
                      : (unsigned)b->workers->nelts;
            total += br->max;
            APR_ARRAY_PUSH(owner, server_rec *) = v;
        }
    }
    ranges = (bal_range *)r->elts;
    nranges = r->nelts;
    table = total ? table_for(s, total) : NULL;
    if (table != NULL) {
        pib_slots_begin(table);
    }
    for (i = 0; i < nranges; i++) {
        assign(pconf, APR_ARRAY_IDX(owner, i, server_rec *), &ranges[i]);
    }
    if (table != NULL) {
        pib_slots_end(table);
    }
    return APR_SUCCESS;
}

pib_mstate **pib_state_of(const proxy_balancer *b, unsigned *max)
{
    int i;

    *max = 0;
    for (i = 0; i < nranges; i++) {
        if (ranges[i].b == b) {
            *max = ranges[i].max;
            return ranges[i].of;
        }
    }
    return NULL;
}

pib_mstate *pib_state_get(const proxy_balancer *b, const proxy_worker *w)
{
    unsigned max;
    pib_mstate **base = pib_state_of(b, &max);

    return pib_state_at(base, max, w);
}
