/* pis_log.h -- mod_pistats' log message tags, "PIS10010: ...".
 * Numbers are never reused (t/config/logtags.t): 10000-10009 core and
 * handler, 10010-10019 shared memory, 10020-10039 tracking hooks,
 * 10040-10069 the probe, 11300-11399 a segment of another layout,
 * 11500-11599 the probe at child exit, 12600-12699 the recent events
 * (pis_event_shm.c), 13000-13999 power and dictionaries (issues 30-31;
 * 13000-13099 the power sensor and energy, pis_power_watch.c). */
#ifndef PIS_LOG_H
#define PIS_LOG_H

#define PISLOGNO(n) "PIS" #n ": "

#endif /* PIS_LOG_H */
