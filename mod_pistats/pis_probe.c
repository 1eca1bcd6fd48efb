/* pis_probe.c -- reads each balancer member's node telemetry.
 *
 * A mod_watchdog callback in every child wakes every 100 ms; the child
 * that first claims a due member (PiStatsProbeInterval since its last
 * attempt, by compare-and-swap on the slot) probes it.  A child probes
 * its due members all at once: non-blocking connects and one poll() loop, each
 * with its own deadline (PiStatsProbeTimeout), so a hung node costs the
 * others nothing.  An answer is "GET <PiStatsProbePath> HTTP/1.0" read to
 * EOF or to 8 KiB of body, whichever comes first (the contract's keys
 * come first; the rest is not read); redirects are not followed.  Results go to
 * the member's slot in shared memory; the balancer and the status page
 * only read them; the power a node reports is integrated into its energy
 * there (pis_energy.c).  A member's state changes (answering / not, and
 * why) are logged once each.
 *
 * Not probed: members whose scheme is not http, ws or h2c (an AJP or
 * FastCGI port does not speak HTTP).  Host names are resolved here, in
 * the watchdog thread: a slow resolver delays a round, not a request;
 * every address of a name is tried in turn until one connects
 * (pis_connect.c), and an IPv6 literal goes in brackets in Host.  A node
 * that answers 403 is logged with the `Require ip` line it lacks.  Each
 * write to a slot is pinned to the member that owned it when the round
 * began (pis_claim.h): a probe of an old generation never writes into a
 * slot that changed hands.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <strings.h>
#include <unistd.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "apr_strings.h"
#include "mod_proxy.h"
#include "mod_watchdog.h"

#include "pis_http_reply.h"
#include "pis_config.h"
#include "pis_connect.h"
#include "pis_energy.h"
#include "pis_log.h"
#include "pis_probe.h"
#include "pis_shm.h"

APLOG_USE_MODULE(pistats);

#define PIS_PROBE_BODY_MAX  8192
#define PIS_PROBE_HEAD_MAX  4096
#define PIS_PROBE_MAX_TARGETS 1024
/* How long a child's exit waits for its probe round to end. */
#define PIS_PROBE_EXIT_WAIT   apr_time_from_sec(30)

typedef enum { P_CONNECTING, P_READING, P_DONE } probe_state;

typedef struct {
    pis_slot_ref ref;              /* the member's slot while it is its */
    const char *name;              /* member URL, for the log */
    char *request;
    struct addrinfo *ai;           /* every address of the node */
    const struct addrinfo *ai_next;    /* the next one to try */
    char local[64];                /* our address, as the node sees it */
    const char *hint;              /* for the log: what to do about it */
    int fd;
    probe_state state;
    apr_time_t started, deadline;
    apr_time_t interval;           /* PiStatsProbeInterval of the member */
    char buf[PIS_PROBE_HEAD_MAX + PIS_PROBE_BODY_MAX + 1];
    apr_size_t len;
    const char *error;             /* NULL: good so far */
    char errbuf[PIS_ERR_MAX];
    int stored;                    /* the result is in shared memory */
    server_rec *s;                 /* for the log */
    apr_pool_t *pool;
} probe_t;

static int probe_active;

int pis_probe_active(void)
{
    return probe_active;
}

static int probed_scheme(const char *scheme)
{
    return strcasecmp(scheme, "http") == 0 || strcasecmp(scheme, "ws") == 0
           || strcasecmp(scheme, "h2c") == 0;
}

static const char *connect_error(int err)
{
    return err == ECONNREFUSED ? "connection refused" : "cannot connect";
}

/* Starts a non-blocking connect to the first address that takes one;
 * sets p->error when none does. */
