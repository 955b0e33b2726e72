/* The steps one HTTP request goes through, shared by the two files that drive them (through
 * http.h): http.c, a URL read as a source one request at a time, and http_many.c, many URLs at
 * once. Here: the easy handle set up, a transfer started and stopped, the answer's header lines
 * parsed and checked, its body taken, its redirect followed, and what the transfer came to
 * (done, worth asking again and after how long, or an error). Without libcurl it is empty.
 *
 * Failures. An answer 5xx, 429 or 408, a dropped connection, a transfer slower than MIN_RATE
 * for the timeout, or one that ends before its range does, is retried after a delay that
 * doubles each time (a Retry-After up to 60 s wins), resuming at the first byte not yet
 * received. The retries are counted per request: bytes a failed attempt brought do not reset
 * the count, so a server that sends a byte and hangs up cannot keep a read going. Each read
 * (the open's first request, each later read) ends by its deadline, whatever the server does.
 * Every answer must be the same file as the first one: same size, same ETag (or Last-Modified
 * when there is no ETag). A server that ignores Range (HTTP 200 with the whole file) is read
 * whole only up to whole_limit bytes.
 *
 * Security. Only http and https, for the URL and its redirects. Redirects are followed here,
 * not by libcurl, so that the caller's headers (Authorization for gated models, an API key) go
 * to the URL's own origin only (scheme, host and port): a hop to another origin (a hub's CDN,
 * whose signed URL needs none) gets none of them, as curl without --location-trusted does for
 * the headers it knows. Header lines with a CR or LF are refused. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h" /* GGUF_HAVE_CURL; the fuzz build compiles without it (no libcurl) */
#endif
#include "source/source.h"

#ifdef GGUF_HAVE_CURL

#include "source/http.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MIN_RATE 1024L /* bytes per second, over the timeout */
#define RETRY_AFTER_MAX_S 60u
#define BACKOFF_MAX_MS 30000u
#define PROGRESS_STEP ((uint64_t)1 << 20)
#define MAX_REDIRECTS 10L

/* ---- errors ---- */

