/* pib_dcz.h -- dictionaries and the dcz coding (RFC 9842 section 4.2),
 * pure: no httpd headers; unit-tested in test_dcz.c.
 *
 * A dictionary is bytes the master made itself (a page it sent, or the
 * content of zstd's dictionary builder), its SHA-256 (OpenSSL's
 * libcrypto) and, made on first use and kept, one zstd CDict per
 * compression level (at most PIB_DICT_LEVELS): a dictionary is prepared
 * once per child and reused by every response compressed against it.
 * The bytes are always raw content (ZSTD_dct_rawContent), never a zstd
 * "structured" dictionary: a decoder told "raw" and one that looks for
 * the dictionary magic read them alike, because pib_dict_make refuses
 * bytes that begin with that magic.
 *
 * dcz = the 40-byte header (skippable-frame magic 5E 2A 4D 18, length
 * 32, the dictionary's SHA-256), then one zstd frame compressed with the
 * dictionary as raw prefix.  Two codec rows, as for every coding:
 * pib_codec_dcz streams (flushes honoured), pib_codec_dcz_oneshot holds
 * a body of known length and compresses it in one pass.  Both take the
 * dictionary from pib_codec_params.dict and fail (-1) without one.
 */
#ifndef PIB_DCZ_H
#define PIB_DCZ_H

#include <stddef.h>
#include <pthread.h>

#include "pib_codec.h"

#define PIB_DCZ_HASH_LEN   32
#define PIB_DCZ_HEADER_LEN 40
#define PIB_DICT_LEVELS    4    /* CDicts kept per dictionary */
/* A dcz frame's window: at most 8 MiB (RFC 9842: decoders accept
 * max(8 MB, 1.25 x the dictionary)); the dictionary stays reachable as
 * long as the body fits in the window.  Levels above 19 ask for more. */
#define PIB_DCZ_LEVEL_MIN  1
#define PIB_DCZ_LEVEL_MAX  19

struct ZSTD_CDict_s;

typedef struct pib_dict {
    unsigned char hash[PIB_DCZ_HASH_LEN];
    unsigned char *bytes;           /* owned (malloc) */
    size_t len;
    pthread_mutex_t lock;           /* guards the CDict slots */
    int level[PIB_DICT_LEVELS];     /* 0: slot unused */
    struct ZSTD_CDict_s *cdict[PIB_DICT_LEVELS];
} pib_dict;

/* SHA-256 of data[0..n) into out.  Returns 0, or -1 if libcrypto fails. */
int pib_sha256(const unsigned char *data, size_t n,
               unsigned char out[PIB_DCZ_HASH_LEN]);

/* A dictionary of a copy of bytes[0..n): hashes them.  NULL when n is 0,
 * the bytes begin with the zstd dictionary magic (37 A4 30 EC), or
 * memory runs out.  Free with pib_dict_free. */
pib_dict *pib_dict_make(const unsigned char *bytes, size_t n);

/* The same, taking ownership of bytes (malloc'd; freed on failure). */
pib_dict *pib_dict_adopt(unsigned char *bytes, size_t n);

void pib_dict_free(pib_dict *d);

/* The CDict for level (made on first use, then kept; thread-safe).  NULL
 * on failure, or when every slot holds another level (then the caller
 * compresses with the slowest-to-prepare path: pib_dcz_* do that for
 * themselves by loading the dictionary by reference). */
struct ZSTD_CDict_s *pib_dict_cdict(pib_dict *d, int level);

/* The 40-byte dcz header for d into out. */
void pib_dcz_header(const pib_dict *d, unsigned char out[PIB_DCZ_HEADER_LEN]);

/* One pass: body[0..n) as dcz into a malloc'd buffer (*out, *outlen).
 * Returns 0 or -1. */
int pib_dcz_compress(pib_dict *d, int level, const unsigned char *body,
                     size_t n, unsigned char **out, size_t *outlen);

/* dcb (brotli with a dictionary): NULL when this build can make it,
 * else why not, for PiBalanceDeflateCodecs to refuse "dcb" at start-up
 * with.  (Only the refusal exists: no dcb row is written yet.) */
const char *pib_dcb_unsupported(void);

extern const pib_codec pib_codec_dcz;
extern const pib_codec pib_codec_dcz_oneshot;

#endif /* PIB_DCZ_H */
