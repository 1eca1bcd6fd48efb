/* pi_num.h -- numbers as text, both ways (pure, libc only).
 *
 * Two kinds of input, two rules:
 * - a directive's argument (pi_parse_number, pi_parse_whole): the whole
 *   string, decimal only, no blanks, within the range the directive
 *   names.  Every PiBalance* and PiStats* directive that takes a number
 *   calls one of these two (pi_parse_whole is pi_parse_number on digits
 *   only), so "what is a number" is written once;
 * - a field of text a machine wrote (telemetry, sysfs, /proc):
 *   pi_parse_fixed, pi_parse_ulong, blanks at either end trimmed, the
 *   text given with its length (need not be NUL-terminated).
 * Not here: times with units (httpd's ap_timeout_parameter_parse does
 * PiStatsProbeInterval's "1500ms").  Unit-tested in tests/unit/test_num.c.
 */
#ifndef PI_NUM_H
#define PI_NUM_H

#include <stddef.h>

#include "pi_local.h"

/* A directive's decimal number ("2", "0.25", "1e1"; no hex, no blanks)
 * in [lo, hi].  Returns 0 and sets *out, or -1. */
PI_LOCAL int pi_parse_number(const char *s, double lo, double hi,
                             double *out);

/* A directive's whole number: digits only ("+1", "1.0", "1e1" refused)
 * in [lo, hi].  Returns 0 and sets *out, or -1. */
PI_LOCAL int pi_parse_whole(const char *s, long lo, long hi, long *out);

/* Trims ASCII blanks at both ends of [*s, *s + *len). */
PI_LOCAL void pi_trim(const char **s, size_t *len);

/* Unsigned decimal text to *out.  Returns 0 or -1 (garbage, overflow). */
PI_LOCAL int pi_parse_ulong(const char *text, size_t len,
                            unsigned long *out);

/* Decimal text with up to `scale_digits` fraction digits to an integer
 * scaled by 10^scale_digits ("0.52" with 2 -> 52; "-12.3" with 1 ->
 * -123).  More fraction digits are truncated.  Returns 0 or -1. */
PI_LOCAL int pi_parse_fixed(const char *text, size_t len, int scale_digits,
                            long *out);

/* Formats a fixed-point value: (483, 1) -> "48.3", (-5, 1) -> "-0.5",
 * (52, 2) -> "0.52".  buf should hold at least 24 bytes. */
PI_LOCAL void pi_format_fixed(long v, int digits, char *buf, size_t size);

#endif /* PI_NUM_H */
