/* pis_log.h -- mod_pistats' log message tags, "PIS10010: ...".
 * Numbers are never reused: 10000-10099 core and handler, 10010-10019
 * shared memory, 10020-10039 tracking hooks, 10040-10069 the probe,
 * 12600-12699 the recent events (pis_event_shm.c), 13000-13099 the
 * power sensor and energy (pis_power_watch.c). */
#ifndef PIS_LOG_H
#define PIS_LOG_H

#define PISLOGNO(n) "PIS" #n ": "

#endif /* PIS_LOG_H */
