/* pib_dcz.c -- dictionaries (bytes, SHA-256, CDicts) and the dcz rows of
 * the codec table (RFC 9842 section 4.2; pure).
 *
 * Cost.  Preparing a dictionary (ZSTD_createCDict_advanced: hashing its
 * bytes into the level's match tables) is done once per level per child
 * and kept; a response then only references it (ZSTD_CCtx_refCDict), so
 * dcz costs about what zstd costs at the same level (bench/dictionary.sh
 * measures the ratio).  Memory: the bytes once per child, plus each
 * CDict's tables (~0.3 MiB at level 3 for a 64 KiB dictionary); the
 * compression contexts come from the zstd rows' pool (pib_codec_zstd.c).
 * A dictionary whose PIB_DICT_LEVELS slots all hold other levels is
 * loaded by reference for that frame instead (correct, slower).
 *
 * Left out: dcb (brotli with a dictionary needs libbrotli 1.1's
 * BrotliEncoderPrepareDictionary; Debian 12 ships 1.0.9), and zstd's
 * structured dictionaries (their entropy tables would help a little, but
 * only if every decoder reads the bytes the same way: raw only here).
 */
#define ZSTD_STATIC_LINKING_ONLY    /* ZSTD_createCDict_advanced */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <zstd.h>

#include "pib_dcz.h"
#include "pib_codec_zstd.h"

static const unsigned char pib_dcz_magic[8] = {
    0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00
};

int pib_sha256(const unsigned char *data, size_t n,
               unsigned char out[PIB_DCZ_HASH_LEN])
{
    unsigned int len = 0;

    if (EVP_Digest(data, n, out, &len, EVP_sha256(), NULL) != 1
        || len != PIB_DCZ_HASH_LEN) {
        return -1;
    }
    return 0;
}

pib_dict *pib_dict_adopt(unsigned char *bytes, size_t n)
{
    pib_dict *d;

    /* 37 A4 30 EC little-endian: ZSTD_MAGIC_DICTIONARY */
    if (bytes == NULL || n == 0
        || (n >= 4 && bytes[0] == 0x37 && bytes[1] == 0xa4
            && bytes[2] == 0x30 && bytes[3] == 0xec)
        || (d = calloc(1, sizeof(*d))) == NULL) {
        free(bytes);
        return NULL;
    }
    if (pib_sha256(bytes, n, d->hash) != 0
        || pthread_mutex_init(&d->lock, NULL) != 0) {
        free(bytes);
        free(d);
        return NULL;
    }
    d->bytes = bytes;
    d->len = n;
    return d;
}

pib_dict *pib_dict_make(const unsigned char *bytes, size_t n)
{
    unsigned char *copy;

    if (bytes == NULL || n == 0 || (copy = malloc(n)) == NULL) {
        return NULL;
    }
    memcpy(copy, bytes, n);
    return pib_dict_adopt(copy, n);
}

void pib_dict_free(pib_dict *d)
{
    int i;

    if (d == NULL) {
        return;
    }
    for (i = 0; i < PIB_DICT_LEVELS; i++) {
        ZSTD_freeCDict(d->cdict[i]);
    }
    pthread_mutex_destroy(&d->lock);
    free(d->bytes);
    free(d);
}

ZSTD_CDict *pib_dict_cdict(pib_dict *d, int level)
{
    ZSTD_CDict *cd = NULL;
    int i, fresh = -1;

    pthread_mutex_lock(&d->lock);
    for (i = 0; i < PIB_DICT_LEVELS; i++) {
        if (d->level[i] == level) {
            cd = d->cdict[i];
            break;
        }
        if (d->level[i] == 0 && fresh < 0) {
            fresh = i;
        }
    }
    if (cd == NULL && i == PIB_DICT_LEVELS && fresh >= 0) {
        /* srcSize unknown (0): the level's own window, <= 8 MiB to 19 */
        cd = ZSTD_createCDict_advanced(d->bytes, d->len, ZSTD_dlm_byRef,
                                       ZSTD_dct_rawContent,
                                       ZSTD_getCParams(level, 0, d->len),
                                       ZSTD_defaultCMem);
        if (cd != NULL) {
            d->level[fresh] = level;
            d->cdict[fresh] = cd;
        }
    }
    pthread_mutex_unlock(&d->lock);
    return cd;
}

void pib_dcz_header(const pib_dict *d, unsigned char out[PIB_DCZ_HEADER_LEN])
{
    memcpy(out, pib_dcz_magic, sizeof(pib_dcz_magic));
    memcpy(out + sizeof(pib_dcz_magic), d->hash, PIB_DCZ_HASH_LEN);
}

/* A pooled context at level with d referenced (its CDict, or its bytes
 * by reference for one frame); NULL on failure. */
static ZSTD_CCtx *pib_dcz_ctx(pib_dict *d, int level, long long pledged)
{
    ZSTD_CCtx *c;
    ZSTD_CDict *cd;
    size_t rc;

    if (d == NULL || level < PIB_DCZ_LEVEL_MIN || level > PIB_DCZ_LEVEL_MAX
        || (c = pib_zstd_take(level, pledged)) == NULL) {
        return NULL;
    }
    cd = pib_dict_cdict(d, level);
    rc = cd != NULL ? ZSTD_CCtx_refCDict(c, cd)
                    : ZSTD_CCtx_refPrefix_advanced(c, d->bytes, d->len,
                                                   ZSTD_dct_rawContent);
    if (ZSTD_isError(rc)) {
        pib_zstd_put(c);
        return NULL;
    }
    return c;
}

