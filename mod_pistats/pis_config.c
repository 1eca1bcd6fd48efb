/* pis_config.c -- mod_pistats directives.  Each setter calls a pure,
 * unit-tested check (pis_sensor.c) and stores the value; defaults apply
 * in pis_conf_*(), so virtual hosts inherit field by field. */
#include "httpd.h"
#include "http_config.h"
#include "apr_strings.h"

#include "pis_config.h"
#include "pis_sensor.h"

void *pis_create_srv_conf(apr_pool_t *p, server_rec *s)
{
    (void)s;
    return apr_pcalloc(p, sizeof(pis_srv_conf));
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

static pis_srv_conf *srv_conf(cmd_parms *cmd)
{
    return ap_get_module_config(cmd->server->module_config, &pistats_module);
}

/* Stores a sensor path at the offset given in the command table. */
static const char *set_sensor_path(cmd_parms *cmd, void *dummy,
                                   const char *arg)
{
    const char *why = pis_check_sensor_path(arg);
    const char *err = ap_check_cmd_context(cmd, NOT_IN_DIR_CONTEXT);

    (void)dummy;
    if (err != NULL) {
        return err;
    }
    if (why != NULL) {
        return apr_psprintf(cmd->pool, "%s: '%s' %s", cmd->cmd->name, arg,
                            why);
    }
    *(const char **)((char *)srv_conf(cmd) + (size_t)cmd->info) = arg;
    return NULL;
}

static const char *set_node_name(cmd_parms *cmd, void *dummy,
                                 const char *arg)
{
    const char *why = pis_check_node_name(arg);
    const char *err = ap_check_cmd_context(cmd, NOT_IN_DIR_CONTEXT);

    (void)dummy;
    if (err != NULL) {
        return err;
    }
    if (why != NULL) {
        return apr_psprintf(cmd->pool, "%s: '%s' %s", cmd->cmd->name, arg,
                            why);
    }
    srv_conf(cmd)->node_name = arg;
    return NULL;
}

const command_rec pis_cmds[] = {
    AP_INIT_TAKE1("PiStatsThermalZone", set_sensor_path,
                  (void *)APR_OFFSETOF(pis_srv_conf, thermal_glob), RSRC_CONF,
                  "Path or glob of thermal zone 'temp' files (millidegrees);"
                  " the hottest readable zone is reported"),
    AP_INIT_TAKE1("PiStatsThrottledFile", set_sensor_path,
                  (void *)APR_OFFSETOF(pis_srv_conf, throttled_path),
                  RSRC_CONF,
                  "Path of the firmware's get_throttled file (hex bits)"),
    AP_INIT_TAKE1("PiStatsNodeName", set_node_name, NULL, RSRC_CONF,
                  "Name this node reports (default: the host name)"),
    { NULL }
};
