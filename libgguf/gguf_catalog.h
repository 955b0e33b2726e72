/*
 * libgguf: the catalog of many files (SQLite, PostgreSQL).
 * A part of the public header <libgguf/gguf.h>, which includes every part and opens with
 * the conventions they share. Each part includes the parts it needs.
 */
#ifndef LIBGGUF_GGUF_CATALOG_H
#define LIBGGUF_GGUF_CATALOG_H

#include "gguf_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Catalog                                                                                     */
/*
 * A SQLite database describing many GGUF files: one row per file, per key/value and per
 * tensor, read from headers only (plus, on request, each tensor's crc32), and queried with SQL.
 * The catalog is built when configure finds SQLite; without it every gguf_catalog_* call that
 * needs the database fails with GGUF_EUNSUPPORTED ("catalog not built").
 *
 * Schema version GGUF_CATALOG_SCHEMA_VERSION, kept in PRAGMA user_version (application_id is
 * 0x47475546, "GGUF"). Opening an older catalog read-write migrates it; a newer one is refused.
 *
 *   files     id, path (absolute, or a URL), dev, ino, size, mtime_ns, version, endian
 *             ('little'|'big'),
 *             alignment, data_offset, n_kv, n_tensors, header_crc32, open_flags, has_crc
 *             (1 when tensor crc32s were stored), indexed_at (unix seconds), and facts derived
 *             from the header: n_params (sum over tensors of the product of their dims),
 *             tensor_bytes, dominant_type (the known tensor type holding the most elements;
 *             ties go to the lower type id), split_no, split_count (split.no, split.count),
 *             split_set (for split files: the path without its "-00001-of-00003.gguf" tail),
 *             indexed_run (the run that last read the file), changed_run (the run that last
 *             found it new or changed: another header, size or tensor crc32s, or a new
 *             device, inode or mtime without stored crc32s that prove its bytes the same),
 *             journal (NULL; 'pending': an interrupted in-place edit's journal lies beside the
 *             file, which gguf_file_recover would finish; 'refused': one it would refuse).
 *             Index and verify only look at journals: they never apply or remove one.
 *             model (the path of the model the file belongs to: its own, or for a shard of a
 *             split set the set's first shard's, PREFIX-00001-of-N.gguf), etag and
 *             last_modified (a URL's ETag and Last-Modified, sent back as If-None-Match or
 *             If-Modified-Since when it is indexed again; a URL has no dev and ino, and its
 *             mtime_ns is its Last-Modified date, 0 when the server gave none), missing_bytes
 *             (0, or for a file cut short inside its tensor data, such as a download that
 *             stopped, the bytes its tensors lack: its header is catalogued, read with
 *             GGUF_OPEN_PARTIAL (in open_flags, so that verify reads it so), without tensor
 *             crc32s; a file cut inside its header is an errors row), kv_bytes_token and
 *             kv_bytes_token_swa (the f16 KV cache's bytes per token of context of the
 *             full-attention and the sliding-window layers, gguf_llama_summary's),
 *             swa_window (the sliding window, 0 without one) and state_bytes (the recurrent
 *             state per sequence, 0 without one): NULL where the estimate does not
 *             know the architecture, and for files stored before version 8 until read again
 *   kv        file, position, key, type (the spec's name: 'UINT32', 'STRING', 'ARRAY', ...),
 *             elem_type and array_len (arrays), int (integers and bools), real (floats; NULL
 *             for NaN), text (strings; for a UINT64 above INT64_MAX and non-finite floats their
 *             decimal form or 'nan'/'inf'/'-inf'; for arrays of at most array_max elements the
 *             elements as JSON). Keys and strings that are not UTF-8 are stored as BLOBs.
 *   array_items  file, position (the kv row's), key, idx (from 0), int, real, text: one row
 *             per element of an array of scalars or strings of at most 2^20 elements, its
 *             value in the column kv would use. On PostgreSQL a view of array_values (file,
 *             position, key, and int, real and text as arrays: one row per array).
 *   tensors   file, position, name, type (ggml's name, 'TYPE_<id>' when unknown), type_id,
 *             n_dims, ne0..ne3 (1 beyond n_dims), offset (relative to data_offset), nbytes
 *             (NULL when unknown), crc32 (NULL unless indexed with GGUF_CATALOG_CRC)
 *   errors    path, dev, ino, size, mtime_ns, code (a gguf_errcode), error (its
 *             gguf_strerror), offset (NULL: none), message, indexed_at, run, journal, scope,
 *             shard: with scope 'file', a file (or URL) that could not be read, with the
 *             reader's message (for a URL: the HTTP status or the network error); with scope
 *             'set', a split set whose first shard is path and that does not open as one model
 *             (a shard missing, refused, or from another set), shard naming the shard at fault
 *             (from 1), as gguf_file_open with GGUF_OPEN_SPLIT_SET would say
 *   runs      id, kind ('index' or 'prune'), started_at, finished_at (unix seconds; NULL
 *             while running or when the run failed), paths (a JSON array of the absolute
 *             paths indexed), seen, indexed, unchanged, broken, skipped, walk_errors, removed,
 *             broken_sets (its gguf_catalog_stats), host and pid (the machine, by its
 *             hostname, and the process that ran it; NULL before version 9). Rows stored
 *             before version 4 have NULL runs. The tensors that changed in the last index run:
 *               SELECT f.path, t.* FROM tensors t JOIN files f ON f.id = t.file WHERE
 *               f.changed_run = (SELECT max(id) FROM runs WHERE kind = 'index')
 *   file_types  id, name: llama.cpp's general.file_type ids (15 'Q4_K_M', 32 'BF16', ...)
 *   models    (view) one row per model: a file on its own, or a split set (the row of its
 *             first shard, with the set's totals): file, path, architecture, name, size_label,
 *             file_type, quant (the dominant type), context_length, embedding_length,
 *             block_count, n_params, bytes, tensor_bytes, n_tensors (sums over the set's
 *             shards), split_no, split_count, shards (the files catalogued for the model),
 *             split_complete (1 when every shard of the set is catalogued and the set opens as
 *             one model, 0 when not, NULL when not split), missing_bytes (summed over the
 *             set's shards), partial (1 when the model's files lack bytes, else 0),
 *             kv_bytes_per_token, kv_bytes_per_token_swa, sliding_window,
 *             state_bytes_per_sequence (the files row's figures) and bits_per_weight
 *             (tensor_bytes * 8 / n_params, as llama.cpp prints it). A set whose first shard is
 *             missing or refused has no row: its errors row says why. The models that fit in 24 GiB with 32k tokens of context (weights and
 *             KV cache, one sequence; sliding-window layers keep their window and a batch of
 *             512, in blocks of 256):
 *               SELECT path FROM models WHERE tensor_bytes + 32768 * kv_bytes_per_token +
 *               min(32768, (sliding_window + 767) / 256 * 256) * kv_bytes_per_token_swa +
 *               state_bytes_per_sequence <= 24 * 1073741824
 *
 * The database runs in WAL mode with a busy timeout, so several processes may index, prune,
 * verify and query one catalog at once. A gguf_catalog handle is for one thread at a time.
 */

