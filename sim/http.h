/*
 * http.h - HTTP/1.x request head parser (pure, no I/O).
 *
 * Parses one request head from the start of a buffer and reports what the
 * simulated node needs: method class, keep-alive, gzip acceptability,
 * request body length, and whether the target is the telemetry URL.
 * Non-goals: chunked request bodies (answered 501), absolute-form
 * targets are accepted but only their path is examined, obs-fold is 400.
 */
#ifndef SIM_HTTP_H
#define SIM_HTTP_H

#include <stddef.h>

#define SIM_HTTP_HEAD_MAX 16384   /* request line + headers, bytes */

enum sim_http_rc {
    SIM_HTTP_OK = 0,              /* a full head was parsed */
    SIM_HTTP_MORE = 1,            /* need more bytes */
    SIM_HTTP_BAD = 400,           /* malformed: answer 400 and close */
    SIM_HTTP_TOO_BIG = 431,       /* head over SIM_HTTP_HEAD_MAX */
    SIM_HTTP_UNSUPPORTED = 501,   /* Transfer-Encoding in a request */
    SIM_HTTP_VERSION = 505        /* not HTTP/1.0 or HTTP/1.1 */
};

enum sim_http_method { SIM_GET, SIM_HEAD, SIM_OTHER };

struct sim_http_req {
    enum sim_http_method method;
    int minor;                    /* 0 or 1 */
    int keep_alive;               /* after version default + Connection */
    int gzip_ok;                  /* Accept-Encoding allows gzip */
    int is_status;                /* /pi-status with a query holding "auto" */
    long long content_length;     /* request body bytes to discard */
    size_t head_len;              /* bytes of the head, incl. blank line */
};

/*
 * Parses buf[0..len).  Returns SIM_HTTP_OK and fills req, SIM_HTTP_MORE,
 * or an error status.  Never reads beyond len; buf need not be
 * NUL-terminated.
 */
enum sim_http_rc sim_http_parse(const char *buf, size_t len,
                                struct sim_http_req *req);

/*
 * Returns 1 when an Accept-Encoding value accepts gzip: a "gzip",
 * "x-gzip" or "*" token whose q-value is not zero.
 */
int sim_http_accepts_gzip(const char *v, size_t len);

/* Reason phrase for a status code ("OK", "Bad Request", ...). */
const char *sim_http_reason(int status);

#endif
