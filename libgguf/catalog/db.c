/* The database underneath the catalog: the seam over SQLite and PostgreSQL (pg.c), the
 * read-write connection's prepared statements, and its write transactions, committed in small
 * batches so that concurrent writers interleave (see catalog.h). */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifdef GGUF_HAVE_CATALOG

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BATCH_FILES 200
/* PostgreSQL: one file per transaction, so that indexers walking overlapping folders in other
 * orders never hold row locks the other waits for (no deadlock), and a killed indexer loses
 * one file's work at most. Its statements are pipelined, so commits cost little. */
#define BATCH_FILES_PG 1
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

#define FILE_VALUES                                                                              \
    "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, " \
    "?21, ?22, ?23, ?24, ?25, ?26, ?27, ?29, ?30, ?31, ?32, ?33"

/* The PostgreSQL dialect where it differs: a path's row claimed (locked) when read, and
 * upserts that another indexer's row of the same path turns into an update. */
static const char *const stmt_pg[GGUF__ST_COUNT] = {
    [GGUF__ST_FILE_OLD] = "SELECT id, size, header_crc32, has_crc, dev, ino, mtime_ns, changed_run "
                          "FROM files WHERE path = ?1 FOR UPDATE",
    [GGUF__ST_FILE_INSERT] = "INSERT INTO files (id, " FILE_COLUMNS ") VALUES "
                             "(coalesce(?28::bigint, nextval('files_id_seq')), " FILE_VALUES ") "
                             "ON CONFLICT (path) DO UPDATE SET (" FILE_COLUMNS ") = "
                             "(" FILE_VALUES ") RETURNING id",
    [GGUF__ST_ERROR_UPSERT] =
        "INSERT INTO errors (path, dev, ino, size, mtime_ns, code, error, \"offset\", message, "
        "indexed_at, run, journal, scope, shard, etag, last_modified) VALUES (?1, ?2, ?3, ?4, "
        "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16) ON CONFLICT (path, scope) DO "
        "UPDATE SET (dev, ino, size, mtime_ns, code, error, \"offset\", message, indexed_at, "
        "run, journal, shard, etag, last_modified) = (?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
        "?12, ?14, ?15, ?16)",
    [GGUF__ST_TENSOR_INSERT] = "INSERT INTO tensors (file, position, name, type, type_id, n_dims, "
                               "ne0, ne1, ne2, ne3, \"offset\", nbytes, crc32) VALUES "
                               "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    /* one row per array: ?7, ?8 and ?9 are array literals (gguf__db_array) */
    [GGUF__ST_ITEM_INSERT] = "INSERT INTO array_values (file, position, key, int, real, text) "
                             "VALUES (?1, ?2, ?3, ?7, ?8, ?9)",
    [GGUF__ST_ITEM_DELETE] = "DELETE FROM array_values WHERE file = ?1",
};

/* ---- the seam ---- */

int gguf__db_prepare(gguf__stmt **out, gguf__db *db, const char *lite, const char *pg,
                     int persistent) {
    *out = NULL;
    gguf__stmt *st = gguf__calloc(1, sizeof *st);
    if (st == NULL)
        return SQLITE_NOMEM;
    st->db = db;
    st->persistent = persistent;
    if (db->kind == GGUF__DB_SQLITE) {
        int rc = sqlite3_prepare_v3(db->lite, lite, -1, persistent ? SQLITE_PREPARE_PERSISTENT : 0,
                                    &st->lite, NULL);
        if (rc != SQLITE_OK) {
            gguf__free(st);
            return rc;
        }
        *out = st;
        return SQLITE_OK;
    }
    /* ?N into $N (no statement of ours has a '?' in a literal) */
    const char *src = pg != NULL ? pg : lite;
    size_t n = strlen(src);
    st->sql = gguf__malloc(n + 1);
    if (st->sql == NULL) {
        gguf__free(st);
        return SQLITE_NOMEM;
    }
    for (size_t i = 0; i <= n; i++)
        st->sql[i] = src[i] == '?' ? '$' : src[i];
    *out = st;
    return SQLITE_OK;
}

