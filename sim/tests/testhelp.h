/*
 * testhelp.h - a tiny test harness: CHECK(cond, what) counts and reports,
 * test_report() prints "N passed, N failed" and gives the exit status.
 */
#ifndef SIM_TESTHELP_H
#define SIM_TESTHELP_H

#include <math.h>
#include <stdio.h>

static int test_passed, test_failed;

#define CHECK(cond, what) do {                                          \
        if (cond) {                                                     \
            test_passed++;                                              \
        } else {                                                        \
            test_failed++;                                              \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, what);       \
        }                                                               \
    } while (0)

#define CHECK_NEAR(a, b, eps, what) CHECK(fabs((a) - (b)) <= (eps), what)

static int test_report(void)
{
    printf("%d passed, %d failed\n", test_passed, test_failed);
    return test_failed ? 1 : 0;
}

#endif
