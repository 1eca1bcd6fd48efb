/* pis_slot.h -- one balancer member's statistics in shared memory.
 *
 * Pure logic (libc and GCC's __atomic builtins on 32-bit words only), so
 * it is unit-tested without httpd and is lock-free on 32-bit ARM, where
 * 64-bit atomics may be library calls.  Every field is written by many
 * processes and threads at once without a lock:
 *
 * - counters are pi_ctr64: a 32-bit low word added atomically, and a
 *   high word bumped by whoever makes the low word wrap; readers re-read
 *   until the high word is stable;
 * - in-flight is started - finished (both 32-bit, wrapping);
 * - per-second and per-10-s rings are tagged with their second/epoch;
 *   the first writer of a new period claims the slot with a
 *   compare-and-swap and clears it.  A writer racing that clear may lose
 *   one increment, once a period: accepted, documented in docs/metrics.md;
 * - telemetry has one writer (the probe) and a sequence lock for readers.
 *
 * Not here: which slot belongs to which member (pis_shm.c) and what is
 * shown (pis_snapshot.c); the energy integral (pis_energy.c).  Size: see
 * docs/metrics.md (under 16 KiB a member).
 */
#ifndef PIS_SLOT_H
#define PIS_SLOT_H

#include <stdint.h>

#include "pi_ctr64.h"
#include "pis_hist.h"
#include "pis_telemetry.h"

#define PIS_KEY_MAX      256      /* "vhost|balancer|member" */
#define PIS_RING_S       320      /* per-second ring: > 300 s of history */
#define PIS_WIN_S        10       /* seconds per quantile window */
#define PIS_WIN_N        7        /* windows kept: quantiles over 60-70 s */
#define PIS_EWMA_TAU_MS  10000    /* time constant of the EWMA */
#define PIS_ERR_MAX      48       /* bytes of a probe error text */

/* A slot's life (pis_claim.c): FREE -> CLAIMING (taken by compare-and-
 * swap, key being written) -> KEYED (key written, checked against racing
 * claims of the same key) -> USED, or -> DEAD (lost a race) -> FREE. */
enum { PIS_SLOT_FREE = 0, PIS_SLOT_CLAIMING = 1, PIS_SLOT_USED = 2,
       PIS_SLOT_KEYED = 3, PIS_SLOT_DEAD = 4 };

/* Counters: common/pi_ctr64.h. */

typedef struct {
    uint32_t sec;                 /* the second this entry counts */
    uint32_t requests;
} pis_sec;

typedef struct {
    uint32_t sec;                 /* the second the probe wrote it */
    int32_t temp_dc;
} pis_temp_sec;

typedef struct {
    uint32_t epoch;               /* second / PIS_WIN_S */
    uint32_t counts[PIS_HIST_BUCKETS];
} pis_win;

/* Energy of one wall-clock second, as the probe integrated it. */
typedef struct {
    uint32_t sec;                 /* the second it counts */
    uint32_t uj;                  /* microjoules in it (saturates at
                                   * 4,294 J: a node above 4.29 kW) */
    uint32_t ms;                  /* milliseconds of it integrated */
} pis_energy_sec;

/* The integral of a member's probed power (pis_energy.h): one writer,
 * the probe that holds the member's claim. */
typedef struct {
    pi_ctr64 mj;                  /* all-time, millijoules */
    uint32_t frac_uj;             /* microjoules short of the next mJ */
    uint32_t last_mono_ms;        /* monotonic clock of the last reading */
    uint32_t last_wall_ms;        /* its wall clock (ms, mod 2^32): the
                                   * next interval starts there */
    uint32_t last_mw;             /* that reading's power */
    uint32_t have_last;           /* 1: a reading to integrate from */
    uint32_t min_mw;              /* the lowest reading: the idle draw */
    uint32_t has_min;
    /* the last minute, as of the last reading (pis_energy_window) */
    uint32_t win_mj;              /* energy of its wholly integrated s */
    uint32_t win_s;               /* those seconds */
    uint32_t win_requests;        /* requests finished in them */
    uint32_t win_at_s;            /* when it was computed; 0: never */
} pis_energy_shm;

