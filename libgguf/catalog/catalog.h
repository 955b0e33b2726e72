/* The catalog's private header: the handle, and what its files give each other. The catalog is
 * a SQLite database of many GGUF files (files, kv, tensors, errors, runs, a models view),
 * filled from headers by walking folders, queried read-only with SQL, and re-checked against
 * stored crc32s. Only the files of this folder include sqlite3.h.
 *
 *   paths.c    the default path, absolute paths, "at or below" (no SQLite: built always)
 *   none.c     the API without SQLite: every call answers "catalog not built"
 *   db.c       the backend seam: connections, statements, binds, rows, and write
 *              transactions in small batches, over SQLite or (pg.c) PostgreSQL
 *   pg.c       PostgreSQL through libpq: statements pipelined, the read-only query role
 *   schema.c   the schema, its migrations, the file_types names, schema checks
 *   open.c     the handle: open (migrating), close
 *   values.c   binding header values to SQL columns
 *   known.c    the rows already stored, found by path during an index run
 *   walk.c     the folder walk (fts(3): sorted, loops and special files skipped)
 *   store.c    a file's rows: written, replaced, dropped; a refused file's error row
 *   runs.c     the runs table: one row per index or prune run
 *   index.c    gguf_catalog_index: the run, its arguments, the walk
 *   index_file.c  one file in an index run: unchanged or read, stored or refused, counted
 *   sets.c     split sets in an index run: every shard stored, the set checked as one model
 *   remote.c   URLs in an index run: fetched in parallel, conditional requests
 *   prune.c    gguf_catalog_prune
 *   guard.c    what a query may do: the authorizer, read-only PRAGMAs, time and memory limits
 *   query.c    gguf_catalog_query
 *   verify.c   gguf_catalog_verify
 *   copy.c     gguf_catalog_copy: a catalog into another, SQLite or PostgreSQL either way
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
/* The path (or URL) of shard k (from 0) of the split set that shard is named a shard of
 * (PREFIX-00002-of-00003.gguf, k 0: PREFIX-00001-of-00003.gguf); gguf__malloc'd. NULL when
 * shard is not named like one, k is past the set's count, or memory ran out. */
GGUF_HIDDEN char *gguf__catalog_shard_path(const char *shard, uint32_t k);
/* "a FIFO", "a folder", ... for a stat mode that is not a regular file. */
GGUF_HIDDEN const char *gguf__catalog_file_kind(mode_t mode);
/* Nanoseconds since the epoch of a stat's mtime. */
GGUF_HIDDEN int64_t gguf__catalog_mtime_ns(const struct stat *st);

#ifdef GGUF_HAVE_CATALOG

#include <sqlite3.h>

#define GGUF__CATALOG_APPLICATION_ID 1195857222 /* 0x47475546, "GGUF" (also in schema_v1) */
#define GGUF__CATALOG_BUSY_TIMEOUT_MS 60000
#define GGUF__CATALOG_JSON_MAX ((size_t)1 << 20) /* arrays whose JSON exceeds this: text NULL */
/* The longest string stored (a longer one: text NULL, as for arrays). Real headers stay below
 * it: their longest strings are a whole tokenizer.json (tokenizer.huggingface.json, a few MiB)
 * and chat templates (tens of KiB). */
#define GGUF__CATALOG_TEXT_MAX ((size_t)8 << 20)
/* Arrays of at most this many elements (of scalars or strings) have a row per element in
 * array_items: a tokenizer's 256K tokens fit, and a token's text is a lookup. */
#define GGUF__CATALOG_ITEMS_MAX ((uint64_t)1 << 20)
/* SQLITE_LIMIT_LENGTH of the query connection: room for two stored values joined, no more.
 * SQLite looks at the time limit only between steps, and one step of a function such as
 * printf() or instr() works on whole values: this bounds what one step can build. */
#define GGUF__CATALOG_QUERY_LENGTH_MAX ((int)(2 * GGUF__CATALOG_TEXT_MAX))

/* ---- the backend seam (db.c; pg.c for PostgreSQL) ----
 *
 * A connection is SQLite's or PostgreSQL's; a statement is written once when both read it alike
 * (parameters ?1..?N, turned into $1..$N for PostgreSQL) and in its two dialects side by side
 * where they differ. Calls answer SQLite's result codes (SQLITE_OK, SQLITE_ROW, SQLITE_DONE, or
 * an error, whose message gguf__db_errmsg gives) whatever the backend. */

