/* The runs table: every index or prune run leaves a row with its paths, when it started and
 * finished, the machine and process that ran it, and its counts, so that "what changed in the
 * last run" is a query (files.changed_run, files.indexed_run and errors.run point here). A run
 * stopped by an error keeps finished_at NULL. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifdef GGUF_HAVE_CATALOG

#include <string.h>
#include <time.h>
#include <unistd.h>

int gguf__catalog_host(char *buf, size_t size) {
    if (gethostname(buf, size) != 0)
        return -1;
    buf[size - 1] = '\0';
    return buf[0] != '\0' ? 0 : -1;
}

int gguf__catalog_other_host(const char *by, const char *host) {
    return by != NULL && strcmp(by, host) != 0;
}

int gguf__run_begin(int64_t *id, gguf_catalog *cat, const char *kind, char *const *paths,
                    size_t n_paths, gguf_error *err) {
    gguf__buf json = {0};
    gguf__buf_add(&json, "[", 1);
    for (size_t i = 0; i < n_paths; i++) {
        if (i > 0)
            gguf__buf_add(&json, ",", 1);
        gguf__json_str(&json, paths[i], strlen(paths[i]));
    }
    gguf__buf_add(&json, "]", 1);
    if (json.failed) {
        gguf__buf_free(&json);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    gguf__stmt *st = NULL;
    int rc = gguf__catalog_txn_begin(cat, err);
    if (rc == 0) {
        int src = gguf__db_prepare(&st, cat->db,
                                   "INSERT INTO runs (kind, started_at, paths, host, pid)"
                                   " VALUES (?1, ?2, ?3, ?4, ?5)",
                                   "INSERT INTO runs (kind, started_at, paths, host, pid)"
                                   " VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id",
                                   0);
        if (src != SQLITE_OK)
            rc = gguf__catalog_db_fail(err, cat->db, src, cat->path, "recording a run");
    }
    if (rc == 0) {
        gguf__bind_text(st, 1, kind, -1);
        gguf__bind_int64(st, 2, (int64_t)time(NULL));
        if (n_paths > 0)
            gguf__bind_text(st, 3, (const char *)json.data, (int)json.len);
        char host[256];
        if (gguf__catalog_host(host, sizeof host) == 0)
            gguf__catalog_bind_bytes(st, 4, host, strlen(host));
        gguf__bind_int64(st, 5, (int64_t)getpid());
        int src = gguf__step_done(st);
        if (src != SQLITE_DONE)
            rc = gguf__catalog_db_fail(err, cat->db, src, cat->path, "recording a run");
        else
            *id = gguf__db_last_id(cat->db);
    }
    gguf__finalize(st);
    gguf__buf_free(&json);
    if (rc == 0)
        rc = gguf__catalog_txn_commit(cat, err);
    else
        gguf__catalog_txn_rollback(cat);
    return rc;
}

int gguf__run_finish(gguf_catalog *cat, int64_t id, const gguf_catalog_stats *s,
                     gguf_error *err) {
    gguf__stmt *st = NULL;
    int rc = gguf__catalog_txn_begin(cat, err);
    if (rc == 0) {
        int src = gguf__db_prepare(&st, cat->db,
                                   "UPDATE runs SET finished_at = ?2, seen = ?3, indexed = ?4,"
                                     " unchanged = ?5, broken = ?6, skipped = ?7,"
                                     " walk_errors = ?8, removed = ?9, broken_sets = ?10"
                                     " WHERE id = ?1", NULL, 0);
        if (src != SQLITE_OK)
            rc = gguf__catalog_db_fail(err, cat->db, src, cat->path, "recording a run");
    }
    if (rc == 0) {
        const uint64_t counts[8] = {s->seen,    s->indexed,     s->unchanged, s->broken,
                                    s->skipped, s->walk_errors, s->removed,   s->broken_sets};
        gguf__bind_int64(st, 1, id);
        gguf__bind_int64(st, 2, (int64_t)time(NULL));
        for (int i = 0; i < 8; i++)
            gguf__bind_int64(st, 3 + i, (int64_t)counts[i]);
        int src = gguf__step(st);
        if (src != SQLITE_DONE)
            rc = gguf__catalog_db_fail(err, cat->db, src, cat->path, "recording a run");
    }
    gguf__finalize(st);
    if (rc == 0)
        rc = gguf__catalog_txn_commit(cat, err);
    else
        gguf__catalog_txn_rollback(cat);
    return rc;
}

#endif /* GGUF_HAVE_CATALOG */
