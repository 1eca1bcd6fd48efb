/* pis_sensor.h -- node telemetry: read this machine's sensors, parse the
 * telemetry text a node serves.
 *
 * Pure C (libc only, no httpd or APR), unit-tested in tests/unit.  Every
 * reading has a "known" flag: a sensor that is missing, unreadable, empty,
 * garbage or out of range is unknown, never 0.
 *
 * Not here: caching (pis_handler.c caches a snapshot per virtual host for
 * a second) and the network probe.
 */
#ifndef PIS_SENSOR_H
#define PIS_SENSOR_H

#include <stddef.h>

#define PIS_NODE_MAX     64        /* bytes of a node name */
#define PIS_TEMP_MIN_DC  (-400)    /* -40.0 C: below is a broken sensor */
#define PIS_TEMP_MAX_DC  1500      /* 150.0 C: above is a broken sensor */
#define PIS_SENSOR_READ_MAX 64     /* bytes read from one sysfs file */

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
} pis_telemetry;

/* Where the sensors are.  thermal_glob may hold glob(3) patterns. */
typedef struct {
    const char *thermal_glob;      /* e.g. /sys/class/thermal/thermal_zone*\/temp */
    const char *throttled_path;    /* firmware get_throttled */
    const char *proc_dir;          /* normally "/proc" */
} pis_sensor_paths;

/* Millidegrees text ("48312\n") to tenths of a degree, rounded half away
 * from zero (48312 -> 483, -1250 -> -13).  Returns 0, or -1 for garbage,
 * empty text or a value outside PIS_TEMP_MIN_DC..PIS_TEMP_MAX_DC. */
int pis_parse_millideg(const char *text, size_t len, int *dc);

/* Throttle bits as hex text, with or without "0x" ("50005", "0x50005\n").
 * Returns 0, or -1 for garbage, empty text or more than 32 bits. */
int pis_parse_throttled(const char *text, size_t len, unsigned long *bits);

/* Decimal text with up to `scale_digits` fraction digits to an integer
 * scaled by 10^scale_digits ("0.52" with 2 -> 52; "-12.3" with 1 ->
 * -123).  More fraction digits are truncated.  Returns 0 or -1. */
int pis_parse_fixed(const char *text, size_t len, int scale_digits,
                    long *out);

/* Unsigned decimal text to *out.  Returns 0 or -1 (garbage, overflow). */
int pis_parse_ulong(const char *text, size_t len, unsigned long *out);

/* Reads every file matching paths->thermal_glob and keeps the hottest
 * valid one.  Returns the number of valid zones (0: temperature unknown). */
int pis_read_hottest(const char *thermal_glob, int *dc);

/* Fills *t from the sensors and /proc; node is copied from `node`
 * (truncated to PIS_NODE_MAX).  Never fails: what cannot be read is
 * left unknown. */
void pis_read_local(const pis_sensor_paths *paths, const char *node,
                    pis_telemetry *t);

/* Parses the "Key: value" telemetry text a node serves (at most `len`
 * bytes, need not be NUL-terminated).  Unknown keys are ignored; a
 * garbage value leaves only that field unknown.  Returns the number of
 * fields recognised. */
int pis_parse_telemetry(const char *text, size_t len, pis_telemetry *t);

/* Formats a fixed-point value: (483, 1) -> "48.3", (-5, 1) -> "-0.5",
 * (52, 2) -> "0.52".  buf should hold at least 24 bytes. */
void pis_format_fixed(long v, int digits, char *buf, size_t size);

/* Throttle bits that mean "slowed down now". */
#define PIS_THROTTLED_NOW   0x4    /* currently throttled */
#define PIS_CAPPED_NOW      0xa    /* frequency capped or soft limit */
#define PIS_WARN_DC         700    /* 70.0 C */
#define PIS_CRIT_DC         800    /* 80.0 C: the firmware throttles */

/* How bad a member's thermal state looks: 3 crit (80 C and up, or
 * throttled now), 2 warn (70 C and up, or capped / soft limit now),
 * 1 ok, 0 unknown (no reading, or stale).  Matches pis_severity. */
int pis_severity_of(const pis_telemetry *t, int stale);

/* Directive checks: NULL when acceptable, else a static message saying
 * what is accepted. */
const char *pis_check_node_name(const char *name);
const char *pis_check_sensor_path(const char *path);
const char *pis_check_probe_path(const char *path);

/* Splits a probe's HTTP/1.x answer: the status code and the body.
 * Returns 0, or -1 when buf does not start with a complete status line
 * and header block. */
int pis_parse_http_answer(const char *buf, size_t len, int *status,
                          const char **body, size_t *body_len);

#endif /* PIS_SENSOR_H */
