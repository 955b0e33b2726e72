/* The catalog: a SQLite database of many GGUF files (files, kv, tensors, errors, a models
 * view), filled from headers by walking folders, queried read-only with SQL, and re-checked
 * against stored crc32s. This is the only file that includes sqlite3.h; without SQLite
 * (configure --disable-catalog, or no SQLite found) the API is here but answers "not built".
 *
 * Concurrency: the database runs in WAL mode with a busy timeout. Writers take the write lock
 * with BEGIN IMMEDIATE (so a busy writer waits instead of failing on a lock upgrade), write a
 * file's rows, and commit in small batches (at most BATCH_FILES files or BATCH_NS of work,
 * never splitting one file's rows), so two `index` runs interleave file by file. Slow work
 * (parsing, crc32 of tensor bytes) happens before the lock is taken when it can. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "commit/commit.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static int default_path(char *buf, size_t size, gguf_error *err) {
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    int n;
    if (buf == NULL || size == 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no buffer for the path");
    if (xdg != NULL && xdg[0] == '/')
        n = snprintf(buf, size, "%s/gguf/catalog.db", xdg);
    else if (home != NULL && home[0] != '\0')
        n = snprintf(buf, size, "%s/.local/share/gguf/catalog.db", home);
    else
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "no default catalog path: neither XDG_DATA_HOME nor HOME is set");
    if (n < 0 || (size_t)n >= size)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "the default catalog path does not fit in %zu bytes", size);
    return 0;
}

int gguf_catalog_default_path(char *buf, size_t size, gguf_error *err) {
    char tmp[PATH_MAX];
    int rc = default_path(tmp, sizeof tmp, err);
    if (rc != 0)
        return rc;
    if (size == 0 || buf == NULL || strlen(tmp) >= size)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "the default catalog path does not fit in %zu bytes", size);
    memcpy(buf, tmp, strlen(tmp) + 1);
    return 0;
}

#ifndef GGUF_HAVE_CATALOG

/* ---- no SQLite in this build: every call says so ---- */

#define NOT_BUILT(err)                                                                          \
    gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,                                    \
               "catalog not built: this libgguf was configured without SQLite")

int gguf_catalog_available(void) { return 0; }

int gguf_catalog_open(gguf_catalog **out, const char *path, unsigned flags, gguf_error *err) {
    (void)out, (void)path, (void)flags;
    return NOT_BUILT(err);
}

void gguf_catalog_close(gguf_catalog *cat) { (void)cat; }

const char *gguf_catalog_path(const gguf_catalog *cat) {
    (void)cat;
    return NULL;
}

int gguf_catalog_index(gguf_catalog_stats *stats, gguf_catalog *cat, const char *const *paths,
                       size_t n_paths, const gguf_catalog_index_options *opt, gguf_error *err) {
    (void)stats, (void)cat, (void)paths, (void)n_paths, (void)opt;
    return NOT_BUILT(err);
}

int gguf_catalog_prune(gguf_catalog_stats *stats, gguf_catalog *cat, gguf_catalog_event_fn fn,
                       void *user, gguf_error *err) {
    (void)stats, (void)cat, (void)fn, (void)user;
    return NOT_BUILT(err);
}

int gguf_catalog_query(gguf_catalog *cat, const char *sql, gguf_catalog_row_fn fn, void *user,
                       gguf_error *err) {
    (void)cat, (void)sql, (void)fn, (void)user;
    return NOT_BUILT(err);
}

int gguf_catalog_verify(gguf_catalog_verify_stats *stats, gguf_catalog *cat,
                        const char *const *paths, size_t n_paths, gguf_catalog_finding_fn fn,
                        void *user, gguf_error *err) {
    (void)stats, (void)cat, (void)paths, (void)n_paths, (void)fn, (void)user;
    return NOT_BUILT(err);
}

#ifdef GGUF_ALLOC_FAULTS
GGUF_API int gguf_testing_catalog_exec(const char *path, const char *sql, gguf_error *err);
int gguf_testing_catalog_exec(const char *path, const char *sql, gguf_error *err) {
    (void)path, (void)sql;
    return NOT_BUILT(err);
}
#endif

#else /* GGUF_HAVE_CATALOG */

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

#define APPLICATION_ID 1195857222 /* 0x47475546, "GGUF" (also spelled out in schema_v1) */
_Static_assert(APPLICATION_ID == 0x47475546, "application_id is \"GGUF\"");
#define BUSY_TIMEOUT_MS 60000
#define BATCH_FILES 200
#define BATCH_NS 100000000LL  /* 0.1 s of work per write transaction at most */
#define JSON_MAX ((size_t)1 << 20) /* arrays whose JSON would exceed this keep text NULL */
#define MAX_WALK_DEPTH 256

int gguf_catalog_available(void) { return 1; }

/* ---- prepared statements ---- */

enum {
    ST_FILE_ID,
    ST_FILE_INSERT,
    ST_FILE_UPDATE,
    ST_FILE_DELETE,
    ST_KV_DELETE,
    ST_KV_INSERT,
    ST_TENSOR_DELETE,
    ST_TENSOR_INSERT,
    ST_ERROR_DELETE,
    ST_ERROR_UPSERT,
    ST_COUNT
};

#define FILE_COLUMNS                                                                            \
    "path, dev, ino, size, mtime_ns, version, endian, alignment, data_offset, n_kv, n_tensors, " \
    "header_crc32, open_flags, has_crc, indexed_at, n_params, tensor_bytes, dominant_type, "    \
    "split_set, split_no, split_count"

static const char *const stmt_sql[ST_COUNT] = {
    [ST_FILE_ID] = "SELECT id FROM files WHERE path = ?1",
    [ST_FILE_INSERT] = "INSERT INTO files (" FILE_COLUMNS ") VALUES "
                       "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
                       "?17, ?18, ?19, ?20, ?21)",
    [ST_FILE_UPDATE] = "UPDATE files SET path = ?1, dev = ?2, ino = ?3, size = ?4, mtime_ns = ?5, "
                       "version = ?6, endian = ?7, alignment = ?8, data_offset = ?9, n_kv = ?10, "
                       "n_tensors = ?11, header_crc32 = ?12, open_flags = ?13, has_crc = ?14, "
                       "indexed_at = ?15, n_params = ?16, tensor_bytes = ?17, "
                       "dominant_type = ?18, split_set = ?19, split_no = ?20, "
                       "split_count = ?21 WHERE id = ?22",
    [ST_FILE_DELETE] = "DELETE FROM files WHERE id = ?1",
    [ST_KV_DELETE] = "DELETE FROM kv WHERE file = ?1",
    [ST_KV_INSERT] = "INSERT INTO kv (file, position, key, type, elem_type, array_len, int, real, "
                     "text) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    [ST_TENSOR_DELETE] = "DELETE FROM tensors WHERE file = ?1",
    [ST_TENSOR_INSERT] = "INSERT INTO tensors (file, position, name, type, type_id, n_dims, ne0, "
                         "ne1, ne2, ne3, offset, nbytes, crc32) VALUES "
                         "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    [ST_ERROR_DELETE] = "DELETE FROM errors WHERE path = ?1",
    [ST_ERROR_UPSERT] = "INSERT OR REPLACE INTO errors (path, dev, ino, size, mtime_ns, code, "
                        "error, offset, message, indexed_at) VALUES "
                        "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
};

struct gguf_catalog {
    sqlite3 *db; /* read-write connection; NULL when opened read-only */
    sqlite3 *ro; /* read-only connection for user SQL (opened on first query) */
    char *path;
    unsigned flags;
    int denied;           /* the authorizer refused something in the current query */
    int in_txn;           /* a write transaction is open on db */
    int txn_files;        /* files written in it */
    long long txn_start;  /* when it began (monotonic ns) */
    sqlite3_stmt *st[ST_COUNT];
};

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = gguf__malloc(n);
    if (p != NULL)
        memcpy(p, s, n);
    return p;
}