enum { GGUF__DB_SQLITE, GGUF__DB_PG };
#define GGUF__DB_MAX_PARAMS 40

typedef struct gguf__db {
    int kind;
    sqlite3 *lite;
    void *pg;            /* PGconn */
    int64_t last_id;     /* PostgreSQL: the id the last INSERT ... RETURNING id gave */
    char *pg_error;      /* PostgreSQL: the last error's message (gguf__malloc'd) */
    int pipelined;       /* PostgreSQL: statements sent whose results are not read yet */
    unsigned n_prepared; /* PostgreSQL: names of prepared statements */
    struct gguf__stmt *copying[8]; /* PostgreSQL: statements with rows waiting for COPY */
    int n_copying;
} gguf__db;

typedef struct gguf__stmt {
    gguf__db *db;
    sqlite3_stmt *lite;
    /* PostgreSQL */
    char *sql;   /* the text with $N parameters (gguf__malloc'd) */
    char name[16]; /* a prepared statement's name, "" until prepared, for persistent ones */
    int persistent;
    int n_params;
    gguf__buf param[GGUF__DB_MAX_PARAMS];
    uint8_t is_set[GGUF__DB_MAX_PARAMS];
    void *res; /* PGresult of the current execution */
    int row, n_rows, ran;
    char **scratch; /* per column: a cell rendered as SQLite would (gguf__malloc'd) */
    int n_scratch;
    /* a plain INSERT ... VALUES: its rows go by COPY (pg.c) */
    int copy_checked;
    char *copy_cmd;                      /* "COPY t (cols) FROM STDIN", or NULL: not one */
    int copy_param[GGUF__DB_MAX_PARAMS]; /* per column: its parameter (from 0) */
    int copy_n;
    gguf__buf copy;                      /* the rows waiting, in COPY's text format */
} gguf__stmt;

/* url: "postgresql://" or "postgres://" (a libpq connection URI). */
GGUF_HIDDEN int gguf__db_is_pg_url(const char *url);
/* A copy of path to show in messages (gguf__free it; NULL: out of memory): a PostgreSQL URL's
 * password, after "user:" or as a password= parameter, is replaced by "***". */
GGUF_HIDDEN char *gguf__db_redact(const char *path);
GGUF_HIDDEN int gguf__db_prepare(gguf__stmt **out, gguf__db *db, const char *lite,
                                 const char *pg, int persistent);
GGUF_HIDDEN int gguf__db_exec(gguf__db *db, const char *lite, const char *pg);
GGUF_HIDDEN const char *gguf__db_errmsg(gguf__db *db);
GGUF_HIDDEN int64_t gguf__db_last_id(gguf__db *db);
GGUF_HIDDEN void gguf__db_close(gguf__db *db);
/* Stats the file beside a database whose name is path + tail (its "-wal", "-shm",
 * "-journal"; "" for the database), following a symbolic link when follow is set: 0 with *st
 * filled, -1 when nothing is there, 1 when the name is longer than PATH_MAX. */
GGUF_HIDDEN int gguf__db_stat_beside(const char *path, const char *tail, int follow,
                                     struct stat *st);
/* Removes the -wal and -shm files of the SQLite database at path when its WAL is empty and no
 * connection uses them: what a read-only connection leaves behind, since only a read-write
 * one that closes last removes them. A connection that reads and closes does that here; its
 * checkpoint of an empty WAL writes nothing. Nothing happens when another connection is open
 * or the WAL holds writes. */
GGUF_HIDDEN void gguf__db_sqlite_tidy_wal(const char *path);
GGUF_HIDDEN void gguf__bind_null(gguf__stmt *st, int col);
GGUF_HIDDEN void gguf__bind_int64(gguf__stmt *st, int col, int64_t v);
GGUF_HIDDEN void gguf__bind_double(gguf__stmt *st, int col, double v);
/* n < 0: up to the NUL. */
GGUF_HIDDEN void gguf__bind_text(gguf__stmt *st, int col, const char *s, int n);
/* The same for text that does not outlive the call. */
GGUF_HIDDEN void gguf__bind_text_copy(gguf__stmt *st, int col, const char *s, int n);
/* Bytes that are not UTF-8 (or hold a NUL): a BLOB in SQLite; in PostgreSQL a text whose
 * invalid bytes (and NULs) read U+FFFD, since its text columns hold UTF-8 only. */
