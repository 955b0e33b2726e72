/* The catalog's private header: the handle, and what its files give each other. The catalog is
 * a SQLite database of many GGUF files (files, kv, tensors, errors, runs, a models view),
 * filled from headers by walking folders, queried read-only with SQL, and re-checked against
 * stored crc32s. Only the files of this folder include sqlite3.h.
 *
 *   paths.c    the default path, absolute paths, "at or below" (no SQLite: built always)
 *   none.c     the API without SQLite: every call answers "catalog not built"
 *   db.c       connections, prepared statements, write transactions in small batches
 *   schema.c   the schema, its migrations, the file_types names, schema checks
 *   open.c     the handle: open (migrating), close
 *   values.c   binding header values to SQL columns
 *   known.c    the rows already stored, found by path during an index run
 *   walk.c     the folder walk (fts(3): sorted, loops and special files skipped)
 *   store.c    a file's rows: written, replaced, dropped; a refused file's error row
 *   runs.c     the runs table: one row per index or prune run
 *   index.c    gguf_catalog_index
 *   prune.c    gguf_catalog_prune
 *   guard.c    what a query may do: the authorizer, read-only PRAGMAs, time and memory limits
 *   query.c    gguf_catalog_query
 *   verify.c   gguf_catalog_verify
 *
 * Concurrency: the database runs in WAL mode with a busy timeout. Writers take the write lock
 * with BEGIN IMMEDIATE (so a busy writer waits instead of failing on a lock upgrade), write a
 * file's rows, and commit in small batches (at most BATCH_FILES files or BATCH_NS of work,
 * never splitting one file's rows), so two `index` runs interleave file by file. Slow work
 * (parsing, crc32 of tensor bytes) happens before the lock is taken when it can. */
#ifndef LIBGGUF_CATALOG_CATALOG_H
#define LIBGGUF_CATALOG_CATALOG_H

#include "format/format.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/stat.h>

/* ---- paths (paths.c) ---- */

/* The default catalog path into buf (see gguf_catalog_default_path). */
GGUF_HIDDEN int gguf__catalog_default_path(char *buf, size_t size, gguf_error *err);
/* An absolute path for arg: realpath when it exists; else the real path of its folder and its
 * last name; else arg made absolute. gguf__malloc'd; NULL when memory or getcwd fails. */
GGUF_HIDDEN char *gguf__catalog_absolute_path(const char *arg);
/* mkdir -p of the folders above path. */
GGUF_HIDDEN int gguf__catalog_make_parents(const char *path, gguf_error *err);
/* 1 when path is one of sel[0..n) or lies below one of them (n == 0: every path). */
GGUF_HIDDEN int gguf__catalog_path_selected(const char *path, char *const *sel, size_t n);
/* "a FIFO", "a folder", ... for a stat mode that is not a regular file. */
GGUF_HIDDEN const char *gguf__catalog_file_kind(mode_t mode);
/* Nanoseconds since the epoch of a stat's mtime. */
GGUF_HIDDEN int64_t gguf__catalog_mtime_ns(const struct stat *st);

#ifdef GGUF_HAVE_CATALOG

#include <sqlite3.h>

#define GGUF__CATALOG_APPLICATION_ID 1195857222 /* 0x47475546, "GGUF" (also in schema_v1) */
#define GGUF__CATALOG_BUSY_TIMEOUT_MS 60000
#define GGUF__CATALOG_JSON_MAX ((size_t)1 << 20) /* arrays whose JSON exceeds this: text NULL */

/* ---- prepared statements (db.c keeps their text) ---- */

enum {
    GGUF__ST_FILE_OLD,
    GGUF__ST_FILE_INSERT,
    GGUF__ST_FILE_UPDATE,
    GGUF__ST_FILE_DELETE,
    GGUF__ST_FILE_JOURNAL,
    GGUF__ST_KV_DELETE,
    GGUF__ST_KV_INSERT,
    GGUF__ST_TENSOR_DELETE,
    GGUF__ST_TENSOR_INSERT,
    GGUF__ST_TENSOR_CRCS,
    GGUF__ST_ERROR_DELETE,
    GGUF__ST_ERROR_UPSERT,
    GGUF__ST_ERROR_JOURNAL,
    GGUF__ST_COUNT
};

