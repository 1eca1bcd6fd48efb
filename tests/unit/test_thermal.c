/* test_thermal.c -- common/pi_thermal.c and pi_file.c: zone readings,
 * the hottest zone of a fixture tree, small-file reads. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "pi_clock.h"
#include "pi_file.h"
#include "pi_thermal.h"

#define S(x) x, sizeof(x) - 1

static void millideg(void)
{
    static const struct { const char *in; int ok, dc; } t[] = {
        { "48312\n", 0, 483 }, { "48350", 0, 484 }, { "48349", 0, 483 },
        { "0", 0, 0 }, { "-1250\n", 0, -13 }, { "-40000", 0, -400 },
        { "150000", 0, 1500 }, { "  51234  \n", 0, 512 },
        { "", -1, 0 }, { "\n", -1, 0 }, { "abc", -1, 0 },
        { "48312abc", -1, 0 }, { "48.3", -1, 0 }, { "150100", -1, 0 },
        { "-40100", -1, 0 }, { "99999999999999999999999", -1, 0 },
        { "-273150", -1, 0 }, { "1e5", -1, 0 }, { "--5", -1, 0 },
    };
    size_t i;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        int mc = -9999, rc = pi_parse_millideg(t[i].in, strlen(t[i].in),
                                               &mc);

        CHECK_INT(rc, t[i].ok);
        if (t[i].ok == 0) {
            CHECK_INT(pi_mc_to_dc(mc), t[i].dc);
        }
    }
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

/* Writes <dir>/zone<i>/temp. */
static void put_zone(const char *dir, int i, const char *text)
{
    char p[256];

    snprintf(p, sizeof(p), "%s/zone%d", dir, i);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/zone%d/temp", dir, i);
    write_file(p, text);
}

/* A fixture tree: hottest valid zone wins, bad zones are skipped. */
static void hottest(void)
{
    char dir[] = "/tmp/pi-unit-XXXXXX", p[256], glob[256];
    int mc = 0;

    if (mkdtemp(dir) == NULL) {
        CHECK(!"mkdtemp");
        return;
    }
    snprintf(glob, sizeof(glob), "%s/zone*/temp", dir);
    CHECK_INT(pi_read_hottest(glob, &mc), 0);          /* none yet */
    put_zone(dir, 0, "45000\n");
    put_zone(dir, 1, "61234\n");
    put_zone(dir, 2, "garbage\n");
    put_zone(dir, 3, "999999999\n");                    /* huge */
    put_zone(dir, 4, "1000000000000000000000000000000000000000000000000000"
                     "000000000000000000000000000000000000000000000000000"
                     "000000\n");                       /* too long */
    CHECK_INT(pi_read_hottest(glob, &mc), 2);
    CHECK_INT(mc, 61234);
    snprintf(p, sizeof(p), "rm -rf '%s'", dir);
    CHECK_INT(system(p), 0);
}

/* Whole: a reading longer than the buffer is no reading; head: its
 * first size - 1 bytes.  Both NUL-terminate. */
static void read_file(void)
{
    char dir[] = "/tmp/pi-file-XXXXXX", p[256], buf[8];

    if (mkdtemp(dir) == NULL) {
        CHECK(!"mkdtemp");
        return;
    }
    snprintf(p, sizeof(p), "%s/f", dir);
    write_file(p, "1234567");                              /* 7 bytes */
    CHECK_INT(pi_read_file(p, buf, sizeof(buf), PI_READ_WHOLE), 7);
    CHECK_STR(buf, "1234567");
    write_file(p, "12345678");                             /* 8 bytes */
    CHECK_INT(pi_read_file(p, buf, sizeof(buf), PI_READ_WHOLE), -1);
    CHECK_INT(pi_read_file(p, buf, sizeof(buf), PI_READ_HEAD), 7);
    CHECK_STR(buf, "1234567");
    write_file(p, "");
    CHECK_INT(pi_read_file(p, buf, sizeof(buf), PI_READ_WHOLE), 0);
    CHECK_STR(buf, "");
    snprintf(p, sizeof(p), "%s/missing", dir);
    CHECK_INT(pi_read_file(p, buf, sizeof(buf), PI_READ_HEAD), -1);
    snprintf(p, sizeof(p), "rm -rf '%s'", dir);
    CHECK_INT(system(p), 0);
}

