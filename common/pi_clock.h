/* pi_clock.h -- the clocks both modules stamp their state with (pure,
 * static inline: see pi_local.h).
 *
 * pi_now_ms() is the wall clock in milliseconds modulo 2^32 (it wraps
 * every 49.7 days; take differences unsigned, or with pi_age_ms()).  It
 * is the clock apr_time_now() reads (gettimeofday), so stamps written by
 * either module, by any process, compare with each other.  Not
 * CLOCK_MONOTONIC on purpose: mod_pistats' stamps live in shared memory
 * across graceful restarts and its seconds (pi_now_s) name wall-clock
 * seconds on the status page.
 */
#ifndef PI_CLOCK_H
#define PI_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Milliseconds of the wall clock, modulo 2^32. */
static inline uint32_t pi_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint32_t)((uint64_t)ts.tv_sec * 1000u
                      + (uint64_t)ts.tv_nsec / 1000000u);
}

/* Seconds of the wall clock, modulo 2^32. */
static inline uint32_t pi_now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint32_t)ts.tv_sec;
}

/* Milliseconds of CLOCK_MONOTONIC, modulo 2^32: for intervals that a
 * wall-clock step must not stretch (mod_pistats' energy integral).  The
 * same clock for every process of the machine, and it goes on across
 * graceful restarts. */
static inline uint32_t pi_mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)((uint64_t)ts.tv_sec * 1000u
                      + (uint64_t)ts.tv_nsec / 1000000u);
}

/* Milliseconds from `then` to `now` of pi_now_ms(); 0 when `then` is up
 * to a minute later (a stamp another thread wrote after our clock read:
 * taken unsigned, it would be 49 days old).  Older stamps, up to 49
 * days, keep their age. */
#define PI_AGE_FUTURE_MS 65536U
static inline uint32_t pi_age_ms(uint32_t now, uint32_t then)
{
    uint32_t d = now - then;

    return d > 0xffffffffU - PI_AGE_FUTURE_MS ? 0 : d;
}

#endif /* PI_CLOCK_H */