/* What the authorizer refused first in a statement (gguf__guard.denied). */
enum { GGUF__DENIED_STATEMENT = 1, GGUF__DENIED_PRAGMA, GGUF__DENIED_FUNCTION };

/* What the authorizer of the query connection learns (guard.c). */
typedef struct gguf__guard {
    char *names;           /* the allowed functions' names, NUL-separated (gguf__malloc'd) */
    size_t *name_at;       /* where each starts in names */
    size_t n_names;
    gguf__hashset allowed; /* over name_at */
    int installed;         /* the connection is locked down */
    int have_list;         /* 0: SQLite could not list its functions: a deny-list only */
    int denied;            /* 0, or what was refused in the current statement */
    char why[160];         /* what it refused, for the message */
    int64_t deadline_ns;   /* the current query's end (monotonic), 0: none */
    int timed_out;
} gguf__guard;

struct gguf_catalog {
    sqlite3 *db; /* read-write connection; NULL when opened read-only */
    sqlite3 *ro; /* read-only connection for user SQL (opened on first query) */
    char *path;
    unsigned flags;
    int in_txn;          /* a write transaction is open on db */
    int txn_files;       /* files written in it */
    int64_t txn_start;   /* when it began (monotonic ns) */
    sqlite3_stmt *st[GGUF__ST_COUNT];
    uint64_t timeout_ms; /* query limits (gguf_catalog_set_query_limits) */
    uint64_t max_memory;
    gguf__guard guard;
};

/* ---- db.c ---- */

GGUF_HIDDEN int64_t gguf__catalog_now_ns(void);
/* Maps a SQLite result code to ours and records "catalog PATH: what: sqlite's message". */
GGUF_HIDDEN int gguf__catalog_db_fail(gguf_error *err, sqlite3 *db, int rc, const char *path,
                                      const char *what);
/* Opens a connection with extended result codes and the busy timeout. */
GGUF_HIDDEN int gguf__catalog_connect(sqlite3 **out, const char *path, int readonly, int create,
                                      gguf_error *err);
/* Runs SQL without results on the read-write connection. */
GGUF_HIDDEN int gguf__catalog_exec(gguf_catalog *cat, const char *sql, const char *what,
                                   gguf_error *err);
/* A prepared statement of the read-write connection, reset and unbound. */
GGUF_HIDDEN int gguf__catalog_stmt(sqlite3_stmt **out, gguf_catalog *cat, int which,
                                   gguf_error *err);
/* Steps a statement to its end (rows ignored) and resets it. */
GGUF_HIDDEN int gguf__catalog_step_done(gguf_catalog *cat, sqlite3_stmt *st, const char *what,
                                        gguf_error *err);
/* One integer read with one statement (0 when there is no row). Returns a SQLite code. */
GGUF_HIDDEN int gguf__catalog_query_int(sqlite3 *db, const char *sql, int64_t *out);
GGUF_HIDDEN int gguf__catalog_txn_begin(gguf_catalog *cat, gguf_error *err);
GGUF_HIDDEN int gguf__catalog_txn_commit(gguf_catalog *cat, gguf_error *err);
GGUF_HIDDEN void gguf__catalog_txn_rollback(gguf_catalog *cat);
/* Counts a file written and commits when the batch is full or old enough (or force). */
GGUF_HIDDEN int gguf__catalog_txn_maybe_commit(gguf_catalog *cat, int force, gguf_error *err);

/* ---- schema.c ---- */

/* Brings the schema of the read-write connection to the current version, in one transaction,
 * refusing databases that are not catalogs and catalogs newer than this library. */
