/* pis_query.c -- what the query string of /pi-status asks for (see
 * pis_query.h). */
#include <stdio.h>
#include <string.h>

#include "pis_query.h"

/* Does [s, s + n) equal the NUL-terminated key? */
static int token_is(const char *s, size_t n, const char *key)
{
    return strlen(key) == n && memcmp(s, key, n) == 0;
}

void pis_parse_query(const char *args, pis_query *q)
{
    q->format = PIS_FMT_HTML;
    q->refresh = 0;
    while (args != NULL && *args) {
        size_t n = strcspn(args, "&;");
        const char *eq = memchr(args, '=', n);
        size_t klen = eq ? (size_t)(eq - args) : n;

        if (token_is(args, klen, "auto")) {
            q->format = PIS_FMT_AUTO;
        }
        else if (token_is(args, klen, "json")) {
            q->format = PIS_FMT_JSON;
        }
        else if (token_is(args, klen, "prometheus")) {
            q->format = PIS_FMT_PROMETHEUS;
        }
        else if (token_is(args, klen, "refresh")) {
            long r = 10;

            if (eq != NULL && eq + 1 < args + n) {
                char tmp[16];
                size_t vlen = (size_t)(args + n - eq - 1);

                if (vlen < sizeof(tmp)) {
                    memcpy(tmp, eq + 1, vlen);
                    tmp[vlen] = '\0';
                    if (sscanf(tmp, "%ld", &r) != 1) {
                        r = 10;
                    }
                }
            }
            q->refresh = r < 1 ? 1 : r > 3600 ? 3600 : (int)r;
        }
        args += n;
        if (*args) {
            args++;
        }
    }
}
