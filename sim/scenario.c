/*
 * scenario.c - see scenario.h.  A key table maps each key to a field and
 * an accepted range, so adding a key is one row.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scenario.h"

enum key_kind { K_INT, K_LONG, K_DBL, K_TIME, K_SERVICE, K_BODY };

struct key_def {
    const char *key;
    enum key_kind kind;
    size_t off;
    double min, max;          /* accepted range, inclusive */
};

#define OFF(f) offsetof(struct sim_node_conf, f)

static const struct key_def key_table[] = {
    { "port",              K_INT,     OFF(port),      1, 65535 },
    { "slots",             K_INT,     OFF(slots),     1, 1024 },
    { "cpus",              K_INT,     OFF(cpus),      1, 256 },
    { "speed",             K_DBL,     OFF(speed),     1e-3, 1000 },
    { "service",           K_SERVICE, OFF(dist),      0, 600000 },
    { "body",              K_BODY,    OFF(body),      0, 64 << 20 },
    { "gzip",              K_INT,     OFF(gzip_level), 0, 9 },
    { "mem_kb",            K_LONG,    OFF(mem_kb),    0, 1e9 },
    { "seed",              K_LONG,    OFF(seed),      0, 4e9 },
    { "ambient",           K_DBL,     OFF(th.ambient), -40, 100 },
    { "k",                 K_DBL,     OFF(th.k),      0, 200 },
    { "tau",               K_DBL,     OFF(th.tau),    0.01, 36000 },
    { "throttle_at",       K_DBL,     OFF(th.throttle_at), 0, 150 },
    { "hysteresis",        K_DBL,     OFF(th.hysteresis), 0, 50 },
    { "throttle_slowdown", K_DBL,     OFF(th.throttle_slowdown), 1, 100 },
    { "soft_limit",        K_DBL,     OFF(th.soft_limit), 0, 150 },
    { "soft_slowdown",     K_DBL,     OFF(th.soft_slowdown), 1, 100 },
    { "down_at",           K_TIME,    OFF(down_at),   0, 1e7 },
    { "up_at",             K_TIME,    OFF(up_at),     0, 1e7 },
    { "hang_at",           K_TIME,    OFF(hang_at),   0, 1e7 },
    { "unhang_at",         K_TIME,    OFF(unhang_at), 0, 1e7 },
    { "heat_at",           K_TIME,    OFF(th.heat_at), 0, 1e7 },
    { "heat_for",          K_TIME,    OFF(th.heat_for), 0.01, 1e7 },
    { "heat_every",        K_TIME,    OFF(th.heat_every), 0, 1e7 },
    { "heat_ambient",      K_DBL,     OFF(th.heat_ambient), 0, 100 },
    { "heat_k",            K_DBL,     OFF(th.heat_k), 0, 200 },
    { "idle_w",            K_DBL,     OFF(pw.idle_w), 0, 1000 },
    { "busy_w",            K_DBL,     OFF(pw.busy_w), 0, 1000 },
};

#define NKEYS (sizeof(key_table) / sizeof(key_table[0]))

struct parser {
    const char *fname;
    int line;
    char *err;
    size_t errlen;
};

static int fail(struct parser *ps, const char *key, const char *fmt, ...)
{
    char msg[200];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (key)
        snprintf(ps->err, ps->errlen, "%s:%d: %s: %s",
                 ps->fname, ps->line, key, msg);
    else
        snprintf(ps->err, ps->errlen, "%s:%d: %s", ps->fname, ps->line, msg);
    return -1;
}

void sim_node_conf_defaults(struct sim_node_conf *c)
{
    memset(c, 0, sizeof(*c));
    c->slots = 4;
    c->cpus = 4;
    c->speed = 1.0;
    c->dist = SIM_DIST_FIXED;
    c->svc_a = 20.0;
    c->svc_b = 20.0;
    c->body = SIM_BODY_SIZE;
    c->body_size = 4096;
    c->mem_kb = 3500000;
    c->down_at = c->up_at = c->hang_at = c->unhang_at = -1.0;
    sim_thermal_defaults(&c->th);
    sim_power_defaults(&c->pw);
}

