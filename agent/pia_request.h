/* pia_request.h -- pi-telemetry-agent: what one HTTP request asks for,
 * and its options' values (pure C, libc only; unit-tested in
 * tests/unit/test_agent.c).
 *
 * The agent answers one request per connection (Connection: close), so
 * a request is its head only: the request line decides everything, the
 * header fields are read and ignored.  No body is read: a request with
 * one gets its answer and the connection is closed.
 *
 * Not here: sockets, timeouts, the telemetry text (mod_pistats'
 * pis_sensor.c and pis_render_node.c, linked as they are).
 */
#ifndef PIA_REQUEST_H
#define PIA_REQUEST_H

#include <stddef.h>

#include "pis_query.h"

#define PIA_HEAD_MAX 8192          /* bytes of a request head, at most */

/* What to answer. */
typedef enum {
    PIA_AUTO = 0,                  /* 200, the ?auto telemetry text */
    PIA_HTML,                      /* 200, the node's HTML page */
    PIA_BAD_REQUEST,               /* 400 */
    PIA_NOT_FOUND,                 /* 404: another path, or a format
                                      the agent does not serve */
    PIA_NOT_ALLOWED                /* 405: not GET or HEAD */
} pia_answer;

typedef struct {
    pia_answer answer;
    int head;                      /* HEAD: headers only */
    int refresh;                   /* HTML: seconds of refresh, 0 none */
} pia_request;

/* Bytes of empty lines (CRLF, or a bare LF) at the start of buf: RFC
 * 9112 section 2.2 has a server ignore them before the request line (a
 * client may send a CRLF after a request body).  Their number is not
 * limited here: they count in the head's PIA_HEAD_MAX. */
size_t pia_skip_empty_lines(const char *buf, size_t len);

/* Length of the request head in buf (empty lines before it included,
 * through its blank line, "\r\n\r\n" or "\n\n"), or 0 while it is
 * incomplete. */
size_t pia_head_length(const char *buf, size_t len);

/* Parses the request line at buf, after its leading empty lines ("GET
 * /pi-status?auto HTTP/1.0"; len bytes, need not be NUL-terminated) for
 * the status page at `path`
 * (e.g. "/pi-status").  Checks in this order: a malformed line or a
 * version other than HTTP/1.x is 400, another path 404, a method other
 * than GET or HEAD 405; then the query as mod_pistats reads it
 * (pis_parse_query): auto -> PIA_AUTO, none -> PIA_HTML, json and
 * prometheus -> 404. */
void pia_parse_request(const char *buf, size_t len, const char *path,
                       pia_request *r);

/* The status line's code and reason of an answer ("200 OK"). */
const char *pia_status_line(pia_answer a);

/* "HOST:PORT", "[V6]:PORT" or "*:PORT" (any address: host ""): host
 * copied to host[size] without brackets, port 0..65535.  Returns 0, or
 * -1 when malformed or the host does not fit. */
int pia_parse_listen(const char *s, char *host, size_t size,
                     unsigned *port);

/* Whole seconds from min to max ("5"); returns 0, or -1. */
int pia_parse_seconds(const char *s, unsigned min, unsigned max,
                      unsigned *out);

#endif /* PIA_REQUEST_H */
