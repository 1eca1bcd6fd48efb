/* pib_config.c -- mod_pibalance's configuration room (pib_config.h):
 * the command table, the configurations and their merges, the setters,
 * the process-wide settings and the accessors.
 *
 * Every setter checks where it is written first (a directive that cannot
 * take effect there is refused, never ignored), then calls a pure,
 * unit-tested parser (pi_num.c, pib_codings.c, pib_adapt.c) and stores
 * the result.  The numbers share one setter, pib_set_number(): the field,
 * its type, its range and the words of its message are the command's
 * cmd->info (a pib_num_spec), so a new number directive is one row of
 * the table below.
 */
#include "httpd.h"
#include "http_config.h"
#include "apr_lib.h"
#include "apr_strings.h"

#include "pi_num.h"
#include "pib_codec.h"
#include "pib_config.h"
#include "pib_decide.h"
#include "pib_req.h"
#include "pib_state.h"
#include "pib_dpolicy.h"
#include "pib_dstore.h"
#include "apr_file_info.h"

extern module AP_MODULE_DECLARE_DATA pibalance_module;

#define PIB_PICK(add, base, dflt) \
    ((add) != PIB_UNSET ? (add) : (base) != PIB_UNSET ? (base) : (dflt))

/* ---- process-wide settings ---------------------------------------------- */

typedef struct {
    long compressors;           /* PiBalanceDeflateCompressors */
    long dict_max_total;        /* PiBalanceDictionaryMaxSize */
    long dict_lifetime;         /* PiBalanceDictionaryLifetime */
    int dict_cross_site;        /* PiBalanceDictionaryCrossSite */
} pib_globals;

static pib_globals pib_global = { PIB_UNSET, PIB_UNSET, PIB_UNSET,
                                  PIB_UNSET };
static const char *pib_dict_root;       /* PiBalanceDictionaryRoot */
static pib_dict_conf pib_dict_global;
static pib_adapt_conf pib_adapt_global;
static int pib_adapt_global_set;

void pib_conf_reset(void)
{
    pib_adapt_global_set = 0;
    pib_global.compressors = PIB_UNSET;
    pib_global.dict_max_total = pib_global.dict_lifetime = PIB_UNSET;
    pib_global.dict_cross_site = PIB_UNSET;
    pib_dict_root = NULL;
}

const pib_dict_conf *pib_conf_dict(void)
{
    pib_dict_conf *c = &pib_dict_global;

    c->root = pib_dict_root;
    c->max_total = pib_global.dict_max_total != PIB_UNSET
                   ? pib_global.dict_max_total : PIB_DICT_MAX_TOTAL_DEFAULT;
    c->max_one = PIB_DICT_MAX_ONE_DEFAULT;
    c->lifetime = pib_global.dict_lifetime != PIB_UNSET
                  ? pib_global.dict_lifetime : PIB_DICT_LIFETIME_DEFAULT;
    c->url = PIB_DICT_URL_DEFAULT;
    c->cross_site = pib_global.dict_cross_site == 1;
    c->level = 3;                   /* dcz's default (pib_coding_table.c) */
    return c;
}

const pib_adapt_conf *pib_conf_adapt(void)
{
    if (!pib_adapt_global_set) {
        pib_adapt_conf_default(&pib_adapt_global);
        pib_adapt_global_set = 1;
    }
    return &pib_adapt_global;
}

int pib_conf_compressors(void)
{
    return (int)pib_global.compressors;
}

/* ---- per directory ------------------------------------------------------ */

static void deflate_unset(pib_deflate_conf *c)
{
    c->enabled = c->level = c->window_bits = c->mem_level = PIB_UNSET;
    c->buffer = c->min_length = PIB_UNSET;
    c->types = NULL;
    c->codings = NULL;
    c->dict_prefix = NULL;
    c->resolved = 0;
}

static void lb_unset(pib_lbconf *c)
{
    c->decay_s = c->floor = c->throttle_factor = PIB_UNSET;
    c->slowstart_s = c->remote_max_age_s = PIB_UNSET;
    c->soft_dc = c->hard_dc = c->hyst_dc = PIB_UNSET;
    c->energy = PIB_UNSET;
    c->energy_pct = PIB_UNSET;
}

void *pib_create_dir(apr_pool_t *p, char *dir)
{
    pib_dir_conf *c = apr_palloc(p, sizeof(*c));

    (void)dir;
    deflate_unset(&c->deflate);
    lb_unset(&c->lb);
    return c;
}