static void probe_connect(probe_t *p, const char *host, apr_port_t port)
{
    struct addrinfo hints;
    char portstr[8];
    int err;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    apr_snprintf(portstr, sizeof(portstr), "%u", (unsigned)port);
    if (getaddrinfo(host, portstr, &hints, &p->ai) != 0 || p->ai == NULL) {
        p->ai = NULL;
        p->error = "cannot resolve host";
        return;
    }
    p->ai_next = p->ai;
    p->fd = pis_connect_start(&p->ai_next, &err);
    if (p->fd < 0) {
        p->error = err == 0 ? "no socket" : connect_error(err);
    }
}

/* The connect completed (or failed: then on to the next address): send
 * the request. */
static void probe_send(probe_t *p)
{
    int err = pis_connect_result(p->fd), err2;
    size_t n = strlen(p->request);

    if (err != 0) {
        close(p->fd);
        p->fd = pis_connect_start(&p->ai_next, &err2);
        if (p->fd < 0) {
            p->error = connect_error(err2 ? err2 : err);
        }
        return;                        /* still connecting, or failed */
    }
    pis_local_addr(p->fd, p->local, sizeof(p->local));
    /* A request of a few dozen bytes fits any socket buffer at once. */
    if (send(p->fd, p->request, n, MSG_NOSIGNAL) != (ssize_t)n) {
        p->error = "cannot send the request";
        return;
    }
    p->state = P_READING;
}

static void probe_read(probe_t *p)
{
    for (;;) {
        apr_size_t room = sizeof(p->buf) - 1 - p->len;
        ssize_t n;

        if (room == 0) {
            p->state = P_DONE;         /* enough: the contract's keys */
            return;                    /* come first; the rest is cut */
        }
        n = recv(p->fd, p->buf + p->len, room, 0);
        if (n > 0) {
            p->len += (apr_size_t)n;
            continue;
        }
        if (n == 0) {
            p->state = P_DONE;
        }
        else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            p->error = "connection reset";
        }
        return;
    }
}

/* Turns a complete answer into telemetry, or an error. */
static void probe_parse(probe_t *p, pis_telemetry *t)
{
    const char *body;
    size_t body_len;
    int status;

    if (pis_parse_http_reply(p->buf, p->len, &status, &body, &body_len)
        != 0) {
        p->error = "not an HTTP answer";
    }
    else if (status != 200) {
        apr_snprintf(p->errbuf, sizeof(p->errbuf), "HTTP status %d",
                     status);
        p->error = p->errbuf;
        if (status == 403 && p->local[0]) {
            p->hint = apr_psprintf(p->pool, "; the node refuses this"
                                   " master: on the node, add \"Require ip"
                                   " %s\" to <Location \"/pi-status\">"
                                   " (conf/pistats.conf)", p->local);
        }
    }
    else if (pis_parse_telemetry(body, body_len > PIS_PROBE_BODY_MAX
                                 ? PIS_PROBE_BODY_MAX : body_len, t) == 0) {
        p->error = body_len > PIS_PROBE_BODY_MAX
                   ? "no telemetry in the first 8 KiB"
                   : "no telemetry in the answer";
    }
}

/* Stores a result and logs a change of state once. */
static void probe_store(probe_t *p, server_rec *s, const pis_telemetry *t)
{
    pis_tel_shm before;
    int was_ok, now_ok = p->error == NULL;

    if (!pis_slot_pin(&p->ref)) {
        return;                    /* the slot changed hands meanwhile */
    }
    pis_slot_tel_read(p->ref.slot, &before);
    was_ok = before.error[0] == '\0';
    pis_slot_tel_write(p->ref.slot, pi_now_s(), pi_now_ms(), t, p->error);
    if (now_ok) {
        /* the energy integral: readings up to three intervals apart (the
         * staleness rule); a longer gap is not integrated */
        pis_energy_add(p->ref.slot, (uint64_t)(apr_time_now() / 1000),
                       pi_now_ms(), t->has_power ? t->power_mw : -1,
                       (uint32_t)(apr_time_as_msec(p->interval)
                                  * PIS_TEL_STALE_INTERVALS));
    }
    pis_slot_unpin(&p->ref);
    if (!before.has_any && before.error[0] == '\0' && now_ok) {
        return;                            /* first answer: nothing new */
    }
    if (was_ok && !now_ok) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, PISLOGNO(10040)
                     "probe of %s: %s%s", p->name, p->error,
                     p->hint ? p->hint : "");
    }
    else if (!was_ok && now_ok) {
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, PISLOGNO(10041)
                     "probe of %s: answers again (was: %s)", p->name,
                     before.error);
    }
    else if (!now_ok && strncmp(before.error, p->error,
                                sizeof(before.error) - 1) != 0) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, PISLOGNO(10042)
                     "probe of %s: %s (was: %s)%s", p->name, p->error,
                     before.error, p->hint ? p->hint : "");
    }
}

