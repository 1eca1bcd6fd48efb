/* test_render.c -- golden output of the renderers, escaping, query. */
#include "unit.h"
#include "pis_render.h"

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

void test_render(void)
{
    render_auto();
    round_trip();
    html_escapes();
    query();
}
