/* pis_query.h -- what the query string of /pi-status asks for (pure,
 * unit-tested in tests/unit/test_render.c). */
#ifndef PIS_QUERY_H
#define PIS_QUERY_H

/* What the query string of /pi-status asks for. */
typedef enum {
    PIS_FMT_HTML = 0,
    PIS_FMT_AUTO,
    PIS_FMT_JSON,
    PIS_FMT_PROMETHEUS
} pis_format;

typedef struct {
    pis_format format;
    int refresh;                  /* seconds, 0 = none */
} pis_query;

/* Parses "auto", "json", "prometheus", "refresh=N" ('&' or ';'
 * separated; unknown keys ignored; the last format key wins).  refresh
 * is clamped to 1..3600; "refresh" alone means 10. */
void pis_parse_query(const char *args, pis_query *q);

#endif /* PIS_QUERY_H */
