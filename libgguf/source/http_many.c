/* Many URLs at once, for a catalog of a hub's files. One libcurl multi handle drives up to
 * max_conns transfers. Each item goes through the same steps as one open of http.c: the first
 * request, then the ranges its consumer asks for, each into a buffer of exactly its size; a
 * failure worth retrying waits (without blocking the others) and resumes where the bytes
 * stopped. Without libcurl every item fails as gguf__source_open_url does. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h" /* GGUF_HAVE_CURL; the fuzz build compiles without it (no libcurl) */
#endif
#include "source/source.h"

#ifndef GGUF_HAVE_CURL

int gguf__source_fetch_many(const gguf__fetch *items, size_t n, const gguf_open_options *opt,
                            unsigned max_conns, gguf__fetch_more_fn more,
                            gguf__fetch_done_fn done, void *user, gguf_error *err) {
    (void)opt;
    (void)max_conns;
    (void)more;
    (void)err;
    for (size_t i = 0; i < n; i++) {
        gguf_error e;
        gguf_error_clear(&e);
        gguf__source_open_url(NULL, items[i].url, NULL, &e);
        gguf__fail_path(&e, items[i].url);
        done(user, i, NULL, false, &e);
    }
    return 0;
}

#else /* GGUF_HAVE_CURL */

#include "source/http.h"

#include <stdio.h>
#include <string.h>

typedef struct slot {
    gguf__source *src;
    http *h;
    uint8_t *buf;
    double retry_at; /* monotonic seconds; 0 while a transfer runs */
    bool first;
} slot;

