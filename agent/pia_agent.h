/* pia_agent.h -- pi-telemetry-agent: its settings and the two ways it
 * publishes a node's telemetry (docs/telemetry.md, "Nodes without
 * Apache").  The text is mod_pistats' own: pis_read_local (pis_sensor.c)
 * and pis_render_auto / pis_render_html (pis_render_node.c), linked
 * unchanged, so an agent node and an Apache node answer the same.
 *
 * The files: pi-telemetry-agent.c (main: the steps in order),
 * pia_options.c (the command line), pia_listen.c (the sockets),
 * pia_privs.c (root gives way to --user), pia_signal.c (the stop flag),
 * pia_serve.c (HTTP), pia_write.c (--write), pia_render.c (the text);
 * pia_request.c and pia_admit.c are the pure parts.
 */
#ifndef PIA_AGENT_H
#define PIA_AGENT_H

#include <signal.h>
#include <stddef.h>

#include "pis_sensor.h"

#define PIA_DEFAULT_LISTEN   "127.0.0.1:9181"
#define PIA_DEFAULT_PATH     "/pi-status"
#define PIA_DEFAULT_TIMEOUT  5         /* s, a client's request and answer */
#define PIA_DEFAULT_HEAD     2         /* s, a client's request head */
#define PIA_DEFAULT_CLIENTS  64        /* connections at once, in all */
#define PIA_DEFAULT_PER_PEER 8         /* connections at once, a peer */
#define PIA_DEFAULT_USER     "nobody"  /* started as root: becomes this */
#define PIA_DEFAULT_INTERVAL 2         /* s, --write: as the probe's */
#define PIA_CLIENTS_MAX      512       /* with the listeners, under the
                                          usual 1024 open files */
#define PIA_TEXT_MAX         4096      /* bytes of one answer's body (the
                                          HTML page is about 500) */
#define PIA_LISTEN_MAX       4         /* addresses of one --listen */

typedef struct {
    const char *listen;            /* "ADDR:PORT" */
    const char *path;              /* status page path */
    const char *write_file;        /* --write: this file, no socket */
    const char *user;              /* --user, NULL: not given */
    int once;                      /* --write: one write, then exit */
    unsigned interval;             /* --write: seconds between writes */
    unsigned timeout;              /* s, a client's request and answer */
    unsigned head_timeout;         /* s, a client's request head */
    unsigned max_clients;          /* connections at once */
    unsigned max_per_peer;         /* connections at once, one address */
    const char *node;              /* NULL: the host name */
    pis_sensor_paths sensors;
} pia_settings;

/* Set by SIGTERM / SIGINT: finish the current step and return. */
extern volatile sig_atomic_t pia_stop;

/* SIGTERM and SIGINT set pia_stop; SIGPIPE is ignored. */
void pia_set_signals(void);

/* s at its defaults, then the command line.  Returns 0, -1 when it was
 * --help or --version (printed: exit 0), or the exit status (2) after a
 * message. */
int pia_parse_args(int argc, char **argv, pia_settings *s);

/* Listening sockets on every address of s->listen (one for each of IPv4
 * and IPv6 for "*:PORT"; with port 0 all on the port the first got),
 * non-blocking, each logged.  Returns how many were put in fds[max], or
 * -1 after a message. */
int pia_listen_open(const pia_settings *s, int *fds, size_t max);

/* Started as root, becomes s->user (default nobody) unless that is root;
 * not root, --user must name the user it runs as.  Returns 0, or 1
 * after a message (the agent must not run). */
int pia_drop_privileges(const pia_settings *s);

/* The telemetry now, rendered: html 0 the ?auto text, else the HTML page
 * (refresh seconds of meta refresh, 0 none).  Returns its length (the
 * text is cut at size - 1 bytes, NUL-terminated). */
size_t pia_render(const pia_settings *s, int html, int refresh,
                  char *buf, size_t size);

/* Serves HTTP on the nl listening sockets lfd until pia_stop, then
 * closes them.  Returns the exit status. */
int pia_serve(const pia_settings *s, const int *lfd, size_t nl);

/* Writes s->write_file every s->interval seconds (once with s->once)
 * until pia_stop.  Returns the exit status. */
int pia_write_loop(const pia_settings *s);

#endif /* PIA_AGENT_H */
