/* pib_config.h -- mod_pibalance's configuration room: every PiBalance*
 * directive, the per-directory and per-server configurations with their
 * create and merge, the process-wide settings, and the accessors the
 * feature files read them through (pib_config.c).
 *
 * Where each kind of setting lives, and why:
 *
 *   per directory  the offload (PiBalanceDeflate*): server, virtual host,
 *                  <Location>, <Proxy>; and lbmethod pi's (PiBalanceDecay,
 *                  Thermal*, ...): server, virtual host, <Proxy
 *                  "balancer://...">, where a balancer's own section
 *                  overrides its server's
 *   per server     the cache directives (PiBalanceDeflateCacheKey, ...):
 *                  mod_cache's quick handler runs before any <Location> or
 *                  <Proxy> is known
 *   process-wide   PiBalanceDeflateAdaptive, PiBalanceDeflateCompressors:
 *                  one master, one CPU; main server only
 *
 * One spelling of "unset" (PIB_UNSET, -1, for ints, longs and doubles
 * alike; NULL for pointers); create sets it everywhere and the merges and
 * accessors are the only places defaults apply, so a section inherits
 * field by field.  Every number goes through one range-checked setter
 * whose limits ride in the command's cmd->info.
 */
#ifndef PIB_CONFIG_H
#define PIB_CONFIG_H

#include "httpd.h"
#include "http_config.h"
#include "mod_proxy.h"

#include "pib_adapt.h"
#include "pib_codings.h"
#include "pib_score.h"
#include "pib_dict.h"

#define PIB_UNSET               (-1)

/* Defaults of the offload (docs/directives.md). */
#define PIB_DEFLATE_LEVEL       1
#define PIB_DEFLATE_WBITS       15
#define PIB_DEFLATE_MEMLEVEL    8
#define PIB_DEFLATE_BUFFER      (1024 * 1024)
#define PIB_DEFLATE_BUFFER_MAX  (64 * 1024 * 1024)
#define PIB_DEFLATE_MINLEN      256
#define PIB_DEFLATE_MINLEN_MAX  (1024 * 1024 * 1024)

/* The offload's part of the per-directory configuration. */
typedef struct {
    int enabled;                /* PiBalanceDeflate */
    int level;                  /* PiBalanceDeflateLevel */
    int window_bits;            /* PiBalanceDeflateWindowBits */
    int mem_level;              /* PiBalanceDeflateMemLevel */
    long buffer;                /* PiBalanceDeflateBuffer */
    long min_length;            /* PiBalanceDeflateMinLength */
    apr_array_header_t *types;  /* PiBalanceDeflateTypes, const char * */
    const pib_codings *codings; /* PiBalanceDeflateCodecs */
    const char *dict_prefix;    /* PiBalanceDictionaryPrefix, or NULL */
    int resolved;               /* defaults applied (pib_conf_deflate) */
} pib_deflate_conf;

/* lbmethod pi's part (defaults: pib_score.h's PIB_DEFAULT_*). */
typedef struct {
    double decay_s;             /* PiBalanceDecay */
    int soft_dc, hard_dc;       /* PiBalanceThermal, tenths of C */
    double floor;               /* PiBalanceThermalFloor */
    int hyst_dc;                /* PiBalanceThermalHysteresis */
    double throttle_factor;     /* PiBalanceThrottleFactor */
    double slowstart_s;         /* PiBalanceSlowStart */
    double remote_max_age_s;    /* PiBalanceRemoteMaxAge */
    int energy;                 /* PiBalanceEnergy */
    double energy_pct;          /* PiBalanceEnergyTolerance, percent */
} pib_lbconf;

typedef struct {
    pib_deflate_conf deflate;
    pib_lbconf lb;
} pib_dir_conf;

typedef struct {
    int cache_key;              /* PiBalanceDeflateCacheKey */
    int store_level;            /* PiBalanceDeflateStoreLevel */
    int refresh_full;           /* PiBalanceDeflateCacheRefresh full */
} pib_srv_conf;

/* The module record's configuration functions and command table. */
void *pib_create_dir(apr_pool_t *p, char *dir);
void *pib_merge_dir(apr_pool_t *p, void *basev, void *addv);
void *pib_create_srv(apr_pool_t *p, server_rec *s);
void *pib_merge_srv(apr_pool_t *p, void *basev, void *addv);
extern const command_rec pib_cmds[];

/* pre_config: forgets the process-wide settings of the configuration
 * read before. */
void pib_conf_reset(void);

/* pre_config: makes the defaults of this configuration's reading (the
 * default media types, gzip alone). */
void pib_conf_defaults(apr_pool_t *pconf);

/* The offload's settings of a request, defaults applied (the merges
 * never apply them: pib_config.c).  Kept in the request while its
 * per-directory configuration stays the same. */
const pib_deflate_conf *pib_conf_deflate(request_rec *r);

/* lbmethod pi's settings of balancer b in server s: its <Proxy> section
 * over its server's, over the defaults.  Allocates nothing. */
void pib_conf_tuning(server_rec *s, proxy_balancer *b, pib_tuning *out);

/* The offload at balancer b (for /pi-status): its section's value where
 * set, else its server's, else the default. */
void pib_conf_balancer_deflate(server_rec *s, proxy_balancer *b, int *on,
                               int *level);

/* The cache directives of server s (a virtual host inherits each it
 * does not set): 1 On, 0 Off; store level 1..12, PIB_UNSET when none. */
int pib_conf_cache_key(const server_rec *s);
int pib_conf_store_level(const server_rec *s);
int pib_conf_refresh_full(const server_rec *s);

/* The process-wide settings. */
const pib_adapt_conf *pib_conf_adapt(void);
int pib_conf_compressors(void);          /* PIB_UNSET when not given */

/* The PiBalanceDictionary* directives (main server): root NULL when
 * dictionaries are off. */
const pib_dict_conf *pib_conf_dict(void);

#endif /* PIB_CONFIG_H */
