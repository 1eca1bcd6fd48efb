/* pib_dpolicy.h -- when a response gets dcz, a Use-As-Dictionary, a
 * Link to a prefix dictionary, or becomes a sample for one (RFC 9842;
 * issue 30 items 1-3), pure: no httpd headers; unit-tested in
 * test_dpolicy.c.  One decision per response, after the general one
 * (pib_should_compress) said the response may be compressed at all.
 *
 * Safe by default (docs/security.md, "Compression dictionaries"): no
 * dictionary work of any kind for a response that sets a cookie or says
 * Cache-Control private, no-store or no-transform, nor for a cross-site
 * request (Sec-Fetch-Site: cross-site) unless allowed; a response to a
 * request with credentials (Cookie, Authorization) may be compressed
 * against a dictionary but never becomes one (its bytes would be served
 * to everyone).
 */
#ifndef PIB_DPOLICY_H
#define PIB_DPOLICY_H

#include <stddef.h>

typedef struct {
    int dcz_listed;         /* PiBalanceDeflateCodecs lists dcz */
    int compressible;       /* pib_should_compress said COMPRESS */
    int client_dcz;         /* Accept-Encoding accepts dcz (q > 0) */
    int browser;            /* Sec-Fetch-Dest sent: a browser, which
                             * lists dcz only once it holds a dictionary */
    int avail_present;      /* Available-Dictionary sent */
    int avail_ok;           /* ... and it is one 32-byte sf-binary */
    int held;               /* ... and the master holds that dictionary */
    const char *sec_fetch_site;     /* or NULL */
    int cross_site_allowed; /* PiBalanceDictionaryCrossSite On */
    int sets_cookie;        /* Set-Cookie or Set-Cookie2 in the response */
    const char *cache_control;      /* the response's, merged, or NULL */
    int req_credentials;    /* Cookie or Authorization in the request */
    int fresh;              /* a freshness lifetime > 0 (max-age,
                             * s-maxage, or Expires after Date) */
    int self_on;            /* resources with a lifetime are dictionaries */
    int prefix_on;          /* under a dynamic-page dictionary prefix */
    int prefix_has_dict;    /* ... which has a current dictionary */
} pib_dd_in;

typedef enum {
    PIB_DD_OK = 0,
    PIB_DD_NOT_LISTED,      /* dcz not in PiBalanceDeflateCodecs */
    PIB_DD_NOT_COMPRESSIBLE,
    PIB_DD_COOKIE,          /* the response sets a cookie */
    PIB_DD_PRIVATE,         /* Cache-Control private, no-store */
    PIB_DD_NO_TRANSFORM,
    PIB_DD_CROSS_SITE
} pib_dd_why;

typedef struct {
    pib_dd_why why;         /* OK, or why nothing dictionary-related */
    int use_dcz;            /* compress as dcz against the named one */
    int miss;               /* it named one we do not hold (or garbage) */
    int vary;               /* add Available-Dictionary to Vary */
    int announce_self;      /* Use-As-Dictionary for its own path */
    int announce_link;      /* Link: <prefix dictionary> */
    int sample;             /* a sample for the prefix's builder */
} pib_dd_out;

/* The decision.  Pure. */
void pib_dd_decide(const pib_dd_in *in, pib_dd_out *out);

/* 1 when a Cache-Control value holds directive name (case-insensitive,
 * as a whole directive: "private" is not "privateer"); else 0. */
int pib_cc_has(const char *cache_control, const char *name);

/* The delta-seconds of max-age or s-maxage in a Cache-Control value
 * (s-maxage preferred), or -1 when neither. */
long long pib_cc_max_age(const char *cache_control);

/* A URLPattern pathname for path (its query, if any, cut off): the
 * characters URLPattern gives a meaning (\ * : ( ) { } + [ ]) escaped
 * with a backslash, then "*" when wildcard.  Its length, or 0 when it
 * does not fit cap or path is not absolute printable ASCII. */
size_t pib_dd_pattern(const char *path, int wildcard, char *out,
                      size_t cap);

/* Whether the master holds the dictionary of hash (pib_dcache, or the
 * store on disk): 1 or 0. */
typedef int (*pib_dd_held_fn)(const unsigned char *hash, void *baton);

/* The Available-Dictionary a cache keys on (issue 30 item 4): when the
 * client accepts dcz (client_dcz) and avail parses to a hash the master
 * holds, that hash in its canonical form (":<44 base64>:") written to
 * out and returned; else NULL, and the caller removes the header before
 * mod_cache looks.  So one stored copy per URL, coding and held
 * dictionary: a hash the master does not know (or a client that cannot
 * use it) never makes a copy of its own, and two spellings of one hash
 * (padding, spaces) are one.  Pure but for held. */
const char *pib_dd_cache_key(int client_dcz, const char *avail,
                             pib_dd_held_fn held, void *baton,
                             char out[47]);

#endif /* PIB_DPOLICY_H */
