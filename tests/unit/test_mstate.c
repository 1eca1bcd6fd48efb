/* test_mstate.c -- the named operations on a member's shared state
 * (pib_mstate.c): as one thread sees them, and the "once" ones raced by
 * threads (a member seen down by many children at once posts one "member
 * failed", a member that serves again in many at once one "member back"). */
#include <math.h>
#include <pthread.h>

#include "unit.h"
#include "pib_mstate.h"
#include "pib_score.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

/* The shared state's operations, as one thread sees them. */
static void mstate_ops(void)
{
    pib_mstate st;

    memset(&st, 0, sizeof(st));
    pib_ms_mark_pick(&st, 0);                   /* clock 0 marks as 1 */
    CHECK_INT(pib_ms_pick_mark(&st), 1);
    pib_ms_mark_pick(&st, 500);                 /* marked: kept */
    CHECK_INT(pib_ms_pick_mark(&st), 1);
    pib_ms_drop_mark(&st, 2);                   /* not that mark */
    CHECK_INT(pib_ms_pick_mark(&st), 1);
    pib_ms_drop_mark(&st, 1);
    CHECK_INT(pib_ms_pick_mark(&st), 0);
    pib_ms_mark_pick(&st, 500);
    pib_ms_answered(&st);
    CHECK_INT(pib_ms_pick_mark(&st), 0);

    CHECK(pib_ms_estimate(&st, 1000, 10.0) < 0);
    pib_ms_add_sample(&st, 1000, 20000, 0, 0, 10.0);
    CHECK_INT(st.est_us, 20000);
    CHECK_INT(st.est_ms, 1000);
    CHECK(NEAR(pib_ms_estimate(&st, 11000, 10.0), 10000));  /* halved */
    pib_ms_add_sample(&st, 1000, 5000, 1, 0, 10.0);  /* a fast failure */
    CHECK_INT(st.est_us, PIB_FAIL_MIN_US);
    pib_ms_add_sample(&st, 1000, 5000, 1, 1, 10.0);  /* compounds: x4 */
    CHECK_INT(st.est_us, 4 * PIB_FAIL_MIN_US);
    pib_ms_forget_estimate(&st);
    CHECK(pib_ms_estimate(&st, 1000, 10.0) < 0);

    pib_ms_set_failed(&st, 1);
    CHECK_INT(pib_ms_failed(&st), 1);
    pib_ms_set_failed(&st, 0);
    CHECK_INT(pib_ms_failed(&st), 0);

    pib_ms_start_ramp(&st, 0);
    CHECK_INT(pib_ms_ramp_began(&st), 1);
    pib_ms_start_ramp(&st, 42);
    CHECK_INT(pib_ms_ramp_began(&st), 42);
    pib_ms_end_ramp(&st);
    CHECK_INT(pib_ms_ramp_began(&st), 0);

    CHECK_INT(pib_ms_drained(&st), 0);
    st.drained = 1;
    CHECK_INT(pib_ms_drained(&st), 1);
    CHECK_INT(pib_ms_note_up(&st), 0);          /* not down: no return */
    CHECK_INT(pib_ms_note_down(&st), 1);
    CHECK_INT(pib_ms_down(&st), 1);
    CHECK_INT(pib_ms_note_down(&st), 0);        /* once a time down */
    CHECK_INT(pib_ms_note_up(&st), 1);
    CHECK_INT(pib_ms_down(&st), 0);
    CHECK_INT(pib_ms_note_up(&st), 0);          /* once a return */
}

#define RACERS 8
#define ROUNDS 2000

typedef struct {
    pib_mstate *st;
    pthread_barrier_t *go;
    int downs, ups;
} racer;

/* Each round: every thread notes the member down, then (after a barrier)
 * up; each transition must be won by exactly one of them. */
static void *race(void *arg)
{
    racer *r = arg;
    int i;

    for (i = 0; i < ROUNDS; i++) {
        pthread_barrier_wait(r->go);
        r->downs += pib_ms_note_down(r->st);
        pthread_barrier_wait(r->go);
        r->ups += pib_ms_note_up(r->st);
    }
    return NULL;
}

static void down_up_once(void)
{
    pib_mstate st;
    pthread_barrier_t go;
    pthread_t th[RACERS];
    racer r[RACERS];
    int i, downs = 0, ups = 0;

    memset(&st, 0, sizeof(st));
    pthread_barrier_init(&go, NULL, RACERS);
    for (i = 0; i < RACERS; i++) {
        r[i].st = &st;
        r[i].go = &go;
        r[i].downs = r[i].ups = 0;
        pthread_create(&th[i], NULL, race, &r[i]);
    }
    for (i = 0; i < RACERS; i++) {
        pthread_join(th[i], NULL);
        downs += r[i].downs;
        ups += r[i].ups;
    }
    pthread_barrier_destroy(&go);
    CHECK_INT(downs, ROUNDS);
    CHECK_INT(ups, ROUNDS);
}

void test_mstate(void)
{
    mstate_ops();
    down_up_once();
}