/* Telemetry as the probe last saw it (flat, fixed size). */
typedef struct {
    uint32_t seq;                 /* odd while the probe writes */
    uint32_t ok_ms;               /* clock (ms) of the last good reading */
    uint32_t tried_ms;            /* clock (ms) of the last attempt */
    uint32_t has_any;             /* a good reading ever */
    uint32_t own_inflight;        /* this master's in flight to the
                                   * member when the good reading was
                                   * stored (BusyWorkers counts them) */
    pis_telemetry t;
    char error[PIS_ERR_MAX];      /* "" when the last attempt was good */
} pis_tel_shm;

typedef struct {
    uint32_t state;               /* PIS_SLOT_* */
    uint32_t gen;                 /* config generation that last had it */
    uint32_t owner;               /* bumped when the slot is given up */
    uint32_t pins;                /* writers between pin and unpin */
    char key[PIS_KEY_MAX];
#ifdef PIS_TEST_LAYOUT
    uint32_t test_pad[16];        /* another layout (t/pistats/shm_layout.t) */
#endif

    uint32_t started, finished;   /* in flight = started - finished */
    pi_ctr64 requests;
    pi_ctr64 status_class[5];
    pi_ctr64 proxy_errors;
    pi_ctr64 client_errors;       /* the client broke the request */
    pi_ctr64 bytes_in, bytes_out;
    pi_ctr64 hist[PIS_HIST_BUCKETS];
    pi_ctr64 hist_sum_us;
    uint32_t ewma_us, ewma_ms;    /* 0/0: no sample yet */

    pis_win win[PIS_WIN_N];
    pis_sec ring[PIS_RING_S];
    pis_temp_sec temps[PIS_RING_S];
    pis_tel_shm tel;
    pis_energy_shm energy;
    pis_energy_sec energy_ring[PIS_RING_S];
} pis_slot;

/* One finished request, as pis_track.c reports it. */
typedef struct {
    uint32_t now_s;               /* wall clock, seconds */
    uint32_t now_ms;              /* a millisecond clock (may wrap) */
    uint32_t dur_us;              /* response time */
    int status;                   /* HTTP status the node answered, or 0 */
    int proxy_error;              /* the proxy made the error itself */
    int client_error;             /* the client broke the request (its
                                   * body: common/pi_outcome.h): no
                                   * response time, not the member's */
    uint32_t bytes_in, bytes_out;
} pis_sample;

void pis_slot_start(pis_slot *s);
void pis_slot_finish(pis_slot *s, const pis_sample *x);

/* Readers. */
uint32_t pis_slot_inflight(const pis_slot *s);

/* Requests per second over the `secs` complete seconds before now_s. */
double pis_slot_rate(const pis_slot *s, uint32_t now_s, unsigned secs);

/* Sums the quantile windows of the last `secs` seconds into counts. */
void pis_slot_recent_hist(const pis_slot *s, uint32_t now_s, unsigned secs,
                          uint64_t *counts);

/* The EWMA in microseconds as of now_ms, or -1 with no sample. */
double pis_slot_ewma(const pis_slot *s);

/* Fills n seconds of history ending with the last complete second:
 * requests per second, and the temperature the probe wrote, carried
 * forward up to `hold_s` seconds (else INT16_MIN). */
void pis_slot_history(const pis_slot *s, uint32_t now_s, unsigned n,
                      unsigned hold_s, uint32_t *req, int16_t *temp);

/* The probe's writes (single writer) and a consistent read. */
void pis_slot_tel_write(pis_slot *s, uint32_t now_s, uint32_t now_ms,
                        const pis_telemetry *t, const char *error);
void pis_slot_tel_read(const pis_slot *s, pis_tel_shm *out);

/* The staleness rule of node telemetry, for /pi-status and for lbmethod
 * "pi" alike: telemetry is stale when it has no good reading, or none
 * within PIS_TEL_STALE_INTERVALS probe intervals.
 * pis_tel_age_s: seconds from tel's last good reading to now_ms, both
 * of pi_now_ms() (monotonic; taken signed by pi_age_ms(): a reading
 * stored after the caller read its clock is 0 s old, not 49 days), -1
 * when it never had one.
 * pis_tel_stale: the rule, for such an age. */
#define PIS_TEL_STALE_INTERVALS 3
double pis_tel_age_s(const pis_tel_shm *tel, uint32_t now_ms);
int pis_tel_stale(double age_s, double interval_s);

/* Clears everything but the identity. */
void pis_slot_reset(pis_slot *s);

#endif /* PIS_SLOT_H */
