/*
 * server.h - the simulated nodes at run time: listeners, connections,
 * slot queues, service timers and the thermal tick, all driven by one
 * epoll loop (pisim.c owns the loop, signals and output files).
 *
 * Threads: everything here runs on the loop thread; only gzip jobs run
 * on the gzpool workers and come back through sim_server_gz_done().
 */
#ifndef SIM_SERVER_H
#define SIM_SERVER_H

#include <stdint.h>
#include <stdio.h>
#include "control.h"
#include "http.h"
#include "scenario.h"
#include "thermal.h"

#define SIM_MAX_CONNS     4096
#define SIM_TICK_MS       50        /* thermal step: 20 per second */
#define SIM_IDLE_S        60        /* keep-alive idle time-out */

/* epoll data: tag in the high 32 bits, index in the low 32 bits. */
enum sim_tag { SIM_TAG_LISTEN = 1, SIM_TAG_CONN, SIM_TAG_SIGNAL, SIM_TAG_GZ,
               SIM_TAG_CONTROL };

struct sim_node {
    struct sim_node_conf conf;
    int port;
    int lfd;                  /* listening socket, -1 while down */
    int down, hung;
    const char *body;
    size_t body_len;
    int body_owner;           /* this node frees body */
    struct sim_thermal th;
    struct sim_power pw;      /* draw, energy, reported PowerW */
    int busy, queued;         /* slots in use, requests waiting */
    double busy_ns;           /* integral of busy over the current step */
    uint64_t busy_since;      /* last change of busy, ns */
    uint64_t last_tick;       /* ns */
    int qhead, qtail;         /* FIFO of connection indexes, -1 = empty */
    unsigned rng;
    unsigned long served;
    int events_done;          /* bitmask of down/up/hang/unhang applied */
};

enum sim_conn_state {
    SIM_C_FREE, SIM_C_READ, SIM_C_QUEUED, SIM_C_SERVE, SIM_C_GZIP,
    SIM_C_WRITE
};

struct sim_conn {
    int fd;
    int node;
    unsigned gen;             /* bumped on close: stale timers/jobs ignored */
    enum sim_conn_state state;
    char *in;                 /* SIM_HTTP_HEAD_MAX bytes, while open */
    size_t in_len;
    long long discard;        /* request body bytes still to drop */
    struct sim_http_req req;
    char hdr[512];
    size_t hdr_len;
    const char *body;         /* points at node body or owned */
    size_t body_len;
    char *owned;              /* malloc'd body to free after writing */
    size_t out_off;           /* bytes of hdr+body already sent */
    int close_after;
    int qprev, qnext;
    int ready;                /* on the ready list */
    int next_free;
    uint64_t last_active;     /* ns */
    uint64_t queued_at;       /* ns: when it joined its node's queue */
};

struct sim_timer {
    uint64_t at;              /* ns, monotonic */
    int conn;
    unsigned gen;
};

struct sim_server {
    int epfd;
    struct sim_node *nodes;
    int nnodes;
    struct sim_conn *conns;   /* SIM_MAX_CONNS entries */
    int free_head, nopen;
    struct sim_timer *heap;
    int nheap, heap_cap;
    int *ready;               /* connections with buffered input to parse */
    int nready;
    uint64_t start_ns;
    FILE *log;                /* event log, may be NULL */
    int full_logged;
};

uint64_t sim_now_ns(void);

/*
 * Loads bodies and opens every node's listener.  port_base gives node i
 * port port_base + i unless the scenario fixes it; relative body files
 * are taken from base_dir.  Returns 0, or -1 with a message in err.
 */
int sim_server_init(struct sim_server *s, const struct sim_scenario *sc,
                    int port_base, const char *base_dir, FILE *log,
                    char *err, size_t errlen);

/* Handles one epoll event whose tag is LISTEN or CONN. */
void sim_server_event(struct sim_server *s, uint64_t data, uint32_t events);

/* Fires due service timers; returns ns until the next one (-1: none). */
int64_t sim_server_timers(struct sim_server *s, uint64_t now);

/* Parses input of connections that became ready during this turn. */
void sim_server_drain_ready(struct sim_server *s);

/* Thermal step, scheduled failures, idle time-outs.  Call every tick. */
void sim_server_tick(struct sim_server *s, uint64_t now);

/* Takes finished gzip jobs from the pool and answers their requests. */
void sim_server_gz_done(struct sim_server *s);

/* Closes everything and frees memory. */
void sim_server_free(struct sim_server *s);

/* Applies a control command (control.h) to every node it names; each
 * change is logged as the scheduled ones are, with " (control)"; a node
 * already in that state is left alone.  Returns 0, or -1 with a message
 * in err (no such node; the port cannot be bound again). */
int sim_server_control(struct sim_server *s, const struct sim_ctl *c,
                       char *err, size_t errlen);

/* One line in the event log (-l), after the seconds since the start;
 * nothing without a log. */
void sim_server_logf(struct sim_server *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Writes the node's /pi-status?auto text into buf; returns its length. */
size_t sim_server_telemetry(const struct sim_server *s,
                            const struct sim_node *n, char *buf,
                            size_t size);

#endif
