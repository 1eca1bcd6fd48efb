/* test_scenario.c - scenario parser: good files and rejected values. */
#include <string.h>
#include "testhelp.h"
#include "scenario.h"

static void test_good(void)
{
    struct sim_scenario sc;
    char err[256] = "";
    const char *text =
        "# comment line\n"
        "defaults service=exp:20 slots=4 cpus=4 body=file:phpinfo.html\n"
        "defaults ambient=40 k=35 tau=20\n"
        "\n"
        "node pi1 speed=1\n"
        "node pi2 speed=2 port=20002   # trailing comment\n"
        "node pi3 speed=4 k=60 gzip=6 service=uniform:5:15 soft_limit=60\n"
        "node pi4 body=size:1000 service=fixed:3 down_at=5 up_at=7.5\n"
        "node pi5 heat_at=60 heat_for=40 heat_every=150 heat_ambient=25"
        " heat_k=10.5 idle_w=3 busy_w=7.5\n";
    int rc = sim_scenario_parse(text, "t.conf", &sc, err, sizeof(err));

    CHECK(rc == 0, err);
    if (rc != 0)
        return;
    CHECK(sc.n == 5, "five nodes");
    CHECK(!sim_power_on(&sc.nodes[0].pw), "no power keys: no PowerW");
    CHECK(sc.nodes[4].pw.idle_w == 3.0 && sc.nodes[4].pw.busy_w == 7.5,
          "idle_w, busy_w");
    CHECK(strcmp(sc.nodes[0].name, "pi1") == 0, "name");
    CHECK(sc.nodes[0].dist == SIM_DIST_EXP && sc.nodes[0].svc_a == 20.0,
          "service from defaults");
    CHECK(sc.nodes[0].body == SIM_BODY_FILE
          && strcmp(sc.nodes[0].body_file, "phpinfo.html") == 0, "body file");
    CHECK(sc.nodes[0].th.k == 35.0 && sc.nodes[2].th.k == 60.0, "k");
    CHECK(sc.nodes[0].th.throttle_at == 80.0, "throttle_at default");
    CHECK(sc.nodes[0].port == 0 && sc.nodes[1].port == 20002, "ports");
    CHECK(sc.nodes[1].speed == 2.0, "speed");
    CHECK(sc.nodes[2].dist == SIM_DIST_UNIFORM && sc.nodes[2].svc_a == 5.0
          && sc.nodes[2].svc_b == 15.0, "uniform");
    CHECK(sc.nodes[2].gzip_level == 6 && sc.nodes[0].gzip_level == 0, "gzip");
    CHECK(sc.nodes[2].th.soft_limit == 60.0, "soft_limit");
    CHECK(sc.nodes[3].body == SIM_BODY_SIZE && sc.nodes[3].body_size == 1000,
          "body size");
    CHECK(sc.nodes[3].down_at == 5.0 && sc.nodes[3].up_at == 7.5, "events");
    CHECK(sc.nodes[0].down_at < 0, "no events by default");
    CHECK(sc.nodes[0].th.heat_at < 0 && sc.nodes[0].th.heat_ambient == 0
          && sc.nodes[0].th.heat_k == 0, "no heat event by default");
    CHECK(sc.nodes[4].th.heat_at == 60.0 && sc.nodes[4].th.heat_for == 40.0
          && sc.nodes[4].th.heat_every == 150.0
          && sc.nodes[4].th.heat_ambient == 25.0
          && sc.nodes[4].th.heat_k == 10.5, "heat event keys");
    sim_scenario_free(&sc);
}

struct bad_case {
    const char *text;
    const char *expect;       /* substring of the message */
};

