/*
 * body.h - response bodies of simulated nodes: deterministic generated
 * HTML, a phpinfo()-like benchmark page, or a file's contents.
 */
#ifndef SIM_BODY_H
#define SIM_BODY_H

#include <stddef.h>

#define SIM_PHPINFO_TARGET 50000  /* bytes, approximately */
#define SIM_PHPINFO_BENCH_TARGET 68000

/* Exactly size bytes of HTML-like text; the same for the same size. */
char *sim_body_generate(size_t size);

/* A phpinfo()-like page of about SIM_PHPINFO_TARGET bytes; sets *len. */
char *sim_body_phpinfo(size_t *len);

/*
 * The same page with $_SERVER-like rows of random tokens between the
 * modules: it compresses about 2.4:1 at level 1 (~21 KB from ~51 KB),
 * like the page behind the reference figures of issue 6.
 */
char *sim_body_phpinfo_dense(size_t *len);

/*
 * The page of issue 32's figures: about 67 KB (68,166 bytes), a section
 * of $_SERVER-like token rows after every three modules, so that it
 * compresses about 3.3:1 at level 1 (20.7 KB with libdeflate 1, where
 * the 67 KB phpinfo() page gave 21.0 KB).
 */
char *sim_body_phpinfo_bench(size_t *len);

/*
 * Reads a whole file (at most 64 MiB).  Returns a malloc'd buffer and sets
 * *len, or NULL with a message in err.
 */
char *sim_body_load(const char *path, size_t *len, char *err, size_t errlen);

#endif
