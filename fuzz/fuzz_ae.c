/* fuzz_ae.c -- Accept-Encoding: each input line is one header line fed
 * to pib_ae_feed, as several Accept-Encoding fields would be.
 *
 * Checks: every q is unset or 0..1000; the decision follows from the
 * q-values (pib_ae.h); tokens are case-insensitive, so the upper-cased
 * input decides the same; the decision is a pure function (a second
 * parse of the same lines agrees).
 */
#include <ctype.h>

#include "fuzz_common.h"
#include "pib_ae.h"

static void feed_lines(pib_ae *ae, const char *s, int upper)
{
    char *copy = strdup(s), *line, *save = NULL;

    if (copy == NULL) {
        abort();
    }
    if (upper) {
        char *p;

        for (p = copy; *p; p++) {
            *p = (char)toupper((unsigned char)*p);
        }
    }
    pib_ae_init(ae);
    for (line = strtok_r(copy, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        char *exact = strdup(line);     /* exact size: ASan sees overreads */

        pib_ae_feed(ae, exact);
        free(exact);
    }
    free(copy);
}

static int q_ok(int q)
{
    return q == PIB_Q_UNSET || (q >= 0 && q <= 1000);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = { data, size };
    char *s = fz_str(&in, 4096);
    pib_ae a, b;
    int gz, id, i;

    feed_lines(&a, s, 0);
    for (i = 0; i < PIB_CODING_COUNT; i++) {
        FZ_ASSERT(q_ok(a.q[i]));
    }
    gz = pib_ae_q(&a, PIB_CODING_GZIP);
    id = pib_ae_q(&a, PIB_CODING_IDENTITY);
    FZ_ASSERT(q_ok(gz) && q_ok(id));
    /* gzip when offered with q > 0 and identity was not given more */
    FZ_ASSERT(pib_ae_wants_gzip(&a) == (a.seen && gz > 0 && id <= gz));
    if (a.q[PIB_CODING_GZIP] == PIB_Q_UNSET
        && a.q[PIB_CODING_ANY] == PIB_Q_UNSET) {
        FZ_ASSERT(!pib_ae_wants_gzip(&a));  /* gzip never offered */
    }

    feed_lines(&b, s, 1);
    for (i = 0; i < PIB_CODING_COUNT; i++) {
        FZ_ASSERT(a.q[i] == b.q[i]);
    }

    pib_ae_feed(&b, NULL);                  /* NULL is no header */
    free(s);
    return 0;
}
