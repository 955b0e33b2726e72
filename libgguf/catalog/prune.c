/* gguf_catalog_prune: the rows of files (and of refused files) whose path no longer exists are
 * dropped, and the errors row of a split set none of whose shards is left. URLs are left alone
 * (an index run finds out what a server no longer has). The list is read first, with no lock
 * held while each path is looked at; then the rows go in small transactions. The run is
 * recorded in runs. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifdef GGUF_HAVE_CATALOG

#include <errno.h>
#include <string.h>

static int path_gone(const char *path) {
    struct stat sb;
    return lstat(path, &sb) != 0 && (errno == ENOENT || errno == ENOTDIR);
}

/* A split set's row goes with its last shard (by the names: PREFIX-0000k-of-N.gguf). */
static int set_gone(const char *model) {
    uint32_t count;
    if (!gguf_split_parse_name(NULL, NULL, &count, model))
        return path_gone(model);
    int all_gone = 1;
    for (uint32_t k = 0; all_gone && k < count; k++) {
        char *name = gguf__catalog_shard_path(model, k);
        all_gone = name != NULL && path_gone(name); /* out of memory: kept */
        gguf__free(name);
    }
    return all_gone;
}

/* Appends (id, path\0) for each row of sql whose path is gone (sets: each set's shards). */
static int list_gone(gguf__buf *gone, size_t *n_gone, gguf_catalog *cat, const char *sql,
                     int sets, gguf_error *err) {
    gguf__stmt *st;
    int rc = gguf__db_prepare(&st, cat->db, sql, NULL, 0);
    if (rc != SQLITE_OK)
        return gguf__catalog_db_fail(err, cat->db, rc, cat->path, "reading the catalog");
    while ((rc = gguf__step(st)) == SQLITE_ROW) {
        int64_t id = gguf__col_int64(st, 0);
        const char *path = (const char *)gguf__col_text(st, 1);
        if (path == NULL || gguf_path_is_url(path) || !(sets ? set_gone(path) : path_gone(path)))
            continue;
        gguf__buf_add(gone, &id, sizeof id);
        gguf__buf_add(gone, path, strlen(path) + 1);
        (*n_gone)++;
    }
    gguf__finalize(st);
    if (rc != SQLITE_DONE)
        return gguf__catalog_db_fail(err, cat->db, rc, cat->path, "reading the catalog");
    if (gone->failed)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    return 0;
}

int gguf_catalog_prune(gguf_catalog_stats *stats, gguf_catalog *cat, gguf_catalog_event_fn fn,
                       void *user, gguf_error *err) {
    int rc = gguf__catalog_need_writable(cat, "prune", err);
    if (rc != 0)
        return rc;
    gguf_catalog_stats s;
    memset(&s, 0, sizeof s);
    int64_t run = 0;
    rc = gguf__run_begin(&run, cat, "prune", NULL, 0, err);
    static const char *const sql[3] = {
        "SELECT id, path FROM files ORDER BY path",
        "SELECT 0, path FROM errors WHERE scope = 'file' ORDER BY path",
        "SELECT 0, path FROM errors WHERE scope = 'set' ORDER BY path"};
    static const char *const scope[3] = {NULL, "file", "set"};
    for (int q = 0; q < 3 && rc == 0; q++) {
        gguf__buf gone = {0};
        size_t n_gone = 0, off = 0;
        rc = list_gone(&gone, &n_gone, cat, sql[q], q == 2, err);
        for (size_t i = 0; i < n_gone && rc == 0; i++) {
            int64_t id;
            memcpy(&id, gone.data + off, sizeof id);
            const char *path = (const char *)gone.data + off + sizeof id;
            off += sizeof id + strlen(path) + 1;
            rc = gguf__catalog_txn_begin(cat, err);
            if (rc == 0)
                rc = q == 0 ? gguf__store_drop_file(cat, id, err)
                            : gguf__store_drop_error(cat, path, scope[q], err);
            if (rc == 0)
                rc = gguf__catalog_txn_maybe_commit(cat, 0, err);
            if (rc == 0) {
                s.removed++;
                if (fn != NULL) {
                    gguf_catalog_event ev = {GGUF_CATALOG_EV_REMOVED, path, NULL};
                    fn(&ev, user);
                }
            }
        }
        gguf__buf_free(&gone);
    }
    if (rc == 0)
        rc = gguf__run_finish(cat, run, &s, err);
    if (rc == 0)
        rc = gguf__catalog_txn_commit(cat, err);
    else
        gguf__catalog_txn_rollback(cat);
    if (rc == 0 && stats != NULL)
        *stats = s;
    return rc;
}

#endif /* GGUF_HAVE_CATALOG */
