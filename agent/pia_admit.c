/* pia_admit.c -- the agent's connection bounds (see pia_admit.h).
 * Linear in the slots: a few hundred at most, once per accept. */
#include <netinet/in.h>
#include <string.h>

#include "pia_admit.h"

void pia_peer_of(const struct sockaddr *sa, pia_peer *p)
{
    memset(p, 0, sizeof(*p));
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

        p->b[10] = 0xff;
        p->b[11] = 0xff;
        memcpy(p->b + 12, &in->sin_addr, 4);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

        memcpy(p->b, &in6->sin6_addr, 16);
    }
}

static int same_peer(const pia_slot_state *s, const pia_peer *peer)
{
    return s->phase != PIA_SLOT_FREE
           && memcmp(s->peer.b, peer->b, sizeof(peer->b)) == 0;
}

/* The oldest slot in phase ph (of peer, when not NULL), or -1. */
static long oldest(const pia_slot_state *st, size_t n, pia_phase ph,
                   const pia_peer *peer)
{
    long best = -1;
    size_t i;

    for (i = 0; i < n; i++) {
        if (st[i].phase == ph && (peer == NULL || same_peer(&st[i], peer))
            && (best < 0 || st[i].seq < st[best].seq)) {
            best = (long)i;
        }
    }
    return best;
}

long pia_admit(const pia_slot_state *st, size_t n, const pia_peer *peer,
               unsigned per_peer, int *evict)
{
    unsigned mine = 0;
    long i;

    *evict = 1;
    for (i = 0; i < (long)n; i++) {
        mine += same_peer(&st[i], peer);
    }
    if (mine >= per_peer) {
        i = oldest(st, n, PIA_SLOT_LINGERING, peer);
        *evict = i >= 0;
        return i;
    }
    if ((i = oldest(st, n, PIA_SLOT_FREE, NULL)) >= 0) {
        *evict = 0;
        return i;
    }
    if ((i = oldest(st, n, PIA_SLOT_LINGERING, NULL)) >= 0) {
        return i;
    }
    i = oldest(st, n, PIA_SLOT_READING, NULL);
    *evict = i >= 0;
    return i;
}
