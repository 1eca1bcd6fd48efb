/* test_num.c -- common/pi_num.c: the one parser of directive numbers,
 * the fixed-point text of telemetry, and its formatting. */
#include <math.h>

#include "unit.h"
#include "pi_num.h"

#define S(x) x, sizeof(x) - 1
#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static void parse_numbers(void)
{
    static const char *const bad[] = {
        "0x1p3", " 5", "\n5", "5s", "", "nan", "inf",
    };
    double v = -1;
    size_t i;

    CHECK_INT(pi_parse_number("10", 0.1, 3600, &v), 0);
    CHECK(NEAR(v, 10));
    CHECK_INT(pi_parse_number("2.5", 0, 50, &v), 0);
    CHECK(NEAR(v, 2.5));
    CHECK_INT(pi_parse_number("1e2", 0, 3600, &v), 0);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_INT(pi_parse_number(bad[i], 0, 3600, &v), -1);
    }
    CHECK_INT(pi_parse_number("0.05", 0.1, 3600, &v), -1);
    CHECK_INT(pi_parse_number("-1", 0, 50, &v), -1);
}

/* Whole numbers: what every integer directive accepts. */
static void parse_whole(void)
{
    static const char *const bad[] = {
        "10", "0", "", "+5", "5.0", "5e0", " 5", "5 ", "0x5",
        "99999999999999999999999",
    };
    long v = -1;
    size_t i;

    CHECK_INT(pi_parse_whole("9", 1, 9, &v), 0);
    CHECK_INT(v, 9);
    CHECK_INT(pi_parse_whole("007", 1, 9, &v), 0);
    CHECK_INT(v, 7);
    CHECK_INT(pi_parse_whole("0", 0, 67108864, &v), 0);
    CHECK_INT(v, 0);
    CHECK_INT(pi_parse_whole("1073741824", 0, 1073741824, &v), 0);
    CHECK_INT(v, 1073741824);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_INT(pi_parse_whole(bad[i], 1, 9, &v), -1);
    }
    CHECK_INT(pi_parse_whole("-5", -9, 9, &v), -1);
    CHECK_INT(v, 1073741824);                      /* untouched on -1 */
}

static void parse_ulong(void)
{
    unsigned long v = 0;

    CHECK_INT(pi_parse_ulong(S(" 42\n"), &v), 0);
    CHECK_INT(v, 42);
    CHECK_INT(pi_parse_ulong(S(""), &v), -1);
    CHECK_INT(pi_parse_ulong(S("-1"), &v), -1);
    CHECK_INT(pi_parse_ulong(S("4 2"), &v), -1);
    CHECK_INT(pi_parse_ulong(S("999999999999999999999999999"), &v), -1);
}

static void fixed(void)
{
    long v;

    CHECK_INT(pi_parse_fixed(S("0.52"), 2, &v), 0);
    CHECK_INT(v, 52);
    CHECK_INT(pi_parse_fixed(S("12.345"), 2, &v), 0);
    CHECK_INT(v, 1234);
    CHECK_INT(pi_parse_fixed(S("-12.3"), 1, &v), 0);
    CHECK_INT(v, -123);
    CHECK_INT(pi_parse_fixed(S("7"), 1, &v), 0);
    CHECK_INT(v, 70);
    CHECK_INT(pi_parse_fixed(S(".5"), 1, &v), 0);
    CHECK_INT(v, 5);
    CHECK_INT(pi_parse_fixed(S("."), 1, &v), -1);
    CHECK_INT(pi_parse_fixed(S("1.2.3"), 1, &v), -1);
    CHECK_INT(pi_parse_fixed(S("99999999999999999999"), 1, &v), -1);
    CHECK_INT(pi_parse_fixed(S("nan"), 1, &v), -1);
}

static void format(void)
{
    char b[24];

    pi_format_fixed(483, 1, b, sizeof(b));
    CHECK_STR(b, "48.3");
    pi_format_fixed(-5, 1, b, sizeof(b));
    CHECK_STR(b, "-0.5");
    pi_format_fixed(52, 2, b, sizeof(b));
    CHECK_STR(b, "0.52");
    pi_format_fixed(-1500, 1, b, sizeof(b));
    CHECK_STR(b, "-150.0");
    pi_format_fixed(42, 0, b, sizeof(b));
    CHECK_STR(b, "42");
}

void test_num(void)
{
    parse_numbers();
    parse_whole();
    parse_ulong();
    fixed();
    format();
}
