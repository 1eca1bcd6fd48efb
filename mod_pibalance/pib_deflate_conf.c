/* pib_deflate_conf.c -- the PiBalanceDeflate* directives.
 *
 * create sets every field to UNSET; merge and pib_deflate_conf_get() are
 * the only places defaults apply, so <Location> and <Proxy> sections
 * inherit field by field.  Each setter validates its range and names the
 * directive and the accepted range when it refuses a value.
 */
#include "httpd.h"
#include "http_config.h"
#include "apr_strings.h"
#include "apr_lib.h"

#include "pi_num.h"
#include "pib_deflate_conf.h"
#include "pib_lbconf.h"
#include "pib_decide.h"
#include "pib_codec.h"
#include "pib_cache.h"

extern module AP_MODULE_DECLARE_DATA pibalance_module;

static pib_adapt_conf pib_adapt_global;
static int pib_adapt_global_set;
static long pib_compressors = PIB_UNSET;   /* PiBalanceDeflateCompressors */

void *pib_deflate_create_dir(apr_pool_t *p, char *dir)
{
    pib_deflate_conf *c = apr_palloc(p, sizeof(*c));

    (void)dir;
    c->enabled = PIB_UNSET;
    c->level = PIB_UNSET;
    c->window_bits = PIB_UNSET;
    c->mem_level = PIB_UNSET;
    c->buffer = PIB_UNSET;
    c->min_length = PIB_UNSET;
    c->types = NULL;
    c->codings = NULL;
    c->resolved = 0;
    return c;
}

#define PIB_PICK(add, base, dflt) \
    ((add) != PIB_UNSET ? (add) : (base) != PIB_UNSET ? (base) : (dflt))

static void pib_deflate_resolve(pib_deflate_conf *c,
                                const pib_deflate_conf *base,
                                const pib_deflate_conf *add,
                                apr_pool_t *p)
{
    c->enabled = PIB_PICK(add->enabled, base->enabled, 0);
    c->level = PIB_PICK(add->level, base->level, PIB_DEFLATE_LEVEL);
    c->window_bits = PIB_PICK(add->window_bits, base->window_bits,
                              PIB_DEFLATE_WBITS);
    c->mem_level = PIB_PICK(add->mem_level, base->mem_level,
                            PIB_DEFLATE_MEMLEVEL);
    c->buffer = PIB_PICK(add->buffer, base->buffer, PIB_DEFLATE_BUFFER);
    c->min_length = PIB_PICK(add->min_length, base->min_length,
                             PIB_DEFLATE_MINLEN);
    c->types = add->types ? add->types : base->types;
    c->codings = add->codings ? add->codings : base->codings;
    if (c->codings == NULL) {
        pib_codings *dflt = apr_palloc(p, sizeof(*dflt));

        pib_codings_default(dflt);
        c->codings = dflt;
    }
    if (c->types == NULL) {
        size_t i;

        c->types = apr_array_make(p, (int)pib_default_ntypes,
                                  sizeof(const char *));
        for (i = 0; i < pib_default_ntypes; i++) {
            APR_ARRAY_PUSH(c->types, const char *) = pib_default_types[i];
        }
    }
    c->resolved = 1;
}

void *pib_deflate_merge_dir(apr_pool_t *p, void *basev, void *addv)
{
    pib_deflate_conf *c = apr_palloc(p, sizeof(*c));

    pib_deflate_resolve(c, basev, addv, p);
    return c;
}

const pib_deflate_conf *pib_deflate_conf_get(request_rec *r)
{
    pib_deflate_conf *c = ap_get_module_config(r->per_dir_config,
                                               &pibalance_module);
    pib_deflate_conf *unset, *done;

    if (c == NULL || c->resolved) {
        return c;
    }
    /* Never merged (the main server's own configuration, when post_config
     * did not see it): apply the defaults to a copy.  Deciding "merged"
     * by any one field being set left the others UNSET when that field
     * was set in the main server (PiBalanceDeflateTypes: zlib refused
     * MemLevel -1, so nobody got gzip while the nodes got no
     * Accept-Encoding). */
    unset = pib_deflate_create_dir(r->pool, NULL);
    done = apr_palloc(r->pool, sizeof(*done));
    pib_deflate_resolve(done, unset, c, r->pool);
    return done;
}