/* Maps a SQLite result code to ours and records "catalog PATH: what: sqlite's message". */
static int db_fail(gguf_error *err, sqlite3 *db, int rc, const char *path, const char *what) {
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

static int exec(gguf_catalog *cat, const char *sql, const char *what, gguf_error *err) {
    int rc = sqlite3_exec(cat->db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return db_fail(err, cat->db, rc, cat->path, what);
    return 0;
}

static int get_stmt(sqlite3_stmt **out, gguf_catalog *cat, int which, gguf_error *err) {
    if (cat->st[which] == NULL) {
        int rc = sqlite3_prepare_v3(cat->db, stmt_sql[which], -1, SQLITE_PREPARE_PERSISTENT,
                                    &cat->st[which], NULL);
        if (rc != SQLITE_OK)
            return db_fail(err, cat->db, rc, cat->path, "preparing a statement");
    } else {
        sqlite3_reset(cat->st[which]);
        sqlite3_clear_bindings(cat->st[which]);
    }
    *out = cat->st[which];
    return 0;
}

/* Runs a statement that returns no rows (or whose rows are ignored). */
static int step_done(gguf_catalog *cat, sqlite3_stmt *st, const char *what, gguf_error *err) {
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return db_fail(err, cat->db, rc, cat->path, what);
    return 0;
}

/* The identity of a database, read in one statement (one snapshot: another process may be
 * creating the schema right now). */
static int read_identity(sqlite3 *db, int64_t *version, int64_t *app_id, int64_t *n_tables) {
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT (SELECT user_version FROM pragma_user_version),"
                                " (SELECT application_id FROM pragma_application_id),"
                                " (SELECT count(*) FROM sqlite_master)",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *version = sqlite3_column_int64(st, 0);
        *app_id = sqlite3_column_int64(st, 1);
        *n_tables = sqlite3_column_int64(st, 2);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

/* An integer read as a single value. */
static int query_int(sqlite3 *db, const char *sql, int64_t *out) {
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

/* ---- transactions ---- */

static int txn_begin(gguf_catalog *cat, gguf_error *err) {
    if (cat->in_txn)
        return 0;
    int rc = exec(cat, "BEGIN IMMEDIATE", "taking the write lock", err);
    if (rc != 0)
        return rc;
    cat->in_txn = 1;
    cat->txn_files = 0;
    cat->txn_start = now_ns();
    return 0;
}

static int txn_commit(gguf_catalog *cat, gguf_error *err) {
    if (!cat->in_txn)
        return 0;
    int rc = exec(cat, "COMMIT", "committing", err);
    if (rc != 0) {
        sqlite3_exec(cat->db, "ROLLBACK", NULL, NULL, NULL);
        cat->in_txn = 0;
        return rc;
    }
    cat->in_txn = 0;
    return 0;
}

static void txn_rollback(gguf_catalog *cat) {
    if (cat->in_txn)
        sqlite3_exec(cat->db, "ROLLBACK", NULL, NULL, NULL);
    cat->in_txn = 0;
}

/* Commits when the batch is full or old enough (never in the middle of a file). */
static int txn_maybe_commit(gguf_catalog *cat, int force, gguf_error *err) {
    if (!cat->in_txn)
        return 0;
    cat->txn_files++;
    if (force || cat->txn_files >= BATCH_FILES || now_ns() - cat->txn_start >= BATCH_NS)
        return txn_commit(cat, err);
    return 0;
}

/* ---- names and tables ---- */

/* llama.cpp's enum llama_ftype (general.file_type), named like its quantize presets. */
static const struct {
    int id;
    const char *name;
} file_type_names[] = {
    {0, "F32"},        {1, "F16"},       {2, "Q4_0"},       {3, "Q4_1"},
    {4, "Q4_1_SOME_F16"}, {7, "Q8_0"},   {8, "Q5_0"},       {9, "Q5_1"},
    {10, "Q2_K"},      {11, "Q3_K_S"},   {12, "Q3_K_M"},    {13, "Q3_K_L"},
    {14, "Q4_K_S"},    {15, "Q4_K_M"},   {16, "Q5_K_S"},    {17, "Q5_K_M"},
    {18, "Q6_K"},      {19, "IQ2_XXS"},  {20, "IQ2_XS"},    {21, "Q2_K_S"},
    {22, "IQ3_XS"},    {23, "IQ3_XXS"},  {24, "IQ1_S"},     {25, "IQ4_NL"},
    {26, "IQ3_S"},     {27, "IQ3_M"},    {28, "IQ2_S"},     {29, "IQ2_M"},
    {30, "IQ4_XS"},    {31, "IQ1_M"},    {32, "BF16"},      {33, "Q4_0_4_4"},
    {34, "Q4_0_4_8"},  {35, "Q4_0_8_8"}, {36, "TQ1_0"},     {37, "TQ2_0"},
    {38, "MXFP4_MOE"}, {39, "NVFP4"},    {40, "Q1_0"},      {1024, "GUESSED"},
};

/* The path of a split set: "dir/name-00002-of-00005.gguf" -> "dir/name"; other names stay. */
static size_t split_set_len(const char *path, size_t len) {
    static const char tail[] = "-NNNNN-of-NNNNN.gguf";
    size_t tl = sizeof tail - 1;
    if (len < tl)
        return len;
    const char *t = path + len - tl;
    for (size_t i = 0; i < tl; i++) {
        if (tail[i] == 'N' ? (t[i] < '0' || t[i] > '9') : t[i] != tail[i])
            return len;
    }
    return len - tl;
}

/* SQL functions used by migrations (not by views: those stay readable by any SQLite). */
static void sql_split_set(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    const char *p = (const char *)sqlite3_value_text(argv[0]);
    if (p == NULL) {
        sqlite3_result_null(ctx);
        return;
    }
    size_t n = (size_t)sqlite3_value_bytes(argv[0]);
    sqlite3_result_text(ctx, p, (int)split_set_len(p, n), SQLITE_TRANSIENT);
}

static void sql_dtype_id(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    const char *name = (const char *)sqlite3_value_text(argv[0]);
    int id = name != NULL ? gguf_dtype_parse(name) : -1;
    if (id < 0 && name != NULL && strncmp(name, "TYPE_", 5) == 0) {
        char *end;
        unsigned long v = strtoul(name + 5, &end, 10);
        if (end != name + 5 && *end == '\0' && v <= UINT32_MAX) {
            sqlite3_result_int64(ctx, (sqlite3_int64)v);
            return;
        }
    }
    if (id < 0)
        sqlite3_result_null(ctx);
    else
        sqlite3_result_int(ctx, id);
}

/* ---- schema and migrations ----
 *
 * Version 1: the tables DESIGN.md §6 sketched (files with size and mtime in seconds, kv,
 *            tensors, a small models view).
 * Version 2: an errors table for files the reader refuses; files identified by device, inode,
 *            size and mtime in nanoseconds; the open flags and whether crc32s were stored.
 * Version 3: facts derived from the header kept on files (parameter count, tensor bytes,
 *            dominant type, split set), tensors.type_id, file_types, an index on kv(file, key)
 *            for the per-file lookups of the models view, and the full models view.
 *
 * A new catalog is made by running every step from 0, so the steps are always exercised; each
 * step runs inside the one migration transaction and ends by setting user_version. */

static const char schema_v1[] =
    "PRAGMA application_id = 1195857222;"
    "CREATE TABLE files ("
    " id INTEGER PRIMARY KEY,"
    " path TEXT NOT NULL UNIQUE,"
    " size INTEGER NOT NULL,"
    " mtime INTEGER NOT NULL,"
    " version INTEGER, endian TEXT, alignment INTEGER, data_offset INTEGER,"
    " n_kv INTEGER, n_tensors INTEGER, header_crc32 INTEGER,"
    " indexed_at INTEGER NOT NULL);"
    "CREATE TABLE kv ("
    " file INTEGER NOT NULL REFERENCES files(id),"
    " position INTEGER NOT NULL,"
    " key TEXT NOT NULL, type TEXT NOT NULL, elem_type TEXT, array_len INTEGER,"
    " int INTEGER, real REAL, text TEXT,"
    " PRIMARY KEY (file, position));"
    "CREATE INDEX kv_key ON kv(key);"
    "CREATE TABLE tensors ("
    " file INTEGER NOT NULL REFERENCES files(id),"
    " position INTEGER NOT NULL,"
    " name TEXT NOT NULL, type TEXT NOT NULL, n_dims INTEGER NOT NULL,"
    " ne0 INTEGER, ne1 INTEGER, ne2 INTEGER, ne3 INTEGER,"
    " offset INTEGER NOT NULL, nbytes INTEGER, crc32 INTEGER,"
    " PRIMARY KEY (file, position)) WITHOUT ROWID;"
    "CREATE INDEX tensors_name ON tensors(name);"
    "CREATE VIEW models AS SELECT f.id AS file, f.path AS path,"
    " (SELECT text FROM kv WHERE kv.file = f.id AND kv.key = 'general.architecture') AS architecture,"
    " (SELECT text FROM kv WHERE kv.file = f.id AND kv.key = 'general.name') AS name,"
    " (SELECT int FROM kv WHERE kv.file = f.id AND kv.key = 'general.file_type') AS file_type,"
    " (SELECT c.int FROM kv c WHERE c.file = f.id AND c.key = (SELECT text FROM kv WHERE"
    " kv.file = f.id AND kv.key = 'general.architecture') || '.context_length') AS context_length,"
    " (SELECT sum(ne0 * ne1 * ne2 * ne3) FROM tensors t WHERE t.file = f.id) AS n_params,"
    " f.size AS size FROM files f;"
    "PRAGMA user_version = 1;";

static const char schema_v2[] =
    "DROP VIEW models;"
    "CREATE TABLE files_v2 ("
    " id INTEGER PRIMARY KEY,"
    " path TEXT NOT NULL UNIQUE,"
    " dev INTEGER, ino INTEGER,"
    " size INTEGER NOT NULL,"
    " mtime_ns INTEGER NOT NULL,"
    " version INTEGER, endian TEXT, alignment INTEGER, data_offset INTEGER,"
    " n_kv INTEGER, n_tensors INTEGER, header_crc32 INTEGER,"
    " open_flags INTEGER NOT NULL DEFAULT 0,"
    " has_crc INTEGER NOT NULL DEFAULT 0,"
    " indexed_at INTEGER NOT NULL);"
    "INSERT INTO files_v2 (id, path, dev, ino, size, mtime_ns, version, endian, alignment,"
    " data_offset, n_kv, n_tensors, header_crc32, open_flags, has_crc, indexed_at)"
    " SELECT id, path, NULL, NULL, size, mtime * 1000000000, version, endian, alignment,"
    " data_offset, n_kv, n_tensors, header_crc32, 0,"
    " EXISTS (SELECT 1 FROM tensors t WHERE t.file = files.id AND t.crc32 IS NOT NULL),"
    " indexed_at FROM files;"
    "DROP TABLE files;"
    "ALTER TABLE files_v2 RENAME TO files;"
    "CREATE TABLE errors ("
    " path TEXT PRIMARY KEY,"
    " dev INTEGER, ino INTEGER, size INTEGER, mtime_ns INTEGER,"
    " code INTEGER NOT NULL, error TEXT, offset INTEGER, message TEXT NOT NULL,"
    " indexed_at INTEGER NOT NULL);"
    "CREATE VIEW models AS SELECT f.id AS file, f.path AS path,"
    " (SELECT text FROM kv WHERE kv.file = f.id AND kv.key = 'general.architecture') AS architecture,"
    " (SELECT text FROM kv WHERE kv.file = f.id AND kv.key = 'general.name') AS name,"
    " (SELECT int FROM kv WHERE kv.file = f.id AND kv.key = 'general.file_type') AS file_type,"
    " (SELECT c.int FROM kv c WHERE c.file = f.id AND c.key = (SELECT text FROM kv WHERE"
    " kv.file = f.id AND kv.key = 'general.architecture') || '.context_length') AS context_length,"
    " (SELECT sum(ne0 * ne1 * ne2 * ne3) FROM tensors t WHERE t.file = f.id) AS n_params,"
    " f.size AS size FROM files f;"
    "PRAGMA user_version = 2;";

/* file_types rows are inserted by code after this step. */
static const char schema_v3[] =
    "DROP VIEW models;"
    "ALTER TABLE files ADD COLUMN n_params INTEGER;"
    "ALTER TABLE files ADD COLUMN tensor_bytes INTEGER;"
    "ALTER TABLE files ADD COLUMN dominant_type TEXT;"
    "ALTER TABLE files ADD COLUMN split_set TEXT;"
    "ALTER TABLE files ADD COLUMN split_no INTEGER;"
    "ALTER TABLE files ADD COLUMN split_count INTEGER;"
    "ALTER TABLE tensors ADD COLUMN type_id INTEGER;"
    "UPDATE tensors SET type_id = gguf__dtype_id(type);"
    "UPDATE files SET"
    " n_params = (SELECT sum(ne0 * ne1 * ne2 * ne3) FROM tensors t WHERE t.file = files.id),"
    " tensor_bytes = (SELECT sum(nbytes) FROM tensors t WHERE t.file = files.id),"
    " dominant_type = (SELECT type FROM tensors t WHERE t.file = files.id"
    "  AND type NOT LIKE 'TYPE\\_%' ESCAPE '\\'"
    "  GROUP BY type ORDER BY sum(ne0 * ne1 * ne2 * ne3) DESC, min(type_id) LIMIT 1),"
    " split_no = (SELECT int FROM kv WHERE kv.file = files.id AND kv.key = 'split.no'),"
    " split_count = (SELECT int FROM kv WHERE kv.file = files.id AND kv.key = 'split.count');"
    "UPDATE files SET split_set = gguf__split_set(path) WHERE split_count IS NOT NULL;"
    "CREATE INDEX files_split_set ON files(split_set);"
    "CREATE INDEX kv_file_key ON kv(file, key);"
    "CREATE TABLE file_types (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
    "CREATE VIEW models AS SELECT f.id AS file, f.path AS path, f.arch AS architecture,"
    " (SELECT text FROM kv WHERE kv.file = f.id AND kv.key = 'general.name') AS name,"
    " (SELECT text FROM kv WHERE kv.file = f.id AND kv.key = 'general.size_label') AS size_label,"
    " (SELECT coalesce(ft.name, 'FTYPE_' || kv.int) FROM kv LEFT JOIN file_types ft"
    "  ON ft.id = kv.int WHERE kv.file = f.id AND kv.key = 'general.file_type') AS file_type,"
    " f.dominant_type AS quant,"
    " (SELECT int FROM kv WHERE kv.file = f.id AND kv.key = f.arch || '.context_length')"
    "  AS context_length,"
    " (SELECT int FROM kv WHERE kv.file = f.id AND kv.key = f.arch || '.embedding_length')"
    "  AS embedding_length,"
    " (SELECT int FROM kv WHERE kv.file = f.id AND kv.key = f.arch || '.block_count')"
    "  AS block_count,"
    " f.n_params AS n_params, f.size AS bytes, f.tensor_bytes AS tensor_bytes,"
    " f.split_no AS split_no, f.split_count AS split_count,"
    " CASE WHEN f.split_count IS NULL THEN NULL ELSE"
    "  (SELECT count(DISTINCT g.split_no) FROM files g WHERE g.split_set = f.split_set"
    "   AND g.split_count = f.split_count AND g.split_no >= 0 AND g.split_no < g.split_count)"
    "  = f.split_count END AS split_complete"
    " FROM (SELECT files.*, (SELECT text FROM kv WHERE kv.file = files.id"
    "  AND kv.key = 'general.architecture' LIMIT 1) AS arch FROM files) f;"
    "PRAGMA user_version = 3;";

static int fill_file_types(gguf_catalog *cat, gguf_error *err) {
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(cat->db, "INSERT OR REPLACE INTO file_types (id, name) VALUES (?1, ?2)",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_fail(err, cat->db, rc, cat->path, "filling file_types");
    for (size_t i = 0; i < sizeof file_type_names / sizeof file_type_names[0]; i++) {
        sqlite3_bind_int(st, 1, file_type_names[i].id);
        sqlite3_bind_text(st, 2, file_type_names[i].name, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE) {
            db_fail(err, cat->db, rc, cat->path, "filling file_types");
            sqlite3_finalize(st);
            return err != NULL ? err->code : GGUF_EIO;
        }
    }
    sqlite3_finalize(st);
    return 0;
}

static const char *const migrations[GGUF_CATALOG_SCHEMA_VERSION] = {schema_v1, schema_v2,
                                                                     schema_v3};

/* Reads the schema version, refusing databases that are not catalogs (a database with tables
 * but no version, or another application id) and catalogs newer than this library. */
static int schema_version(int64_t *version, gguf_catalog *cat, gguf_error *err) {
    int64_t app_id = 0, n_tables = 0;
    int rc = read_identity(cat->db, version, &app_id, &n_tables);
    if (rc != SQLITE_OK)
        return db_fail(err, cat->db, rc, cat->path, "reading the schema version");
    if ((*version == 0 && n_tables > 0) || (*version > 0 && app_id != APPLICATION_ID))
        return gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                          "catalog %s: not a gguf catalog (a database with other tables)",
                          cat->path);
    if (*version > GGUF_CATALOG_SCHEMA_VERSION)
        return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                          "catalog %s: schema version %" PRId64
                          " is newer than this library's (%d): upgrade libgguf",
                          cat->path, *version, GGUF_CATALOG_SCHEMA_VERSION);
    return 0;
}

/* Brings the schema to the current version, in one transaction. */
static int migrate(gguf_catalog *cat, gguf_error *err) {
    int64_t version;
    int rc = schema_version(&version, cat, err);
    if (rc != 0 || version == GGUF_CATALOG_SCHEMA_VERSION)
        return rc;
    rc = txn_begin(cat, err);
    if (rc != 0)
        return rc;
    /* again under the write lock: another process may have migrated meanwhile */
    rc = schema_version(&version, cat, err);
    if (rc != 0) {
        txn_rollback(cat);
        return rc;
    }
    for (int64_t v = version; v < GGUF_CATALOG_SCHEMA_VERSION; v++) {
        char what[64];
        snprintf(what, sizeof what, "migrating to schema version %d", (int)v + 1);
        rc = exec(cat, migrations[v], what, err);
        if (rc == 0 && v + 1 == 3)
            rc = fill_file_types(cat, err);
        if (rc != 0) {
            txn_rollback(cat);
            return rc;
        }
    }
    return txn_commit(cat, err);
}

/* ---- opening ---- */

/* mkdir -p of the folders above path (for the default path). */
static int make_parents(const char *path, gguf_error *err) {
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n >= sizeof buf)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "catalog path too long");
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i < n; i++) {
        if (buf[i] != '/')
            continue;
        buf[i] = '\0';
        if (mkdir(buf, 0700) != 0 && errno != EEXIST)
            return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot create folder %s: %s",
                              buf, strerror(errno));
        buf[i] = '/';
    }
    return 0;
}

