/* pi_local.h -- how the helpers of common/ stay private to each module.
 *
 * Every file of common/ is compiled into both mod_pibalance.so and
 * mod_pistats.so, and httpd loads both into one process with RTLD_GLOBAL.
 * An exported pi_* symbol in both would interpose: one module's calls
 * would bind to the other module's copy (another build, another
 * version).  So each function of common/ is either static inline in its
 * header or declared PI_LOCAL: hidden visibility, resolved inside its own
 * .so at link time and never exported.  t/config/symbols.t checks that
 * neither .so exports a pi_ symbol.
 */
#ifndef PI_LOCAL_H
#define PI_LOCAL_H

#if defined(__GNUC__) || defined(__clang__)
#define PI_LOCAL __attribute__((visibility("hidden")))
#else
#define PI_LOCAL
#endif

#endif /* PI_LOCAL_H */
