/* pib_pick.h -- choosing a balancer member: weighted least in-flight.
 *
 * Pure logic: no httpd or APR headers, so it is unit-tested on its own
 * (tests/unit/test_pick.c).  The lbmethod glue (pib_lbmethod.c) copies
 * the few fields it needs from each proxy_worker into a pib_cand.
 *
 * Not here: which members are usable, lbsets, spares and hot standbys.
 * mod_proxy's ap_proxy_balancer_get_best_worker() decides that, exactly
 * as for the stock methods, and offers us only the candidates.
 */
#ifndef PIB_PICK_H
#define PIB_PICK_H

#include <stddef.h>

typedef struct {
    unsigned long busy;   /* requests in flight to the member */
    int lbfactor;         /* mod_proxy's lbfactor: loadfactor x 100 */
    int lbstatus;         /* smooth round-robin credit (tie-break) */
} pib_cand;

/* Add a candidate's lbfactor to its credit and to *total: called once for
 * every candidate of a pick, before comparing it. */
void pib_credit(int *lbstatus, int lbfactor, long *total);

/* Nonzero when candidate a is strictly better than b.  Better means a
 * lower busy / lbfactor, compared by cross-multiplying; on a tie,
 * the higher lbstatus.  A full tie keeps b, the earlier candidate. */
int pib_cand_better(const pib_cand *a, const pib_cand *b);

/* One whole pick over an array (what the glue does through mod_proxy's
 * callback): credit every candidate, choose the best, take the total
 * credit from the winner.  Returns the winner's index, or -1 if n == 0. */
int pib_pick(pib_cand *c, size_t n);

#endif /* PIB_PICK_H */
