/* Opening many files at once: the URLs among them through one batch of the source layer
 * (gguf__source_fetch_many: bounded parallel transfers over one connection pool), each header
 * parsed step by step as its bytes arrive, exactly as one open reads it (gguf__open_step), so
 * a thousand remote headers cost a thousand small exchanges in parallel, not a thread each;
 * local paths one after the other. */
#include "format/format.h"

#include <string.h>

#define DEFAULT_PARALLEL 16u

typedef struct many {
    const size_t *index; /* the batch's item k is the caller's item index[k] */
    gguf_file **files;   /* per batch item: the file being read, NULL before its first bytes */
    unsigned flags;
    gguf__open_many_fn done;
    void *user;
} many;

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
        m->done(m->user, m->index[k], NULL, unchanged, err);
        return;
    }
    gguf_error e;
    gguf_error_clear(&e);
    if (f == NULL && gguf__open_source(&f, src, m->flags, &e) != 0)
        f = NULL; /* the whole file came at once (a server ignoring Range), or it is empty */
    m->done(m->user, m->index[k], f, false, f != NULL ? NULL : &e);
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
    size_t n_urls = 0;
    for (size_t i = 0; i < n; i++)
        n_urls += gguf__source_is_url(items[i].url);
    gguf__fetch *urls = gguf__malloc((n_urls ? n_urls : 1) * sizeof *urls);
    size_t *index = gguf__malloc((n_urls ? n_urls : 1) * sizeof *index);
    gguf_file **files = gguf__calloc(n_urls ? n_urls : 1, sizeof *files);
    if (urls == NULL || index == NULL || files == NULL) {
        gguf__free(urls);
        gguf__free(index);
        gguf__free(files);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    /* local paths one by one; the URLs to one batch */
    for (size_t i = 0, k = 0; i < n; i++) {
        if (gguf__source_is_url(items[i].url)) {
            urls[k] = items[i];
            index[k++] = i;
            continue;
        }
        gguf_file *f = NULL;
        gguf_error e;
        gguf_error_clear(&e);
        if (gguf_file_open_ex(&f, items[i].url, opt, &e) != 0)
            f = NULL;
        done(user, i, f, false, f != NULL ? NULL : &e);
    }
    many m = {.index = index, .files = files, .flags = opt->flags, .done = done, .user = user};
    int rc = n_urls == 0 ? 0
                         : gguf__source_fetch_many(urls, n_urls, opt,
                                                   max_parallel ? max_parallel : DEFAULT_PARALLEL,
                                                   on_more, on_done, &m, err);
    for (size_t k = 0; k < n_urls; k++) { /* after a failure of the batch itself */
        if (files[k] != NULL) {
            files[k]->src = NULL;
            gguf_file_free(files[k]);
        }
    }
    gguf__free(urls);
    gguf__free(index);
    gguf__free(files);
    return rc;
}

/* ---- the public form ---- */

typedef struct public_many {
    gguf_open_many_fn done;
    void *user;
} public_many;

static void public_done(void *user, size_t i, gguf_file *f, bool unchanged,
                        const gguf_error *err) {
    (void)unchanged; /* no validators were given */
    const public_many *p = user;
    p->done(p->user, i, f, err);
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
    gguf__fetch *items = gguf__calloc(n ? n : 1, sizeof *items);
    if (items == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    for (size_t i = 0; i < n; i++)
        items[i].url = paths[i];
    public_many p = {done, user};
    int rc = gguf__open_many(items, n, opt, max_parallel, public_done, &p, err);
    gguf__free(items);
    return rc;
}
