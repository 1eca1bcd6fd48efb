/* test_fate.c -- the colour rule of the HTML /pi-status (pis_fate.h),
 * its table replayed: first match wins. */
#include "unit.h"
#include "pis_fate.h"

static void member(pis_member_snap *m, const char *state)
{
    memset(m, 0, sizeof(*m));
    m->usable = 1;
    m->has_weight = state != NULL;
    m->thermal_state = state;
}

static void with_pi(void)
{
    static const struct {
        const char *state;
        int usable, stale;
        pis_fate want;
    } rows[] = {
        { "ok", 1, 0, PIS_FATE_OK },
        { "ramping", 1, 0, PIS_FATE_OK },
        { "warm", 1, 0, PIS_FATE_WARM },           /* never green */
        { "throttled", 1, 0, PIS_FATE_THROTTLED },
        { "drained", 1, 0, PIS_FATE_DRAINED },
        { "stale", 1, 1, PIS_FATE_STALE },
        { "ok", 1, 1, PIS_FATE_STALE },            /* the probe says so */
        { "silent", 1, 0, PIS_FATE_FAILED },
        { "drained", 0, 0, PIS_FATE_FAILED },      /* Err beats drained */
        { "warm", 0, 0, PIS_FATE_FAILED },
    };
    pis_member_snap m;
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        member(&m, rows[i].state);
        m.usable = rows[i].usable;
        m.tel_stale = rows[i].stale;
        CHECK_INT(pis_fate_of(&m), rows[i].want);
    }
    /* "pi"'s view beats the 70 C rule: warm at 60 C under a 55 C soft
     * limit; ok at 72 C under a 75 C one. */
    member(&m, "warm");
    m.tel.has_temp = 1;
    m.tel.temp_dc = 600;
    m.severity = PIS_SEV_OK;
    CHECK_INT(pis_fate_of(&m), PIS_FATE_WARM);
    member(&m, "ok");
    m.tel.has_temp = 1;
    m.tel.temp_dc = 720;
    m.severity = PIS_SEV_WARN;
    CHECK_INT(pis_fate_of(&m), PIS_FATE_OK);
}

static void without_pi(void)
{
    pis_member_snap m;

    member(&m, NULL);
    CHECK_INT(pis_fate_of(&m), PIS_FATE_OK);
    m.severity = PIS_SEV_WARN;
    CHECK_INT(pis_fate_of(&m), PIS_FATE_WARM);
    m.tel.has_throttled = 1;
    m.tel.throttled = 0x4;
    CHECK_INT(pis_fate_of(&m), PIS_FATE_THROTTLED);
    m.tel_stale = 1;                   /* old bits say nothing now */
    CHECK_INT(pis_fate_of(&m), PIS_FATE_STALE);
    m.usable = 0;
    CHECK_INT(pis_fate_of(&m), PIS_FATE_FAILED);
}

static void names(void)
{
    pis_telemetry t;
    unsigned f;

    for (f = 0; f < PIS_FATE_COUNT; f++) {
        CHECK(pis_fate_name((pis_fate)f)[0] != '\0');
        CHECK(pis_fate_meaning((pis_fate)f)[0] != '\0');
    }
    CHECK_STR(pis_fate_name(PIS_FATE_WARM), "warm");
    CHECK_STR(pis_fate_name(PIS_FATE_COUNT), "ok");
    memset(&t, 0, sizeof(t));
    CHECK_INT(pis_fate_of_self(&t), PIS_FATE_OK);
    t.has_temp = 1;
    t.temp_dc = 700;
    CHECK_INT(pis_fate_of_self(&t), PIS_FATE_WARM);
    t.has_throttled = 1;
    t.throttled = 0x2;
    CHECK_INT(pis_fate_of_self(&t), PIS_FATE_THROTTLED);
}

void test_fate(void)
{
    with_pi();
    without_pi();
    names();
}
