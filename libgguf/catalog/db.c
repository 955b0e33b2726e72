/* SQLite underneath the catalog: connections, the read-write connection's prepared statements,
 * and its write transactions, committed in small batches so that concurrent writers interleave
 * (see catalog.h). */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifdef GGUF_HAVE_CATALOG

#include <time.h>

#define BATCH_FILES 200
#define BATCH_NS 100000000LL /* 0.1 s of work per write transaction at most */

#define FILE_COLUMNS                                                                            \
    "path, dev, ino, size, mtime_ns, version, endian, alignment, data_offset, n_kv, n_tensors, " \
    "header_crc32, open_flags, has_crc, indexed_at, n_params, tensor_bytes, dominant_type, "    \
    "split_set, split_no, split_count, indexed_run, changed_run, journal, model, etag, "        \
    "last_modified, missing_bytes, kv_bytes_token, kv_bytes_token_swa, swa_window, "          \
    "state_bytes"

static const char *const stmt_sql[GGUF__ST_COUNT] = {
    [GGUF__ST_FILE_OLD] = "SELECT id, size, header_crc32, has_crc, dev, ino, mtime_ns, changed_run "
                          "FROM files WHERE path = ?1",
    [GGUF__ST_FILE_INSERT] = "INSERT INTO files (" FILE_COLUMNS ") VALUES "
                             "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
                             "?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?29, ?30, "
                             "?31, ?32, ?33)",
    [GGUF__ST_FILE_UPDATE] = "UPDATE files SET path = ?1, dev = ?2, ino = ?3, size = ?4, "
                             "mtime_ns = ?5, version = ?6, endian = ?7, alignment = ?8, "
                             "data_offset = ?9, n_kv = ?10, n_tensors = ?11, header_crc32 = ?12, "
                             "open_flags = ?13, has_crc = ?14, indexed_at = ?15, n_params = ?16, "
                             "tensor_bytes = ?17, dominant_type = ?18, split_set = ?19, "
                             "split_no = ?20, split_count = ?21, indexed_run = ?22, "
                             "changed_run = ?23, journal = ?24, model = ?25, etag = ?26, "
                             "last_modified = ?27, missing_bytes = ?29, kv_bytes_token = ?30, "
                             "kv_bytes_token_swa = ?31, swa_window = ?32, state_bytes = ?33 "
                             "WHERE id = ?28",
    [GGUF__ST_FILE_DELETE] = "DELETE FROM files WHERE id = ?1",
    [GGUF__ST_FILE_JOURNAL] = "UPDATE files SET journal = ?2 WHERE path = ?1",
    [GGUF__ST_FILE_VALIDATORS] = "SELECT etag, last_modified FROM files WHERE path = ?1 UNION ALL "
                                 "SELECT etag, last_modified FROM errors WHERE path = ?1 AND "
                                 "scope = 'file'",
    [GGUF__ST_KV_DELETE] = "DELETE FROM kv WHERE file = ?1",
    [GGUF__ST_ITEM_INSERT] = "INSERT INTO array_items (file, position, key, idx, int, real, text) "
                             "VALUES (?1, ?2, ?3, ?4, ?7, ?8, ?9)",
    [GGUF__ST_ITEM_DELETE] = "DELETE FROM array_items WHERE file = ?1",
    [GGUF__ST_KV_INSERT] = "INSERT INTO kv (file, position, key, type, elem_type, array_len, int, "
                           "real, text) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    [GGUF__ST_TENSOR_DELETE] = "DELETE FROM tensors WHERE file = ?1",
    [GGUF__ST_TENSOR_INSERT] = "INSERT INTO tensors (file, position, name, type, type_id, n_dims, "
                               "ne0, ne1, ne2, ne3, offset, nbytes, crc32) VALUES "
                               "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    [GGUF__ST_TENSOR_CRCS] = "SELECT crc32 FROM tensors WHERE file = ?1 ORDER BY position",
    [GGUF__ST_ERROR_DELETE] = "DELETE FROM errors WHERE path = ?1 AND scope = ?2",
    [GGUF__ST_ERROR_UPSERT] = "INSERT OR REPLACE INTO errors (path, dev, ino, size, mtime_ns, "
                              "code, error, offset, message, indexed_at, run, journal, scope, "
                              "shard, etag, last_modified) VALUES "
                              "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
                              "?16)",
    [GGUF__ST_ERROR_JOURNAL] = "UPDATE errors SET journal = ?2 WHERE path = ?1 AND scope = 'file'",
};

