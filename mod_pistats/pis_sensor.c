/* pis_sensor.c -- this machine's sensors and /proc, read into a
 * pis_telemetry (see pis_sensor.h).  The thermal zones and the file
 * reads are the shared ones of common/ (pi_thermal.h, pi_file.h).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pi_file.h"
#include "pi_num.h"
#include "pi_thermal.h"
#include "pis_power.h"
#include "pis_sensor.h"

/* Finds "Key:" at a line start in text and parses its value. */
static int meminfo_kb(const char *text, const char *key, unsigned long *kb)
{
    const char *p = text;
    size_t klen = strlen(key);

    while (p != NULL && *p) {
        if (strncmp(p, key, klen) == 0 && p[klen] == ':') {
            const char *v = p + klen + 1;
            size_t n = strcspn(v, "\n");

            if (n > 3 && strncmp(v + n - 3, " kB", 3) == 0) {
                n -= 3;
            }
            return pi_parse_ulong(v, n, kb);
        }
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return -1;
}

/* Reads <proc_dir>/<name> into buf: the whole file (at most
 * PIS_SENSOR_READ_MAX bytes), or with `head` its first size - 1 bytes. */
static long read_proc_file(const char *proc_dir, const char *name,
                           char *buf, size_t size, int head)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/%s", proc_dir, name);
    return head ? pi_read_file(path, buf, size, PI_READ_HEAD)
                : pi_read_file(path, buf, PIS_SENSOR_READ_MAX + 1,
                               PI_READ_WHOLE);
}

static void read_proc(const char *proc_dir, pis_telemetry *t)
{
    char buf[2048];
    long n;

    n = read_proc_file(proc_dir, "loadavg", buf, sizeof(buf), 0);
    if (n > 0) {
        size_t w = strcspn(buf, " ");

        t->has_load = w < (size_t)n
                      && pi_parse_fixed(buf, w, 2, &t->load1_c) == 0
                      && t->load1_c >= 0;
    }
    n = read_proc_file(proc_dir, "uptime", buf, sizeof(buf), 0);
    if (n > 0) {
        /* "12345.67 2345.10": whole seconds of the first field. */
        size_t w = strcspn(buf, ". ");

        t->has_uptime = w < (size_t)n
                        && pi_parse_ulong(buf, w, &t->uptime_s) == 0;
    }
    n = read_proc_file(proc_dir, "meminfo", buf, sizeof(buf), 1);
    if (n > 0) {
        t->has_mem = meminfo_kb(buf, "MemAvailable", &t->mem_kb) == 0;
    }
}

void pis_read_local(const pis_sensor_paths *paths, const char *node,
                    pis_telemetry *t)
{
    char buf[PIS_SENSOR_READ_MAX + 1];
    long n, cpus;
    int mc;

    memset(t, 0, sizeof(*t));
    if (node != NULL) {
        snprintf(t->node, sizeof(t->node), "%s", node);
    }
    t->has_temp = pi_read_hottest(paths->thermal_glob, &mc) > 0;
    t->temp_dc = t->has_temp ? pi_mc_to_dc(mc) : 0;
    if (paths->throttled_path != NULL) {
        n = pi_read_file(paths->throttled_path, buf, sizeof(buf),
                         PI_READ_WHOLE);
        t->has_throttled = n > 0
            && pis_parse_throttled(buf, (size_t)n, &t->throttled) == 0;
    }
    cpus = sysconf(_SC_NPROCESSORS_ONLN);
    t->has_cpus = cpus > 0;
    t->cpus = cpus;
    read_proc(paths->proc_dir ? paths->proc_dir : "/proc", t);
    if (paths->power_glob != NULL) {
        t->power_sensor = 1;
        t->has_power = pis_power_read(paths->power_glob, &t->power_mw,
                                      &t->power_channels) == 0;
        t->power_mw = t->has_power ? t->power_mw : 0;
    }
}
