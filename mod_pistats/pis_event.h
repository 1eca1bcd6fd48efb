/* pis_event.h -- recent events of the balancers (drained, re-admitted,
 * throttled, telemetry stale, member failed or back, offload level
 * changed), in a bounded ring in shared memory, for /pi-status.
 *
 * Pure (libc and GCC's __atomic builtins on 32-bit words), unit-tested
 * in tests/unit/test_event.c, lock-free on 32-bit ARM.  Many writers
 * (any child, any thread) and readers at once:
 *
 * - a writer takes the event number n = next++ (atomic add) and writes
 *   entry n % PIS_EVENT_N under a sequence word: 2n+1 while it writes,
 *   2n+2 when done;
 * - a reader copies an entry and keeps it only when the sequence word
 *   was 2n+2 before and after the copy: a torn or overwritten entry is
 *   skipped, never shown.
 *
 * Bounded: the last PIS_EVENT_N events, 256 bytes each.  Left out: the
 * case of two writers in one entry at once (PIS_EVENT_N events posted
 * during one copy of 256 bytes) is detected only when it tears.
 */
#ifndef PIS_EVENT_H
#define PIS_EVENT_H

#include <stdint.h>

#define PIS_EVENT_N        64
#define PIS_EVENT_MAGIC    0x50694576U     /* "PiEv" */
#ifndef PIS_TEST_LAYOUT
#define PIS_EVENT_VERSION  1U
#else
/* A build with another layout, for t/pistats/shm_layout.t only. */
#define PIS_EVENT_VERSION  1001U
#endif
#define PIS_EVENT_NO_TEMP  INT32_MIN

/* What happened (numbers are the shared contract: never reuse one). */
typedef enum {
    PIS_EV_NONE = 0,
    PIS_EV_DRAINED = 1,
    PIS_EV_READMITTED = 2,
    PIS_EV_THROTTLED = 3,
    PIS_EV_UNTHROTTLED = 4,
    PIS_EV_STALE = 5,
    PIS_EV_FRESH = 6,
    PIS_EV_FAILED = 7,
    PIS_EV_BACK = 8,
    PIS_EV_OFFLOAD = 9,
    PIS_EV_KINDS
} pis_event_kind;

typedef struct {
    uint32_t seq;                  /* 2n+1 writing, 2n+2 done */
    uint32_t time_s;               /* wall clock, seconds */
    uint32_t time_ms;              /* milliseconds within the second */
    int32_t kind;                  /* pis_event_kind */
    int32_t temp_dc;               /* tenths of C, or PIS_EVENT_NO_TEMP */
    char balancer[80];             /* "balancer://x", may be "" */
    char member[112];              /* member URL, may be "" */
    char detail[44];               /* e.g. "full -> reduced", "0x50005" */
} pis_event;

typedef struct {
    uint32_t magic, version, entry_size, n;
    uint32_t next;                 /* events ever posted (wraps) */
    uint32_t pad[3];
    pis_event ev[PIS_EVENT_N];
} pis_event_ring;

/* Initialises a zeroed ring. */
void pis_event_ring_init(pis_event_ring *r);

/* Whether r is a ring of this layout. */
int pis_event_ring_ok(const pis_event_ring *r);

/* Posts an event: copies kind, times, temperature and the strings
 * (truncated to their fields) of *e; its seq is ignored. */
void pis_event_post(pis_event_ring *r, const pis_event *e);

/* Copies up to max events into out, newest first; returns how many. */
unsigned pis_event_recent(const pis_event_ring *r, pis_event *out,
                          unsigned max);

/* "drained", "re-admitted", ... (static); "" for an unknown kind. */
const char *pis_event_name(int kind);

/* Fills e (zeroes it first) with kind, time, temperature and strings;
 * NULL strings are "". */
void pis_event_make(pis_event *e, int kind, uint32_t time_s,
                    uint32_t time_ms, int32_t temp_dc, const char *balancer,
                    const char *member, const char *detail);

#endif /* PIS_EVENT_H */
