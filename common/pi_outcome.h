/* pi_outcome.h -- how an attempt at a balancer member ended: the one
 * rule lbmethod "pi" (its samples) and mod_pistats (its counters) apply
 * when the node's response headers never came (pure, static inline: see
 * pi_local.h; unit-tested in tests/unit/test_api.c).
 *
 *   what happened                              end       whose fault
 *   -----------------------------------------  --------  -------------
 *   access status OK or DONE                   answered  (the node's
 *   ProxyErrorOverride's note set               answered   status)
 *   reading the client's body failed           client    the client's: it
 *     (common/pi_bodyin.c saw it: aborted,                aborted, timed out,
 *     timed out, garbled, too large)                      garbled its body
 *   anything else (500, 502, 503, 504, and a   failed    the member's
 *     400 mod_proxy makes when writing to the
 *     node fails: ap_proxy_pass_brigade)
 *
 * The client's part is told by the party that knows, the filter that
 * read the body, never by the status: mod_proxy answers 400 both for a
 * client's broken body and for a write to an https:// member that
 * failed without an abort.
 */
#ifndef PI_OUTCOME_H
#define PI_OUTCOME_H

/* httpd's values (httpd.h: OK, DONE), repeated so that this header stays
 * pure; the glue that calls it checks them at compile time
 * (PI_OUTCOME_CHECK). */
#define PI_STATUS_OK            0
#define PI_STATUS_DONE         -2

typedef enum {
    PI_END_ANSWERED = 0,
    PI_END_FAILED,
    PI_END_CLIENT
} pi_attempt_end;

static inline pi_attempt_end pi_attempt_end_of(int access_status,
                                               int overridden,
                                               int client_failed)
{
    if (access_status == PI_STATUS_OK || access_status == PI_STATUS_DONE
        || overridden) {
        return PI_END_ANSWERED;
    }
    return client_failed ? PI_END_CLIENT : PI_END_FAILED;
}

/* In a file that includes httpd.h. */
#define PI_OUTCOME_CHECK                                                  \
    _Static_assert(OK == PI_STATUS_OK && DONE == PI_STATUS_DONE,          \
                   "pi_outcome.h: httpd's status values")

#endif /* PI_OUTCOME_H */