#define GGUF_CATALOG_SCHEMA_VERSION 9

typedef struct gguf_catalog gguf_catalog;

/* 1 when this build has the catalog (SQLite), 0 when not. */
GGUF_API int gguf_catalog_available(void);

/* The default database path, $XDG_DATA_HOME/gguf/catalog.db, or ~/.local/share/gguf/catalog.db
 * when XDG_DATA_HOME is unset, empty or relative. Fails with GGUF_EINVAL when HOME is needed
 * and unset, or when the path does not fit in size bytes. Works without SQLite too. */
GGUF_API int gguf_catalog_default_path(char *buf, size_t size, gguf_error *err);

enum gguf_catalog_open_flags {
    GGUF_CATALOG_OPEN_DEFAULT = 0,
    /* Fail with GGUF_ENOTFOUND when the database does not exist, instead of creating it. */
    GGUF_CATALOG_OPEN_NOCREATE = 1 << 0,
    /* Open read-only (implies NOCREATE): index and prune are refused, and a catalog with an
     * older schema is refused instead of migrated. */
    GGUF_CATALOG_OPEN_READONLY = 1 << 1
};

/* Opens (or creates, with its folders when path is NULL) the catalog at path, or at the
 * default path when path is NULL, and migrates an older schema. Errors: GGUF_EUNSUPPORTED (no
 * SQLite in this build, or a schema newer than this library), GGUF_ENOTFOUND (NOCREATE and no
 * database), GGUF_ECORRUPT (not a catalog), GGUF_EIO (SQLite failed). */
GGUF_API int gguf_catalog_open(gguf_catalog **out, const char *path, unsigned flags,
                               gguf_error *err);
/* Closes the catalog. NULL is allowed. */
GGUF_API void gguf_catalog_close(gguf_catalog *cat);
/* The database path; valid until the catalog is closed. */
GGUF_API const char *gguf_catalog_path(const gguf_catalog *cat);