int gguf__http_fail(http *h, gguf_error *err, int code, uint64_t off, const char *fmt, ...) {
    char msg[GGUF_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gguf__fail(err, code, off, "%s", msg);
    gguf__fail_path(err, h->url);
    return code;
}

/* The answer's verdict, recorded while libcurl is inside a callback. */
static bool judge(http *h, int code, bool retryable, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool judge(http *h, int code, bool retryable, const char *fmt, ...) {
    char msg[GGUF_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gguf_error_clear(&h->t_err);
    gguf__fail(&h->t_err, code, GGUF_ERROR_NO_OFFSET, "%s", msg);
    h->verdict = code;
    h->retryable = retryable;
    return false;
}

/* ---- answers: header lines and body bytes ---- */

static bool header_is(const char *line, size_t n, const char *name, const char **value,
                      size_t *vlen) {
    size_t k = strlen(name);
    if (n <= k || strncasecmp(line, name, k) != 0 || line[k] != ':')
        return false;
    const char *v = line + k + 1, *e = line + n;
    while (v < e && (*v == ' ' || *v == '\t'))
        v++;
    while (e > v && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t'))
        e--;
    *value = v;
    *vlen = (size_t)(e - v);
    return true;
}

static bool parse_u64(const char **p, const char *e, uint64_t *out) {
    const char *s = *p;
    uint64_t v = 0;
    if (s == e || *s < '0' || *s > '9')
        return false;
    while (s < e && *s >= '0' && *s <= '9') {
        if (!gguf__mul_u64(&v, v, 10) || !gguf__add_u64(&v, v, (uint64_t)(*s - '0')))
            return false;
        s++;
    }
    *p = s;
    *out = v;
    return true;
}

static void copy_value(char *dst, size_t cap, const char *v, size_t n) {
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = '\0';
}

static size_t on_header(char *line, size_t size, size_t count, void *user) {
    http *h = user;
    size_t n = size * count;
    response *r = &h->resp;
    const char *v;
    size_t vn;
    if (n >= 5 && strncmp(line, "HTTP/", 5) == 0) {
        memset(r, 0, sizeof *r);
        const char *p = memchr(line, ' ', n);
        if (p != NULL && (size_t)(p - line) + 5 < n) {
            const char *reason = p + 5, *e = line + n;
            while (e > reason && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' '))
                e--;
            if (e > reason)
                copy_value(r->reason, sizeof r->reason, reason, (size_t)(e - reason));
        }
    } else if (header_is(line, n, "Content-Range", &v, &vn)) {
        /* bytes FIRST-LAST/TOTAL, or bytes * /TOTAL (416), TOTAL possibly "*" */
        const char *p = v, *e = v + vn;
        if (vn > 6 && strncasecmp(p, "bytes ", 6) == 0) {
            p += 6;
            if (p < e && *p == '*') {
                p++;
            } else if (parse_u64(&p, e, &r->range_first) && p < e && *p == '-' && ++p &&
                       parse_u64(&p, e, &r->range_last) && r->range_last >= r->range_first) {
                r->has_range = true;
            }
            if (p < e && *p == '/' && ++p < e && *p != '*' && parse_u64(&p, e, &r->range_total))
                r->total_known = true;
        }
    } else if (header_is(line, n, "Content-Length", &v, &vn)) {
        const char *p = v;
        r->has_length = parse_u64(&p, v + vn, &r->length);
    } else if (header_is(line, n, "ETag", &v, &vn)) {
        copy_value(r->etag, sizeof r->etag, v, vn);
    } else if (header_is(line, n, "Last-Modified", &v, &vn)) {
        copy_value(r->last_modified, sizeof r->last_modified, v, vn);
    } else if (header_is(line, n, "Retry-After", &v, &vn)) {
        const char *p = v;
        uint64_t s;
        if (parse_u64(&p, v + vn, &s)) /* an HTTP date is not worth parsing: seconds only */
            r->retry_after = s > RETRY_AFTER_MAX_S ? RETRY_AFTER_MAX_S : (unsigned)s;
    }
    return n;
}

char *gguf__http_header_dup(const char *s) {
    return s[0] != '\0' ? gguf__strdup(s) : NULL;
}

/* Is this answer the file the first answer was? Same size, same ETag, else same
 * Last-Modified. The first answer sets what the later ones must match. */
static bool same_file(http *h, uint64_t total) {
    const response *r = &h->resp;
    gguf__source *s = h->src;
    if (!h->size_known) {
        s->size = total;
        h->size_known = true;
        s->etag = gguf__http_header_dup(r->etag);
        s->last_modified = gguf__http_header_dup(r->last_modified);
        return true;
    }
    if (total != s->size)
        return judge(h, GGUF_EIO, false,
                     "the file changed on the server while it was read: %llu bytes now, "
                     "%llu when opened", (unsigned long long)total,
                     (unsigned long long)s->size);
    if (s->etag != NULL && r->etag[0] != '\0' && strcmp(s->etag, r->etag) != 0)
        return judge(h, GGUF_EIO, false,
                     "the file changed on the server while it was read: ETag %s now, %s when "
                     "opened", r->etag, s->etag);
    if (s->etag == NULL && s->last_modified != NULL && r->last_modified[0] != '\0' &&
        strcmp(s->last_modified, r->last_modified) != 0)
        return judge(h, GGUF_EIO, false,
                     "the file changed on the server while it was read: Last-Modified %s "
                     "now, %s when opened", r->last_modified, s->last_modified);
    return true;
}

/* scheme, host and port of a URL, for comparing origins; NULL when it cannot be parsed */
static char *origin(const char *url) {
    CURLU *u = gguf__curl->url();
    char *scheme = NULL, *host = NULL, *port = NULL, *out = NULL;
    if (u != NULL && gguf__curl->url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        gguf__curl->url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
        gguf__curl->url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        gguf__curl->url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK) {
        size_t n = strlen(scheme) + strlen(host) + strlen(port) + 8;
        if ((out = gguf__malloc(n)) != NULL)
            snprintf(out, n, "%s://%s:%s", scheme, host, port);
    }
    gguf__curl->free(scheme);
    gguf__curl->free(host);
    gguf__curl->free(port);
    gguf__curl->url_cleanup(u);
    return out;
}

/* The answer was a redirect: the next request goes where its Location says, with the caller's
 * headers only when that is the URL's own origin. 0, or why the redirect is not followed. */
static int follow(http *h, gguf_error *why) {
    char *to = NULL;
    if (gguf__curl->easy_getinfo(h->easy, CURLINFO_REDIRECT_URL, &to) != CURLE_OK || to == NULL)
        return gguf__fail(why, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                          "HTTP %ld%s%s (a redirect without a usable Location) for bytes "
                          "%llu..%llu", h->status, h->resp.reason[0] ? " " : "", h->resp.reason,
                          (unsigned long long)h->net, (unsigned long long)h->end);
    if (++h->hops > MAX_REDIRECTS)
        return gguf__fail(why, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "more than %ld redirects",
                          MAX_REDIRECTS);
    char *a = origin(h->url), *b = origin(to), *next = NULL;
    int rc = 0;
    if (a == NULL || b == NULL)
        rc = gguf__fail(why, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "a redirect to a URL that cannot "
                        "be read: %s", to);
    else if (strncmp(b, "http://", 7) != 0 && strncmp(b, "https://", 8) != 0)
        rc = gguf__fail(why, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "a redirect to a URL that is not "
                        "http or https: %s", to);
    else if ((next = gguf__strdup(to)) == NULL)
        rc = gguf__fail(why, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    if (rc == 0) {
        gguf__free(h->direct);
        h->direct = next;
        h->direct_foreign = strcmp(a, b) != 0;
    }
    gguf__free(a);
    gguf__free(b);
    return rc;
}

/* Checks the answer once its header lines are in (at its first body byte, or at its end when
 * it has none). Records a verdict and returns false when the transfer must stop. */
static bool check_response(http *h) {
    h->checked = true;
    long status = 0;
    gguf__curl->easy_getinfo(h->easy, CURLINFO_RESPONSE_CODE, &status);
    h->status = status;
    const response *r = &h->resp;
    if (status == 206) {
        if (!r->has_range)
            return judge(h, GGUF_EIO, false, "HTTP 206 without a usable Content-Range");
        if (r->range_first != h->net)
            return judge(h, GGUF_EIO, false, "asked for bytes from %llu, got bytes from %llu",
                         (unsigned long long)h->net, (unsigned long long)r->range_first);
        if (!r->total_known && !h->size_known)
            return judge(h, GGUF_EUNSUPPORTED, false,
                         "the server does not tell the file's size (Content-Range: .../*)");
        if (!same_file(h, r->total_known ? r->range_total : h->src->size))
            return false;
        if (h->end > h->src->size)
            h->end = h->src->size;
        return true;
    }
    if (status == 200) {
        uint64_t len = r->has_length ? r->length : 0;
        if (h->size_known && h->net == 0 && r->has_length && len == h->src->size &&
            h->end == len)
            return same_file(h, len); /* the whole file, which is what was asked */
        if (h->size_known || h->net != 0)
            return judge(h, GGUF_EIO, false,
                         "the server answered a request for bytes %llu..%llu with the whole "
                         "file (HTTP 200), after answering ranges before",
                         (unsigned long long)h->net, (unsigned long long)h->end);
        if (r->has_length && len > h->whole_limit)
            return judge(h, GGUF_EUNSUPPORTED, false,
                         "the server ignores Range requests (HTTP 200 with the whole file, "
                         "%llu bytes): refused rather than download all of it (the limit is "
                         "%llu bytes)", (unsigned long long)len,
                         (unsigned long long)h->whole_limit);
        h->whole = true;
        h->whole_sized = r->has_length;
        h->whole_cap = r->has_length ? len : 0;
        if (h->whole_cap > 0 && (h->whole_buf = gguf__malloc((size_t)h->whole_cap)) == NULL)
            return judge(h, GGUF_ENOMEM, false, "out of memory for %llu bytes",
                         (unsigned long long)len);
        return true;
    }
    if (status == 304 && h->cond != NULL && !h->size_known) {
        h->not_modified = true; /* what the caller knew (ETag, Last-Modified) still holds */
        h->discard = true;
        h->end = h->net;
        return true;
    }
    if (status >= 300 && status < 400 && status != 304) {
        h->redirected = true; /* followed (or refused) at its end: follow() */
        h->discard = true;    /* its page */
        return true;
    }
    if (status == 416) {
        if (!h->size_known && r->total_known && r->range_total == 0) {
            h->end = 0; /* an empty file: nothing to ask for */
            h->discard = true;
            return same_file(h, 0);
        }
        return judge(h, GGUF_EIO, false, "HTTP 416 %s for bytes %llu..%llu%s", r->reason,
                     (unsigned long long)h->net, (unsigned long long)h->end,
                     h->size_known ? ": the file shrank on the server" : "");
    }
    bool retry = status >= 500 || status == 429 || status == 408;
    const char *why = "";
    if (status == 401 || status == 403)
        why = h->sent_auth && !(h->direct != NULL && h->direct_foreign)
                  ? " (the Authorization header sent was refused)"
                  : " (no Authorization header was sent)";
    int code = status == 404 || status == 410 ? GGUF_ENOTFOUND : GGUF_EIO;
    return judge(h, code, retry, "HTTP %ld%s%s%s for bytes %llu..%llu", status,
                 r->reason[0] ? " " : "", r->reason, why, (unsigned long long)h->net,
                 (unsigned long long)h->end);
}

static void tell_progress(http *h) {
    if (h->progress != NULL && h->fetched - h->progress_at >= PROGRESS_STEP) {
        h->progress_at = h->fetched;
        h->progress(h->progress_user, h->fetched, h->src->size);
    }
}

static size_t on_body(char *data, size_t size, size_t count, void *user) {
    http *h = user;
    size_t n = size * count;
    if (!h->checked && !check_response(h))
        return 0; /* stops the transfer: the verdict says why */
    if (h->verdict != 0)
        return 0;
    if (h->discard)
        return n;
    if (h->whole) {
        uint64_t cap = h->whole_sized ? h->whole_cap : h->whole_limit;
        if (n > cap - h->whole_len) {
            if (h->whole_sized)
                judge(h, GGUF_EIO, false, "the server sent more than its Content-Length");
            else
                judge(h, GGUF_EUNSUPPORTED, false,
                      "the server ignores Range requests (HTTP 200 with the whole file, of "
                      "unknown length) and sent more than the limit of %llu bytes",
                      (unsigned long long)h->whole_limit);
            return 0;
        }
        if (h->whole_len + n > h->whole_cap) { /* no Content-Length: grow */
            uint64_t c = h->whole_cap ? h->whole_cap * 2 : FIRST_REQUEST;
            while (c < h->whole_len + n)
                c *= 2;
            if (c > h->whole_limit)
                c = h->whole_limit;
            uint8_t *p = gguf__realloc(h->whole_buf, (size_t)c);
            if (p == NULL) {
                judge(h, GGUF_ENOMEM, false, "out of memory");
                return 0;
            }
            h->whole_buf = p;
            h->whole_cap = c;
        }
        memcpy(h->whole_buf + h->whole_len, data, n);
        h->whole_len += n;
        h->fetched += n;
        tell_progress(h);
        return n;
    }
    if (n > h->end - h->net) {
        judge(h, GGUF_EIO, false, "the server sent more bytes than the range asked for");
        return 0;
    }
    if (h->dst_len == h->dst_cap) {
        h->paused = true;
        return CURL_WRITEFUNC_PAUSE; /* libcurl keeps the bytes and offers them again */
    }
    size_t k = h->dst_cap - h->dst_len < n ? h->dst_cap - h->dst_len : n;
    memcpy(h->dst + h->dst_len, data, k);
    h->dst_len += k;
    if (k < n) { /* the stash is empty whenever the destination takes bytes */
        if (h->stash_cap < n - k) {
            uint8_t *p = gguf__realloc(h->stash, n - k);
            if (p == NULL) {
                judge(h, GGUF_ENOMEM, false, "out of memory");
                return 0;
            }
            h->stash = p;
            h->stash_cap = n - k;
        }
        memcpy(h->stash, data + k, n - k);
        h->stash_at = 0;
        h->stash_len = n - k;
    }
    h->net += n;
    h->fetched += n;
    tell_progress(h);
    return n;
}

/* ---- transfers ---- */

double gguf__http_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A read starts: it has deadline_s seconds from now, whatever the server does. */
void gguf__http_read_begin(http *h) {
    h->deadline = gguf__http_now() + h->deadline_s;
}

/* A new request (not a retry or a redirect of one): its attempts and redirects count anew. */
void gguf__http_request_begin(http *h) {
    h->attempts = 0;
    h->hops = 0;
}

/* The read ran past its deadline: why (what the last attempt met, when anything), as err. */
int gguf__http_fail_deadline(http *h, const gguf_error *why, gguf_error *err) {
    return gguf__http_fail(h, err, GGUF_EIO, h->net, "bytes %llu..%llu not received within the "
                           "deadline of %u s (--deadline)%s%s", (unsigned long long)h->net,
                           (unsigned long long)h->end, h->deadline_s,
                           why != NULL && why->code != 0 ? "; the last attempt: " : "",
                           why != NULL && why->code != 0 ? why->message : "");
}

CURLM *gguf__http_multi(const http *h) {
    return h->batch != NULL ? h->batch : h->multi;
}

void gguf__http_transfer_stop(http *h) {
    if (h->active)
        gguf__curl->multi_remove_handle(gguf__http_multi(h), h->easy);
    h->active = h->done = h->paused = false;
    h->stash_len = h->stash_at = 0;
}

/* Asks for bytes [net, end) (end may pass the end of a file whose size is not known yet: the
 * answer cuts it). */
int gguf__http_transfer_start(http *h, uint64_t net, uint64_t end, gguf_error *err) {
    gguf__http_transfer_stop(h);
    char range[64];
    snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)net,
             (unsigned long long)(end - 1));
    h->start = h->net = h->pos = net;
    h->end = end;
    h->checked = false;
    h->discard = false;
    h->verdict = 0;
    h->retryable = false;
    h->result = CURLE_OK;
    h->status = 0;
    h->curl_err[0] = '\0';
    h->redirected = false;
    memset(&h->resp, 0, sizeof h->resp);
    gguf__curl->easy_setopt(h->easy, CURLOPT_RANGE, range);
    gguf__curl->easy_setopt(h->easy, CURLOPT_URL, h->direct != NULL ? h->direct : h->url);
    bool foreign = h->direct != NULL && h->direct_foreign;
    struct curl_slist *headers = foreign ? NULL : h->headers;
    if (h->cond != NULL && !h->size_known)
        headers = foreign ? h->cond_bare : h->cond;
    gguf__curl->easy_setopt(h->easy, CURLOPT_HTTPHEADER, headers);
    h->not_modified = false;
    CURLMcode mc = gguf__curl->multi_add_handle(gguf__http_multi(h), h->easy);
    if (mc != CURLM_OK)
        return gguf__http_fail(h, err, GGUF_EIO, net, "cannot start a request: %s",
                               gguf__curl->multi_strerror(mc));
    h->active = true;
    h->requests++;
    return 0;
}

static bool curl_retryable(CURLcode c) {
    switch (c) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR: return true;
    default: return false;
    }
}

/* How long to wait before attempt number `attempts` + 1. */
unsigned gguf__http_retry_delay(const http *h, int attempts) {
    unsigned delay = h->retry_delay_ms;
    for (int i = 1; i < attempts && delay < BACKOFF_MAX_MS; i++)
        delay *= 2;
    if (delay > BACKOFF_MAX_MS)
        delay = BACKOFF_MAX_MS;
    if (h->resp.retry_after > 0 && h->resp.retry_after * 1000u > delay)
        delay = h->resp.retry_after * 1000u;
    return delay;
}

/* The transfer ended: 0 when it delivered all of its range, 1 when it is worth asking again
 * for what is missing (the reason in *why), 2 when a redirect says where to ask, or an
 * error. */
int gguf__http_transfer_outcome(http *h, gguf_error *why) {
    gguf_error_clear(why);
    if (h->result == CURLE_OK && !h->checked)
        check_response(h); /* an answer without a body */
    if (h->verdict != 0) {
        *why = h->t_err;
        return h->retryable ? 1 : h->verdict;
    }
    if (h->result == CURLE_OK && h->redirected) {
        int rc = follow(h, why);
        return rc != 0 ? rc : 2;
    }
    if (h->result != CURLE_OK) {
        gguf__fail(why, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s after %llu of bytes %llu..%llu (%s)",
                   h->result == CURLE_OPERATION_TIMEDOUT ? "timed out" : "the transfer failed",
                   (unsigned long long)(h->net - h->start), (unsigned long long)h->start,
                   (unsigned long long)h->end,
                   h->curl_err[0] ? h->curl_err : gguf__curl->easy_strerror(h->result));
        return curl_retryable(h->result) ? 1 : GGUF_EIO;
    }
    if (!h->whole && h->net < h->end) {
        gguf__fail(why, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                   "the connection ended after %llu of bytes %llu..%llu",
                   (unsigned long long)(h->net - h->start), (unsigned long long)h->start,
                   (unsigned long long)h->end);
        return 1;
    }
    return 0;
}

/* ---- the request's setup ---- */

/* The caller's header lines: "Name: value", no CR or LF (which would smuggle in a request). */
int gguf__http_add_headers(http *h, const char *const *lines, gguf_error *err) {
    for (size_t i = 0; lines != NULL && lines[i] != NULL; i++) {
        const char *l = lines[i], *colon = strchr(l, ':');
        if (colon == NULL || colon == l || strpbrk(l, "\r\n") != NULL)
            return gguf__http_fail(h, err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                                   "header %zu is not one line 'Name: value'", i + 1);
        if ((size_t)(colon - l) == 13 && strncasecmp(l, "Authorization", 13) == 0)
            h->sent_auth = true;
        struct curl_slist *n = gguf__curl->slist_append(h->headers, l);
        if (n == NULL)
            return gguf__http_fail(h, err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        h->headers = n;
    }
    return 0;
}

int gguf__http_setup_easy(http *h, gguf_error *err) {
    CURL *e = h->easy;
    bool ok = true;
    ok &= gguf__curl->easy_setopt(e, CURLOPT_URL, h->url) == CURLE_OK;
#if LIBCURL_VERSION_NUM >= 0x075500
    ok &= gguf__curl->easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK;
    ok &= gguf__curl->easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") == CURLE_OK;
#else
    ok &= gguf__curl->easy_setopt(e, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS)) ==
          CURLE_OK;
    ok &= gguf__curl->easy_setopt(e, CURLOPT_REDIR_PROTOCOLS,
                           (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS)) == CURLE_OK;
#endif
    ok &= gguf__curl->easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L) == CURLE_OK; /* follow() does */
    ok &= gguf__curl->easy_setopt(e, CURLOPT_NOSIGNAL, 1L) == CURLE_OK;
    ok &= gguf__curl->easy_setopt(e, CURLOPT_CONNECTTIMEOUT, (long)h->timeout_s) == CURLE_OK;
    ok &= gguf__curl->easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, MIN_RATE) == CURLE_OK;
    ok &= gguf__curl->easy_setopt(e, CURLOPT_LOW_SPEED_TIME, (long)h->timeout_s) == CURLE_OK;
    ok &= gguf__curl->easy_setopt(e, CURLOPT_USERAGENT, "libgguf/" PACKAGE_VERSION) == CURLE_OK;
    ok &= gguf__curl->easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header) == CURLE_OK;
    ok &= gguf__curl->easy_setopt(e, CURLOPT_HEADERDATA, h) == CURLE_OK;
    ok &= gguf__curl->easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body) == CURLE_OK;
    ok &= gguf__curl->easy_setopt(e, CURLOPT_WRITEDATA, h) == CURLE_OK;
    ok &= gguf__curl->easy_setopt(e, CURLOPT_ERRORBUFFER, h->curl_err) == CURLE_OK;
    ok &= gguf__curl->easy_setopt(e, CURLOPT_PRIVATE, h) == CURLE_OK;
    if (h->headers != NULL)
        ok &= gguf__curl->easy_setopt(e, CURLOPT_HTTPHEADER, h->headers) == CURLE_OK;
    if (!ok)
        return gguf__http_fail(h, err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                               "this libcurl lacks an option libgguf needs");
    return 0;
}

#endif /* GGUF_HAVE_CURL */
