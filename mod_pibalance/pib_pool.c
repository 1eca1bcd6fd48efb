/* pib_pool.c -- the process's pools of libdeflate compressors and of
 * oneshot's buffers (see pib_pool.h; pure, no httpd headers).
 *
 * A libdeflate compressor is ~270 KiB at level 1 once it has compressed
 * a 50 KB page, 1.6 MiB at level 9 (libdeflate 1.14, x86-64), and
 * allocating one per response would cost more than compressing 50 KB, so
 * they are kept and reused.  A process has at most `limit` of each level
 * (PiBalanceDeflateCompressors: the cores, by default), made when first
 * needed; a response finding them all busy waits for one to be given
 * back.  Compressing is all CPU, so more compressors than cores would
 * not compress faster, and a fixed number keeps the memory fixed: a pool
 * that grew to each new peak of concurrent responses (8 were kept, more
 * made and freed at peaks) went from 3-5 to 7-8 a child long after the
 * first 10,000 requests (bench/RESULTS-faults.md, "Memory").
 *
 * The held body and libdeflate's output are reused from a pool too
 * (pib_buf_take): allocating and freeing ~100 KB a response in whichever
 * of glibc's arenas the thread uses left a 2 x 64-thread master 3.6-3.9
 * MB larger after 1 M responses (bench/RESULTS-faults.md, "Memory").
 * They are mappings of their own, not malloc's: one freed when the pool
 * is full goes back to the system, where glibc kept freed 64 KiB blocks
 * in its arenas (a new peak of concurrent responses at a time).  Under
 * AddressSanitizer they are malloc's, whose redzones catch overruns.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <libdeflate.h>

#include "pib_pool.h"

/* ---- buffers for oneshot, reused ------------------------------------------ */

#if defined(__SANITIZE_ADDRESS__)
#define PIB_BUF_MMAP 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PIB_BUF_MMAP 0
#endif
#endif
#ifndef PIB_BUF_MMAP
#define PIB_BUF_MMAP 1
#endif

#ifndef MAP_POPULATE
#define MAP_POPULATE 0
#endif

/* Populated: resident from the start, the same whether the buffer then
 * holds a 50 KB body or a 9 KB compressed one -- else the pool's pages
 * became resident one use at a time, long after the pool had filled. */
