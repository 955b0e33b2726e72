/* One file in an index run: whether its rows are as stored, reading it (headers only, and
 * its tensors' crc32s when they are asked for), storing its rows or its error, counting it and
 * telling the caller. What index.c, sets.c and remote.c share. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"
#include "commit/commit.h"

#ifdef GGUF_HAVE_CATALOG

#include <string.h>

void gguf__index_emit(gguf__indexer *x, int kind, const char *path, const gguf_error *e) {
    if (x->opt.on_event == NULL)
        return;
    gguf_catalog_event ev = {kind, path, e};
    x->opt.on_event(&ev, x->opt.user);
}

unsigned gguf__index_open_flags(const gguf__indexer *x) {
    return x->opt.open_flags & ~(unsigned)GGUF_OPEN_SPLIT_SET;
}

int gguf__index_unchanged(const gguf__indexer *x, const gguf__known *k, const gguf__file_id *id) {
    if (k == NULL || (x->opt.flags & GGUF_CATALOG_FORCE))
        return 0;
    /* Another machine sees other device numbers for the same share, and may see other
     * inodes: its row is unchanged here by its size and mtime alone (rsync's quick check). */
    int same_inode = k->other_host || (k->dev == (id->has_stat ? id->dev : -1) &&
                                       k->ino == (id->has_stat ? id->ino : -1));
    int same = same_inode && k->size == id->size && k->mtime_ns == id->mtime_ns;
    int want_crc = (x->opt.flags & GGUF_CATALOG_CRC) != 0;
    return same && (k->is_error ? !k->retry : (!want_crc || k->has_crc));
}

void gguf__index_unchanged_seen(gguf__indexer *x, const char *path) {
    x->stats.seen++;
    x->stats.unchanged++;
    gguf__index_emit(x, GGUF_CATALOG_EV_UNCHANGED, path, NULL);
}

int gguf__index_set_first(gguf__indexer *x, const char *model) {
    if (gguf__known_find(&x->sets_done, model) != NULL)
        return 0;
    gguf__known k = {0};
    return gguf__known_put(&x->sets_done, model, &k) != 0 ? GGUF_ENOMEM : 1;
}

static int remember(gguf__indexer *x, const char *path, const gguf__file_id *id, int is_error,
                    int retry, int has_crc, int journal, gguf_error *err) {
    static const gguf__file_id unknown = {0};
    if (id == NULL)
        id = &unknown;
    gguf__known k = {.dev = id->has_stat ? id->dev : -1, .ino = id->has_stat ? id->ino : -1,
                     .size = id->size, .mtime_ns = id->mtime_ns, .has_crc = (uint8_t)has_crc,
                     .is_error = (uint8_t)is_error, .retry = (uint8_t)retry,
                     .journal = (uint8_t)journal};
    if (gguf__known_put(&x->known, path, &k) != 0)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    return 0;
}

/* Reads every tensor's crc32 into x->crcs. */
static int read_crcs(gguf__indexer *x, gguf_file *f, gguf_error *fe, gguf_error *err) {
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

int gguf__index_store(gguf__indexer *x, const char *path, const gguf__file_id *id, gguf_file *f,
                      const gguf_error *fe, int journal, gguf_error *err) {
    /* a file cut short: its header, and no crc32s (its tensors are not all there) */
    uint64_t end = f != NULL ? gguf_file_data_end(f) : 0, size = f != NULL ? gguf_file_size(f) : 0;
    int want_crc = (x->opt.flags & GGUF_CATALOG_CRC) != 0 && end <= size;
    gguf_error fail, cut;
    gguf_error_clear(&fail);
    gguf_error_clear(&cut);
    if (f == NULL)
        fail = *fe;
    else if (end > size)
        gguf__fail(&cut, GGUF_ETRUNC, size,
                   "cut short: %llu of its %llu bytes are missing; its header catalogued, "
                   "partial",
                   (unsigned long long)(end - size), (unsigned long long)end);
    uint32_t header_crc = 0;
    int rc = f != NULL ? gguf_crc_header(&header_crc, f, &fail) : 1;
    if (rc == 0 && want_crc) {
        rc = read_crcs(x, f, &fail, err);
        if (rc < 0) /* the catalog's own failure */
            return rc;
    }
    x->stats.seen++;
    if (rc != 0) {
        rc = gguf__store_error(x->cat, path, id, &fail, journal, x->run, x->now, err);
        if (rc == 0)
            rc = remember(x, path, id, 1, gguf__known_retry_code(fail.code), 0, journal, err);
        if (rc != 0)
            return rc;
        x->stats.broken++;
        gguf__index_emit(x, GGUF_CATALOG_EV_BROKEN, path, &fail);
        return 0;
    }
    gguf__file_rows r = {.path = path, .id = id, .f = f, .header_crc = header_crc,
                         .with_crc = want_crc, .crcs = x->crcs,
                         .open_flags = gguf__index_open_flags(x) |
                                       (end > size ? (unsigned)GGUF_OPEN_PARTIAL : 0),
                         .array_max = x->opt.array_max,
                         .journal = journal, .run = x->run, .now = x->now};
    rc = gguf__store_file(x->cat, &r, &x->json, err);
    /* a path named twice in one run (overlapping arguments) is read once */
    if (rc == 0)
        rc = remember(x, path, id, 0, 0, want_crc, journal, err);
    if (rc != 0)
        return rc;
    x->stats.indexed++;
    gguf__index_emit(x, GGUF_CATALOG_EV_INDEXED, path, end > size ? &cut : NULL);
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

int gguf__index_local_file(gguf__indexer *x, const char *path, const struct stat *s,
                           const gguf__walk_dir *dir, int skip_unchanged, gguf_file **keep,
                           gguf_error *fe_out, gguf_error *err) {
    int journal;
    int rc = journal_state(&journal, path, dir, err);
    if (rc != 0)
        return rc;
    gguf__file_id id;
    gguf__catalog_id_of_stat(&id, s);
    gguf__known *k = gguf__known_find(&x->known, path);
    int unchanged = gguf__index_unchanged(x, k, &id);
    if (unchanged && k->journal != journal) {
        rc = gguf__store_journal(x->cat, path, k->is_error, journal, err);
        if (rc != 0)
            return rc;
        k->journal = (uint8_t)journal;
    }
    if (unchanged && skip_unchanged) {
        gguf__index_unchanged_seen(x, path);
        return 0;
    }
    gguf_file *f = NULL;
    gguf_error fe;
    gguf_error_clear(&fe);
    gguf_open_options o = GGUF_OPEN_OPTIONS_INIT;
    o.flags = gguf__index_open_flags(x);
    if (gguf__file_open_as(&f, GGUF__NAME_PATH, path, &o, &fe) != 0) {
        f = NULL;
        /* cut short inside its tensor data (a download that stopped): its header is
         * catalogued, partial (a file cut inside its header stays refused) */
        o.flags |= GGUF_OPEN_PARTIAL;
        if (fe.code == GGUF_ETRUNC && gguf__file_open_as(&f, GGUF__NAME_PATH, path, &o, NULL) == 0)
            gguf_error_clear(&fe);
        else
            f = NULL;
    }
    if (unchanged)
        gguf__index_unchanged_seen(x, path); /* read again for its set only */
    else
        rc = gguf__index_store(x, path, &id, f, &fe, journal, err);
    if (fe_out != NULL)
        *fe_out = fe;
    if (rc == 0 && keep != NULL) {
        *keep = f;
        return 0;
    }
    gguf_file_free(f);
    return rc;
}

#endif /* GGUF_HAVE_CATALOG */
