/* test_thermal.c - the thermal model against the table in thermal.c. */
#include "testhelp.h"
#include "thermal.h"

static void run(struct sim_thermal *t, const struct sim_thermal_params *p,
                double u, double seconds, double step)
{
    double done;

    for (done = 0.0; done < seconds - 1e-9; done += step)
        sim_thermal_step(t, p, u, step);
}

static void test_time_constant(void)
{
    struct sim_thermal_params p;
    struct sim_thermal t;

    sim_thermal_defaults(&p);
    sim_thermal_init(&t, &p);
    CHECK_NEAR(t.temp, 40.0, 1e-9, "starts at ambient");
    CHECK(t.bits == 0, "starts with no bits");
    run(&t, &p, 1.0, 30.0, 0.1);
    CHECK_NEAR(t.temp, 40.0 + 45.0 * 0.6321, 0.05, "63% after one tau");
    run(&t, &p, 1.0, 30.0, 0.1);
    CHECK_NEAR(t.temp, 78.91, 0.05, "86% after two tau");
    CHECK(t.bits == 0, "78.9 C is below the limit");
    sim_thermal_init(&t, &p);
    sim_thermal_step(&t, &p, 1.0, 30.0);
    CHECK_NEAR(t.temp, 68.45, 0.01, "one big step equals many small");
    sim_thermal_init(&t, &p);
    run(&t, &p, 0.5, 600.0, 1.0);
    CHECK_NEAR(t.temp, 62.5, 0.01, "settles at ambient + k*u");
    CHECK_NEAR(sim_thermal_load1(&t, 4), 2.0, 0.01, "load1 = u * cpus");
    run(&t, &p, 7.0, 600.0, 1.0);
    CHECK_NEAR(t.temp, 85.0, 0.01, "u clamped to 1");
}

static void test_throttle(void)
{
    struct sim_thermal_params p;
    struct sim_thermal t;

    sim_thermal_defaults(&p);
    sim_thermal_init(&t, &p);
    run(&t, &p, 1.0, 65.0, 0.1);
    CHECK(t.temp < 80.0 && t.bits == 0, "not throttled at 65 s");
    run(&t, &p, 1.0, 2.0, 0.1);
    CHECK(t.temp >= 80.0, "over 80 C at 67 s");
    CHECK(t.bits == 0x60006, "throttled bits 0x60006");
    CHECK_NEAR(sim_thermal_slowdown(&t, &p), 2.0, 1e-9, "slowdown 2");
    run(&t, &p, 1.0, 10.0, 0.1);
    CHECK(t.throttled_s > 9.0 && t.throttled_s < 12.5, "throttled seconds");
    /* cool: stays throttled between 78 and 80 (hysteresis) */
    while (t.temp >= 78.5)
        sim_thermal_step(&t, &p, 0.0, 0.05);
    CHECK(t.temp < 80.0 && (t.bits & 0x6) == 0x6, "hysteresis holds");
    while (t.temp >= 77.9)
        sim_thermal_step(&t, &p, 0.0, 0.05);
    CHECK(t.bits == 0x60000, "below 78: only sticky bits");
    CHECK_NEAR(sim_thermal_slowdown(&t, &p), 1.0, 1e-9, "full speed");
    CHECK(t.peak > 80.0 && t.peak < 86.0, "peak recorded");
    run(&t, &p, 0.0, 600.0, 1.0);
    CHECK(t.bits == 0x60000, "sticky bits stay forever");
}

static void test_soft_limit(void)
{
    struct sim_thermal_params p;
    struct sim_thermal t;

    sim_thermal_defaults(&p);
    p.soft_limit = 60.0;
    sim_thermal_init(&t, &p);
    run(&t, &p, 1.0, 20.0, 0.1);
    CHECK(t.temp >= 60.0 && t.bits == 0x80008, "soft limit bit 3");
    CHECK_NEAR(sim_thermal_slowdown(&t, &p), 1.15, 1e-9, "soft slowdown");
    run(&t, &p, 0.0, 300.0, 1.0);
    CHECK(t.bits == 0x80000, "soft sticky bit stays");
    p.soft_limit = 0.0;
    sim_thermal_init(&t, &p);
    run(&t, &p, 1.0, 50.0, 0.1);
    CHECK(t.bits == 0, "no soft limit configured: no bit 3");
}

/* Like run(), through sim_thermal_advance from time *now (advanced). */
static void run_at(struct sim_thermal *t, const struct sim_thermal_params *p,
                   double *now, double u, double seconds, double step)
{
    double end = *now + seconds;

    while (*now < end - 1e-9) {
        sim_thermal_advance(t, p, *now, u, step);
        *now += step;
    }
}

