/* pia_write.c -- the agent's --write mode (see pia_agent.h): the ?auto
 * text written to a file every --interval seconds, for a web server
 * (nginx, lighttpd) to serve as a static file at the probe's path.
 *
 * Atomic and private: the text goes to a new file of its own beside
 * FILE (mkstemp(3) on DIR/.NAME.XXXXXX: O_CREAT|O_EXCL, mode 0600, so
 * no name planted there, symlink or file, is ever opened or followed),
 * made 0644 (the web server reads it as another user) once written,
 * then rename(2) replaces FILE -- a symlink at FILE is replaced, not
 * followed.  A reader sees the old text or the new, never a half.  On a
 * failure the new file is removed.  No fsync: the file lives in /run
 * (tmpfs), is rewritten every few seconds, and what a crash leaves is
 * replaced at the agent's first write; an SD card is spared a flush
 * every two seconds.  A failure is logged when it starts and
 * when it ends, not per write.  Left out: a directory others may write
 * (/tmp) is safe from planted names but not from a file being removed;
 * keep FILE in a directory of the agent's own (RuntimeDirectory).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                      /* mkostemp */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pia_agent.h"

/* The template of the new file beside path: DIR/.NAME.XXXXXX. */
static int temp_name(const char *path, char *tmp, size_t size)
{
    const char *slash = strrchr(path, '/');
    int dlen = slash ? (int)(slash - path + 1) : 0;
    int n = snprintf(tmp, size, "%.*s.%s.XXXXXX", dlen, path, path + dlen);

    return n > 0 && (size_t)n < size ? 0 : ENAMETOOLONG;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);

        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return w < 0 ? errno : EIO;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Writes text to path atomically; returns 0 or an errno. */
static int write_atomic(const char *path, const char *text, size_t len)
{
    char tmp[4096];
    int fd, err;

    if ((err = temp_name(path, tmp, sizeof(tmp))) != 0) {
        return err;
    }
    fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        return errno;
    }
    err = write_all(fd, text, len);
    if (err == 0 && fchmod(fd, 0644) != 0) {
        err = errno;
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
