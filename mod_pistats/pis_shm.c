/* pis_shm.c -- member slots in one anonymous shared segment. */
#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "apr_hash.h"
#include "apr_shm.h"
#include "apr_strings.h"

#include "pis_config.h"
#include "pis_log.h"
#include "pis_shm.h"

APLOG_USE_MODULE(pistats);

#define PIS_USERDATA "pistats-shm"

static pis_table *table;                   /* this generation's view */
static apr_hash_t *index_by_worker;        /* per process, read-only */
static volatile int full_logged;

pis_table *pis_shm_table(void)
{
    return table;
}

proxy_server_conf *pis_proxy_conf(server_rec *s)
{
    /* Not &proxy_module: that would make mod_pistats need mod_proxy to
     * load.  Looked up each time: mod_proxy may move across restarts. */
    module *m = ap_find_linked_module("mod_proxy.c");

    return m ? ap_get_module_config(s->module_config, m) : NULL;
}

static const char *server_id(apr_pool_t *p, server_rec *s)
{
    apr_port_t port = s->port;

    if (port == 0 && s->addrs != NULL) {
        port = s->addrs->host_port;
    }
    return apr_psprintf(p, "%s:%u",
                        s->server_hostname ? s->server_hostname : "",
                        (unsigned)port);
}

int pis_shm_inherited(server_rec *s, proxy_balancer *b)
{
    proxy_server_conf *mc;
    int i;

    if (!s->is_virtual || ap_server_conf == NULL) {
        return 0;
    }
    mc = pis_proxy_conf(ap_server_conf);
    for (i = 0; mc != NULL && i < mc->balancers->nelts; i++) {
        proxy_balancer *mb = &APR_ARRAY_IDX(mc->balancers, i, proxy_balancer);

        /* An inherited balancer is a copy of the main server's record,
         * sharing its member list; a virtual host's own balancer of the
         * same name (BalancerInherit Off) has a list of its own. */
        if (mb->workers == b->workers
            && strcmp(mb->s->name, b->s->name) == 0) {
            return 1;
        }
    }
    return 0;
}

server_rec *pis_shm_owner(server_rec *s, proxy_balancer *b)
{
    return pis_shm_inherited(s, b) ? ap_server_conf : s;
}

const char *pis_shm_prefix(apr_pool_t *p, server_rec *s, proxy_balancer *b)
{
    server_rec *owner = pis_shm_owner(s, b);

    return apr_pstrcat(p, server_id(p, owner), "|", b->s->name, "|", NULL);
}

/* The key of a member, written into buf (PIS_KEY_BUF bytes): the one
 * rule pis_shm_key() and the look-ups that may not allocate share. */
#define PIS_KEY_BUF 1024
static const char *key_into(char *buf, server_rec *s, proxy_balancer *b,
                            proxy_worker *w)
{
    server_rec *owner = pis_shm_owner(s, b);
    apr_port_t port = owner->port;
    apr_ssize_t len;

    if (port == 0 && owner->addrs != NULL) {
        port = owner->addrs->host_port;
    }
    apr_snprintf(buf, PIS_KEY_BUF, "%s:%u|%s|%s",
                 owner->server_hostname ? owner->server_hostname : "",
                 (unsigned)port, b->s->name, w->s->name_ex);
    len = (apr_ssize_t)strlen(buf);
    if (len >= PIS_KEY_MAX) {
        /* too long for a slot: keep a prefix and a hash of the whole */
        unsigned int h = apr_hashfunc_default(buf, &len);

        apr_snprintf(buf + 200, PIS_KEY_BUF - 200, "#%08x", h);
    }
    return buf;
}

const char *pis_shm_key(apr_pool_t *p, server_rec *s, proxy_balancer *b,
                        proxy_worker *w)
{
    char buf[PIS_KEY_BUF];

    return apr_pstrdup(p, key_into(buf, s, b, w));
}

static pis_slot *slot_at(pis_table *t, unsigned i)
{
    return pis_table_slot(t, i);
}