void pib_deflate_conf_fixup_main(server_rec *s)
{
    pib_deflate_conf *c = ap_get_module_config(s->lookup_defaults,
                                               &pibalance_module);
    apr_pool_t *p = s->process->pconf;
    pib_deflate_conf done;

    if (c == NULL || c->resolved) {
        return;
    }
    pib_deflate_resolve(&done, pib_deflate_create_dir(p, NULL), c, p);
    *c = done;
}

void pib_adapt_conf_reset(void)
{
    pib_adapt_global_set = 0;
    pib_compressors = PIB_UNSET;
}

int pib_compressors_get(void)
{
    return (int)pib_compressors;
}

const pib_adapt_conf *pib_adapt_conf_get(void)
{
    if (!pib_adapt_global_set) {
        pib_adapt_conf_default(&pib_adapt_global);
        pib_adapt_global_set = 1;
    }
    return &pib_adapt_global;
}

/* ---- setters ------------------------------------------------------------ */

/* httpd never walks <Directory> or <Files> for a proxied request (mod_proxy
 * maps it to storage itself), so a PiBalanceDeflate directive there could
 * never reach the upstream request: refused.  NULL when cmd is elsewhere. */
static const char *pib_where_ok(cmd_parms *cmd)
{
    if (ap_check_cmd_context(cmd, NOT_IN_DIRECTORY | NOT_IN_FILES) == NULL) {
        return NULL;
    }
    return apr_psprintf(cmd->pool, "%s: not allowed in <Directory> or "
                        "<Files>, which httpd never applies to proxied "
                        "requests; put it in the server, a <VirtualHost>, "
                        "<Location> or <Proxy>", cmd->cmd->name);
}

/* A whole decimal number in [lo, hi] (pi_parse_whole), or an error
 * naming the directive. */
static const char *pib_set_range(cmd_parms *cmd, const char *arg, long lo,
                                 long hi, long *out)
{
    if (pi_parse_whole(arg, lo, hi, out) != 0) {
        return apr_psprintf(cmd->pool, "%s: '%s' must be a whole number "
                            "in [%ld, %ld]", cmd->cmd->name, arg, lo, hi);
    }
    return NULL;
}

static const char *pib_set_enabled(cmd_parms *cmd, void *dc, int on)
{
    ((pib_deflate_conf *)dc)->enabled = on;
    return pib_where_ok(cmd);
}

/* cmd->info: offset of an int field, with the range in the table below. */
static const char *pib_set_int(cmd_parms *cmd, void *dc, const char *arg)
{
    static const struct { const char *name; long lo, hi; } r[] = {
        { "PiBalanceDeflateLevel", 1, 9 },
        { "PiBalanceDeflateWindowBits", 9, 15 },
        { "PiBalanceDeflateMemLevel", 1, 9 },
    };
    size_t i;
    long v = 0;

    for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
        if (strcmp(cmd->cmd->name, r[i].name) == 0) {
            const char *err = pib_set_range(cmd, arg, r[i].lo, r[i].hi, &v);

            if (err == NULL) {
                *(int *)((char *)dc + (size_t)cmd->info) = (int)v;
            }
            return err ? err : pib_where_ok(cmd);
        }
    }
    return "internal error: unknown directive";
}

static const char *pib_set_buffer(cmd_parms *cmd, void *dc, const char *arg)
{
    const char *err = pib_set_range(cmd, arg, 0, PIB_DEFLATE_BUFFER_MAX,
                                    &((pib_deflate_conf *)dc)->buffer);

    return err ? err : pib_where_ok(cmd);
}

static const char *pib_set_minlen(cmd_parms *cmd, void *dc, const char *arg)
{
    const char *err = pib_set_range(cmd, arg, 0, PIB_DEFLATE_MINLEN_MAX,
                                    &((pib_deflate_conf *)dc)->min_length);

    return err ? err : pib_where_ok(cmd);
}

/* "type/subtype" with token characters on both sides; stored lower-case. */
static const char *pib_set_types(cmd_parms *cmd, void *dcv, const char *arg)
{
    pib_deflate_conf *dc = dcv;
    const char *slash = strchr(arg, '/'), *p;
    char *lc;

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
    return pib_where_ok(cmd);
}

