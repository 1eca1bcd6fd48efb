/* pib_adapt.h -- adaptive compression: back off when the master is busy
 * or hot (pure).  Unit-tested in tests/unit/test_adapt.c; sampling and
 * shared state live in pib_adapt_glue.c.
 */
#ifndef PIB_ADAPT_H
#define PIB_ADAPT_H

typedef enum {
    PIB_ADAPT_FULL = 0,     /* the configured level */
    PIB_ADAPT_LOW = 1,      /* level 1 */
    PIB_ADAPT_OFF = 2       /* no new response is compressed */
} pib_adapt_state;

#define PIB_ADAPT_CPU_DEFAULT   90      /* % busy that is "saturated" */
#define PIB_ADAPT_TEMP_DEFAULT  75      /* degrees C: "near the limit" */
#define PIB_ADAPT_CPU_HYST      15      /* recovered below cpu - 15 % */
#define PIB_ADAPT_TEMP_HYST     5       /* recovered below temp - 5 C */

typedef struct {
    int on;
    int cpu_pct;            /* 10..100 */
    int temp_c;             /* 30..120 */
    const char *stat_path;  /* default /proc/stat */
    const char *thermal;    /* glob, default /sys/class/thermal/... */
} pib_adapt_conf;

void pib_adapt_conf_default(pib_adapt_conf *c);

/* Parses one argument after On|Off: "cpu=N", "temp=C", "stat=PATH",
 * "thermal=GLOB".  Returns NULL, or a static message naming the accepted
 * range.  Paths are kept by pointer (the caller keeps the string). */
const char *pib_adapt_parse_arg(pib_adapt_conf *c, const char *arg);

/* Reads the aggregate "cpu" line of /proc/stat text.  busy is every field
 * but idle and iowait; both are jiffies modulo 2^32 (differences of two
 * samples stay right across a wrap).  Returns 0, or -1 if unparsable. */
int pib_procstat_parse(const char *text, unsigned *busy, unsigned *total);

/* Busy percentage between two samples, 0..100, or -1 when no time
 * passed. */
int pib_cpu_busy_pct(unsigned busy0, unsigned total0, unsigned busy1,
                     unsigned total1);

/* One step of the state machine, once per sample:
 *
 *   sample                                 effect
 *   busy >= cpu or temp >= limit ("hot")   one step down: FULL->LOW->OFF
 *   busy < cpu-15 and temp < limit-5       one step up:   OFF->LOW->FULL
 *   in between                             hold
 *
 * busy_pct or temp_mc below 0 mean "unknown" and never count as hot. */
pib_adapt_state pib_adapt_step(pib_adapt_state cur, int busy_pct,
                               int temp_mc, const pib_adapt_conf *c);

/* The level to use in a state; 0 means do not compress. */
int pib_adapt_level(pib_adapt_state st, int configured);

const char *pib_adapt_name(pib_adapt_state st);

#endif /* PIB_ADAPT_H */