GGUF_HIDDEN void gguf__bind_blob(gguf__stmt *st, int col, const void *p, int n);
/* PostgreSQL: an array literal ("{...}") built element by element from what a statement's
 * parameter holds, for a column of an array type. */
typedef struct gguf__db_array {
    gguf__buf lit;
    uint64_t n, n_values; /* elements, and those not NULL */
} gguf__db_array;
/* Appends parameter col of st as bound (NULL when unbound) as the next element of a, and
 * unbinds it. */
GGUF_HIDDEN void gguf__db_array_add(gguf__db_array *a, gguf__stmt *st, int col);
/* Binds a's literal to parameter col of st (NULL when no element had a value), and empties a
 * for the next array. Returns SQLITE_NOMEM when a's memory ran out. */
GGUF_HIDDEN int gguf__db_array_bind(gguf__stmt *st, int col, gguf__db_array *a);
GGUF_HIDDEN int gguf__step(gguf__stmt *st);
/* Steps to the end, rows ignored, and resets. PostgreSQL: sent without waiting, its result read
 * at the next statement with rows or the commit. */
GGUF_HIDDEN int gguf__step_done(gguf__stmt *st);
GGUF_HIDDEN int gguf__col_type(gguf__stmt *st, int col);
GGUF_HIDDEN int64_t gguf__col_int64(gguf__stmt *st, int col);
GGUF_HIDDEN double gguf__col_double(gguf__stmt *st, int col);
GGUF_HIDDEN const char *gguf__col_text(gguf__stmt *st, int col);
GGUF_HIDDEN const void *gguf__col_blob(gguf__stmt *st, int col);
GGUF_HIDDEN int gguf__col_bytes(gguf__stmt *st, int col);
GGUF_HIDDEN void gguf__reset(gguf__stmt *st);
GGUF_HIDDEN void gguf__finalize(gguf__stmt *st);

#ifdef GGUF_HAVE_PG
/* pg.c: what db.c hands over for a PostgreSQL connection. */
GGUF_HIDDEN int gguf__pg_connect(gguf__db **out, const char *url, const char *as_user,
                                 gguf_error *err);
GGUF_HIDDEN void gguf__pg_close(gguf__db *db);
GGUF_HIDDEN int gguf__pg_exec(gguf__db *db, const char *sql);
GGUF_HIDDEN int gguf__pg_flush(gguf__db *db);
GGUF_HIDDEN int gguf__pg_step(gguf__stmt *st, int defer);
GGUF_HIDDEN void gguf__pg_reset(gguf__stmt *st);
GGUF_HIDDEN void gguf__pg_finalize(gguf__stmt *st);
GGUF_HIDDEN int gguf__pg_col_type(gguf__stmt *st, int col);
GGUF_HIDDEN const char *gguf__pg_col_text(gguf__stmt *st, int col, int *len);
GGUF_HIDDEN double gguf__pg_col_double(gguf__stmt *st, int col);
/* gguf_catalog_query on PostgreSQL, on the reader's connection (cat->ro); GGUF__PG_TIMED_OUT
 * (err untouched) when statement_timeout stopped it. */
#define GGUF__PG_TIMED_OUT (-1000)
GGUF_HIDDEN int gguf__pg_query(gguf_catalog *cat, const char *sql, gguf_catalog_row_fn fn,
                               void *user, gguf_error *err);
#endif

/* The role user SQL runs as on PostgreSQL: SELECT on the catalog's tables, nothing more. */
#define GGUF__PG_READER "gguf_catalog_reader"

/* ---- prepared statements (db.c keeps their text) ---- */

enum {
    GGUF__ST_FILE_OLD,
    GGUF__ST_FILE_INSERT,
    GGUF__ST_FILE_UPDATE,
    GGUF__ST_FILE_DELETE,
    GGUF__ST_FILE_JOURNAL,
    GGUF__ST_FILE_VALIDATORS,
    GGUF__ST_KV_DELETE,
    GGUF__ST_ITEM_INSERT,
    GGUF__ST_ITEM_DELETE,
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
    gguf__db *db; /* read-write connection; NULL when opened read-only */
    gguf__db *ro; /* read-only connection for user SQL (opened on first query) */
    int wal_absent; /* opened read-only while the SQLite catalog had no -wal nor -shm file */
    int pg;       /* a PostgreSQL catalog */
    char *path;     /* as messages show it: a URL's password replaced (gguf__db_redact) */
    char *conninfo; /* as given: what connections are opened with */
    unsigned flags;
    int in_txn;          /* a write transaction is open on db */
    int txn_files;       /* files written in it */
    int64_t txn_start;   /* when it began (monotonic ns) */
    gguf__stmt *st[GGUF__ST_COUNT];
    uint64_t timeout_ms; /* query limits (gguf_catalog_set_query_limits) */
    uint64_t max_memory;
    gguf__guard guard;
    const gguf_open_options *url; /* &url_options once set, or NULL */
    gguf_open_options url_options; /* gguf_catalog_set_url_options's copy (its strings borrowed) */
    gguf__db_array items[3]; /* PostgreSQL: an array's int, real and text values (store.c) */
};

