/* gguf_catalog_index: each path is a file or a folder walked for candidates, or a URL (remote.c);
 * a candidate whose device, inode, size and mtime match its row is skipped after one stat (its
 * journal state is still refreshed), any other is opened (headers only, unless crc32s are
 * asked for) and its rows replaced, or its error recorded. A file named like a shard of a
 * split set brings its set (sets.c). Journals beside files are only looked at
 * (gguf_file_journal): an index run never applies or removes one. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifdef GGUF_HAVE_CATALOG

#include <errno.h>
#include <string.h>
#include <time.h>

static void walk_error(gguf__indexer *x, const char *path, int e, const char *what) {
    gguf_error we;
    gguf_error_clear(&we);
    gguf__fail(&we, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: %s: %s", path, what, strerror(e));
    x->stats.walk_errors++;
    gguf__index_emit(x, GGUF_CATALOG_EV_WALK_ERROR, path, &we);
}

/* One candidate file (stat already done): a shard's whole set, or the file. */
static int index_file(gguf__indexer *x, const char *path, const struct stat *s,
                      const gguf__walk_dir *dir, gguf_error *err) {
    uint32_t count = 0;
    if (gguf_split_parse_name(NULL, NULL, &count, path) && count > 1)
        return gguf__index_local_set(x, path, dir, err);
    gguf_file *f = NULL;
    int rc = gguf__index_local_file(x, path, s, dir, 1, &f, NULL, err);
    if (rc == 0 && f != NULL) /* split.count > 1 in a file not named as a shard */
        rc = gguf__index_lone_shard(x, path, f, err);
    gguf_file_free(f);
    return rc;
}

static int on_walk(void *ctx, int what, const char *path, const struct stat *st,
                   const gguf__walk_dir *dir, int errnum, const char *why, gguf_error *err) {
    gguf__indexer *x = ctx;
    switch (what) {
    case GGUF__WALK_FILE: return index_file(x, path, st, dir, err);
    case GGUF__WALK_SKIPPED:
        x->stats.skipped++;
        gguf__index_emit(x, GGUF_CATALOG_EV_SKIPPED, path, NULL);
        return 0;
    default: walk_error(x, path, errnum, why); return 0;
    }
}

/* One argument: a folder to walk or a file to take, whatever its name. */
static int index_argument(gguf__indexer *x, const char *arg, const char *abs, gguf_error *err) {
    struct stat st;
    if (stat(abs, &st) != 0) {
        walk_error(x, arg, errno, "cannot stat");
        return 0;
    }
    if (S_ISDIR(st.st_mode))
        return gguf__catalog_walk(abs, x->opt.flags, on_walk, x, err);
    if (S_ISREG(st.st_mode))
        return index_file(x, abs, &st, NULL, err);
    walk_error(x, arg, EINVAL, "not a regular file or folder");
    return 0;
}

int gguf_catalog_index(gguf_catalog_stats *stats, gguf_catalog *cat, const char *const *paths,
                       size_t n_paths, const gguf_catalog_index_options *opt, gguf_error *err) {
    int rc = gguf__catalog_need_writable(cat, "index", err);
    if (rc != 0)
        return rc;
    if (paths == NULL && n_paths > 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no paths given");
    gguf_catalog_index_options o;
    rc = GGUF__OPTIONS_READ(o, gguf_catalog_index_options, GGUF_CATALOG_INDEX_OPTIONS_INIT, opt,
                            err);
    if (rc != 0)
        return rc;
    gguf__indexer *x = gguf__calloc(1, sizeof *x);
    char **abs = gguf__calloc(n_paths ? n_paths : 1, sizeof *abs);
    char **urls = gguf__calloc(n_paths ? n_paths : 1, sizeof *urls);
    if (x == NULL || abs == NULL || urls == NULL) {
        gguf__free(x);
        gguf__free(abs);
        gguf__free(urls);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    x->cat = cat;
    x->opt = o;
    x->now = (int64_t)time(NULL);
    size_t n_urls = 0;
    for (size_t a = 0; a < n_paths && rc == 0; a++) {
        if (gguf_path_is_url(paths[a])) { /* a URL stays as given */
            abs[a] = gguf__strdup(paths[a]);
            urls[n_urls++] = abs[a];
        } else {
            abs[a] = gguf__catalog_absolute_path(paths[a]);
        }
        if (abs[a] == NULL)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    if (rc == 0)
        rc = gguf__known_load(&x->known, cat, 0, err);
    if (rc == 0)
        rc = gguf__known_load(&x->set_errors, cat, 1, err);
    if (rc == 0)
        rc = gguf__run_begin(&x->run, cat, "index", abs, n_paths, err);
    for (size_t a = 0, u = 0; a < n_paths && rc == 0; a++) {
        if (u < n_urls && abs[a] == urls[u])
            u++; /* a URL: indexed below */
        else
            rc = index_argument(x, paths[a], abs[a], err);
    }
    if (rc == 0 && n_urls > 0)
        rc = gguf__index_urls(x, urls, n_urls, err);
    if (rc == 0)
        rc = gguf__run_finish(cat, x->run, &x->stats, err);
    if (rc == 0)
        rc = gguf__catalog_txn_commit(cat, err);
    else
        gguf__catalog_txn_rollback(cat);
    if (rc == 0 && stats != NULL)
        *stats = x->stats;
    for (size_t a = 0; a < n_paths; a++)
        gguf__free(abs[a]);
    gguf__free(abs);
    gguf__free(urls);
    gguf__known_free(&x->known);
    gguf__known_free(&x->set_errors);
    gguf__known_free(&x->sets_done);
    gguf__buf_free(&x->json);
    gguf__free(x->crcs);
    gguf__free(x);
    return rc;
}

int gguf_catalog_set_url_options(gguf_catalog *cat, const gguf_open_options *opt,
                                 gguf_error *err) {
    if (cat == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no catalog");
    gguf_open_options o;
    int rc = GGUF__OPTIONS_READ(o, gguf_open_options, GGUF_OPEN_OPTIONS_INIT, opt, err);
    if (rc != 0)
        return rc;
    cat->url_options = o;
    cat->url = opt != NULL ? &cat->url_options : NULL;
    return 0;
}

#endif /* GGUF_HAVE_CATALOG */
