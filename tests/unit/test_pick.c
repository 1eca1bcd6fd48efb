/* test_pick.c -- weighted least in-flight with smooth round-robin ties. */
#include "unit.h"
#include "pib_pick.h"

/* The worked table in pib_pick.c: A loadfactor 1, B loadfactor 3. */
static void worked_table(void)
{
    static const struct { int winner, a, b; } want[] = {
        { 1, 100, -100 }, { 0, -200, 200 }, { 1, -100, 100 }, { 1, 0, 0 },
    };
    pib_cand c[2] = { { 0, 100, 0 }, { 0, 300, 0 } };
    size_t i;

    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        CHECK_INT(pib_pick(c, 2), want[i].winner);
        CHECK_INT(c[0].lbstatus, want[i].a);
        CHECK_INT(c[1].lbstatus, want[i].b);
    }
}

/* Idle members share in proportion to lbfactor, exactly per cycle. */
static void shares(void)
{
    pib_cand c[3] = { { 0, 100, 0 }, { 0, 100, 0 }, { 0, 100, 0 } };
    pib_cand w[2] = { { 0, 100, 0 }, { 0, 300, 0 } };
    int n[3] = { 0, 0, 0 }, m[2] = { 0, 0 }, i;

    for (i = 0; i < 300; i++) {
        n[pib_pick(c, 3)]++;
    }
    CHECK_INT(n[0], 100);
    CHECK_INT(n[1], 100);
    CHECK_INT(n[2], 100);
    for (i = 0; i < 400; i++) {
        m[pib_pick(w, 2)]++;
    }
    CHECK_INT(m[0], 100);
    CHECK_INT(m[1], 300);
}

/* Load wins over credit; busy / lbfactor is what is compared. */
static void load_first(void)
{
    pib_cand idle = { 0, 100, -5000 }, busy = { 1, 100, 5000 };
    pib_cand weak = { 1, 100, 0 }, strong = { 2, 300, 0 };
    pib_cand s3 = { 3, 300, 0 };
    pib_cand none = { 1, 0, 0 }, one = { 1, 100, 0 };

    CHECK(pib_cand_better(&idle, &busy));
    CHECK(!pib_cand_better(&busy, &idle));
    /* weak 1/100 against strong 2/300: strong */
    CHECK(pib_cand_better(&strong, &weak));
    CHECK(!pib_cand_better(&weak, &strong));
    /* strong 3/300 == 1/100: tie, equal credit: keep the first */
    CHECK(!pib_cand_better(&s3, &weak));
    CHECK(!pib_cand_better(&weak, &s3));
    /* an lbfactor of 0 (mod_proxy never sets it) counts as 1 */
    CHECK(pib_cand_better(&one, &none));
    CHECK(!pib_cand_better(&none, &one));
    CHECK_INT(pib_pick(NULL, 0), -1);
}

/* Three members, one busy: the other two alternate. */
static void busy_member_skipped(void)
{
    pib_cand c[3] = { { 0, 100, 0 }, { 3, 100, 0 }, { 0, 100, 0 } };
    int n[3] = { 0, 0, 0 }, i;

    for (i = 0; i < 10; i++) {
        n[pib_pick(c, 3)]++;
    }
    CHECK_INT(n[1], 0);
    CHECK_INT(n[0], 5);
    CHECK_INT(n[2], 5);
}

void test_pick(void)
{
    worked_table();
    shares();
    load_first();
    busy_member_skipped();
}