int64_t gguf__catalog_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int gguf__catalog_db_fail(gguf_error *err, sqlite3 *db, int rc, const char *path,
                          const char *what) {
    int code;
    switch (rc & 0xff) {
    case SQLITE_NOMEM: code = GGUF_ENOMEM; break;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: code = GGUF_ECORRUPT; break;
    default: code = GGUF_EIO; break;
    }
    const char *msg = db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    return gguf__fail(err, code, GGUF_ERROR_NO_OFFSET, "catalog %s: %s: %s", path ? path : "",
                      what, msg);
}

int gguf__catalog_connect(sqlite3 **out, const char *path, int readonly, int create,
                          gguf_error *err) {
    sqlite3 *db = NULL;
    int oflags = readonly ? SQLITE_OPEN_READONLY
                          : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    int rc = sqlite3_open_v2(path, &db, oflags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        if (db == NULL)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        rc = gguf__catalog_db_fail(err, db, rc, path, "cannot open");
        sqlite3_close(db);
        return rc;
    }
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, GGUF__CATALOG_BUSY_TIMEOUT_MS);
    *out = db;
    return 0;
}

int gguf__catalog_exec(gguf_catalog *cat, const char *sql, const char *what, gguf_error *err) {
    int rc = sqlite3_exec(cat->db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return gguf__catalog_db_fail(err, cat->db, rc, cat->path, what);
    return 0;
}

int gguf__catalog_stmt(sqlite3_stmt **out, gguf_catalog *cat, int which, gguf_error *err) {
    if (cat->st[which] == NULL) {
        int rc = sqlite3_prepare_v3(cat->db, stmt_sql[which], -1, SQLITE_PREPARE_PERSISTENT,
                                    &cat->st[which], NULL);
        if (rc != SQLITE_OK)
            return gguf__catalog_db_fail(err, cat->db, rc, cat->path, "preparing a statement");
    } else {
        sqlite3_reset(cat->st[which]);
        sqlite3_clear_bindings(cat->st[which]);
    }
    *out = cat->st[which];
    return 0;
}

int gguf__catalog_step_done(gguf_catalog *cat, sqlite3_stmt *st, const char *what,
                            gguf_error *err) {
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return gguf__catalog_db_fail(err, cat->db, rc, cat->path, what);
    return 0;
}

int gguf__catalog_query_int(sqlite3 *db, const char *sql, int64_t *out) {
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *out = sqlite3_column_int64(st, 0);
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
        *out = 0;
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

int gguf__catalog_txn_begin(gguf_catalog *cat, gguf_error *err) {
    if (cat->in_txn)
        return 0;
    int rc = gguf__catalog_exec(cat, "BEGIN IMMEDIATE", "taking the write lock", err);
    if (rc != 0)
        return rc;
    cat->in_txn = 1;
    cat->txn_files = 0;
    cat->txn_start = gguf__catalog_now_ns();
    return 0;
}

int gguf__catalog_txn_commit(gguf_catalog *cat, gguf_error *err) {
    if (!cat->in_txn)
        return 0;
    int rc = gguf__catalog_exec(cat, "COMMIT", "committing", err);
    if (rc != 0)
        sqlite3_exec(cat->db, "ROLLBACK", NULL, NULL, NULL);
    cat->in_txn = 0;
    return rc;
}

void gguf__catalog_txn_rollback(gguf_catalog *cat) {
    if (cat->in_txn)
        sqlite3_exec(cat->db, "ROLLBACK", NULL, NULL, NULL);
    cat->in_txn = 0;
}

int gguf__catalog_txn_maybe_commit(gguf_catalog *cat, int force, gguf_error *err) {
    if (!cat->in_txn)
        return 0;
    cat->txn_files++;
    if (force || cat->txn_files >= BATCH_FILES ||
        gguf__catalog_now_ns() - cat->txn_start >= BATCH_NS)
        return gguf__catalog_txn_commit(cat, err);
    return 0;
}

#endif /* GGUF_HAVE_CATALOG */