/* Makes a new segment for capacity members on the process pool. */
static apr_status_t create(server_rec *s, unsigned capacity,
                           apr_shm_t **out)
{
    apr_pool_t *proc = s->process->pool;
    apr_size_t size = pis_table_size(capacity);
    apr_status_t rv;

    /* Anonymous: inherited by every child, gone with the last process.
     * On the process pool, so graceful restarts keep it. */
    rv = apr_shm_create(out, size, NULL, proc);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_ERR, rv, s, PISLOGNO(10011)
                     "cannot create %" APR_SIZE_T_FMT " bytes of shared"
                     " memory for %u members; statistics are off",
                     size, capacity);
        return rv;
    }
    memset(apr_shm_baseaddr_get(*out), 0, size);
    pis_table_init(apr_shm_baseaddr_get(*out), capacity, pi_mono_s());
    apr_pool_userdata_set(*out, PIS_USERDATA, apr_pool_cleanup_null, proc);
    return APR_SUCCESS;
}

/* The segment a graceful restart kept, if this build may use it.  One of
 * another layout (an upgrade of mod_pistats.so) is given up: children of
 * the old generation keep their own mapping of it; it goes with them. */
static apr_shm_t *kept_segment(server_rec *s)
{
    apr_pool_t *proc = s->process->pool;
    apr_shm_t *shm = NULL;
    const pis_table *t;
    pis_table_verdict v;

    apr_pool_userdata_get((void **)&shm, PIS_USERDATA, proc);
    if (shm == NULL) {
        return NULL;
    }
    t = apr_shm_baseaddr_get(shm);
    v = pis_table_check(t, apr_shm_size_get(shm));
    if (v == PIS_TABLE_OK) {
        return shm;
    }
    /* The first four words never move: safe to read and to name. */
    ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, PISLOGNO(11300)
                 "shared memory of another layout (%s: magic 0x%08x,"
                 " version %u, slot %u bytes; this build: version %u,"
                 " slot %u bytes): member statistics start again from"
                 " zero in a new segment", pis_table_verdict_str(v),
                 t->magic, t->version, t->slot_size, PIS_LAYOUT_VERSION,
                 (unsigned)sizeof(pis_slot));
    apr_pool_userdata_set(NULL, PIS_USERDATA, apr_pool_cleanup_null, proc);
    apr_shm_destroy(shm);
    return NULL;
}

static apr_status_t attach(server_rec *s, unsigned capacity)
{
    apr_shm_t *shm = kept_segment(s);
    apr_status_t rv;

    if (shm != NULL) {
        table = apr_shm_baseaddr_get(shm);
        if (table->capacity != capacity) {
            ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, PISLOGNO(10010)
                         "PiStatsMaxMembers %u takes effect at the next full"
                         " restart (now %u)", capacity, table->capacity);
        }
        return APR_SUCCESS;
    }
    rv = create(s, capacity, &shm);
    if (rv == APR_SUCCESS) {
        table = apr_shm_baseaddr_get(shm);
    }
    return rv;
}

typedef void member_fn(apr_pool_t *p, server_rec *s, proxy_balancer *b,
                       proxy_worker *w, void *baton);

/* Calls fn for every configured member of every balancer of every
 * server. */
static void each_member(apr_pool_t *p, server_rec *s, member_fn *fn,
                        void *baton)
{
    for (; s != NULL; s = s->next) {
        proxy_server_conf *pc = pis_proxy_conf(s);
        int bi, wi;

        for (bi = 0; pc != NULL && bi < pc->balancers->nelts; bi++) {
            proxy_balancer *b = &APR_ARRAY_IDX(pc->balancers, bi,
                                               proxy_balancer);

            for (wi = 0; wi < b->workers->nelts; wi++) {
                fn(p, s, b, APR_ARRAY_IDX(b->workers, wi, proxy_worker *),
                   baton);
            }
        }
    }
}

/* each_member: give the member a slot, marked with this generation. */
static void assign_one(apr_pool_t *p, server_rec *s, proxy_balancer *b,
                       proxy_worker *w, void *baton)
{
    if (pis_claim_take(table, pis_shm_key(p, s, b, w), table->gen) < 0) {
        (*(unsigned *)baton)++;
    }
}

/* Gives every configured member a slot; gives up the slots of members
 * that left the configuration (children of the old generation that still
 * serve them stop writing there: pis_claim.h). */
