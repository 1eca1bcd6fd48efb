/* pi_clock.h -- the clocks both modules stamp their state with (pure,
 * static inline: see pi_local.h).
 *
 * Two clocks, each for one job:
 *
 *   pi_now_ms()   CLOCK_MONOTONIC, ms modulo 2^32: every stamp whose age
 *   pi_mono_us()  or difference matters (telemetry's age, an estimate's
 *   pi_mono_s()   decay, slow start, the silence mark, a response time,
 *                 a probe's deadline, uptime).  System-wide: stamps
 *                 written by either module, by any process, compare with
 *                 each other, across graceful restarts (same boot).
 *   pi_now_s()    CLOCK_REALTIME, seconds: only to *name* a second (the
 *                 per-second rings, the chart, an event's time).
 *
 * Why: a Raspberry Pi has no real-time clock; it boots with the time it
 * last saved and steps to NTP's minutes or days later.  Ages taken from
 * the wall clock then jumped by that much: telemetry looked days old (a
 * drained node stale, so weighed as cool, and re-admitted), a request in
 * flight across the step became a sample of hours, a probe's deadline
 * moved by the step.  The monotonic clock never steps.  What a step
 * still does, by design: the seconds the rings are named by jump, so a
 * chart shows a gap and the 1/10/60 s rates restart from the new second
 * (docs/metrics.md).
 */
#ifndef PI_CLOCK_H
#define PI_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Milliseconds of the monotonic clock, modulo 2^32 (wraps every 49.7
 * days of uptime: take differences with pi_age_ms()). */
static inline uint32_t pi_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)((uint64_t)ts.tv_sec * 1000u
                      + (uint64_t)ts.tv_nsec / 1000000u);
}

/* Microseconds of the monotonic clock (apr_interval_time_t units), for
 * durations and deadlines. */
static inline int64_t pi_mono_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Seconds of the monotonic clock, modulo 2^32. */
static inline uint32_t pi_mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)ts.tv_sec;
}

/* Seconds of the wall clock, modulo 2^32: names a second, never ages. */
static inline uint32_t pi_now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint32_t)ts.tv_sec;
}

/* Milliseconds from `then` to `now` of pi_now_ms(), taken signed: 0 when
 * `then` is up to a minute later (a stamp another thread wrote after our
 * clock read: taken unsigned, it would be 49 days old).  Older stamps,
 * up to 49 days, keep their age. */
#define PI_AGE_FUTURE_MS 65536U
static inline uint32_t pi_age_ms(uint32_t now, uint32_t then)
{
    uint32_t d = now - then;

    return d > 0xffffffffU - PI_AGE_FUTURE_MS ? 0 : d;
}

#endif /* PI_CLOCK_H */
