/* pib_mstate.h -- one member's state of lbmethod "pi", shared by all
 * children, and the small named operations on it.
 *
 * Pure (libc and GCC's __atomic builtins on 32-bit words only: 32-bit ARM
 * has no cheap 64-bit atomics), unit-tested in tests/unit/test_mstate.c.
 * Every field is read and written by many processes and threads at once,
 * without a lock: each operation below says what it does to which field;
 * nothing else touches a field but through them.  Where the states live
 * (one segment per generation) is pib_state.c's business.
 */
#ifndef PIB_MSTATE_H
#define PIB_MSTATE_H

#include <stdint.h>

#include "pi_clock.h"          /* pi_now_ms, pi_age_ms */

typedef struct {
    uint32_t est_us;       /* peak-EWMA of response time, 0: no sample */
    uint32_t est_ms;       /* clock of the last sample */
    uint32_t drained;      /* 1: drained for heat */
    uint32_t throttled;    /* 1: throttle bits set (as last logged) */
    uint32_t stale;        /* 0 never fresh, 1 fresh, 2 stale since */
    uint32_t down;         /* 1: unusable when last looked at */
    uint32_t up_ms;        /* slow start began (clock), 0: none */
    uint32_t wait_ms;      /* clock of a pick that no answer has followed
                              yet, 0: none (the silence rule) */
    uint32_t failed;       /* 1: its last attempt failed */
} pib_mstate;

/* ---- the silence mark (wait_ms) ---- */

/* A pick of the member at `now`: marks it unless a pick is marked. */
void pib_ms_mark_pick(pib_mstate *st, uint32_t now);

/* The clock of the marked pick, 0: none. */
uint32_t pib_ms_pick_mark(const pib_mstate *st);

/* Clears the mark if it is still `mark` (one a dead child left). */
void pib_ms_drop_mark(pib_mstate *st, uint32_t mark);

/* The member answered (or failed): no pick is waiting any more. */
void pib_ms_answered(pib_mstate *st);

/* ---- the estimate (est_us, est_ms) ---- */

/* The estimate at `now`, halved every decay_s since its last sample
 * (pib_est_now); < 0: no sample yet. */
double pib_ms_estimate(const pib_mstate *st, uint32_t now, double decay_s);

/* Adds an attempt's sample taken at now_ms: took_us, or for a failed
 * attempt pib_fail_sample(took_us, estimate, compound); peak-EWMA with
 * decay_s (pib_est_update).  Lock-free (compare-and-swap, at most 16
 * tries under contention: a lost sample is one of many). */
void pib_ms_add_sample(pib_mstate *st, uint32_t now_ms, uint32_t took_us,
                       int failed, int compound, double decay_s);

/* The estimate is forgotten (no sample: the median of the others). */
void pib_ms_forget_estimate(pib_mstate *st);

/* ---- failures (failed) ---- */

/* Whether its last attempt failed. */
uint32_t pib_ms_failed(const pib_mstate *st);

/* Its last attempt failed (1) or not (0). */
void pib_ms_set_failed(pib_mstate *st, uint32_t failed);

/* Its failures are forgotten: the flag cleared (compare-and-swap) and,
 * when this call cleared it, the estimate too (no sample: the median of
 * the others).  Returns 1 when it had failed, 0 when not (or another
 * caller forgot them first). */
int pib_ms_forget_failures(pib_mstate *st);

/* ---- logged states: each change is seen by one caller of many ---- */

/* Its telemetry is fresh now.  Returns 1 when it was stale before (it is
 * back: log it), 0 when it was fresh or never was (the first reading). */
int pib_ms_note_fresh(pib_mstate *st);

/* Its telemetry is stale now.  Returns 1 when it was fresh before. */
int pib_ms_note_stale(pib_mstate *st);

/* Throttled (on 1) or not (0) now, drained for heat or not: each returns
 * 1 when that changed the flag, 0 when it was so already. */
int pib_ms_note_throttled(pib_mstate *st, int on);
int pib_ms_note_drained(pib_mstate *st, int on);

/* ---- slow start (up_ms), heat and usability ---- */

/* Its slow start begins at `now`. */
void pib_ms_start_ramp(pib_mstate *st, uint32_t now);

/* The clock its slow start began, 0: none. */
uint32_t pib_ms_ramp_began(const pib_mstate *st);

/* Its slow start is over. */
void pib_ms_end_ramp(pib_mstate *st);

/* Whether it is drained for heat (as last applied). */
uint32_t pib_ms_drained(const pib_mstate *st);

/* It is unusable now: notes it, so its return is seen.  Returns 1 when
 * it was not noted yet, 0 when it was. */
int pib_ms_note_down(pib_mstate *st);

/* Whether it is noted down (not served since it was seen unusable). */
uint32_t pib_ms_down(const pib_mstate *st);

/* It served a request while usable: the end of its time down.  Returns
 * 1 once for each pib_ms_note_down() that returned 1 (compare-and-swap:
 * one caller of many), 0 when it was not noted down. */
int pib_ms_note_up(pib_mstate *st);

#endif /* PIB_MSTATE_H */
