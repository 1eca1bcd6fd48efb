/* pis_config.c -- mod_pistats directives.  Each setter calls a pure,
 * unit-tested check (pis_dircheck.c, pi_num.c) and stores the value; defaults apply
 * in pis_conf_*(), so virtual hosts inherit field by field. */
#include "httpd.h"
#include "http_config.h"
#include "apr_strings.h"

#include "pis_config.h"
#include "pi_num.h"
#include "pis_dircheck.h"
#include "pis_shm.h"

void *pis_create_srv_conf(apr_pool_t *p, server_rec *s)
{
    pis_srv_conf *c = apr_pcalloc(p, sizeof(*c));

    (void)s;
    c->probe = -1;
    c->probe_interval = -1;
    c->probe_timeout = -1;
    return c;
}

void *pis_merge_srv_conf(apr_pool_t *p, void *basev, void *addv)
{
    const pis_srv_conf *base = basev, *add = addv;
    pis_srv_conf *c = apr_pcalloc(p, sizeof(*c));

    c->thermal_glob = add->thermal_glob ? add->thermal_glob
                                        : base->thermal_glob;
    c->throttled_path = add->throttled_path ? add->throttled_path
                                            : base->throttled_path;
    c->node_name = add->node_name ? add->node_name : base->node_name;
    c->power_glob = add->power_glob ? add->power_glob : base->power_glob;
    c->probe = add->probe >= 0 ? add->probe : base->probe;
    c->probe_path = add->probe_path ? add->probe_path : base->probe_path;
    c->probe_interval = add->probe_interval >= 0 ? add->probe_interval
                                                 : base->probe_interval;
    c->probe_timeout = add->probe_timeout >= 0 ? add->probe_timeout
                                               : base->probe_timeout;
    c->max_members = base->max_members;   /* main server only */
    return c;
}

const char *pis_conf_thermal(const pis_srv_conf *c)
{
    return c->thermal_glob ? c->thermal_glob : PIS_DEFAULT_THERMAL;
}

const char *pis_conf_throttled(const pis_srv_conf *c)
{
    return c->throttled_path ? c->throttled_path : PIS_DEFAULT_THROTTLED;
}

int pis_conf_probe(const pis_srv_conf *c)
{
    return c->probe != 0;              /* default On */
}

const char *pis_conf_probe_path(const pis_srv_conf *c)
{
    return c->probe_path ? c->probe_path : PIS_DEFAULT_PROBE_PATH;
}

apr_interval_time_t pis_conf_probe_interval(const pis_srv_conf *c)
{
    return c->probe_interval >= 0 ? c->probe_interval
                                  : PIS_DEFAULT_PROBE_INTERVAL;
}

apr_interval_time_t pis_conf_probe_timeout(const pis_srv_conf *c)
{
    apr_interval_time_t half = pis_conf_probe_interval(c) / 2;

    if (c->probe_timeout >= 0) {
        return c->probe_timeout;
    }
    /* 1 s, or half the interval when that is shorter */
    return half < PIS_DEFAULT_PROBE_TIMEOUT ? half
                                            : PIS_DEFAULT_PROBE_TIMEOUT;
}

unsigned pis_conf_max_members(const pis_srv_conf *c)
{
    return c->max_members ? c->max_members : PIS_DEFAULT_MAX_MEMBERS;
}

pis_srv_conf *pis_srv(const server_rec *s)
{
    return ap_get_module_config(s->module_config, &pistats_module);
}

static pis_srv_conf *srv_conf(cmd_parms *cmd)
{
    return ap_get_module_config(cmd->server->module_config, &pistats_module);
}

/* A string directive: its field and the pure check of its value. */
typedef struct {
    size_t offset;                     /* in pis_srv_conf */
    const char *(*check)(const char *value);
} str_spec;

static const str_spec thermal_spec = {
    APR_OFFSETOF(pis_srv_conf, thermal_glob), pis_check_sensor_path };
static const str_spec throttled_spec = {
    APR_OFFSETOF(pis_srv_conf, throttled_path), pis_check_sensor_path };
static const str_spec node_spec = {
    APR_OFFSETOF(pis_srv_conf, node_name), pis_check_node_name };
static const str_spec power_spec = {
    APR_OFFSETOF(pis_srv_conf, power_glob), pis_check_power_sensor };
static const str_spec probe_path_spec = {
    APR_OFFSETOF(pis_srv_conf, probe_path), pis_check_probe_path };