/* Ends a probe that is done or failed: the result goes to shared memory
 * at once, so a slow member does not delay the others' results. */
static void probe_finish(probe_t *p)
{
    pis_telemetry t;

    if (p->stored || (p->error == NULL && p->state != P_DONE)) {
        return;
    }
    if (p->fd >= 0) {
        close(p->fd);
        p->fd = -1;
    }
    if (p->ai != NULL) {
        freeaddrinfo(p->ai);
        p->ai = NULL;
    }
    memset(&t, 0, sizeof(t));
    if (p->error == NULL) {
        probe_parse(p, &t);
    }
    probe_store(p, p->s, &t);
    p->stored = 1;
}

/* The gate between the child and its probe thread.  mod_watchdog runs
 * the thread on a pool of the process and joins it only when that pool
 * goes, at exit(), after the child's pool, and with it the child's index
 * of members (pis_shm.c), is gone: a round still running then reads freed
 * memory (a prefork child stopped by a graceful restart while its probe
 * resolved a name died of SIGSEGV).  So the child pool's first cleanup
 * closes the gate and waits for a round in progress to end; no round
 * starts after.  Dekker-style: each side stores its flag, then reads the
 * other's, all sequentially consistent (32-bit atomics, fine on ARMv6). */
static uint32_t gate_closed;
static uint32_t in_round;

static int round_enter(void)
{
    __atomic_store_n(&in_round, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&gate_closed, __ATOMIC_SEQ_CST)) {
        __atomic_store_n(&in_round, 0, __ATOMIC_SEQ_CST);
        return 0;
    }
    return 1;
}

static void round_leave(void)
{
    __atomic_store_n(&in_round, 0, __ATOMIC_SEQ_CST);
}

/* Whether the child is going: a round in progress stops early. */
static int gate_is_closed(void)
{
    return __atomic_load_n(&gate_closed, __ATOMIC_SEQ_CST) != 0;
}

static apr_status_t close_gate(void *data)
{
    server_rec *s = data;
    apr_time_t until = pi_mono_us() + PIS_PROBE_EXIT_WAIT;

    __atomic_store_n(&gate_closed, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&in_round, __ATOMIC_SEQ_CST)) {
        if (pi_mono_us() >= until) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, PISLOGNO(11500)
                         "child exit: the telemetry probe did not end its"
                         " round within %d s (a resolver that hangs?)",
                         (int)apr_time_sec(PIS_PROBE_EXIT_WAIT));
            break;
        }
        apr_sleep(apr_time_from_msec(5));
    }
    return APR_SUCCESS;
}

void pis_probe_child_init(apr_pool_t *pchild, server_rec *s)
{
    __atomic_store_n(&gate_closed, 0, __ATOMIC_SEQ_CST);
    /* a pre-cleanup: runs before the child pool frees anything */
    apr_pool_pre_cleanup_register(pchild, s, close_gate);
}