void gguf__finalize(gguf__stmt *st) {
    if (st == NULL)
        return;
    if (st->lite != NULL)
        sqlite3_finalize(st->lite);
#ifdef GGUF_HAVE_PG
    else
        gguf__pg_finalize(st);
#endif
    for (int i = 0; i < GGUF__DB_MAX_PARAMS; i++)
        gguf__buf_free(&st->param[i]);
    gguf__free(st->sql);
    gguf__free(st);
}

void gguf__reset(gguf__stmt *st) {
    if (st->lite != NULL) {
        sqlite3_reset(st->lite);
        sqlite3_clear_bindings(st->lite);
        return;
    }
#ifdef GGUF_HAVE_PG
    gguf__pg_reset(st);
#endif
    memset(st->is_set, 0, sizeof st->is_set);
    st->n_params = 0;
}

int gguf__db_exec(gguf__db *db, const char *lite, const char *pg) {
    if (db->kind == GGUF__DB_SQLITE)
        return sqlite3_exec(db->lite, lite, NULL, NULL, NULL);
#ifdef GGUF_HAVE_PG
    return gguf__pg_exec(db, pg != NULL ? pg : lite);
#else
    (void)pg;
    return SQLITE_MISUSE;
#endif
}

const char *gguf__db_errmsg(gguf__db *db) {
    if (db->kind == GGUF__DB_SQLITE)
        return sqlite3_errmsg(db->lite);
    return db->pg_error != NULL ? db->pg_error : "PostgreSQL failed";
}

int64_t gguf__db_last_id(gguf__db *db) {
    return db->kind == GGUF__DB_SQLITE ? (int64_t)sqlite3_last_insert_rowid(db->lite)
                                       : db->last_id;
}

void gguf__db_close(gguf__db *db) {
    if (db == NULL)
        return;
    if (db->lite != NULL)
        sqlite3_close(db->lite);
#ifdef GGUF_HAVE_PG
    gguf__pg_close(db);
#endif
    gguf__free(db->pg_error);
    gguf__free(db);
}

int gguf__db_stat_beside(const char *path, const char *tail, int follow, struct stat *st) {
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s%s", path, tail) >= (int)sizeof p)
        return 1;
    return (follow ? stat(p, st) : lstat(p, st)) == 0 ? 0 : -1;
}

void gguf__db_sqlite_tidy_wal(const char *path) {
    struct stat st;
    if (gguf__db_stat_beside(path, "-wal", 0, &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size != 0)
        return;
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) ==
        SQLITE_OK)
        (void)sqlite3_exec(db, "SELECT 1 FROM sqlite_master LIMIT 1", NULL, NULL, NULL);
    sqlite3_close(db);
}

/* A parameter's text for PostgreSQL (every parameter goes as text). */
static void pg_param(gguf__stmt *st, int col, const char *s, size_t n) {
    if (col < 1 || col > GGUF__DB_MAX_PARAMS)
        return;
    gguf__buf *b = &st->param[col - 1];
    b->len = 0;
    gguf__buf_add(b, s, n);
    gguf__buf_add(b, "", 1);
    st->is_set[col - 1] = 1;
    if (col > st->n_params)
        st->n_params = col;
}

void gguf__bind_null(gguf__stmt *st, int col) {
    if (st->lite != NULL) {
        sqlite3_bind_null(st->lite, col);
    } else if (col >= 1 && col <= GGUF__DB_MAX_PARAMS) {
        st->is_set[col - 1] = 0;
    }
}

void gguf__bind_int64(gguf__stmt *st, int col, int64_t v) {
    if (st->lite != NULL) {
        sqlite3_bind_int64(st->lite, col, (sqlite3_int64)v);
        return;
    }
    char num[24];
    int n = snprintf(num, sizeof num, "%lld", (long long)v);
    pg_param(st, col, num, (size_t)n);
}

