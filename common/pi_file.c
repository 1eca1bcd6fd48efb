/* pi_file.c -- reading a small file in one read (see pi_file.h). */
#include <fcntl.h>
#include <unistd.h>

#include "pi_file.h"

long pi_read_file(const char *path, char *buf, size_t size, int mode)
{
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

    if (fd < 0) {
        return -1;
    }
    n = read(fd, buf, size - 1);
    if (n >= 0 && (size_t)n == size - 1 && mode == PI_READ_WHOLE) {
        char extra;

        if (read(fd, &extra, 1) != 0) {
            n = -1;                     /* too long to be a reading */
        }
    }
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return (long)n;
}