/* PiBalanceDeflateCodecs CODING[=LEVEL]...: the pure parser says what
 * is wrong with which argument. */
static const char *pib_set_codecs(cmd_parms *cmd, void *dcv, int argc,
                                  char *const argv[])
{
    pib_deflate_conf *dc = dcv;
    pib_codings *c = apr_palloc(cmd->pool, sizeof(*c));
    int bad = 0;
    const char *why = pib_codings_parse(c, argc,
                                        (const char *const *)argv, &bad);

    if (why != NULL) {
        return apr_psprintf(cmd->pool, "%s: '%s': %s (accepted: gzip, "
                            "br[=1..11], zstd[=1..19], each once, in the "
                            "server's order of preference)",
                            cmd->cmd->name, argc > 0 ? argv[bad] : "",
                            why);
    }
    dc->codings = c;
    return pib_where_ok(cmd);
}

static const char *pib_set_adaptive(cmd_parms *cmd, void *dc, int argc,
                                    char *const argv[])
{
    pib_adapt_conf c;
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
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

static const char *pib_set_compressors(cmd_parms *cmd, void *dc,
                                       const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    (void)dc;
    if (err != NULL) {
        return err;
    }
    return pib_set_range(cmd, arg, 1, PIB_LD_MAX, &pib_compressors);
}

#define PIB_DIR_CTX (RSRC_CONF | ACCESS_CONF)

const command_rec pib_deflate_cmds[] = {
    AP_INIT_FLAG("PiBalanceDeflate", pib_set_enabled, NULL, PIB_DIR_CTX,
                 "On: nodes never compress, the master gzips their "
                 "responses (default Off)"),
    AP_INIT_TAKE1("PiBalanceDeflateLevel", pib_set_int,
                  (void *)APR_OFFSETOF(pib_deflate_conf, level), PIB_DIR_CTX,
                  "gzip level 1..9 (default 1)"),
    AP_INIT_TAKE1("PiBalanceDeflateWindowBits", pib_set_int,
                  (void *)APR_OFFSETOF(pib_deflate_conf, window_bits),
                  PIB_DIR_CTX, "zlib window bits 9..15 (default 15)"),
    AP_INIT_TAKE1("PiBalanceDeflateMemLevel", pib_set_int,
                  (void *)APR_OFFSETOF(pib_deflate_conf, mem_level),
                  PIB_DIR_CTX, "zlib memory level 1..9 (default 8)"),
    AP_INIT_TAKE1("PiBalanceDeflateBuffer", pib_set_buffer, NULL,
                  PIB_DIR_CTX, "largest body compressed in one pass, "
                  "bytes 0..67108864 (default 1048576)"),
    AP_INIT_TAKE1("PiBalanceDeflateMinLength", pib_set_minlen, NULL,
                  PIB_DIR_CTX, "smallest known length compressed, bytes "
                  "0..1073741824 (default 256)"),
    AP_INIT_ITERATE("PiBalanceDeflateTypes", pib_set_types, NULL,
                    PIB_DIR_CTX, "media types to compress (replaces the "
                    "default list)"),
    AP_INIT_TAKE_ARGV("PiBalanceDeflateCodecs", pib_set_codecs, NULL,
                      PIB_DIR_CTX, "gzip|br[=1..11]|zstd[=1..19]...: the "
                      "codings the master produces, in its order of "
                      "preference (default gzip)"),
    AP_INIT_TAKE_ARGV("PiBalanceDeflateAdaptive", pib_set_adaptive, NULL,
                      RSRC_CONF, "On|Off [cpu=PCT] [temp=C] [stat=PATH] "
                      "[thermal=GLOB]: back off when the master is busy "
                      "or hot (default Off)"),
    AP_INIT_TAKE1("PiBalanceDeflateCompressors", pib_set_compressors, NULL,
                  RSRC_CONF, "libdeflate compressors a child keeps for "
                  "each level, 1..64 (default: the cores, at most "
                  "ThreadsPerChild)"),
    PIB_LB_CMDS
    PIB_CACHE_CMDS
    { NULL }
};