static const struct bad_case bad[] = {
    { "node a speed=0\n", "t.conf:1: speed: '0' must be a number in" },
    { "node a\nnode b slots=x\n", "t.conf:2: slots:" },
    { "node a slots=2.5\n", "slots: '2.5' must be an integer" },
    { "node a slots=0\n", "slots:" },
    { "node a gzip=10\n", "gzip:" },
    { "node a service=normal:5\n", "service: 'normal:5' must be fixed:MS" },
    { "node a service=uniform:9:3\n", "service:" },
    { "node a service=fixed:\n", "service:" },
    { "node a body=size:-1\n", "body:" },
    { "node a body=blob\n", "body: 'blob' must be size:BYTES or file:PATH" },
    { "node a colour=red\n", "t.conf:1: colour: unknown key" },
    { "node a speed\n", "speed: expected key=value" },
    { "node a\nnode a\n", "t.conf:2: node: duplicate name 'a'" },
    { "node\n", "node: missing node name" },
    { "node a/b\n", "node: name 'a/b'" },
    { "frobnicate\n", "t.conf:1: 'frobnicate': expected" },
    { "# nothing\n", "no 'node' lines" },
    { "node a port=7000\nnode b port=7000\n", "port: 7000 used by" },
    { "node a soft_limit=85\n", "soft_limit: 85 must be below throttle_at" },
    { "node a up_at=3\n", "up_at: needs down_at" },
    { "node a down_at=5 up_at=3\n", "up_at: 3 must be after down_at 5" },
    { "node a unhang_at=3\n", "unhang_at: needs hang_at" },
    { "defaults tau=0\nnode a\n", "t.conf:1: tau:" },
    { "node a port=70000\n", "port:" },
    { "node a k=nan\n", "k:" },
    { "node a heat_for=10\n", "heat_for: needs heat_at" },
    { "node a heat_every=10\n", "heat_every: needs heat_at" },
    { "node a heat_ambient=10\n", "heat_ambient: needs heat_at" },
    { "node a heat_k=10\n", "heat_k: needs heat_at" },
    { "node a heat_at=5 heat_ambient=10\n", "heat_at: needs heat_for" },
    { "node a heat_at=5 heat_for=10\n",
      "heat_at: needs heat_ambient or heat_k" },
    { "node a heat_at=5 heat_for=10 heat_k=5 heat_every=10\n",
      "heat_every: 10 must be longer than heat_for 10" },
    { "node a heat_at=5 heat_for=0 heat_k=5\n", "heat_for: '0' must be" },
    { "node a heat_at=5 heat_for=1 heat_ambient=-5\n", "heat_ambient:" },
    { "node a heat_at=-1 heat_for=1 heat_k=5\n", "heat_at:" },
    { "node a idle_w=2.7\n", "idle_w: needs busy_w" },
    { "node a busy_w=6\n", "busy_w: needs idle_w" },
    { "node a idle_w=3 busy_w=2\n", "busy_w: 2 must not be below idle_w 3" },
    { "node a idle_w=-1 busy_w=2\n", "idle_w:" },
    { "node a idle_w=3 busy_w=2000\n", "busy_w:" },
};

static void test_bad(void)
{
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct sim_scenario sc;
        char err[256] = "", what[512];
        int rc = sim_scenario_parse(bad[i].text, "t.conf", &sc, err,
                                    sizeof(err));

        snprintf(what, sizeof(what), "case %zu: got '%s', want '%s'", i,
                 err, bad[i].expect);
        CHECK(rc == -1 && strstr(err, bad[i].expect) != NULL, what);
        CHECK(sc.n == 0 && sc.nodes == NULL, "empty after error");
    }
}

static void test_files(void)
{
    static const char *const files[] = {
        "scenarios/demo.conf", "scenarios/homogeneous.conf",
        "scenarios/hetero.conf", "scenarios/hot.conf",
        "scenarios/failover.conf", "scenarios/bench-failover.conf",
        "scenarios/bench-heat-fast.conf", "scenarios/bench-heat-slow.conf",
    };
    struct sim_scenario sc;
    char err[256] = "";
    size_t i;
    int j, heat;

    /* only demo.conf's pi-hot has a heat event; the others are unchanged */
    for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        CHECK(sim_scenario_load(files[i], &sc, err, sizeof(err)) == 0
              && sc.n >= 2, err[0] ? err : files[i]);
        for (j = 0, heat = 0; j < sc.n; j++)
            if (sc.nodes[j].th.heat_at >= 0
                || sc.nodes[j].th.heat_ambient != 0
                || sc.nodes[j].th.heat_k != 0)
                heat += i == 0 && strcmp(sc.nodes[j].name, "pi-hot") == 0
                        ? 1 : 100;
        CHECK(heat == (i == 0), files[i]);
        sim_scenario_free(&sc);
    }
}

int main(void)
{
    test_good();
    test_bad();
    test_files();
    return test_report();
}
