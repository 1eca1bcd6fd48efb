/* pis_http_reply.c -- a probe's HTTP/1.x reply split into status and body
 * (see pis_http_reply.h). */
#include <ctype.h>
#include <string.h>

#include "pis_http_reply.h"

int pis_parse_http_reply(const char *buf, size_t len, int *status,
                          const char **body, size_t *body_len)
{
    const char *end = NULL;
    size_t i;

    if (len < 12 || memcmp(buf, "HTTP/1.", 7) != 0 || buf[8] != ' '
        || !isdigit((unsigned char)buf[9]) || !isdigit((unsigned char)buf[10])
        || !isdigit((unsigned char)buf[11])) {
        return -1;
    }
    for (i = 0; i + 1 < len; i++) {
        if (buf[i] == '\n' && buf[i + 1] == '\n') {
            end = buf + i + 2;
            break;
        }
        if (i + 3 < len && memcmp(buf + i, "\r\n\r\n", 4) == 0) {
            end = buf + i + 4;
            break;
        }
    }
    if (end == NULL) {
        return -1;
    }
    *status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
    *body = end;
    *body_len = len - (size_t)(end - buf);
    return 0;
}
