/* pia_render.c -- the agent's telemetry text (see pia_agent.h): this
 * node's sensors read now (pis_read_local) and rendered by mod_pistats'
 * own node renderers into a caller's buffer.  A read costs a few small
 * files in /sys and /proc (and a power sensor's, with --power-sensor);
 * nothing is cached (the master probes every couple of seconds).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pia_agent.h"
#include "pis_render.h"

typedef struct {
    char *buf;
    size_t size, len;
} membuf;

static void emit_mem(void *ctx, const char *s, size_t n)
{
    membuf *m = ctx;
    size_t room = m->size - 1 - m->len;

    if (n > room) {
        n = room;
    }
    memcpy(m->buf + m->len, s, n);
    m->len += n;
    m->buf[m->len] = '\0';
}

/* A change of what the power sensor reads, said once on stderr: gone
 * (PowerW unknown), back, or another number of channels.  One process,
 * one thread: a static is the state. */
static void power_note(const pia_settings *s, const pis_telemetry *t)
{
    static long was = -1;              /* -1: no reading yet; 0: gone */
    long now = t->has_power ? (long)(t->power_channels ? t->power_channels
                                                       : 1) : 0;

    if (s->sensors.power_glob == NULL || now == was) {
        return;
    }
    if (now == 0) {
        fprintf(stderr, "pi-telemetry-agent: power sensor '%s' cannot be"
                " read: PowerW unknown\n", s->sensors.power_glob);
    }
    else if (was == 0) {
        fprintf(stderr, "pi-telemetry-agent: power sensor '%s' readable"
                " again, %ld channels\n", s->sensors.power_glob, now);
    }
    else if (was > 0) {
        fprintf(stderr, "pi-telemetry-agent: power sensor '%s': now %ld"
                " channels (was %ld)\n", s->sensors.power_glob, now, was);
    }
    was = now;
}

size_t pia_render(const pia_settings *s, int html, int refresh,
                  char *buf, size_t size)
{
    char host[PIS_NODE_MAX + 1] = "";
    const char *node = s->node;
    pis_telemetry t;
    membuf m = { buf, size, 0 };
    pis_out out = { emit_mem, &m };

    buf[0] = '\0';
    if (node == NULL) {
        if (gethostname(host, sizeof(host) - 1) != 0) {
            host[0] = '\0';
        }
        node = host;
    }
    pis_read_local(&s->sensors, node, &t);
    power_note(s, &t);
    if (html) {
        pis_render_html(&out, &t, refresh);
    } else {
        pis_render_auto(&out, &t);
    }
    return m.len;
}
