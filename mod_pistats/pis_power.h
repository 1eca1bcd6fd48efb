/* pis_power.h -- a node's electrical power, read from Linux hwmon files
 * (PiStatsPowerSensor).  Pure C (libc only), unit-tested in
 * tests/unit/test_power.c with fixture directories.
 *
 * One path or glob(7) pattern names files of one kind, told by their
 * name as the kernel's hwmon ABI spells it (Documentation/hwmon/
 * sysfs-interface.rst):
 *
 *   pattern's file name   unit   what is read
 *   ------------------+--------+------------------------------------------
 *   power<N>_input    |  uW    | each file: summed (INA219, INA226,
 *                     |        | INA260, a PoE HAT that reports power)
 *   curr<N>_input     |  mA    | each file with in<N>_input (mV) of the
 *   in<N>_input       |  mV    | same directory, same N: the sum of
 *                     |        | V x I (INA3221, a board with no power
 *                     |        | attribute); either name may be given
 *
 * Worked example (tests/unit/test_power.c replays it): an INA3221 with
 * in1..3_input 5100, 5050, 3300 mV and curr1..3_input 600, 420, 0 mA,
 * named "curr*_input": 5100 x 600 + 5050 x 420 + 0 = 5,181,000 uW, so
 * 5181 mW, "PowerW: 5.18".  The same chip named "in*_input" is refused
 * at start-up: its in4..6_input (shunt voltages) have no curr4..6_input.
 *
 * A reading is all or nothing: when nothing matches, when any matched
 * file (or its partner) is missing, unreadable, empty or not an integer,
 * or when the sum is negative or above PIS_POWER_MAX_MW, the power is
 * unknown, never a partial sum or 0.  Cost, per answer: one glob(3) and
 * one open/read/close per file (tests/unit/test_power.c prints it).
 *
 * Not here: the Pi 5's PMIC, which no kernel driver exposes in sysfs
 * (conf/pi-pmic-power writes its rails as a power1_input file; see
 * docs/telemetry.md), power_supply class files, per-rail reports.
 */
#ifndef PIS_POWER_H
#define PIS_POWER_H

#include <stddef.h>

#define PIS_POWER_MAX_MW    10000000L  /* 10 kW: above is garbage */
#define PIS_POWER_MAX_FILES 32         /* matched files, at most */

typedef enum {
    PIS_POWER_BAD = 0,                 /* not a name of the ABI above */
    PIS_POWER_WATTS,                   /* power<N>_input */
    PIS_POWER_CURR,                    /* curr<N>_input (with in<N>) */
    PIS_POWER_VOLT                     /* in<N>_input (with curr<N>) */
} pis_power_kind;

/* The kind of the files a path or pattern names, from its last
 * component: a literal "power", "curr" or "in", then an index (digits,
 * or glob characters that stand for it: * ? [ ] ! ^ -), then a literal
 * "_input".  "/sys/class/hwmon/hwmon*\/curr[12]_input" is CURR;
 * "*_input", "power_input" and "power1_average" are BAD. */
pis_power_kind pis_power_kind_of(const char *pattern);

/* Reads the sensor now.  Returns 0 with *mw (the sum in milliwatts,
 * rounded) and *channels (files, or pairs, read), or -1 when the power
 * is unknown (see above; *channels then says how many matched). */
int pis_power_read(const char *pattern, long *mw, unsigned *channels);

/* The start-up check of what the pattern matches now: NULL when every
 * matched file can be read as its kind says (a pair's partner exists)
 * and there are at most PIS_POWER_MAX_FILES, with *matched the number
 * of channels (0: nothing there yet, a warning, not an error); else a
 * message in buf naming the first file at fault. */
const char *pis_power_check_now(const char *pattern, unsigned *matched,
                                char *buf, size_t size);

#endif /* PIS_POWER_H */
