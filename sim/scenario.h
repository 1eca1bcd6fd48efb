/*
 * scenario.h - scenario file parser (pure: text in, structs out).
 *
 * Format (documented in README.md):
 *     # comment
 *     defaults key=value ...     applies to every later node line
 *     node NAME key=value ...    one simulated node
 * Errors name the file, the line and the key, e.g.
 *     hot.conf:4: speed: '0' must be a number in (0, 1000]
 * Non-goals: no includes, no quoting (values contain no spaces).
 */
#ifndef SIM_SCENARIO_H
#define SIM_SCENARIO_H

#include <stddef.h>
#include "thermal.h"
#include "power.h"

#define SIM_MAX_NODES     1000
#define SIM_NAME_MAX      32
#define SIM_PATH_MAX      256

enum sim_dist { SIM_DIST_FIXED, SIM_DIST_EXP, SIM_DIST_UNIFORM };
enum sim_body { SIM_BODY_SIZE, SIM_BODY_FILE };

struct sim_node_conf {
    char name[SIM_NAME_MAX];
    int port;                 /* 0 = port base + index */
    int slots;                /* requests served at once */
    int cpus;                 /* reported in telemetry */
    double speed;             /* service time divided by this */
    enum sim_dist dist;
    double svc_a, svc_b;      /* ms: fixed a | exp mean a | uniform a..b */
    enum sim_body body;
    long body_size;           /* bytes, SIM_BODY_SIZE */
    char body_file[SIM_PATH_MAX]; /* SIM_BODY_FILE, as written */
    int gzip_level;           /* 0 = never compress, 1..9 */
    long mem_kb;              /* MemAvailableKB reported */
    unsigned seed;            /* service time PRNG seed, 0 = from index */
    double down_at, up_at;    /* seconds after start, < 0 = never */
    double hang_at, unhang_at;
    struct sim_thermal_params th;
    struct sim_power_params pw;   /* idle_w/busy_w: PowerW in telemetry */
};

struct sim_scenario {
    int n;
    struct sim_node_conf *nodes;  /* malloc'd, n entries */
};

/* Fills c with the built-in defaults (README.md lists them). */
void sim_node_conf_defaults(struct sim_node_conf *c);

/*
 * Parses scenario text.  fname is used in messages only.  On success
 * returns 0 and fills sc (free with sim_scenario_free).  On error returns
 * -1, writes a one-line message to err and leaves sc empty.
 */
int sim_scenario_parse(const char *text, const char *fname,
                       struct sim_scenario *sc, char *err, size_t errlen);

/* Reads and parses a file; same contract as sim_scenario_parse. */
int sim_scenario_load(const char *path, struct sim_scenario *sc,
                      char *err, size_t errlen);

void sim_scenario_free(struct sim_scenario *sc);

#endif
