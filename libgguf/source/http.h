/* The HTTP source's state (made by http.c) and the steps one request goes through
 * (http_request.c), shared by the two files that drive them: http.c (a URL read as a source,
 * one request at a time) and http_many.c (many URLs at once over one libcurl multi handle).
 * Private to these three; built only with libcurl. */
#ifndef LIBGGUF_SOURCE_HTTP_H
#define LIBGGUF_SOURCE_HTTP_H

#include "source/curl_load.h"
#include "source/source.h"

/* The first request of a URL: bytes 0..FIRST_REQUEST-1. */
#define FIRST_REQUEST ((uint64_t)64 << 10)

typedef struct segment {
    uint64_t off, len;
    uint8_t *bytes;
} segment;

/* What the current answer said in its header lines (reset at each status line: a redirect's
 * answer comes first). */
typedef struct response {
    char reason[64];
    bool has_range, total_known, has_length;
    uint64_t range_first, range_last, range_total, length;
    char etag[256];
    char last_modified[64];
    unsigned retry_after;
} response;

typedef struct http {
    gguf__source *src;
    char *url;
    /* where requests go: the last place a redirect led to (later requests go there directly),
     * without the caller's headers when it is another origin (a hub's CDN); NULL: the URL */
    char *direct;
    bool direct_foreign;
    bool redirected;   /* the current answer is a redirect (its Location known at its end) */
    int hops;          /* redirects followed by the current request */
    int attempts;      /* attempts of the current request that failed */
    double deadline;   /* monotonic seconds: the current read gives up then */
    long status;
    struct curl_slist *headers;
    bool sent_auth;
    CURLM *multi;   /* this source's own */
    CURLM *batch;   /* while a batch drives it (gguf__source_fetch_many): the batch's */
    size_t batch_index;
    CURL *easy;
    struct curl_slist *cond; /* headers + If-None-Match/If-Modified-Since, first request only */
    struct curl_slist *cond_bare; /* If-None-Match/If-Modified-Since alone, for another origin */
    bool not_modified;       /* the answer was 304: what the caller knew still holds */
    char curl_err[CURL_ERROR_SIZE];
    unsigned timeout_s, deadline_s, retry_delay_ms;
    int retries;
    uint64_t whole_limit;
    gguf_fetch_progress_fn progress;
    void *progress_user;
    uint64_t progress_at;
    bool size_known;

    /* the transfer: bytes [net, end) still to come from the network; the consumer has taken
     * everything before pos; bytes [pos, net) are in the stash or the destination */
    bool active, done, paused, checked;
    CURLcode result;
    uint64_t start, end, net, pos;
    response resp;
    int verdict;    /* 0, or the GGUF_E* code the answer earned (t_err says why) */
    bool retryable; /* ... and whether asking again may help */
    gguf_error t_err;
    uint8_t *dst;
    size_t dst_len, dst_cap;
    uint8_t *stash;
    size_t stash_at, stash_len, stash_cap;
    bool discard;   /* the answer's body is not file bytes (a 416's page) */
    bool whole;     /* the server sent the whole file: it goes to whole_buf */
    bool whole_sized; /* ... with a Content-Length (whole_cap) */
    uint8_t *whole_buf;
    uint64_t whole_len, whole_cap;

    uint64_t hint_start, hint_end, last_end;
    bool hint_certain;
    segment *segs;
    size_t n_segs, cap_segs;
    uint64_t cached;
    uint64_t requests, fetched;
} http;

/* ---- http_request.c: the steps of a request ---- */

/* Fails with code at off, naming the URL. Returns code. */
GGUF_HIDDEN int gguf__http_fail(http *h, gguf_error *err, int code, uint64_t off,
                                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Monotonic seconds. */
GGUF_HIDDEN double gguf__http_now(void);
/* A read starts: its deadline is set. */
GGUF_HIDDEN void gguf__http_read_begin(http *h);
/* A new request starts: its attempts and redirects count anew. */
GGUF_HIDDEN void gguf__http_request_begin(http *h);
/* The read ran past its deadline (why: what the last attempt met, or NULL), as err. */
GGUF_HIDDEN int gguf__http_fail_deadline(http *h, const gguf_error *why, gguf_error *err);
/* Asks for bytes [net, end) on the source's multi handle (the batch's while one drives it). */
GGUF_HIDDEN int gguf__http_transfer_start(http *h, uint64_t net, uint64_t end, gguf_error *err);
GGUF_HIDDEN void gguf__http_transfer_stop(http *h);
/* The transfer ended: 0 when it delivered its range, 1 when asking again may help (why says
 * what it met), 2 when a redirect says where to ask, or an error. */
GGUF_HIDDEN int gguf__http_transfer_outcome(http *h, gguf_error *why);
/* How long to wait, in milliseconds, before attempt number attempts + 1. */
GGUF_HIDDEN unsigned gguf__http_retry_delay(const http *h, int attempts);
/* The multi handle h's transfer runs on: the batch's while one drives it, else h's own. */
GGUF_HIDDEN CURLM *gguf__http_multi(const http *h);
/* Adds the caller's header lines to h's requests ("Name: value", one line each: GGUF_EINVAL
 * otherwise). */
GGUF_HIDDEN int gguf__http_add_headers(http *h, const char *const *lines, gguf_error *err);
/* Sets up h's easy handle: http and https only, redirects not followed by libcurl (the
 * transfer's outcome does), the timeouts, the callbacks that take the answer's header lines and
 * body. */
GGUF_HIDDEN int gguf__http_setup_easy(http *h, gguf_error *err);
/* A copy of a header's value as an answer gave it ("" stands for none): NULL for none. */
GGUF_HIDDEN char *gguf__http_header_dup(const char *value);

/* ---- http.c: the source ---- */

/* A source for url with the options set, no request made yet (*out_h: its state). */
GGUF_HIDDEN int gguf__http_new(gguf__source **out, http **out_h, const char *url,
                               const gguf_open_options *opt, gguf_error *err);
/* The first answer is in (got bytes from 0 in first): the size is known, the bytes kept. */
GGUF_HIDDEN int gguf__http_first_done(http *h, const uint8_t *first, size_t got,
                                      gguf_error *err);
/* Keeps bytes [off, off+len) that were read, for later reads of them. */
GGUF_HIDDEN void gguf__http_cache_put(http *h, const uint8_t *bytes, size_t len, uint64_t off);

#endif /* LIBGGUF_SOURCE_HTTP_H */
