/* The folder walk of an index run, with fts(3): names sorted in each folder so that runs are
 * deterministic, depth first; no change of the working folder (this is a library). Symbolic
 * links are followed only on request; a folder that would lead back to one above it is
 * skipped; special files (FIFOs, devices, sockets) are skipped from their stat, never opened.
 * Each folder's names are kept while it is walked, so that the index run can tell whether a
 * file has a journal beside it without asking the file system once per file. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifdef GGUF_HAVE_CATALOG

#include <errno.h>
#include <fts.h>
#include <string.h>
#include <strings.h>

#define MAX_WALK_DEPTH 256

static int by_name(const FTSENT **a, const FTSENT **b) {
    return strcmp((*a)->fts_name, (*b)->fts_name);
}

static int name_wanted(unsigned flags, const char *name) {
    if (flags & GGUF_CATALOG_ALL_FILES)
        return 1;
    size_t n = strlen(name);
    return n >= 5 && strcasecmp(name + n - 5, ".gguf") == 0;
}

/* ---- the names of a folder, kept while it is walked (in its entry's fts_pointer) ---- */

struct gguf__walk_dir {
    gguf__buf names; /* the names, one after another */
    size_t *at;      /* where each starts; at[n] is the end */
    size_t n;
    gguf__hashset set;
};

static const void *dir_key(const void *ctx, size_t i, size_t *n) {
    const gguf__walk_dir *d = ctx;
    *n = d->at[i + 1] - d->at[i];
    return d->names.data + d->at[i];
}

int gguf__walk_dir_has(const gguf__walk_dir *dir, const char *name, size_t len) {
    return gguf__hashset_find(&dir->set, name, len, dir_key, dir) >= 0;
}

static void dir_free(gguf__walk_dir *d) {
    if (d == NULL)
        return;
    gguf__buf_free(&d->names);
    gguf__free(d->at);
    gguf__hashset_free(&d->set);
    gguf__free(d);
}

/* The names of the folder fts just entered (fts reads it once for both), or NULL. */
static gguf__walk_dir *list_dir(FTS *fts) {
    FTSENT *first = fts_children(fts, 0);
    if (first == NULL) /* empty, or unreadable: fts says which next */
        return NULL;
    size_t n = 0;
    for (FTSENT *c = first; c != NULL; c = c->fts_link)
        n++;
    gguf__walk_dir *d = gguf__calloc(1, sizeof *d);
    if (d == NULL || n >= UINT32_MAX || (d->at = gguf__malloc((n + 1) * sizeof *d->at)) == NULL ||
        gguf__hashset_init(&d->set, n) != 0) {
        dir_free(d);
        return NULL;
    }
    for (FTSENT *c = first; c != NULL; c = c->fts_link) {
        d->at[d->n++] = d->names.len;
        gguf__buf_add(&d->names, c->fts_name, c->fts_namelen);
    }
    d->at[d->n] = d->names.len;
    for (size_t i = 0; i < d->n && !d->names.failed; i++) {
        if (gguf__hashset_insert(&d->set, (uint32_t)i, dir_key, d) == -2)
            d->names.failed = true;
    }
    if (d->names.failed) {
        dir_free(d);
        return NULL;
    }
    return d;
}

/* The folders being walked own their names, by depth (and lend them through fts_pointer). */
typedef struct walker {
    FTS *fts;
    unsigned flags;
    gguf__walk_fn fn;
    void *ctx;
    gguf__walk_dir *open[MAX_WALK_DEPTH + 1];
} walker;

static void close_dir(walker *w, FTSENT *e) {
    if (e->fts_level >= 0 && e->fts_level <= MAX_WALK_DEPTH) {
        dir_free(w->open[e->fts_level]);
        w->open[e->fts_level] = NULL;
    }
    e->fts_pointer = NULL;
}