void gguf__bind_double(gguf__stmt *st, int col, double v) {
    if (st->lite != NULL) {
        sqlite3_bind_double(st->lite, col, v);
        return;
    }
    char num[40];
    int n = isinf(v) ? snprintf(num, sizeof num, "%sInfinity", v < 0 ? "-" : "")
                     : snprintf(num, sizeof num, "%.17g", v);
    pg_param(st, col, num, (size_t)n);
}

void gguf__bind_text(gguf__stmt *st, int col, const char *s, int n) {
    if (st->lite != NULL) {
        sqlite3_bind_text(st->lite, col, s, n, SQLITE_STATIC);
        return;
    }
    pg_param(st, col, s, n < 0 ? strlen(s) : (size_t)n);
}

void gguf__bind_text_copy(gguf__stmt *st, int col, const char *s, int n) {
    if (st->lite != NULL)
        sqlite3_bind_text(st->lite, col, s, n, SQLITE_TRANSIENT);
    else
        gguf__bind_text(st, col, s, n);
}

void gguf__bind_blob(gguf__stmt *st, int col, const void *p, int n) {
    if (st->lite != NULL) {
        sqlite3_bind_blob(st->lite, col, p, n, SQLITE_STATIC);
        return;
    }
    if (col < 1 || col > GGUF__DB_MAX_PARAMS)
        return;
    gguf__buf *b = &st->param[col - 1];
    const unsigned char *s = p;
    size_t len = (size_t)n;
    b->len = 0;
    for (size_t i = 0; i < len;) {
        size_t k = 1;
        while (k <= 4 && i + k <= len && !gguf__utf8_valid((const char *)s + i, k))
            k++;
        if (k <= 4 && i + k <= len && s[i] != 0) {
            gguf__buf_add(b, s + i, k);
            i += k;
        } else {
            gguf__buf_add(b, "\xef\xbf\xbd", 3);
            i++;
        }
    }
    gguf__buf_add(b, "", 1);
    st->is_set[col - 1] = 1;
    if (col > st->n_params)
        st->n_params = col;
}

void gguf__db_array_add(gguf__db_array *a, gguf__stmt *st, int col) {
    gguf__buf *b = &a->lit;
    gguf__buf_add(b, a->n == 0 ? "{" : ",", 1);
    a->n++;
    if (col < 1 || col > GGUF__DB_MAX_PARAMS || !st->is_set[col - 1]) {
        gguf__buf_add(b, "NULL", 4);
        return;
    }
    /* every element quoted: numbers too, so that "NULL" or an empty string stays a string */
    const gguf__buf *p = &st->param[col - 1];
    const char *v = (const char *)p->data;
    size_t n = p->len - 1, from = 0;
    gguf__buf_add(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        if (v[i] != '"' && v[i] != '\\')
            continue;
        gguf__buf_add(b, v + from, i - from);
        gguf__buf_add(b, "\\", 1);
        from = i;
    }
    gguf__buf_add(b, v + from, n - from);
    gguf__buf_add(b, "\"", 1);
    a->n_values++;
    if (p->failed)
        b->failed = 1;
    st->is_set[col - 1] = 0;
}

int gguf__db_array_bind(gguf__stmt *st, int col, gguf__db_array *a) {
    gguf__buf_add(&a->lit, "}", 1);
    int rc = a->lit.failed ? SQLITE_NOMEM : SQLITE_OK;
    if (rc == SQLITE_OK && a->n_values > 0)
        gguf__bind_text_copy(st, col, (const char *)a->lit.data, (int)a->lit.len);
    else
        gguf__bind_null(st, col);
    if (rc == SQLITE_OK && st->lite == NULL && col >= 1 && col <= GGUF__DB_MAX_PARAMS &&
        st->param[col - 1].failed)
        rc = SQLITE_NOMEM;
    a->lit.len = 0;
    a->lit.failed = 0;
    a->n = a->n_values = 0;
    return rc;
}

