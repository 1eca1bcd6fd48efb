/* pia_write.c -- the agent's --write mode (see pia_agent.h): the ?auto
 * text written to a file every --interval seconds, for a web server
 * (nginx, lighttpd) to serve as a static file at the probe's path.
 *
 * Atomic: the text goes to FILE.tmp (same directory, so the same file
 * system), then rename(2) replaces FILE; a reader sees the old text or
 * the new, never a half.  The file is 0644 whatever the umask (the web
 * server reads it as another user).  No fsync: the file lives in /run
 * (tmpfs) and is rewritten every few seconds; an SD card is spared.
 * A failure is logged when it starts and when it ends, not per write.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pia_agent.h"

/* Writes text to path atomically; returns 0 or an errno. */
static int write_atomic(const char *path, const char *text, size_t len)
{
    char tmp[4096];
    int fd, err = 0;

    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)) {
        return ENAMETOOLONG;
    }
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        return errno;
    }
    errno = 0;
    if (fchmod(fd, 0644) != 0 || write(fd, text, len) != (ssize_t)len) {
        err = errno ? errno : EIO;
    }
    if (close(fd) != 0 && err == 0) {
        err = errno;
    }
    if (err == 0 && rename(tmp, path) != 0) {
        err = errno;
    }
    if (err != 0) {
        unlink(tmp);
    }
    return err;
}

/* Sleeps s seconds, or until a stop signal: a second at a time, so
 * that a signal that comes just before a sleep is seen within a second. */
static void pause_s(unsigned s)
{
    while (s-- > 0 && !pia_stop) {
        struct timespec ts = { 1, 0 };

        nanosleep(&ts, NULL);
    }
}

int pia_write_loop(const pia_settings *s)
{
    static char text[PIA_TEXT_MAX];
    int err, last = 0;

    while (!pia_stop) {
        size_t len = pia_render(s, 0, 0, text, sizeof(text));

        err = write_atomic(s->write_file, text, len);
        if (err != last) {
            if (err != 0) {
                fprintf(stderr, "pi-telemetry-agent: cannot write %s: %s\n",
                        s->write_file, strerror(err));
            } else {
                fprintf(stderr, "pi-telemetry-agent: writing %s again\n",
                        s->write_file);
            }
            last = err;
        }
        if (s->once) {
            return err == 0 ? 0 : 1;
        }
        pause_s(s->interval);
    }
    return 0;
}
