/* fuzz_agent.c -- what pi-telemetry-agent reads from a client: the
 * request head and its request line (agent/pia_request.c), and its
 * --listen option.
 *
 * Checks, besides the sanitizers: the head length lies inside the input
 * and ends with a blank line; the answer is one of the enum's, refresh
 * within pis_parse_query's 0..3600, and a 200 only for a GET or HEAD of
 * exactly /pi-status with HTTP/1.x after the empty lines it skips; a
 * parsed --listen has a port <= 65535 and a host without brackets that
 * fits its buffer.
 */
#include "fuzz_common.h"
#include "pia_request.h"

static void check_request(const char *buf, size_t size)
{
    pia_request r;
    size_t head = pia_head_length(buf, size);

    FZ_ASSERT(head <= size);
    FZ_ASSERT(head == 0 || buf[head - 1] == '\n');
    pia_parse_request(buf, size, "/pi-status", &r);
    FZ_ASSERT(r.answer >= PIA_AUTO && r.answer <= PIA_NOT_ALLOWED);
    FZ_ASSERT(r.refresh >= 0 && r.refresh <= 3600);
    FZ_ASSERT(r.head == 0 || r.head == 1);
    if (r.answer == PIA_AUTO || r.answer == PIA_HTML) {
        size_t skip = pia_skip_empty_lines(buf, size);
        const char *line = buf + skip;
        size_t n = size - skip;

        FZ_ASSERT(skip < size);
        FZ_ASSERT((n >= 14 && memcmp(line, "GET /pi-status", 14) == 0)
                  || (n >= 15 && memcmp(line, "HEAD /pi-status", 15) == 0));
        FZ_ASSERT(memmem(line, n, " HTTP/1.", 8) != NULL);
    }
    FZ_ASSERT(pia_status_line(r.answer) != NULL);
}

static void check_listen(const char *s)
{
    char host[32];
    unsigned port = 0;

    if (pia_parse_listen(s, host, sizeof(host), &port) == 0) {
        FZ_ASSERT(port <= 65535);
        FZ_ASSERT(strlen(host) < sizeof(host));
        FZ_ASSERT(strchr(host, '[') == NULL && strchr(host, ']') == NULL);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size ? size : 1);
    char *str = malloc(size + 1);

    memcpy(buf, data, size);
    check_request(buf, size);
    memcpy(str, data, size);
    str[size] = '\0';
    check_listen(str);
    free(buf);
    free(str);
    return 0;
}