static void assign(apr_pool_t *p, server_rec *s)
{
    unsigned missing = 0, i;

    each_member(p, s, assign_one, &missing);
    if (missing > 0) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, ap_server_conf,
                     PISLOGNO(10012) "PiStatsMaxMembers %u is too small:"
                     " %u members have no statistics", table->capacity,
                     missing);
    }
    for (i = 0; i < table->capacity; i++) {
        pis_slot *sl = slot_at(table, i);

        if (__atomic_load_n(&sl->state, __ATOMIC_SEQ_CST) == PIS_SLOT_USED
            && sl->gen != table->gen) {
            pis_claim_release(table, i);
        }
    }
}

/* A reference to the slot of key, found or claimed (claim: 1). */
static int ref_of(const char *key, int claim, pis_slot_ref *out)
{
    int k = claim ? pis_claim_take(table, key, table->gen)
                  : pis_claim_find(table, key);

    return k < 0 ? -1 : pis_claim_ref(table, (unsigned)k, key, out);
}

/* each_member: remember the member's slot, and its owner, in this
 * process's index. */
static void index_one(apr_pool_t *p, server_rec *s, proxy_balancer *b,
                      proxy_worker *w, void *baton)
{
    pis_slot_ref ref;

    (void)baton;
    if (ref_of(pis_shm_key(p, s, b, w), 0, &ref) == 0) {
        apr_hash_set(index_by_worker, apr_pmemdup(p, &w, sizeof(w)),
                     sizeof(w), apr_pmemdup(p, &ref, sizeof(ref)));
    }
}

apr_status_t pis_shm_setup(apr_pool_t *pconf, server_rec *s,
                           unsigned capacity)
{
    apr_status_t rv = attach(s, capacity);

    if (rv != APR_SUCCESS) {
        table = NULL;
        return rv;
    }
    table->gen++;
    full_logged = 0;
    if (ap_find_linked_module("mod_proxy.c") != NULL) {
        assign(pconf, s);
    }
    return APR_SUCCESS;
}

void pis_shm_child_init(apr_pool_t *pchild, server_rec *s)
{
    index_by_worker = apr_hash_make(pchild);
    if (table != NULL && ap_find_linked_module("mod_proxy.c") != NULL) {
        each_member(pchild, s, index_one, NULL);
    }
}

int pis_shm_ref(apr_pool_t *p, server_rec *s, proxy_balancer *b,
                proxy_worker *w, pis_slot_ref *out)
{
    char key[PIS_KEY_BUF];
    const pis_slot_ref *known;

    if (table == NULL) {
        return -1;
    }
    if (index_by_worker != NULL) {
        known = apr_hash_get(index_by_worker, &w, sizeof(w));
        if (known != NULL) {
            *out = *known;             /* checked at each write */
            return 0;
        }
    }
    /* A member this process did not know at child_init (added at run
     * time): found by key each time, so that every process and every
     * caller agrees on the first slot of that key.  Without a pool (the
     * balancer's pick) only find the slot the probe or a request
     * claimed; with one, claim it. */
    key_into(key, s, b, w);
    if (ref_of(key, p != NULL, out) != 0) {
        if (p != NULL && !full_logged) {
            full_logged = 1;
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, PISLOGNO(10013)
                         "PiStatsMaxMembers %u reached: %s has no"
                         " statistics", table->capacity, w->s->name_ex);
        }
        return -1;
    }
    return 0;
}

pis_slot *pis_shm_slot(apr_pool_t *p, server_rec *s, proxy_balancer *b,
                       proxy_worker *w)
{
    pis_slot_ref ref;

    if (pis_shm_ref(p, s, b, w, &ref) != 0 || !pis_slot_owned(&ref)) {
        return NULL;
    }
    return ref.slot;
}

void pis_shm_start(const pis_slot_ref *ref)
{
    if (pis_slot_pin(ref)) {
        pis_slot_start(ref->slot);
        pis_slot_unpin(ref);
    }
}

void pis_shm_finish(const pis_slot_ref *ref, const pis_sample *x)
{
    if (pis_slot_pin(ref)) {
        pis_slot_finish(ref->slot, x);
        pis_slot_unpin(ref);
    }
}
