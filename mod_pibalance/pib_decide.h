/* pib_decide.h -- does a response qualify for gzip on the master? (pure)
 *
 * One decision, unit-tested in tests/unit/test_decide.c; the filter in
 * pib_deflate.c fills a pib_resp from request_rec and acts on the verdict.
 */
#ifndef PIB_DECIDE_H
#define PIB_DECIDE_H

#include <stddef.h>

/* Why a response is or is not compressed.  The first four leave the
 * response untouched; VARY_ONLY adds "Vary: Accept-Encoding" (it is
 * compressible, this client or this moment just does not get gzip). */
typedef enum {
    PIB_DEC_NO_BODY,        /* status without body, or subrequest */
    PIB_DEC_ENCODED,        /* Content-Encoding other than identity */
    PIB_DEC_RANGE,          /* 206 or Content-Range */
    PIB_DEC_NO_TRANSFORM,   /* Cache-Control: no-transform */
    PIB_DEC_TYPE,           /* content type not in the list */
    PIB_DEC_SMALL,          /* known length below the minimum */
    PIB_DEC_VARY_ONLY,      /* client declined gzip, or compression paused */
    PIB_DEC_COMPRESS
} pib_verdict;

/* Everything the decision needs, copied out of the request. */
typedef struct {
    int status;
    int subrequest;
    const char *content_type;      /* NULL when unknown */
    const char *content_encoding;  /* merged header value, or NULL */
    const char *content_range;     /* or NULL */
    const char *cache_control;     /* merged header value, or NULL */
    long long length;              /* Content-Length, -1 when unknown */
    int client_gzip;               /* pib_ae_wants_gzip() and no no-gzip */
    int paused;                    /* adaptive: no new compression now */
    /* A 304: the client's If-None-Match holds the response's ETag with
     * our "-gzip" suffix (it holds the gzip copy), and without it. */
    int inm_gzip;
    int inm_plain;
} pib_resp;

/* The configured content types: a list of lower-case "type/subtype". */
typedef struct {
    const char *const *types;
    size_t ntypes;
    long long min_length;
} pib_policy;

/* The decision.  Checks, in order: body-less status (1xx, 204, 205; a 304
 * is judged like the 200 it stands for), subrequest, encoding, range,
 * no-transform, type, minimum length, then the client and the adaptive
 * state.  A 304 of unknown type passes the type check only when the
 * client revalidates our gzip copy (inm_gzip): that copy proves the type
 * was compressed; otherwise it is left alone, no Vary (an image's 304
 * must not vary).  A 304 revalidating the gzip copy alone (inm_gzip, not
 * inm_plain) is COMPRESS whatever the client and the adaptive state: it
 * confirms the copy the cache holds, whose ETag it must carry. */
pib_verdict pib_should_compress(const pib_resp *resp, const pib_policy *pol);

/* Inside a body held for one pass (known length `expect`), the node sent
 * `len` more bytes after a pause of `pause_us` microseconds, with `held`
 * bytes before it.  mod_proxy_http passes a FLUSH at every pause, and on
 * a network there is one between any two packets, so a pause alone says
 * nothing.  1 when the body should now stream, what came so far shown to
 * the client: the pause lasted PIB_PAUSE_STREAM_US or more (the node is
 * trickling the body) and these bytes do not complete it.  Above Linux's
 * least TCP retransmission timeout (200 ms): one lost packet is no
 * trickle. */
#define PIB_PAUSE_STREAM_US 250000
int pib_pause_streams(long long pause_us, unsigned long long held,
                      size_t len, long long expect);

/* The codec choice: a body of known length `expect` (-1 unknown) up to
 * `buffer` bytes (PiBalanceDeflateBuffer) is held and compressed in one
 * pass (libdeflate, Content-Length set); any other streams through zlib
 * (chunked). */
typedef enum {
    PIB_CODEC_STREAM,
    PIB_CODEC_ONE_PASS
} pib_codec_choice;
pib_codec_choice pib_choose_codec(long long expect, long long buffer);

/* The HEAD length rule: the length of a body whole in the first brigade
 * (`summed` bytes, no Content-Length).  A HEAD answered without a body
 * and without Content-Length (AJP and FastCGI members: httpd drops their
 * Content-Length) says nothing of the GET's length, which is not 0: -1
 * (unknown) then; otherwise `summed`. */
long long pib_whole_body_length(long long summed, int header_only);

/* A short lower-case name of a verdict, for notes and debug logs. */
const char *pib_verdict_name(pib_verdict v);

/* 1 when the media type of content_type (parameters and case ignored)
 * is in the list. */
int pib_type_listed(const char *content_type, const char *const *types,
                    size_t ntypes);

/* 1 when a Content-Encoding value names a real coding (anything but
 * identity, 7bit, 8bit, binary, case-insensitive). */
int pib_is_encoded(const char *content_encoding);

/* 1 when a Cache-Control value has the no-transform directive. */
int pib_has_no_transform(const char *cache_control);

/* The default PiBalanceDeflateTypes list. */
extern const char *const pib_default_types[];
extern const size_t pib_default_ntypes;

#endif /* PIB_DECIDE_H */
