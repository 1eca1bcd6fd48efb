/* pi_outcome.h -- how an attempt at a balancer member ended: the one
 * rule lbmethod "pi" (its samples) and mod_pistats (its counters) apply
 * when the node's response headers never came (pure, static inline: see
 * pi_local.h; unit-tested in tests/unit/test_api.c).
 *
 *   mod_proxy's access status               end       whose fault
 *   --------------------------------------  --------  ----------------
 *   OK, DONE                                answered  (the node's status)
 *   any, ProxyErrorOverride's note set      answered  (the node's status,
 *                                                      our error page)
 *   400..499, AP_FILTER_ERROR               client    the client's: it
 *                                                      aborted, garbled
 *                                                      or stalled its
 *                                                      body (400, 408),
 *                                                      it was too large
 *                                                      (413)
 *   anything else (500, 502, 503, 504)      failed    the member's
 *
 * mod_proxy answers a 4xx of its own only for the request it was given:
 * reading the client's body failed (ap_proxy_read_input() maps a timeout
 * to 408, too large to 413, anything else to 400), or the request itself
 * was refused.  A node's own 4xx is an answer (its headers came, so the
 * attempt ended earlier, as "answered").  Deliberately left out: telling
 * a client that vanished from a member that reset the connection while
 * the body was being sent (mod_proxy says 502 for the second: the
 * member's, as it should).
 */
#ifndef PI_OUTCOME_H
#define PI_OUTCOME_H

/* httpd's values (httpd.h: OK, DONE; util_filter.h: AP_FILTER_ERROR),
 * repeated so that this header stays pure; the glue that calls it checks
 * them at compile time (PI_OUTCOME_CHECK). */
#define PI_STATUS_OK            0
#define PI_STATUS_DONE         -2
#define PI_STATUS_FILTER_ERROR -102

typedef enum {
    PI_END_ANSWERED = 0,
    PI_END_FAILED,
    PI_END_CLIENT
} pi_attempt_end;

static inline pi_attempt_end pi_attempt_end_of(int access_status,
                                               int overridden)
{
    if (access_status == PI_STATUS_OK || access_status == PI_STATUS_DONE
        || overridden) {
        return PI_END_ANSWERED;
    }
    if ((access_status >= 400 && access_status <= 499)
        || access_status == PI_STATUS_FILTER_ERROR) {
        return PI_END_CLIENT;
    }
    return PI_END_FAILED;
}

/* In a file that includes httpd.h and util_filter.h. */
#define PI_OUTCOME_CHECK                                                  \
    _Static_assert(OK == PI_STATUS_OK && DONE == PI_STATUS_DONE           \
                   && AP_FILTER_ERROR == PI_STATUS_FILTER_ERROR,          \
                   "pi_outcome.h: httpd's status values")

#endif /* PI_OUTCOME_H */
