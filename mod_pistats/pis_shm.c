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

#define PIS_MAGIC    0x70697331U           /* "pis1" */
#define PIS_USERDATA "pistats-shm"

static pis_table *table;                   /* this generation's view */
static apr_hash_t *index_by_worker;        /* per process, read-only */
static volatile int full_logged;

pis_table *pis_shm_table(void)
{
    return table;
}

uint32_t pis_now_ms(void)
{
    return (uint32_t)(apr_time_now() / 1000);
}

uint32_t pis_now_s(void)
{
    return (uint32_t)apr_time_sec(apr_time_now());
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

const char *pis_shm_prefix(apr_pool_t *p, server_rec *s, proxy_balancer *b)
{
    server_rec *owner = pis_shm_inherited(s, b) ? ap_server_conf : s;

    return apr_pstrcat(p, server_id(p, owner), "|", b->s->name, "|", NULL);
}

/* The key of a member, written into buf (PIS_KEY_BUF bytes): the one
 * rule pis_shm_key() and the look-ups that may not allocate share. */
#define PIS_KEY_BUF 1024
static const char *key_into(char *buf, server_rec *s, proxy_balancer *b,
                            proxy_worker *w)
{
    server_rec *owner = pis_shm_inherited(s, b) ? ap_server_conf : s;
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
    return (pis_slot *)((char *)t->slots + (apr_size_t)i * t->slot_size);
}

/* Finds the slot with key, or -1. */
static int find_key(pis_table *t, const char *key)
{
    unsigned i;

    for (i = 0; i < t->capacity; i++) {
        pis_slot *sl = slot_at(t, i);

        if (__atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) == PIS_SLOT_USED
            && strcmp(sl->key, key) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* Claims a free slot for key (lock-free; a racing claim of the same key
 * is undone).  Returns the index, or -1 when the table is full. */
static int claim(pis_table *t, const char *key)
{
    unsigned i;

    for (i = 0; i < t->capacity; i++) {
        pis_slot *sl = slot_at(t, i);
        uint32_t free_state = PIS_SLOT_FREE;
        int other;

        if (!__atomic_compare_exchange_n(&sl->state, &free_state,
                                         PIS_SLOT_CLAIMING, 0,
                                         __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE)) {
            continue;
        }
        pis_slot_reset(sl);
        apr_cpystrn(sl->key, key, sizeof(sl->key));
        sl->gen = t->gen;
        __atomic_store_n(&sl->state, PIS_SLOT_USED, __ATOMIC_RELEASE);
        other = find_key(t, key);
        if (other >= 0 && (unsigned)other != i) {
            /* someone else claimed it first: give ours back */
            __atomic_store_n(&sl->state, PIS_SLOT_FREE, __ATOMIC_RELEASE);
            return other;
        }
        return (int)i;
    }
    return -1;
}

static int find_or_claim(pis_table *t, const char *key)
{
    int i = find_key(t, key);

    return i >= 0 ? i : claim(t, key);
}

static apr_status_t attach(apr_pool_t *pconf, server_rec *s,
                           unsigned capacity)
{
    apr_pool_t *proc = s->process->pool;
    apr_shm_t *shm = NULL;
    apr_size_t size;
    apr_status_t rv;

    (void)pconf;
    apr_pool_userdata_get((void **)&shm, PIS_USERDATA, proc);
    if (shm != NULL) {
        table = apr_shm_baseaddr_get(shm);
        if (table->capacity != capacity) {
            ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, PISLOGNO(10010)
                         "PiStatsMaxMembers %u takes effect at the next full"
                         " restart (now %u)", capacity, table->capacity);
        }
        return APR_SUCCESS;
    }
    size = APR_OFFSETOF(pis_table, slots)
           + (apr_size_t)capacity * sizeof(pis_slot);
    /* Anonymous: inherited by every child, gone with the last process.
     * On the process pool, so graceful restarts keep it. */
    rv = apr_shm_create(&shm, size, NULL, proc);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_ERR, rv, s, PISLOGNO(10011)
                     "cannot create %" APR_SIZE_T_FMT " bytes of shared"
                     " memory for %u members; statistics are off",
                     size, capacity);
        return rv;
    }
    table = apr_shm_baseaddr_get(shm);
    memset(table, 0, size);
    table->magic = PIS_MAGIC;
    table->capacity = capacity;
    table->slot_size = sizeof(pis_slot);
    table->start_s = pis_now_s();
    apr_pool_userdata_set(shm, PIS_USERDATA, apr_pool_cleanup_null, proc);
    return APR_SUCCESS;
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
    int k = find_or_claim(table, pis_shm_key(p, s, b, w));

    if (k < 0) {
        (*(unsigned *)baton)++;
    }
    else {
        slot_at(table, (unsigned)k)->gen = table->gen;
    }
}

/* Gives every configured member a slot; frees the slots of members that
 * left the configuration. */
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

        if (sl->state == PIS_SLOT_USED && sl->gen != table->gen) {
            __atomic_store_n(&sl->state, PIS_SLOT_FREE, __ATOMIC_RELEASE);
        }
    }
}

/* each_member: remember the member's slot in this process's index. */
static void index_one(apr_pool_t *p, server_rec *s, proxy_balancer *b,
                      proxy_worker *w, void *baton)
{
    int k = find_key(table, pis_shm_key(p, s, b, w));

    (void)baton;
    if (k >= 0) {
        apr_hash_set(index_by_worker, apr_pmemdup(p, &w, sizeof(w)),
                     sizeof(w), slot_at(table, (unsigned)k));
    }
}

apr_status_t pis_shm_setup(apr_pool_t *pconf, server_rec *s,
                           unsigned capacity)
{
    apr_status_t rv = attach(pconf, s, capacity);

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

pis_slot *pis_shm_slot(apr_pool_t *p, server_rec *s, proxy_balancer *b,
                       proxy_worker *w)
{
    char key[PIS_KEY_BUF];
    pis_slot *sl;
    int k;

    if (table == NULL) {
        return NULL;
    }
    if (index_by_worker != NULL) {
        sl = apr_hash_get(index_by_worker, &w, sizeof(w));
        if (sl != NULL) {
            return sl;
        }
    }
    /* A member this process did not know at child_init (added at run
     * time): found by key each time, so that every process and every
     * caller agrees on the first slot of that key.  Without a pool (the
     * balancer's pick) only find the slot the probe or a request
     * claimed; with one, claim it. */
    key_into(key, s, b, w);
    k = p == NULL ? find_key(table, key) : find_or_claim(table, key);
    if (k < 0) {
        if (p != NULL && !full_logged) {
            full_logged = 1;
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, PISLOGNO(10013)
                         "PiStatsMaxMembers %u reached: %s has no"
                         " statistics", table->capacity, w->s->name_ex);
        }
        return NULL;
    }
    return slot_at(table, (unsigned)k);
}
