/* pib_attempt.h -- lbmethod "pi": timing each attempt at a member
 * (pib_attempt.c). */
#ifndef PIB_ATTEMPT_H
#define PIB_ATTEMPT_H

#include "httpd.h"
#include "mod_proxy.h"

/* The finder picked member w of balancer b for r: an attempt begins (a
 * previous attempt of r that got no answer is a failure of its member,
 * sampled now).  decay_s: the balancer's PiBalanceDecay. */
void pib_attempt_picked(request_rec *r, proxy_balancer *b, proxy_worker *w,
                        double decay_s);

/* register_hooks: the answer filter and mod_proxy's request_status. */
void pib_attempt_register(apr_pool_t *p);

#endif /* PIB_ATTEMPT_H */