enum gguf_catalog_index_flags {
    GGUF_CATALOG_CRC = 1 << 0,             /* also store each tensor's crc32 (reads all bytes) */
    GGUF_CATALOG_FOLLOW_SYMLINKS = 1 << 1, /* follow symbolic links found in folders */
    GGUF_CATALOG_ALL_FILES = 1 << 2,       /* take every file in folders, not just *.gguf */
    GGUF_CATALOG_FORCE = 1 << 3            /* re-read unchanged files too */
};

/* What gguf_catalog_index and gguf_catalog_prune tell their caller as they go. */
enum gguf_catalog_event_kind {
    GGUF_CATALOG_EV_INDEXED = 1,  /* the file was read and stored */
    GGUF_CATALOG_EV_UNCHANGED,    /* same device, inode, size and mtime (a row another
                                     machine stored: same size and mtime): skipped */
    GGUF_CATALOG_EV_BROKEN,       /* not GGUF, or refused by the reader: stored in errors */
    GGUF_CATALOG_EV_SKIPPED,      /* a symbolic link not followed, or a special file */
    GGUF_CATALOG_EV_WALK_ERROR,   /* an argument or folder that cannot be read (not stored) */
    GGUF_CATALOG_EV_REMOVED,      /* prune: the file no longer exists; its rows were dropped */
    GGUF_CATALOG_EV_SET_BROKEN    /* a split set does not open as one model (path: its first
                                     shard; error: why, naming the shard): stored in errors */
};

typedef struct gguf_catalog_event {
    int kind;                /* a gguf_catalog_event_kind */
    const char *path;        /* valid during the call only */
    const gguf_error *error; /* BROKEN and WALK_ERROR: why; INDEXED: NULL, or for a file cut
                                short inside its tensor data (catalogued partial: its header,
                                files.missing_bytes), what it lacks; else NULL */
} gguf_catalog_event;

typedef void (*gguf_catalog_event_fn)(const gguf_catalog_event *ev, void *user);

/* Options of gguf_catalog_index (see "Options structs" in gguf_base.h). */
typedef struct gguf_catalog_index_options {
    size_t size;                    /* sizeof as the caller was built: set by the _INIT macro */
    unsigned flags;                 /* gguf_catalog_index_flags */
    unsigned open_flags;            /* gguf_open_flags for gguf_file_open (kept per file) */
    uint64_t array_max;             /* arrays of at most this many elements go in kv.text */
    gguf_catalog_event_fn on_event; /* may be NULL */
    void *user;
    unsigned jobs;                  /* URLs: transfers at a time (0: 16) */
} gguf_catalog_index_options;

#define GGUF_CATALOG_INDEX_OPTIONS_INIT                                                        \
    {.size = sizeof(gguf_catalog_index_options), .flags = 0, .open_flags = 0, .array_max = 1024}

typedef struct gguf_catalog_stats {
    uint64_t seen;        /* candidate files met */
    uint64_t indexed;     /* read and stored */
    uint64_t unchanged;   /* skipped as unchanged */
    uint64_t broken;      /* stored in errors */
    uint64_t skipped;     /* symbolic links not followed, special files */
    uint64_t walk_errors; /* arguments or folders that could not be read */
    uint64_t removed;     /* rows of vanished files dropped (prune) */
    uint64_t broken_sets; /* split sets that do not open as one model (in errors) */
} gguf_catalog_stats;

