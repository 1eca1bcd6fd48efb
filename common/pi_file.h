/* pi_file.h -- reading a small file (sysfs, /proc) in one read (pure).
 *
 * A fixed buffer, one open and one read: a sensor file is a few bytes,
 * and a "temp" file that is huge or endless (a FIFO, a misconfigured
 * path) must cost no more than that.  Opened O_NONBLOCK, so a FIFO
 * without a writer does not block the caller.  Unit-tested in
 * tests/unit/test_thermal.c.
 */
#ifndef PI_FILE_H
#define PI_FILE_H

#include <stddef.h>

#include "pi_local.h"

/* What pi_read_file() does with a file longer than the buffer. */
#define PI_READ_WHOLE 1     /* refuse it (-1): a reading is short */
#define PI_READ_HEAD  0     /* keep its first size - 1 bytes (/proc/stat) */

/* Reads at most size - 1 bytes of path into buf and NUL-terminates them.
 * Returns the length, or -1 when the file cannot be opened or read, or
 * (PI_READ_WHOLE) holds more than size - 1 bytes.  size must be >= 2. */
PI_LOCAL long pi_read_file(const char *path, char *buf, size_t size,
                           int mode);

#endif /* PI_FILE_H */
