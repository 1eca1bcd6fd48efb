/* pis_config.h -- mod_pistats per-server configuration and directives. */
#ifndef PIS_CONFIG_H
#define PIS_CONFIG_H

#include "httpd.h"
#include "http_config.h"

#define PIS_DEFAULT_THERMAL   "/sys/class/thermal/thermal_zone*/temp"
#define PIS_DEFAULT_THROTTLED \
    "/sys/devices/platform/soc/soc:firmware/get_throttled"

typedef struct pis_cache pis_cache;

/* Every field NULL means unset; pis_conf_*() apply the defaults. */
typedef struct {
    const char *thermal_glob;       /* PiStatsThermalZone */
    const char *throttled_path;     /* PiStatsThrottledFile */
    const char *node_name;          /* PiStatsNodeName */
    pis_cache *cache;               /* per process, from child_init */
} pis_srv_conf;

extern module AP_MODULE_DECLARE_DATA pistats_module;
extern const command_rec pis_cmds[];

void *pis_create_srv_conf(apr_pool_t *p, server_rec *s);
void *pis_merge_srv_conf(apr_pool_t *p, void *basev, void *addv);

const char *pis_conf_thermal(const pis_srv_conf *c);
const char *pis_conf_throttled(const pis_srv_conf *c);

#endif /* PIS_CONFIG_H */