/* Strict number: the whole string, finite, within [min, max]. */
static int parse_num(const char *s, double min, double max, double *out)
{
    char *end;
    double v;

    if (*s == '\0')
        return -1;
    errno = 0;
    v = strtod(s, &end);
    if (errno || *end != '\0' || v != v || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static int is_int(double v)
{
    return v == (double)(long long)v;
}

/* service=fixed:MS | exp:MEAN_MS | uniform:LO_MS:HI_MS */
static int set_service(struct sim_node_conf *c, const char *v,
                       const struct key_def *kd)
{
    char buf[64], *a, *b;
    double x, y;

    if (strlen(v) >= sizeof(buf))
        return -1;
    strcpy(buf, v);
    a = strchr(buf, ':');
    if (!a)
        return -1;
    *a++ = '\0';
    b = strchr(a, ':');
    if (b)
        *b++ = '\0';
    if (parse_num(a, kd->min, kd->max, &x) < 0)
        return -1;
    y = x;
    if (strcmp(buf, "uniform") == 0) {
        if (!b || parse_num(b, x, kd->max, &y) < 0)
            return -1;
        c->dist = SIM_DIST_UNIFORM;
    } else if (b) {
        return -1;
    } else if (strcmp(buf, "fixed") == 0) {
        c->dist = SIM_DIST_FIXED;
    } else if (strcmp(buf, "exp") == 0) {
        c->dist = SIM_DIST_EXP;
    } else {
        return -1;
    }
    c->svc_a = x;
    c->svc_b = y;
    return 0;
}

/* body=size:N | file:PATH */
static int set_body(struct sim_node_conf *c, const char *v,
                    const struct key_def *kd)
{
    double x;

    if (strncmp(v, "size:", 5) == 0) {
        if (parse_num(v + 5, kd->min, kd->max, &x) < 0 || !is_int(x))
            return -1;
        c->body = SIM_BODY_SIZE;
        c->body_size = (long)x;
        return 0;
    }
    if (strncmp(v, "file:", 5) == 0) {
        if (v[5] == '\0' || strlen(v + 5) >= sizeof(c->body_file))
            return -1;
        c->body = SIM_BODY_FILE;
        strcpy(c->body_file, v + 5);
        return 0;
    }
    return -1;
}

static const char *expect(const struct key_def *kd)
{
    switch (kd->kind) {
    case K_SERVICE:
        return "must be fixed:MS, exp:MEAN_MS or uniform:LO_MS:HI_MS";
    case K_BODY:
        return "must be size:BYTES or file:PATH";
    case K_INT:
    case K_LONG:
        return "must be an integer in";
    default:
        return "must be a number in";
    }
}

static int set_key(struct parser *ps, struct sim_node_conf *c,
                   const char *key, const char *val)
{
    const struct key_def *kd = NULL;
    char *field = (char *)c;
    double x;
    size_t i;
    int rc = 0;

    for (i = 0; i < NKEYS && !kd; i++)
        if (strcmp(key_table[i].key, key) == 0)
            kd = &key_table[i];
    if (!kd)
        return fail(ps, key, "unknown key");
    if (kd->kind == K_SERVICE)
        rc = set_service(c, val, kd);
    else if (kd->kind == K_BODY)
        rc = set_body(c, val, kd);
    else if (parse_num(val, kd->min, kd->max, &x) < 0
             || (kd->kind != K_DBL && kd->kind != K_TIME && !is_int(x)))
        rc = -1;
    else if (kd->kind == K_INT)
        *(int *)(field + kd->off) = (int)x;
    else if (kd->kind == K_LONG && strcmp(key, "seed") == 0)
        *(unsigned *)(field + kd->off) = (unsigned)x;
    else if (kd->kind == K_LONG)
        *(long *)(field + kd->off) = (long)x;
    else
        *(double *)(field + kd->off) = x;
    if (rc < 0 && (kd->kind == K_SERVICE || kd->kind == K_BODY))
        return fail(ps, key, "'%s' %s", val, expect(kd));
    if (rc < 0)
        return fail(ps, key, "'%s' %s [%g, %g]", val, expect(kd),
                    kd->min, kd->max);
    return 0;
}

/*
 * The heat event: heat_at needs heat_for and heat_ambient or heat_k; each
 * of those and heat_every needs heat_at.
 */
static int check_heat(struct parser *ps, const struct sim_thermal_params *p)
{
    if (p->heat_at < 0.0) {
        if (p->heat_for > 0.0)
            return fail(ps, "heat_for", "needs heat_at");
        if (p->heat_every > 0.0)
            return fail(ps, "heat_every", "needs heat_at");
        if (p->heat_ambient > 0.0)
            return fail(ps, "heat_ambient", "needs heat_at");
        if (p->heat_k > 0.0)
            return fail(ps, "heat_k", "needs heat_at");
        return 0;
    }
    if (p->heat_for <= 0.0)
        return fail(ps, "heat_at", "needs heat_for");
    if (p->heat_ambient <= 0.0 && p->heat_k <= 0.0)
        return fail(ps, "heat_at", "needs heat_ambient or heat_k");
    if (p->heat_every > 0.0 && p->heat_every <= p->heat_for)
        return fail(ps, "heat_every", "%g must be longer than heat_for %g",
                    p->heat_every, p->heat_for);
    return 0;
}

/* Cross-key checks on a finished node line. */
static int check_node(struct parser *ps, const struct sim_node_conf *c)
{
    const struct sim_thermal_params *p = &c->th;

    if (p->soft_limit > 0.0 && p->soft_limit >= p->throttle_at)
        return fail(ps, "soft_limit", "%g must be below throttle_at %g",
                    p->soft_limit, p->throttle_at);
    if (c->up_at >= 0.0 && c->up_at <= c->down_at)
        return fail(ps, "up_at", "%g must be after down_at %g",
                    c->up_at, c->down_at);
    if (c->up_at >= 0.0 && c->down_at < 0.0)
        return fail(ps, "up_at", "needs down_at");
    if (c->unhang_at >= 0.0 && c->unhang_at <= c->hang_at)
        return fail(ps, "unhang_at", "%g must be after hang_at %g",
                    c->unhang_at, c->hang_at);
    if (c->unhang_at >= 0.0 && c->hang_at < 0.0)
        return fail(ps, "unhang_at", "needs hang_at");
    if ((c->pw.idle_w >= 0.0) != (c->pw.busy_w >= 0.0))
        return fail(ps, c->pw.idle_w >= 0.0 ? "idle_w" : "busy_w",
                    "needs %s", c->pw.idle_w >= 0.0 ? "busy_w" : "idle_w");
    if (c->pw.busy_w < c->pw.idle_w)
        return fail(ps, "busy_w", "%g must not be below idle_w %g",
                    c->pw.busy_w, c->pw.idle_w);
    return check_heat(ps, p);
}

static int check_name(struct parser *ps, const char *name,
                      const struct sim_scenario *sc)
{
    int i;

    if (strlen(name) >= SIM_NAME_MAX)
        return fail(ps, "node", "name '%s' longer than %d characters",
                    name, SIM_NAME_MAX - 1);
    for (i = 0; name[i]; i++)
        if (!isalnum((unsigned char)name[i]) && !strchr("-_.", name[i]))
            return fail(ps, "node", "name '%s' may use only A-Z a-z 0-9 - _ .",
                        name);
    for (i = 0; i < sc->n; i++)
        if (strcmp(sc->nodes[i].name, name) == 0)
            return fail(ps, "node", "duplicate name '%s'", name);
    if (sc->n >= SIM_MAX_NODES)
        return fail(ps, "node", "more than %d nodes", SIM_MAX_NODES);
    return 0;
}

static int check_ports(struct parser *ps, const struct sim_scenario *sc)
{
    int i, j;

    for (i = 0; i < sc->n; i++)
        for (j = 0; j < i; j++)
            if (sc->nodes[i].port && sc->nodes[i].port == sc->nodes[j].port)
                return fail(ps, "port", "%d used by '%s' and '%s'",
                            sc->nodes[i].port, sc->nodes[j].name,
                            sc->nodes[i].name);
    return 0;
}

#define MAX_TOKENS 64

/* Splits a line (comment already removed) into whitespace tokens. */
static int tokenize(char *s, char **tok)
{
    int n = 0;

    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\r')
            s++;
        if (*s == '\0' || n == MAX_TOKENS)
            return *s ? -1 : n;
        tok[n++] = s;
        while (*s && *s != ' ' && *s != '\t' && *s != '\r')
            s++;
        if (*s)
            *s++ = '\0';
    }
}

static int parse_pairs(struct parser *ps, struct sim_node_conf *c,
                       char **tok, int ntok)
{
    int i;

    for (i = 0; i < ntok; i++) {
        char *eq = strchr(tok[i], '=');

        if (!eq || eq == tok[i])
            return fail(ps, tok[i], "expected key=value");
        *eq = '\0';
        if (set_key(ps, c, tok[i], eq + 1) < 0)
            return -1;
    }
    return 0;
}

static int add_node(struct parser *ps, struct sim_scenario *sc,
                    const struct sim_node_conf *dflt, char **tok, int ntok)
{
    struct sim_node_conf c = *dflt, *grown;

    if (ntok < 2)
        return fail(ps, "node", "missing node name");
    if (check_name(ps, tok[1], sc) < 0)
        return -1;
    strcpy(c.name, tok[1]);
    if (parse_pairs(ps, &c, tok + 2, ntok - 2) < 0 || check_node(ps, &c) < 0)
        return -1;
    grown = realloc(sc->nodes, (size_t)(sc->n + 1) * sizeof(*grown));
    if (!grown)
        return fail(ps, NULL, "out of memory");
    sc->nodes = grown;
    sc->nodes[sc->n++] = c;
    return 0;
}

static int parse_line(struct parser *ps, char *line, struct sim_scenario *sc,
                      struct sim_node_conf *dflt)
{
    char *tok[MAX_TOKENS], *hash = strchr(line, '#');
    int ntok;

    if (hash)
        *hash = '\0';
    ntok = tokenize(line, tok);
    if (ntok < 0)
        return fail(ps, NULL, "more than %d words", MAX_TOKENS);
    if (ntok == 0)
        return 0;
    if (strcmp(tok[0], "defaults") == 0)
        return parse_pairs(ps, dflt, tok + 1, ntok - 1);
    if (strcmp(tok[0], "node") == 0)
        return add_node(ps, sc, dflt, tok, ntok);
    return fail(ps, NULL, "'%s': expected 'defaults' or 'node'", tok[0]);
}

int sim_scenario_parse(const char *text, const char *fname,
                       struct sim_scenario *sc, char *err, size_t errlen)
{
    struct parser ps = { fname, 0, err, errlen };
    struct sim_node_conf dflt;
    char *copy = strdup(text), *line, *next;
    int rc = 0;

    sc->n = 0;
    sc->nodes = NULL;
    if (!copy)
        return fail(&ps, NULL, "out of memory");
    sim_node_conf_defaults(&dflt);
    for (line = copy; line && rc == 0; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        ps.line++;
        rc = parse_line(&ps, line, sc, &dflt);
    }
    free(copy);
    if (rc == 0 && sc->n == 0)
        rc = fail(&ps, NULL, "no 'node' lines");
    if (rc == 0)
        rc = check_ports(&ps, sc);
    if (rc < 0)
        sim_scenario_free(sc);
    return rc;
}

int sim_scenario_load(const char *path, struct sim_scenario *sc,
                      char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    char *text;
    long len;
    int rc;

    sc->n = 0;
    sc->nodes = NULL;
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (fseek(f, 0, SEEK_END) < 0 || (len = ftell(f)) < 0 || len > 1 << 20
        || fseek(f, 0, SEEK_SET) < 0 || !(text = malloc((size_t)len + 1))) {
        snprintf(err, errlen, "%s: cannot read (over 1 MiB?)", path);
        fclose(f);
        return -1;
    }
    text[fread(text, 1, (size_t)len, f)] = '\0';
    fclose(f);
    rc = sim_scenario_parse(text, path, sc, err, errlen);
    free(text);
    return rc;
}

void sim_scenario_free(struct sim_scenario *sc)
{
    free(sc->nodes);
    sc->nodes = NULL;
    sc->n = 0;
}
