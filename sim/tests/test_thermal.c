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

int main(void)
{
    test_time_constant();
    test_throttle();
    test_soft_limit();
    return test_report();
}