/* ---- db.c ---- */

GGUF_HIDDEN int64_t gguf__catalog_now_ns(void);
/* Maps a result code to ours and records "catalog PATH: what: the database's message". */
GGUF_HIDDEN int gguf__catalog_db_fail(gguf_error *err, gguf__db *db, int rc, const char *path,
                                      const char *what);
/* Opens a connection: SQLite with extended result codes and the busy timeout; PostgreSQL as
 * its URL's user, or as the reader role when readonly. */
GGUF_HIDDEN int gguf__catalog_connect(gguf__db **out, const char *path, int readonly, int create,
                                      gguf_error *err);
/* Runs SQL without results on the read-write connection. */
GGUF_HIDDEN int gguf__catalog_exec(gguf_catalog *cat, const char *sql, const char *what,
                                   gguf_error *err);
/* A prepared statement of the read-write connection, reset and unbound. */
GGUF_HIDDEN int gguf__catalog_stmt(gguf__stmt **out, gguf_catalog *cat, int which,
                                   gguf_error *err);
/* Steps a statement to its end (rows ignored) and resets it. */
GGUF_HIDDEN int gguf__catalog_step_done(gguf_catalog *cat, gguf__stmt *st, const char *what,
                                        gguf_error *err);
/* One integer read with one statement (0 when there is no row). Returns a SQLite code. */
GGUF_HIDDEN int gguf__catalog_query_int(gguf__db *db, const char *sql, int64_t *out);
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
GGUF_HIDDEN int gguf__catalog_check_readonly(gguf__db *db, const char *path, gguf_error *err);
/* Refusals without touching anything, on opening: not a catalog, or one from the future. */
GGUF_HIDDEN int gguf__catalog_check_identity(gguf_catalog *cat, gguf_error *err);
/* Length of path without a split tail "-00002-of-00005.gguf" (len when it has none). */
GGUF_HIDDEN size_t gguf__catalog_split_set_len(const char *path, size_t len);
/* The path of the model a file belongs to (gguf__malloc'd; NULL when memory ran out): for a
 * file with split.count > 1 named like a shard, its set's first shard (PREFIX-00001-of-N.gguf,
 * by the name), else the path itself. */
GGUF_HIDDEN char *gguf__catalog_model_path(const char *path, int64_t split_count);
/* The SQL functions the migrations call. */
GGUF_HIDDEN void gguf__catalog_register_functions(sqlite3 *db);

/* ---- values.c ---- */

/* What tells, without reading it, that a file is the one stored: a local file's stat; for a
 * URL its size and what the server said (ETag, Last-Modified, that date as mtime_ns; no dev
 * and ino). */
typedef struct gguf__file_id {
    int has_stat; /* dev and ino are set: a local file */
    int64_t dev, ino, size, mtime_ns;
    const char *etag, *last_modified; /* a URL's, or NULL */
} gguf__file_id;

GGUF_HIDDEN void gguf__catalog_id_of_stat(gguf__file_id *id, const struct stat *s);
/* dev, ino, size, mtime_ns at col..col+3 (dev and ino NULL for a URL, size NULL when it is
 * negative (unknown); all NULL for id NULL). */
GGUF_HIDDEN void gguf__catalog_bind_id(gguf__stmt *st, int col, const gguf__file_id *id);
/* An HTTP date (Last-Modified: "Sun, 06 Nov 1994 08:49:37 GMT") in nanoseconds since the
 * epoch; 0 when it is not one. */
GGUF_HIDDEN int64_t gguf__catalog_http_time_ns(const char *date);
/* Binds bytes as TEXT when they are UTF-8, else as a BLOB (comparisons stay bytewise). */
GGUF_HIDDEN int gguf__catalog_bind_bytes(gguf__stmt *st, int col, const char *s, size_t n);
/* Key i of f into the kv insert (columns 3..9: key, type, elem_type, array_len, int, real,
 * text); arrays of at most array_max elements as JSON, built in json. */