/* The offload's merge: field by field, unset stays unset.  No default
 * is applied here: httpd merges two sections that match one URL with
 * each other before it merges the result onto the server's, so a default
 * filled in at the first merge would beat the server's setting
 * (t/offload/sections.t).  pib_conf_deflate() applies the defaults. */
static void deflate_merge(pib_deflate_conf *c, const pib_deflate_conf *base,
                          const pib_deflate_conf *add)
{
    c->enabled = PIB_PICK(add->enabled, base->enabled, PIB_UNSET);
    c->level = PIB_PICK(add->level, base->level, PIB_UNSET);
    c->window_bits = PIB_PICK(add->window_bits, base->window_bits,
                              PIB_UNSET);
    c->mem_level = PIB_PICK(add->mem_level, base->mem_level, PIB_UNSET);
    c->buffer = PIB_PICK(add->buffer, base->buffer, PIB_UNSET);
    c->min_length = PIB_PICK(add->min_length, base->min_length, PIB_UNSET);
    c->types = add->types ? add->types : base->types;
    c->codings = add->codings ? add->codings : base->codings;
    c->dict_prefix = add->dict_prefix ? add->dict_prefix : base->dict_prefix;
    c->resolved = 0;
}

/* The defaults (made once a configuration, in pconf). */
static apr_array_header_t *pib_default_types_arr;
static pib_codings pib_default_codings;

/* The defaults applied to c, into out (every field set). */
static void deflate_resolve(pib_deflate_conf *out, const pib_deflate_conf *c)
{
    out->enabled = PIB_PICK(c->enabled, PIB_UNSET, 0);
    out->level = PIB_PICK(c->level, PIB_UNSET, PIB_DEFLATE_LEVEL);
    out->window_bits = PIB_PICK(c->window_bits, PIB_UNSET,
                                PIB_DEFLATE_WBITS);
    out->mem_level = PIB_PICK(c->mem_level, PIB_UNSET, PIB_DEFLATE_MEMLEVEL);
    out->buffer = PIB_PICK(c->buffer, PIB_UNSET, PIB_DEFLATE_BUFFER);
    out->min_length = PIB_PICK(c->min_length, PIB_UNSET, PIB_DEFLATE_MINLEN);
    out->types = c->types ? c->types : pib_default_types_arr;
    out->codings = c->codings ? c->codings : &pib_default_codings;
    out->dict_prefix = c->dict_prefix;
    out->resolved = 1;
}

/* lbmethod pi's merge: unset stays unset (pib_conf_tuning() applies the
 * defaults); the thermal pair goes together. */
static void lb_merge(pib_lbconf *c, const pib_lbconf *base,
                     const pib_lbconf *add)
{
    c->decay_s = PIB_PICK(add->decay_s, base->decay_s, PIB_UNSET);
    c->soft_dc = add->soft_dc != PIB_UNSET ? add->soft_dc : base->soft_dc;
    c->hard_dc = add->soft_dc != PIB_UNSET ? add->hard_dc : base->hard_dc;
    c->floor = PIB_PICK(add->floor, base->floor, PIB_UNSET);
    c->hyst_dc = PIB_PICK(add->hyst_dc, base->hyst_dc, PIB_UNSET);
    c->throttle_factor = PIB_PICK(add->throttle_factor,
                                  base->throttle_factor, PIB_UNSET);
    c->slowstart_s = PIB_PICK(add->slowstart_s, base->slowstart_s,
                              PIB_UNSET);
    c->remote_max_age_s = PIB_PICK(add->remote_max_age_s,
                                   base->remote_max_age_s, PIB_UNSET);
    c->energy = PIB_PICK(add->energy, base->energy, PIB_UNSET);
    c->energy_pct = PIB_PICK(add->energy_pct, base->energy_pct, PIB_UNSET);
}

void *pib_merge_dir(apr_pool_t *p, void *basev, void *addv)
{
    const pib_dir_conf *base = basev, *add = addv;
    pib_dir_conf *c = apr_palloc(p, sizeof(*c));

    (void)p;
    deflate_merge(&c->deflate, &base->deflate, &add->deflate);
    lb_merge(&c->lb, &base->lb, &add->lb);
    return c;
}

/* The resolved configuration of a request, kept while its per-directory
 * configuration is the same one (the cache's post_read_request sees the
 * server's; the filter, after the location walk, a section's). */
typedef struct {
    const ap_conf_vector_t *of;
    pib_deflate_conf done;
} pib_resolved;

