/* pi_thermal.h -- temperatures and the firmware's throttle bits, as both
 * modules read them (pure, libc only).
 *
 * A thermal zone file holds millidegrees ("48312\n"); a reading outside
 * PI_TEMP_MIN_DC..PI_TEMP_MAX_DC, empty or garbage is no reading
 * (unknown), never 0.  mod_pistats reads a node's zones
 * (PiStatsThermalZone), mod_pibalance the master's
 * (PiBalanceDeflateAdaptive thermal=): the same reader, the same rule.
 * Unit-tested in tests/unit/test_thermal.c.
 */
#ifndef PI_THERMAL_H
#define PI_THERMAL_H

#include <stddef.h>

#include "pi_local.h"

#define PI_TEMP_MIN_DC  (-400)    /* -40.0 C: below is a broken sensor */
#define PI_TEMP_MAX_DC  1500      /* 150.0 C: above is a broken sensor */
#define PI_ZONE_READ_MAX 64       /* bytes of one zone file, at most */
#define PI_THERMAL_GLOB "/sys/class/thermal/thermal_zone*/temp"

/* Default limits, tenths of a degree: where a Pi is warm (70 C, the
 * lbmethod's soft limit, the status page's "warn") and where its
 * firmware throttles (80 C: the hard limit, "crit"). */
#define PI_TEMP_WARN_DC 700
#define PI_TEMP_CRIT_DC 800

/* The firmware's get_throttled bits that describe now (the high half,
 * 0x10000 and up, says what happened since boot). */
#define PI_THR_UNDERVOLT 0x1UL    /* under-voltage now */
#define PI_THR_CAPPED    0x2UL    /* ARM frequency capped now */
#define PI_THR_THROTTLED 0x4UL    /* throttled now */
#define PI_THR_SOFTLIMIT 0x8UL    /* soft temperature limit now */
/* Slowed down now: what the lbmethod weighs by PiBalanceThrottleFactor. */
#define PI_THR_SLOW_NOW  (PI_THR_CAPPED | PI_THR_THROTTLED | PI_THR_SOFTLIMIT)

/* Millidegrees text to millidegrees: an integer, blanks around it
 * allowed.  Returns 0, or -1 for garbage, empty text or a value that
 * rounds outside PI_TEMP_MIN_DC..PI_TEMP_MAX_DC. */
PI_LOCAL int pi_parse_millideg(const char *text, size_t len, int *mc);

/* Millidegrees to tenths, rounded half away from zero (48350 -> 484,
 * -1250 -> -13). */
PI_LOCAL int pi_mc_to_dc(int mc);

/* Reads every file matching the glob(3) pattern and keeps the hottest
 * valid reading in *mc.  Returns the number of valid zones (0: unknown,
 * *mc untouched). */
PI_LOCAL int pi_read_hottest(const char *pattern, int *mc);

/* Tenths of a degree as text: 483 -> "48.3", -5 -> "-0.5". */
PI_LOCAL void pi_format_dc(int dc, char *buf, size_t size);

#endif /* PI_THERMAL_H */