int gguf__step(gguf__stmt *st) {
    if (st->lite != NULL)
        return sqlite3_step(st->lite);
#ifdef GGUF_HAVE_PG
    return gguf__pg_step(st, 0);
#else
    return SQLITE_MISUSE;
#endif
}

int gguf__step_done(gguf__stmt *st) {
    int rc;
    if (st->lite != NULL) {
        while ((rc = sqlite3_step(st->lite)) == SQLITE_ROW) {
        }
    } else {
#ifdef GGUF_HAVE_PG
        rc = gguf__pg_step(st, 1);
        if (rc == SQLITE_ROW) /* an INSERT ... RETURNING's row: read by gguf__db_last_id */
            rc = SQLITE_DONE;
#else
        rc = SQLITE_MISUSE;
#endif
    }
    gguf__reset(st);
    return rc;
}

int gguf__col_type(gguf__stmt *st, int col) {
    if (st->lite != NULL)
        return sqlite3_column_type(st->lite, col);
#ifdef GGUF_HAVE_PG
    return gguf__pg_col_type(st, col);
#else
    return SQLITE_NULL;
#endif
}

const char *gguf__col_text(gguf__stmt *st, int col) {
    if (st->lite != NULL)
        return (const char *)sqlite3_column_text(st->lite, col);
#ifdef GGUF_HAVE_PG
    return gguf__pg_col_text(st, col, NULL);
#else
    return NULL;
#endif
}

const void *gguf__col_blob(gguf__stmt *st, int col) {
    if (st->lite != NULL)
        return sqlite3_column_blob(st->lite, col);
    return gguf__col_text(st, col);
}

int gguf__col_bytes(gguf__stmt *st, int col) {
    if (st->lite != NULL)
        return sqlite3_column_bytes(st->lite, col);
#ifdef GGUF_HAVE_PG
    int len = 0;
    gguf__pg_col_text(st, col, &len);
    return len;
#else
    return 0;
#endif
}

int64_t gguf__col_int64(gguf__stmt *st, int col) {
    if (st->lite != NULL)
        return sqlite3_column_int64(st->lite, col);
#ifdef GGUF_HAVE_PG
    if (gguf__col_type(st, col) == SQLITE_FLOAT) { /* as SQLite: clamped, NaN 0 */
        double d = gguf__pg_col_double(st, col);
        return d >= 9223372036854775807.0 ? INT64_MAX : d <= -9223372036854775808.0 ? INT64_MIN
               : d == d                   ? (int64_t)d
                                          : 0;
    }
#endif
    const char *t = gguf__col_text(st, col);
    return t != NULL ? strtoll(t, NULL, 10) : 0;
}

double gguf__col_double(gguf__stmt *st, int col) {
    if (st->lite != NULL)
        return sqlite3_column_double(st->lite, col);
#ifdef GGUF_HAVE_PG
    return gguf__pg_col_double(st, col);
#else
    return 0;
#endif
}

/* ---- the catalog's use of it ---- */

int64_t gguf__catalog_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int gguf__catalog_db_fail(gguf_error *err, gguf__db *db, int rc, const char *path,
                          const char *what) {
    int code;
    switch (rc & 0xff) {
    case SQLITE_NOMEM: code = GGUF_ENOMEM; break;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: code = GGUF_ECORRUPT; break;
    default: code = GGUF_EIO; break;
    }
    const char *msg = db != NULL ? gguf__db_errmsg(db) : sqlite3_errstr(rc);
    return gguf__fail(err, code, GGUF_ERROR_NO_OFFSET, "catalog %s: %s: %s", path ? path : "",
                      what, msg);
}

