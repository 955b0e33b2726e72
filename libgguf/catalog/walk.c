/* The folder walk of an index run, with fts(3): names sorted in each folder so that runs are
 * deterministic, depth first; no change of the working folder (this is a library). Symbolic
 * links are followed only on request; a folder that would lead back to one above it is
 * skipped; special files (FIFOs, devices, sockets) are skipped from their stat, never opened. */
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

/* One entry of the walk: what it is for the index run, or 0 when it is not reported. */
static int visit(FTS *fts, FTSENT *e, unsigned flags, gguf__walk_fn fn, void *ctx,
                 gguf_error *err) {
    switch (e->fts_info) {
    case FTS_D:
        if (e->fts_level > MAX_WALK_DEPTH) {
            fts_set(fts, e, FTS_SKIP);
            return fn(ctx, GGUF__WALK_ERROR, e->fts_path, NULL, ELOOP, "folders nested too deep",
                      err);
        }
        return 0;
    case FTS_DP: return 0;
    case FTS_DC: /* a loop through a link */
        return fn(ctx, GGUF__WALK_SKIPPED, e->fts_path, NULL, 0, NULL, err);
    case FTS_DNR:
        return fn(ctx, GGUF__WALK_ERROR, e->fts_path, NULL, e->fts_errno, "cannot open folder",
                  err);
    case FTS_ERR:
        return fn(ctx, GGUF__WALK_ERROR, e->fts_path, NULL, e->fts_errno, "cannot read folder",
                  err);
    case FTS_NS:
        if (e->fts_errno == ENOENT) /* vanished meanwhile */
            return fn(ctx, GGUF__WALK_SKIPPED, e->fts_path, NULL, 0, NULL, err);
        return fn(ctx, GGUF__WALK_ERROR, e->fts_path, NULL, e->fts_errno, "cannot stat", err);
    case FTS_SL:     /* a link, not followed */
    case FTS_SLNONE: /* a link to nothing */
        return fn(ctx, GGUF__WALK_SKIPPED, e->fts_path, NULL, 0, NULL, err);
    case FTS_F:
        if (!name_wanted(flags, e->fts_name))
            return 0;
        return fn(ctx, GGUF__WALK_FILE, e->fts_path, e->fts_statp, 0, NULL, err);
    default: /* FTS_DEFAULT: FIFOs, devices, sockets */
        if (!name_wanted(flags, e->fts_name))
            return 0;
        return fn(ctx, GGUF__WALK_SKIPPED, e->fts_path, NULL, 0, NULL, err);
    }
}

int gguf__catalog_walk(const char *root, unsigned flags, gguf__walk_fn fn, void *ctx,
                       gguf_error *err) {
    char *roots[2] = {(char *)root, NULL};
    int options = FTS_NOCHDIR | ((flags & GGUF_CATALOG_FOLLOW_SYMLINKS) ? FTS_LOGICAL
                                                                        : FTS_PHYSICAL);
    FTS *fts = fts_open(roots, options, by_name);
    if (fts == NULL)
        return fn(ctx, GGUF__WALK_ERROR, root, NULL, errno, "cannot open folder", err);
    int rc = 0;
    for (;;) {
        errno = 0;
        FTSENT *e = fts_read(fts);
        if (e == NULL) {
            if (errno == ENOMEM)
                rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            else if (errno != 0)
                rc = fn(ctx, GGUF__WALK_ERROR, root, NULL, errno, "cannot walk folder", err);
            break;
        }
        rc = visit(fts, e, flags, fn, ctx, err);
        if (rc != 0)
            break;
    }
    fts_close(fts);
    return rc;
}

#endif /* GGUF_HAVE_CATALOG */
