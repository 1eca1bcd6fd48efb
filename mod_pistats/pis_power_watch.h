/* pis_power_watch.h -- PiStatsPowerSensor's checks at start-up and its
 * log at run time (glue around pis_power.h).
 *
 * Start-up (check_config, also "httpd -t"): a pattern that matches files
 * of another form than its name says (a curr*_input whose in*_input is
 * not there, more than PIS_POWER_MAX_FILES files) stops start-up
 * (PIS13000).  A pattern that matches nothing yet is a warning
 * (PIS13001), not a refusal: at boot Apache often starts before an I2C
 * sensor's driver has bound, and the power is "unknown" until it has.
 *
 * Run time: every answer reads the sensor (pis_sensor.c); when what it
 * reads changes -- readable to unreadable (a sensor that vanished), back,
 * or another number of channels -- one child logs it, once for all
 * children: the state is a 32-bit word per pattern in a small anonymous
 * shared segment made in post_config, changed by compare-and-swap, and
 * the process whose swap wins logs (PIS13002-13005).  A graceful restart
 * makes a new segment: a sensor still gone is logged once again.
 */
#ifndef PIS_POWER_WATCH_H
#define PIS_POWER_WATCH_H

#include "httpd.h"

#include "pis_telemetry.h"

/* check_config: OK, or !OK after logging why (every server's sensor). */
int pis_power_check_config(apr_pool_t *ptemp, server_rec *s);

/* post_config (the real pass): the shared state words; PIS13001 for
 * each sensor that matches nothing now. */
void pis_power_setup(apr_pool_t *pconf, server_rec *s);

/* After a reading of `pattern` into t on server s: logs a change once. */
void pis_power_note(server_rec *s, const char *pattern,
                    const pis_telemetry *t);

#endif /* PIS_POWER_WATCH_H */
