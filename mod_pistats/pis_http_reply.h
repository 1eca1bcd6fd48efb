/* pis_http_reply.h -- the probe's HTTP/1.x reply from a node, split into
 * status code and body (pure, unit-tested in tests/unit/test_sensor.c).
 * The probe (pis_probe.c) sends a plain HTTP/1.0 GET and reads until the node
 * closes; parsing the body is pis_parse_telemetry's job. */
#ifndef PIS_HTTP_REPLY_H
#define PIS_HTTP_REPLY_H

#include <stddef.h>

/* Splits a probe's HTTP/1.x answer: the status code and the body.
 * Returns 0, or -1 when buf does not start with a complete status line
 * and header block. */
int pis_parse_http_reply(const char *buf, size_t len, int *status,
                          const char **body, size_t *body_len);

#endif /* PIS_HTTP_REPLY_H */
