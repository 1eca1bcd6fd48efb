/* pib_mstate.c -- the named operations on a member's shared state (see
 * pib_mstate.h).  Plain loads keep the common case (nothing to change)
 * free of locked instructions on the per-request path. */
#include "pib_mstate.h"
#include "pib_score.h"

#define LOAD(p)      __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define PEEK(p)      __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v)  __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define CAS(p, o, v) __atomic_compare_exchange_n((p), (o), (v), 0, \
                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)

void pib_ms_mark_pick(pib_mstate *st, uint32_t now)
{
    uint32_t none = 0;

    if (PEEK(&st->wait_ms) == 0) {
        CAS(&st->wait_ms, &none, now ? now : 1);
    }
}

uint32_t pib_ms_pick_mark(const pib_mstate *st)
{
    return LOAD(&st->wait_ms);
}

void pib_ms_drop_mark(pib_mstate *st, uint32_t mark)
{
    CAS(&st->wait_ms, &mark, 0);
}

void pib_ms_answered(pib_mstate *st)
{
    if (PEEK(&st->wait_ms) != 0) {
        STORE(&st->wait_ms, 0);
    }
}

double pib_ms_estimate(const pib_mstate *st, uint32_t now, double decay_s)
{
    return pib_est_now(LOAD(&st->est_us),
                       pi_age_ms(now, LOAD(&st->est_ms)), decay_s);
}

void pib_ms_add_sample(pib_mstate *st, uint32_t now_ms, uint32_t took_us,
                       int failed, int compound, double decay_s)
{
    uint32_t old = LOAD(&st->est_us), us, next;
    int tries = 0;

    do {
        us = failed ? pib_fail_sample(took_us, old, compound) : took_us;
        next = pib_est_update(old, pi_age_ms(now_ms, LOAD(&st->est_ms)),
                              us, decay_s);
    } while (!CAS(&st->est_us, &old, next) && ++tries < 16);
    STORE(&st->est_ms, now_ms);
}

void pib_ms_forget_estimate(pib_mstate *st)
{
    STORE(&st->est_us, 0);
}

uint32_t pib_ms_failed(const pib_mstate *st)
{
    return LOAD(&st->failed);
}

void pib_ms_set_failed(pib_mstate *st, uint32_t failed)
{
    STORE(&st->failed, failed);
}

/* from -> to, once; the plain load first keeps the common case (no
 * change) free of locked instructions on the per-request path. */
static int flip(uint32_t *p, uint32_t from, uint32_t to)
{
    if (PEEK(p) != from) {
        return 0;
    }
    return CAS(p, &from, to);
}

int pib_ms_forget_failures(pib_mstate *st)
{
    if (!flip(&st->failed, 1, 0)) {
        return 0;
    }
    pib_ms_forget_estimate(st);
    return 1;
}

/* stale: 0 never fresh yet, 1 fresh, 2 stale since */
int pib_ms_note_fresh(pib_mstate *st)
{
    flip(&st->stale, 0, 1);
    return flip(&st->stale, 2, 1);
}

int pib_ms_note_stale(pib_mstate *st)
{
    return flip(&st->stale, 1, 2);
}

int pib_ms_note_throttled(pib_mstate *st, int on)
{
    return flip(&st->throttled, on ? 0 : 1, on ? 1 : 0);
}

int pib_ms_note_drained(pib_mstate *st, int on)
{
    return flip(&st->drained, on ? 0 : 1, on ? 1 : 0);
}

void pib_ms_start_ramp(pib_mstate *st, uint32_t now)
{
    STORE(&st->up_ms, now ? now : 1);
}

uint32_t pib_ms_ramp_began(const pib_mstate *st)
{
    return PEEK(&st->up_ms);
}

void pib_ms_end_ramp(pib_mstate *st)
{
    STORE(&st->up_ms, 0);
}

uint32_t pib_ms_drained(const pib_mstate *st)
{
    return PEEK(&st->drained);
}

int pib_ms_note_down(pib_mstate *st)
{
    return flip(&st->down, 0, 1);
}

uint32_t pib_ms_down(const pib_mstate *st)
{
    return PEEK(&st->down);
}

int pib_ms_note_up(pib_mstate *st)
{
    return flip(&st->down, 1, 0);
}
