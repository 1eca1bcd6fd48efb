/* test_adapt.c -- adaptive compression: the worked table of pib_adapt.c,
 * /proc/stat parsing, directive arguments. */
#include "unit.h"
#include "pib_adapt.h"

static void worked_table(void)
{
    static const struct { int cur, busy, temp_c, next; } t[] = {
        { PIB_ADAPT_FULL, 95, 50, PIB_ADAPT_LOW },
        { PIB_ADAPT_LOW, 95, 50, PIB_ADAPT_OFF },
        { PIB_ADAPT_OFF, 80, 50, PIB_ADAPT_OFF },
        { PIB_ADAPT_OFF, 60, 50, PIB_ADAPT_LOW },
        { PIB_ADAPT_LOW, 60, 72, PIB_ADAPT_LOW },
        { PIB_ADAPT_LOW, 60, 60, PIB_ADAPT_FULL },
        { PIB_ADAPT_FULL, 20, 76, PIB_ADAPT_LOW },
        { PIB_ADAPT_OFF, 100, 90, PIB_ADAPT_OFF },
        { PIB_ADAPT_FULL, -1, -1, PIB_ADAPT_FULL },
    };
    pib_adapt_conf c;
    size_t i;

    pib_adapt_conf_default(&c);
    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        int temp = t[i].temp_c < 0 ? -1 : t[i].temp_c * 1000;

        CHECK_INT(pib_adapt_step((pib_adapt_state)t[i].cur, t[i].busy, temp,
                                 &c), t[i].next);
    }
    CHECK_INT(pib_adapt_level(PIB_ADAPT_FULL, 6), 6);
    CHECK_INT(pib_adapt_level(PIB_ADAPT_LOW, 6), 1);
    CHECK_INT(pib_adapt_level(PIB_ADAPT_OFF, 6), 0);
    CHECK_STR(pib_adapt_name(PIB_ADAPT_LOW), "reduced");
}

static void procstat(void)
{
    unsigned b0, t0, b1, t1;

    CHECK_INT(pib_procstat_parse("cpu  100 0 50 800 50 0 0 0 0 0\n"
                                 "cpu0 1 2 3 4\n", &b0, &t0), 0);
    CHECK_INT(b0, 150);
    CHECK_INT(t0, 1000);
    CHECK_INT(pib_procstat_parse("cpu  190 0 60 800 50 0 0 0\n", &b1, &t1),
              0);
    CHECK_INT(pib_cpu_busy_pct(b0, t0, b1, t1), 100);
    CHECK_INT(pib_procstat_parse("cpu  125 0 50 870 55 0 0 0\n", &b1, &t1),
              0);
    CHECK_INT(pib_cpu_busy_pct(b0, t0, b1, t1), 25);
    CHECK_INT(pib_cpu_busy_pct(b0, t0, b0, t0), -1);
    /* wrap-around of 32-bit jiffies */
    CHECK_INT(pib_cpu_busy_pct(0xfffffff0u, 0xffffff00u, 0x10u, 0x100u), 6);
    CHECK_INT(pib_procstat_parse("intr 1 2 3", &b0, &t0), -1);
    CHECK_INT(pib_procstat_parse("cpu  1 2", &b0, &t0), -1);
    CHECK_INT(pib_procstat_parse(NULL, &b0, &t0), -1);
}

static void args(void)
{
    pib_adapt_conf c;

    pib_adapt_conf_default(&c);
    CHECK(pib_adapt_parse_arg(&c, "cpu=80") == NULL);
    CHECK_INT(c.cpu_pct, 80);
    CHECK(pib_adapt_parse_arg(&c, "temp=70") == NULL);
    CHECK_INT(c.temp_c, 70);
    CHECK(pib_adapt_parse_arg(&c, "stat=/tmp/stat") == NULL);
    CHECK_STR(c.stat_path, "/tmp/stat");
    CHECK(pib_adapt_parse_arg(&c, "thermal=/tmp/z*/temp") == NULL);
    CHECK(pib_adapt_parse_arg(&c, "cpu=5") != NULL);
    CHECK(pib_adapt_parse_arg(&c, "cpu=101") != NULL);
    CHECK(pib_adapt_parse_arg(&c, "cpu=9x") != NULL);
    CHECK(pib_adapt_parse_arg(&c, "temp=-4") != NULL);
    CHECK(pib_adapt_parse_arg(&c, "stat=relative") != NULL);
    CHECK(pib_adapt_parse_arg(&c, "bogus") != NULL);
    CHECK_INT(c.cpu_pct, 80);
}

void test_adapt(void)
{
    worked_table();
    procstat();
    args();
}