/* The example in thermal.c: idle node, heat_ambient 50 from 60 s for 120 s. */
static void test_heat_event(void)
{
    struct sim_thermal_params p;
    struct sim_thermal t, big;
    double now = 0.0;

    sim_thermal_defaults(&p);
    p.heat_at = 60.0;
    p.heat_for = 120.0;
    p.heat_ambient = 50.0;
    sim_thermal_init(&t, &p);
    run_at(&t, &p, &now, 0.0, 59.0, 0.05);
    CHECK_NEAR(t.temp, 40.0, 1e-9, "idle at ambient before the event");
    CHECK(t.heat == 0 && t.bits == 0, "no event, no bits before 60 s");
    run_at(&t, &p, &now, 0.0, 2.0, 0.05);
    CHECK(t.heat == 1, "event in force at 61 s");
    run_at(&t, &p, &now, 0.0, 46.0, 0.05);
    CHECK(t.temp < 80.0 && t.bits == 0, "not yet 80 C at 107 s");
    run_at(&t, &p, &now, 0.0, 2.0, 0.05);
    CHECK(t.temp >= 80.0 && t.bits == 0x60006,
          "past 80 C at zero utilisation: throttled at 109 s");
    run_at(&t, &p, &now, 0.0, 71.0, 0.05);
    CHECK_NEAR(t.temp, 90.0 - 50.0 * exp(-4.0), 0.01, "89.1 C at 180 s");
    CHECK(t.heat == 0, "event over at 180 s");
    run_at(&t, &p, &now, 0.0, 7.0, 0.05);
    CHECK((t.bits & 0x6) == 0x6, "still throttled at 187 s (78.6 C)");
    run_at(&t, &p, &now, 0.0, 1.0, 0.05);
    CHECK(t.bits == 0x60000, "below 78 C at 188 s: only sticky bits");
    run_at(&t, &p, &now, 0.0, 112.0, 0.05);
    CHECK_NEAR(t.temp, 40.0 + (90.0 - 50.0 * exp(-4.0) - 40.0) * exp(-4.0),
               0.01, "back to 40.9 C at 300 s");
    CHECK(t.heat == 0, "once: no event later");
    run_at(&t, &p, &now, 0.0, 600.0, 1.0);
    CHECK_NEAR(t.temp, 40.0, 0.01, "once: stays at ambient");
    CHECK(t.peak > 89.0 && t.peak < 89.2, "peak is the event's");

    /* one step across both boundaries equals many small ones */
    sim_thermal_init(&big, &p);
    sim_thermal_advance(&big, &p, 0.0, 0.3, 250.0);
    sim_thermal_init(&t, &p);
    now = 0.0;
    run_at(&t, &p, &now, 0.3, 250.0, 0.05);
    CHECK_NEAR(big.temp, t.temp, 1e-6, "step size does not matter");
    CHECK(big.heat == t.heat && big.bits == t.bits, "same state");
}

static void test_heat_schedule(void)
{
    struct sim_thermal_params p;
    struct sim_thermal t;
    double now = 0.0;

    sim_thermal_defaults(&p);
    CHECK(!sim_thermal_heat_active(&p, 0.0)
          && isinf(sim_thermal_heat_next(&p, 5.0)), "no event by default");
    p.heat_at = 10.0;
    p.heat_for = 5.0;
    p.heat_every = 30.0;
    p.heat_k = 20.0;
    CHECK(!sim_thermal_heat_active(&p, 9.99), "not before heat_at");
    CHECK(sim_thermal_heat_active(&p, 10.0), "from heat_at");
    CHECK(sim_thermal_heat_active(&p, 14.99), "for heat_for");
    CHECK(!sim_thermal_heat_active(&p, 15.0), "ends after heat_for");
    CHECK(sim_thermal_heat_active(&p, 40.0) && sim_thermal_heat_active(&p,
          1000.0 + 10.0 + 2.0) == 0, "repeats every 30 s");
    CHECK(sim_thermal_heat_active(&p, 10.0 + 30.0 * 33 + 4.0), "33rd period");
    CHECK_NEAR(sim_thermal_heat_next(&p, 0.0), 10.0, 1e-9, "next: start");
    CHECK_NEAR(sim_thermal_heat_next(&p, 12.0), 15.0, 1e-9, "next: end");
    CHECK_NEAR(sim_thermal_heat_next(&p, 15.0), 40.0, 1e-9, "next: again");

    /* heat_k only: at full load the target rises by heat_k, idle not */
    sim_thermal_init(&t, &p);
    run_at(&t, &p, &now, 0.0, 14.0, 0.05);
    CHECK_NEAR(t.temp, 40.0, 1e-9, "heat_k alone: idle node stays cool");
    p.heat_for = 20.0;                      /* in force 10-30, 40-60 s */
    p.tau = 0.5;
    sim_thermal_init(&t, &p);
    now = 0.0;
    run_at(&t, &p, &now, 1.0, 29.0, 0.05);
    CHECK_NEAR(t.temp, 40.0 + 45.0 + 20.0, 0.01, "heat_k: 105 C at full load");
    run_at(&t, &p, &now, 1.0, 10.0, 0.05);
    CHECK_NEAR(t.temp, 85.0, 0.01, "85 C again after the event");
    run_at(&t, &p, &now, 1.0, 20.0, 0.05);
    CHECK_NEAR(t.temp, 105.0, 0.01, "and 105 C in the next period");
}

/* Without an event, advance is step: bit for bit (bench scenarios). */
static void test_no_event_unchanged(void)
{
    struct sim_thermal_params p;
    struct sim_thermal a, b;
    double now = 0.0;
    int i;

    sim_thermal_defaults(&p);
    p.k = 70.0;
    p.tau = 8.0;
    p.soft_limit = 70.0;
    sim_thermal_init(&a, &p);
    sim_thermal_init(&b, &p);
    for (i = 0; i < 4000; i++) {
        double u = (i / 400) % 2 ? 0.1 : 0.9, dt = 0.037 + 0.01 * (i % 7);

        sim_thermal_step(&a, &p, u, dt);
        sim_thermal_advance(&b, &p, now, u, dt);
        now += dt;
    }
    CHECK(a.temp == b.temp && a.peak == b.peak && a.bits == b.bits
          && a.throttled_s == b.throttled_s && a.load_u == b.load_u
          && b.heat == 0, "no event: identical to sim_thermal_step");
}

int main(void)
{
    test_time_constant();
    test_throttle();
    test_soft_limit();
    test_heat_event();
    test_heat_schedule();
    test_no_event_unchanged();
    return test_report();
}
