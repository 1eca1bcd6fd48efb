/* pis_config.h -- mod_pistats per-server configuration and directives. */
#ifndef PIS_CONFIG_H
#define PIS_CONFIG_H

#include "httpd.h"
#include "http_config.h"

#include "pi_thermal.h"
#include "pis_sensor.h"

#define PIS_DEFAULT_THERMAL   PI_THERMAL_GLOB
#define PIS_DEFAULT_THROTTLED PIS_THROTTLED_PATH

#define PIS_DEFAULT_PROBE_PATH     "/pi-status?auto"
#define PIS_DEFAULT_PROBE_INTERVAL apr_time_from_sec(2)
#define PIS_DEFAULT_PROBE_TIMEOUT  apr_time_from_sec(1)
#define PIS_PROBE_INTERVAL_MIN     apr_time_from_msec(100)
#define PIS_PROBE_INTERVAL_MAX     apr_time_from_sec(3600)
#define PIS_PROBE_TIMEOUT_MIN      apr_time_from_msec(10)
#define PIS_PROBE_TIMEOUT_MAX      apr_time_from_sec(60)
#define PIS_MAX_MEMBERS_LIMIT      4096

/* NULL / -1 / 0 mean unset; pis_conf_*() apply the defaults. */
typedef struct {
    const char *thermal_glob;       /* PiStatsThermalZone */
    const char *throttled_path;     /* PiStatsThrottledFile */
    const char *node_name;          /* PiStatsNodeName */
    const char *power_glob;         /* PiStatsPowerSensor (NULL: none) */
    int probe;                      /* PiStatsProbe: -1 unset, 0, 1 */
    const char *probe_path;         /* PiStatsProbePath */
    apr_interval_time_t probe_interval;  /* PiStatsProbeInterval, -1 */
    apr_interval_time_t probe_timeout;   /* PiStatsProbeTimeout, -1 */
    unsigned max_members;           /* PiStatsMaxMembers (main server) */
} pis_srv_conf;

extern module AP_MODULE_DECLARE_DATA pistats_module;
extern const command_rec pis_cmds[];

void *pis_create_srv_conf(apr_pool_t *p, server_rec *s);
void *pis_merge_srv_conf(apr_pool_t *p, void *basev, void *addv);

const char *pis_conf_thermal(const pis_srv_conf *c);
const char *pis_conf_throttled(const pis_srv_conf *c);
int pis_conf_probe(const pis_srv_conf *c);
const char *pis_conf_probe_path(const pis_srv_conf *c);
apr_interval_time_t pis_conf_probe_interval(const pis_srv_conf *c);
apr_interval_time_t pis_conf_probe_timeout(const pis_srv_conf *c);
unsigned pis_conf_max_members(const pis_srv_conf *c);
pis_srv_conf *pis_srv(const server_rec *s);

#endif /* PIS_CONFIG_H */
