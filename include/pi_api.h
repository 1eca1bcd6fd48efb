/* pi_api.h -- the one contract between mod_pibalance and mod_pistats.
 *
 * Each module loads and works without the other, and they load in either
 * order: every function here is an APR optional function, looked up in
 * post_config (never at load time); NULL means the module that offers it
 * is not loaded.  Neither module includes the other's own headers: each
 * is compiled with -I for its own directory and include/ only.
 *
 * The structs are plain, and each starts with a pi_stamp.  The caller
 * stamps its struct (PI_STAMP_INIT: its size and the version it was built
 * with); the callee fills it only when both match its own and returns 0,
 * else returns -1 and leaves it alone.  The caller uses nothing from a
 * call that did not return 0.  A field is added by a new version.
 *
 * Not here: the request notes of the offload (pibalance-deflate-in, ...):
 * they are strings for LogFormat, documented in docs/offload.md.
 */
#ifndef PI_API_H
#define PI_API_H

#include "httpd.h"
#include "apr_optional.h"
#include "mod_proxy.h"

/* What a caller expected and what it got. */
typedef struct {
    apr_uint32_t size;             /* sizeof the struct */
    apr_uint32_t version;          /* its PI_*_VERSION */
} pi_stamp;

#define PI_STAMP_INIT(ptr, ver) \
    ((ptr)->stamp.size = (apr_uint32_t)sizeof(*(ptr)), \
     (ptr)->stamp.version = (ver))

/* For the callee: whether *ptr is the struct of version ver it fills. */
#define PI_STAMP_OK(ptr, ver) \
    ((ptr) != NULL && (ptr)->stamp.size == sizeof(*(ptr)) \
     && (ptr)->stamp.version == (ver))

/* ---- offered by mod_pistats ------------------------------------------ */

/* A member's node telemetry, as mod_pistats' probe last read it: what
 * lbmethod "pi" weighs a member by.  A has_* flag of 0: not known. */
#define PI_MEMBER_TEL_VERSION 3
typedef struct {
    pi_stamp stamp;
    int stale;                     /* no good reading within three probe
                                    * intervals (pis_tel_stale()) */
    int has_temp;
    int temp_dc;                   /* hottest zone, tenths of C */
    int has_throttled;
    unsigned long throttled;       /* firmware get_throttled bits */
    int has_cpus;
    long cpus;
    /* version 2: what the node is busy with (docs/multi-master.md) */
    int has_busy;
    unsigned long busy;            /* the node's BusyWorkers, last good
                                    * reading (the probe's own included) */
    unsigned long own_inflight;    /* this master's requests in flight to
                                    * the member when it was stored */
    long age_ms;                   /* age of that reading, -1: none */
    long interval_ms;              /* PiStatsProbeInterval */
    /* version 3: energy, from the node's PowerW (docs/metrics.md) */
    int has_power;
    long power_mw;                 /* last good reading */
    int has_jpr;                   /* a last-minute figure (requests in
                                    * it; telemetry not stale) */
    double jpr_j;                  /* joules per request, last minute */
    double jpr_above_idle_j;       /* the same above the node's idle
                                    * draw: what PiBalanceEnergy compares */
    unsigned long jpr_requests;    /* requests it is measured over */
} pi_member_tel;

/* Fills *out for member w of balancer b (in server s).  Returns 0, or -1
 * when the member has no statistics (or *out is not stamped as above).
 * Lock-free; never blocks: the finder calls it under the balancer's
 * mutex. */
APR_DECLARE_OPTIONAL_FN(int, pis_get_member_tel,
                        (server_rec *s, proxy_balancer *b, proxy_worker *w,
                         pi_member_tel *out));

/* An event of a balancer's member (or of the offload), for the recent
 * events of /pi-status: mod_pibalance posts one at each state change it
 * logs (once, whichever child sees it first).  Kinds are numbers of the
 * contract, never reused. */
