/* pis_energy.c -- a member's energy, integrated from its probed power
 * (see pis_energy.h). */
#include <string.h>

#include "pis_energy.h"

#define LOAD(p)        __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE(p, v)    __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* The ring entry of second sec, cleared when it held an older one (one
 * writer: no race between writers; a reader checks the tag). */
static pis_energy_sec *entry(pis_slot *s, uint32_t sec)
{
    pis_energy_sec *e = &s->energy_ring[sec % PIS_RING_S];

    if (LOAD(&e->sec) != sec) {
        STORE(&e->uj, 0);
        STORE(&e->ms, 0);
        STORE(&e->sec, sec);
    }
    return e;
}

/* Adds uj microjoules to the all-time counter, carrying the fraction
 * of a millijoule to the next call. */
static void count(pis_slot *s, uint64_t uj)
{
    uint64_t mj;

    uj += s->energy.frac_uj;
    mj = uj / 1000;
    STORE(&s->energy.frac_uj, (uint32_t)(uj % 1000));
    while (mj > 0) {                   /* pi_ctr_add takes 32 bits */
        uint32_t part = mj > 0x7fffffffU ? 0x7fffffffU : (uint32_t)mj;

        pi_ctr_add(&s->energy.mj, part);
        mj -= part;
    }
}

/* The power at `at` of a line from p0 at t0 to p1 at t1, milliwatts. */
static double power_at(uint64_t at, uint64_t t0, uint64_t t1, double p0,
                       double p1)
{
    return t1 == t0 ? p1 : p0 + (p1 - p0) * (double)(at - t0)
                                 / (double)(t1 - t0);
}

/* Spreads the interval (t0, t1] of wall milliseconds, power p0 to p1,
 * over the seconds it covers; only the last PIS_RING_S seconds of it
 * (older ones are outside the ring). */
static void spread(pis_slot *s, uint64_t t0, uint64_t t1, double p0,
                   double p1)
{
    uint64_t a = t0, keep = (uint64_t)PIS_RING_S * 1000;

    if (t1 - t0 > keep) {
        a = t1 - keep;
    }
    while (a < t1) {
        uint64_t b = (a / 1000 + 1) * 1000;
        double uj;
        pis_energy_sec *e;

        b = b > t1 ? t1 : b;
        uj = (power_at(a, t0, t1, p0, p1) + power_at(b, t0, t1, p0, p1))
             / 2 * (double)(b - a);
        e = entry(s, (uint32_t)(a / 1000));
        uj += LOAD(&e->uj) + 0.5;
        STORE(&e->uj, uj > 4294967295.0 ? 0xffffffffU : (uint32_t)uj);
        STORE(&e->ms, LOAD(&e->ms) + (uint32_t)(b - a));
        a = b;
    }
}

/* The last minute's figures as of second now_s, into the slot. */
static void window(pis_slot *s, uint32_t now_s)
{
    uint64_t mj = 0, req = 0;
    uint32_t covered = 0;
    unsigned i;

    for (i = 1; i <= PIS_ENERGY_WINDOW_S; i++) {
        uint32_t sec = now_s - i;
        const pis_energy_sec *e = &s->energy_ring[sec % PIS_RING_S];
        const pis_sec *r = &s->ring[sec % PIS_RING_S];

        if (LOAD(&e->sec) != sec || LOAD(&e->ms) < 1000) {
            continue;                  /* not wholly integrated */
        }
        mj += LOAD(&e->uj);             /* microjoules here */
        covered++;
        if (LOAD(&r->sec) == sec) {
            req += LOAD(&r->requests);
        }
    }
    mj = (mj + 500) / 1000;
    STORE(&s->energy.win_mj, mj > 0xffffffffU ? 0xffffffffU : (uint32_t)mj);
    STORE(&s->energy.win_s, covered);
    STORE(&s->energy.win_requests,
          req > 0xffffffffU ? 0xffffffffU : (uint32_t)req);
    STORE(&s->energy.win_at_s, now_s ? now_s : 1);
}

