/* pis_slot.c -- lock-free per-member statistics (see pis_slot.h). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "pi_clock.h"
#include "pis_slot.h"

#define LOAD(p)        __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE(p, v)    __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define ADD(p, v)      __atomic_fetch_add((p), (v), __ATOMIC_ACQ_REL)
#define CAS(p, o, n)   __atomic_compare_exchange_n((p), (o), (n), 0, \
                           __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)

void pis_slot_start(pis_slot *s)
{
    ADD(&s->started, 1);
}

/* Returns the ring entry for `tag`, claiming and clearing it when it
 * still holds an older period. */
static pis_sec *ring_entry(pis_slot *s, uint32_t sec)
{
    pis_sec *e = &s->ring[sec % PIS_RING_S];
    uint32_t seen = LOAD(&e->sec);

    if (seen != sec && CAS(&e->sec, &seen, sec)) {
        STORE(&e->requests, 0);
    }
    return e;
}

static pis_win *window(pis_slot *s, uint32_t sec)
{
    uint32_t epoch = sec / PIS_WIN_S;
    pis_win *w = &s->win[epoch % PIS_WIN_N];
    uint32_t seen = LOAD(&w->epoch);

    if (seen != epoch && CAS(&w->epoch, &seen, epoch)) {
        unsigned i;

        for (i = 0; i < PIS_HIST_BUCKETS; i++) {
            STORE(&w->counts[i], 0);
        }
    }
    return w;
}

/* Time-decayed EWMA: the weight of a sample is 1 - e^(-dt/tau), at least
 * 1/20 so that bursts (dt ~ 0) still move it.  dt is taken on a wrapping
 * millisecond clock; a clock behind the last stamp (another thread read
 * the clock later but updated first, or the stamp of a sample at ms 0 is
 * 1) is dt 0, not 49.7 days: such a sample must not replace the mean. */
static void ewma_update(pis_slot *s, uint32_t now_ms, uint32_t us)
{
    uint32_t old = LOAD(&s->ewma_us), next;
    uint32_t last = LOAD(&s->ewma_ms);
    uint32_t dt = now_ms - last;
    double w;
    int tries = 0;

    if (dt > 0x7fffffffU) {
        dt = 0;
    }
    if (old == 0 && last == 0) {
        w = 1.0;
    }
    else {
        w = 1.0 - exp(-(double)dt / PIS_EWMA_TAU_MS);
        if (w < 0.05) {
            w = 0.05;
        }
    }
    do {
        double v = (double)old + ((double)us - (double)old) * w;

        next = v < 1.0 ? 1 : (uint32_t)(v + 0.5);
    } while (!CAS(&s->ewma_us, &old, next) && ++tries < 16);
    STORE(&s->ewma_ms, now_ms ? now_ms : 1);
}

void pis_slot_finish(pis_slot *s, const pis_sample *x)
{
    unsigned b = pis_hist_bucket(x->dur_us);

    ADD(&s->finished, 1);
    pi_ctr_add(&s->requests, 1);
    ADD(&ring_entry(s, x->now_s)->requests, 1);
    if (x->client_error) {
        /* The client's time, not a response time of the member's. */
        pi_ctr_add(&s->client_errors, 1);
        return;
    }
    if (x->proxy_error) {
        pi_ctr_add(&s->proxy_errors, 1);
    }
    else if (x->status >= 100 && x->status < 600) {
        pi_ctr_add(&s->status_class[x->status / 100 - 1], 1);
    }
    pi_ctr_add(&s->bytes_in, x->bytes_in);
    pi_ctr_add(&s->bytes_out, x->bytes_out);
    pi_ctr_add(&s->hist[b], 1);
    pi_ctr_add(&s->hist_sum_us, x->dur_us);
    ADD(&window(s, x->now_s)->counts[b], 1);
    ewma_update(s, x->now_ms, x->dur_us);
}

uint32_t pis_slot_inflight(const pis_slot *s)
{
    uint32_t n = LOAD(&s->started) - LOAD(&s->finished);

    /* finished can pass started for a moment (a request of an older
     * generation ending after a reset): that is zero, not 4 billion. */
    return n > 0x7fffffffU ? 0 : n;
}

double pis_slot_rate(const pis_slot *s, uint32_t now_s, unsigned secs)
{
    uint64_t sum = 0;
    unsigned i;

    for (i = 1; i <= secs && i < PIS_RING_S; i++) {
        uint32_t sec = now_s - i;
        const pis_sec *e = &s->ring[sec % PIS_RING_S];

        if (LOAD(&e->sec) == sec) {
            sum += LOAD(&e->requests);
        }
    }
    return secs ? (double)sum / secs : 0.0;
}