/* Adds or refreshes files: each path is a file (taken whatever its name), a folder, walked
 * recursively for *.gguf files (every file with GGUF_CATALOG_ALL_FILES), or an http:// or
 * https:// URL. Only headers are read, unless GGUF_CATALOG_CRC. A file whose device, inode,
 * size and mtime match its row is skipped (with CRC, only when its crc32s are stored). Files
 * the reader refuses go to the errors table with its message and never stop the run; nor do
 * unreadable folders (reported as WALK_ERROR). Each file's rows change in one transaction.
 * Fails (GGUF_EIO, GGUF_ENOMEM) only when the catalog itself cannot be updated; files stored
 * before the failure stay stored. Every run leaves a row in runs (finished_at set when it
 * succeeds). Special files (FIFOs, devices) are skipped without being opened. A journal beside
 * a file is recorded in files.journal, never applied or removed.
 *
 * A file named like a shard of a split set (PREFIX-00002-of-00003.gguf) brings its whole set:
 * every shard is stored as a file of its own, and the set is checked as gguf_file_open with
 * GGUF_OPEN_SPLIT_SET checks it; a set that does not open as one model (a shard missing,
 * refused, or from another set) gets an errors row of scope 'set' naming the shard (and a
 * SET_BROKEN event), which goes once the set opens. The set is read again when any of its
 * shards changed (or appeared, or vanished).
 *
 * URLs are read as gguf_file_open_many reads them: at most opt->jobs transfers at a time over
 * one pool of connections, with the options of gguf_catalog_set_url_options. A URL stored
 * with an ETag or Last-Modified is asked for again with one conditional request
 * (If-None-Match, else If-Modified-Since): an answer 304 Not Modified skips it (UNCHANGED)
 * without reading its header again. A URL that fails (HTTP 404, a 5xx after the retries, a
 * network error) goes to the errors table with the message naming the URL and the HTTP
 * status; a shard URL brings the URLs of its siblings (the same URL with the shard number
 * changed; a sibling the server does not have is a missing shard). With the offline option
 * URLs are not touched: each is SKIPPED and its rows stay as they are.
 * opt may be NULL (GGUF_CATALOG_INDEX_OPTIONS_INIT). stats (may be NULL) is filled on success. */
GGUF_API int gguf_catalog_index(gguf_catalog_stats *stats, gguf_catalog *cat,
                                const char *const *paths, size_t n_paths,
                                const gguf_catalog_index_options *opt, gguf_error *err);

/* How URLs are reached by later gguf_catalog_index and gguf_catalog_verify calls on cat: the
 * headers (an Authorization for gated models), offline, timeout, retries and whole_limit of
 * opt (its flags, progress and keep_bytes are not used). opt is copied; the strings it points
 * to are borrowed until the next call or gguf_catalog_close; NULL: the defaults. Fails with
 * GGUF_EINVAL for a NULL catalog, or as options structs do (gguf_base.h). */
GGUF_API int gguf_catalog_set_url_options(gguf_catalog *cat, const gguf_open_options *opt,
                                          gguf_error *err);

/* Drops the rows (files, kv, tensors, errors) of files that no longer exist. stats->removed
 * counts them. on_event (may be NULL) hears a REMOVED event for each. The run leaves a row in
 * runs (kind 'prune'). URLs are left alone (index them again: one the server has no longer
 * goes to errors). An errors row of a split set goes when no shard of the set is left. */
GGUF_API int gguf_catalog_prune(gguf_catalog_stats *stats, gguf_catalog *cat,
                                gguf_catalog_event_fn on_event, void *user, gguf_error *err);

/* Copies every row of the catalog src (files, kv, array_items, tensors, errors, runs; ids
 * kept) into dst, replacing dst's rows, in one transaction of dst: a SQLite catalog into
 * PostgreSQL or back. src may be read-only; *rows (may be NULL) receives the rows copied. A
 * string PostgreSQL's text cannot hold (not UTF-8, or with a NUL) arrives there with U+FFFD
 * in place of its bad bytes. */
GGUF_API int gguf_catalog_copy(gguf_catalog *dst, gguf_catalog *src, uint64_t *rows,
                               gguf_error *err);
/* gguf_catalog_copy into the catalog dest (a SQLite path or a postgresql:// URL), opened and
 * made if needed, then closed. A SQLite catalog that does not exist yet is written to a
 * temporary file beside dest, synced and renamed to dest once whole: a failure, or an
 * interrupt (gguf_interrupt_cleanup), leaves no file where there was none, SQLite's own
 * included. An existing one keeps its rows until the transaction commits. src's own file, by
 * any name, is refused. */
GGUF_API int gguf_catalog_export(const char *dest, gguf_catalog *src, uint64_t *rows,
                                 gguf_error *err);

/* Query results. Each cell has a SQLite type; text holds the TEXT or BLOB bytes, and for
 * INTEGER and REAL cells SQLite's own text rendering (NUL-terminated, valid until the callback
 * returns). */
enum gguf_catalog_ctype {
    GGUF_CATALOG_NULL = 0,
    GGUF_CATALOG_INTEGER = 1,
    GGUF_CATALOG_REAL = 2,
    GGUF_CATALOG_TEXT = 3,
    GGUF_CATALOG_BLOB = 4
};

typedef struct gguf_catalog_cell {
    int type;         /* a gguf_catalog_ctype */
    int64_t i;        /* INTEGER */
    double r;         /* REAL (and INTEGER, converted) */
    const char *text; /* NULL for NULL cells */
    size_t len;       /* bytes in text */
} gguf_catalog_cell;