/* Starts the range [from, to) of slot k into a fresh buffer. */
static int slot_fetch(slot *k, uint64_t from, uint64_t to, gguf_error *err) {
    http *h = k->h;
    uint8_t *b = gguf__realloc(k->buf, (size_t)(to - from));
    if (b == NULL)
        return gguf__http_fail(h, err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    k->buf = b;
    h->dst = b;
    h->dst_len = 0;
    h->dst_cap = (size_t)(to - from);
    gguf__http_read_begin(h);
    gguf__http_request_begin(h);
    return gguf__http_transfer_start(h, from, to, err);
}

/* Appends "name: value" (name NULL: value is the whole line) to *list; false when memory ran
 * out (the list is left as it was). */
static bool append_header(struct curl_slist **list, const char *name, const char *value) {
    size_t n = (name != NULL ? strlen(name) + 2 : 0) + strlen(value) + 1;
    char *line = gguf__malloc(n);
    if (line == NULL)
        return false;
    snprintf(line, n, "%s%s%s", name != NULL ? name : "", name != NULL ? ": " : "", value);
    struct curl_slist *r = gguf__curl->slist_append(*list, line);
    gguf__free(line);
    if (r != NULL)
        *list = r;
    return r != NULL;
}

static int slot_open(slot *k, const gguf__fetch *item, const gguf_open_options *opt,
                     CURLM *batch, size_t index, gguf_error *err) {
    gguf_open_options o = *opt;
    o.progress = NULL; /* a batch reports per item, through its callbacks */
    int rc = gguf__http_new(&k->src, &k->h, item->url, &o, err);
    if (rc != 0)
        return rc;
    http *h = k->h;
    h->batch = batch;
    h->batch_index = index;
    if ((item->etag != NULL && item->etag[0]) ||
        (item->last_modified != NULL && item->last_modified[0])) {
        bool ok = true;
        for (struct curl_slist *l = h->headers; ok && l != NULL; l = l->next)
            ok = append_header(&h->cond, NULL, l->data);
        const char *name = item->etag != NULL && item->etag[0] ? "If-None-Match"
                                                               : "If-Modified-Since";
        const char *value = item->etag != NULL && item->etag[0] ? item->etag
                                                                : item->last_modified;
        ok = ok && append_header(&h->cond, name, value) &&
             append_header(&h->cond_bare, name, value);
        if (!ok)
            return gguf__http_fail(h, err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    k->first = true;
    return slot_fetch(k, 0, FIRST_REQUEST, err);
}

static void slot_release(slot *k) {
    if (k->h != NULL) {
        gguf__http_transfer_stop(k->h);
        k->h->batch = NULL;
        k->h->dst = NULL;
        k->h->dst_len = k->h->dst_cap = 0;
    }
    gguf__free(k->buf);
    k->buf = NULL;
}

/* Slot k's transfer ended: retry it, ask the consumer for more, or finish the item. Returns
 * true when the item is finished (done called). */
static bool slot_ended(slot *k, size_t i, gguf__fetch_more_fn more, gguf__fetch_done_fn done,
                       void *user) {
    http *h = k->h;
    gguf_error why;
    int outcome = gguf__http_transfer_outcome(h, &why);
    uint64_t start = h->start;
    size_t got = h->dst_len;
    if (outcome == 2 && (outcome = gguf__http_transfer_start(h, h->net, h->end, &why)) == 0)
        return false; /* a redirect: asked there at once */
    if (outcome == 1) {
        h->attempts++;
        double at = gguf__http_now() + gguf__http_retry_delay(h, h->attempts) / 1000.0;
        if (h->attempts <= h->retries && at < h->deadline) {
            gguf__http_transfer_stop(h);
            h->hops = 0;
            k->retry_at = at;
            return false;
        }
        if (h->attempts <= h->retries) {
            gguf_error last = why;
            gguf_error_clear(&why);
            gguf__http_fail_deadline(h, &last, &why);
        } else {
            size_t n = strlen(why.message);
            snprintf(why.message + n, sizeof why.message - n, " (after %d attempt%s)",
                     h->retries + 1, h->retries == 0 ? "" : "s");
        }
    }
    if (outcome != 0) {
        gguf__fail_path(&why, h->url);
        slot_release(k);
        gguf__source_free(k->src);
        k->src = NULL;
        k->h = NULL;
        done(user, i, NULL, false, &why);
        return true;
    }
    gguf__http_transfer_stop(h);
    gguf_error_clear(&why);
    int rc = 0;
    uint64_t have = start + got, next = 0;
    if (h->not_modified) {
        slot_release(k);
        gguf__source_free(k->src);
        k->src = NULL;
        k->h = NULL;
        done(user, i, NULL, true, NULL);
        return true;
    }
    if (k->first) {
        k->first = false;
        rc = gguf__http_first_done(h, k->buf, got, &why);
        have = got;
    } else {
        gguf__http_cache_put(h, k->buf, got, start);
    }
    if (rc == 0 && !h->whole)
        rc = more(user, i, k->src, have, &next, &why);
    if (rc == 0 && next > have)
        rc = slot_fetch(k, have, next, &why);
    if (rc == 0 && next > have)
        return false; /* the next range is on its way */
    if (rc != 0)
        gguf__fail_path(&why, h->url);
    slot_release(k);
    gguf__source *src = k->src;
    k->src = NULL;
    k->h = NULL;
    if (rc != 0) {
        gguf__source_free(src);
        src = NULL;
    }
    done(user, i, src, false, rc != 0 ? &why : NULL);
    return true;
}

int gguf__source_fetch_many(const gguf__fetch *items, size_t n, const gguf_open_options *opt,
                            unsigned max_conns, gguf__fetch_more_fn more,
                            gguf__fetch_done_fn done, void *user, gguf_error *err) {
    gguf_open_options none = GGUF_OPEN_OPTIONS_INIT;
    if (opt == NULL)
        opt = &none;
    if (max_conns == 0)
        max_conns = 1;
    if (n == 0)
        return 0;
    int loaded = gguf__curl_load(err); /* before any call through gguf__curl */
    if (loaded != 0)
        return loaded;
    CURLM *m = gguf__curl->multi_init();
    slot *slots = gguf__calloc(n, sizeof *slots);
    if (m == NULL || slots == NULL) {
        if (m != NULL)
            gguf__curl->multi_cleanup(m);
        gguf__free(slots);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    gguf__curl->multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)max_conns);
    size_t next_item = 0, running = 0, finished = 0;
    int rc = 0;
    while (rc == 0 && finished < n) {
        bool busy = false; /* something changed: run libcurl again before waiting */
        while (running < max_conns && next_item < n) {
            busy = true;
            size_t i = next_item++;
            gguf_error e;
            gguf_error_clear(&e);
            if (slot_open(&slots[i], &items[i], opt, m, i, &e) != 0) {
                gguf__fail_path(&e, items[i].url);
                if (slots[i].src != NULL) {
                    slot_release(&slots[i]);
                    gguf__source_free(slots[i].src);
                    slots[i] = (slot){0};
                }
                done(user, i, NULL, false, &e);
                finished++;
            } else {
                running++;
            }
        }
        double now = gguf__http_now(), wake = now + 1.0;
        for (size_t i = 0; i < next_item; i++) {
            slot *k = &slots[i];
            if (k->h != NULL && k->retry_at == 0 && now >= k->h->deadline) {
                gguf_error e;
                gguf_error_clear(&e);
                gguf__http_fail_deadline(k->h, NULL, &e);
                slot_release(k);
                gguf__source_free(k->src);
                *k = (slot){0};
                done(user, i, NULL, false, &e);
                finished++;
                running--;
                busy = true;
                continue;
            }
            if (k->h != NULL && k->h->deadline < wake)
                wake = k->h->deadline;
            if (k->h == NULL || k->retry_at == 0)
                continue;
            if (k->retry_at > now) {
                if (k->retry_at < wake)
                    wake = k->retry_at;
                continue;
            }
            k->retry_at = 0;
            busy = true;
            gguf_error e;
            gguf_error_clear(&e);
            /* resume at the first byte not received, into the same buffer */
            if (gguf__http_transfer_start(k->h, k->h->net, k->h->end, &e) != 0) {
                slot_release(k);
                gguf__source_free(k->src);
                *k = (slot){0};
                done(user, i, NULL, false, &e);
                finished++;
                running--;
            }
        }
        int still = 0;
        CURLMcode mc = gguf__curl->multi_perform(m, &still);
        if (mc != CURLM_OK) {
            rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "libcurl failed: %s",
                            gguf__curl->multi_strerror(mc));
            break;
        }
        CURLMsg *msg;
        int queued;
        while ((msg = gguf__curl->multi_info_read(m, &queued)) != NULL) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            http *h = NULL;
            gguf__curl->easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&h);
            if (h == NULL)
                continue;
            size_t i = h->batch_index;
            h->done = true;
            h->result = msg->data.result;
            busy = true;
            if (slot_ended(&slots[i], i, more, done, user)) {
                finished++;
                running--;
            }
        }
        if (finished < n && !busy) {
            int ms = (int)((wake - gguf__http_now()) * 1000.0);
            mc = gguf__curl->multi_poll(m, NULL, 0, ms < 1 ? 1 : ms > 1000 ? 1000 : ms, NULL);
            if (mc != CURLM_OK)
                rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "libcurl failed: %s",
                                gguf__curl->multi_strerror(mc));
        }
    }
    for (size_t i = 0; i < n; i++) { /* only after a failure of the batch itself */
        if (slots[i].src != NULL) {
            slot_release(&slots[i]);
            gguf__source_free(slots[i].src);
        }
    }
    gguf__free(slots);
    gguf__curl->multi_cleanup(m);
    return rc;
}

#endif /* GGUF_HAVE_CURL */