static int open_connection(sqlite3 **out, const char *path, int readonly, int create,
                           gguf_error *err) {
    sqlite3 *db = NULL;
    int oflags = readonly ? SQLITE_OPEN_READONLY
                          : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    int rc = sqlite3_open_v2(path, &db, oflags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        if (db == NULL)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        db_fail(err, db, rc, path, "cannot open");
        sqlite3_close(db);
        return err != NULL ? err->code : GGUF_EIO;
    }
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
    *out = db;
    return 0;
}

/* Switches to WAL (persistent in the file). Another process switching at the same time may
 * hold the lock for a moment: retry until the busy timeout. */
static int use_wal(gguf_catalog *cat, gguf_error *err) {
    long long deadline = now_ns() + (long long)BUSY_TIMEOUT_MS * 1000000LL;
    for (;;) {
        sqlite3_stmt *st;
        int rc = sqlite3_prepare_v2(cat->db, "PRAGMA journal_mode = WAL", -1, &st, NULL);
        if (rc == SQLITE_OK) {
            rc = sqlite3_step(st);
            if (rc == SQLITE_ROW) {
                const char *mode = (const char *)sqlite3_column_text(st, 0);
                int wal = mode != NULL && sqlite3_stricmp(mode, "wal") == 0;
                sqlite3_finalize(st);
                if (!wal)
                    return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                                      "catalog %s: cannot switch to WAL mode", cat->path);
                return 0;
            }
            sqlite3_finalize(st);
        }
        if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
            return db_fail(err, cat->db, rc, cat->path, "switching to WAL mode");
        if (now_ns() > deadline)
            return db_fail(err, cat->db, rc, cat->path, "switching to WAL mode");
        sqlite3_sleep(10);
    }
}

static void register_functions(sqlite3 *db) {
    sqlite3_create_function(db, "gguf__split_set", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                            sql_split_set, NULL, NULL);
    sqlite3_create_function(db, "gguf__dtype_id", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                            sql_dtype_id, NULL, NULL);
}

/* Checks that a read-only connection sees a current catalog. */
static int check_readonly_schema(sqlite3 *db, const char *path, gguf_error *err) {
    int64_t version = 0, app_id = 0, n_tables = 0;
    int rc = read_identity(db, &version, &app_id, &n_tables);
    if (rc != SQLITE_OK)
        return db_fail(err, db, rc, path, "reading the schema version");
    if (version == 0 || app_id != APPLICATION_ID)
        return gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                          "catalog %s: not a gguf catalog", path);
    if (version > GGUF_CATALOG_SCHEMA_VERSION)
        return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                          "catalog %s: schema version %" PRId64
                          " is newer than this library's (%d): upgrade libgguf",
                          path, version, GGUF_CATALOG_SCHEMA_VERSION);
    if (version < GGUF_CATALOG_SCHEMA_VERSION)
        return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                          "catalog %s: schema version %" PRId64
                          " must be upgraded to %d: open it read-write once (gguf-catalog index)",
                          path, version, GGUF_CATALOG_SCHEMA_VERSION);
    return 0;
}

void gguf_catalog_close(gguf_catalog *cat) {
    if (cat == NULL)
        return;
    if (cat->db != NULL) {
        if (cat->in_txn)
            sqlite3_exec(cat->db, "COMMIT", NULL, NULL, NULL);
        for (int i = 0; i < ST_COUNT; i++)
            sqlite3_finalize(cat->st[i]);
        sqlite3_close(cat->db);
    }
    if (cat->ro != NULL)
        sqlite3_close(cat->ro);
    gguf__free(cat->path);
    gguf__free(cat);
}

