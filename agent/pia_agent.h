/* pia_agent.h -- pi-telemetry-agent: its settings and the two ways it
 * publishes a node's telemetry (docs/telemetry.md, "Nodes without
 * Apache").  The text is mod_pistats' own: pis_read_local (pis_sensor.c)
 * and pis_render_auto / pis_render_html (pis_render_node.c), linked
 * unchanged, so an agent node and an Apache node answer the same.
 */
#ifndef PIA_AGENT_H
#define PIA_AGENT_H

#include <signal.h>
#include <stddef.h>

#include "pis_sensor.h"

#define PIA_DEFAULT_LISTEN   "127.0.0.1:9181"
#define PIA_DEFAULT_PATH     "/pi-status"
#define PIA_DEFAULT_TIMEOUT  5         /* s, a client's whole request */
#define PIA_DEFAULT_INTERVAL 2         /* s, --write: as the probe's */
#define PIA_TEXT_MAX         16384     /* bytes of one answer's body */

typedef struct {
    const char *listen;            /* "ADDR:PORT" */
    const char *path;              /* status page path */
    const char *write_file;        /* --write: this file, no socket */
    int once;                      /* --write: one write, then exit */
    unsigned interval;             /* --write: seconds between writes */
    unsigned timeout;              /* seconds a client may take */
    const char *node;              /* NULL: the host name */
    pis_sensor_paths sensors;
} pia_settings;

/* Set by SIGTERM / SIGINT: finish the current step and return. */
extern volatile sig_atomic_t pia_stop;

/* The telemetry now, rendered: html 0 the ?auto text, else the HTML page
 * (refresh seconds of meta refresh, 0 none).  Returns its length (the
 * text is cut at size - 1 bytes, NUL-terminated). */
size_t pia_render(const pia_settings *s, int html, int refresh,
                  char *buf, size_t size);

/* Serves HTTP on s->listen until pia_stop.  Returns the exit status. */
int pia_serve(const pia_settings *s);

/* Writes s->write_file every s->interval seconds (once with s->once)
 * until pia_stop.  Returns the exit status. */
int pia_write_loop(const pia_settings *s);

#endif /* PIA_AGENT_H */
