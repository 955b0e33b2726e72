/* URLs in an index run. They are fetched in parallel by gguf__open_many (one libcurl multi
 * handle, at most `jobs` transfers at a time), each header parsed as its bytes arrive and
 * stored as it finishes, so that memory holds the headers in flight, not all of them. A URL
 * stored with an ETag or Last-Modified is asked for with one conditional request: 304 Not
 * Modified ends it at once (unchanged, its header not read again); anything else is the file,
 * read and stored as new. A URL that fails is stored in errors with the message naming the URL
 * and the HTTP status.
 *
 * A shard URL brings the URLs of its siblings (the same URL with the shard number changed):
 * the set is one model, checked as a local one (sets.c). A sibling the server does not have
 * (404) is a missing shard. When some shard of a set changed, the shards that answered 304 are
 * fetched again (their headers are needed to check the set); when none did, nothing more is
 * asked. With the offline option nothing is fetched: every URL is skipped, its rows kept. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifdef GGUF_HAVE_CATALOG

#include <string.h>

enum { ITEM_PENDING, ITEM_UNCHANGED, ITEM_OPENED, ITEM_MISSING, ITEM_FAILED };

typedef struct item {
    char *url;
    int given;      /* named by the caller (not only a sibling) */
    int set;        /* its split set (index in sets), or -1 */
    int known;      /* the catalog has rows for it */
    int state;
    char *etag, *last_modified; /* the validators sent, or NULL */
    gguf_file *f;   /* a set's shard, kept for the set's check */
    gguf_error fe;  /* a set's shard that failed: why */
} item;

typedef struct url_set {
    char *model;
    uint32_t count;
    size_t *shards; /* the items of its shards, in order */
} url_set;

typedef struct remote {
    gguf__indexer *x;
    item *items;
    size_t n, cap;
    url_set *sets;
    size_t n_sets;
    gguf__hashset by_url;
    size_t *batch;  /* the items of the current batch */
    int refetch;    /* the batch fetches shards that answered 304, for their set's check */
    int rc;         /* the catalog's own failure in a callback */
    gguf_error *err;
} remote;

static const void *item_url(const void *ctx, size_t i, size_t *n) {
    const remote *r = ctx;
    *n = strlen(r->items[i].url);
    return r->items[i].url;
}

static int64_t find_item(const remote *r, const char *url) {
    return gguf__hashset_find(&r->by_url, url, strlen(url), item_url, r);
}

/* The item for url, added when new; given and set (when >= 0) are noted on it. -1: out of
 * memory. */
static int64_t add_item(remote *r, const char *url, int given, int set) {
    int64_t at = find_item(r, url);
    if (at < 0) {
        if (r->n == r->cap) {
            size_t cap = r->cap ? r->cap * 2 : 64;
            item *p = cap < UINT32_MAX ? gguf__realloc(r->items, cap * sizeof *p) : NULL;
            if (p == NULL)
                return -1;
            r->items = p;
            r->cap = cap;
        }
        item *it = &r->items[r->n];
        memset(it, 0, sizeof *it);
        it->set = -1;
        if ((it->url = gguf__strdup(url)) == NULL)
            return -1;
        if (gguf__hashset_insert(&r->by_url, (uint32_t)r->n, item_url, r) == -2) {
            gguf__free(it->url);
            return -1;
        }
        at = (int64_t)r->n++;
    }
    r->items[at].given |= given;
    if (set >= 0)
        r->items[at].set = set;
    return at;
}

/* A new set: the shards of the one the URL the caller named is a shard of, count of them. */
static int add_set(remote *r, const char *given, uint32_t count) {
    url_set *p = gguf__realloc(r->sets, (r->n_sets + 1) * sizeof *p);
    if (p == NULL)
        return GGUF_ENOMEM;
    r->sets = p;
    url_set *s = &r->sets[r->n_sets];
    *s = (url_set){.model = gguf__catalog_shard_path(given, 0), .count = count,
                   .shards = gguf__malloc(count * sizeof *s->shards)};
    int set = (int)r->n_sets++;
    int rc = s->model == NULL || s->shards == NULL ? GGUF_ENOMEM : 0;
    for (uint32_t k = 0; rc == 0 && k < count; k++) {
        char *name = gguf__catalog_shard_path(given, k);
        int64_t at = name != NULL ? add_item(r, name, strcmp(name, given) == 0, set) : -1;
        gguf__free(name);
        if (at < 0)
            rc = GGUF_ENOMEM;
        else
            s->shards[k] = (size_t)at;
    }
    if (rc != 0)
        s->count = 0; /* its shards are not all there: not a set to check */
    return rc;
}