int pib_dcz_compress(pib_dict *d, int level, const unsigned char *body,
                     size_t n, unsigned char **out, size_t *outlen)
{
    ZSTD_CCtx *c = pib_dcz_ctx(d, level, (long long)n);
    size_t bound = ZSTD_compressBound(n) + PIB_DCZ_HEADER_LEN, got;
    unsigned char *buf;

    *out = NULL;
    *outlen = 0;
    if (c == NULL) {
        return -1;
    }
    if ((buf = malloc(bound)) == NULL) {
        pib_zstd_put(c);
        return -1;
    }
    pib_dcz_header(d, buf);
    got = ZSTD_compress2(c, buf + PIB_DCZ_HEADER_LEN,
                         bound - PIB_DCZ_HEADER_LEN, body, n);
    pib_zstd_put(c);
    if (ZSTD_isError(got)) {
        free(buf);
        return -1;
    }
    *out = buf;
    *outlen = got + PIB_DCZ_HEADER_LEN;
    return 0;
}

const char *pib_dcb_unsupported(void)
{
#ifdef PIB_HAVE_BROTLI_DICT
    return "dcb is not implemented yet (libbrotli supports it: a row for "
           "pib_codec.h is the missing part)";
#else
    return "dcb needs libbrotli 1.1 or later (BrotliEncoderPrepareDictionary"
           "); this build found an older one (Debian 12 ships 1.0.9): use "
           "dcz";
#endif
}

/* ---- streaming ---------------------------------------------------------- */

typedef struct {
    ZSTD_CCtx *c;
    pib_dict *d;
    int header_out;
} pib_dcz_state;

static int pib_dcz_init(pib_cstream *s, const pib_codec_params *p)
{
    pib_dcz_state *st = calloc(1, sizeof(*st));

    if (st == NULL) {
        return -1;
    }
    s->enc = st;
    st->d = p->dict;
    st->c = pib_dcz_ctx(p->dict, p->level, -1);
    return st->c != NULL ? 0 : -1;
}

/* The header goes out with the first bytes of the frame, whatever call
 * produces them (no output before there is something to send). */
static int pib_dcz_run(pib_cstream *s, const unsigned char *in, size_t n,
                       ZSTD_EndDirective op)
{
    pib_dcz_state *st = s->enc;
    ZSTD_inBuffer ib = { in, n, 0 };

    if (st == NULL || st->c == NULL) {
        return -1;
    }
    for (;;) {
        ZSTD_outBuffer ob = { s->out, sizeof(s->out), 0 };
        size_t left = ZSTD_compressStream2(st->c, &ob, &ib, op);

        if (ZSTD_isError(left)) {
            return -1;
        }
        if (ob.pos > 0 && !st->header_out) {
            unsigned char h[PIB_DCZ_HEADER_LEN];

            pib_dcz_header(st->d, h);
            pib_cstream_emit(s, h, sizeof(h));
            st->header_out = 1;
        }
        pib_cstream_emit(s, s->out, ob.pos);
        if (op == ZSTD_e_continue ? ib.pos == ib.size : left == 0) {
            return 0;
        }
    }
}

static int pib_dcz_add(pib_cstream *s, const unsigned char *in, size_t n)
{
    if (pib_dcz_run(s, in, n, ZSTD_e_continue) != 0) {
        return -1;
    }
    s->in_bytes += n;
    return 0;
}

static int pib_dcz_flush(pib_cstream *s)
{
    return pib_dcz_run(s, NULL, 0, ZSTD_e_flush);
}

static int pib_dcz_finish(pib_cstream *s)
{
    return pib_dcz_run(s, NULL, 0, ZSTD_e_end);
}

static void pib_dcz_end(pib_cstream *s)
{
    pib_dcz_state *st = s->enc;

    if (st != NULL) {
        pib_zstd_put(st->c);
        free(st);
        s->enc = NULL;
    }
}

const pib_codec pib_codec_dcz = {
    "dcz", pib_dcz_init, pib_dcz_add, pib_dcz_flush, pib_dcz_finish,
    pib_dcz_end, NULL, "dcz"
};

/* ---- one pass ----------------------------------------------------------- */

static int pib_dcz_one_init(pib_cstream *s, const pib_codec_params *p)
{
    if (p->dict == NULL) {
        return -1;
    }
    s->enc = p->dict;               /* not owned: the caller holds it */
    return pib_held_init(s, p);
}

static int pib_dcz_one_finish(pib_cstream *s)
{
    unsigned char *out;
    size_t n;

    if (pib_dcz_compress(s->enc, s->level, s->buf, s->len, &out, &n) != 0) {
        return -1;
    }
    pib_cstream_emit(s, out, n);
    free(out);
    return 0;
}

static void pib_dcz_one_end(pib_cstream *s)
{
    s->enc = NULL;
    pib_held_end(s);
}

const pib_codec pib_codec_dcz_oneshot = {
    "dcz-oneshot", pib_dcz_one_init, pib_held_add, pib_held_flush,
    pib_dcz_one_finish, pib_dcz_one_end, &pib_codec_dcz, "dcz"
};
