/* test_render.c -- golden output of the renderers, escaping, query. */
#include "unit.h"
#include "pis_render.h"
#include "pis_render_modstatus.h"

static void render_auto(void)
{
    static unit_buf b;
    pis_out o = { unit_buf_emit, &b };
    pis_telemetry t;

    memset(&t, 0, sizeof(t));
    strcpy(t.node, "pi1");
    t.has_temp = 1;
    t.temp_dc = 483;
    t.has_throttled = 1;
    t.throttled = 0x50005;
    t.has_load = 1;
    t.load1_c = 52;
    t.has_cpus = 1;
    t.cpus = 4;
    b.len = 0;
    pis_render_auto(&o, &t);
    CHECK_STR(b.data,
              "Node: pi1\nTemperatureC: 48.3\nThrottled: 0x50005\n"
              "Load1: 0.52\nCPUs: 4\nMemAvailableKB: unknown\n"
              "UptimeS: unknown\n");
}

/* What ?auto writes, the probe's parser reads back. */
static void round_trip(void)
{
    static unit_buf b;
    pis_out o = { unit_buf_emit, &b };
    pis_telemetry t, back;

    memset(&t, 0, sizeof(t));
    strcpy(t.node, "node-7");
    t.has_temp = 1;
    t.temp_dc = -5;
    t.has_mem = 1;
    t.mem_kb = 4000000000UL;
    t.has_uptime = 1;
    t.uptime_s = 99;
    b.len = 0;
    pis_render_auto(&o, &t);
    CHECK_INT(pis_parse_telemetry(b.data, b.len, &back), 4);
    CHECK_STR(back.node, "node-7");
    CHECK(back.has_temp && back.temp_dc == -5);
    CHECK(!back.has_throttled && !back.has_load && !back.has_cpus);
    CHECK(back.has_mem && back.mem_kb == 4000000000UL);
    CHECK(back.has_uptime && back.uptime_s == 99);
    CHECK(!back.has_busy && !back.has_idle);
    CHECK(strstr(b.data, "Workers") == NULL);   /* unknown: not written */

    t.has_busy = 1;
    t.busy = 5;
    t.has_idle = 1;
    t.idle = 0;
    b.len = 0;
    pis_render_auto(&o, &t);
    CHECK(strstr(b.data, "UptimeS: 99\nBusyWorkers: 5\nIdleWorkers: 0\n")
          != NULL);
    CHECK_INT(pis_parse_telemetry(b.data, b.len, &back), 6);
    CHECK(back.has_busy && back.busy == 5);
    CHECK(back.has_idle && back.idle == 0);
}

static void html_escapes(void)
{
    static unit_buf b;
    pis_out o = { unit_buf_emit, &b };
    pis_telemetry t;

    memset(&t, 0, sizeof(t));
    strcpy(t.node, "<script>alert(\"x\")</script>&'");
    b.len = 0;
    pis_render_html(&o, &t, 5);
    CHECK(strstr(b.data, "<script>") == NULL);
    CHECK(strstr(b.data, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
                         "&amp;&#39;") != NULL);
    CHECK(strstr(b.data, "content=\"5\"") != NULL);
    CHECK(strstr(b.data, "<td>unknown</td>") != NULL);
}

static void query(void)
{
    pis_query q;

    pis_parse_query(NULL, &q);
    CHECK_INT(q.format, PIS_FMT_HTML);
    CHECK_INT(q.refresh, 0);
    pis_parse_query("auto", &q);
    CHECK_INT(q.format, PIS_FMT_AUTO);
    pis_parse_query("refresh=5&auto", &q);
    CHECK_INT(q.format, PIS_FMT_AUTO);
    CHECK_INT(q.refresh, 5);
    pis_parse_query("refresh", &q);
    CHECK_INT(q.refresh, 10);
    pis_parse_query("refresh=0;x=1", &q);
    CHECK_INT(q.refresh, 1);
    pis_parse_query("refresh=999999", &q);
    CHECK_INT(q.refresh, 3600);
    pis_parse_query("autox&xauto", &q);
    CHECK_INT(q.format, PIS_FMT_HTML);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;

    for (; (hay = strstr(hay, needle)) != NULL; hay += strlen(needle)) {
        n++;
    }
    return n;
}

/* server-status' summary: a huge rate (%.2f of 1e300 is 300 digits)
 * shortens its number, never the rest of the row or line. */
static void status_huge_rate(void)
{
    static unit_buf b;
    pis_out o = { unit_buf_emit, &b };
    pis_member_snap m[2];
    pis_balancer_snap bal;
    pis_snap s;

    memset(m, 0, sizeof(m));
    memset(&bal, 0, sizeof(bal));
    memset(&s, 0, sizeof(s));
    m[0].name = "http://a";
    m[0].rate1 = 1e300;
    m[0].requests = 7;
    m[0].p99_us = 1e300;
    m[1].name = "http://b";
    m[1].rate1 = 2.5;
    m[1].p99_us = -1;
    bal.name = "balancer://x";
    bal.nmembers = 2;
    bal.members = m;
    s.nbalancers = 1;
    s.balancers = &bal;
    b.len = 0;
    pis_render_modstatus(&o, &s, 0);
    CHECK_INT(count(b.data, "<tr><td>"), 2);
    CHECK_INT(count(b.data, "</td></tr>\n"), 2);
    CHECK(strstr(b.data, "<td>7</td><td>0</td>") != NULL);
    CHECK(strstr(b.data, "<td>2.50</td><td>0</td><td>0</td><td>unknown"
                         "</td><td>unknown</td></tr>") != NULL);
    b.len = 0;
    pis_render_modstatus(&o, &s, 1);
    CHECK(strstr(b.data, "PiStatsMember[0]Requests: 7\n") != NULL);
    CHECK(strstr(b.data, "PiStatsMember[1]Rate1s: 2.50\n") != NULL);
}

void test_render(void)
{
    status_huge_rate();
    render_auto();
    round_trip();
    html_escapes();
    query();
}
