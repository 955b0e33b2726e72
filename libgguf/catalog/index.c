/* gguf_catalog_index: each path is a file or a folder walked for candidates; a candidate whose
 * device, inode, size and mtime match its row is skipped after one stat (its journal state is
 * still refreshed), any other is opened (headers only, unless crc32s are asked for) and its
 * rows replaced, or its error recorded. Journals beside files are only looked at
 * (gguf_file_journal): an index run never applies or removes one. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"
#include "commit/commit.h"

#ifdef GGUF_HAVE_CATALOG

#include <errno.h>
#include <string.h>
#include <time.h>

typedef struct indexer {
    gguf_catalog *cat;
    gguf_catalog_index_options opt;
    gguf_catalog_stats stats;
    gguf__known_set known;
    gguf__buf json;       /* scratch for array JSON */
    uint32_t *crcs;       /* per tensor, with CRC */
    size_t crcs_cap;
    int64_t now, run;
} indexer;

static void emit(indexer *x, int kind, const char *path, const gguf_error *e) {
    if (x->opt.on_event == NULL)
        return;
    gguf_catalog_event ev = {kind, path, e};
    x->opt.on_event(&ev, x->opt.user);
}

static void walk_error(indexer *x, const char *path, int e, const char *what) {
    gguf_error we;
    gguf_error_clear(&we);
    gguf__fail(&we, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: %s: %s", path, what, strerror(e));
    x->stats.walk_errors++;
    emit(x, GGUF_CATALOG_EV_WALK_ERROR, path, &we);
}

static int same_stat(const gguf__known *k, const struct stat *st) {
    return k->dev == (int64_t)st->st_dev && k->ino == (int64_t)st->st_ino &&
           k->size == (int64_t)st->st_size && k->mtime_ns == gguf__catalog_mtime_ns(st);
}

static int remember(indexer *x, const char *path, const struct stat *s, int is_error, int retry,
                    int has_crc, int journal, gguf_error *err) {
    gguf__known k = {.dev = (int64_t)s->st_dev, .ino = (int64_t)s->st_ino,
                     .size = (int64_t)s->st_size, .mtime_ns = gguf__catalog_mtime_ns(s),
                     .has_crc = (uint8_t)has_crc, .is_error = (uint8_t)is_error,
                     .retry = (uint8_t)retry, .journal = (uint8_t)journal};
    if (gguf__known_put(&x->known, path, &k) != 0)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    return 0;
}

/* Reads every tensor's crc32 into x->crcs. */
static int read_crcs(indexer *x, gguf_file *f, gguf_error *fe, gguf_error *err) {
    size_t n = gguf_tensor_count(f);
    if (n > x->crcs_cap) {
        uint32_t *p = n < SIZE_MAX / sizeof *p ? gguf__realloc(x->crcs, n * sizeof *p) : NULL;
        if (p == NULL)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        x->crcs = p;
        x->crcs_cap = n;
    }
    /* a long read: let other writers in first */
    int rc = gguf__catalog_txn_commit(x->cat, err);
    if (rc != 0)
        return rc;
    for (size_t i = 0; i < n; i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        x->crcs[i] = 0;
        if (t.nbytes != GGUF_NBYTES_UNKNOWN && gguf_crc_tensor(&x->crcs[i], f, i, fe) != 0)
            return 1; /* the file's error, in fe */
    }
    return 0;
}

/* The state of a journal beside path; dir (may be NULL) holds the names of path's folder, so
 * that most files need no look. */
static int journal_state(int *state, const char *path, const gguf__walk_dir *dir,
                         gguf_error *err) {
    *state = GGUF_JOURNAL_NONE;
    if (dir != NULL) {
        char *jpath = gguf__journal_path(path);
        if (jpath == NULL)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        const char *slash = strrchr(jpath, '/');
        const char *name = slash != NULL ? slash + 1 : jpath;
        int there = gguf__walk_dir_has(dir, name, strlen(name));
        gguf__free(jpath);
        if (!there)
            return 0;
    }
    if (gguf_file_journal(state, path, NULL) == GGUF_ENOMEM)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    return 0;
}

/* One candidate file (stat already done): skipped when unchanged, else read and stored. */
static int index_file(indexer *x, const char *path, const struct stat *s,
                      const gguf__walk_dir *dir, gguf_error *err) {
    unsigned flags = x->opt.flags;
    int want_crc = (flags & GGUF_CATALOG_CRC) != 0;
    int journal;
    x->stats.seen++;
    int jrc = journal_state(&journal, path, dir, err);
    if (jrc != 0)
        return jrc;
    gguf__known *k = gguf__known_find(&x->known, path);
    if (k != NULL && !(flags & GGUF_CATALOG_FORCE) && same_stat(k, s) &&
        (k->is_error ? !k->retry : (!want_crc || k->has_crc))) {
        if (k->journal != journal) {
            int rc = gguf__store_journal(x->cat, path, k->is_error, journal, err);
            if (rc != 0)
                return rc;
            k->journal = (uint8_t)journal;
        }
        x->stats.unchanged++;
        emit(x, GGUF_CATALOG_EV_UNCHANGED, path, NULL);
        return 0;
    }
    gguf_file *f = NULL;
    gguf_error fe;
    gguf_error_clear(&fe);
    uint32_t header_crc = 0;
    int rc = gguf_file_open(&f, path, x->opt.open_flags, &fe);
    if (rc == 0)
        rc = gguf_crc_header(&header_crc, f, &fe);
    if (rc == 0 && want_crc) {
        rc = read_crcs(x, f, &fe, err);
        if (rc < 0) { /* the catalog's own failure */
            gguf_file_free(f);
            return rc;
        }
    }
    if (rc != 0) {
        gguf_file_free(f);
        rc = gguf__store_error(x->cat, path, s, &fe, journal, x->run, x->now, err);
        if (rc == 0)
            rc = remember(x, path, s, 1, gguf__known_retry_code(fe.code), 0, journal, err);
        if (rc != 0)
            return rc;
        x->stats.broken++;
        emit(x, GGUF_CATALOG_EV_BROKEN, path, &fe);
        return 0;
    }
    gguf__file_rows r = {.path = path, .st = s, .f = f, .header_crc = header_crc,
                         .with_crc = want_crc, .crcs = x->crcs, .open_flags = x->opt.open_flags,
                         .array_max = x->opt.array_max, .journal = journal, .run = x->run,
                         .now = x->now};
    rc = gguf__store_file(x->cat, &r, &x->json, err);
    gguf_file_free(f);
    /* a path named twice in one run (overlapping arguments) is read once */
    if (rc == 0)
        rc = remember(x, path, s, 0, 0, want_crc, journal, err);
    if (rc != 0)
        return rc;
    x->stats.indexed++;
    emit(x, GGUF_CATALOG_EV_INDEXED, path, NULL);
    return 0;
}

static int on_walk(void *ctx, int what, const char *path, const struct stat *st,
                   const gguf__walk_dir *dir, int errnum, const char *why, gguf_error *err) {
    indexer *x = ctx;
    switch (what) {
    case GGUF__WALK_FILE: return index_file(x, path, st, dir, err);
    case GGUF__WALK_SKIPPED:
        x->stats.skipped++;
        emit(x, GGUF_CATALOG_EV_SKIPPED, path, NULL);
        return 0;
    default: walk_error(x, path, errnum, why); return 0;
    }
}

/* One argument: a folder to walk or a file to take, whatever its name. */
static int index_argument(indexer *x, const char *arg, const char *abs, gguf_error *err) {
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
    static const gguf_catalog_index_options defaults = GGUF_CATALOG_INDEX_OPTIONS_INIT;
    indexer *x = gguf__calloc(1, sizeof *x);
    char **abs = gguf__calloc(n_paths ? n_paths : 1, sizeof *abs);
    if (x == NULL || abs == NULL) {
        gguf__free(x);
        gguf__free(abs);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    x->cat = cat;
    x->opt = opt != NULL ? *opt : defaults;
    x->now = (int64_t)time(NULL);
    for (size_t a = 0; a < n_paths && rc == 0; a++) {
        abs[a] = gguf__catalog_absolute_path(paths[a]);
        if (abs[a] == NULL)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    if (rc == 0)
        rc = gguf__known_load(&x->known, cat, err);
    if (rc == 0)
        rc = gguf__run_begin(&x->run, cat, "index", abs, n_paths, err);
    for (size_t a = 0; a < n_paths && rc == 0; a++)
        rc = index_argument(x, paths[a], abs[a], err);
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
    gguf__known_free(&x->known);
    gguf__buf_free(&x->json);
    gguf__free(x->crcs);
    gguf__free(x);
    return rc;
}

#endif /* GGUF_HAVE_CATALOG */