GGUF_HIDDEN int gguf__catalog_migrate(gguf_catalog *cat, gguf_error *err);
/* The same refusals, and "must be upgraded", for a read-only connection. */
GGUF_HIDDEN int gguf__catalog_check_readonly(sqlite3 *db, const char *path, gguf_error *err);
/* Refusals without touching anything, on opening: not a catalog, or one from the future. */
GGUF_HIDDEN int gguf__catalog_check_identity(gguf_catalog *cat, gguf_error *err);
/* Length of path without a split tail "-00002-of-00005.gguf" (len when it has none). */
GGUF_HIDDEN size_t gguf__catalog_split_set_len(const char *path, size_t len);
/* The SQL functions the migrations call. */
GGUF_HIDDEN void gguf__catalog_register_functions(sqlite3 *db);

/* ---- values.c ---- */

/* Binds bytes as TEXT when they are UTF-8, else as a BLOB (comparisons stay bytewise). */
GGUF_HIDDEN int gguf__catalog_bind_bytes(sqlite3_stmt *st, int col, const char *s, size_t n);
/* dev, ino, size, mtime_ns at col..col+3. */
GGUF_HIDDEN void gguf__catalog_bind_stat(sqlite3_stmt *st, int col, const struct stat *s);
/* Key i of f into the kv insert (columns 3..9: key, type, elem_type, array_len, int, real,
 * text); arrays of at most array_max elements as JSON, built in json. */
GGUF_HIDDEN int gguf__catalog_bind_kv(sqlite3_stmt *st, const gguf_file *f, size_t i,
                                      uint64_t array_max, gguf__buf *json, gguf_error *err);
/* Tensor i of f into the tensor insert (columns 3..13); crc < 0: none. */
GGUF_HIDDEN void gguf__catalog_bind_tensor(sqlite3_stmt *st, const gguf_file *f, size_t i,
                                           int64_t crc);
/* "pending", "refused", or NULL for a gguf_journal_state. */
GGUF_HIDDEN const char *gguf__catalog_journal_name(int state);

/* ---- known.c: the rows already stored, by path ---- */

typedef struct gguf__known {
    size_t path_at, path_len; /* in the set's arena */
    int64_t dev, ino, size, mtime_ns;
    uint8_t has_crc;
    uint8_t is_error;
    uint8_t retry;   /* an error that may pass next time (I/O, memory): never skipped */
    uint8_t journal; /* a gguf_journal_state */
} gguf__known;

typedef struct gguf__known_set {
    gguf__known *items;
    size_t n, cap;
    gguf__buf arena; /* the paths */
    gguf__hashset index;
} gguf__known_set;

/* Reads the files and errors rows of the catalog. */
GGUF_HIDDEN int gguf__known_load(gguf__known_set *ks, gguf_catalog *cat, gguf_error *err);
GGUF_HIDDEN gguf__known *gguf__known_find(const gguf__known_set *ks, const char *path);
/* Adds an entry for path, or replaces the one there. Returns 0 or GGUF_ENOMEM. */
GGUF_HIDDEN int gguf__known_put(gguf__known_set *ks, const char *path, const gguf__known *k);
GGUF_HIDDEN void gguf__known_free(gguf__known_set *ks);
/* Errors that may pass next time: I/O and memory. */
GGUF_HIDDEN int gguf__known_retry_code(int code);

/* ---- walk.c ---- */

enum gguf__walk_what {
    GGUF__WALK_FILE,    /* a regular file the filter takes: st is set */
    GGUF__WALK_SKIPPED, /* a link not followed, a special file, a loop */
    GGUF__WALK_ERROR    /* errnum and what say why */
};

/* The names in the folder of a walked file, read with the folder (no syscall to ask). */
typedef struct gguf__walk_dir gguf__walk_dir;
/* 1 when the folder holds an entry with this name. */
GGUF_HIDDEN int gguf__walk_dir_has(const gguf__walk_dir *dir, const char *name, size_t len);

/* Called for each entry (dir: its folder's names, or NULL when they could not be listed); a
 * non-zero return (a GGUF_E* code) stops the walk with it. */
