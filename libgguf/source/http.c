/* An http:// or https:// URL read as a source, with range requests through libcurl (through
 * the table curl_load.c fills when the first URL is opened; configure --without-curl leaves
 * only the "not built" answer). Each request goes through the steps of http_request.c (http.h),
 * which http_many.c drives for many URLs at once.
 *
 * Requests. Opening asks for bytes 0..64 KiB-1: the answer's Content-Range tells the file's
 * size, and most headers fit. Each later read asks for exactly the bytes it lacks; the reader
 * (format/open.c) grows its header reads geometrically but never past the parse's least end of
 * the header plus read_ahead (64 KiB), so the bytes a header-only command downloads are at most
 * the header plus 64 KiB. A read that continues the previous one inside a range the caller
 * announced (gguf__source_will_read: the rest of a tensor, a checksum's span) becomes one
 * streamed request for the whole range, pulled as the caller reads: the transfer is paused
 * while the caller's buffer is full, so memory stays bounded. Small exact reads are kept for
 * the life of the source, so that nothing is fetched twice. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h" /* GGUF_HAVE_CURL; the fuzz build compiles without it (no libcurl) */
#endif
#include "source/source.h"

#ifndef GGUF_HAVE_CURL

bool gguf__source_http_built(void) {
    return false;
}

int gguf__source_open_url(gguf__source **out, const char *url, const gguf_open_options *opt,
                          gguf_error *err) {
    (void)out;
    (void)url;
    (void)opt;
    return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                      "built without HTTP support (configure found no libcurl): cannot read a URL");
}

#else /* GGUF_HAVE_CURL */

#include "source/http.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define READ_AHEAD ((uint64_t)64 << 10)
#define CACHE_MAX ((uint64_t)64 << 20)       /* bytes of exact reads kept */
#define WHOLE_LIMIT ((uint64_t)64 << 20)
#define TIMEOUT_S 30u
#define DEADLINE_S 300u
#define RETRIES 4
#define RETRY_DELAY_MS 500u

/* ---- once per process ---- */


bool gguf__source_http_built(void) {
    return true;
}

/* ---- the cache of exact reads ---- */

static size_t cache_take(const http *h, uint8_t *buf, size_t len, uint64_t off) {
    size_t done = 0;
    for (size_t i = 0; i < h->n_segs && done < len; i++) {
        const segment *g = &h->segs[i];
        uint64_t at = off + done;
        if (at < g->off || at >= g->off + g->len)
            continue;
        uint64_t k = g->off + g->len - at;
        if (k > len - done)
            k = len - done;
        memcpy(buf + done, g->bytes + (at - g->off), (size_t)k);
        done += (size_t)k;
        i = (size_t)-1; /* the next bytes may lie in an earlier segment */
    }
    return done;
}

/* Keeps [off, off+len) when there is room; appends to the segment it continues. Best effort:
 * a read that cannot be kept is fetched again when asked for again. */
void gguf__http_cache_put(http *h, const uint8_t *bytes, size_t len, uint64_t off) {
    if (len == 0 || h->cached + len > CACHE_MAX)
        return;
    for (size_t i = 0; i < h->n_segs; i++) {
        segment *g = &h->segs[i];
        if (g->off + g->len != off)
            continue;
        uint8_t *p = gguf__realloc(g->bytes, (size_t)(g->len + len));
        if (p == NULL)
            return;
        memcpy(p + g->len, bytes, len);
        g->bytes = p;
        g->len += len;
        h->cached += len;
        return;
    }
    if (h->n_segs == h->cap_segs) {
        size_t cap = h->cap_segs ? h->cap_segs * 2 : 8;
        segment *s = gguf__realloc(h->segs, cap * sizeof *s);
        if (s == NULL)
            return;
        h->segs = s;
        h->cap_segs = cap;
    }
    uint8_t *p = gguf__malloc(len);
    if (p == NULL)
        return;
    memcpy(p, bytes, len);
    h->segs[h->n_segs++] = (segment){off, len, p};
    h->cached += len;
}

/* ---- one transfer, pulled ---- */