/* Runs every started probe to its end or deadline. */
static void probe_poll(probe_t **ps, int n)
{
    struct pollfd *fds;
    int i;

    if (n <= 0 || n > PIS_PROBE_MAX_TARGETS) {
        return;
    }
    fds = calloc((size_t)n, sizeof(*fds));
    if (fds == NULL) {
        for (i = 0; i < n; i++) {
            ps[i]->error = ps[i]->error ? ps[i]->error : "out of memory";
        }
        return;
    }
    for (;;) {
        apr_time_t now = pi_mono_us(), next = 0;
        int live = 0, ms;

        for (i = 0; i < n; i++) {
            probe_t *p = ps[i];

            fds[i].fd = -1;
            if (p->error != NULL || p->state == P_DONE) {
                continue;
            }
            if (now >= p->deadline) {
                apr_snprintf(p->errbuf, sizeof(p->errbuf),
                             "no answer within %" APR_TIME_T_FMT " ms",
                             apr_time_as_msec(p->deadline - p->started));
                p->error = p->errbuf;
                probe_finish(p);
                continue;
            }
            fds[i].fd = p->fd;
            fds[i].events = p->state == P_CONNECTING ? POLLOUT : POLLIN;
            fds[i].revents = 0;
            next = (live++ == 0 || p->deadline < next) ? p->deadline : next;
        }
        if (live == 0 || gate_is_closed()) {
            break;                         /* done, or the child goes */
        }
        ms = (int)((next - now + 999) / 1000);
        ms = ms > 100 ? 100 : ms;          /* see the gate every 100 ms */
        if (poll(fds, (nfds_t)n, ms < 1 ? 1 : ms) < 0 && errno != EINTR) {
            break;
        }
        for (i = 0; i < n; i++) {
            if (fds[i].fd < 0 || fds[i].revents == 0) {
                continue;
            }
            if (ps[i]->state == P_CONNECTING) {
                probe_send(ps[i]);
            }
            else {
                probe_read(ps[i]);
            }
            probe_finish(ps[i]);
        }
    }
    free(fds);
}

/* Is the member due, and did this child win it?  Every child runs the
 * probe thread; the first to move a due member's "tried" stamp forward
 * probes it, the others skip it until the next interval. */