void pis_energy_add(pis_slot *s, uint64_t wall_ms, uint32_t mono_ms,
                    long mw, uint32_t max_gap_ms)
{
    pis_energy_shm *e = &s->energy;
    uint32_t dt = mono_ms - e->last_mono_ms;

    if (mw >= 0 && e->have_last && dt > 0 && dt <= max_gap_ms) {
        double p0 = e->last_mw, p1 = (double)mw;
        uint32_t wall_dt = (uint32_t)wall_ms - e->last_wall_ms;

        count(s, ((uint64_t)e->last_mw + (uint64_t)mw) * dt / 2);
        /* The seconds: from where the last interval ended, so that the
         * pieces abut and a second is whole (1000 ms) once both sides
         * are in, whatever the two clocks' rounding; the monotonic
         * interval when the wall clock stepped (more than 1 s apart). */
        if (wall_dt > dt + 1000 || wall_dt + 1000 < dt || wall_dt == 0) {
            wall_dt = dt;
        }
        spread(s, wall_ms - wall_dt, wall_ms, p0, p1);
    }
    if (mw >= 0) {
        uint32_t v = (uint32_t)mw;

        if (!e->has_min || v < e->min_mw) {
            STORE(&e->min_mw, v);
            STORE(&e->has_min, 1);
        }
        STORE(&e->last_mw, v);
        STORE(&e->last_mono_ms, mono_ms);
        STORE(&e->last_wall_ms, (uint32_t)wall_ms);
    }
    STORE(&e->have_last, mw >= 0 ? 1U : 0U);
    window(s, (uint32_t)(wall_ms / 1000));
}

int pis_energy_per_request(uint64_t mj, unsigned covered_s,
                           uint64_t requests, long idle_mw, double *jpr,
                           double *above)
{
    double j = (double)mj / 1000.0, rest;

    if (requests == 0) {
        return 0;
    }
    *jpr = j / (double)requests;
    rest = idle_mw >= 0 ? j - (double)idle_mw / 1000.0 * covered_s : j;
    *above = rest > 0 ? rest / (double)requests : 0.0;
    return 1;
}

void pis_energy_read(const pis_slot *s, pis_energy_view *v)
{
    const pis_energy_shm *e = &s->energy;
    uint64_t mj = pi_ctr_read(&e->mj);

    memset(v, 0, sizeof(*v));
    v->energy_j = (double)mj / 1000.0
                  + (double)LOAD(&e->frac_uj) / 1e6;
    v->has_energy = mj > 0 || LOAD(&e->frac_uj) > 0;
    v->has_idle = LOAD(&e->has_min) != 0;
    v->idle_w = v->has_idle ? LOAD(&e->min_mw) / 1000.0 : 0;
    v->window_s = LOAD(&e->win_s);
    v->window_j = LOAD(&e->win_mj) / 1000.0;
    v->window_requests = LOAD(&e->win_requests);
    v->window_at_s = LOAD(&e->win_at_s);
    v->has_jpr = v->window_s > 0
        && pis_energy_per_request(LOAD(&e->win_mj), v->window_s,
                                  v->window_requests,
                                  v->has_idle ? (long)LOAD(&e->min_mw) : -1,
                                  &v->jpr_j, &v->jpr_above_idle_j);
}

void pis_energy_history(const pis_slot *s, uint32_t now_s, unsigned n,
                        int32_t *mw)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        uint32_t sec = now_s - n + i;
        const pis_energy_sec *e = &s->energy_ring[sec % PIS_RING_S];
        uint32_t ms = LOAD(&e->ms);

        mw[i] = LOAD(&e->sec) == sec && ms > 0
                ? (int32_t)((uint64_t)LOAD(&e->uj) / ms) : -1;
    }
}

void pis_energy_snap(const pis_slot *sl, uint32_t now_s,
                     pis_member_snap *m)
{
    pis_energy_view v;
    unsigned i;

    if (sl == NULL) {
        for (i = 0; i < PIS_HISTORY_S; i++) {
            m->power_hist[i] = PIS_POWER_NONE;
        }
        return;
    }
    pis_energy_read(sl, &v);
    m->has_energy = v.has_energy;
    m->energy_j = v.energy_j;
    m->has_idle = v.has_idle;
    m->idle_w = v.idle_w;
    m->energy60_s = v.window_s;
    m->energy60_j = v.window_j;
    m->energy60_requests = v.window_requests;
    m->has_jpr = v.has_jpr && !m->tel_stale;
    m->jpr_j = v.jpr_j;
    m->jpr_above_idle_j = v.jpr_above_idle_j;
    pis_energy_history(sl, now_s, PIS_HISTORY_S, m->power_hist);
}

void pis_energy_totals(pis_balancer_snap *b)
{
    double j = 0;
    uint64_t req = 0;
    unsigned i;

    b->power_shown = 0;
    b->power_members = 0;
    b->power_w = 0;
    for (i = 0; i < b->nmembers; i++) {
        const pis_member_snap *m = &b->members[i];

        b->power_shown |= m->tel.power_sensor || m->has_energy;
        if (m->tel.has_power && !m->tel_stale) {
            b->power_members++;
            b->power_w += m->tel.power_mw / 1000.0;
        }
        if (m->has_jpr) {
            j += m->energy60_j;
            req += m->energy60_requests;
        }
    }
    b->has_jpr = req > 0;
    b->jpr_j = req > 0 ? j / (double)req : 0;
}
