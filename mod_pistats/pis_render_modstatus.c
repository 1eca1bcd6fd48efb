/* pis_render_modstatus.c -- the summary mod_pistats adds to mod_status'
 * server-status page (pure; see pis_render_modstatus.h). */
#include <stdio.h>

#include "pis_render_modstatus.h"

/* Copies s with control characters replaced: one value, one line. */
static void put_line_value(pis_out *o, const char *s)
{
    char c[2] = { 0, 0 };

    for (; s != NULL && *s; s++) {
        c[0] = ((unsigned char)*s < 0x20 || *s == 0x7f) ? '?' : *s;
        pis_put(o, c);
    }
}

static void fmt_ms(double us, char *buf, size_t n)
{
    if (us < 0) {
        snprintf(buf, n, "unknown");
    }
    else {
        snprintf(buf, n, "%.1f", us / 1000.0);
    }
}

static void fmt_temp(const pis_member_snap *m, char *buf, size_t n)
{
    if (m->tel.has_temp && !m->tel_stale) {
        pi_format_dc(m->tel.temp_dc, buf, n);
    }
    else {
        snprintf(buf, n, "unknown");
    }
}

static void short_member(pis_out *o, unsigned i, const pis_balancer_snap *b,
                         const pis_member_snap *m)
{
    char key[48], val[64];

    snprintf(key, sizeof(key), "PiStatsMember[%u]", i);
    pis_put(o, key);
    pis_put(o, "Name: ");
    put_line_value(o, m->name);
    pis_put(o, "\n");
    pis_put(o, key);
    pis_put(o, "Balancer: ");
    put_line_value(o, b->name);
    pis_put(o, "\n");
    pis_put(o, key);
    /* Not into val[64]: a huge rate would cut off the '\n'. */
    pis_putf(o, "Rate1s: %.2f", m->rate1);
    pis_put(o, "\n");
    snprintf(val, sizeof(val), "%sRequests: %llu\n", key,
             (unsigned long long)m->requests);
    pis_put(o, val);
    snprintf(val, sizeof(val), "%sErrors: %llu\n", key,
             (unsigned long long)(m->status_class[4] + m->proxy_errors));
    pis_put(o, val);
    pis_put(o, key);
    fmt_ms(m->p99_us, val, sizeof(val));
    pis_put(o, "P99ms: ");
    pis_put(o, val);
    pis_put(o, "\n");
    pis_put(o, key);
    fmt_temp(m, val, sizeof(val));
    pis_put(o, "TemperatureC: ");
    pis_put(o, val);
    pis_put(o, "\n");
}

static void html_member(pis_out *o, const pis_balancer_snap *b,
                        const pis_member_snap *m)
{
    char p99[24], temp[24];

    fmt_ms(m->p99_us, p99, sizeof(p99));
    fmt_temp(m, temp, sizeof(temp));
    pis_put(o, "<tr><td>");
    pis_put_html(o, b->name);
    pis_put(o, "</td><td>");
    pis_put_html(o, m->name);
    /* The rate on its own: a huge one (%.2f of 1e300 is 300 digits) is
     * cut short by pis_putf, never the rest of the row. */
    pis_putf(o, "</td><td>%.2f", m->rate1);
    pis_putf(o, "</td><td>%llu</td><td>%llu</td><td>%s</td><td>%s</td></tr>\n",
             (unsigned long long)m->requests,
             (unsigned long long)(m->status_class[4] + m->proxy_errors),
             p99, temp);
}

void pis_render_modstatus(pis_out *o, const pis_snap *s, int short_form)
{
    unsigned bi, mi, n = 0;

    if (!short_form) {
        pis_put(o, "<hr /><h2>Balancer members (mod_pistats)</h2>\n"
                   "<table border=\"0\"><tr><th>Balancer</th><th>Member"
                   "</th><th>req/s</th><th>Requests</th><th>Errors</th>"
                   "<th>p99 ms</th><th>&deg;C</th></tr>\n");
    }
    for (bi = 0; bi < s->nbalancers; bi++) {
        const pis_balancer_snap *b = &s->balancers[bi];

        for (mi = 0; mi < b->nmembers; mi++, n++) {
            if (short_form) {
                short_member(o, n, b, &b->members[mi]);
            }
            else {
                html_member(o, b, &b->members[mi]);
            }
        }
    }
    if (!short_form) {
        pis_put(o, "</table>\n<p>Details: <a href=\"/pi-status\">"
                   "/pi-status</a> (where configured)</p>\n");
    }
}