/* One entry of the walk: what it is for the index run, or 0 when it is not reported. */
static int visit(walker *w, FTSENT *e, gguf_error *err) {
    const gguf__walk_dir *dir = e->fts_parent != NULL ? e->fts_parent->fts_pointer : NULL;
    gguf__walk_fn fn = w->fn;
    void *ctx = w->ctx;
    unsigned flags = w->flags;
    switch (e->fts_info) {
    case FTS_D:
        if (e->fts_level > MAX_WALK_DEPTH) {
            fts_set(w->fts, e, FTS_SKIP);
            return fn(ctx, GGUF__WALK_ERROR, e->fts_path, NULL, NULL, ELOOP,
                      "folders nested too deep", err);
        }
        close_dir(w, e);
        w->open[e->fts_level] = list_dir(w->fts); /* NULL: each file looks for itself */
        e->fts_pointer = w->open[e->fts_level];
        return 0;
    case FTS_DP: close_dir(w, e); return 0;
    case FTS_DC: /* a loop through a link */
        return fn(ctx, GGUF__WALK_SKIPPED, e->fts_path, NULL, NULL, 0, NULL, err);
    case FTS_DNR:
    case FTS_ERR: /* a folder that failed after FTS_D comes back as this, without FTS_DP */
        if (e->fts_pointer != NULL)
            close_dir(w, e);
        return fn(ctx, GGUF__WALK_ERROR, e->fts_path, NULL, NULL, e->fts_errno,
                  e->fts_info == FTS_DNR ? "cannot open folder" : "cannot read folder", err);
    case FTS_NS:
        if (e->fts_errno == ENOENT) /* vanished meanwhile */
            return fn(ctx, GGUF__WALK_SKIPPED, e->fts_path, NULL, NULL, 0, NULL, err);
        return fn(ctx, GGUF__WALK_ERROR, e->fts_path, NULL, NULL, e->fts_errno, "cannot stat",
                  err);
    case FTS_SL:     /* a link, not followed */
    case FTS_SLNONE: /* a link to nothing */
        return fn(ctx, GGUF__WALK_SKIPPED, e->fts_path, NULL, NULL, 0, NULL, err);
    case FTS_F:
        if (!name_wanted(flags, e->fts_name))
            return 0;
        return fn(ctx, GGUF__WALK_FILE, e->fts_path, e->fts_statp, dir, 0, NULL, err);
    default: /* FTS_DEFAULT: FIFOs, devices, sockets */
        if (!name_wanted(flags, e->fts_name))
            return 0;
        return fn(ctx, GGUF__WALK_SKIPPED, e->fts_path, NULL, NULL, 0, NULL, err);
    }
}

int gguf__catalog_walk(const char *root, unsigned flags, gguf__walk_fn fn, void *ctx,
                       gguf_error *err) {
    char *roots[2] = {(char *)root, NULL};
    int options = FTS_NOCHDIR | ((flags & GGUF_CATALOG_FOLLOW_SYMLINKS) ? FTS_LOGICAL
                                                                        : FTS_PHYSICAL);
    walker *w = gguf__calloc(1, sizeof *w);
    if (w == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    *w = (walker){.fts = fts_open(roots, options, by_name), .flags = flags, .fn = fn, .ctx = ctx};
    int rc = 0;
    if (w->fts == NULL)
        rc = fn(ctx, GGUF__WALK_ERROR, root, NULL, NULL, errno, "cannot open folder", err);
    while (w->fts != NULL) {
        errno = 0;
        FTSENT *e = fts_read(w->fts);
        if (e == NULL) {
            if (errno == ENOMEM)
                rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            else if (errno != 0)
                rc = fn(ctx, GGUF__WALK_ERROR, root, NULL, NULL, errno, "cannot walk folder", err);
            break;
        }
        rc = visit(w, e, err);
        if (rc != 0)
            break;
    }
    for (size_t i = 0; i <= MAX_WALK_DEPTH; i++) /* stopped early: folders still open */
        dir_free(w->open[i]);
    if (w->fts != NULL)
        fts_close(w->fts);
    gguf__free(w);
    return rc;
}

#endif /* GGUF_HAVE_CATALOG */
