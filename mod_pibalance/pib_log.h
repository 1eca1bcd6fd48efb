/* pib_log.h -- log message tags of mod_pibalance.
 *
 * Like httpd's APLOGNO(), every log line at debug or above starts with a
 * tag that is never reused.  Ranges: 10100-10199 deflate offload,
 * 13100-13299 dictionaries (RFC 9842).
 */
#ifndef PIB_LOG_H
#define PIB_LOG_H

#define PIBLOGNO(n) "PIB" #n ": "

#endif /* PIB_LOG_H */
