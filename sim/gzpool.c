/*
 * gzpool.c - see gzpool.h.  One mutex guards both lists; the work per job
 * (tens of microseconds to milliseconds) dwarfs the lock cost.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <zlib.h>
#include "gzpool.h"

#define GZ_MAX_THREADS 16

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct sim_gzjob *head, *tail;  /* waiting jobs, FIFO */
    struct sim_gzjob *done;         /* finished, any order */
    pthread_t threads[GZ_MAX_THREADS];
    int nthreads;
    int stopping;
    int efd;
} pool = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
           NULL, NULL, NULL, { 0 }, 0, 0, -1 };

int sim_gzip(const char *src, size_t len, int level,
             char **out, size_t *out_len)
{
    z_stream zs = { 0 };
    uLong bound;
    int rc;

    if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    bound = deflateBound(&zs, (uLong)len) + 32;
    *out = malloc(bound);
    if (!*out) {
        deflateEnd(&zs);
        return -1;
    }
    zs.next_in = (Bytef *)(uintptr_t)src;
    zs.avail_in = (uInt)len;
    zs.next_out = (Bytef *)*out;
    zs.avail_out = (uInt)bound;
    rc = deflate(&zs, Z_FINISH);
    *out_len = zs.total_out;
    deflateEnd(&zs);
    if (rc != Z_STREAM_END) {
        free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

static void *worker(void *arg)
{
    struct sim_gzjob *job;
    uint64_t one = 1;

    (void)arg;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (!pool.head && !pool.stopping)
            pthread_cond_wait(&pool.cond, &pool.lock);
        if (pool.stopping)
            break;
        job = pool.head;
        pool.head = job->next;
        if (!pool.head)
            pool.tail = NULL;
        pthread_mutex_unlock(&pool.lock);
        if (sim_gzip(job->src, job->len, job->level, &job->out,
                     &job->out_len) < 0)
            job->out = NULL;
        pthread_mutex_lock(&pool.lock);
        job->next = pool.done;
        pool.done = job;
        if (write(pool.efd, &one, sizeof(one)) < 0) {
            /* counter saturated: the loop is already woken */
        }
    }
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

int sim_gzpool_start(int nthreads)
{
    int i;

    if (nthreads < 1)
        nthreads = 1;
    if (nthreads > GZ_MAX_THREADS)
        nthreads = GZ_MAX_THREADS;
    pool.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (pool.efd < 0)
        return -1;
    for (i = 0; i < nthreads; i++) {
        if (pthread_create(&pool.threads[i], NULL, worker, NULL) != 0)
            break;
        pool.nthreads++;
    }
    return pool.nthreads ? pool.efd : -1;
}

void sim_gzpool_submit(struct sim_gzjob *job)
{
    job->next = NULL;
    job->out = NULL;
    pthread_mutex_lock(&pool.lock);
    if (pool.tail)
        pool.tail->next = job;
    else
        pool.head = job;
    pool.tail = job;
    pthread_cond_signal(&pool.cond);
    pthread_mutex_unlock(&pool.lock);
}

struct sim_gzjob *sim_gzpool_take(void)
{
    struct sim_gzjob *done;
    uint64_t n;

    if (read(pool.efd, &n, sizeof(n)) < 0) {
        /* EAGAIN: nothing signalled since last time */
    }
    pthread_mutex_lock(&pool.lock);
    done = pool.done;
    pool.done = NULL;
    pthread_mutex_unlock(&pool.lock);
    return done;
}

static void free_list(struct sim_gzjob *j)
{
    while (j) {
        struct sim_gzjob *next = j->next;

        free(j->out);
        free(j);
        j = next;
    }
}

void sim_gzpool_stop(void)
{
    int i;

    pthread_mutex_lock(&pool.lock);
    pool.stopping = 1;
    pthread_cond_broadcast(&pool.cond);
    pthread_mutex_unlock(&pool.lock);
    for (i = 0; i < pool.nthreads; i++)
        pthread_join(pool.threads[i], NULL);
    pool.nthreads = 0;
    free_list(pool.head);
    free_list(pool.done);
    pool.head = pool.tail = pool.done = NULL;
    if (pool.efd >= 0)
        close(pool.efd);
    pool.efd = -1;
}
