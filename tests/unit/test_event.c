/* test_event.c -- the ring of recent events (pis_event.h): newest first,
 * bounded, a torn or overwritten entry never shown, writers racing. */
#include <pthread.h>
#include <stdlib.h>

#include "unit.h"
#include "pis_event.h"

static pis_event_ring ring;

static void post(int kind, uint32_t t, const char *member)
{
    pis_event e;

    pis_event_make(&e, kind, t, 1234, 581, "balancer://op", member, NULL);
    pis_event_post(&ring, &e);
}

static void order_and_bound(void)
{
    pis_event out[PIS_EVENT_N + 4];
    unsigned i, n;

    memset(&ring, 0, sizeof(ring));
    pis_event_ring_init(&ring);
    CHECK(pis_event_ring_ok(&ring));
    CHECK_INT(pis_event_recent(&ring, out, PIS_EVENT_N), 0);
    post(PIS_EV_DRAINED, 100, "http://a");
    post(PIS_EV_READMITTED, 107, "http://a");
    n = pis_event_recent(&ring, out, PIS_EVENT_N);
    CHECK_INT(n, 2);
    CHECK_INT(out[0].kind, PIS_EV_READMITTED);        /* newest first */
    CHECK_INT(out[0].time_s, 107);
    CHECK_INT(out[0].time_ms, 234);
    CHECK_INT(out[1].kind, PIS_EV_DRAINED);
    CHECK_INT(out[1].temp_dc, 581);
    CHECK_STR(out[1].balancer, "balancer://op");
    CHECK_STR(out[1].member, "http://a");
    CHECK_STR(out[1].detail, "");
    CHECK_INT(pis_event_recent(&ring, out, 1), 1);    /* max honoured */
    /* More than the ring holds: the last PIS_EVENT_N, newest first. */
    for (i = 0; i < PIS_EVENT_N + 10; i++) {
        post(PIS_EV_STALE, 1000 + i, "http://b");
    }
    n = pis_event_recent(&ring, out, PIS_EVENT_N + 4);
    CHECK_INT(n, PIS_EVENT_N);
    CHECK_INT(out[0].time_s, 1000 + PIS_EVENT_N + 9);
    CHECK_INT(out[n - 1].time_s, 1000 + 10);
    for (i = 1; i < n; i++) {
        CHECK(out[i].time_s + 1 == out[i - 1].time_s);
    }
}

static void torn_and_truncated(void)
{
    pis_event out[PIS_EVENT_N], e;
    char longname[400];
    unsigned n;

    memset(&ring, 0, sizeof(ring));
    pis_event_ring_init(&ring);
    post(PIS_EV_FAILED, 5, "http://x");
    post(PIS_EV_BACK, 6, "http://x");
    ring.ev[1].seq = 3;                    /* a writer in the middle */
    n = pis_event_recent(&ring, out, PIS_EVENT_N);
    CHECK_INT(n, 1);
    CHECK_INT(out[0].kind, PIS_EV_FAILED);
    ring.ev[1].seq = 4;
    ring.ev[1].kind = 99;                  /* garbage kind: skipped */
    CHECK_INT(pis_event_recent(&ring, out, PIS_EVENT_N), 1);
    memset(longname, 'm', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    pis_event_make(&e, PIS_EV_OFFLOAD, 7, 0, PIS_EVENT_NO_TEMP, NULL,
                   longname, "full -> reduced");
    pis_event_post(&ring, &e);
    CHECK_INT(pis_event_recent(&ring, out, PIS_EVENT_N), 2);
    CHECK_INT(strlen(out[0].member), sizeof(out[0].member) - 1);
    CHECK_STR(out[0].balancer, "");
    CHECK_STR(out[0].detail, "full -> reduced");
    CHECK_STR(pis_event_name(PIS_EV_OFFLOAD), "offload level changed");
    CHECK_STR(pis_event_name(PIS_EV_DRAINED), "drained");
    CHECK_STR(pis_event_name(0), "");
    CHECK_STR(pis_event_name(1000), "");
    ring.version++;
    CHECK(!pis_event_ring_ok(&ring));
}

/* Writers race while a reader reads: every event read is whole (its
 * strings agree with its number), none is lost to the count. */
#define RACE_WRITERS 4
#define RACE_EACH    5000

static void *race_writer(void *arg)
{
    long id = (long)arg;
    pis_event e;
    char m[32], d[32];
    int i;

    for (i = 0; i < RACE_EACH; i++) {
        snprintf(m, sizeof(m), "w%ld-%d", id, i);
        snprintf(d, sizeof(d), "%d", i * 7 + (int)id);
        pis_event_make(&e, PIS_EV_THROTTLED, (uint32_t)i, 0, i, "b", m, d);
        pis_event_post(&ring, &e);
    }
    return NULL;
}

static void race(void)
{
    pthread_t t[RACE_WRITERS];
    pis_event *out = malloc(PIS_EVENT_N * sizeof(*out));
    long i;
    int bad = 0, reads = 0;

    memset(&ring, 0, sizeof(ring));
    pis_event_ring_init(&ring);
    for (i = 0; i < RACE_WRITERS; i++) {
        pthread_create(&t[i], NULL, race_writer, (void *)i);
    }
    while (__atomic_load_n(&ring.next, __ATOMIC_ACQUIRE)
           < RACE_WRITERS * RACE_EACH && reads < 200000) {
        unsigned n = pis_event_recent(&ring, out, PIS_EVENT_N), k;

        reads++;
        for (k = 0; k < n; k++) {
            long id;
            int j;
            char d[32];

            if (sscanf(out[k].member, "w%ld-%d", &id, &j) != 2) {
                bad++;
                continue;
            }
            snprintf(d, sizeof(d), "%d", j * 7 + (int)id);
            bad += strcmp(d, out[k].detail) != 0 || out[k].temp_dc != j;
        }
    }
    for (i = 0; i < RACE_WRITERS; i++) {
        pthread_join(t[i], NULL);
    }
    CHECK_INT(bad, 0);
    CHECK_INT(ring.next, RACE_WRITERS * RACE_EACH);
    CHECK_INT(pis_event_recent(&ring, out, PIS_EVENT_N), PIS_EVENT_N);
    free(out);
}

void test_event(void)
{
    order_and_bound();
    torn_and_truncated();
    race();
}
