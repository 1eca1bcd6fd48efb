/* test_api.c -- the stamp of include/pi_api.h's structs: a callee fills
 * only a struct of its own size and version; and the one rule of how an
 * attempt ended that both modules apply (common/pi_outcome.h). */
#include "unit.h"
#include "pi_api.h"
#include "pi_outcome.h"
#include "pib_counts_layout.h"

/* What a newer caller's struct could look like: one field more. */
typedef struct {
    pi_stamp stamp;
    double weight;
    const char *state;
    int extra;
} newer_weight;

/* common/pi_outcome.h's table, row by row. */
static void outcome(void)
{
    CHECK_INT(pi_attempt_end_of(PI_STATUS_OK, 0), PI_END_ANSWERED);
    CHECK_INT(pi_attempt_end_of(PI_STATUS_DONE, 0), PI_END_ANSWERED);
    CHECK_INT(pi_attempt_end_of(502, 1), PI_END_ANSWERED);  /* override */
    CHECK_INT(pi_attempt_end_of(404, 1), PI_END_ANSWERED);
    CHECK_INT(pi_attempt_end_of(400, 0), PI_END_CLIENT);
    CHECK_INT(pi_attempt_end_of(408, 0), PI_END_CLIENT);
    CHECK_INT(pi_attempt_end_of(413, 0), PI_END_CLIENT);
    CHECK_INT(pi_attempt_end_of(499, 0), PI_END_CLIENT);
    CHECK_INT(pi_attempt_end_of(PI_STATUS_FILTER_ERROR, 0), PI_END_CLIENT);
    CHECK_INT(pi_attempt_end_of(500, 0), PI_END_FAILED);
    CHECK_INT(pi_attempt_end_of(502, 0), PI_END_FAILED);
    CHECK_INT(pi_attempt_end_of(503, 0), PI_END_FAILED);
    CHECK_INT(pi_attempt_end_of(504, 0), PI_END_FAILED);
    CHECK_INT(pi_attempt_end_of(399, 0), PI_END_FAILED);
    CHECK_INT(pi_attempt_end_of(-1, 0), PI_END_FAILED);     /* DECLINED */
}

/* The offload counters' segment: only one of this layout is used. */
static void counts_layout(void)
{
    struct { pib_counts_head h; uint32_t c[2 * 17]; } seg;

    memset(&seg, 0, sizeof(seg));
    CHECK(!pib_counts_layout_ok(&seg.h, sizeof(seg), 17, 8));  /* none */
    seg.h.magic = PIB_COUNTS_MAGIC;
    seg.h.version = PIB_COUNTS_VERSION;
    seg.h.count = 17;
    CHECK(pib_counts_layout_ok(&seg.h, sizeof(seg), 17, 8));
    CHECK(!pib_counts_layout_ok(&seg.h, sizeof(seg), 20, 8));  /* more */
    CHECK(!pib_counts_layout_ok(&seg.h, sizeof(seg) - 1, 17, 8));
    CHECK(!pib_counts_layout_ok(&seg.h, 8, 17, 8));            /* short */
    seg.h.version++;
    CHECK(!pib_counts_layout_ok(&seg.h, sizeof(seg), 17, 8));
}

void test_api(void)
{
    pi_member_weight mw;
    pi_member_tel tel;
    newer_weight nw;

    memset(&mw, 0, sizeof(mw));
    CHECK(!PI_STAMP_OK(&mw, PI_MEMBER_WEIGHT_VERSION));   /* unstamped */
    PI_STAMP_INIT(&mw, PI_MEMBER_WEIGHT_VERSION);
    CHECK_INT(mw.stamp.size, sizeof(pi_member_weight));
    CHECK(PI_STAMP_OK(&mw, PI_MEMBER_WEIGHT_VERSION));
    CHECK(!PI_STAMP_OK(&mw, PI_MEMBER_WEIGHT_VERSION + 1));
    PI_STAMP_INIT(&tel, PI_MEMBER_TEL_VERSION);
    CHECK(PI_STAMP_OK(&tel, PI_MEMBER_TEL_VERSION));
    /* A caller's struct of another size, same version: the callee sees
     * its stamp on what it takes for its own struct, and refuses. */
    PI_STAMP_INIT(&nw, PI_MEMBER_WEIGHT_VERSION);
    mw.stamp = nw.stamp;
    CHECK(!PI_STAMP_OK(&mw, PI_MEMBER_WEIGHT_VERSION));
    CHECK(!PI_STAMP_OK((pi_member_weight *)NULL, PI_MEMBER_WEIGHT_VERSION));
    outcome();
    counts_layout();
}