int gguf_catalog_open(gguf_catalog **out, const char *path, unsigned flags, gguf_error *err) {
    char defpath[PATH_MAX];
    if (out == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no output for the catalog");
    int readonly = (flags & GGUF_CATALOG_OPEN_READONLY) != 0;
    int create = !readonly && !(flags & GGUF_CATALOG_OPEN_NOCREATE);
    int rc;
    if (path == NULL) {
        rc = default_path(defpath, sizeof defpath, err);
        if (rc != 0)
            return rc;
        path = defpath;
    }
    struct stat st;
    if (!create && stat(path, &st) != 0)
        return gguf__fail(err, GGUF_ENOTFOUND, GGUF_ERROR_NO_OFFSET, "no catalog at %s", path);
    if (create && path == defpath) {
        rc = make_parents(path, err);
        if (rc != 0)
            return rc;
    }
    gguf_catalog *cat = gguf__calloc(1, sizeof *cat);
    if (cat == NULL || (cat->path = dup_str(path)) == NULL) {
        gguf__free(cat);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    cat->flags = flags;
    if (readonly) {
        rc = open_connection(&cat->ro, path, 1, 0, err);
        if (rc == 0)
            rc = check_readonly_schema(cat->ro, path, err);
    } else {
        int64_t version;
        rc = open_connection(&cat->db, path, 0, create, err);
        if (rc == 0) {
            register_functions(cat->db);
            rc = schema_version(&version, cat, err); /* before touching somebody else's file */
        }
        if (rc == 0)
            rc = use_wal(cat, err);
        if (rc == 0)
            rc = exec(cat, "PRAGMA synchronous = NORMAL", "setting synchronous mode", err);
        if (rc == 0)
            rc = migrate(cat, err);
    }
    if (rc != 0) {
        gguf_catalog_close(cat);
        return rc;
    }
    *out = cat;
    return 0;
}

const char *gguf_catalog_path(const gguf_catalog *cat) { return cat != NULL ? cat->path : NULL; }

static int need_writable(gguf_catalog *cat, const char *what, gguf_error *err) {
    if (cat == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no catalog");
    if (cat->db == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "catalog %s: opened read-only, cannot %s", cat->path, what);
    return 0;
}

/* ---- growing buffers ---- */

typedef struct buf {
    char *p;
    size_t len;
    size_t cap;
    int nomem;
} buf;

static int buf_reserve(buf *b, size_t n) {
    if (b->nomem)
        return 0;
    if (b->cap - b->len > n)
        return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len <= n) {
        if (cap > SIZE_MAX / 2) {
            b->nomem = 1;
            return 0;
        }
        cap *= 2;
    }
    char *p = gguf__realloc(b->p, cap);
    if (p == NULL) {
        b->nomem = 1;
        return 0;
    }
    b->p = p;
    b->cap = cap;
    return 1;
}

static void buf_add(buf *b, const void *s, size_t n) {
    if (!buf_reserve(b, n))
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void buf_str(buf *b, const char *s) { buf_add(b, s, strlen(s)); }

static void buf_printf(buf *b, const char *fmt, ...) GGUF_PRINTF(2, 3);
static void buf_printf(buf *b, const char *fmt, ...) {
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        buf_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* ---- values as SQL and JSON ---- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n) {
    unsigned char c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, cp = c & 0x07;
    else
        return 0;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

static int is_utf8(const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t l = utf8_len(u + i, n - i);
        if (l == 0)
            return 0;
        i += l;
    }
    return 1;
}

/* Text when the bytes are UTF-8, else a BLOB (so that comparisons stay bytewise and exact). */
static int bind_bytes(sqlite3_stmt *st, int col, const char *s, size_t n) {
    if (n > INT_MAX)
        return sqlite3_bind_null(st, col);
    if (is_utf8(s, n))
        return sqlite3_bind_text(st, col, n ? s : "", (int)n, SQLITE_STATIC);
    return sqlite3_bind_blob(st, col, s, (int)n, SQLITE_STATIC);
}

static void json_str(buf *b, const char *str, size_t n) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    buf_add(b, "\"", 1);
    size_t i = 0;
    while (i < n && !b->nomem) {
        unsigned char c = s[i];
        const char *esc = NULL;
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        default: break;
        }
        if (esc != NULL) {
            buf_str(b, esc);
            i++;
            continue;
        }
        size_t len = c < 0x20 || c == 0x7f ? 0 : utf8_len(s + i, n - i);
        if (len == 0) {
            /* control bytes, and bytes that are not UTF-8 (as their Latin-1 code point) */
            char u[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
            buf_add(b, u, 6);
            i++;
            continue;
        }
        buf_add(b, s + i, len);
        i += len;
    }
    buf_add(b, "\"", 1);
}

static void json_double(buf *b, double d, int digits) {
    if (isnan(d))
        buf_str(b, "\"nan\"");
    else if (isinf(d))
        buf_str(b, d > 0 ? "\"inf\"" : "\"-inf\"");
    else
        buf_printf(b, "%.*g", digits, d);
}

static void json_value(buf *b, const gguf_value *v) {
    uint32_t t = gguf_value_type(v);
    if (b->nomem || b->len > JSON_MAX)
        return;
    if (t == GGUF_VTYPE_ARRAY) {
        gguf_value_iter it;
        gguf_value e;
        gguf_value_iter_init(&it, v);
        buf_add(b, "[", 1);
        for (int first = 1; gguf_value_iter_next(&it, &e) && !b->nomem && b->len <= JSON_MAX;
             first = 0) {
            if (!first)
                buf_add(b, ",", 1);
            json_value(b, &e);
        }
        buf_add(b, "]", 1);
    } else if (t == GGUF_VTYPE_BOOL) {
        uint8_t x = 0;
        gguf_value_get_bool_byte(&x, v, NULL);
        buf_str(b, x ? "true" : "false");
    } else if (t == GGUF_VTYPE_F32 || t == GGUF_VTYPE_F64) {
        double d = 0;
        gguf_value_get_f64(&d, v, NULL);
        json_double(b, d, t == GGUF_VTYPE_F32 ? 9 : 17);
    } else if (t == GGUF_VTYPE_STRING) {
        const char *s = "";
        uint64_t len = 0;
        gguf_value_get_str(&s, &len, v, NULL);
        json_str(b, s, (size_t)len);
    } else {
        uint64_t u = 0;
        int64_t i = 0;
        int is_signed = 0;
        if (gguf_value_get_int(&u, &i, &is_signed, v, NULL) != 0)
            buf_str(b, "null");
        else if (is_signed)
            buf_printf(b, "%" PRId64, i);
        else
            buf_printf(b, "%" PRIu64, u);
    }
}

/* ---- the set of known rows (loaded once per index run) ---- */

typedef struct known {
    char *path; /* NULL: empty slot */
    uint64_t hash;
    int64_t dev, ino, size, mtime_ns;
    uint8_t has_crc;
    uint8_t is_error;
    uint8_t retry; /* an error that may pass next time (I/O, memory): never skipped */
} known;

typedef struct known_set {
    known *slots;
    size_t cap; /* a power of two */
    size_t n;
} known_set;

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static known *known_find_h(const known_set *ks, const char *path, uint64_t h) {
    if (ks->cap == 0)
        return NULL;
    for (size_t i = (size_t)h & (ks->cap - 1);; i = (i + 1) & (ks->cap - 1)) {
        known *k = &ks->slots[i];
        if (k->path == NULL)
            return NULL;
        if (k->hash == h && strcmp(k->path, path) == 0)
            return k;
    }
}

static known *known_find(const known_set *ks, const char *path) {
    return known_find_h(ks, path, hash_str(path));
}

/* Makes room for at least n entries at a load of at most 1/2. */
static int known_grow(known_set *ks, size_t n) {
    size_t cap = ks->cap ? ks->cap : 1024;
    while (cap / 2 < n)
        cap *= 2;
    if (cap == ks->cap)
        return 1;
    known *slots = gguf__calloc(cap, sizeof *slots);
    if (slots == NULL)
        return 0;
    for (size_t i = 0; i < ks->cap; i++) {
        known *k = &ks->slots[i];
        if (k->path == NULL)
            continue;
        size_t j = (size_t)k->hash & (cap - 1);
        while (slots[j].path != NULL)
            j = (j + 1) & (cap - 1);
        slots[j] = *k;
    }
    gguf__free(ks->slots);
    ks->slots = slots;
    ks->cap = cap;
    return 1;
}

/* Adds (or replaces) an entry; the path is copied. */
static int known_put(known_set *ks, const known *k) {
    uint64_t h = hash_str(k->path);
    known *old = known_find_h(ks, k->path, h);
    if (old != NULL) {
        char *p = old->path;
        *old = *k;
        old->path = p;
        old->hash = h;
        return 1;
    }
    if ((ks->n + 1) * 2 > ks->cap && !known_grow(ks, ks->n + 1))
        return 0;
    char *p = dup_str(k->path);
    if (p == NULL)
        return 0;
    size_t i = (size_t)h & (ks->cap - 1);
    while (ks->slots[i].path != NULL)
        i = (i + 1) & (ks->cap - 1);
    ks->slots[i] = *k;
    ks->slots[i].path = p;
    ks->slots[i].hash = h;
    ks->n++;
    return 1;
}

static void known_free(known_set *ks) {
    for (size_t i = 0; i < ks->cap; i++)
        gguf__free(ks->slots[i].path);
    gguf__free(ks->slots);
    ks->slots = NULL;
    ks->cap = ks->n = 0;
}

static int is_retry_code(int code) { return code == GGUF_EIO || code == GGUF_ENOMEM; }

static int known_load(known_set *ks, gguf_catalog *cat, gguf_error *err) {
    int64_t rows = 0;
    if (query_int(cat->db, "SELECT (SELECT count(*) FROM files) + (SELECT count(*) FROM errors)",
                  &rows) == SQLITE_OK && rows > 0 && !known_grow(ks, (size_t)rows))
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    static const char *const sql[2] = {
        "SELECT path, dev, ino, size, mtime_ns, has_crc, 0 FROM files",
        "SELECT path, dev, ino, size, mtime_ns, 0, code FROM errors",
    };
    for (int q = 0; q < 2; q++) {
        sqlite3_stmt *st;
        int rc = sqlite3_prepare_v2(cat->db, sql[q], -1, &st, NULL);
        if (rc != SQLITE_OK)
            return db_fail(err, cat->db, rc, cat->path, "reading the catalog");
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            known k;
            memset(&k, 0, sizeof k);
            k.path = (char *)sqlite3_column_text(st, 0);
            if (k.path == NULL)
                continue;
            k.dev = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
            k.ino = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
            k.size = sqlite3_column_int64(st, 3);
            k.mtime_ns = sqlite3_column_int64(st, 4);
            k.has_crc = (uint8_t)(sqlite3_column_int(st, 5) != 0);
            k.is_error = (uint8_t)q;
            k.retry = (uint8_t)(q == 1 && is_retry_code(sqlite3_column_int(st, 6)));
            if (!known_put(ks, &k)) {
                sqlite3_finalize(st);
                return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            }
        }
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            return db_fail(err, cat->db, rc, cat->path, "reading the catalog");
    }
    return 0;
}

static int64_t mtime_ns_of(const struct stat *st) {
    return (int64_t)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

static int same_stat(const known *k, const struct stat *st) {
    return k->dev == (int64_t)st->st_dev && k->ino == (int64_t)st->st_ino &&
           k->size == (int64_t)st->st_size && k->mtime_ns == mtime_ns_of(st);
}

/* ---- indexing ---- */

typedef struct indexer {
    gguf_catalog *cat;
    gguf_catalog_index_options opt;
    gguf_catalog_stats stats;
    known_set known;
    buf path;             /* the path being walked */
    buf json;             /* scratch for array JSON */
    uint32_t *crcs;       /* per tensor, with CRC */
    size_t crcs_cap;
    int64_t now;
    dev_t anc_dev[MAX_WALK_DEPTH + 1]; /* folders above, for loops through symlinks */
    ino_t anc_ino[MAX_WALK_DEPTH + 1];
} indexer;

static void emit(indexer *x, int kind, const char *path, const gguf_error *e) {
    if (x->opt.on_event == NULL)
        return;
    gguf_catalog_event ev = {kind, path, e};
    x->opt.on_event(&ev, x->opt.user);
}

static void bind_stat(sqlite3_stmt *st, int col, const struct stat *s) {
    sqlite3_bind_int64(st, col, (sqlite3_int64)s->st_dev);
    sqlite3_bind_int64(st, col + 1, (sqlite3_int64)s->st_ino);
    sqlite3_bind_int64(st, col + 2, (sqlite3_int64)s->st_size);
    sqlite3_bind_int64(st, col + 3, (sqlite3_int64)mtime_ns_of(s));
}

/* Deletes a file's rows (files, kv, tensors) by id. */
static int delete_file_rows(gguf_catalog *cat, int64_t id, gguf_error *err) {
    static const int which[3] = {ST_KV_DELETE, ST_TENSOR_DELETE, ST_FILE_DELETE};
    for (int i = 0; i < 3; i++) {
        sqlite3_stmt *st;
        int rc = get_stmt(&st, cat, which[i], err);
        if (rc != 0)
            return rc;
        sqlite3_bind_int64(st, 1, id);
        rc = step_done(cat, st, "deleting a file's rows", err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The id of path's files row, or 0. */
static int file_id(int64_t *id, gguf_catalog *cat, const char *path, gguf_error *err) {
    sqlite3_stmt *st;
    int rc = get_stmt(&st, cat, ST_FILE_ID, err);
    if (rc != 0)
        return rc;
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    *id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return db_fail(err, cat->db, rc, cat->path, "looking a file up");
    return 0;
}

/* Records a file the reader refused (or could not read). */
static int store_error(indexer *x, const char *path, const struct stat *s, const gguf_error *fe,
                       gguf_error *err) {
    gguf_catalog *cat = x->cat;
    int64_t id;
    sqlite3_stmt *st;
    int rc = txn_begin(cat, err);
    if (rc == 0)
        rc = file_id(&id, cat, path, err);
    if (rc == 0 && id != 0)
        rc = delete_file_rows(cat, id, err);
    if (rc == 0)
        rc = get_stmt(&st, cat, ST_ERROR_UPSERT, err);
    if (rc == 0) {
        int code = fe->code != 0 ? fe->code : GGUF_EIO;
        const char *msg = fe->message[0] ? fe->message : gguf_strerror(code);
        sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
        bind_stat(st, 2, s);
        sqlite3_bind_int(st, 6, code);
        sqlite3_bind_text(st, 7, gguf_strerror(code), -1, SQLITE_STATIC);
        if (fe->offset != GGUF_ERROR_NO_OFFSET && fe->offset <= INT64_MAX)
            sqlite3_bind_int64(st, 8, (sqlite3_int64)fe->offset);
        bind_bytes(st, 9, msg, strlen(msg));
        sqlite3_bind_int64(st, 10, x->now);
        rc = step_done(cat, st, "recording a file's error", err);
    }
    if (rc == 0)
        rc = txn_maybe_commit(cat, 0, err);
    if (rc != 0) {
        txn_rollback(cat);
        return rc;
    }
    known nk = {.path = (char *)path, .dev = (int64_t)s->st_dev, .ino = (int64_t)s->st_ino,
                .size = (int64_t)s->st_size, .mtime_ns = mtime_ns_of(s), .is_error = 1,
                .retry = (uint8_t)is_retry_code(fe->code)};
    if (!known_put(&x->known, &nk))
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    x->stats.broken++;
    emit(x, GGUF_CATALOG_EV_BROKEN, path, fe);
    return 0;
}

static int store_kv(indexer *x, int64_t id, const gguf_file *f, size_t i, gguf_error *err) {
    gguf_catalog *cat = x->cat;
    sqlite3_stmt *st;
    int rc = get_stmt(&st, cat, ST_KV_INSERT, err);
    if (rc != 0)
        return rc;
    size_t klen;
    const char *key = gguf_kv_key(f, i, &klen);
    const gguf_value *v = gguf_kv_value(f, i);
    uint32_t t = gguf_value_type(v);
    const char *tname = gguf_vtype_name(t);
    char num[32];
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
    bind_bytes(st, 3, key, klen);
    sqlite3_bind_text(st, 4, tname ? tname : "?", -1, SQLITE_STATIC);
    if (t == GGUF_VTYPE_ARRAY) {
        const char *ename = gguf_vtype_name(gguf_value_elem_type(v));
        uint64_t count = gguf_value_count(v);
        sqlite3_bind_text(st, 5, ename ? ename : "?", -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 6, count <= INT64_MAX ? (sqlite3_int64)count : INT64_MAX);
        if (count <= x->opt.array_max) {
            x->json.len = 0;
            json_value(&x->json, v);
            if (x->json.nomem) {
                x->json.nomem = 0;
                return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            }
            if (x->json.len <= JSON_MAX)
                sqlite3_bind_text(st, 9, x->json.p, (int)x->json.len, SQLITE_STATIC);
        }
    } else if (t == GGUF_VTYPE_STRING) {
        const char *s;
        uint64_t len;
        gguf_value_get_str(&s, &len, v, NULL);
        bind_bytes(st, 9, s, (size_t)len);
    } else if (t == GGUF_VTYPE_F32 || t == GGUF_VTYPE_F64) {
        double d = 0;
        gguf_value_get_f64(&d, v, NULL);
        if (!isnan(d))
            sqlite3_bind_double(st, 8, d);
        if (!isfinite(d))
            sqlite3_bind_text(st, 9, isnan(d) ? "nan" : d > 0 ? "inf" : "-inf", -1,
                              SQLITE_STATIC);
    } else {
        uint64_t u = 0;
        int64_t s = 0;
        int is_signed = 0;
        if (gguf_value_get_int(&u, &s, &is_signed, v, NULL) == 0) {
            if (is_signed) {
                sqlite3_bind_int64(st, 7, s);
            } else if (u <= INT64_MAX) {
                sqlite3_bind_int64(st, 7, (sqlite3_int64)u);
            } else {
                sqlite3_bind_double(st, 8, (double)u);
                snprintf(num, sizeof num, "%" PRIu64, u);
                sqlite3_bind_text(st, 9, num, -1, SQLITE_TRANSIENT);
            }
        }
    }
    return step_done(cat, st, "storing a key", err);
}

static int store_tensor(indexer *x, int64_t id, const gguf_file *f, size_t i, int with_crc,
                        gguf_error *err) {
    gguf_catalog *cat = x->cat;
    sqlite3_stmt *st;
    int rc = get_stmt(&st, cat, ST_TENSOR_INSERT, err);
    if (rc != 0)
        return rc;
    gguf_tensor_info t;
    gguf_tensor_get(&t, f, i);
    char tbuf[32];
    const char *tname = gguf_dtype_name(t.type);
    if (tname == NULL) {
        snprintf(tbuf, sizeof tbuf, "TYPE_%u", t.type);
        tname = tbuf;
    }
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
    bind_bytes(st, 3, t.name, t.name_len);
    sqlite3_bind_text(st, 4, tname, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 5, t.type);
    sqlite3_bind_int(st, 6, (int)t.n_dims);
    for (int d = 0; d < GGUF_MAX_DIMS; d++) {
        uint64_t ne = (uint32_t)d < t.n_dims ? t.dims[d] : 1;
        if (ne <= INT64_MAX)
            sqlite3_bind_int64(st, 7 + d, (sqlite3_int64)ne);
    }
    if (t.offset <= INT64_MAX)
        sqlite3_bind_int64(st, 11, (sqlite3_int64)t.offset);
    else
        sqlite3_bind_int64(st, 11, -1);
    if (t.nbytes != UINT64_MAX && t.nbytes <= INT64_MAX)
        sqlite3_bind_int64(st, 12, (sqlite3_int64)t.nbytes);
    if (with_crc && t.nbytes != UINT64_MAX)
        sqlite3_bind_int64(st, 13, x->crcs[i]);
    return step_done(cat, st, "storing a tensor", err);
}

/* Facts for the models view: parameters, bytes, dominant type, split set. */
typedef struct derived {
    int has_params;
    uint64_t params;
    uint64_t tensor_bytes;
    int dominant; /* a dtype id, or -1 */
    int has_split_no, has_split_count;
    int64_t split_no, split_count;
} derived;

static int kv_int(int64_t *out, const gguf_file *f, const char *key) {
    int64_t i = gguf_kv_find(f, key);
    if (i < 0)
        return 0;
    uint64_t u;
    int64_t s;
    int is_signed;
    if (gguf_value_get_int(&u, &s, &is_signed, gguf_kv_value(f, (size_t)i), NULL) != 0)
        return 0;
    if (!is_signed && u > INT64_MAX)
        return 0;
    *out = is_signed ? s : (int64_t)u;
    return 1;
}

static void derive(derived *d, const gguf_file *f) {
    uint64_t elems[GGUF_DTYPE_COUNT];
    memset(d, 0, sizeof *d);
    memset(elems, 0, sizeof elems);
    d->has_params = 1;
    d->dominant = -1;
    for (size_t i = 0; i < gguf_tensor_count(f); i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        uint64_t n = 1;
        int ok = 1;
        for (uint32_t k = 0; k < t.n_dims && ok; k++)
            ok = gguf__mul_u64(&n, n, t.dims[k]);
        if (!ok || !gguf__add_u64(&d->params, d->params, n))
            d->has_params = 0;
        if (t.nbytes != UINT64_MAX)
            d->tensor_bytes += t.nbytes; /* bounded by the file size: no overflow */
        if (t.type < GGUF_DTYPE_COUNT && gguf_dtype_name(t.type) != NULL &&
            (!ok || !gguf__add_u64(&elems[t.type], elems[t.type], n)))
            elems[t.type] = UINT64_MAX;
    }
    /* the known type holding the most elements; ties go to the lower id */
    uint64_t best = 0;
    for (size_t i = 0; i < gguf_tensor_count(f); i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        if (t.type >= GGUF_DTYPE_COUNT || gguf_dtype_name(t.type) == NULL)
            continue;
        uint64_t e = elems[t.type];
        if (d->dominant < 0 || e > best || (e == best && (int)t.type < d->dominant)) {
            best = e;
            d->dominant = (int)t.type;
        }
    }
    d->has_split_no = kv_int(&d->split_no, f, "split.no");
    d->has_split_count = kv_int(&d->split_count, f, "split.count");
}

/* Stores a parsed file, replacing its old rows. */
static int store_file(indexer *x, const char *path, const struct stat *s, const gguf_file *f,
                      uint32_t header_crc, int with_crc, gguf_error *err) {
    gguf_catalog *cat = x->cat;
    derived d;
    derive(&d, f);
    int64_t id;
    sqlite3_stmt *st;
    int rc = txn_begin(cat, err);
    if (rc == 0)
        rc = file_id(&id, cat, path, err);
    if (rc == 0)
        rc = get_stmt(&st, cat, id != 0 ? ST_FILE_UPDATE : ST_FILE_INSERT, err);
    if (rc == 0) {
        size_t plen = strlen(path);
        sqlite3_bind_text(st, 1, path, (int)plen, SQLITE_STATIC);
        bind_stat(st, 2, s);
        sqlite3_bind_int(st, 6, (int)gguf_file_version(f));
        sqlite3_bind_text(st, 7, gguf_file_endian(f) == GGUF_ENDIAN_BIG ? "big" : "little", -1,
                          SQLITE_STATIC);
        sqlite3_bind_int64(st, 8, gguf_file_alignment(f));
        sqlite3_bind_int64(st, 9, (sqlite3_int64)gguf_file_data_offset(f));
        sqlite3_bind_int64(st, 10, (sqlite3_int64)gguf_kv_count(f));
        sqlite3_bind_int64(st, 11, (sqlite3_int64)gguf_tensor_count(f));
        sqlite3_bind_int64(st, 12, header_crc);
        sqlite3_bind_int64(st, 13, x->opt.open_flags);
        sqlite3_bind_int(st, 14, with_crc);
        sqlite3_bind_int64(st, 15, x->now);
        if (d.has_params && d.params <= INT64_MAX)
            sqlite3_bind_int64(st, 16, (sqlite3_int64)d.params);
        sqlite3_bind_int64(st, 17, (sqlite3_int64)d.tensor_bytes);
        if (d.dominant >= 0)
            sqlite3_bind_text(st, 18, gguf_dtype_name((uint32_t)d.dominant), -1, SQLITE_STATIC);
        if (d.has_split_count)
            sqlite3_bind_text(st, 19, path, (int)split_set_len(path, plen), SQLITE_STATIC);
        if (d.has_split_no)
            sqlite3_bind_int64(st, 20, d.split_no);
        if (d.has_split_count)
            sqlite3_bind_int64(st, 21, d.split_count);
        if (id != 0)
            sqlite3_bind_int64(st, 22, id);
        rc = step_done(cat, st, "storing a file", err);
        if (rc == 0 && id == 0)
            id = sqlite3_last_insert_rowid(cat->db);
        else if (rc == 0) {
            static const int which[2] = {ST_KV_DELETE, ST_TENSOR_DELETE};
            for (int k = 0; k < 2 && rc == 0; k++) {
                rc = get_stmt(&st, cat, which[k], err);
                if (rc == 0) {
                    sqlite3_bind_int64(st, 1, id);
                    rc = step_done(cat, st, "deleting old rows", err);
                }
            }
        }
    }
    for (size_t i = 0; rc == 0 && i < gguf_kv_count(f); i++)
        rc = store_kv(x, id, f, i, err);
    for (size_t i = 0; rc == 0 && i < gguf_tensor_count(f); i++)
        rc = store_tensor(x, id, f, i, with_crc, err);
    if (rc == 0)
        rc = get_stmt(&st, cat, ST_ERROR_DELETE, err);
    if (rc == 0) {
        sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
        rc = step_done(cat, st, "clearing an old error", err);
    }
    if (rc == 0)
        rc = txn_maybe_commit(cat, with_crc, err);
    if (rc != 0)
        txn_rollback(cat);
    return rc;
}

/* Reads one candidate file (stat already done) unless it is unchanged. */
static int index_file(indexer *x, const char *path, const struct stat *s, gguf_error *err) {
    unsigned flags = x->opt.flags;
    int want_crc = (flags & GGUF_CATALOG_CRC) != 0;
    x->stats.seen++;
    known *k = known_find(&x->known, path);
    if (k != NULL && !(flags & GGUF_CATALOG_FORCE) && same_stat(k, s) &&
        (k->is_error ? !k->retry : (!want_crc || k->has_crc))) {
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
        size_t n = gguf_tensor_count(f);
        if (n > x->crcs_cap) {
            uint32_t *p = gguf__realloc(x->crcs, n * sizeof *p);
            if (p == NULL) {
                gguf_file_free(f);
                return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            }
            x->crcs = p;
            x->crcs_cap = n;
        }
        /* a long read: let other writers in first */
        rc = txn_commit(x->cat, err);
        if (rc != 0) {
            gguf_file_free(f);
            return rc;
        }
        for (size_t i = 0; i < n && rc == 0; i++) {
            gguf_tensor_info t;
            gguf_tensor_get(&t, f, i);
            x->crcs[i] = 0;
            if (t.nbytes != UINT64_MAX)
                rc = gguf_crc_tensor(&x->crcs[i], f, i, &fe);
        }
    }
    if (rc != 0) {
        gguf_file_free(f);
        return store_error(x, path, s, &fe, err);
    }
    rc = store_file(x, path, s, f, header_crc, want_crc, err);
    gguf_file_free(f);
    if (rc != 0)
        return rc;
    /* a path named twice in one run (overlapping arguments) is read once */
    known nk = {.path = (char *)path, .dev = (int64_t)s->st_dev, .ino = (int64_t)s->st_ino,
                .size = (int64_t)s->st_size, .mtime_ns = mtime_ns_of(s),
                .has_crc = (uint8_t)want_crc};
    if (!known_put(&x->known, &nk))
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    x->stats.indexed++;
    emit(x, GGUF_CATALOG_EV_INDEXED, path, NULL);
    return 0;
}

static int name_wanted(const indexer *x, const char *name) {
    if (x->opt.flags & GGUF_CATALOG_ALL_FILES)
        return 1;
    size_t n = strlen(name);
    return n >= 5 && strcasecmp(name + n - 5, ".gguf") == 0;
}

static void walk_error(indexer *x, const char *path, int e, const char *what) {
    gguf_error we;
    gguf_error_clear(&we);
    gguf__fail(&we, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: %s: %s", path, what, strerror(e));
    x->stats.walk_errors++;
    emit(x, GGUF_CATALOG_EV_WALK_ERROR, path, &we);
}

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Walks the folder whose path is in x->path (at depth, its dev/ino already in anc_*). */
static int walk_dir(indexer *x, int depth, gguf_error *err) {
    DIR *d = opendir(x->path.p);
    if (d == NULL) {
        walk_error(x, x->path.p, errno, "cannot open folder");
        return 0;
    }
    /* the names, sorted, so that runs are deterministic */
    buf names = {0};
    size_t n = 0;
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (e == NULL) {
            if (errno != 0)
                walk_error(x, x->path.p, errno, "cannot read folder");
            break;
        }
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        buf_add(&names, e->d_name, strlen(e->d_name) + 1);
        n++;
    }
    char **list = names.nomem ? NULL : gguf__malloc((n ? n : 1) * sizeof *list);
    if (list == NULL) {
        closedir(d);
        gguf__free(names.p);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    for (size_t i = 0, off = 0; i < n; i++) {
        list[i] = names.p + off;
        off += strlen(list[i]) + 1;
    }
    qsort(list, n, sizeof *list, cmp_names);
    int follow = (x->opt.flags & GGUF_CATALOG_FOLLOW_SYMLINKS) != 0;
    size_t base = x->path.len;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        x->path.len = base;
        if (base == 0 || x->path.p[base - 1] != '/')
            buf_add(&x->path, "/", 1);
        buf_str(&x->path, list[i]);
        if (x->path.nomem) {
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            break;
        }
        struct stat st;
        if (fstatat(dirfd(d), list[i], &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT) { /* vanished, or a dangling link */
                x->stats.skipped++;
                emit(x, GGUF_CATALOG_EV_SKIPPED, x->path.p, NULL);
            } else {
                walk_error(x, x->path.p, errno, "cannot stat");
            }
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            int loop = 0;
            for (int a = 0; a <= depth; a++)
                loop |= x->anc_dev[a] == st.st_dev && x->anc_ino[a] == st.st_ino;
            if (loop) {
                x->stats.skipped++;
                emit(x, GGUF_CATALOG_EV_SKIPPED, x->path.p, NULL);
            } else if (depth + 1 > MAX_WALK_DEPTH) {
                walk_error(x, x->path.p, ELOOP, "folders nested too deep");
            } else {
                x->anc_dev[depth + 1] = st.st_dev;
                x->anc_ino[depth + 1] = st.st_ino;
                rc = walk_dir(x, depth + 1, err);
            }
        } else if (S_ISREG(st.st_mode)) {
            if (name_wanted(x, list[i]))
                rc = index_file(x, x->path.p, &st, err);
        } else if (S_ISLNK(st.st_mode) || name_wanted(x, list[i])) {
            x->stats.skipped++;
            emit(x, GGUF_CATALOG_EV_SKIPPED, x->path.p, NULL);
        }
    }
    x->path.len = base;
    if (x->path.p != NULL)
        x->path.p[base] = '\0';
    gguf__free(list);
    gguf__free(names.p);
    closedir(d);
    return rc;
}

/* An absolute path for arg: realpath when it exists; else the real path of its folder and its
 * last name; else arg made absolute. The result is malloc'd (gguf__malloc). */
static char *absolute_path(const char *arg) {
    char *rp = realpath(arg, NULL);
    buf b = {0};
    if (rp != NULL) {
        buf_str(&b, rp);
        free(rp);
        return b.nomem ? (gguf__free(b.p), NULL) : b.p;
    }
    size_t n = strlen(arg);
    while (n > 1 && arg[n - 1] == '/')
        n--;
    const char *slash = memrchr(arg, '/', n);
    char dir[PATH_MAX];
    if (slash == NULL) {
        if (getcwd(dir, sizeof dir) == NULL)
            return NULL;
        buf_str(&b, dir);
        buf_str(&b, "/");
        buf_add(&b, arg, n);
    } else {
        size_t dl = (size_t)(slash - arg);
        if (dl >= sizeof dir)
            return NULL;
        memcpy(dir, arg, dl);
        dir[dl] = '\0';
        rp = realpath(dl == 0 ? "/" : dir, NULL);
        if (rp != NULL) {
            buf_str(&b, rp);
            free(rp);
            if (b.len == 0 || b.p[b.len - 1] != '/')
                buf_str(&b, "/");
            buf_add(&b, slash + 1, n - dl - 1);
        } else if (arg[0] == '/') {
            buf_add(&b, arg, n);
        } else {
            if (getcwd(dir, sizeof dir) == NULL)
                return NULL;
            buf_str(&b, dir);
            buf_str(&b, "/");
            buf_add(&b, arg, n);
        }
    }
    if (b.nomem) {
        gguf__free(b.p);
        return NULL;
    }
    return b.p;
}

int gguf_catalog_index(gguf_catalog_stats *stats, gguf_catalog *cat, const char *const *paths,
                       size_t n_paths, const gguf_catalog_index_options *opt, gguf_error *err) {
    int rc = need_writable(cat, "index", err);
    if (rc != 0)
        return rc;
    if (paths == NULL && n_paths > 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no paths given");
    static const gguf_catalog_index_options defaults = GGUF_CATALOG_INDEX_OPTIONS_INIT;
    indexer *x = gguf__calloc(1, sizeof *x);
    if (x == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    x->cat = cat;
    x->opt = opt != NULL ? *opt : defaults;
    x->now = (int64_t)time(NULL);
    rc = known_load(&x->known, cat, err);
    for (size_t a = 0; a < n_paths && rc == 0; a++) {
        char *p = absolute_path(paths[a]);
        struct stat st;
        if (p == NULL) {
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            break;
        }
        if (stat(p, &st) != 0) {
            walk_error(x, paths[a], errno, "cannot stat");
        } else if (S_ISDIR(st.st_mode)) {
            x->path.len = 0;
            buf_str(&x->path, p);
            if (x->path.nomem) {
                rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            } else {
                x->anc_dev[0] = st.st_dev;
                x->anc_ino[0] = st.st_ino;
                rc = walk_dir(x, 0, err);
            }
        } else if (S_ISREG(st.st_mode)) {
            rc = index_file(x, p, &st, err);
        } else {
            walk_error(x, paths[a], EINVAL, "not a regular file or folder");
        }
        gguf__free(p);
    }
    if (rc == 0)
        rc = txn_commit(cat, err);
    else
        txn_rollback(cat);
    if (rc == 0 && stats != NULL)
        *stats = x->stats;
    known_free(&x->known);
    gguf__free(x->path.p);
    gguf__free(x->json.p);
    gguf__free(x->crcs);
    gguf__free(x);
    return rc;
}

/* ---- prune ---- */

int gguf_catalog_prune(gguf_catalog_stats *stats, gguf_catalog *cat, gguf_catalog_event_fn fn,
                       void *user, gguf_error *err) {
    int rc = need_writable(cat, "prune", err);
    if (rc != 0)
        return rc;
    gguf_catalog_stats s;
    memset(&s, 0, sizeof s);
    /* the list first (no lock held while we stat), then one small transaction per batch */
    static const char *const sql[2] = {"SELECT id, path FROM files ORDER BY path",
                                       "SELECT 0, path FROM errors ORDER BY path"};
    for (int q = 0; q < 2 && rc == 0; q++) {
        buf gone = {0}; /* (id, path\0) records of vanished files */
        size_t n_gone = 0;
        sqlite3_stmt *st;
        int src = sqlite3_prepare_v2(cat->db, sql[q], -1, &st, NULL);
        if (src != SQLITE_OK)
            return db_fail(err, cat->db, src, cat->path, "reading the catalog");
        while ((src = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t id = sqlite3_column_int64(st, 0);
            const char *path = (const char *)sqlite3_column_text(st, 1);
            struct stat sb;
            if (path == NULL || lstat(path, &sb) == 0 || (errno != ENOENT && errno != ENOTDIR))
                continue;
            buf_add(&gone, &id, sizeof id);
            buf_add(&gone, path, strlen(path) + 1);
            n_gone++;
        }
        sqlite3_finalize(st);
        if (src != SQLITE_DONE)
            rc = db_fail(err, cat->db, src, cat->path, "reading the catalog");
        else if (gone.nomem)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        size_t off = 0;
        for (size_t i = 0; i < n_gone && rc == 0; i++) {
            int64_t id;
            memcpy(&id, gone.p + off, sizeof id);
            const char *path = gone.p + off + sizeof id;
            off += sizeof id + strlen(path) + 1;
            rc = txn_begin(cat, err);
            if (rc == 0 && q == 0)
                rc = delete_file_rows(cat, id, err);
            if (rc == 0 && q == 1) {
                rc = get_stmt(&st, cat, ST_ERROR_DELETE, err);
                if (rc == 0) {
                    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
                    rc = step_done(cat, st, "dropping an error row", err);
                }
            }
            if (rc == 0)
                rc = txn_maybe_commit(cat, 0, err);
            if (rc == 0) {
                s.removed++;
                if (fn != NULL) {
                    gguf_catalog_event ev = {GGUF_CATALOG_EV_REMOVED, path, NULL};
                    fn(&ev, user);
                }
            }
        }
        gguf__free(gone.p);
    }
    if (rc == 0)
        rc = txn_commit(cat, err);
    else
        txn_rollback(cat);
    if (rc == 0 && stats != NULL)
        *stats = s;
    return rc;
}

/* ---- query ---- */

/* Refuses everything that could write or reach outside the catalog. */
static int authorize(void *user, int action, const char *a, const char *b, const char *db,
                     const char *trigger) {
    (void)a, (void)b, (void)db, (void)trigger;
    switch (action) {
    case SQLITE_ATTACH:
    case SQLITE_DETACH:
    case SQLITE_INSERT:
    case SQLITE_UPDATE:
    case SQLITE_DELETE:
    case SQLITE_CREATE_INDEX:
    case SQLITE_CREATE_TABLE:
    case SQLITE_CREATE_TEMP_INDEX:
    case SQLITE_CREATE_TEMP_TABLE:
    case SQLITE_CREATE_TEMP_TRIGGER:
    case SQLITE_CREATE_TEMP_VIEW:
    case SQLITE_CREATE_TRIGGER:
    case SQLITE_CREATE_VIEW:
    case SQLITE_CREATE_VTABLE:
    case SQLITE_DROP_INDEX:
    case SQLITE_DROP_TABLE:
    case SQLITE_DROP_TEMP_INDEX:
    case SQLITE_DROP_TEMP_TABLE:
    case SQLITE_DROP_TEMP_TRIGGER:
    case SQLITE_DROP_TEMP_VIEW:
    case SQLITE_DROP_TRIGGER:
    case SQLITE_DROP_VIEW:
    case SQLITE_DROP_VTABLE:
    case SQLITE_ALTER_TABLE:
    case SQLITE_REINDEX:
    case SQLITE_ANALYZE: ((gguf_catalog *)user)->denied = 1; return SQLITE_DENY;
    default: return SQLITE_OK;
    }
}

static int open_query_connection(gguf_catalog *cat, gguf_error *err) {
    if (cat->ro != NULL)
        return 0;
    int rc = open_connection(&cat->ro, cat->path, 1, 0, err);
    if (rc == 0)
        rc = check_readonly_schema(cat->ro, cat->path, err);
    if (rc != 0) {
        sqlite3_close(cat->ro);
        cat->ro = NULL;
        return rc;
    }
    return 0;
}

/* The read-only connection refuses writes three times over: opened read-only, query_only,
 * and an authorizer that denies every statement kind that writes or attaches. */
static int lock_down(gguf_catalog *cat, gguf_error *err) {
    int rc = sqlite3_exec(cat->ro, "PRAGMA query_only = 1", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return db_fail(err, cat->ro, rc, cat->path, "making the query connection read-only");
    sqlite3_set_authorizer(cat->ro, authorize, cat);
    return 0;
}

int gguf_catalog_query(gguf_catalog *cat, const char *sql, gguf_catalog_row_fn fn, void *user,
                       gguf_error *err) {
    if (cat == NULL || sql == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no catalog or no query");
    int rc = open_query_connection(cat, err);
    if (rc == 0)
        rc = lock_down(cat, err);
    if (rc != 0)
        return rc;
    sqlite3 *db = cat->ro;
    const char *tail = sql;
    const char **names = NULL;
    gguf_catalog_cell *cells = NULL;
    int stop = 0;
    rc = 0;
    while (rc == 0 && !stop && tail != NULL && *tail != '\0') {
        sqlite3_stmt *st = NULL;
        const char *next = NULL;
        cat->denied = 0;
        int src = sqlite3_prepare_v2(db, tail, -1, &st, &next);
        if (src == SQLITE_OK && st != NULL && !sqlite3_stmt_readonly(st)) {
            sqlite3_finalize(st);
            cat->denied = 1;
            src = SQLITE_AUTH;
        }
        if (src != SQLITE_OK && cat->denied) {
            rc = gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                            "query: refused: queries cannot change the catalog (no INSERT, "
                            "UPDATE, DELETE, CREATE, DROP, ALTER, ATTACH, VACUUM or writing "
                            "PRAGMA)");
            break;
        }
        if (src != SQLITE_OK) {
            rc = gguf__fail(err, (src & 0xff) == SQLITE_NOMEM ? GGUF_ENOMEM : GGUF_EINVAL,
                            GGUF_ERROR_NO_OFFSET, "query: %s", sqlite3_errmsg(db));
            break;
        }
        tail = next;
        if (st == NULL) /* only whitespace or comments */
            continue;
        size_t ncols = (size_t)sqlite3_column_count(st);
        gguf__free(names);
        gguf__free(cells);
        names = gguf__malloc((ncols ? ncols : 1) * sizeof *names);
        cells = gguf__malloc((ncols ? ncols : 1) * sizeof *cells);
        if (names == NULL || cells == NULL) {
            sqlite3_finalize(st);
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            break;
        }
        for (size_t c = 0; c < ncols; c++) {
            names[c] = sqlite3_column_name(st, (int)c);
            if (names[c] == NULL)
                names[c] = "";
        }
        if (ncols > 0 && fn != NULL)
            stop = fn(ncols, names, NULL, user);
        while (!stop && (src = sqlite3_step(st)) == SQLITE_ROW) {
            for (size_t c = 0; c < ncols; c++) {
                gguf_catalog_cell *cell = &cells[c];
                int t = sqlite3_column_type(st, (int)c);
                memset(cell, 0, sizeof *cell);
                switch (t) {
                case SQLITE_INTEGER:
                    cell->type = GGUF_CATALOG_INTEGER;
                    cell->i = sqlite3_column_int64(st, (int)c);
                    cell->r = (double)cell->i;
                    break;
                case SQLITE_FLOAT:
                    cell->type = GGUF_CATALOG_REAL;
                    cell->r = sqlite3_column_double(st, (int)c);
                    break;
                case SQLITE_TEXT: cell->type = GGUF_CATALOG_TEXT; break;
                case SQLITE_BLOB: cell->type = GGUF_CATALOG_BLOB; break;
                default: cell->type = GGUF_CATALOG_NULL; break;
                }
                if (t == SQLITE_BLOB) {
                    cell->text = sqlite3_column_blob(st, (int)c);
                    cell->len = (size_t)sqlite3_column_bytes(st, (int)c);
                    if (cell->text == NULL)
                        cell->text = "";
                } else if (t != SQLITE_NULL) {
                    cell->text = (const char *)sqlite3_column_text(st, (int)c);
                    cell->len = (size_t)sqlite3_column_bytes(st, (int)c);
                    if (cell->text == NULL) {
                        src = SQLITE_NOMEM;
                        break;
                    }
                }
            }
            if (src == SQLITE_NOMEM)
                break;
            if (fn != NULL)
                stop = fn(ncols, names, cells, user);
        }
        if (!stop && src != SQLITE_DONE)
            rc = gguf__fail(err, (src & 0xff) == SQLITE_NOMEM ? GGUF_ENOMEM : GGUF_EIO,
                            GGUF_ERROR_NO_OFFSET, "query: %s", sqlite3_errmsg(db));
        sqlite3_finalize(st);
    }
    /* a BEGIN without its COMMIT must not hold a read snapshot until the next query */
    if (!sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    gguf__free(names);
    gguf__free(cells);
    return rc;
}

/* ---- verify ---- */

typedef struct vfile {
    int64_t id, dev, ino, size, mtime_ns, header_crc;
    int has_header_crc;
    unsigned open_flags;
    int has_crc;
    char *path;
} vfile;

typedef struct vtensor {
    int64_t position;
    char *name;
    uint32_t crc;
} vtensor;

typedef struct vfinding {
    int problem;
    char *tensor;
    int has_crc;
    uint32_t expected, actual;
    char *message;
} vfinding;

typedef struct verifier {
    gguf_catalog *cat;
    gguf_catalog_finding_fn fn;
    void *user;
    gguf_catalog_verify_stats stats;
    vfinding *found;
    size_t n_found, cap_found;
    int nomem;
} verifier;

static void add_finding(verifier *v, int problem, const char *tensor, int has_crc,
                        uint32_t expected, uint32_t actual, const char *fmt, ...) GGUF_PRINTF(7, 8);
static void add_finding(verifier *v, int problem, const char *tensor, int has_crc,
                        uint32_t expected, uint32_t actual, const char *fmt, ...) {
    if (v->nomem)
        return;
    if (v->n_found == v->cap_found) {
        size_t cap = v->cap_found ? v->cap_found * 2 : 8;
        vfinding *p = gguf__realloc(v->found, cap * sizeof *p);
        if (p == NULL) {
            v->nomem = 1;
            return;
        }
        v->found = p;
        v->cap_found = cap;
    }
    char msg[GGUF_ERROR_MESSAGE_MAX + 128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    vfinding *f = &v->found[v->n_found];
    f->problem = problem;
    f->has_crc = has_crc;
    f->expected = expected;
    f->actual = actual;
    f->tensor = tensor != NULL ? dup_str(tensor) : NULL;
    f->message = dup_str(msg);
    if (f->message == NULL || (tensor != NULL && f->tensor == NULL)) {
        gguf__free(f->tensor);
        gguf__free(f->message);
        v->nomem = 1;
        return;
    }
    v->n_found++;
}

static void flush_findings(verifier *v, const char *path) {
    for (size_t i = 0; i < v->n_found; i++) {
        vfinding *f = &v->found[i];
        if (v->fn != NULL) {
            gguf_catalog_finding out = {f->problem, path,        f->tensor,  f->has_crc,
                                        f->expected, f->actual, f->message};
            v->fn(&out, v->user);
        }
        gguf__free(f->tensor);
        gguf__free(f->message);
    }
    v->n_found = 0;
}

static int path_selected(const char *path, char *const *sel, size_t n_sel) {
    if (n_sel == 0)
        return 1;
    size_t pl = strlen(path);
    for (size_t i = 0; i < n_sel; i++) {
        size_t sl = strlen(sel[i]);
        while (sl > 1 && sel[i][sl - 1] == '/')
            sl--;
        if (pl == sl && memcmp(path, sel[i], sl) == 0)
            return 1;
        if (sl == 1 && sel[i][0] == '/')
            return 1;
        if (pl > sl && memcmp(path, sel[i], sl) == 0 && path[sl] == '/')
            return 1;
    }
    return 0;
}

static int load_tensors(vtensor **out, size_t *n_out, gguf_catalog *cat, int64_t id,
                        gguf_error *err) {
    sqlite3 *db = cat->db != NULL ? cat->db : cat->ro;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT position, name, crc32 FROM tensors WHERE file = ?1 AND "
                                "crc32 IS NOT NULL ORDER BY position",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_fail(err, db, rc, cat->path, "reading tensors");
    sqlite3_bind_int64(st, 1, id);
    vtensor *list = NULL;
    size_t n = 0, cap = 0;
    int fail = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            vtensor *p = gguf__realloc(list, cap * sizeof *p);
            if (p == NULL) {
                fail = 1;
                break;
            }
            list = p;
        }
        const char *name = (const char *)sqlite3_column_blob(st, 1);
        size_t len = (size_t)sqlite3_column_bytes(st, 1);
        char *copy = gguf__malloc(len + 1);
        if (copy == NULL) {
            fail = 1;
            break;
        }
        if (len > 0)
            memcpy(copy, name, len);
        copy[len] = '\0';
        list[n].position = sqlite3_column_int64(st, 0);
        list[n].name = copy;
        list[n].crc = (uint32_t)sqlite3_column_int64(st, 2);
        n++;
    }
    sqlite3_finalize(st);
    if (fail || (rc != SQLITE_DONE && rc != SQLITE_ROW)) {
        for (size_t i = 0; i < n; i++)
            gguf__free(list[i].name);
        gguf__free(list);
        if (fail)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        return db_fail(err, db, rc, cat->path, "reading tensors");
    }
    *out = list;
    *n_out = n;
    return 0;
}

/* Finds tensor `name` in f: at its old position when it is still there, else by name. */
static int64_t find_tensor(const gguf_file *f, int64_t position, const char *name) {
    size_t len = strlen(name);
    if (position >= 0 && (uint64_t)position < gguf_tensor_count(f)) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, (size_t)position);
        if (t.name_len == len && memcmp(t.name, name, len) == 0)
            return position;
    }
    return gguf_tensor_find(f, name);
}

static int verify_file(verifier *v, const vfile *vf, gguf_error *err) {
    struct stat st;
    char qname[96];
    v->stats.files++;
    if (stat(vf->path, &st) != 0) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR) {
            v->stats.missing++;
            add_finding(v, GGUF_CATALOG_MISSING, NULL, 0, 0, 0, "no longer exists");
        } else {
            v->stats.unreadable++;
            add_finding(v, GGUF_CATALOG_UNREADABLE, NULL, 0, 0, 0, "cannot stat: %s",
                        strerror(e));
        }
        return 0;
    }
    int changed = !(vf->dev == (int64_t)st.st_dev && vf->ino == (int64_t)st.st_ino &&
                    vf->size == (int64_t)st.st_size && vf->mtime_ns == mtime_ns_of(&st));
    int problem = changed ? GGUF_CATALOG_CHANGED : GGUF_CATALOG_CORRUPT;
    char how[160];
    if (vf->size != (int64_t)st.st_size)
        snprintf(how, sizeof how, "size %" PRId64 " -> %lld bytes", vf->size,
                 (long long)st.st_size);
    else if (vf->mtime_ns != mtime_ns_of(&st))
        snprintf(how, sizeof how, "modified since it was indexed");
    else
        snprintf(how, sizeof how, "replaced (another inode) since it was indexed");
    gguf_file *f = NULL;
    gguf_error fe;
    gguf_error_clear(&fe);
    if (gguf_file_open(&f, vf->path, vf->open_flags, &fe) != 0) {
        if (fe.code == GGUF_EIO || fe.code == GGUF_ENOMEM) {
            v->stats.unreadable++;
            add_finding(v, GGUF_CATALOG_UNREADABLE, NULL, 0, 0, 0, "%s", fe.message);
        } else {
            if (changed)
                v->stats.changed++;
            else
                v->stats.corrupt++;
            add_finding(v, problem, NULL, 0, 0, 0, "%s%sno longer reads as GGUF: %s",
                        changed ? how : "", changed ? "; " : "", fe.message);
        }
        return 0;
    }
    size_t first = v->n_found;
    uint32_t crc = 0;
    int bad = 0, unreadable = 0;
    if (gguf_crc_header(&crc, f, &fe) != 0) {
        unreadable = 1;
        add_finding(v, GGUF_CATALOG_UNREADABLE, NULL, 0, 0, 0, "%s", fe.message);
    } else if (vf->has_header_crc && crc != (uint32_t)vf->header_crc) {
        bad = 1;
        add_finding(v, problem, NULL, 1, (uint32_t)vf->header_crc, crc,
                    "header crc32 is 0x%08" PRIx32 ", the catalog has 0x%08" PRIx32, crc,
                    (uint32_t)vf->header_crc);
    }
    if (vf->has_crc && !unreadable) {
        v->stats.files_with_crc++;
        vtensor *ts = NULL;
        size_t nt = 0;
        int rc = load_tensors(&ts, &nt, v->cat, vf->id, err);
        if (rc != 0) {
            gguf_file_free(f);
            return rc;
        }
        for (size_t i = 0; i < nt && !unreadable; i++) {
            gguf__quote(qname, sizeof qname, ts[i].name, strlen(ts[i].name));
            int64_t at = find_tensor(f, ts[i].position, ts[i].name);
            if (at < 0) {
                bad = 1;
                add_finding(v, problem, ts[i].name, 0, 0, 0, "tensor '%s' is gone", qname);
                continue;
            }
            gguf_tensor_info t;
            gguf_tensor_get(&t, f, (size_t)at);
            if (t.nbytes == UINT64_MAX) {
                bad = 1;
                add_finding(v, problem, ts[i].name, 0, 0, 0,
                            "tensor '%s' has a type of unknown size now", qname);
                continue;
            }
            if (gguf_crc_tensor(&crc, f, (size_t)at, &fe) != 0) {
                unreadable = 1;
                add_finding(v, GGUF_CATALOG_UNREADABLE, ts[i].name, 0, 0, 0, "tensor '%s': %s",
                            qname, fe.message);
                break;
            }
            v->stats.tensors++;
            v->stats.bytes += t.nbytes;
            if (crc != ts[i].crc) {
                bad = 1;
                add_finding(v, problem, ts[i].name, 1, ts[i].crc, crc,
                            "tensor '%s': crc32 is 0x%08" PRIx32 ", the catalog has 0x%08" PRIx32,
                            qname, crc, ts[i].crc);
            }
        }
        for (size_t i = 0; i < nt; i++)
            gguf__free(ts[i].name);
        gguf__free(ts);
    }
    gguf_file_free(f);
    /* a changed file whose bytes we could not compare, or that differ: say how it changed,
     * before the details */
    if (changed && !unreadable && (bad || !vf->has_crc)) {
        add_finding(v, GGUF_CATALOG_CHANGED, NULL, 0, 0, 0, "%s%s", how,
                    vf->has_crc ? "" : " (no tensor crc32s to compare: index with --crc)");
        if (!v->nomem && v->n_found - 1 > first) {
            vfinding last = v->found[v->n_found - 1];
            memmove(&v->found[first + 1], &v->found[first],
                    (v->n_found - 1 - first) * sizeof last);
            v->found[first] = last;
        }
    }
    if (unreadable)
        v->stats.unreadable++;
    else if (changed && (bad || !vf->has_crc))
        v->stats.changed++;
    else if (bad)
        v->stats.corrupt++;
    return 0;
}

static void free_vfiles(vfile *list, size_t n) {
    for (size_t i = 0; i < n; i++)
        gguf__free(list[i].path);
    gguf__free(list);
}

int gguf_catalog_verify(gguf_catalog_verify_stats *stats, gguf_catalog *cat,
                        const char *const *paths, size_t n_paths, gguf_catalog_finding_fn fn,
                        void *user, gguf_error *err) {
    if (cat == NULL || (paths == NULL && n_paths > 0))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no catalog or no paths");
    sqlite3 *db = cat->db != NULL ? cat->db : cat->ro;
    char **sel = gguf__calloc(n_paths ? n_paths : 1, sizeof *sel);
    if (sel == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < n_paths && rc == 0; i++) {
        sel[i] = absolute_path(paths[i]);
        if (sel[i] == NULL)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    /* the files first, then one at a time with no statement open during the long reads */
    vfile *list = NULL;
    size_t n = 0, cap = 0;
    if (rc == 0) {
        sqlite3_stmt *st;
        int src = sqlite3_prepare_v2(db,
                                     "SELECT id, path, dev, ino, size, mtime_ns, header_crc32, "
                                     "open_flags, has_crc FROM files ORDER BY path",
                                     -1, &st, NULL);
        if (src != SQLITE_OK)
            rc = db_fail(err, db, src, cat->path, "reading the catalog");
        while (rc == 0 && (src = sqlite3_step(st)) == SQLITE_ROW) {
            const char *path = (const char *)sqlite3_column_text(st, 1);
            if (path == NULL || !path_selected(path, sel, n_paths))
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                vfile *p = gguf__realloc(list, cap * sizeof *p);
                if (p == NULL) {
                    rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
                    break;
                }
                list = p;
            }
            vfile *vf = &list[n];
            vf->id = sqlite3_column_int64(st, 0);
            vf->dev = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
            vf->ino = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 3);
            vf->size = sqlite3_column_int64(st, 4);
            vf->mtime_ns = sqlite3_column_int64(st, 5);
            vf->has_header_crc = sqlite3_column_type(st, 6) != SQLITE_NULL;
            vf->header_crc = sqlite3_column_int64(st, 6);
            vf->open_flags = (unsigned)sqlite3_column_int64(st, 7);
            vf->has_crc = sqlite3_column_int(st, 8) != 0;
            vf->path = dup_str(path);
            if (vf->path == NULL) {
                rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
                break;
            }
            n++;
        }
        if (rc == 0 && src != SQLITE_DONE)
            rc = db_fail(err, db, src, cat->path, "reading the catalog");
        sqlite3_finalize(st);
    }
    verifier v;
    memset(&v, 0, sizeof v);
    v.cat = cat;
    v.fn = fn;
    v.user = user;
    for (size_t i = 0; i < n && rc == 0; i++) {
        rc = verify_file(&v, &list[i], err);
        if (rc == 0 && v.nomem)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        flush_findings(&v, list[i].path);
    }
    gguf__free(v.found);
    free_vfiles(list, n);
    for (size_t i = 0; i < n_paths; i++)
        gguf__free(sel[i]);
    gguf__free(sel);
    if (rc == 0 && stats != NULL)
        *stats = v.stats;
    return rc;
}

/* ---- test hook: run SQL on a database file (old schemas for migration tests) ---- */

#ifdef GGUF_ALLOC_FAULTS
GGUF_API int gguf_testing_catalog_exec(const char *path, const char *sql, gguf_error *err);
int gguf_testing_catalog_exec(const char *path, const char *sql, gguf_error *err) {
    sqlite3 *db;
    int rc = open_connection(&db, path, 0, 1, err);
    if (rc != 0)
        return rc;
    char *msg = NULL;
    int src = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (src != SQLITE_OK)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s", msg ? msg : sqlite3_errstr(src));
    sqlite3_free(msg);
    sqlite3_close(db);
    return rc;
}
#endif

#endif /* GGUF_HAVE_CATALOG */
