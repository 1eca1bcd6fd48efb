/* pib_pick.c -- weighted least in-flight, smooth round-robin tie-break.
 *
 * A member's load is busy / lbfactor: requests in flight per unit of
 * weight, compared by cross-multiplying integers, never dividing.
 *
 * Sequential traffic leaves every member idle, so most picks are ties.
 * Ties go to the member with the most round-robin credit (lbstatus), the
 * smooth weighted round-robin also used by byrequests: every candidate
 * gains its lbfactor, the winner pays back the total.  Over a cycle each
 * member wins in proportion to its lbfactor, interleaved.  Members A
 * (loadfactor 1) and B (loadfactor 3), both idle:
 *
 *   pick | credit before | winner | credit after
 *   -----+---------------+--------+-------------
 *     1  |  A 100 B 300  |   B    |  A  100 B -100
 *     2  |  A 200 B 200  |   A    |  A -200 B  200   (full tie: first)
 *     3  |  A -100 B 500 |   B    |  A -100 B  100
 *     4  |  A 0   B 400  |   B    |  A    0 B    0   (cycle closes)
 *
 * tests/unit/test_pick.c replays this table.
 */
#include "pib_pick.h"

void pib_credit(int *lbstatus, int lbfactor, long *total)
{
    *lbstatus += lbfactor;
    *total += lbfactor;
}

int pib_cand_better(const pib_cand *a, const pib_cand *b)
{
    /* a->busy / a->lbfactor < b->busy / b->lbfactor, cross-multiplied in
     * 64 bits: busy fits 32 bits and lbfactor is at most 10000.  A zero
     * lbfactor (mod_proxy never stores one) counts as 1. */
    unsigned long long fa = a->lbfactor > 0 ? (unsigned)a->lbfactor : 1;
    unsigned long long fb = b->lbfactor > 0 ? (unsigned)b->lbfactor : 1;
    unsigned long long la = (unsigned long long)a->busy * fb;
    unsigned long long lb = (unsigned long long)b->busy * fa;

    if (la != lb) {
        return la < lb;
    }
    return a->lbstatus > b->lbstatus;
}

int pib_pick(pib_cand *c, size_t n)
{
    long total = 0;
    size_t i, best = 0;

    if (n == 0) {
        return -1;
    }
    for (i = 0; i < n; i++) {
        pib_credit(&c[i].lbstatus, c[i].lbfactor, &total);
        if (i > 0 && pib_cand_better(&c[i], &c[best])) {
            best = i;
        }
    }
    c[best].lbstatus -= (int)total;
    return (int)best;
}
