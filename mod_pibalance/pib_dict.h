/* pib_dict.h -- the master's dictionaries at run time (RFC 9842, issue
 * 30): a child's prepared dictionaries, the URL the master serves its
 * prefix dictionaries at, the samples and builds of each prefix.
 *
 * The configuration (pib_dict_conf) is filled by the PiBalanceDictionary*
 * directives of mod_pibalance's configuration room; the filter
 * (pib_deflate.c) asks the functions below, in the order of one
 * response: pib_dict_lookup (the dictionary a request names), then,
 * with the response's bytes, pib_dict_sample / pib_dict_keep_self, and
 * pib_dict_link for the announcement.  Every function is safe with
 * dictionaries off (conf->root NULL): it does nothing.
 */
#ifndef PIB_DICT_H
#define PIB_DICT_H

#include "httpd.h"
#include "http_config.h"

#include "pib_dcz.h"
#include "pib_dstore.h"
#include "pib_codings.h"

#define PIB_DICT_URL_DEFAULT      "/pib-dict/"
#define PIB_DICT_LIFETIME_DEFAULT (7 * 86400)    /* seconds */
#define PIB_DICT_MAX_TOTAL_DEFAULT (16 << 20)    /* every file, bytes */
#define PIB_DICT_MAX_ONE_DEFAULT  (256 << 10)    /* one dictionary */
#define PIB_DICT_ENTRIES          16     /* prepared per child */
#define PIB_DICT_SAMPLE_EVERY     8      /* with a dictionary: 1 in N */
#define PIB_DICT_BUILD_GAP_S      30     /* between two builds of a prefix */

typedef struct {
    const char *root;           /* PiBalanceDictionaryRoot; NULL: off */
    apr_off_t max_total;        /* PiBalanceDictionaryMaxSize */
    apr_size_t max_one;         /* PiBalanceDictionaryMaxLength */
    long long lifetime;         /* PiBalanceDictionaryLifetime, seconds */
    const char *url;            /* PiBalanceDictionaryURL, ends in '/' */
    int cross_site;             /* PiBalanceDictionaryCrossSite */
    int level;                  /* dcz's level (PiBalanceDeflateCodecs) */
} pib_dict_conf;

/* child_init: the child's prepared dictionaries and its prefixes; joins
 * any build thread at child exit. */
void pib_dict_child_init(apr_pool_t *pchild, server_rec *s,
                         const pib_dict_conf *c);

/* The dictionary the request's Available-Dictionary names, referenced
 * until r->pool goes; NULL when absent, malformed or not held (*named
 * says whether the request named one at all: a miss). */
pib_dict *pib_dict_lookup(request_rec *r, const pib_dict_conf *c,
                          int *named);

/* 1 when this child holds (or can load) the dictionary of hash and it is
 * within its lifetime; conf is a const pib_dict_conf *.  The held()
 * of pib_dd_cache_key (pib_cache.c's post_read_request). */
int pib_dict_held(const unsigned char *hash, void *conf);

/* The Link value announcing prefix's current dictionary, or NULL when it
 * has none yet.  Reads the prefix's current name at most every 5 s. */
const char *pib_dict_link(request_rec *r, const pib_dict_conf *c,
                          const char *prefix);

/* A whole identity body of a response under prefix: kept as a sample
 * (every one while the prefix has no dictionary, else 1 in
 * PIB_DICT_SAMPLE_EVERY, then also measured against the current one),
 * and a build started in a thread of its own when pib_dbuild_due says
 * so, at most one at a time per prefix across children (a lock file). */
void pib_dict_sample(request_rec *r, const pib_dict_conf *c,
                     const char *prefix, const unsigned char *body,
                     apr_size_t n);

/* A fresh resource announced as its own next version's dictionary:
 * keeps body (kind self) when not held yet.  0, or -1 (not kept: then no
 * Use-As-Dictionary is sent). */
int pib_dict_keep_self(request_rec *r, const pib_dict_conf *c,
                       const unsigned char *body, apr_size_t n);

/* The quick handler part: serves GET/HEAD <url><64 hex> from the store
 * (a prefix dictionary, with Use-As-Dictionary and its lifetime); DECLINED
 * for any other URI. */
int pib_dict_serve(request_rec *r, const pib_dict_conf *c);

/* One response's dictionary work, decided by pib_dict_decide. */
typedef struct {
    pib_dict *dict;             /* use_dcz: the one to compress against */
    int use_dcz;
    int sample;                 /* its body is a sample of prefix */
    int self;                   /* its body becomes its own dictionary */
    const char *prefix;
} pib_dict_req;

struct pib_ae_s;

/* The filter's dictionary decision for r (pib_dd_decide on what r says):
 * compressible is the general verdict; codings the offer.  Adds
 * Available-Dictionary to Vary and the Link announcement as decided;
 * fills out.  Nothing when dictionaries are off or dcz is not offered. */
void pib_dict_decide(request_rec *r, const pib_codings *codings,
                     const char *prefix, int compressible,
                     pib_dict_req *out);

/* Headers once the coding is set up: Use-As-Dictionary for a response
 * that will become its own dictionary (held whole: one_pass). */
void pib_dict_headers(request_rec *r, pib_dict_req *q, int one_pass);

/* The whole identity body at its end: sampled and/or kept (q's flags). */
void pib_dict_body(request_rec *r, const pib_dict_req *q,
                   const unsigned char *body, apr_size_t n);

/* Registers child_init and the quick handler serving the dictionaries. */
void pib_dict_register(apr_pool_t *p);

/* Counts for /pi-status: held (this child), bytes, loads, refused. */
void pib_dict_counts(unsigned *held, unsigned long long *bytes,
                     unsigned long *loads, unsigned long *refused);

#endif /* PIB_DICT_H */