#define PI_EVENT_VERSION 1
#define PI_EVENT_DRAINED      1    /* above the hard limit */
#define PI_EVENT_READMITTED   2    /* below hard - hysteresis again */
#define PI_EVENT_THROTTLED    3    /* the firmware throttles */
#define PI_EVENT_UNTHROTTLED  4
#define PI_EVENT_STALE        5    /* telemetry missing or stale */
#define PI_EVENT_FRESH        6    /* telemetry back */
#define PI_EVENT_FAILED       7    /* mod_proxy stopped using it */
#define PI_EVENT_BACK         8    /* usable again */
#define PI_EVENT_OFFLOAD      9    /* the offload's level changed */
typedef struct {
    pi_stamp stamp;
    int kind;                      /* PI_EVENT_* */
    int has_temp;
    int temp_dc;                   /* tenths of C */
    const char *balancer;          /* NULL for the offload */
    const char *member;            /* NULL for the offload */
    const char *detail;            /* short words, or NULL */
} pi_event;

/* Records *ev (copied; strings truncated) with the time of the call.
 * Returns 0, or -1 when it is not stamped as above or no ring exists.
 * Lock-free, allocates nothing, never blocks: callable under the
 * balancer's mutex. */
APR_DECLARE_OPTIONAL_FN(int, pis_post_event, (const pi_event *ev));

/* ---- offered by mod_pibalance ---------------------------------------- */

/* What lbmethod "pi" makes of a member, for /pi-status. */
#define PI_MEMBER_WEIGHT_VERSION 2
typedef struct {
    pi_stamp stamp;
    double weight;                 /* effective weight, loadfactor units */
    const char *state;             /* "ok", "warm", "drained", "stale",
                                    * "silent", ... (static) */
    /* version 2 */
    double estimate_us;            /* its response-time estimate now, as
                                    * the pick sees it; < 0: no sample */
    int last_failed;               /* its last attempt failed */
} pi_member_weight;

/* Fills *out for member w of balancer b.  Returns 0, or -1 when the
 * balancer does not use lbmethod "pi". */
APR_DECLARE_OPTIONAL_FN(int, pib_get_member_weight,
                        (server_rec *s, proxy_balancer *b, proxy_worker *w,
                         pi_member_weight *out));

/* The adaptive compression state of the offload, as last sampled (any
 * child). */
#define PI_DEFLATE_STATE_VERSION 1
typedef struct {
    pi_stamp stamp;
    int adaptive;                  /* PiBalanceDeflateAdaptive is On */
    const char *name;              /* "full", "reduced", "off" (static) */
    int cpu_busy_pct;              /* last sample, -1 unknown */
    int temp_mc;                   /* hottest zone, millidegrees C,
                                    * -1 unknown */
    unsigned changes;              /* state changes since start-up */
} pi_deflate_state;

/* Fills *out; returns 0 or -1.  Lock-free; cheap enough for every status
 * page hit. */
APR_DECLARE_OPTIONAL_FN(int, pib_deflate_state, (pi_deflate_state *out));

/* How the offload's compressed responses went, all children, since the
 * server started (graceful restarts keep them).  Counted when the
 * response ends. */
#define PI_DEFLATE_COUNTS_VERSION 3
#define PI_CODINGS_MAX 8            /* room for codings: ncodings used */
typedef struct {
    pi_stamp stamp;
    apr_uint64_t one_pass;         /* held whole, libdeflate, with
                                    * Content-Length */
    apr_uint64_t streamed;         /* zlib, chunked */
    apr_uint64_t trickled;         /* of streamed: held, then streamed
                                    * after the node paused 250 ms */
    apr_uint64_t compressor_waits; /* found every libdeflate compressor
                                    * of its level busy and waited */
    /* version 3: per coding the offload produces, ncodings of them in
     * mod_pibalance's order (its coding table), each named by its token
     * ("gzip", "br", ...: static strings of mod_pibalance, valid while it
     * is loaded; the four above count gzip only, as before): compressed
     * responses, and their bytes before and after compression */
    unsigned ncodings;
    const char *coding_name[PI_CODINGS_MAX];
    apr_uint64_t coding_responses[PI_CODINGS_MAX];
    apr_uint64_t coding_bytes_in[PI_CODINGS_MAX];
    apr_uint64_t coding_bytes_out[PI_CODINGS_MAX];
    /* version 2: with Apache's cache, requests whose Accept-Encoding
     * PiBalanceDeflateCacheKey normalised, as mod_cache reported them */
    apr_uint64_t cache_hits;       /* served from a stored copy */
    apr_uint64_t cache_misses;     /* not served from a stored copy */
    apr_uint64_t cache_revalidated;/* the node's 304 refreshed a copy */
    apr_uint64_t cache_bytes_saved;/* body bytes of hits and refreshed
                                    * copies: not sent by the node, not
                                    * compressed again */
} pi_deflate_counts;