const pib_deflate_conf *pib_conf_deflate(request_rec *r)
{
    const pib_dir_conf *c = ap_get_module_config(r->per_dir_config,
                                                 &pibalance_module);
    pib_req *q;
    pib_resolved *k;

    if (c == NULL) {
        return NULL;
    }
    q = pib_req_get(r, 1);
    if ((k = q->resolved) == NULL) {
        k = q->resolved = apr_pcalloc(r->pool, sizeof(*k));
    }
    if (k->of != r->per_dir_config) {
        deflate_resolve(&k->done, &c->deflate);
        k->of = r->per_dir_config;
    }
    return &k->done;
}

void pib_conf_defaults(apr_pool_t *pconf)
{
    size_t i;

    pib_default_types_arr = apr_array_make(pconf, (int)pib_default_ntypes,
                                           sizeof(const char *));
    for (i = 0; i < pib_default_ntypes; i++) {
        APR_ARRAY_PUSH(pib_default_types_arr, const char *)
            = pib_default_types[i];
    }
    pib_codings_default(&pib_default_codings);
}

/* The per-directory configurations of balancer b: its server's and its
 * <Proxy> section's (NULL when it has none). */
static void balancer_confs(server_rec *s, proxy_balancer *b,
                           const pib_dir_conf **srv,
                           const pib_dir_conf **sec)
{
    ap_conf_vector_t *v = pib_state_section(b);

    *srv = ap_get_module_config(s->lookup_defaults, &pibalance_module);
    *sec = v ? ap_get_module_config(v, &pibalance_module) : NULL;
}

void pib_conf_tuning(server_rec *s, proxy_balancer *b, pib_tuning *out)
{
    const pib_dir_conf *srv, *sec;
    pib_lbconf c, none;

    balancer_confs(s, b, &srv, &sec);
    lb_unset(&none);
    lb_merge(&c, srv ? &srv->lb : &none, sec ? &sec->lb : &none);
    pib_tuning_default(out);
    out->decay_s = PIB_PICK(c.decay_s, PIB_UNSET, out->decay_s);
    if (c.soft_dc != PIB_UNSET) {
        out->soft_dc = c.soft_dc;
        out->hard_dc = c.hard_dc;
    }
    out->floor = PIB_PICK(c.floor, PIB_UNSET, out->floor);
    out->hyst_dc = PIB_PICK(c.hyst_dc, PIB_UNSET, out->hyst_dc);
    out->throttle_factor = PIB_PICK(c.throttle_factor, PIB_UNSET,
                                    out->throttle_factor);
    out->slowstart_s = PIB_PICK(c.slowstart_s, PIB_UNSET, out->slowstart_s);
    out->remote_max_age_s = PIB_PICK(c.remote_max_age_s, PIB_UNSET,
                                     out->remote_max_age_s);
    out->energy = PIB_PICK(c.energy, PIB_UNSET, out->energy);
    if (c.energy_pct != PIB_UNSET) {
        out->energy_tol = c.energy_pct / 100.0;
    }
}

void pib_conf_balancer_deflate(server_rec *s, proxy_balancer *b, int *on,
                               int *level)
{
    const pib_dir_conf *srv, *sec;
    int o = PIB_UNSET, l = PIB_UNSET;

    balancer_confs(s, b, &srv, &sec);
    if (sec != NULL) {
        o = sec->deflate.enabled;
        l = sec->deflate.level;
    }
    if (srv != NULL) {
        o = PIB_PICK(o, srv->deflate.enabled, PIB_UNSET);
        l = PIB_PICK(l, srv->deflate.level, PIB_UNSET);
    }
    *on = o > 0;
    *level = l != PIB_UNSET ? l : PIB_DEFLATE_LEVEL;
}

/* ---- per server --------------------------------------------------------- */

void *pib_create_srv(apr_pool_t *p, server_rec *s)
{
    pib_srv_conf *c = apr_palloc(p, sizeof(*c));

    (void)s;
    c->cache_key = c->store_level = c->refresh_full = PIB_UNSET;
    return c;
}

/* A virtual host inherits each directive it does not set. */
void *pib_merge_srv(apr_pool_t *p, void *basev, void *addv)
{
    const pib_srv_conf *base = basev, *add = addv;
    pib_srv_conf *c = apr_palloc(p, sizeof(*c));

    c->cache_key = PIB_PICK(add->cache_key, base->cache_key, PIB_UNSET);
    c->store_level = PIB_PICK(add->store_level, base->store_level,
                              PIB_UNSET);
    c->refresh_full = PIB_PICK(add->refresh_full, base->refresh_full,
                               PIB_UNSET);
    return c;
}

