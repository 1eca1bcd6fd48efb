/* pis_snap.c -- what a snapshot says of itself, worked out once after it
 * is filled (pure; unit-tested in test_render_snap.c): the balancers that
 * share a name (a virtual host's own, BalancerInherit Off), which every
 * format must tell apart (Prometheus by a vhost label, the page by its
 * virtual host).
 */
#include <string.h>

#include "pis_snap.h"

void pis_snap_mark_shared(pis_snap *snap)
{
    unsigned i, j;

    for (i = 0; i < snap->nbalancers; i++) {
        pis_balancer_snap *a = &snap->balancers[i];

        for (j = i + 1; j < snap->nbalancers; j++) {
            pis_balancer_snap *b = &snap->balancers[j];

            if (a->name != NULL && b->name != NULL
                && strcmp(a->name, b->name) == 0) {
                a->name_shared = b->name_shared = 1;
            }
        }
    }
}
