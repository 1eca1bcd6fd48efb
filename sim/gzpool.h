/*
 * gzpool.h - real gzip compression off the event loop.
 *
 * A few worker threads take jobs from a FIFO, compress with zlib (burning
 * real CPU, like a Pi gzipping its own page) and put finished jobs on a
 * done list, then signal an eventfd the event loop polls.  One pool per
 * process.  Jobs are owned by the pool from submit until taken back.
 */
#ifndef SIM_GZPOOL_H
#define SIM_GZPOOL_H

#include <stddef.h>

struct sim_gzjob {
    int conn;                 /* caller's cookie: connection index */
    unsigned gen;             /* caller's cookie: connection generation */
    const char *src;          /* must stay valid until taken back */
    size_t len;
    int level;                /* 1..9 */
    char *out;                /* result (malloc'd), NULL on failure */
    size_t out_len;
    struct sim_gzjob *next;
};

/*
 * Compresses src into a complete gzip member at level.  Returns 0 and a
 * malloc'd *out, or -1.  Pure; thread-safe.
 */
int sim_gzip(const char *src, size_t len, int level,
             char **out, size_t *out_len);

/* Starts nthreads workers; returns the eventfd to poll, or -1. */
int sim_gzpool_start(int nthreads);

/* Queues a job (lock: none needed by the caller). */
void sim_gzpool_submit(struct sim_gzjob *job);

/* Returns the list of finished jobs (may be NULL) and resets the eventfd. */
struct sim_gzjob *sim_gzpool_take(void);

/* Stops and joins the workers; frees queued and unclaimed jobs. */
void sim_gzpool_stop(void);

#endif
