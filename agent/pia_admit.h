/* pia_admit.h -- pi-telemetry-agent: which connection slot a new client
 * gets, under the bounds on clients in all (--max-clients) and per peer
 * address (--max-per-peer).  Pure C, no system calls; unit-tested in
 * tests/unit/test_agent.c.  The server (pia_serve.c) keeps one
 * pia_slot_state per slot and does what pia_admit says.
 *
 * The rules, in order, for a newcomer from peer P:
 *
 *   1. P holds --max-per-peer slots: P's oldest lingering slot is taken
 *      (its answer is sent), else the newcomer is refused.
 *   2. A free slot is taken.
 *   3. The table is full: the oldest lingering slot is taken, else the
 *      oldest slot still reading its head (the oldest idle client),
 *      else (every slot is sending an answer) the newcomer is refused.
 *
 *   slots (oldest first)       newcomer        result
 *   R(a) R(b) W(c) [full]      d               evict R(a)
 *   R(a) L(b) W(c) [full]      d               evict L(b)
 *   W(a) W(b) W(c) [full]      d               refuse
 *   R(a) R(a) free, 2 a peer   a               refuse
 *   R(a) L(a) free, 2 a peer   a               evict L(a)
 *
 * Why these: a peer at its bound is refused its newest, as nginx's
 * limit_conn does (503): its old connections may be serving it, and one
 * address can never hold more than its share.  At the total bound the
 * oldest idle one goes, as nginx frees reusable (idle keep-alive)
 * connections when it runs out (ngx_drain_connections), rather than
 * refusing the newcomer as a plain accept limit would: attackers from
 * many addresses who keep the table full would otherwise lock out the
 * master's probe until they stop; evicting the oldest, the newest
 * client keeps its slot until as many newer ones have come as there
 * are slots, and a client that sends its request at once (the probe)
 * is answered long before that.  A slot sending its answer is never
 * taken: the answer is small and has a deadline of its own.
 *
 * Peers are compared by the whole address (IPv4 as ::ffff:a.b.c.d).  Not
 * by IPv6 /64: the master may share a /64 with an attacker, and a
 * per-/64 bound would then refuse the master; a host with many
 * addresses meets the total bound instead, where the oldest idle goes.
 */
#ifndef PIA_ADMIT_H
#define PIA_ADMIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

typedef struct {
    unsigned char b[16];           /* IPv6, or IPv4 as ::ffff:a.b.c.d */
} pia_peer;

typedef enum {
    PIA_SLOT_FREE = 0,
    PIA_SLOT_READING,              /* reading its request head */
    PIA_SLOT_WRITING,              /* sending its answer */
    PIA_SLOT_LINGERING             /* answered; reading what still comes */
} pia_phase;

typedef struct {
    pia_phase phase;
    pia_peer peer;
    uint64_t seq;                  /* accept order: smaller is older */
} pia_slot_state;

/* The peer of an accepted connection's address (AF_INET or AF_INET6;
 * another family is all zeros). */
void pia_peer_of(const struct sockaddr *sa, pia_peer *p);

/* The slot of st[0..n) for a newcomer from peer under the rules above,
 * at most per_peer slots a peer.  Returns its index, *evict 1 when the
 * slot is in use and its connection must be closed first; or -1:
 * refuse the newcomer. */
long pia_admit(const pia_slot_state *st, size_t n, const pia_peer *peer,
               unsigned per_peer, int *evict);

#endif /* PIA_ADMIT_H */
