/* pib_lbconf.h -- PiBalance* directives of lbmethod "pi", per balancer
 * (inside <Proxy "balancer://...">) and per server, and the module's
 * per-directory configuration that holds them beside the offload's. */
#ifndef PIB_LBCONF_H
#define PIB_LBCONF_H

#include "httpd.h"
#include "http_config.h"
#include "mod_proxy.h"

#include "pib_deflate_conf.h"
#include "pib_score.h"

/* Unset fields are negative; pib_lbconf_resolve() applies defaults. */
typedef struct {
    double decay_s;
    int soft_dc, hard_dc;
    double floor;
    int hyst_dc;
    double throttle_factor;
    double slowstart_s;
    double remote_max_age_s;
} pib_lbconf;

/* The module's per-directory configuration.  The offload's part comes
 * first: its code reads this struct as a pib_deflate_conf. */
typedef struct {
    pib_deflate_conf deflate;
    pib_lbconf lb;
} pib_dir_conf;

void *pib_create_dir(apr_pool_t *p, char *dir);
void *pib_merge_dir(apr_pool_t *p, void *basev, void *addv);

/* The settings of balancer b in server s: its <Proxy> section over the
 * server's, over the defaults.  Allocates nothing. */
void pib_lbconf_resolve(server_rec *s, proxy_balancer *b, pib_tuning *out);

/* One number within a range, as a command table's info. */
typedef struct {
    size_t offset;               /* in pib_lbconf */
    double lo, hi, scale;        /* scale: 10 for tenths of a degree */
    int is_int;
    const char *what;            /* "seconds from 0.1 to 3600" */
} pib_num_spec;

const char *pib_set_lb_number(cmd_parms *cmd, void *cfg, const char *arg);
const char *pib_set_thermal(cmd_parms *cmd, void *cfg, const char *soft,
                            const char *hard);
extern const pib_num_spec pib_decay_spec, pib_floor_spec, pib_hyst_spec,
                          pib_throttle_spec, pib_slowstart_spec,
                          pib_remote_age_spec;

#define PIB_LB_CTX (RSRC_CONF | ACCESS_CONF)

/* The lbmethod's entries of the module's command table. */
#define PIB_LB_CMDS \
    AP_INIT_TAKE1("PiBalanceDecay", pib_set_lb_number, \
                  (void *)&pib_decay_spec, PIB_LB_CTX, \
                  "time constant of the response-time estimate, seconds" \
                  " (default 10)"), \
    AP_INIT_TAKE2("PiBalanceThermal", pib_set_thermal, NULL, PIB_LB_CTX, \
                  "SOFT HARD: C where the thermal factor starts falling," \
                  " and above which a member is drained (default 70 80)"), \
    AP_INIT_TAKE1("PiBalanceThermalFloor", pib_set_lb_number, \
                  (void *)&pib_floor_spec, PIB_LB_CTX, \
                  "thermal factor at the hard limit (default 0.1)"), \
    AP_INIT_TAKE1("PiBalanceThermalHysteresis", pib_set_lb_number, \
                  (void *)&pib_hyst_spec, PIB_LB_CTX, "C below the hard" \
                  " limit to re-admit a drained member (default 5)"), \
    AP_INIT_TAKE1("PiBalanceThrottleFactor", pib_set_lb_number, \
                  (void *)&pib_throttle_spec, PIB_LB_CTX, "weight factor" \
                  " while the firmware throttles (default 0.5)"), \
    AP_INIT_TAKE1("PiBalanceSlowStart", pib_set_lb_number, \
                  (void *)&pib_slowstart_spec, PIB_LB_CTX, "seconds a" \
                  " returning member ramps from 10% to 100% (default 30)"), \
    AP_INIT_TAKE1("PiBalanceRemoteMaxAge", pib_set_lb_number, \
                  (void *)&pib_remote_age_spec, PIB_LB_CTX, "seconds a" \
                  " node's BusyWorkers counts other masters' requests" \
                  " toward its cap; 0: off (default 1.5 probe intervals)"),

#endif /* PIB_LBCONF_H */
