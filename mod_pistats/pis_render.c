/* pis_render.c -- /pi-status renderers (see pis_render.h). */
#include <stdio.h>
#include <string.h>

#include "pis_render.h"

void pis_put(pis_out *o, const char *s)
{
    o->emit(o->ctx, s, strlen(s));
}

void pis_put_html(pis_out *o, const char *s)
{
    const char *run = s;

    for (; *s; s++) {
        const char *rep = NULL;

        switch (*s) {
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '&': rep = "&amp;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        default: continue;
        }
        o->emit(o->ctx, run, (size_t)(s - run));
        pis_put(o, rep);
        run = s + 1;
    }
    o->emit(o->ctx, run, (size_t)(s - run));
}

/* Value strings of a snapshot, "unknown" where a reading is unknown. */
typedef struct {
    char temp[24], throttled[24], load[24], cpus[24], mem[24], uptime[24];
} values;

static void format_values(const pis_telemetry *t, values *v)
{
    strcpy(v->temp, "unknown");
    strcpy(v->throttled, "unknown");
    strcpy(v->load, "unknown");
    strcpy(v->cpus, "unknown");
    strcpy(v->mem, "unknown");
    strcpy(v->uptime, "unknown");
    if (t->has_temp) {
        pis_format_fixed(t->temp_dc, 1, v->temp, sizeof(v->temp));
    }
    if (t->has_throttled) {
        snprintf(v->throttled, sizeof(v->throttled), "0x%lx", t->throttled);
    }
    if (t->has_load) {
        pis_format_fixed(t->load1_c, 2, v->load, sizeof(v->load));
    }
    if (t->has_cpus) {
        snprintf(v->cpus, sizeof(v->cpus), "%ld", t->cpus);
    }
    if (t->has_mem) {
        snprintf(v->mem, sizeof(v->mem), "%lu", t->mem_kb);
    }
    if (t->has_uptime) {
        snprintf(v->uptime, sizeof(v->uptime), "%lu", t->uptime_s);
    }
}

static void line(pis_out *o, const char *key, const char *value)
{
    pis_put(o, key);
    pis_put(o, ": ");
    pis_put(o, value);
    pis_put(o, "\n");
}

void pis_render_auto(pis_out *o, const pis_telemetry *t)
{
    values v;

    format_values(t, &v);
    line(o, "Node", t->node[0] ? t->node : "unknown");
    line(o, "TemperatureC", v.temp);
    line(o, "Throttled", v.throttled);
    line(o, "Load1", v.load);
    line(o, "CPUs", v.cpus);
    line(o, "MemAvailableKB", v.mem);
    line(o, "UptimeS", v.uptime);
}

static void row(pis_out *o, const char *key, const char *value)
{
    pis_put(o, "<tr><th>");
    pis_put_html(o, key);
    pis_put(o, "</th><td>");
    pis_put_html(o, value);
    pis_put(o, "</td></tr>\n");
}

void pis_render_html(pis_out *o, const pis_telemetry *t, int refresh)
{
    values v;
    char buf[64];

    format_values(t, &v);
    pis_put(o, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n");
    if (refresh > 0) {
        snprintf(buf, sizeof(buf),
                 "<meta http-equiv=\"refresh\" content=\"%d\">\n", refresh);
        pis_put(o, buf);
    }
    pis_put(o, "<title>pi-status: ");
    pis_put_html(o, t->node);
    pis_put(o, "</title>\n<style>body{font-family:sans-serif}"
               "th{text-align:left;padding-right:1em}</style>\n"
               "</head><body>\n<h1>pi-status: ");
    pis_put_html(o, t->node[0] ? t->node : "unknown");
    pis_put(o, "</h1>\n<table>\n");
    row(o, "Temperature (\xc2\xb0" "C)", v.temp);
    row(o, "Throttled", v.throttled);
    row(o, "Load (1 min)", v.load);
    row(o, "CPUs", v.cpus);
    row(o, "Memory available (KB)", v.mem);
    row(o, "Uptime (s)", v.uptime);
    pis_put(o, "</table>\n</body></html>\n");
}

/* Does [s, s + n) equal the NUL-terminated key? */
static int token_is(const char *s, size_t n, const char *key)
{
    return strlen(key) == n && memcmp(s, key, n) == 0;
}

void pis_parse_query(const char *args, pis_query *q)
{
    q->format = PIS_FMT_HTML;
    q->refresh = 0;
    while (args != NULL && *args) {
        size_t n = strcspn(args, "&;");
        const char *eq = memchr(args, '=', n);
        size_t klen = eq ? (size_t)(eq - args) : n;

        if (token_is(args, klen, "auto")) {
            q->format = PIS_FMT_AUTO;
        }
        else if (token_is(args, klen, "refresh")) {
            long r = 10;

            if (eq != NULL && eq + 1 < args + n) {
                char tmp[16];
                size_t vlen = (size_t)(args + n - eq - 1);

                if (vlen < sizeof(tmp)) {
                    memcpy(tmp, eq + 1, vlen);
                    tmp[vlen] = '\0';
                    if (sscanf(tmp, "%ld", &r) != 1) {
                        r = 10;
                    }
                }
            }
            q->refresh = r < 1 ? 1 : r > 3600 ? 3600 : (int)r;
        }
        args += n;
        if (*args) {
            args++;
        }
    }
}