static const pib_srv_conf *srv_conf(const server_rec *s)
{
    return ap_get_module_config(s->module_config, &pibalance_module);
}

int pib_conf_cache_key(const server_rec *s)
{
    const pib_srv_conf *c = srv_conf(s);

    return c != NULL && c->cache_key == 1;
}

int pib_conf_store_level(const server_rec *s)
{
    const pib_srv_conf *c = srv_conf(s);

    return c != NULL ? c->store_level : PIB_UNSET;
}

int pib_conf_refresh_full(const server_rec *s)
{
    const pib_srv_conf *c = srv_conf(s);

    return c != NULL && c->refresh_full == 1;
}

/* ---- where a directive may go ------------------------------------------- */

typedef enum {
    PIB_AT_OFFLOAD,        /* per directory, never <Directory>/<Files> */
    PIB_AT_BALANCER,       /* server, virtual host, <Proxy balancer://> */
    PIB_AT_SERVER,         /* server, virtual host */
    PIB_AT_GLOBAL          /* the main server */
} pib_where;

/* NULL when cmd is where `where` says, else why not.  httpd never walks
 * <Directory> or <Files> for a proxied request (mod_proxy maps it to
 * storage itself), so an offload directive there could never reach the
 * upstream request. */
static const char *check_where(cmd_parms *cmd, pib_where where)
{
    switch (where) {
    case PIB_AT_OFFLOAD:
        if (ap_check_cmd_context(cmd, NOT_IN_DIRECTORY | NOT_IN_FILES)
            == NULL) {
            return NULL;
        }
        return apr_psprintf(cmd->pool, "%s: not allowed in <Directory> or "
                            "<Files>, which httpd never applies to proxied "
                            "requests; put it in the server, a "
                            "<VirtualHost>, <Location> or <Proxy>",
                            cmd->cmd->name);
    case PIB_AT_BALANCER:
        if (cmd->path != NULL
            && (cmd->directive->parent == NULL
                || strncasecmp(cmd->path, "balancer://", 11) != 0)) {
            return apr_psprintf(cmd->pool, "%s: only in the server, a "
                                "virtual host or <Proxy \"balancer://...\">",
                                cmd->cmd->name);
        }
        return NULL;
    case PIB_AT_SERVER:
        return ap_check_cmd_context(cmd, NOT_IN_DIR_LOC_FILE);
    default:
        return ap_check_cmd_context(cmd, GLOBAL_ONLY);
    }
}

/* The configuration a setting at `where` goes into. */
static char *conf_of(cmd_parms *cmd, void *dc, pib_where where)
{
    switch (where) {
    case PIB_AT_OFFLOAD:
        return (char *)&((pib_dir_conf *)dc)->deflate;
    case PIB_AT_BALANCER:
        return (char *)&((pib_dir_conf *)dc)->lb;
    case PIB_AT_SERVER:
        return ap_get_module_config(cmd->server->module_config,
                                    &pibalance_module);
    default:
        return (char *)&pib_global;
    }
}

/* ---- the setters -------------------------------------------------------- */

typedef enum { PIB_INT, PIB_LONG, PIB_DOUBLE } pib_num_type;

/* A number directive: where, which field, its range, its words. */
typedef struct {
    pib_where where;
    size_t offset;              /* in conf_of(where)'s struct */
    pib_num_type type;
    double lo, hi;
    int whole;                  /* digits only (pi_parse_whole) */
    double scale;               /* stored x scale (tenths of C: 10) */
    const char *what;           /* "... must be <what>" */
} pib_num_spec;

static const char *pib_set_number(cmd_parms *cmd, void *dc,
                                  const char *arg)
{
    const pib_num_spec *spec = cmd->info;
    const char *err = check_where(cmd, spec->where);
    char *field;
    double v;
    long w;
    int bad;

    if (err != NULL) {
        return err;
    }
    bad = spec->whole ? pi_parse_whole(arg, (long)spec->lo, (long)spec->hi,
                                       &w) != 0
                      : pi_parse_number(arg, spec->lo, spec->hi, &v) != 0;
    if (bad) {
        return apr_psprintf(cmd->pool, "%s: '%s' must be %s",
                            cmd->cmd->name, arg, spec->what);
    }
    if (spec->whole) {
        v = (double)w;
    }
    field = conf_of(cmd, dc, spec->where) + spec->offset;
    switch (spec->type) {
    case PIB_INT:
        *(int *)field = (int)(v * spec->scale + 0.5);
        break;
    case PIB_LONG:
        *(long *)field = (long)v;
        break;
    default:
        *(double *)field = v;
    }
    return NULL;
}

