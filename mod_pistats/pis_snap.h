/* pis_snap.h -- a snapshot of everything /pi-status shows.
 *
 * Plain structs, no httpd or APR types.  The handler fills one from
 * shared memory and the configuration (pis_snapshot.c), then a pure
 * renderer (pis_render_html.c, _auto, _json, _prom) writes HTML, ?auto,
 * ?json or ?prometheus from it.  Strings are NUL-terminated and may
 * hold anything a node or the configuration put there: every renderer
 * escapes them for its format.
 */
#ifndef PIS_SNAP_H
#define PIS_SNAP_H

#include <stdint.h>

#include "pis_event.h"
#include "pis_hist.h"
#include "pis_telemetry.h"

/* Room for the offload's codings (mod_pibalance names them: the tokens of
 * its coding table, through pi_deflate_counts). */
#define PIS_NCODINGS_MAX 8

#define PIS_HISTORY_S   300        /* seconds of per-second history */
#define PIS_TEMP_NONE   INT16_MIN  /* no temperature for that second */
#define PIS_POWER_NONE  (-1)       /* no power for that second */

/* Severity of a temperature / throttle state, for colours and alerts. */
typedef enum {
    PIS_SEV_UNKNOWN = 0,           /* no (fresh) reading */
    PIS_SEV_OK,                    /* below 70 C, not throttled */
    PIS_SEV_WARN,                  /* 70..80 C, or soft limit / capped */
    PIS_SEV_CRIT                   /* 80 C and up, or throttled now */
} pis_severity;

typedef struct {
    const char *name;              /* member URL (worker name_ex) */
    const char *route;             /* "" when none */
    const char *state;             /* mod_proxy's flags, e.g. "Init Ok " */
    int usable;                    /* mod_proxy would send to it */
    int lbfactor;                  /* loadfactor x 100 */

    /* From mod_pibalance, when loaded (has_weight == 0 otherwise). */
    int has_weight;
    double weight;                 /* effective weight, loadfactor units */
    const char *thermal_state;     /* e.g. "ok", "warm", "drained", "stale" */
    double estimate_us;            /* the pick's estimate; < 0: none */
    int last_failed;               /* its last attempt failed */

    /* Traffic. */
    uint32_t inflight;
    uint64_t requests;             /* finished requests */
    uint64_t status_class[5];      /* node responses 1xx .. 5xx */
    uint64_t proxy_errors;         /* 502/503/504 made by the proxy */
    uint64_t client_errors;        /* the client broke the request */
    uint64_t bytes_in;             /* body bytes received from the node */
    uint64_t bytes_out;            /* body bytes sent to the client */
    double rate1, rate10, rate60;  /* requests/s over the last 1/10/60 s */
    double p50_us, p95_us, p99_us; /* last ~60 s; -1 when no sample */
    double ewma_us;                /* -1 when no sample */
    uint64_t hist[PIS_HIST_BUCKETS]; /* all-time response times */
    uint64_t hist_count;           /* == sum of hist */
    double hist_sum_us;            /* sum of all response times */

    /* Node telemetry from the probe. */
    int probed;                    /* the probe covers this member */
    pis_telemetry tel;             /* has_* flags say what is known */
    double tel_age_s;              /* -1: never read */
    int tel_stale;                 /* older than three probe intervals */
    const char *probe_error;       /* NULL, or what went wrong last */
    pis_severity severity;

    /* Energy: the integral of the node's PowerW (pis_energy.h). */
    int has_energy;                /* something was integrated */
    double energy_j;               /* all-time (graceful restarts keep) */
    int has_idle;
    double idle_w;                 /* lowest reading: the idle draw */
    unsigned energy60_s;           /* wholly integrated s of the last 60 */
    double energy60_j;             /* their energy */
    uint64_t energy60_requests;    /* requests finished in them */
    int has_jpr;                   /* requests > 0 and telemetry fresh */
    double jpr_j;                  /* joules per request, last minute */
    double jpr_above_idle_j;       /* the same above the idle draw */

    /* Per-second history, oldest first; index PIS_HISTORY_S - 1 is the
     * last complete second. */
    uint32_t req_hist[PIS_HISTORY_S];
    int16_t temp_hist[PIS_HISTORY_S]; /* tenths of C, or PIS_TEMP_NONE */
    int32_t power_hist[PIS_HISTORY_S]; /* mW, or PIS_POWER_NONE */
} pis_member_snap;