GGUF_HIDDEN int gguf__catalog_bind_kv(gguf__stmt *st, const gguf_file *f, size_t i,
                                      uint64_t array_max, gguf__buf *json, gguf_error *err);
/* The columns of a value in the kv and array_items inserts. */
enum { GGUF__COL_INT = 7, GGUF__COL_REAL, GGUF__COL_TEXT };
/* A scalar or string value into columns GGUF__COL_INT..GGUF__COL_TEXT (int, real, text) of an
 * insert, as the kv insert has them. */
GGUF_HIDDEN void gguf__catalog_bind_scalar(gguf__stmt *st, const gguf_value *v);
/* PostgreSQL: the array gathered in cat->items (gguf__db_array_add of columns GGUF__COL_INT..
 * GGUF__COL_TEXT), its file, position and key bound to st (GGUF__ST_ITEM_INSERT), stored as
 * one array_values row. */
GGUF_HIDDEN int gguf__catalog_store_array(gguf_catalog *cat, gguf__stmt *st, gguf_error *err);
/* Tensor i of f into the tensor insert (columns 3..13); crc < 0: none. */
GGUF_HIDDEN void gguf__catalog_bind_tensor(gguf__stmt *st, const gguf_file *f, size_t i,
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
    /* stored by a run of another machine: its device and inode numbers are that machine's */
    uint8_t other_host;
} gguf__known;

typedef struct gguf__known_set {
    gguf__known *items;
    size_t n, cap;
    gguf__buf arena; /* the paths */
    gguf__hashset index;
} gguf__known_set;

/* Reads the files rows and the errors rows of refused files (sets 0), or the errors rows of
 * split sets, by their model path (sets 1). */
GGUF_HIDDEN int gguf__known_load(gguf__known_set *ks, gguf_catalog *cat, int sets,
                                 gguf_error *err);
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
    const gguf__file_id *id;
    const gguf_file *f;
    uint32_t header_crc;
    int with_crc;
    const uint32_t *crcs;  /* per tensor, with_crc */
    unsigned open_flags;
    uint64_t array_max;
    int journal;           /* a gguf_journal_state */
    int64_t run, now;
} gguf__file_rows;

/* Stores a parsed file, replacing its old rows (and the errors row of its path, scope 'file'). */
GGUF_HIDDEN int gguf__store_file(gguf_catalog *cat, const gguf__file_rows *r, gguf__buf *json,
                                 gguf_error *err);
/* Records a file the reader refused (or could not read), dropping its files rows. id may be
 * NULL (nothing known of it). */
GGUF_HIDDEN int gguf__store_error(gguf_catalog *cat, const char *path, const gguf__file_id *id,
                                  const gguf_error *fe, int journal, int64_t run, int64_t now,
                                  gguf_error *err);
/* Records why the split set whose first shard is model does not open as one model (scope
 * 'set'; shard: the shard it names, from 1, or 0), and forgets it once it does. */
GGUF_HIDDEN int gguf__store_set_error(gguf_catalog *cat, const char *model, uint32_t shard,
                                      const gguf_error *fe, int64_t run, int64_t now,
                                      gguf_error *err);
GGUF_HIDDEN int gguf__store_clear_set_error(gguf_catalog *cat, const char *model,
                                            gguf_error *err);
/* Drops every row of path (files, kv, tensors, its errors row of scope 'file'). */
GGUF_HIDDEN int gguf__store_forget(gguf_catalog *cat, const char *path, gguf_error *err);
/* Sets the journal column of path's row (files or errors). */
GGUF_HIDDEN int gguf__store_journal(gguf_catalog *cat, const char *path, int is_error,
                                    int journal, gguf_error *err);
/* Deletes a file's rows (files, kv, tensors) by id, in the open transaction. */
GGUF_HIDDEN int gguf__store_drop_file(gguf_catalog *cat, int64_t id, gguf_error *err);
/* Deletes the errors row (path, scope: "file" or "set"), in the open transaction. */
GGUF_HIDDEN int gguf__store_drop_error(gguf_catalog *cat, const char *path, const char *scope,
                                       gguf_error *err);

/* ---- an index run: index.c (the run, the walk), index_file.c (one file), sets.c (split
 * sets), remote.c (URLs) ---- */