/* Zone files at the size limit: 64 bytes is a reading, 65 is not. */
static void zone_size(void)
{
    char dir[] = "/tmp/pi-zone-XXXXXX", p[256], glob[256], text[80];
    int mc = 0;

    if (mkdtemp(dir) == NULL) {
        CHECK(!"mkdtemp");
        return;
    }
    snprintf(glob, sizeof(glob), "%s/t*", dir);
    snprintf(p, sizeof(p), "%s/t0", dir);
    memset(text, ' ', sizeof(text));
    memcpy(text + PI_ZONE_READ_MAX - 6, "51000\n", 6);
    text[PI_ZONE_READ_MAX] = '\0';                        /* 64 bytes */
    write_file(p, text);
    CHECK_INT(pi_read_hottest(glob, &mc), 1);
    CHECK_INT(mc, 51000);
    memmove(text + 1, text, PI_ZONE_READ_MAX + 1);         /* 65 bytes */
    write_file(p, text);
    mc = 7;
    CHECK_INT(pi_read_hottest(glob, &mc), 0);
    CHECK_INT(mc, 7);                                      /* untouched */
    snprintf(p, sizeof(p), "%s/t1", dir);
    write_file(p, "-5000\n");                              /* below 0 C */
    CHECK_INT(pi_read_hottest(glob, &mc), 1);
    CHECK_INT(mc, -5000);
    CHECK_INT(pi_read_hottest(NULL, &mc), 0);
    snprintf(p, sizeof(p), "rm -rf '%s'", dir);
    CHECK_INT(system(p), 0);
}

static void format_dc(void)
{
    char b[24];

    pi_format_dc(483, b, sizeof(b));
    CHECK_STR(b, "48.3");
    pi_format_dc(-5, b, sizeof(b));
    CHECK_STR(b, "-0.5");
    pi_format_dc(800, b, sizeof(b));
    CHECK_STR(b, "80.0");
}

/* The throttle bits and limits both modules use. */
static void bits_and_limits(void)
{
    CHECK_INT(PI_THR_SLOW_NOW, 0xe);
    CHECK_INT(PI_THR_SLOW_NOW & 0x50005UL, 0x4);    /* throttled now */
    CHECK_INT(PI_THR_SLOW_NOW & 0x50000UL, 0);      /* only since boot */
    CHECK_INT(PI_TEMP_WARN_DC, 700);
    CHECK_INT(PI_TEMP_CRIT_DC, 800);
}

/* Ages on the wrapping millisecond clock (pi_clock.h). */
static void clock_ages(void)
{
    uint32_t a = pi_now_ms(), b = pi_now_ms();

    CHECK(pi_age_ms(b, a) < 60000);                 /* a just before b */
    CHECK_INT(pi_age_ms(1000, 400), 600);
    CHECK_INT(pi_age_ms(5, 0xFFFFFFFBu), 10);       /* across the wrap */
    CHECK_INT(pi_age_ms(400, 1000), 0);             /* a stamp "ahead" */
    CHECK_INT(pi_age_ms(0, PI_AGE_FUTURE_MS + 1), 0xFFFFFFFFu
              - PI_AGE_FUTURE_MS);                  /* old, not ahead */
    CHECK((uint32_t)(pi_now_s() - (uint32_t)time(NULL)) <= 1);
}

void test_thermal(void)
{
    millideg();
    hottest();
    zone_size();
    read_file();
    format_dc();
    bits_and_limits();
    clock_ages();
}