/* Runs libcurl until the destination is full or the transfer ended. */
static int pump(http *h, gguf_error *err) {
    int running = 0;
    CURLMcode mc = gguf__curl->multi_perform(gguf__http_multi(h), &running);
    if (mc != CURLM_OK)
        return gguf__http_fail(h, err, GGUF_EIO, h->net, "libcurl failed: %s",
                               gguf__curl->multi_strerror(mc));
    CURLMsg *m;
    int queued;
    while ((m = gguf__curl->multi_info_read(gguf__http_multi(h), &queued)) != NULL) {
        if (m->msg == CURLMSG_DONE) {
            h->done = true;
            h->result = m->data.result;
        }
    }
    if (!h->done && h->dst_len < h->dst_cap) {
        double left = h->deadline - gguf__http_now();
        if (left <= 0)
            return gguf__http_fail_deadline(h, NULL, err);
        mc = gguf__curl->multi_poll(gguf__http_multi(h), NULL, 0, left < 1 ? (int)(left * 1000) + 1 : 1000, NULL);
        if (mc != CURLM_OK)
            return gguf__http_fail(h, err, GGUF_EIO, h->net, "libcurl failed: %s",
                                   gguf__curl->multi_strerror(mc));
    }
    return 0;
}

static void sleep_ms(unsigned ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Asks again for the bytes of the transfer not received yet; the stash (bytes before them)
 * stays. */
static int resume(http *h, gguf_error *err) {
    uint64_t pos = h->pos;
    uint8_t *stash = h->stash;
    size_t stash_at = h->stash_at, stash_len = h->stash_len;
    int rc = gguf__http_transfer_start(h, h->net, h->end, err);
    h->pos = pos;
    h->stash = stash;
    h->stash_at = stash_at;
    h->stash_len = stash_len;
    return rc;
}

/* Fills buf with up to len bytes of the transfer from its position on (fewer only when the
 * file ends first); *got says how many. Retries what fails in a way worth retrying. */
static int pull(http *h, uint8_t *buf, size_t len, size_t *got, gguf_error *err) {
    size_t filled = 0;
    *got = 0;
    for (;;) {
        if (h->stash_len > 0) {
            size_t k = h->stash_len < len - filled ? h->stash_len : len - filled;
            memcpy(buf + filled, h->stash + h->stash_at, k);
            h->stash_at += k;
            h->stash_len -= k;
            filled += k;
        }
        uint64_t avail = h->end - (h->pos + filled); /* what the transfer may still bring */
        if (filled == len || (h->done && h->verdict == 0 && h->result == CURLE_OK &&
                              h->net == h->end && h->stash_len == 0) || avail == 0)
            break;
        h->dst = buf + filled;
        h->dst_len = 0;
        h->dst_cap = len - filled < avail ? len - filled : (size_t)avail;
        if (h->paused) {
            h->paused = false;
            gguf__curl->easy_pause(h->easy, CURLPAUSE_CONT); /* may deliver bytes at once */
        }
        int rc = 0;
        while (rc == 0 && !h->done && h->dst_len < h->dst_cap)
            rc = pump(h, err);
        filled += h->dst_len;
        h->dst = NULL;
        h->dst_len = h->dst_cap = 0;
        if (rc != 0)
            return rc;
        if (!h->done)
            continue;
        gguf_error why;
        int outcome = gguf__http_transfer_outcome(h, &why);
        if (outcome == 0 && h->whole)
            break; /* the whole file is in whole_buf */
        if (outcome == 0)
            continue; /* the range is complete: the stash holds the rest of it */
        if (outcome == 2) { /* a redirect: ask there at once */
            rc = resume(h, err);
            if (rc != 0)
                return rc;
            continue;
        }
        if (h->direct != NULL && outcome < 0 && h->status >= 400 && h->status < 500 &&
            h->status != 416 && !h->whole) {
            /* the place the redirects led to refuses now (a signed URL that expired): ask
             * the URL itself again, which redirects afresh */
            gguf__free(h->direct);
            h->direct = NULL;
            h->direct_foreign = false;
            outcome = 1;
        }
        if (outcome < 0 || h->whole) {
            gguf__http_transfer_stop(h);
            if (err != NULL && err->code == 0)
                *err = why;
            gguf__fail_path(err, h->url);
            return outcome < 0 ? outcome : GGUF_EIO;
        }
        /* worth asking again, for the bytes not received yet */
        h->attempts++;
        if (h->retries >= 0 && h->attempts > h->retries) {
            gguf__http_transfer_stop(h);
            if (err != NULL && err->code == 0) {
                *err = why;
                size_t n = strlen(err->message);
                snprintf(err->message + n, sizeof err->message - n, " (after %d attempt%s)",
                         h->retries + 1, h->retries == 0 ? "" : "s");
            }
            gguf__fail_path(err, h->url);
            return why.code ? why.code : GGUF_EIO;
        }
        unsigned delay = gguf__http_retry_delay(h, h->attempts);
        if (gguf__http_now() + delay / 1000.0 >= h->deadline) {
            gguf__http_transfer_stop(h);
            return gguf__http_fail_deadline(h, &why, err);
        }
        sleep_ms(delay);
        h->hops = 0;
        rc = resume(h, err);
        if (rc != 0)
            return rc;
    }
    h->pos += filled;
    *got = filled;
    return 0;
}

/* ---- the source ---- */

static int http_read(gguf__source *s, void *out, size_t len, uint64_t off, gguf_error *err) {
    http *h = s->impl;
    uint8_t *buf = out;
    size_t done = cache_take(h, buf, len, off);
    if (done == len) {
        h->last_end = off + len;
        return 0;
    }
    uint64_t at = off + done;
    size_t rest = len - done;
    bool streamed = false;
    if (h->batch != NULL) /* a batch fetches; its consumer reads only what was kept */
        return gguf__http_fail(h, err, GGUF_EIO, at,
                               "bytes %llu..%llu were not kept (more than %llu bytes of header?)",
                               (unsigned long long)at,
                               (unsigned long long)(at + rest), (unsigned long long)CACHE_MAX);
    gguf__http_read_begin(h);
    if (!(h->active && h->pos == at && h->end >= at + rest)) {
        uint64_t end = at + rest;
        /* a read that continues the previous one inside an announced range streams the rest
         * of the range in one request */
        if (h->hint_end > end && at >= h->hint_start && (h->hint_certain || at == h->last_end))
            end = h->hint_end;
        gguf__http_request_begin(h);
        int rc = gguf__http_transfer_start(h, at, end, err);
        if (rc != 0)
            return rc;
    }
    streamed = h->end > at + rest;
    size_t got;
    int rc = pull(h, buf + done, rest, &got, err);
    if (rc == 0 && got < rest)
        rc = gguf__http_fail(h, err, GGUF_EIO, at + got,
                             "the file ended at byte %llu, before byte %llu",
                             (unsigned long long)(at + got), (unsigned long long)(at + rest));
    if (rc != 0) {
        gguf__http_transfer_stop(h);
        return rc;
    }
    /* the range is complete: its connection goes back to the pool */
    if (h->active && h->done && h->stash_len == 0)
        gguf__http_transfer_stop(h);
    if (!streamed)
        gguf__http_cache_put(h, buf + done, rest, at);
    h->last_end = off + len;
    if (h->progress != NULL && h->fetched != h->progress_at) {
        h->progress_at = h->fetched;
        h->progress(h->progress_user, h->fetched, s->size);
    }
    return 0;
}

static void http_will_read(gguf__source *s, uint64_t off, uint64_t len, bool certain) {
    http *h = s->impl;
    h->hint_start = off;
    h->hint_end = off + len <= s->size ? off + len : s->size;
    h->hint_certain = certain;
}

static void http_close(gguf__source *s) {
    http *h = s->impl;
    if (h == NULL)
        return;
    gguf__http_transfer_stop(h);
    if (h->easy != NULL)
        gguf__curl->easy_cleanup(h->easy);
    if (h->multi != NULL)
        gguf__curl->multi_cleanup(h->multi);
    gguf__curl->slist_free_all(h->headers);
    gguf__curl->slist_free_all(h->cond);
    gguf__curl->slist_free_all(h->cond_bare);
    gguf__free(h->direct);
    gguf__free(h->url);
    for (size_t i = 0; i < h->n_segs; i++)
        gguf__free(h->segs[i].bytes);
    gguf__free(h->segs);
    gguf__free(h->stash);
    gguf__free(h->whole_buf);
    gguf__free(h);
}

static const gguf__source_ops http_ops = {
    .read = http_read, .close = http_close, .will_read = http_will_read};

/* A source for url, its options set, no request made yet. */
int gguf__http_new(gguf__source **out, http **out_h, const char *url,
                   const gguf_open_options *opt, gguf_error *err) {
    if (opt->offline)
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "offline: a URL is not fetched");
    int loaded = gguf__curl_load(err); /* before any call through gguf__curl */
    if (loaded != 0)
        return loaded;
    char *to = gguf__source_url_of(url, err);
    if (to == NULL)
        return err != NULL ? err->code : GGUF_EINVAL;
    gguf__source *s = gguf__calloc(1, sizeof *s);
    http *h = gguf__calloc(1, sizeof *h);
    char *name = gguf__strdup(url);
    if (s == NULL || h == NULL || name == NULL) {
        gguf__free(s);
        gguf__free(h);
        gguf__free(name);
        gguf__free(to);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    *s = (gguf__source){.ops = &http_ops, .kind = GGUF__SOURCE_HTTP, .name = name, .fd = -1,
                        .impl = h};
    *h = (http){
        .src = s,
        .url = to, /* the name's URL: the name itself, or an hf:// name's on the Hub */
        .timeout_s = opt->timeout_s ? opt->timeout_s : TIMEOUT_S,
        .deadline_s = opt->deadline_s ? opt->deadline_s : DEADLINE_S,
        .retries = opt->retries == 0 ? RETRIES : opt->retries < 0 ? 0 : opt->retries,
        .retry_delay_ms = opt->retry_delay_ms ? opt->retry_delay_ms : RETRY_DELAY_MS,
        .whole_limit = opt->whole_limit ? opt->whole_limit : WHOLE_LIMIT,
        .progress = opt->progress,
        .progress_user = opt->progress_user,
    };
    int rc = gguf__http_add_headers(h, opt->headers, err);
    if (rc == 0 && ((h->multi = gguf__curl->multi_init()) == NULL || (h->easy = gguf__curl->easy_init()) == NULL))
        rc = gguf__http_fail(h, err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "libcurl: out of memory");
    if (rc == 0)
        rc = gguf__http_setup_easy(h, err);
    if (rc != 0) {
        gguf__source_free(s);
        return rc;
    }
    *out = s;
    *out_h = h;
    return 0;
}

/* The first answer is in (got bytes from 0 in first): the size is known; the bytes are kept. */
int gguf__http_first_done(http *h, const uint8_t *first, size_t got, gguf_error *err) {
    gguf__source *s = h->src;
    if (h->whole) {
        /* the server ignores Range and sent the whole file (at most whole_limit bytes) */
        s->size = h->whole_len;
        s->mem = h->whole_buf != NULL ? h->whole_buf : (const uint8_t *)"";
        h->size_known = true;
        /* what the server said of it, as for a range (a catalog asks again conditionally) */
        s->etag = gguf__http_header_dup(h->resp.etag);
        s->last_modified = gguf__http_header_dup(h->resp.last_modified);
        return 0;
    }
    gguf__http_cache_put(h, first, got, 0);
    s->first_read = got;
    s->read_ahead = READ_AHEAD;
    h->last_end = got;
    if (got < s->size && got < FIRST_REQUEST)
        return gguf__http_fail(h, err, GGUF_EIO, got,
                               "the first answer ended at byte %llu of %llu",
                               (unsigned long long)got, (unsigned long long)s->size);
    return 0;
}

int gguf__source_open_url(gguf__source **out, const char *url, const gguf_open_options *opt,
                          gguf_error *err) {
    gguf_open_options none = GGUF_OPEN_OPTIONS_INIT;
    gguf__source *s;
    http *h;
    int rc = gguf__http_new(&s, &h, url, opt != NULL ? opt : &none, err);
    if (rc != 0)
        return rc;
    uint8_t *first = gguf__malloc(FIRST_REQUEST);
    if (first == NULL)
        rc = gguf__http_fail(h, err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    size_t got = 0;
    gguf__http_read_begin(h);
    gguf__http_request_begin(h);
    if (rc == 0)
        rc = gguf__http_transfer_start(h, 0, FIRST_REQUEST, err);
    if (rc == 0)
        rc = pull(h, first, FIRST_REQUEST, &got, err);
    if (rc == 0)
        rc = gguf__http_first_done(h, first, got, err);
    gguf__free(first);
    gguf__http_transfer_stop(h);
    if (rc != 0) {
        gguf__source_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

#endif /* GGUF_HAVE_CURL */
