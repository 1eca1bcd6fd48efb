/* pis_dircheck.c -- what the PiStats* string directives accept (see
 * pis_dircheck.h). */
#include <string.h>

#include "pis_dircheck.h"
#include "pis_power.h"
#include "pis_telemetry.h"

const char *pis_check_node_name(const char *name)
{
    const unsigned char *p = (const unsigned char *)name;

    if (*p == '\0') {
        return "must not be empty";
    }
    if (strlen(name) > PIS_NODE_MAX) {
        return "must be at most 64 bytes";
    }
    for (; *p; p++) {
        if (*p <= 0x20 || *p == 0x7f) {
            return "must not contain spaces or control characters";
        }
    }
    return NULL;
}

const char *pis_check_sensor_path(const char *path)
{
    const unsigned char *p = (const unsigned char *)path;

    if (*p != '/') {
        return "must be an absolute path (a glob(7) pattern is allowed)";
    }
    if (strlen(path) > 400) {
        return "must be at most 400 bytes";
    }
    for (; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            return "must not contain control characters";
        }
    }
    return NULL;
}

const char *pis_check_probe_path(const char *path)
{
    const unsigned char *p = (const unsigned char *)path;

    if (*p != '/') {
        return "must start with '/'";
    }
    if (strlen(path) > 400) {
        return "must be at most 400 bytes";
    }
    for (; *p; p++) {
        if (*p <= 0x20 || *p >= 0x7f) {
            return "must be printable ASCII without spaces";
        }
    }
    return NULL;
}

const char *pis_check_power_sensor(const char *path)
{
    const char *why = pis_check_sensor_path(path);

    if (why != NULL) {
        return why;
    }
    if (pis_power_kind_of(path) == PIS_POWER_BAD) {
        return "must name hwmon power*_input (microwatts), curr*_input"
               " (milliamperes) or in*_input (millivolts) files, e.g."
               " /sys/class/hwmon/hwmon*/power1_input";
    }
    return NULL;
}
