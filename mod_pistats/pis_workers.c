/* pis_workers.c -- BusyWorkers and IdleWorkers from the scoreboard (see
 * pis_workers.h). */
#include "httpd.h"
#include "ap_mpm.h"
#include "scoreboard.h"

#include "pis_workers.h"

/* What a worker slot counts as: 1 busy, 0 idle, -1 neither. */
static int classify(int status, int generation_ok)
{
    switch (status) {
    case SERVER_READY:
        return generation_ok ? 0 : -1;
    case SERVER_DEAD:
    case SERVER_STARTING:
    case SERVER_IDLE_KILL:
    case SERVER_BUSY_KEEPALIVE:      /* holds a connection, no request */
        return -1;
    default:
        return 1;
    }
}

void pis_count_workers(pis_telemetry *t)
{
    int server_limit = 0, thread_limit = 0, i, j;
    ap_generation_t gen = 0;
    unsigned long busy = 0, idle = 0;

    t->has_busy = t->has_idle = 0;
    t->busy = t->idle = 0;
    if (ap_scoreboard_image == NULL
        || ap_mpm_query(AP_MPMQ_HARD_LIMIT_DAEMONS, &server_limit)
           != APR_SUCCESS
        || ap_mpm_query(AP_MPMQ_HARD_LIMIT_THREADS, &thread_limit)
           != APR_SUCCESS
        || ap_mpm_query(AP_MPMQ_GENERATION, &gen) != APR_SUCCESS) {
        return;
    }
    for (i = 0; i < server_limit; i++) {
        process_score *ps = ap_get_scoreboard_process(i);

        if (ps == NULL || ps->quiescing || ps->pid == 0) {
            continue;
        }
        for (j = 0; j < thread_limit; j++) {
            worker_score *ws = ap_get_scoreboard_worker_from_indexes(i, j);
            int c = ws == NULL ? -1
                    : classify(ws->status, ps->generation == gen);

            busy += c == 1;
            idle += c == 0;
        }
    }
    t->has_busy = t->has_idle = 1;
    t->busy = busy;
    t->idle = idle;
}