int gguf__catalog_connect(gguf__db **out, const char *path, int readonly, int create,
                          gguf_error *err) {
    if (gguf__db_is_pg_url(path)) {
#ifdef GGUF_HAVE_PG
        (void)create;
        return gguf__pg_connect(out, path, readonly ? GGUF__PG_READER : NULL, err);
#else
        char *shown = gguf__db_redact(path);
        int rc = gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                            "catalog %s: this libgguf was built without PostgreSQL (libpq)",
                            shown != NULL ? shown : "postgresql://");
        gguf__free(shown);
        return rc;
#endif
    }
    sqlite3 *db = NULL;
    int oflags = readonly ? SQLITE_OPEN_READONLY
                          : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    int rc = sqlite3_open_v2(path, &db, oflags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        if (db == NULL)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        gguf__db d = {.kind = GGUF__DB_SQLITE, .lite = db};
        rc = gguf__catalog_db_fail(err, &d, rc, path, "cannot open");
        sqlite3_close(db);
        return rc;
    }
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, GGUF__CATALOG_BUSY_TIMEOUT_MS);
    gguf__db *d = gguf__calloc(1, sizeof *d);
    if (d == NULL) {
        sqlite3_close(db);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    d->kind = GGUF__DB_SQLITE;
    d->lite = db;
    *out = d;
    return 0;
}

int gguf__catalog_exec(gguf_catalog *cat, const char *sql, const char *what, gguf_error *err) {
    int rc = gguf__db_exec(cat->db, sql, NULL);
    if (rc != SQLITE_OK)
        return gguf__catalog_db_fail(err, cat->db, rc, cat->path, what);
    return 0;
}

int gguf__catalog_stmt(gguf__stmt **out, gguf_catalog *cat, int which, gguf_error *err) {
    if (cat->st[which] == NULL) {
        int rc = gguf__db_prepare(&cat->st[which], cat->db, stmt_sql[which], stmt_pg[which], 1);
        if (rc != SQLITE_OK)
            return gguf__catalog_db_fail(err, cat->db, rc, cat->path, "preparing a statement");
    } else {
        gguf__reset(cat->st[which]);
    }
    *out = cat->st[which];
    return 0;
}

int gguf__catalog_step_done(gguf_catalog *cat, gguf__stmt *st, const char *what,
                            gguf_error *err) {
    int rc = gguf__step_done(st);
    if (rc != SQLITE_DONE)
        return gguf__catalog_db_fail(err, cat->db, rc, cat->path, what);
    return 0;
}

int gguf__catalog_query_int(gguf__db *db, const char *sql, int64_t *out) {
    gguf__stmt *st;
    int rc = gguf__db_prepare(&st, db, sql, NULL, 0);
    if (rc != SQLITE_OK)
        return rc;
    rc = gguf__step(st);
    if (rc == SQLITE_ROW) {
        *out = gguf__col_int64(st, 0);
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
        *out = 0;
        rc = SQLITE_OK;
    }
    gguf__finalize(st);
    return rc;
}

int gguf__catalog_txn_begin(gguf_catalog *cat, gguf_error *err) {
    if (cat->in_txn)
        return 0;
    int rc = gguf__catalog_exec(cat, cat->pg ? "BEGIN" : "BEGIN IMMEDIATE", "taking the write lock",
                                err);
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
        gguf__db_exec(cat->db, "ROLLBACK", NULL);
    cat->in_txn = 0;
    return rc;
}

void gguf__catalog_txn_rollback(gguf_catalog *cat) {
    if (cat->in_txn)
        gguf__db_exec(cat->db, "ROLLBACK", NULL);
    cat->in_txn = 0;
}

int gguf__catalog_txn_maybe_commit(gguf_catalog *cat, int force, gguf_error *err) {
    if (!cat->in_txn)
        return 0;
    cat->txn_files++;
    if (force || cat->txn_files >= (cat->pg ? BATCH_FILES_PG : BATCH_FILES) ||
        gguf__catalog_now_ns() - cat->txn_start >= BATCH_NS)
        return gguf__catalog_txn_commit(cat, err);
    return 0;
}

#endif /* GGUF_HAVE_CATALOG */
