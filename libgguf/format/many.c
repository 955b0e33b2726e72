/* Opening many files at once: URLs through one batch of the source layer
 * (gguf__source_fetch_many: bounded parallel transfers over one connection pool), each header
 * parsed step by step as its bytes arrive, exactly as one open reads it (gguf__open_step), so
 * a thousand remote headers cost a thousand small exchanges in parallel, not a thread each.
 * gguf_file_open_many sorts its names once, the URLs to that batch and the local paths opened
 * one after the other. */
#include "format/format.h"

#include <string.h>

#define DEFAULT_PARALLEL 16u

typedef struct many {
    gguf_file **files;   /* per batch item: the file being read, NULL before its first bytes */
    /* per batch item: what the server said of a file the reader refused (kept from its source,
     * which the batch frees), when said_kept[k] */
    gguf__fetch_said *said;
    bool *said_kept;
    unsigned flags;
    gguf__open_many_fn done;
    void *user;
} many;

static void said_free(gguf__fetch_said *said) {
    gguf__free((char *)said->etag);
    gguf__free((char *)said->last_modified);
    *said = (gguf__fetch_said){0};
}

/* Keeps what the server said of item k's file (strings NULL when memory runs out: it is only a
 * hint). */
static void keep_said(many *m, size_t k, const gguf__source *src) {
    gguf__fetch_said *said = &m->said[k];
    said_free(said);
    m->said_kept[k] = true;
    said->size = src->size;
    said->etag = src->etag != NULL ? gguf__strdup(src->etag) : NULL;
    said->last_modified = src->last_modified != NULL ? gguf__strdup(src->last_modified) : NULL;
}

/* What the server said of item k's file, or NULL when nothing is kept. */
static const gguf__fetch_said *said_of(const many *m, size_t k) {
    return m->said_kept[k] ? &m->said[k] : NULL;
}

static int on_more(void *user, size_t k, gguf__source *src, uint64_t have, uint64_t *next,
                   gguf_error *err) {
    many *m = user;
    gguf_file *f = m->files[k];
    if (f == NULL) {
        if ((f = gguf__file_new(m->flags)) == NULL)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        f->src = src; /* borrowed until the batch hands the source over in on_done */
        f->size = src->size;
        m->files[k] = f;
    }
    int rc = gguf__open_step(f, have, next, err);
    if (rc == 1)
        return 0; /* *next: the bytes it needs */
    *next = 0;
    if (rc != 0)
        keep_said(m, k, src);
    return rc;
}

static void on_done(void *user, size_t k, gguf__source *src, bool unchanged,
                    const gguf_error *err) {
    many *m = user;
    gguf_file *f = m->files[k];
    m->files[k] = NULL;
    if (src == NULL) {
        if (f != NULL) {
            f->src = NULL; /* the batch has freed it */
            gguf_file_free(f);
        }
        m->done(m->user, k, NULL, unchanged, err, said_of(m, k));
        return;
    }
    gguf_error e;
    gguf_error_clear(&e);
    if (f == NULL) { /* the whole file came at once (a server ignoring Range), or it is empty */
        keep_said(m, k, src);
        if (gguf__open_source(&f, src, m->flags, &e) != 0)
            f = NULL;
    }
    if (f != NULL) {
        gguf__fetch_said said = {f->src->size, f->src->etag, f->src->last_modified};
        m->done(m->user, k, f, false, NULL, &said);
    } else {
        m->done(m->user, k, NULL, false, &e, said_of(m, k));
    }
}

int gguf__open_many(const gguf__fetch *items, size_t n, const gguf_open_options *opt,
                    unsigned max_parallel, gguf__open_many_fn done, void *user,
                    gguf_error *err) {
    gguf_open_options none = GGUF_OPEN_OPTIONS_INIT;
    if (opt == NULL)
        opt = &none;
    if (n == 0)
        return 0;
    if (items == NULL || done == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to open");
    gguf_file **files = gguf__calloc(n, sizeof *files);
    gguf__fetch_said *said = gguf__calloc(n, sizeof *said);
    bool *kept = gguf__calloc(n, sizeof *kept);
    if (files == NULL || said == NULL || kept == NULL) {
        gguf__free(files);
        gguf__free(said);
        gguf__free(kept);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    many m = {.files = files, .said = said, .said_kept = kept, .flags = opt->flags,
              .done = done, .user = user};
    int rc = gguf__source_fetch_many(items, n, opt, max_parallel ? max_parallel : DEFAULT_PARALLEL,
                                     on_more, on_done, &m, err);
    for (size_t k = 0; k < n; k++) {
        if (files[k] != NULL) { /* after a failure of the batch itself */
            files[k]->src = NULL;
            gguf_file_free(files[k]);
        }
        said_free(&said[k]);
    }
    gguf__free(files);
    gguf__free(said);
    gguf__free(kept);
    return rc;
}

/* ---- the public form ---- */

typedef struct public_many {
    const size_t *index; /* the batch's item k is the caller's path index[k] */
    gguf_open_many_fn done;
    void *user;
} public_many;

static void public_done(void *user, size_t k, gguf_file *f, bool unchanged,
                        const gguf_error *err, const gguf__fetch_said *said) {
    (void)unchanged; /* no validators were given */
    (void)said;
    const public_many *p = user;
    p->done(p->user, p->index[k], f, err);
}

int gguf_file_open_many(const char *const *paths, size_t n, const gguf_open_options *opt,
                        unsigned max_parallel, gguf_open_many_fn done, void *user,
                        gguf_error *err) {
    if (n > 0 && (paths == NULL || done == NULL))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to open");
    for (size_t i = 0; i < n; i++) {
        if (paths[i] == NULL)
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "path %zu is NULL", i);
    }
    gguf_open_options o;
    int rc = GGUF__OPTIONS_READ(o, gguf_open_options, GGUF_OPEN_OPTIONS_INIT, opt, err);
    if (rc != 0)
        return rc;
    gguf__fetch *urls = gguf__calloc(n ? n : 1, sizeof *urls);
    size_t *index = gguf__calloc(n ? n : 1, sizeof *index);
    if (urls == NULL || index == NULL) {
        gguf__free(urls);
        gguf__free(index);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    /* local paths one by one; the URLs to one batch */
    size_t n_urls = 0;
    for (size_t i = 0; i < n; i++) {
        enum gguf__name_kind kind = gguf__source_name_kind(paths[i]);
        if (kind == GGUF__NAME_URL) {
            urls[n_urls].url = paths[i];
            index[n_urls++] = i;
            continue;
        }
        gguf_file *f = NULL;
        gguf_error e;
        gguf_error_clear(&e);
        if (gguf__file_open_as(&f, kind, paths[i], &o, &e) != 0)
            f = NULL;
        done(user, i, f, f != NULL ? NULL : &e);
    }
    public_many p = {index, done, user};
    rc = gguf__open_many(urls, n_urls, &o, max_parallel, public_done, &p, err);
    gguf__free(urls);
    gguf__free(index);
    return rc;
}
