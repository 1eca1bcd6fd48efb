/* pib_dpolicy.c -- the dictionary decision (pure; rules in
 * pib_dpolicy.h).  The table the unit test replays:
 *
 *   safe  client_dcz  names  held | use_dcz miss | self(fresh) link sample
 *   no     any         any    any  |   0      0   |    0          0     0
 *   yes    no          any    any  |   0      0   |    0          0     1*
 *   yes    yes         no     -    |   0      0   |    1*         1     1*
 *   yes    yes         yes    no   |   0      1   |    1*         1     1*
 *   yes    yes         yes    yes  |   1      0   |    1*         1     1*
 *
 * "safe": listed, compressible, no cookie set, not private/no-store/
 * no-transform, not cross-site (or allowed).  1*: only without request
 * credentials (and self only when the response is fresh and self_on;
 * link and sample only under a prefix, link when it has a dictionary).
 * Announcements go only to clients that can use them: those that list
 * dcz, and browsers (Sec-Fetch-Dest), since chromium lists dcz only once
 * it holds a dictionary (measured: its first visit offers "gzip, deflate,
 * br, zstd").  curl, scripts and other clients see nothing new and cost
 * the master nothing.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pib_dpolicy.h"
#include "pib_sf.h"

/* Finds directive name in a Cache-Control value: the position after it,
 * or NULL. */
static const char *pib_cc_find(const char *cc, const char *name)
{
    size_t n = strlen(name);
    const char *p = cc;

    while (p != NULL && *p != '\0') {
        while (*p == ' ' || *p == '\t' || *p == ',') {
            p++;
        }
        if (strncasecmp(p, name, n) == 0
            && (p[n] == '\0' || p[n] == ',' || p[n] == '=' || p[n] == ' '
                || p[n] == '\t')) {
            return p + n;
        }
        /* skip this directive, a quoted value included */
        while (*p != '\0' && *p != ',') {
            if (*p == '"') {
                for (p++; *p != '\0' && *p != '"'; p++) {
                    if (*p == '\\' && p[1] != '\0') {
                        p++;
                    }
                }
                if (*p == '\0') {
                    break;
                }
            }
            p++;
        }
    }
    return NULL;
}

int pib_cc_has(const char *cache_control, const char *name)
{
    return cache_control != NULL && pib_cc_find(cache_control, name) != NULL;
}

static long long pib_cc_seconds(const char *cc, const char *name)
{
    const char *p = cc != NULL ? pib_cc_find(cc, name) : NULL;
    long long v = 0;
    int digits = 0, quoted;

    if (p == NULL) {
        return -1;
    }
    while (*p == ' ' || *p == '\t') {
        p++;
    }
    if (*p++ != '=') {
        return -1;
    }
    quoted = *p == '"';
    p += quoted;
    for (; isdigit((unsigned char)*p) && digits < 12; p++, digits++) {
        v = v * 10 + (*p - '0');
    }
    if (digits == 0 || (quoted && *p++ != '"')
        || (*p != '\0' && *p != ',' && *p != ' ' && *p != '\t')) {
        return -1;                  /* 13+ digits, "12x", unterminated */
    }
    return v;
}

long long pib_cc_max_age(const char *cache_control)
{
    long long s = pib_cc_seconds(cache_control, "s-maxage");

    return s >= 0 ? s : pib_cc_seconds(cache_control, "max-age");
}

void pib_dd_decide(const pib_dd_in *in, pib_dd_out *out)
{
    const char *cc = in->cache_control;
    int may_become;

    memset(out, 0, sizeof(*out));
    out->why = !in->dcz_listed ? PIB_DD_NOT_LISTED
             : !in->compressible ? PIB_DD_NOT_COMPRESSIBLE
             : in->sets_cookie ? PIB_DD_COOKIE
             : pib_cc_has(cc, "private") || pib_cc_has(cc, "no-store")
               ? PIB_DD_PRIVATE
             : pib_cc_has(cc, "no-transform") ? PIB_DD_NO_TRANSFORM
             : in->sec_fetch_site != NULL
               && strcasecmp(in->sec_fetch_site, "cross-site") == 0
               && !in->cross_site_allowed ? PIB_DD_CROSS_SITE
             : PIB_DD_OK;
    if (out->why != PIB_DD_OK) {
        return;
    }
    out->vary = in->self_on || in->prefix_on || in->avail_present;
    if (in->client_dcz && in->avail_present) {
        out->use_dcz = in->avail_ok && in->held;
        out->miss = !out->use_dcz;
    }
    may_become = !in->req_credentials;
    out->announce_self = (in->client_dcz || in->browser) && may_become
                         && in->self_on && in->fresh;
    out->announce_link = (in->client_dcz || in->browser) && may_become
                         && in->prefix_on && in->prefix_has_dict;
    out->sample = may_become && in->prefix_on;
}

size_t pib_dd_pattern(const char *path, int wildcard, char *out,
                      size_t cap)
{
    size_t n = 0;
    const char *p;

    if (path == NULL || path[0] != '/') {
        return 0;
    }
    for (p = path; *p != '\0' && *p != '?' && *p != '#'; p++) {
        int esc = strchr("\\*:(){}+[]", *p) != NULL;

        if (*p < 0x21 || *p > 0x7e || n + (size_t)esc + 1 >= cap) {
            return 0;
        }
        if (esc) {
            out[n++] = '\\';
        }
        out[n++] = *p;
    }
    if (wildcard) {
        if (n + 1 >= cap) {
            return 0;
        }
        out[n++] = '*';
    }
    out[n] = '\0';
    return n;
}

const char *pib_dd_cache_key(int client_dcz, const char *avail,
                             pib_dd_held_fn held, void *baton,
                             char out[47])
{
    unsigned char h[PIB_SF_HASH_LEN];

    if (!client_dcz || avail == NULL || pib_sf_parse_hash(avail, h) != 0
        || held == NULL || !held(h, baton)) {
        return NULL;
    }
    pib_sf_format_hash(h, out);
    return out;
}