static const char *set_string(cmd_parms *cmd, void *dummy, const char *arg)
{
    const str_spec *spec = cmd->info;
    const char *err = ap_check_cmd_context(cmd, NOT_IN_DIR_CONTEXT);
    const char *why;

    (void)dummy;
    if (err != NULL) {
        return err;
    }
    why = spec->check(arg);
    if (why != NULL) {
        return apr_psprintf(cmd->pool, "%s: '%s' %s", cmd->cmd->name, arg,
                            why);
    }
    *(const char **)((char *)srv_conf(cmd) + spec->offset) = arg;
    return NULL;
}

static const char *set_probe(cmd_parms *cmd, void *dummy, int on)
{
    (void)dummy;
    srv_conf(cmd)->probe = on;
    return NULL;
}

/* PiStatsProbeInterval / PiStatsProbeTimeout: a time with an optional
 * unit (ms, s, mi, h; seconds by default), within [min, max]. */
static const char *set_probe_time(cmd_parms *cmd, void *dummy,
                                  const char *arg)
{
    int interval = cmd->info != NULL;
    apr_interval_time_t t, lo, hi;

    (void)dummy;
    lo = interval ? PIS_PROBE_INTERVAL_MIN : PIS_PROBE_TIMEOUT_MIN;
    hi = interval ? PIS_PROBE_INTERVAL_MAX : PIS_PROBE_TIMEOUT_MAX;
    if (ap_timeout_parameter_parse(arg, &t, "s") != APR_SUCCESS
        || t < lo || t > hi) {
        return apr_psprintf(cmd->pool, "%s: '%s' must be a time from %s"
                            " to %s (e.g. 2, 1500ms)", cmd->cmd->name, arg,
                            interval ? "100ms" : "10ms",
                            interval ? "1 hour" : "60 s");
    }
    if (interval) {
        srv_conf(cmd)->probe_interval = t;
    }
    else {
        srv_conf(cmd)->probe_timeout = t;
    }
    return NULL;
}

static const char *set_max_members(cmd_parms *cmd, void *dummy,
                                   const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    long n;

    (void)dummy;
    if (err != NULL) {
        return err;
    }
    if (pi_parse_whole(arg, 1, PIS_MAX_MEMBERS_LIMIT, &n) != 0) {
        return apr_psprintf(cmd->pool, "%s: '%s' must be a number of"
                            " members from 1 to %d", cmd->cmd->name, arg,
                            PIS_MAX_MEMBERS_LIMIT);
    }
    srv_conf(cmd)->max_members = (unsigned)n;
    return NULL;
}

const command_rec pis_cmds[] = {
    AP_INIT_TAKE1("PiStatsThermalZone", set_string, (void *)&thermal_spec,
                  RSRC_CONF,
                  "Path or glob of thermal zone 'temp' files (millidegrees);"
                  " the hottest readable zone is reported"),
    AP_INIT_TAKE1("PiStatsThrottledFile", set_string,
                  (void *)&throttled_spec, RSRC_CONF,
                  "Path of the firmware's get_throttled file (hex bits)"),
    AP_INIT_TAKE1("PiStatsPowerSensor", set_string, (void *)&power_spec,
                  RSRC_CONF,
                  "Path or glob of hwmon power*_input (uW), or curr*_input /"
                  " in*_input pairs (mA, mV): the node's power (PowerW)"),
    AP_INIT_TAKE1("PiStatsNodeName", set_string, (void *)&node_spec,
                  RSRC_CONF,
                  "Name this node reports (default: the host name)"),
    AP_INIT_FLAG("PiStatsProbe", set_probe, NULL, RSRC_CONF,
                 "On: read the telemetry of this server's balancer members"
                 " (default On)"),
    AP_INIT_TAKE1("PiStatsProbePath", set_string, (void *)&probe_path_spec,
                  RSRC_CONF,
                  "Path of a member's telemetry (default /pi-status?auto)"),
    AP_INIT_TAKE1("PiStatsProbeInterval", set_probe_time, (void *)1,
                  RSRC_CONF, "Time between probes of a member (default 2 s)"),
    AP_INIT_TAKE1("PiStatsProbeTimeout", set_probe_time, NULL, RSRC_CONF,
                  "Time a probe may take (default 1 s)"),
    AP_INIT_TAKE1("PiStatsMaxMembers", set_max_members, NULL, RSRC_CONF,
                  "Members with statistics, all balancers together"
                  " (default 128)"),
    { NULL }
};