typedef int (*gguf__walk_fn)(void *ctx, int what, const char *path, const struct stat *st,
                             const gguf__walk_dir *dir, int errnum, const char *why,
                             gguf_error *err);

/* Walks the folder root (absolute) in sorted order, depth first: regular files named *.gguf
 * (every name with GGUF_CATALOG_ALL_FILES), links followed only with
 * GGUF_CATALOG_FOLLOW_SYMLINKS, special files skipped without being opened. */
GGUF_HIDDEN int gguf__catalog_walk(const char *root, unsigned flags, gguf__walk_fn fn, void *ctx,
                                   gguf_error *err);

/* ---- store.c ---- */

/* What is stored for one file. */
typedef struct gguf__file_rows {
    const char *path;
    const struct stat *st;
    const gguf_file *f;
    uint32_t header_crc;
    int with_crc;
    const uint32_t *crcs;  /* per tensor, with_crc */
    unsigned open_flags;
    uint64_t array_max;
    int journal;           /* a gguf_journal_state */
    int64_t run, now;
} gguf__file_rows;

/* Stores a parsed file, replacing its old rows (and an error row for its path). */
GGUF_HIDDEN int gguf__store_file(gguf_catalog *cat, const gguf__file_rows *r, gguf__buf *json,
                                 gguf_error *err);
/* Records a file the reader refused (or could not read), dropping its files rows. */
GGUF_HIDDEN int gguf__store_error(gguf_catalog *cat, const char *path, const struct stat *s,
                                  const gguf_error *fe, int journal, int64_t run, int64_t now,
                                  gguf_error *err);
/* Sets the journal column of path's row (files or errors). */
GGUF_HIDDEN int gguf__store_journal(gguf_catalog *cat, const char *path, int is_error,
                                    int journal, gguf_error *err);
/* Deletes a file's rows (files, kv, tensors) by id. */
GGUF_HIDDEN int gguf__store_drop_file(gguf_catalog *cat, int64_t id, gguf_error *err);
/* Deletes the errors row of path. */
GGUF_HIDDEN int gguf__store_drop_error(gguf_catalog *cat, const char *path, gguf_error *err);

/* ---- runs.c ---- */

/* Adds a runs row ('index' or 'prune', the paths as a JSON array) and commits it. */
GGUF_HIDDEN int gguf__run_begin(int64_t *id, gguf_catalog *cat, const char *kind,
                                char *const *paths, size_t n_paths, gguf_error *err);
/* Sets the run's counts and finished_at (in the open transaction, or its own). */
GGUF_HIDDEN int gguf__run_finish(gguf_catalog *cat, int64_t id, const gguf_catalog_stats *s,
                                 gguf_error *err);

/* ---- open.c ---- */

/* Fails unless the catalog was opened read-write. */
GGUF_HIDDEN int gguf__catalog_need_writable(gguf_catalog *cat, const char *what,
                                            gguf_error *err);

/* ---- guard.c ---- */

/* Locks the query connection down: query_only, temporary data in memory (so that the memory
 * limit bounds it), the authorizer, and the progress handler of the time limit. */
GGUF_HIDDEN int gguf__guard_install(gguf_catalog *cat, gguf_error *err);
/* Starts and ends one query's limits (the memory limit is SQLite's, process-wide). */
GGUF_HIDDEN void gguf__guard_start(gguf_catalog *cat, int64_t *saved_heap_limit);
GGUF_HIDDEN void gguf__guard_stop(gguf_catalog *cat, int64_t saved_heap_limit);
/* The error of a statement that failed with SQLite code rc: refused, out of time, out of the
 * memory limit, or SQLite's message. */
GGUF_HIDDEN int gguf__guard_fail(gguf_catalog *cat, int rc, int preparing, gguf_error *err);
GGUF_HIDDEN void gguf__guard_free(gguf__guard *g);

#endif /* GGUF_HAVE_CATALOG */

#endif /* LIBGGUF_CATALOG_CATALOG_H */
