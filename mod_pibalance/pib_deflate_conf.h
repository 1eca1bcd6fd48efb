/* pib_deflate_conf.h -- the PiBalanceDeflate* directives and their
 * per-directory configuration (server, vhost, <Proxy>, <Location>).
 */
#ifndef PIB_DEFLATE_CONF_H
#define PIB_DEFLATE_CONF_H

#include "httpd.h"
#include "http_config.h"

#include "pib_adapt.h"
#include "pib_codings.h"

#define PIB_UNSET               (-1)
#define PIB_DEFLATE_LEVEL       1
#define PIB_DEFLATE_WBITS       15
#define PIB_DEFLATE_MEMLEVEL    8
#define PIB_DEFLATE_BUFFER      (1024 * 1024)
#define PIB_DEFLATE_BUFFER_MAX  (64 * 1024 * 1024)
#define PIB_DEFLATE_MINLEN      256
#define PIB_DEFLATE_MINLEN_MAX  (1024 * 1024 * 1024)

typedef struct {
    int enabled;                /* PiBalanceDeflate */
    int level;                  /* PiBalanceDeflateLevel */
    int window_bits;            /* PiBalanceDeflateWindowBits */
    int mem_level;              /* PiBalanceDeflateMemLevel */
    long buffer;                /* PiBalanceDeflateBuffer */
    long min_length;            /* PiBalanceDeflateMinLength */
    apr_array_header_t *types;  /* PiBalanceDeflateTypes, const char * */
    const pib_codings *codings; /* PiBalanceDeflateCodecs, NULL unset */
    int resolved;               /* defaults applied (merged, or fixed up) */
} pib_deflate_conf;

void *pib_deflate_create_dir(apr_pool_t *p, char *dir);
void *pib_deflate_merge_dir(apr_pool_t *p, void *basev, void *addv);

/* The merged configuration of a request (defaults applied). */
const pib_deflate_conf *pib_deflate_conf_get(request_rec *r);

/* Applies the defaults, in place, to the main server's own configuration,
 * which httpd never merges: a request that no <Location> or <Proxy>
 * matches uses it as it was read.  Called in post_config. */
void pib_deflate_conf_fixup_main(server_rec *s);

/* PiBalanceDeflateAdaptive: one per server (global). */
const pib_adapt_conf *pib_adapt_conf_get(void);

/* PiBalanceDeflateCompressors (global), PIB_UNSET when not given. */
int pib_compressors_get(void);

/* Forgets PiBalanceDeflateAdaptive and PiBalanceDeflateCompressors
 * before a configuration is read. */
void pib_adapt_conf_reset(void);

/* Directive table entries, for the module's command list. */
#define PIB_DEFLATE_CMDS_COUNT 10
extern const command_rec pib_deflate_cmds[];

#endif /* PIB_DEFLATE_CONF_H */
