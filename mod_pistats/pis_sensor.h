/* pis_sensor.h -- this machine's sensors read into a pis_telemetry: the
 * hottest thermal zone (common/pi_thermal.h), the firmware's throttle
 * bits, load average, CPU count, available memory, uptime, and the
 * power a hwmon sensor reports when one is named (pis_power.h).
 *
 * Pure C (libc only, no httpd or APR), unit-tested in tests/unit with
 * fixture files.  What cannot be read is unknown, never 0.
 *
 * Not here: caching (pis_handler.c caches a snapshot per virtual host for
 * a second), the telemetry text (pis_telemetry.h) and the network probe.
 */
#ifndef PIS_SENSOR_H
#define PIS_SENSOR_H

#include "pis_telemetry.h"

#define PIS_SENSOR_READ_MAX 64     /* bytes read from one sysfs file */

/* The Pi firmware's throttle bits (mod_pistats and the agent default). */
#define PIS_THROTTLED_PATH \
    "/sys/devices/platform/soc/soc:firmware/get_throttled"

/* Where the sensors are.  thermal_glob may hold glob(3) patterns. */
typedef struct {
    const char *thermal_glob;      /* e.g. /sys/class/thermal/thermal_zone*\/temp */
    const char *throttled_path;    /* firmware get_throttled */
    const char *proc_dir;          /* normally "/proc" */
    const char *power_glob;        /* PiStatsPowerSensor (pis_power.h);
                                    * NULL: no sensor, no PowerW */
} pis_sensor_paths;

/* Fills *t from the sensors and /proc; node is copied from `node`
 * (truncated to PIS_NODE_MAX).  Never fails: what cannot be read is
 * left unknown. */
void pis_read_local(const pis_sensor_paths *paths, const char *node,
                    pis_telemetry *t);

#endif /* PIS_SENSOR_H */
