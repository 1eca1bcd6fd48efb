/* pi_thermal.c -- the hottest thermal zone (see pi_thermal.h). */
#define _FILE_OFFSET_BITS 64     /* glob() on 32-bit ARM: 64-bit inodes
                                    (without it, EOVERFLOW: no zone) */

#include <glob.h>
#include <string.h>

#include "pi_file.h"
#include "pi_num.h"
#include "pi_thermal.h"

int pi_parse_millideg(const char *text, size_t len, int *mc)
{
    long m;

    /* sysfs gives an integer; anything else is not a reading. */
    if (pi_parse_fixed(text, len, 0, &m) != 0
        || memchr(text, '.', len) != NULL) {
        return -1;
    }
    if (m > (long)PI_TEMP_MAX_DC * 100 + 49
        || m < (long)PI_TEMP_MIN_DC * 100 - 49) {
        return -1;
    }
    *mc = (int)m;
    return 0;
}

int pi_mc_to_dc(int mc)
{
    return mc >= 0 ? (mc + 50) / 100 : -((-mc + 50) / 100);
}

int pi_read_hottest(const char *pattern, int *mc)
{
    glob_t g;
    size_t i;
    int valid = 0, best = 0;

    if (pattern == NULL || glob(pattern, GLOB_NOSORT, NULL, &g) != 0) {
        return 0;
    }
    for (i = 0; i < g.gl_pathc; i++) {
        char buf[PI_ZONE_READ_MAX + 1];
        long n = pi_read_file(g.gl_pathv[i], buf, sizeof(buf),
                              PI_READ_WHOLE);
        int v;

        if (n > 0 && pi_parse_millideg(buf, (size_t)n, &v) == 0) {
            if (valid == 0 || v > best) {
                best = v;
            }
            valid++;
        }
    }
    globfree(&g);
    if (valid > 0) {
        *mc = best;
    }
    return valid;
}

void pi_format_dc(int dc, char *buf, size_t size)
{
    pi_format_fixed(dc, 1, buf, size);
}