static int claim(pis_slot *slot, uint32_t now_ms, apr_time_t interval)
{
    uint32_t last = __atomic_load_n(&slot->tel.tried_ms, __ATOMIC_ACQUIRE);

    if (last != 0
        && (apr_time_t)(uint32_t)(now_ms - last) * 1000 < interval) {
        return 0;
    }
    return __atomic_compare_exchange_n(&slot->tel.tried_ms, &last,
                                       now_ms ? now_ms : 1, 0,
                                       __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* claim() on the member's slot while it is still the member's. */
static int claim_ref(const pis_slot_ref *ref, uint32_t now_ms,
                     apr_time_t interval)
{
    int won;

    if (!pis_slot_pin(ref)) {
        return 0;
    }
    won = claim(ref->slot, now_ms, interval);
    pis_slot_unpin(ref);
    return won;
}

/* Collects the members due for a probe. */
static int collect(apr_pool_t *pool, server_rec *main_s, probe_t ***out)
{
    apr_array_header_t *due = apr_array_make(pool, 16, sizeof(probe_t *));
    uint32_t now_ms = pi_now_ms();
    server_rec *s;

    for (s = main_s; s != NULL; s = s->next) {
        pis_srv_conf *c = pis_srv(s);
        proxy_server_conf *pc = pis_proxy_conf(s);
        apr_time_t interval = pis_conf_probe_interval(c);
        int bi, wi;

        for (bi = 0; pc && pis_conf_probe(c) && bi < pc->balancers->nelts;
             bi++) {
            proxy_balancer *b = &APR_ARRAY_IDX(pc->balancers, bi,
                                               proxy_balancer);

            if (pis_shm_inherited(s, b)) {
                continue;                  /* probed with the main server */
            }
            for (wi = 0; wi < b->workers->nelts; wi++) {
                proxy_worker *w = APR_ARRAY_IDX(b->workers, wi,
                                                proxy_worker *);
                pis_slot_ref ref;
                probe_t *p;

                if (pis_shm_ref(pool, s, b, w, &ref) != 0
                    || due->nelts >= PIS_PROBE_MAX_TARGETS
                    || !claim_ref(&ref, now_ms, interval)) {
                    continue;
                }
                p = apr_pcalloc(pool, sizeof(*p));
                p->pool = pool;
                p->ref = ref;
                p->name = w->s->name_ex;
                p->fd = -1;
                p->started = pi_mono_us();
                p->deadline = p->started + pis_conf_probe_timeout(c);
                p->interval = interval;
                if (!probed_scheme(w->s->scheme)) {
                    p->error = "not probed: not an HTTP member";
                }
                else {
                    char host[sizeof(w->s->hostname_ex) + 16];

                    pis_host_header(host, sizeof(host), w->s->hostname_ex,
                                    (unsigned)w->s->port);
                    p->request = apr_psprintf(pool, "GET %s HTTP/1.0\r\n"
                        "Host: %s\r\nUser-Agent: mod_pistats probe\r\n"
                        "Accept: text/plain\r\nConnection: close\r\n\r\n",
                        pis_conf_probe_path(c), host);
                    probe_connect(p, w->s->hostname_ex, w->s->port);
                }
                APR_ARRAY_PUSH(due, probe_t *) = p;
            }
        }
    }
    *out = (probe_t **)due->elts;
    return due->nelts;
}

static void probe_round(apr_pool_t *pool, server_rec *main_s)
{
    probe_t **ps;
    int n = collect(pool, main_s, &ps), i;

    for (i = 0; i < n; i++) {
        ps[i]->s = main_s;
        probe_finish(ps[i]);               /* failed before connecting */
    }
    probe_poll(ps, n);
    for (i = 0; i < n; i++) {
        probe_finish(ps[i]);
        if (ps[i]->fd >= 0) {
            close(ps[i]->fd);
        }
        if (ps[i]->ai != NULL) {
            freeaddrinfo(ps[i]->ai);
        }
    }
}

static apr_status_t probe_callback(int state, void *data, apr_pool_t *pool)
{
    if (state == AP_WATCHDOG_STATE_RUNNING && pis_shm_table() != NULL
        && round_enter()) {
        probe_round(pool, data);
        round_leave();
    }
    return APR_SUCCESS;                    /* anything else unregisters */
}

/* Are there members to probe? */
static int any_target(server_rec *s)
{
    for (; s != NULL; s = s->next) {
        proxy_server_conf *pc = pis_proxy_conf(s);
        int bi;

        for (bi = 0; pc && pis_conf_probe(pis_srv(s))
                     && bi < pc->balancers->nelts; bi++) {
            if (APR_ARRAY_IDX(pc->balancers, bi, proxy_balancer)
                    .workers->nelts > 0) {
                return 1;
            }
        }
    }
    return 0;
}

int pis_probe_post_config(apr_pool_t *pconf, server_rec *s)
{
    APR_OPTIONAL_FN_TYPE(ap_watchdog_get_instance) *get_instance;
    APR_OPTIONAL_FN_TYPE(ap_watchdog_register_callback) *register_cb;
    ap_watchdog_t *wd;
    apr_status_t rv;

    probe_active = 0;
    if (ap_find_linked_module("mod_proxy.c") == NULL || !any_target(s)
        || pis_shm_table() == NULL) {
        return OK;
    }
    get_instance = APR_RETRIEVE_OPTIONAL_FN(ap_watchdog_get_instance);
    register_cb = APR_RETRIEVE_OPTIONAL_FN(ap_watchdog_register_callback);
    if (get_instance == NULL || register_cb == NULL) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, PISLOGNO(10043)
                     "mod_watchdog is not available: members' telemetry"
                     " is not probed");
        return OK;
    }
    /* Not a singleton: a singleton pauses ~10 s each time its child is
     * recycled.  Every child runs the thread; claim() shares the work. */
    rv = get_instance(&wd, "_pistats_probe_", 0, 0, pconf);
    if (rv == APR_SUCCESS) {
        rv = register_cb(wd, AP_WD_TM_SLICE, s, probe_callback);
    }
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_ERR, rv, s, PISLOGNO(10044)
                     "cannot start the telemetry probe");
        return OK;
    }
    probe_active = 1;
    return OK;
}
