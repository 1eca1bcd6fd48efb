/* pib_lbconf.c -- PiBalance* directives of lbmethod "pi".  Each setter
 * calls the pure, unit-tested pi_parse_number() and stores the value;
 * pib_lbconf_resolve() applies defaults, so a <Proxy> section inherits
 * field by field from its server, which inherits from the main server. */
#include "httpd.h"
#include "http_config.h"
#include "apr_strings.h"

#include "pi_num.h"
#include "pib_lbconf.h"
#include "pib_state.h"

extern module AP_MODULE_DECLARE_DATA pibalance_module;

static void lb_unset(pib_lbconf *c)
{
    c->decay_s = -1;
    c->soft_dc = c->hard_dc = -1;
    c->floor = -1;
    c->hyst_dc = -1;
    c->throttle_factor = -1;
    c->slowstart_s = -1;
    c->remote_max_age_s = -1;
}

#define PICK(a, b) ((a) >= 0 ? (a) : (b))

static void lb_merge(pib_lbconf *c, const pib_lbconf *base,
                     const pib_lbconf *add)
{
    c->decay_s = PICK(add->decay_s, base->decay_s);
    if (add->soft_dc >= 0) {                /* the pair goes together */
        c->soft_dc = add->soft_dc;
        c->hard_dc = add->hard_dc;
    }
    else {
        c->soft_dc = base->soft_dc;
        c->hard_dc = base->hard_dc;
    }
    c->floor = PICK(add->floor, base->floor);
    c->hyst_dc = PICK(add->hyst_dc, base->hyst_dc);
    c->throttle_factor = PICK(add->throttle_factor, base->throttle_factor);
    c->slowstart_s = PICK(add->slowstart_s, base->slowstart_s);
    c->remote_max_age_s = PICK(add->remote_max_age_s,
                               base->remote_max_age_s);
}

void *pib_create_dir(apr_pool_t *p, char *dir)
{
    pib_dir_conf *c = apr_palloc(p, sizeof(*c));

    c->deflate = *(pib_deflate_conf *)pib_deflate_create_dir(p, dir);
    lb_unset(&c->lb);
    return c;
}

void *pib_merge_dir(apr_pool_t *p, void *basev, void *addv)
{
    pib_dir_conf *base = basev, *add = addv;
    pib_dir_conf *c = apr_palloc(p, sizeof(*c));

    c->deflate = *(pib_deflate_conf *)pib_deflate_merge_dir(p, &base->deflate,
                                                           &add->deflate);
    lb_merge(&c->lb, &base->lb, &add->lb);
    return c;
}

void pib_lbconf_resolve(server_rec *s, proxy_balancer *b, pib_tuning *out)
{
    const pib_dir_conf *srv = ap_get_module_config(s->lookup_defaults,
                                                   &pibalance_module);
    ap_conf_vector_t *v = pib_state_section(b);
    const pib_dir_conf *sec = v ? ap_get_module_config(v, &pibalance_module)
                                : NULL;
    pib_lbconf c, none;

    lb_unset(&none);
    lb_merge(&c, srv ? &srv->lb : &none, sec ? &sec->lb : &none);
    pib_tuning_default(out);
    out->decay_s = PICK(c.decay_s, out->decay_s);
    if (c.soft_dc >= 0) {
        out->soft_dc = c.soft_dc;
        out->hard_dc = c.hard_dc;
    }
    out->floor = PICK(c.floor, out->floor);
    out->hyst_dc = PICK(c.hyst_dc, out->hyst_dc);
    out->throttle_factor = PICK(c.throttle_factor, out->throttle_factor);
    out->slowstart_s = PICK(c.slowstart_s, out->slowstart_s);
    out->remote_max_age_s = PICK(c.remote_max_age_s, out->remote_max_age_s);
}

/* Where a PiBalance* setting may go: server, virtual host, or a
 * <Proxy "balancer://..."> section. */
static const char *check_context(cmd_parms *cmd)
{
    if (cmd->path != NULL
        && (cmd->directive->parent == NULL
            || strncasecmp(cmd->path, "balancer://", 11) != 0)) {
        return apr_psprintf(cmd->pool, "%s: only in the server, a virtual"
                            " host or <Proxy \"balancer://...\">",
                            cmd->cmd->name);
    }
    return NULL;
}

const char *pib_set_lb_number(cmd_parms *cmd, void *cfg, const char *arg)
{
    const pib_num_spec *spec = cmd->info;
    pib_lbconf *c = &((pib_dir_conf *)cfg)->lb;
    const char *err = check_context(cmd);
    double v;

    if (err != NULL) {
        return err;
    }
    if (pi_parse_number(arg, spec->lo, spec->hi, &v) != 0) {
        return apr_psprintf(cmd->pool, "%s: '%s' must be %s",
                            cmd->cmd->name, arg, spec->what);
    }
    if (spec->is_int) {
        *(int *)((char *)c + spec->offset) = (int)(v * spec->scale + 0.5);
    }
    else {
        *(double *)((char *)c + spec->offset) = v;
    }
    return NULL;
}

const char *pib_set_thermal(cmd_parms *cmd, void *cfg, const char *soft,
                            const char *hard)
{
    pib_lbconf *c = &((pib_dir_conf *)cfg)->lb;
    const char *err = check_context(cmd);
    double s, h;

    if (err != NULL) {
        return err;
    }
    if (pi_parse_number(soft, 0, 150, &s) != 0
        || pi_parse_number(hard, 0, 150, &h) != 0) {
        return apr_psprintf(cmd->pool, "%s: '%s %s' must be two"
                            " temperatures in C from 0 to 150",
                            cmd->cmd->name, soft, hard);
    }
    if (s >= h) {
        return apr_psprintf(cmd->pool, "%s: soft limit %s must be below"
                            " hard limit %s", cmd->cmd->name, soft, hard);
    }
    c->soft_dc = (int)(s * 10 + 0.5);
    c->hard_dc = (int)(h * 10 + 0.5);
    return NULL;
}

const pib_num_spec pib_decay_spec = {
    APR_OFFSETOF(pib_lbconf, decay_s), 0.1, 3600, 1, 0,
    "seconds from 0.1 to 3600" };
const pib_num_spec pib_floor_spec = {
    APR_OFFSETOF(pib_lbconf, floor), 0.01, 1, 1, 0,
    "a factor from 0.01 to 1" };
const pib_num_spec pib_hyst_spec = {
    APR_OFFSETOF(pib_lbconf, hyst_dc), 0, 50, 10, 1,
    "degrees C from 0 to 50" };
const pib_num_spec pib_throttle_spec = {
    APR_OFFSETOF(pib_lbconf, throttle_factor), 0.01, 1, 1, 0,
    "a factor from 0.01 to 1" };
const pib_num_spec pib_remote_age_spec = {
    APR_OFFSETOF(pib_lbconf, remote_max_age_s), 0, 3600, 1, 0,
    "seconds from 0 (off) to 3600" };
const pib_num_spec pib_slowstart_spec = {
    APR_OFFSETOF(pib_lbconf, slowstart_s), 0, 3600, 1, 0,
    "seconds from 0 to 3600" };
