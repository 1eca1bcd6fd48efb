/* pis_dircheck.h -- what the PiStats* string directives accept (pure,
 * unit-tested in tests/unit/test_sensor.c; pis_config.c calls them and
 * names the directive in the message).  Numbers are checked by
 * pi_parse_whole (common/pi_num.h). */
#ifndef PIS_DIRCHECK_H
#define PIS_DIRCHECK_H

/* Each returns NULL when acceptable, else a static message saying what
 * is accepted. */
const char *pis_check_node_name(const char *name);    /* PiStatsNodeName */
const char *pis_check_sensor_path(const char *path);  /* PiStatsThermalZone,
                                                     PiStatsThrottledFile */
const char *pis_check_probe_path(const char *path);   /* PiStatsProbePath */
const char *pis_check_power_sensor(const char *path); /* PiStatsPowerSensor:
                                                     the form of its file
                                                     names (pis_power.h) */

#endif /* PIS_DIRCHECK_H */
