/* pis_render_node.c -- a node's own /pi-status (see pis_render.h): its
 * telemetry as ?auto "Key: value" lines (the telemetry contract, what the
 * probe reads) and as a small HTML page.  A master's formats are in
 * pis_render_{auto,json,prom,html}.c.
 */
#include <stdio.h>
#include <string.h>

#include "pis_render.h"

/* Value strings of a snapshot, "unknown" where a reading is unknown. */
typedef struct {
    char temp[24], throttled[24], load[24], cpus[24], mem[24], uptime[24];
    char busy[24], idle[24];        /* "" when unknown: not written */
    char power[24];                 /* "" without a power sensor */
} values;

/* Milliwatts as watts with two decimals, rounded: 5234 -> "5.23". */
static void format_power(long mw, char *buf, size_t size)
{
    pi_format_fixed((mw + 5) / 10, 2, buf, size);
}

static void format_values(const pis_telemetry *t, values *v)
{
    strcpy(v->temp, "unknown");
    strcpy(v->throttled, "unknown");
    strcpy(v->load, "unknown");
    strcpy(v->cpus, "unknown");
    strcpy(v->mem, "unknown");
    strcpy(v->uptime, "unknown");
    if (t->has_temp) {
        pi_format_dc(t->temp_dc, v->temp, sizeof(v->temp));
    }
    if (t->has_throttled) {
        snprintf(v->throttled, sizeof(v->throttled), "0x%lx", t->throttled);
    }
    if (t->has_load) {
        pi_format_fixed(t->load1_c, 2, v->load, sizeof(v->load));
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
    v->busy[0] = v->idle[0] = '\0';
    if (t->has_busy) {
        snprintf(v->busy, sizeof(v->busy), "%lu", t->busy);
    }
    if (t->has_idle) {
        snprintf(v->idle, sizeof(v->idle), "%lu", t->idle);
    }
    v->power[0] = '\0';
    if (t->power_sensor) {               /* "unknown" when unreadable */
        strcpy(v->power, "unknown");
        if (t->has_power) {
            format_power(t->power_mw, v->power, sizeof(v->power));
        }
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
    pis_put(o, "Node: ");
    pis_put_clean(o, t->node, "unknown");   /* no newline from a node */
    pis_put(o, "\n");
    line(o, "TemperatureC", v.temp);
    line(o, "Throttled", v.throttled);
    line(o, "Load1", v.load);
    line(o, "CPUs", v.cpus);
    line(o, "MemAvailableKB", v.mem);
    line(o, "UptimeS", v.uptime);
    if (v.busy[0] != '\0') {               /* optional keys: only known */
        line(o, "BusyWorkers", v.busy);
    }
    if (v.idle[0] != '\0') {
        line(o, "IdleWorkers", v.idle);
    }
    if (v.power[0] != '\0') {             /* a node with a power sensor */
        line(o, "PowerW", v.power);
    }
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
    if (v.busy[0] != '\0') {
        row(o, "Busy workers", v.busy);
    }
    if (v.idle[0] != '\0') {
        row(o, "Idle workers", v.idle);
    }
    if (v.power[0] != '\0') {
        row(o, "Power (W)", v.power);
    }
    pis_put(o, "</table>\n</body></html>\n");
}