void pis_slot_recent_hist(const pis_slot *s, uint32_t now_s, unsigned secs,
                          uint64_t *counts)
{
    uint32_t now_epoch = now_s / PIS_WIN_S;
    unsigned back = (secs + PIS_WIN_S - 1) / PIS_WIN_S, i, b;

    memset(counts, 0, sizeof(*counts) * PIS_HIST_BUCKETS);
    if (back > PIS_WIN_N - 1) {
        back = PIS_WIN_N - 1;
    }
    /* the current, partial window and `back` complete ones */
    for (i = 0; i <= back; i++) {
        uint32_t epoch = now_epoch - i;
        const pis_win *w = &s->win[epoch % PIS_WIN_N];

        if (LOAD(&w->epoch) != epoch) {
            continue;
        }
        for (b = 0; b < PIS_HIST_BUCKETS; b++) {
            counts[b] += LOAD(&w->counts[b]);
        }
    }
}

double pis_slot_ewma(const pis_slot *s)
{
    uint32_t v = LOAD(&s->ewma_us);

    return v == 0 ? -1.0 : (double)v;
}

void pis_slot_history(const pis_slot *s, uint32_t now_s, unsigned n,
                      unsigned hold_s, uint32_t *req, int16_t *temp)
{
    unsigned i;
    int32_t last = INT16_MIN;
    uint32_t last_at = 0;
    int have = 0;

    /* oldest first; the temperature carries forward hold_s seconds */
    for (i = 0; i < n; i++) {
        uint32_t sec = now_s - n + i;
        const pis_sec *e = &s->ring[sec % PIS_RING_S];
        const pis_temp_sec *t = &s->temps[sec % PIS_RING_S];

        req[i] = LOAD(&e->sec) == sec ? LOAD(&e->requests) : 0;
        if (LOAD(&t->sec) == sec) {
            last = LOAD(&t->temp_dc);
            last_at = sec;
            have = 1;
        }
        temp[i] = (have && sec - last_at <= hold_s
                   && last >= INT16_MIN && last <= INT16_MAX)
                  ? (int16_t)last : INT16_MIN;
    }
}

void pis_slot_tel_write(pis_slot *s, uint32_t now_s, uint32_t now_ms,
                        const pis_telemetry *t, const char *error)
{
    pis_tel_shm *d = &s->tel;
    uint32_t seq = LOAD(&d->seq);

    STORE(&d->seq, seq | 1);                  /* odd: writing */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (d->tried_ms == 0) {
        d->tried_ms = now_ms;              /* else the claim's stamp stays */
    }
    if (error == NULL) {
        d->t = *t;
        d->own_inflight = pis_slot_inflight(s);
        d->ok_ms = now_ms;
        d->has_any = 1;
        d->error[0] = '\0';
    }
    else {
        strncpy(d->error, error, sizeof(d->error) - 1);
        d->error[sizeof(d->error) - 1] = '\0';
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    STORE(&d->seq, (seq | 1) + 1);            /* even: done */
    if (error == NULL && t->has_temp) {
        pis_temp_sec *e = &s->temps[now_s % PIS_RING_S];

        STORE(&e->temp_dc, t->temp_dc);
        STORE(&e->sec, now_s);
    }
}

void pis_slot_tel_read(const pis_slot *s, pis_tel_shm *out)
{
    int tries = 0;
    uint32_t a, b;

    do {
        a = LOAD(&s->tel.seq);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        memcpy(out, &s->tel, sizeof(*out));
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        b = LOAD(&s->tel.seq);
    } while ((a != b || (a & 1)) && ++tries < 100);
    out->error[sizeof(out->error) - 1] = '\0';
    out->t.node[sizeof(out->t.node) - 1] = '\0';
}

double pis_tel_age_s(const pis_tel_shm *tel, uint32_t now_ms)
{
    return tel->has_any ? (double)pi_age_ms(now_ms, tel->ok_ms) / 1000.0
                        : -1.0;
}

int pis_tel_stale(double age_s, double interval_s)
{
    return age_s < 0 || age_s > PIS_TEL_STALE_INTERVALS * interval_s;
}

void pis_slot_reset(pis_slot *s)
{
    size_t off = offsetof(pis_slot, started);

    memset((char *)s + off, 0, sizeof(*s) - off);
}
