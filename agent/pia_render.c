/* pia_render.c -- the agent's telemetry text (see pia_agent.h): this
 * node's sensors read now (pis_read_local) and rendered by mod_pistats'
 * own node renderers into a caller's buffer.  A read costs a few small
 * files in /sys and /proc; nothing is cached (the master probes every
 * couple of seconds).
 */
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
    if (html) {
        pis_render_html(&out, &t, refresh);
    } else {
        pis_render_auto(&out, &t);
    }
    return m.len;
}