/* Fills *out; returns 0 or -1.  Lock-free. */
APR_DECLARE_OPTIONAL_FN(int, pib_deflate_counters, (pi_deflate_counts *out));

/* The node answered: the connection-filter stamp of a 101.  A 101 (and
 * the tunnel after it) bypasses the request's output filters, going
 * straight to the connection's, so whoever times "the node started
 * answering" needs a connection filter for a request that asks for an
 * upgrade.  One filter does it for both modules: mod_pibalance offers it
 * (include/pi_answer.h, common/pi_answer.c); mod_pistats uses it through
 * this function, and its own copy of the same code only when
 * mod_pibalance is not loaded.
 *
 * For a request with an Upgrade header, fn(baton) is called once, when
 * the first response bytes pass the client connection's output filters
 * (the 101, or whatever else comes first); never after r's pool is gone.
 * Without an Upgrade header it does nothing.  Up to PI_ANSWER_MAX
 * watchers a request.  Returns 0, or -1 when none could be added. */
#define PI_ANSWER_MAX 4
typedef void pi_answer_fn(void *baton);
APR_DECLARE_OPTIONAL_FN(int, pib_watch_upgrade_answer,
                        (request_rec *r, pi_answer_fn *fn, void *baton));

/* The client's request body, as the proxy reads it: one input filter
 * does it for both modules, offered by mod_pibalance as above
 * (common/pi_bodyin.c).  A node cannot answer what it has not received:
 * the time the proxy spends waiting for the client's body (a phone's
 * 30-second upload, a client that trickles or stops) is the client's,
 * not the member's, and a body the client broke is the client's fault.
 *
 * pib_watch_body(): fn(baton, event) is called once with PI_BODY_READING
 * when the proxy first reads the body (for "Expect: 100-continue", after
 * the node's 100), and once with PI_BODY_IN when the body's end passes
 * (never after r's pool is gone, and not at all if the request ends
 * first).  Returns 1 when the request has no body, or it is in already
 * (fn is not called); 0 when it will be; -1 when no watcher could be
 * added.  Up to PI_BODYIN_MAX watchers a request.  fn NULL: no watcher,
 * only the filter in place (for pib_body_state()).
 *
 * pib_body_state(): how long the proxy has waited, blocked, for the
 * client's body so far, and whether reading it failed (the client
 * aborted, timed out or sent a malformed or too large body). */
#define PI_BODYIN_MAX 4
#define PI_BODY_READING 1
#define PI_BODY_IN      2
typedef void pi_bodyin_fn(void *baton, int event);
APR_DECLARE_OPTIONAL_FN(int, pib_watch_body,
                        (request_rec *r, pi_bodyin_fn *fn, void *baton));
APR_DECLARE_OPTIONAL_FN(void, pib_body_state,
                        (request_rec *r, apr_interval_time_t *client_wait,
                         int *client_failed));

/* The settings that decide a member's fate under lbmethod "pi", for
 * /pi-status: balancer b's PiBalance* values, merged (its <Proxy>
 * section over its server over the defaults), and the offload's level
 * there. */
#define PI_BALANCER_SETTINGS_VERSION 1
typedef struct {
    pi_stamp stamp;
    int soft_dc, hard_dc;          /* PiBalanceThermal, tenths of C */
    int hyst_dc;                   /* re-admitted below hard - hyst */
    double floor;                  /* thermal factor at the hard limit */
    double throttle_factor;        /* weight factor while throttled */
    double slowstart_s;            /* ramp of a returning member */
    double decay_s;                /* time constant of the estimate */
    int deflate_on;                /* PiBalanceDeflate at the balancer */
    int deflate_level;             /* PiBalanceDeflateLevel there */
    int deflate_level_now;         /* after PiBalanceDeflateAdaptive:
                                    * 0 = not compressing */
} pi_balancer_settings;

/* Fills *out for balancer b (of server s).  Returns 0, or -1 when b does
 * not use lbmethod "pi" (or *out is not stamped as above).  Allocates
 * nothing, never blocks. */
APR_DECLARE_OPTIONAL_FN(int, pib_get_balancer_settings,
                        (server_rec *s, proxy_balancer *b,
                         pi_balancer_settings *out));

#endif /* PI_API_H */
