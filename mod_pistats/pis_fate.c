/* pis_fate.c -- a member's fate for the HTML /pi-status (pis_fate.h). */
#include <string.h>

#include "pis_fate.h"

static const struct {
    const char *name, *meaning;
} pis_fates[PIS_FATE_COUNT] = {
    { "ok", "below the soft limit, full weight" },
    { "warm", "above the soft limit: weight reduced" },
    { "throttled", "the firmware throttles it now" },
    { "drained", "above the hard limit: no new requests" },
    { "stale", "no fresh telemetry: weighed as if cool" },
    { "failed", "mod_proxy does not send to it, or it is silent" },
};

static int is(const char *state, const char *name)
{
    return state != NULL && strcmp(state, name) == 0;
}

pis_fate pis_fate_of(const pis_member_snap *m)
{
    const char *st = m->has_weight ? m->thermal_state : NULL;

    if (!m->usable || is(st, "silent")) {
        return PIS_FATE_FAILED;
    }
    if (is(st, "drained")) {
        return PIS_FATE_DRAINED;
    }
    if (is(st, "throttled")
        || (st == NULL && !m->tel_stale && m->tel.has_throttled
            && (m->tel.throttled & 0x6))) {
        return PIS_FATE_THROTTLED;
    }
    if (is(st, "stale") || m->tel_stale) {
        return PIS_FATE_STALE;
    }
    if (is(st, "warm")
        || (st == NULL && m->severity >= PIS_SEV_WARN)) {
        return PIS_FATE_WARM;
    }
    return PIS_FATE_OK;
}

pis_fate pis_fate_of_self(const pis_telemetry *t)
{
    if (t->has_throttled && (t->throttled & 0x6)) {
        return PIS_FATE_THROTTLED;
    }
    return t->has_temp && t->temp_dc >= 700 ? PIS_FATE_WARM : PIS_FATE_OK;
}

const char *pis_fate_name(pis_fate f)
{
    return (unsigned)f < PIS_FATE_COUNT ? pis_fates[f].name : "ok";
}

const char *pis_fate_meaning(pis_fate f)
{
    return (unsigned)f < PIS_FATE_COUNT ? pis_fates[f].meaning : "";
}