/* An On|Off directive: where, and the int field it sets. */
typedef struct {
    pib_where where;
    size_t offset;
} pib_flag_spec;

static const char *pib_set_flag(cmd_parms *cmd, void *dc, int on)
{
    const pib_flag_spec *spec = cmd->info;
    const char *err = check_where(cmd, spec->where);

    if (err == NULL) {
        *(int *)(conf_of(cmd, dc, spec->where) + spec->offset) = on;
    }
    return err;
}

static const char *pib_set_thermal(cmd_parms *cmd, void *dc,
                                   const char *soft, const char *hard)
{
    pib_lbconf *c = &((pib_dir_conf *)dc)->lb;
    const char *err = check_where(cmd, PIB_AT_BALANCER);
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

/* "type/subtype" with token characters on both sides; stored lower-case. */
static const char *pib_set_types(cmd_parms *cmd, void *dcv, const char *arg)
{
    pib_deflate_conf *dc = &((pib_dir_conf *)dcv)->deflate;
    const char *slash = strchr(arg, '/'), *p;
    const char *err = check_where(cmd, PIB_AT_OFFLOAD);
    char *lc;

    if (err != NULL) {
        return err;
    }
    for (p = arg; *p && (apr_isalnum(*p) || strchr("!#$&^_.+-/", *p)); p++) {
    }
    if (slash == NULL || slash == arg || slash[1] == '\0' || *p != '\0'
        || strchr(slash + 1, '/') != NULL) {
        return apr_psprintf(cmd->pool, "%s: '%s' must be a media type "
                            "such as text/html (no parameters)",
                            cmd->cmd->name, arg);
    }
    if (dc->types == NULL) {
        dc->types = apr_array_make(cmd->pool, 8, sizeof(const char *));
    }
    lc = apr_pstrdup(cmd->pool, arg);
    ap_str_tolower(lc);
    APR_ARRAY_PUSH(dc->types, const char *) = lc;
    return NULL;
}

/* PiBalanceDeflateCodecs CODING[=LEVEL]...: the pure parser says what is
 * wrong with which argument. */
static const char *pib_set_codecs(cmd_parms *cmd, void *dcv, int argc,
                                  char *const argv[])
{
    pib_deflate_conf *dc = &((pib_dir_conf *)dcv)->deflate;
    pib_codings *c = apr_palloc(cmd->pool, sizeof(*c));
    const char *err = check_where(cmd, PIB_AT_OFFLOAD);
    int bad = 0;
    const char *why;

    if (err != NULL) {
        return err;
    }
    why = pib_codings_parse(c, argc, (const char *const *)argv, &bad);
    if (why != NULL) {
        return apr_psprintf(cmd->pool, "%s: '%s': %s (accepted: %s, each "
                            "once, in the server's order of preference)",
                            cmd->cmd->name, argc > 0 ? argv[bad] : "", why,
                            pib_codings_accepted());
    }
    dc->codings = c;
    return NULL;
}

static const char *pib_set_adaptive(cmd_parms *cmd, void *dc, int argc,
                                    char *const argv[])
{
    const char *err = check_where(cmd, PIB_AT_GLOBAL);
    pib_adapt_conf c;
    int i;

    (void)dc;
    if (err != NULL) {
        return err;
    }
    pib_adapt_conf_default(&c);
    if (argc < 1 || (strcasecmp(argv[0], "on") != 0
                     && strcasecmp(argv[0], "off") != 0)) {
        return "PiBalanceDeflateAdaptive: the first argument must be On "
               "or Off";
    }
    c.on = strcasecmp(argv[0], "on") == 0;
    for (i = 1; i < argc; i++) {
        const char *why = pib_adapt_parse_arg(&c, argv[i]);

        if (why != NULL) {
            return apr_psprintf(cmd->pool, "PiBalanceDeflateAdaptive: '%s': "
                                "%s", argv[i], why);
        }
    }
    c.stat_path = apr_pstrdup(cmd->pool, c.stat_path);
    c.thermal = apr_pstrdup(cmd->pool, c.thermal);
    pib_adapt_global = c;
    pib_adapt_global_set = 1;
    return NULL;
}

static const char *pib_set_refresh(cmd_parms *cmd, void *dc,
                                   const char *arg)
{
    const char *err = check_where(cmd, PIB_AT_SERVER);
    pib_srv_conf *c = (pib_srv_conf *)conf_of(cmd, dc, PIB_AT_SERVER);

    if (err != NULL) {
        return err;
    }
    if (strcasecmp(arg, "conditional") != 0 && strcasecmp(arg, "full") != 0) {
        return apr_psprintf(cmd->pool, "%s: '%s' must be conditional or "
                            "full", cmd->cmd->name, arg);
    }
    c->refresh_full = strcasecmp(arg, "full") == 0;
    return NULL;
}

static const char *pib_set_dict_root(cmd_parms *cmd, void *dc,
                                     const char *arg)
{
    const char *err = check_where(cmd, PIB_AT_GLOBAL);
    apr_finfo_t fi;

    (void)dc;
    if (err != NULL) {
        return err;
    }
    if (apr_stat(&fi, arg, APR_FINFO_TYPE, cmd->pool) != APR_SUCCESS
        || fi.filetype != APR_DIR) {
        return apr_psprintf(cmd->pool, "%s: '%s' must be an existing "
                            "directory (writable by the server's User)",
                            cmd->cmd->name, arg);
    }
    if (strlen(arg) > 3000) {
        return apr_psprintf(cmd->pool, "%s: the path is too long",
                            cmd->cmd->name);
    }
    pib_dict_root = apr_pstrdup(cmd->pool, arg);
    return NULL;
}

static const char *pib_set_dict_prefix(cmd_parms *cmd, void *dcv,
                                       const char *arg)
{
    pib_deflate_conf *c = &((pib_dir_conf *)dcv)->deflate;
    const char *err = check_where(cmd, PIB_AT_OFFLOAD);
    char pat[PIB_DSTORE_PREFIX_MAX + 1];

    if (err != NULL) {
        return err;
    }
    if (arg[0] != '/' || strlen(arg) > 200
        || pib_dd_pattern(arg, 1, pat, sizeof(pat)) == 0) {
        return apr_psprintf(cmd->pool, "%s: '%s' must be a URL path from "
                            "'/', printable ASCII, at most 200 bytes",
                            cmd->cmd->name, arg);
    }
    c->dict_prefix = apr_pstrdup(cmd->pool, arg);
    return NULL;
}

/* ---- the command table -------------------------------------------------- */

#define OFFLOAD(field) PIB_AT_OFFLOAD, APR_OFFSETOF(pib_deflate_conf, field)
#define BALANCER(field) PIB_AT_BALANCER, APR_OFFSETOF(pib_lbconf, field)
#define SERVER(field) PIB_AT_SERVER, APR_OFFSETOF(pib_srv_conf, field)
#define GLOBAL(field) PIB_AT_GLOBAL, APR_OFFSETOF(pib_globals, field)

static const pib_flag_spec deflate_on = { OFFLOAD(enabled) };
static const pib_flag_spec cache_key = { SERVER(cache_key) };
static const pib_flag_spec energy_on = { BALANCER(energy) };

static const pib_num_spec level_spec = {
    OFFLOAD(level), PIB_INT, 1, 9, 1, 1, "a whole number in [1, 9]" };
static const pib_num_spec wbits_spec = {
    OFFLOAD(window_bits), PIB_INT, 9, 15, 1, 1, "a whole number in [9, 15]" };
static const pib_num_spec memlevel_spec = {
    OFFLOAD(mem_level), PIB_INT, 1, 9, 1, 1, "a whole number in [1, 9]" };
static const pib_num_spec buffer_spec = {
    OFFLOAD(buffer), PIB_LONG, 0, PIB_DEFLATE_BUFFER_MAX, 1, 1,
    "a whole number in [0, 67108864]" };
static const pib_num_spec minlen_spec = {
    OFFLOAD(min_length), PIB_LONG, 0, PIB_DEFLATE_MINLEN_MAX, 1, 1,
    "a whole number in [0, 1073741824]" };
static const pib_flag_spec dict_cross_site = { GLOBAL(dict_cross_site) };
static const pib_num_spec dict_max_spec = {
    GLOBAL(dict_max_total), PIB_LONG, 65536, 1073741824L, 1, 1,
    "a whole number of bytes in [65536, 1073741824]" };
static const pib_num_spec dict_life_spec = {
    GLOBAL(dict_lifetime), PIB_LONG, 60, 31536000L, 1, 1,
    "a whole number of seconds in [60, 31536000]" };
static const pib_num_spec compressors_spec = {
    GLOBAL(compressors), PIB_LONG, 1, PIB_LD_MAX, 1, 1,
    "a whole number in [1, 64]" };
static const pib_num_spec store_level_spec = {
    SERVER(store_level), PIB_INT, 1, 12, 1, 1,
    "a whole number 1..12 (above 9: libdeflate only; a streamed body gets "
    "zlib's 9)" };
static const pib_num_spec decay_spec = {
    BALANCER(decay_s), PIB_DOUBLE, 0.1, 3600, 0, 1,
    "seconds from 0.1 to 3600" };
static const pib_num_spec floor_spec = {
    BALANCER(floor), PIB_DOUBLE, 0.01, 1, 0, 1, "a factor from 0.01 to 1" };
static const pib_num_spec hyst_spec = {
    BALANCER(hyst_dc), PIB_INT, 0, 50, 0, 10, "degrees C from 0 to 50" };
static const pib_num_spec throttle_spec = {
    BALANCER(throttle_factor), PIB_DOUBLE, 0.01, 1, 0, 1,
    "a factor from 0.01 to 1" };
static const pib_num_spec slowstart_spec = {
    BALANCER(slowstart_s), PIB_DOUBLE, 0, 3600, 0, 1,
    "seconds from 0 to 3600" };
static const pib_num_spec remote_age_spec = {
    BALANCER(remote_max_age_s), PIB_DOUBLE, 0, 3600, 0, 1,
    "seconds from 0 (off) to 3600" };
static const pib_num_spec energy_tol_spec = {
    BALANCER(energy_pct), PIB_DOUBLE, 0, 100, 0, 1,
    "percent from 0 to 100" };

/* Contexts httpd checks before our setters run; check_where() narrows. */
#define PIB_DIR_CTX (RSRC_CONF | ACCESS_CONF)

const command_rec pib_cmds[] = {
    /* the offload */
    AP_INIT_FLAG("PiBalanceDeflate", pib_set_flag, (void *)&deflate_on,
                 PIB_DIR_CTX, "On: nodes never compress, the master gzips "
                 "their responses (default Off)"),
    AP_INIT_TAKE1("PiBalanceDeflateLevel", pib_set_number,
                  (void *)&level_spec, PIB_DIR_CTX,
                  "gzip level 1..9 (default 1)"),
    AP_INIT_TAKE1("PiBalanceDeflateWindowBits", pib_set_number,
                  (void *)&wbits_spec, PIB_DIR_CTX,
                  "zlib window bits 9..15 (default 15)"),
    AP_INIT_TAKE1("PiBalanceDeflateMemLevel", pib_set_number,
                  (void *)&memlevel_spec, PIB_DIR_CTX,
                  "zlib memory level 1..9 (default 8)"),
    AP_INIT_TAKE1("PiBalanceDeflateBuffer", pib_set_number,
                  (void *)&buffer_spec, PIB_DIR_CTX,
                  "largest body compressed in one pass, bytes 0..67108864 "
                  "(default 1048576)"),
    AP_INIT_TAKE1("PiBalanceDeflateMinLength", pib_set_number,
                  (void *)&minlen_spec, PIB_DIR_CTX,
                  "smallest known length compressed, bytes 0..1073741824 "
                  "(default 256)"),
    AP_INIT_ITERATE("PiBalanceDeflateTypes", pib_set_types, NULL,
                    PIB_DIR_CTX, "media types to compress (replaces the "
                    "default list)"),
    AP_INIT_TAKE_ARGV("PiBalanceDeflateCodecs", pib_set_codecs, NULL,
                      PIB_DIR_CTX, "CODING[=LEVEL]...: the codings the "
                      "master produces, in its order of preference "
                      "(default gzip)"),
    AP_INIT_TAKE_ARGV("PiBalanceDeflateAdaptive", pib_set_adaptive, NULL,
                      RSRC_CONF, "On|Off [cpu=PCT] [temp=C] [stat=PATH] "
                      "[thermal=GLOB]: back off when the master is busy "
                      "or hot (default Off)"),
    AP_INIT_TAKE1("PiBalanceDeflateCompressors", pib_set_number,
                  (void *)&compressors_spec, RSRC_CONF,
                  "libdeflate compressors a child keeps for each level, 1..64 "
                  "(default: the cores, at most ThreadsPerChild)"),
    /* with mod_cache */
    AP_INIT_FLAG("PiBalanceDeflateCacheKey", pib_set_flag, (void *)&cache_key,
                 RSRC_CONF, "On: Accept-Encoding becomes the coding the "
                 "offload produces before mod_cache looks (default Off)"),
    AP_INIT_TAKE1("PiBalanceDeflateStoreLevel", pib_set_number,
                  (void *)&store_level_spec, RSRC_CONF,
                  "gzip level 1..12 of a response mod_cache stores (default: "
                  "PiBalanceDeflateLevel)"),
    AP_INIT_TAKE1("PiBalanceDeflateCacheRefresh", pib_set_refresh, NULL,
                  RSRC_CONF, "conditional (default) or full: how mod_cache "
                  "refreshes a stale copy from the node"),
    /* lbmethod pi */
    AP_INIT_TAKE1("PiBalanceDecay", pib_set_number,
                  (void *)&decay_spec, PIB_DIR_CTX,
                  "time constant of the response-time estimate, seconds "
                  "(default 10)"),
    AP_INIT_TAKE2("PiBalanceThermal", pib_set_thermal, NULL, PIB_DIR_CTX,
                  "SOFT HARD: C where the thermal factor starts falling, "
                  "and above which a member is drained (default 70 80)"),
    AP_INIT_TAKE1("PiBalanceThermalFloor", pib_set_number,
                  (void *)&floor_spec, PIB_DIR_CTX,
                  "thermal factor at the hard limit (default 0.1)"),
    AP_INIT_TAKE1("PiBalanceThermalHysteresis", pib_set_number,
                  (void *)&hyst_spec, PIB_DIR_CTX,
                  "C below the hard limit to re-admit a drained member "
                  "(default 5)"),
    AP_INIT_TAKE1("PiBalanceThrottleFactor", pib_set_number,
                  (void *)&throttle_spec, PIB_DIR_CTX,
                  "weight factor while the firmware throttles (default 0.5)"),
    AP_INIT_TAKE1("PiBalanceSlowStart", pib_set_number,
                  (void *)&slowstart_spec, PIB_DIR_CTX,
                  "seconds a returning member ramps from 10% to 100% "
                  "(default 30)"),
    AP_INIT_TAKE1("PiBalanceRemoteMaxAge", pib_set_number,
                  (void *)&remote_age_spec, PIB_DIR_CTX,
                  "seconds a node's BusyWorkers counts other masters' "
                  "requests toward its cap; 0: off (default 1.5 probe "
                  "intervals)"),
    AP_INIT_FLAG("PiBalanceEnergy", pib_set_flag, (void *)&energy_on,
                 PIB_DIR_CTX, "On: among members whose expected wait is "
                 "within PiBalanceEnergyTolerance of the best, prefer fewer "
                 "joules per request (default Off)"),
    AP_INIT_TAKE1("PiBalanceEnergyTolerance", pib_set_number,
                  (void *)&energy_tol_spec, PIB_DIR_CTX,
                  "percent a member's expected wait may exceed the best's "
                  "for PiBalanceEnergy (default 25)"),
    /* dictionaries (RFC 9842) */
    AP_INIT_TAKE1("PiBalanceDictionaryRoot", pib_set_dict_root, NULL,
                  RSRC_CONF, "directory where the master keeps its "
                  "compression dictionaries (enables dcz)"),
    AP_INIT_TAKE1("PiBalanceDictionaryMaxSize", pib_set_number,
                  (void *)&dict_max_spec, RSRC_CONF,
                  "bytes all dictionaries may take on disk (default 16 MiB)"),
    AP_INIT_TAKE1("PiBalanceDictionaryLifetime", pib_set_number,
                  (void *)&dict_life_spec, RSRC_CONF,
                  "seconds a dictionary is offered and kept (default 7 "
                  "days)"),
    AP_INIT_FLAG("PiBalanceDictionaryCrossSite", pib_set_flag,
                 (void *)&dict_cross_site, RSRC_CONF,
                 "On: dictionaries for cross-site requests too (default "
                 "Off)"),
    AP_INIT_TAKE1("PiBalanceDictionaryPrefix", pib_set_dict_prefix, NULL,
                  PIB_DIR_CTX, "URL-path prefix of dynamic pages the master "
                  "builds a dictionary for"),
    { NULL }
};