typedef struct {
    const char *name;              /* "balancer://pis" */
    const char *vhost;             /* "host:port" of its virtual host */
    const char *lbmethod;          /* "pi", "byrequests", ... */
    int name_shared;               /* another balancer shown has this name
                                    * (a virtual host's own, BalancerInherit
                                    * Off): pis_snap_mark_shared() */
    unsigned nmembers;
    pis_member_snap *members;

    /* Its members' power together (pis_energy_totals). */
    int power_shown;               /* a member has a power sensor */
    unsigned power_members;        /* members with fresh PowerW */
    double power_w;                /* their sum */
    int has_jpr;                   /* some request in a measured second */
    double jpr_j;                  /* sum of the members' last-minute
                                    * energy / sum of their requests */

    /* What decides its members' fate, from mod_pibalance when the
     * balancer uses lbmethod "pi" (has_settings 0 otherwise). */
    int has_settings;
    int soft_dc, hard_dc;          /* PiBalanceThermal, tenths of C */
    int hyst_dc;                   /* re-admitted below hard - hyst */
    double floor, throttle_factor, slowstart_s, decay_s;
    int deflate_on;                /* the offload compresses here */
    int deflate_level;             /* configured */
    int deflate_level_now;         /* after adapting; 0: not compressing */
} pis_balancer_snap;

typedef struct {
    pis_telemetry self;            /* this server's own telemetry */
    const char *server_version;    /* "Apache/2.4.71 (Debian)" */
    const char *deflate_state;     /* offload state, NULL when unknown */
    int has_deflate_counts;        /* mod_pibalance's offload counters: */
    uint64_t deflate_one_pass;     /*   libdeflate, Content-Length */
    uint64_t deflate_streamed;     /*   zlib, chunked */
    uint64_t deflate_trickled;     /*   of streamed: the node paused */
    uint64_t deflate_waits;        /*   waited for a compressor */
    unsigned ncodings;             /*   per coding, as mod_pibalance
                                    *   names them: */
    const char *coding_name[PIS_NCODINGS_MAX];
    uint64_t deflate_coding[PIS_NCODINGS_MAX][3];
                                   /*   [coding][responses, bytes in,
                                    *   bytes out] */
    int has_adaptive;              /* the offload's adaptive state: */
    int adaptive_on;               /*   PiBalanceDeflateAdaptive On */
    const char *adaptive_name;     /*   "full", "reduced", "off" */
    unsigned adaptive_changes;     /*   changes since start-up */
    uint64_t cache_hits;           /*   with mod_cache (CacheKey On): */
    uint64_t cache_misses;
    uint64_t cache_revalidated;    /*   the node's 304 refreshed a copy */
    uint64_t cache_bytes_saved;    /*   body bytes of hits, refreshed */
    double now;                    /* seconds since the epoch */
    uint64_t uptime_s;             /* since the server started */
    double probe_interval_s;       /* 0 when no probe runs */
    unsigned nbalancers;
    pis_balancer_snap *balancers;
    unsigned nevents;              /* recent events, newest first */
    const pis_event *events;
} pis_snap;

/* Sets name_shared on every balancer whose name another balancer of the
 * snapshot has too (a virtual host's own balancer beside the main
 * server's).  Prometheus then labels their series with vhost as well:
 * without it the two would give the same series twice (pis_snap.c). */
void pis_snap_mark_shared(pis_snap *snap);

#endif /* PIS_SNAP_H */