typedef struct gguf__indexer {
    gguf_catalog *cat;
    gguf_catalog_index_options opt;
    gguf_catalog_stats stats;
    gguf__known_set known;      /* files and refused files, by path */
    gguf__known_set set_errors; /* split sets recorded as broken, by model path */
    gguf__known_set sets_done;  /* split sets handled in this run, by model path */
    gguf__buf json;             /* scratch for array JSON */
    uint32_t *crcs;             /* per tensor, with GGUF_CATALOG_CRC */
    size_t crcs_cap;
    int64_t now, run;
} gguf__indexer;

GGUF_HIDDEN void gguf__index_emit(gguf__indexer *x, int kind, const char *path,
                                  const gguf_error *e);
/* The open flags of every file: the caller's, each file on its own (a set is put together by
 * the catalog). */
GGUF_HIDDEN unsigned gguf__index_open_flags(const gguf__indexer *x);
/* 1 when path's stored rows (k, may be NULL) are what reading it now would store: the same
 * id, an error that would come again, crc32s stored when they are asked for. */
GGUF_HIDDEN int gguf__index_unchanged(const gguf__indexer *x, const gguf__known *k,
                                      const gguf__file_id *id);
/* Stores what opening path gave: f (its tensors' crc32s read first when they are asked for;
 * f stays the caller's), or the error fe when f is NULL. Counts and tells it. Returns 0, or
 * the catalog's own failure. */
GGUF_HIDDEN int gguf__index_store(gguf__indexer *x, const char *path, const gguf__file_id *id,
                                  gguf_file *f, const gguf_error *fe, int journal,
                                  gguf_error *err);
/* Counts path as unchanged (and tells it). */
GGUF_HIDDEN void gguf__index_unchanged_seen(gguf__indexer *x, const char *path);
/* Remembers that model's set was handled in this run: 1 the first time, 0 after, < 0 out of
 * memory. */
GGUF_HIDDEN int gguf__index_set_first(gguf__indexer *x, const char *model);

/* One local file (stat s; dir: its folder's names, or NULL): skipped when it is as stored and
 * skip_unchanged, else opened on its own and stored unless it is as stored; counted and told.
 * keep (may be NULL) receives the opened file (NULL when refused, fe_out (may be NULL) saying
 * why), for its split set's check; without keep the file is freed. */
GGUF_HIDDEN int gguf__index_local_file(gguf__indexer *x, const char *path, const struct stat *s,
                                       const gguf__walk_dir *dir, int skip_unchanged,
                                       gguf_file **keep, gguf_error *fe_out, gguf_error *err);
/* sets.c: the split set of a local file named like a shard of count > 1 shards (dir: the
 * names of its folder, or NULL): every shard stat'd, and unless all are as stored, read (each
 * on its own), the changed ones stored, and the set's verdict recorded. */
GGUF_HIDDEN int gguf__index_local_set(gguf__indexer *x, const char *path,
                                      const gguf__walk_dir *dir, gguf_error *err);
/* What the shards of a set gave: files[k] (NULL when missing or refused; taken), errs[k] the
 * error of a refused one (code 0: missing). Records the verdict: no set (no shard says it is
 * split), the set's errors row, or its removal. paths[k]: shard k's path or URL. */
GGUF_HIDDEN int gguf__index_set_verdict(gguf__indexer *x, const char *model, char *const *paths,
                                        gguf_file **files, const gguf_error *errs,
                                        uint32_t count, gguf_error *err);
/* sets.c: a file with split.count > 1 not named like a shard: the errors row of its set (its
 * other shards cannot be found). */
GGUF_HIDDEN int gguf__index_lone_shard(gguf__indexer *x, const char *path, const gguf_file *f,
                                       gguf_error *err);

/* remote.c: the URLs of an index run (and the siblings of shard URLs), fetched in parallel. */
GGUF_HIDDEN int gguf__index_urls(gguf__indexer *x, char *const *urls, size_t n,
                                 gguf_error *err);

/* ---- runs.c ---- */

/* This machine's name (gethostname), as runs.host records it. Returns 0, or -1 without one. */
GGUF_HIDDEN int gguf__catalog_host(char *buf, size_t size);
/* Whether a row stored by a run of host `by` (NULL: from before runs had one) was stored by
 * another machine than host, this one. */
GGUF_HIDDEN int gguf__catalog_other_host(const char *by, const char *host);
/* Adds a runs row ('index' or 'prune', the paths as a JSON array, this machine and process)
 * and commits it. */
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
