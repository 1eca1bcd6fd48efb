/* pis_handler.c -- "SetHandler pi-status": snapshot, then render.
 *
 * The node's own telemetry is read for every answer (a few small files,
 * ~40 us; a power sensor adds one glob and a file or two per channel).  Not cached: a master's probes land on any child process, and a
 * per-child copy could answer an older reading after a newer one.
 */
#include <unistd.h>

#include "httpd.h"
#include "http_config.h"
#include "http_protocol.h"
#include "http_request.h"
#include "apr_strings.h"

#include "pis_config.h"
#include "pis_power_watch.h"
#include "pis_handler.h"
#include "pis_render.h"
#include "pis_sensor.h"
#include "pis_snapshot.h"
#include "pis_workers.h"
#include "mod_status.h"
#include "pis_render_modstatus.h"

/* Reads the node's own telemetry now (s: where a change of its power
 * sensor is logged). */
static void read_now(server_rec *s, const pis_srv_conf *c, pis_telemetry *t)
{
    pis_sensor_paths paths;
    char host[PIS_NODE_MAX + 1] = "";
    const char *node = c->node_name;

    paths.thermal_glob = pis_conf_thermal(c);
    paths.throttled_path = pis_conf_throttled(c);
    paths.proc_dir = "/proc";
    paths.power_glob = c->power_glob;
    if (node == NULL) {
        if (gethostname(host, sizeof(host) - 1) != 0) {
            host[0] = '\0';
        }
        node = host;
    }
    pis_read_local(&paths, node, t);
    pis_power_note(s, c->power_glob, t);
}

static void emit_rwrite(void *ctx, const char *s, size_t n)
{
    if (n > 0) {
        ap_rwrite(s, (int)n, ctx);
    }
}

static const char *content_type(pis_format f)
{
    switch (f) {
    case PIS_FMT_AUTO:
        return "text/plain; charset=utf-8";
    case PIS_FMT_JSON:
        return "application/json";
    case PIS_FMT_PROMETHEUS:
        return "text/plain; version=0.0.4; charset=utf-8";
    default:
        return "text/html; charset=utf-8";
    }
}

int pis_handler(request_rec *r)
{
    const pis_srv_conf *c;
    pis_telemetry self;
    pis_snap snap;
    pis_query q;
    pis_out out;

    if (r->handler == NULL || strcmp(r->handler, "pi-status") != 0) {
        return DECLINED;
    }
    r->allowed |= (AP_METHOD_BIT << M_GET);
    ap_allow_methods(r, REPLACE_ALLOW, "GET", "HEAD", NULL);
    if (r->method_number != M_GET) {
        return HTTP_METHOD_NOT_ALLOWED;
    }
    c = ap_get_module_config(r->server->module_config, &pistats_module);
    pis_parse_query(r->args, &q);
    read_now(r->server, c, &self);
    pis_count_workers(&self);

    apr_table_setn(r->headers_out, "Cache-Control", "no-cache");
    ap_set_content_type(r, content_type(q.format));
    if (q.format == PIS_FMT_HTML && q.refresh > 0) {
        apr_table_setn(r->headers_out, "Refresh",
                       apr_itoa(r->pool, q.refresh));
    }
    if (r->header_only) {
        return OK;
    }
    pis_snapshot(r, &self, &snap);
    out.emit = emit_rwrite;
    out.ctx = r;
    switch (q.format) {
    case PIS_FMT_AUTO:
        pis_render_snap_auto(&out, &snap);
        break;
    case PIS_FMT_JSON:
        pis_render_snap_json(&out, &snap);
        break;
    case PIS_FMT_PROMETHEUS:
        pis_render_snap_prometheus(&out, &snap);
        break;
    default:
        pis_render_snap_html(&out, &snap, q.refresh);
    }
    return OK;
}

/* One line per member: in ?auto "PiStats[b]Member[m]: ..." keys, in HTML
 * a small table after mod_status' own. */
int pis_status_hook(request_rec *r, int flags)
{
    const pis_srv_conf *c = ap_get_module_config(r->server->module_config,
                                                 &pistats_module);
    pis_telemetry self;
    pis_snap snap;
    pis_out out;

    read_now(r->server, c, &self);
    pis_snapshot(r, &self, &snap);
    if (snap.nbalancers == 0) {
        return OK;
    }
    out.emit = emit_rwrite;
    out.ctx = r;
    pis_render_modstatus(&out, &snap, (flags & AP_STATUS_SHORT) != 0);
    return OK;
}
