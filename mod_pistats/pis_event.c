/* pis_event.c -- the ring of recent events (see pis_event.h). */
#include <string.h>

#include "pis_event.h"

static const char *const pis_event_names[PIS_EV_KINDS] = {
    "", "drained", "re-admitted", "throttled", "no longer throttled",
    "telemetry stale", "telemetry back", "member failed", "member back",
    "offload level changed"
};

void pis_event_ring_init(pis_event_ring *r)
{
    r->magic = PIS_EVENT_MAGIC;
    r->version = PIS_EVENT_VERSION;
    r->entry_size = (uint32_t)sizeof(pis_event);
    r->n = PIS_EVENT_N;
    r->next = 0;
}

int pis_event_ring_ok(const pis_event_ring *r)
{
    return r != NULL && r->magic == PIS_EVENT_MAGIC
           && r->version == PIS_EVENT_VERSION
           && r->entry_size == sizeof(pis_event) && r->n == PIS_EVENT_N;
}

static void copy_str(char *dst, size_t size, const char *src)
{
    size_t n = src ? strlen(src) : 0;

    if (n >= size) {
        n = size - 1;
    }
    if (n > 0) {
        memcpy(dst, src, n);
    }
    dst[n] = '\0';
}

void pis_event_make(pis_event *e, int kind, uint32_t time_s,
                    uint32_t time_ms, int32_t temp_dc, const char *balancer,
                    const char *member, const char *detail)
{
    memset(e, 0, sizeof(*e));
    e->kind = kind;
    e->time_s = time_s;
    e->time_ms = time_ms % 1000;
    e->temp_dc = temp_dc;
    copy_str(e->balancer, sizeof(e->balancer), balancer);
    copy_str(e->member, sizeof(e->member), member);
    copy_str(e->detail, sizeof(e->detail), detail);
}

void pis_event_post(pis_event_ring *r, const pis_event *e)
{
    uint32_t n = __atomic_fetch_add(&r->next, 1, __ATOMIC_ACQ_REL);
    pis_event *slot = &r->ev[n % PIS_EVENT_N];

    __atomic_store_n(&slot->seq, 2 * n + 1, __ATOMIC_RELEASE);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    slot->time_s = e->time_s;
    slot->time_ms = e->time_ms;
    slot->kind = e->kind;
    slot->temp_dc = e->temp_dc;
    memcpy(slot->balancer, e->balancer, sizeof(slot->balancer));
    slot->balancer[sizeof(slot->balancer) - 1] = '\0';
    memcpy(slot->member, e->member, sizeof(slot->member));
    slot->member[sizeof(slot->member) - 1] = '\0';
    memcpy(slot->detail, e->detail, sizeof(slot->detail));
    slot->detail[sizeof(slot->detail) - 1] = '\0';
    __atomic_store_n(&slot->seq, 2 * n + 2, __ATOMIC_RELEASE);
}

/* Entry n, when it is whole and still event n: 1, else 0. */
static int read_one(const pis_event_ring *r, uint32_t n, pis_event *out)
{
    const pis_event *slot = &r->ev[n % PIS_EVENT_N];
    uint32_t before = __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE);

    if (before != 2 * n + 2) {
        return 0;
    }
    memcpy(out, slot, sizeof(*out));
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&slot->seq, __ATOMIC_RELAXED) != before) {
        return 0;
    }
    out->seq = before;
    out->balancer[sizeof(out->balancer) - 1] = '\0';
    out->member[sizeof(out->member) - 1] = '\0';
    out->detail[sizeof(out->detail) - 1] = '\0';
    return out->kind > PIS_EV_NONE && out->kind < PIS_EV_KINDS;
}

unsigned pis_event_recent(const pis_event_ring *r, pis_event *out,
                          unsigned max)
{
    uint32_t next = __atomic_load_n(&r->next, __ATOMIC_ACQUIRE);
    uint32_t back, span = next < PIS_EVENT_N ? next : PIS_EVENT_N;
    unsigned got = 0;

    for (back = 1; back <= span && got < max; back++) {
        got += (unsigned)read_one(r, next - back, &out[got]);
    }
    return got;
}

const char *pis_event_name(int kind)
{
    return kind > PIS_EV_NONE && kind < PIS_EV_KINDS
           ? pis_event_names[kind] : "";
}
