/* test_power.c - the node's draw, energy and reported power (power.h). */
#include <math.h>
#include "testhelp.h"
#include "power.h"


int main(void)
{
    struct sim_power_params p;
    struct sim_power s = { 0, 0, 0 };
    int i;

    sim_power_defaults(&p);
    CHECK(!sim_power_on(&p), "!sim_power_on(&p)");
    sim_power_step(&s, &p, 0.5, 1.0);
    CHECK(s.energy_j == 0.0, "s.energy_j == 0.0");          /* no sensor: nothing */

    p.idle_w = 2.7;
    p.busy_w = 6.0;
    CHECK(sim_power_on(&p), "sim_power_on(&p)");
    CHECK_NEAR(sim_power_draw(&p, 0.0), 2.7, 1e-12, "idle draw");
    CHECK_NEAR(sim_power_draw(&p, 1.0), 6.0, 1e-12, "busy draw");
    CHECK_NEAR(sim_power_draw(&p, 2.0), 6.0, 1e-12, "u above 1 is full");   /* clamped */
    CHECK_NEAR(sim_power_draw(&p, -1.0), 2.7, 1e-12, "u below 0 is idle");
    /* the worked example: half utilised for 10 s in 200 steps */
    for (i = 0; i < 200; i++)
        sim_power_step(&s, &p, 0.5, 0.05);
    CHECK_NEAR(s.energy_j, 43.5, 1e-9, "worked example: 43.5 J");
    CHECK_NEAR(s.report_w, 4.35, 1e-9, "worked example: 4.35 W reported");
    /* full load from now: the report follows with 1 s, the energy at once */
    sim_power_step(&s, &p, 1.0, 1.0);
    CHECK_NEAR(s.energy_j, 49.5, 1e-9, "energy follows at once");
    CHECK_NEAR(s.report_w, 6.0 + (4.35 - 6.0) * exp(-1.0), 1e-9, "report follows with 1 s");
    /* the step size does not change the report */
    {
        struct sim_power a = { 0, 3.0, 1 }, b = { 0, 3.0, 1 };

        sim_power_step(&a, &p, 1.0, 1.0);
        for (i = 0; i < 20; i++)
            sim_power_step(&b, &p, 1.0, 0.05);
        CHECK_NEAR(a.report_w, b.report_w, 1e-9, "report independent of the step");
        CHECK_NEAR(a.energy_j, b.energy_j, 1e-9, "energy independent of the step");
    }
    return test_report();
}
