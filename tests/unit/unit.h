/* unit.h -- a tiny test harness (in the spirit of Redis's testhelp.h).
 *
 * CHECK(cond) records a pass or a failure with file:line; unit_main.c
 * runs every suite and prints "N passed, N failed". */
#ifndef UNIT_H
#define UNIT_H

#include <stdio.h>
#include <string.h>

extern int unit_passed, unit_failed;

#define CHECK(cond) do { \
    if (cond) { unit_passed++; } \
    else { unit_failed++; \
           fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

#define CHECK_STR(got, want) do { \
    const char *g_ = (got), *w_ = (want); \
    if (g_ && w_ && strcmp(g_, w_) == 0) { unit_passed++; } \
    else { unit_failed++; \
           fprintf(stderr, "FAIL %s:%d: got \"%s\", want \"%s\"\n", \
                   __FILE__, __LINE__, g_ ? g_ : "(null)", \
                   w_ ? w_ : "(null)"); } \
} while (0)

#define CHECK_INT(got, want) do { \
    long long g_ = (long long)(got), w_ = (long long)(want); \
    if (g_ == w_) { unit_passed++; } \
    else { unit_failed++; \
           fprintf(stderr, "FAIL %s:%d: %s = %lld, want %lld\n", \
                   __FILE__, __LINE__, #got, g_, w_); } \
} while (0)

/* Suites. */
void test_score(void);
void test_sensor(void);
void test_render(void);
void test_render_snap(void);
void test_ae(void);
void test_cachekey(void);
void test_decide(void);
void test_codec(void);
void test_codec_zb(void);
void test_codings(void);
void test_adapt(void);
void test_slot(void);
void test_hist(void);
void test_connect(void);
void test_claim(void);
void test_num(void);
void test_thermal(void);
void test_member(void);
void test_mstate(void);
void test_api(void);
void test_agent(void);
void test_fate(void);
void test_event(void);
void test_power(void);
void test_energy(void);
void test_dcz(void);
void test_sf(void);
void test_dstore(void);
void test_dbuild(void);
void test_dcache(void);
void test_dpolicy(void);

/* A growable-enough buffer for renderer output. */
typedef struct {
    char data[65536];
    size_t len;
} unit_buf;

void unit_buf_emit(void *ctx, const char *s, size_t n);

#endif /* UNIT_H */