static unsigned char *pib_buf_alloc(size_t cap)
{
#if PIB_BUF_MMAP
    void *b = mmap(NULL, cap, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

    return b == MAP_FAILED ? NULL : b;
#else
    return malloc(cap);
#endif
}

static void pib_buf_free(unsigned char *b, size_t cap)
{
#if PIB_BUF_MMAP
    munmap(b, cap);
#else
    (void)cap;
    free(b);
#endif
}

static pthread_mutex_t pib_buf_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *pib_buf_idle[PIB_BUF_IDLE_MAX];
static size_t pib_buf_idle_cap[PIB_BUF_IDLE_MAX];
static unsigned pib_buf_nidle;
static unsigned long pib_buf_nlive;     /* allocated and not freed */

unsigned char *pib_buf_take(size_t need, size_t *cap)
{
    unsigned char *b = NULL;
    unsigned i, best = PIB_BUF_IDLE_MAX;

    pthread_mutex_lock(&pib_buf_mutex);
    for (i = 0; i < pib_buf_nidle; i++) {  /* the smallest that fits */
        if (pib_buf_idle_cap[i] >= need
            && (best == PIB_BUF_IDLE_MAX
                || pib_buf_idle_cap[i] < pib_buf_idle_cap[best])) {
            best = i;
        }
    }
    if (best < PIB_BUF_IDLE_MAX) {
        b = pib_buf_idle[best];
        *cap = pib_buf_idle_cap[best];
        pib_buf_nidle--;
        pib_buf_idle[best] = pib_buf_idle[pib_buf_nidle];
        pib_buf_idle_cap[best] = pib_buf_idle_cap[pib_buf_nidle];
    }
    pthread_mutex_unlock(&pib_buf_mutex);
    if (b != NULL) {
        return b;
    }
    *cap = 0;
    if (need > (size_t)-1 - PIB_BUF_GRAIN) {
        return NULL;
    }
    *cap = need == 0 ? PIB_BUF_GRAIN
                     : (need + PIB_BUF_GRAIN - 1) / PIB_BUF_GRAIN
                       * PIB_BUF_GRAIN;
    b = pib_buf_alloc(*cap);            /* outside the lock */
    if (b == NULL) {
        *cap = 0;
    }
    else {
        pthread_mutex_lock(&pib_buf_mutex);
        pib_buf_nlive++;
        pthread_mutex_unlock(&pib_buf_mutex);
    }
    return b;
}

void pib_buf_put(unsigned char *buf, size_t cap)
{
    int keep = 0;

    if (buf == NULL) {
        return;
    }
    pthread_mutex_lock(&pib_buf_mutex);
    if (cap <= PIB_BUF_KEEP_MAX && pib_buf_nidle < PIB_BUF_IDLE_MAX) {
        pib_buf_idle[pib_buf_nidle] = buf;
        pib_buf_idle_cap[pib_buf_nidle++] = cap;
        keep = 1;
    }
    else {
        pib_buf_nlive--;
    }
    pthread_mutex_unlock(&pib_buf_mutex);
    if (!keep) {
        pib_buf_free(buf, cap);
    }
}

void pib_buf_counts(unsigned long *live, unsigned long *idle)
{
    pthread_mutex_lock(&pib_buf_mutex);
    *live = pib_buf_nlive;
    *idle = pib_buf_nidle;
    pthread_mutex_unlock(&pib_buf_mutex);
}

static void pib_buf_drain(void)
{
    unsigned char *b[PIB_BUF_IDLE_MAX];
    size_t cap[PIB_BUF_IDLE_MAX];
    unsigned n, i;

    pthread_mutex_lock(&pib_buf_mutex);
    n = pib_buf_nidle;
    memcpy(b, pib_buf_idle, n * sizeof(b[0]));
    memcpy(cap, pib_buf_idle_cap, n * sizeof(cap[0]));
    pib_buf_nidle = 0;
    pib_buf_nlive -= n;
    pthread_mutex_unlock(&pib_buf_mutex);
    for (i = 0; i < n; i++) {
        pib_buf_free(b[i], cap[i]);
    }
}

/* ---- libdeflate compressors, reused ------------------------------------- */

#define PIB_LD_LEVELS 13               /* libdeflate's 0..12 */

static pthread_mutex_t pib_ld_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pib_ld_freed[PIB_LD_LEVELS];   /* one given back */
static pthread_once_t pib_ld_once = PTHREAD_ONCE_INIT;
static struct libdeflate_compressor *pib_ld_idle[PIB_LD_LEVELS][PIB_LD_MAX];
static unsigned pib_ld_nidle[PIB_LD_LEVELS];
static unsigned pib_ld_nlevel[PIB_LD_LEVELS];  /* live, of each level */
static unsigned pib_ld_limit = PIB_LD_DEFAULT;
static unsigned long pib_ld_nwaits;     /* takes that had to wait */
static void (*pib_ld_wait_hook)(void);

static void pib_ld_init(void)
{
    int l;

    for (l = 0; l < PIB_LD_LEVELS; l++) {
        pthread_cond_init(&pib_ld_freed[l], NULL);
    }
}

void pib_ld_set_limit(unsigned n)
{
    int l;

    pthread_once(&pib_ld_once, pib_ld_init);
    pthread_mutex_lock(&pib_ld_mutex);
    pib_ld_limit = n < 1 ? 1 : n > PIB_LD_MAX ? PIB_LD_MAX : n;
    pthread_mutex_unlock(&pib_ld_mutex);
    for (l = 0; l < PIB_LD_LEVELS; l++) {       /* a raised limit: go on */
        pthread_cond_broadcast(&pib_ld_freed[l]);
    }
}

unsigned pib_ld_get_limit(void)
{
    unsigned n;

    pthread_mutex_lock(&pib_ld_mutex);
    n = pib_ld_limit;
    pthread_mutex_unlock(&pib_ld_mutex);
    return n;
}

struct libdeflate_compressor *pib_ld_take(int level)
{
    struct libdeflate_compressor *c = NULL;
    int waited = 0;

    if (level < 0 || level >= PIB_LD_LEVELS) {
        return NULL;
    }
    pthread_once(&pib_ld_once, pib_ld_init);
    pthread_mutex_lock(&pib_ld_mutex);
    while (pib_ld_nidle[level] == 0 && pib_ld_nlevel[level] >= pib_ld_limit) {
        if (!waited) {
            waited = 1;
            pib_ld_nwaits++;
            if (pib_ld_wait_hook != NULL) {
                pib_ld_wait_hook();
            }
        }
        pthread_cond_wait(&pib_ld_freed[level], &pib_ld_mutex);
    }
    if (pib_ld_nidle[level] > 0) {
        c = pib_ld_idle[level][--pib_ld_nidle[level]];
        pthread_mutex_unlock(&pib_ld_mutex);
        return c;
    }
    pib_ld_nlevel[level]++;             /* this one's place, reserved */
    pthread_mutex_unlock(&pib_ld_mutex);

    c = libdeflate_alloc_compressor(level);     /* outside the lock */
    if (c == NULL) {
        pthread_mutex_lock(&pib_ld_mutex);
        pib_ld_nlevel[level]--;
        pthread_mutex_unlock(&pib_ld_mutex);
        pthread_cond_signal(&pib_ld_freed[level]);  /* its place is free */
    }
    return c;
}

void pib_ld_put(struct libdeflate_compressor *c, int level)
{
    int keep = 0;

    if (c == NULL || level < 0 || level >= PIB_LD_LEVELS) {
        return;
    }
    pthread_mutex_lock(&pib_ld_mutex);
    /* beyond the limit when it was lowered while this one was out */
    if (pib_ld_nlevel[level] <= pib_ld_limit) {
        pib_ld_idle[level][pib_ld_nidle[level]++] = c;
        keep = 1;
    }
    else {
        pib_ld_nlevel[level]--;
    }
    pthread_mutex_unlock(&pib_ld_mutex);
    pthread_cond_signal(&pib_ld_freed[level]);  /* one may take it */
    if (!keep) {
        libdeflate_free_compressor(c);
    }
}

void pib_ld_drain(void)
{
    struct libdeflate_compressor *c[PIB_LD_LEVELS * PIB_LD_MAX];
    unsigned n = 0, i;
    int l;

    pthread_mutex_lock(&pib_ld_mutex);
    for (l = 0; l < PIB_LD_LEVELS; l++) {
        pib_ld_nlevel[l] -= pib_ld_nidle[l];
        while (pib_ld_nidle[l] > 0) {
            c[n++] = pib_ld_idle[l][--pib_ld_nidle[l]];
        }
    }
    pthread_mutex_unlock(&pib_ld_mutex);
    for (i = 0; i < n; i++) {
        libdeflate_free_compressor(c[i]);
    }
    pib_buf_drain();
}

void pib_ld_counts(unsigned long *live, unsigned long *idle)
{
    unsigned long n = 0, live_n = 0;
    int l;

    pthread_mutex_lock(&pib_ld_mutex);
    for (l = 0; l < PIB_LD_LEVELS; l++) {
        n += pib_ld_nidle[l];
        live_n += pib_ld_nlevel[l];
    }
    *live = live_n;
    *idle = n;
    pthread_mutex_unlock(&pib_ld_mutex);
}

void pib_ld_set_wait_hook(void (*fn)(void))
{
    pthread_mutex_lock(&pib_ld_mutex);
    pib_ld_wait_hook = fn;
    pthread_mutex_unlock(&pib_ld_mutex);
}

unsigned long pib_ld_waits(void)
{
    unsigned long n;

    pthread_mutex_lock(&pib_ld_mutex);
    n = pib_ld_nwaits;
    pthread_mutex_unlock(&pib_ld_mutex);
    return n;
}
