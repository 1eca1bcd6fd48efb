/* pi-telemetry-agent -- a node's telemetry for a node without Apache
 * (nginx, lighttpd, a PHP-FPM box): the text of docs/telemetry.md, from
 * the same sensors and the same code as mod_pistats, served over HTTP
 * (pia_serve.c) or written to a file a web server serves (pia_write.c).
 *
 * This file is the wiring only, the steps in their order: options;
 * sockets bound (as root, a low port is allowed); root given up
 * (pia_privs.c); signals; then serve or write.  Plain POSIX + libc; no
 * httpd, no APR.  Logs go to stderr (the journal under systemd).
 */
#include "pia_agent.h"

int main(int argc, char **argv)
{
    pia_settings s;
    int lfd[PIA_LISTEN_MAX];
    int rc, nl = 0;

    rc = pia_parse_args(argc, argv, &s);
    if (rc != 0) {
        return rc < 0 ? 0 : rc;
    }
    if (s.write_file == NULL
        && (nl = pia_listen_open(&s, lfd, PIA_LISTEN_MAX)) < 0) {
        return 1;
    }
    if (pia_drop_privileges(&s) != 0) {
        return 1;
    }
    pia_set_signals();
    return s.write_file ? pia_write_loop(&s) : pia_serve(&s, lfd,
                                                          (size_t)nl);
}
