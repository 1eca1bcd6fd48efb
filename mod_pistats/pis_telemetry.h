/* pis_telemetry.h -- a node's telemetry: the record, the "Key: value"
 * text a node serves parsed into it, and how bad its thermal state looks.
 *
 * Pure C (libc only, no httpd or APR), unit-tested in tests/unit.  Every
 * reading has a "known" flag: a field that is missing, empty, garbage or
 * out of range is unknown, never 0.  The format is docs/telemetry.md.
 *
 * Not here: reading this machine's sensors (pis_sensor.h), the probe's
 * HTTP answer (pis_http_reply.h), writing the text (pis_render_auto.c).
 */
#ifndef PIS_TELEMETRY_H
#define PIS_TELEMETRY_H

#include <stddef.h>

#include "pi_thermal.h"

#define PIS_NODE_MAX     64        /* bytes of a node name */

typedef struct {
    char node[PIS_NODE_MAX + 1];   /* "" when unknown */
    int has_temp;                  /* TemperatureC, tenths of a degree */
    int temp_dc;
    int has_throttled;             /* Throttled, firmware bits */
    unsigned long throttled;
    int has_load;                  /* Load1, hundredths */
    long load1_c;
    int has_cpus;                  /* CPUs */
    long cpus;
    int has_mem;                   /* MemAvailableKB */
    unsigned long mem_kb;
    int has_uptime;                /* UptimeS */
    unsigned long uptime_s;
    int has_busy;                  /* BusyWorkers (optional key) */
    unsigned long busy;
    int has_idle;                  /* IdleWorkers (optional key) */
    unsigned long idle;
    int power_sensor;              /* PowerW is written / was there (a
                                    * node with PiStatsPowerSensor) */
    int has_power;                 /* PowerW, milliwatts */
    long power_mw;
    unsigned power_channels;       /* files read for it (this node) */
} pis_telemetry;

#define PIS_WORKERS_MAX 1000000UL  /* above: garbage, not a count */
#define PIS_TEL_POWER_MAX_MW 10000000L /* PowerW above 10 kW: garbage */

/* Throttle bits as hex text, with or without "0x" ("50005", "0x50005\n").
 * Returns 0, or -1 for garbage, empty text or more than 32 bits. */
int pis_parse_throttled(const char *text, size_t len, unsigned long *bits);

/* Parses the "Key: value" telemetry text a node serves (at most `len`
 * bytes, need not be NUL-terminated).  Unknown keys are ignored; a
 * garbage value leaves only that field unknown.  Returns the number of
 * fields recognised. */
int pis_parse_telemetry(const char *text, size_t len, pis_telemetry *t);

/* How bad a member's thermal state looks: 3 crit (PI_TEMP_CRIT_DC, 80 C,
 * and up, or throttled now), 2 warn (PI_TEMP_WARN_DC, 70 C, and up, or
 * capped / soft limit now), 1 ok, 0 unknown (no reading, or stale).
 * Matches pis_severity. */
int pis_severity_of(const pis_telemetry *t, int stale);

#endif /* PIS_TELEMETRY_H */