/* Called once per statement with cells NULL (the column names), then once per row. Return 0 to
 * go on, non-zero to stop the query (gguf_catalog_query then returns 0). */
typedef int (*gguf_catalog_row_fn)(size_t n_cols, const char *const *names,
                                   const gguf_catalog_cell *cells, void *user);

/* Runs the SQL text (one or more statements) on a read-only connection: a statement that would
 * change anything (INSERT, CREATE, ATTACH, VACUUM, PRAGMAs that set something, ...) is refused
 * with GGUF_EINVAL before it runs, as are syntax errors (the message is SQLite's). Only
 * functions SQLite marks innocuous or deterministic may be called (not fts3_tokenizer or
 * load_extension); PRAGMAs that report run, also as table-valued functions
 * (SELECT name FROM pragma_table_info('models')). A query that runs past its time limit or
 * needs more memory than its memory limit is stopped with GGUF_ELIMIT, naming the limit; see
 * gguf_catalog_set_query_limits. */
GGUF_API int gguf_catalog_query(gguf_catalog *cat, const char *sql, gguf_catalog_row_fn fn,
                                void *user, gguf_error *err);

/* The limits of later gguf_catalog_query calls on cat: timeout_ms of running time, and
 * max_memory bytes that SQLite may hold while the query runs (temporary tables and sorts
 * included: they are kept in memory), 0 for no limit. A new catalog has 60000 ms and 1 GiB.
 * The memory limit is SQLite's hard heap limit, which is process-wide: it applies to every
 * SQLite connection of the process while the query runs, and the previous limit is put back
 * after it. Fails with GGUF_EINVAL for a NULL catalog or limits beyond INT64_MAX. */
GGUF_API int gguf_catalog_set_query_limits(gguf_catalog *cat, uint64_t timeout_ms,
                                           uint64_t max_memory, gguf_error *err);

/* What gguf_catalog_verify finds. */
enum gguf_catalog_problem {
    GGUF_CATALOG_MISSING = 1, /* the file no longer exists */
    GGUF_CATALOG_UNREADABLE,  /* it exists but cannot be read (permissions, I/O error) */
    GGUF_CATALOG_CHANGED,     /* size, mtime or inode changed since indexing, and its bytes too */
    GGUF_CATALOG_CORRUPT      /* same size and mtime, but the bytes differ: they rotted */
};

typedef struct gguf_catalog_finding {
    int problem;          /* a gguf_catalog_problem */
    const char *path;
    const char *tensor;   /* the tensor whose crc32 no longer matches, or NULL */
    int has_crc;          /* 1: expected_crc and actual_crc are set */
    uint32_t expected_crc; /* the catalog's */
    uint32_t actual_crc;  /* the file's now */
    const char *message;  /* the whole finding, for people */
} gguf_catalog_finding;

typedef void (*gguf_catalog_finding_fn)(const gguf_catalog_finding *finding, void *user);

typedef struct gguf_catalog_verify_stats {
    uint64_t files;          /* files checked */
    uint64_t files_with_crc; /* of which with tensor crc32s */
    uint64_t tensors;        /* tensor crc32s compared */
    uint64_t bytes;          /* tensor bytes read */
    uint64_t missing, unreadable, changed, corrupt; /* files per problem (one each) */
} gguf_catalog_verify_stats;

/* Re-reads catalogued files (all, or those at or below the given paths) and compares them with
 * their rows: the header's crc32 always, each tensor's crc32 for files indexed with
 * GGUF_CATALOG_CRC, reading in large sequential chunks. A path that is no longer a regular
 * file (a FIFO, a folder) is reported CHANGED from its stat, without being opened. Every
 * problem goes to fn (may be NULL) and is counted in stats (may be NULL). Returns 0 when the
 * check ran, whatever it found. Journals beside files are left alone. A path selects the
 * models at or below it with all their shards: every shard of a split set is checked, and a
 * shard the catalog lacks is reported (MISSING when it is not there, CHANGED when it is but
 * was never indexed). A URL is read again with the options of gguf_catalog_set_url_options
 * (CHANGED when its size, ETag or Last-Modified differ; MISSING on HTTP 404); offline, URLs
 * are not checked. */
GGUF_API int gguf_catalog_verify(gguf_catalog_verify_stats *stats, gguf_catalog *cat,
                                 const char *const *paths, size_t n_paths,
                                 gguf_catalog_finding_fn fn, void *user, gguf_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LIBGGUF_GGUF_CATALOG_H */