/* A URL the caller named: itself, or (a shard's) every shard of its set. */
static int add_argument(remote *r, const char *url) {
    uint32_t count;
    if (!gguf_split_parse_name(NULL, NULL, &count, url) || count < 2)
        return add_item(r, url, 1, -1) < 0 ? GGUF_ENOMEM : 0;
    int64_t at = find_item(r, url);
    if (at >= 0 && r->items[at].set >= 0) { /* its set is in already */
        r->items[at].given = 1;
        return 0;
    }
    return add_set(r, url, count);
}

/* The validators of a URL stored before, or refused by the reader (none with FORCE, when
 * crc32s are asked for and not stored, or for a URL that could not be fetched: it is asked for
 * whole). */
static int validators(remote *r, item *it) {
    gguf__indexer *x = r->x;
    gguf__known *k = gguf__known_find(&x->known, it->url);
    it->known = k != NULL;
    int want_crc = (x->opt.flags & GGUF_CATALOG_CRC) != 0;
    if (k == NULL || (k->is_error && k->retry) || (x->opt.flags & GGUF_CATALOG_FORCE) ||
        (want_crc && !k->is_error && !k->has_crc))
        return 0;
    gguf__stmt *st;
    int rc = gguf__catalog_stmt(&st, x->cat, GGUF__ST_FILE_VALIDATORS, r->err);
    if (rc != 0)
        return rc;
    gguf__bind_text(st, 1, it->url, -1);
    if (gguf__step(st) == SQLITE_ROW) {
        const char *etag = (const char *)gguf__col_text(st, 0);
        const char *lm = (const char *)gguf__col_text(st, 1);
        if (etag != NULL && (it->etag = gguf__strdup(etag)) == NULL)
            rc = GGUF_ENOMEM;
        if (lm != NULL && (it->last_modified = gguf__strdup(lm)) == NULL)
            rc = GGUF_ENOMEM;
    }
    gguf__reset(st);
    return rc != 0 ? gguf__fail(r->err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory") : 0;
}

static void on_done(void *user, size_t b, gguf_file *f, bool unchanged, const gguf_error *e,
                    const gguf__fetch_said *said) {
    remote *r = user;
    gguf__indexer *x = r->x;
    item *it = &r->items[r->batch[b]];
    int member = it->set >= 0;
    if (r->rc != 0) { /* the catalog failed: the rest of the batch is dropped */
        gguf_file_free(f);
        return;
    }
    if (unchanged) {
        it->state = ITEM_UNCHANGED;
        if (!member)
            gguf__index_unchanged_seen(x, it->url);
        return;
    }
    gguf__file_id id = {.size = -1}; /* what the server said of it */
    if (said != NULL) {
        id = (gguf__file_id){.size = said->size <= INT64_MAX ? (int64_t)said->size : -1,
                             .etag = said->etag, .last_modified = said->last_modified,
                             .mtime_ns = gguf__catalog_http_time_ns(said->last_modified)};
    }
    if (f != NULL) {
        it->state = ITEM_OPENED;
        if (r->refetch) /* as stored: read for its set's check only */
            gguf__index_unchanged_seen(x, it->url);
        else
            r->rc = gguf__index_store(x, it->url, &id, f, NULL, GGUF_JOURNAL_NONE, r->err);
        if (member) {
            it->f = f;
            return;
        }
        if (r->rc == 0)
            r->rc = gguf__index_lone_shard(x, it->url, f, r->err);
        gguf_file_free(f);
        return;
    }
    /* a sibling the server has not: a missing shard, not a file's error (its rows, if it had
     * some, go: the set's rows are what this run found) */
    if (member && e->code == GGUF_ENOTFOUND && !it->given) {
        it->state = ITEM_MISSING;
        if (it->known)
            r->rc = gguf__store_forget(x->cat, it->url, r->err);
        return;
    }
    it->state = ITEM_FAILED;
    if (member) {
        it->fe = *e;
        if (e->code == GGUF_ENOTFOUND)
            it->fe.code = 0; /* missing, for the set's check */
    }
    if (r->refetch) /* refused as stored: read for its set's check only */
        gguf__index_unchanged_seen(x, it->url);
    else
        r->rc = gguf__index_store(x, it->url, said != NULL ? &id : NULL, NULL, e,
                                  GGUF_JOURNAL_NONE, r->err);
}

/* Fetches the items batch[0..n) (with their validators unless refetch). */
static int fetch(remote *r, size_t n, int refetch) {
    gguf__indexer *x = r->x;
    if (n == 0)
        return 0;
    gguf__fetch *items = gguf__calloc(n, sizeof *items);
    if (items == NULL)
        return gguf__fail(r->err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    for (size_t b = 0; b < n; b++) {
        const item *it = &r->items[r->batch[b]];
        items[b].url = it->url;
        if (!refetch) {
            items[b].etag = it->etag;
            items[b].last_modified = it->last_modified;
        }
    }
    gguf_open_options o = GGUF_OPEN_OPTIONS_INIT;
    if (x->cat->url != NULL)
        o = *x->cat->url;
    /* a URL cut short inside its tensor data is catalogued partial, as a local file is (a whole
     * file opens the same either way; a file cut inside its header is refused either way) */
    o.flags = gguf__index_open_flags(x) | GGUF_OPEN_PARTIAL;
    o.progress = NULL;
    o.progress_user = NULL;
    r->refetch = refetch;
    int rc = gguf__open_many(items, n, &o, x->opt.jobs, on_done, r, r->err);
    gguf__free(items);
    return rc != 0 ? rc : r->rc;
}

/* A set whose every shard answered 304 (or is missing still) needs nothing more. */
static int set_unchanged(const remote *r, const url_set *s) {
    gguf__known *se = gguf__known_find(&r->x->set_errors, s->model);
    if (se != NULL && se->is_error && se->retry)
        return 0;
    for (uint32_t k = 0; k < s->count; k++) {
        const item *it = &r->items[s->shards[k]];
        if (it->state != ITEM_UNCHANGED && !(it->state == ITEM_MISSING && !it->known))
            return 0;
    }
    return 1;
}

static int finish_sets(remote *r) {
    gguf__indexer *x = r->x;
    size_t n = 0;
    for (size_t i = 0; i < r->n_sets; i++) {
        url_set *s = &r->sets[i];
        if (set_unchanged(r, s)) {
            for (uint32_t k = 0; k < s->count; k++) {
                if (r->items[s->shards[k]].state == ITEM_UNCHANGED)
                    gguf__index_unchanged_seen(x, r->items[s->shards[k]].url);
            }
            s->count = 0; /* done */
            continue;
        }
        for (uint32_t k = 0; k < s->count; k++) {
            if (r->items[s->shards[k]].state == ITEM_UNCHANGED)
                r->batch[n++] = s->shards[k];
        }
    }
    int rc = fetch(r, n, 1);
    for (size_t i = 0; rc == 0 && i < r->n_sets; i++) {
        url_set *s = &r->sets[i];
        if (s->count == 0)
            continue;
        char **paths = gguf__malloc(s->count * sizeof *paths);
        gguf_file **files = gguf__malloc(s->count * sizeof *files);
        gguf_error *errs = gguf__calloc(s->count, sizeof *errs);
        if (paths == NULL || files == NULL || errs == NULL) {
            rc = gguf__fail(r->err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        } else {
            for (uint32_t k = 0; k < s->count; k++) {
                item *it = &r->items[s->shards[k]];
                paths[k] = it->url;
                files[k] = it->f;
                errs[k] = it->fe;
                it->f = NULL; /* the verdict takes it */
            }
            rc = gguf__index_set_verdict(x, s->model, paths, files, errs, s->count, r->err);
        }
        gguf__free(paths);
        gguf__free(files);
        gguf__free(errs);
    }
    return rc;
}

int gguf__index_urls(gguf__indexer *x, char *const *urls, size_t n, gguf_error *err) {
    remote r = {.x = x, .err = err};
    int rc = gguf__hashset_init(&r.by_url, n) != 0 ? GGUF_ENOMEM : 0;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = add_argument(&r, urls[i]);
    if (rc != 0)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    if (rc == 0 && (r.batch = gguf__malloc((r.n ? r.n : 1) * sizeof *r.batch)) == NULL)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    int offline = x->cat->url != NULL && x->cat->url->offline;
    size_t n_batch = 0;
    for (size_t i = 0; rc == 0 && i < r.n; i++) {
        if (offline) { /* never touched: the rows stay */
            x->stats.skipped++;
            gguf__index_emit(x, GGUF_CATALOG_EV_SKIPPED, r.items[i].url, NULL);
            continue;
        }
        rc = validators(&r, &r.items[i]);
        r.batch[n_batch++] = i;
    }
    if (rc == 0 && !offline)
        rc = fetch(&r, n_batch, 0);
    if (rc == 0 && !offline)
        rc = finish_sets(&r);
    for (size_t i = 0; i < r.n; i++) {
        gguf__free(r.items[i].url);
        gguf__free(r.items[i].etag);
        gguf__free(r.items[i].last_modified);
        gguf_file_free(r.items[i].f);
    }
    for (size_t i = 0; i < r.n_sets; i++) {
        gguf__free(r.sets[i].model);
        gguf__free(r.sets[i].shards);
    }
    gguf__free(r.items);
    gguf__free(r.sets);
    gguf__free(r.batch);
    gguf__hashset_free(&r.by_url);
    return rc;
}

#endif /* GGUF_HAVE_CATALOG */
