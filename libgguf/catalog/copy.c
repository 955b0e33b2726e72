/* gguf_catalog_copy: every row of one catalog into another, SQLite or PostgreSQL either way
 * (the ids kept, so the children still point at their files), in one transaction of the
 * target, its old rows replaced. PostgreSQL's rows go by COPY (pg.c), and its id sequences
 * move past the ids copied. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifdef GGUF_HAVE_CATALOG

#include "commit/commit.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The tables with rows of their own (file_types is the schema's), with every column. */
static const struct {
    const char *name, *columns, *order;
    int n;
} tables[] = {
    {"files",
     "id, path, dev, ino, size, mtime_ns, version, endian, alignment, data_offset, n_kv, "
     "n_tensors, header_crc32, open_flags, has_crc, indexed_at, n_params, tensor_bytes, "
     "dominant_type, split_set, split_no, split_count, indexed_run, changed_run, journal, model, "
     "etag, last_modified, missing_bytes, kv_bytes_token, kv_bytes_token_swa, swa_window, "
     "state_bytes",
     "id", 33},
    {"kv", "file, position, key, type, elem_type, array_len, int, real, text", "file, position", 9},
    {"array_items", "file, position, key, idx, int, real, text", "file, position, idx", 7},
    {"tensors",
     "file, position, name, type, n_dims, ne0, ne1, ne2, ne3, \"offset\", nbytes, crc32, type_id",
     "file, position", 13},
    {"errors",
     "path, dev, ino, size, mtime_ns, code, error, \"offset\", message, indexed_at, run, journal, "
     "scope, shard, etag, last_modified",
     "path, scope", 16},
    {"runs",
     "id, kind, started_at, finished_at, paths, seen, indexed, unchanged, broken, skipped, "
     "walk_errors, removed, broken_sets, host, pid",
     "id", 15},
};

/* Column c of in's row into parameter col of out. */
static void bind_cell(gguf__stmt *out, int col, gguf__stmt *in, int c) {
    switch (gguf__col_type(in, c)) {
    case SQLITE_INTEGER: gguf__bind_int64(out, col, gguf__col_int64(in, c)); break;
    case SQLITE_FLOAT: gguf__bind_double(out, col, gguf__col_double(in, c)); break;
    case SQLITE_TEXT: /* a NUL in it: U+FFFD in PostgreSQL, as when indexed */
        gguf__catalog_bind_bytes(out, col, gguf__col_text(in, c), (size_t)gguf__col_bytes(in, c));
        break;
    case SQLITE_BLOB:
        gguf__bind_blob(out, col, gguf__col_blob(in, c), gguf__col_bytes(in, c));
        break;
    default: break;
    }
}

/* array_items (file, position, key, idx, int, real, text, by file, position and idx) into
 * PostgreSQL's array_values: an array's rows gathered into one, as an index run stores it. */
static int copy_arrays(gguf_catalog *dst, gguf__stmt *in, const char *src_path, uint64_t *rows,
                       gguf_error *err) {
    gguf__stmt *out;
    int rc = gguf__catalog_stmt(&out, dst, GGUF__ST_ITEM_INSERT, err), src = SQLITE_OK;
    int64_t file = 0, position = 0, n = 0;
    while (rc == 0 && (src = gguf__step(in)) == SQLITE_ROW) {
        int64_t f = gguf__col_int64(in, 0), p = gguf__col_int64(in, 1);
        if (n > 0 && (f != file || p != position)) {
            rc = gguf__catalog_store_array(dst, out, err);
            n = 0;
        }
        if (rc == 0 && gguf__col_int64(in, 3) != n)
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "catalog %s: array_items of file %" PRId64 ", position %" PRId64
                            ": element %" PRId64 " follows %" PRId64 " elements",
                            src_path, f, p, gguf__col_int64(in, 3), n);
        if (rc != 0)
            break;
        file = f;
        position = p;
        n++;
        for (int c = 0; c < 3; c++)
            bind_cell(out, c + 1, in, c);
        for (int c = 0; c < 3; c++) {
            bind_cell(out, GGUF__COL_INT + c, in, 4 + c);
            gguf__db_array_add(&dst->items[c], out, GGUF__COL_INT + c);
        }
        (*rows)++;
    }
    if (rc == 0 && src != SQLITE_DONE)
        return gguf__catalog_db_fail(err, in->db, src, src_path, "reading a table");
    if (rc == 0 && n > 0)
        rc = gguf__catalog_store_array(dst, out, err);
    return rc;
}

static int copy_table(gguf_catalog *dst, gguf__db *from, const char *src_path, size_t t,
                      uint64_t *rows, gguf_error *err) {
    char sql[1024];
    gguf__stmt *in = NULL, *out = NULL;
    int arrays = dst->pg && strcmp(tables[t].name, "array_items") == 0;
    snprintf(sql, sizeof sql, "DELETE FROM %s", arrays ? "array_values" : tables[t].name);
    int rc = gguf__catalog_exec(dst, sql, "emptying a table", err);
    if (rc != 0)
        return rc;
    snprintf(sql, sizeof sql, "SELECT %s FROM %s ORDER BY %s", tables[t].columns, tables[t].name,
             tables[t].order);
    int src = gguf__db_prepare(&in, from, sql, NULL, 0);
    if (src != SQLITE_OK)
        return gguf__catalog_db_fail(err, from, src, src_path, "reading a table");
    if (arrays) {
        rc = copy_arrays(dst, in, src_path, rows, err);
        gguf__finalize(in);
        return rc;
    }
    int n = snprintf(sql, sizeof sql, "INSERT INTO %s (%s) VALUES (", tables[t].name,
                     tables[t].columns);
    for (int c = 0; c < tables[t].n; c++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, "%s?%d", c ? ", " : "", c + 1);
    snprintf(sql + n, sizeof sql - (size_t)n, ")");
    src = gguf__db_prepare(&out, dst->db, sql, NULL, 1);
    if (src != SQLITE_OK) {
        gguf__finalize(in);
        return gguf__catalog_db_fail(err, dst->db, src, dst->path, "writing a table");
    }
    while (rc == 0 && (src = gguf__step(in)) == SQLITE_ROW) {
        for (int c = 0; c < tables[t].n; c++)
            bind_cell(out, c + 1, in, c);
        rc = gguf__catalog_step_done(dst, out, "writing a row", err);
        (*rows)++;
    }
    if (rc == 0 && src != SQLITE_DONE)
        rc = gguf__catalog_db_fail(err, from, src, src_path, "reading a table");
    gguf__finalize(in);
    /* PostgreSQL: the rows still waiting for COPY go before the statement is let go */
    if (rc == 0 && dst->pg) {
#ifdef GGUF_HAVE_PG
        src = gguf__pg_flush(dst->db);
        if (src != SQLITE_OK)
            rc = gguf__catalog_db_fail(err, dst->db, src, dst->path, "writing a table");
#endif
    }
    gguf__finalize(out);
    return rc;
}

int gguf_catalog_copy(gguf_catalog *dst, gguf_catalog *src, uint64_t *rows, gguf_error *err) {
    if (src == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no catalog to copy");
    int rc = gguf__catalog_need_writable(dst, "copy a catalog into it", err);
    if (rc != 0)
        return rc;
    gguf__db *from = src->db != NULL ? src->db : src->ro;
    if (from == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "catalog %s: not open",
                          src->path);
    uint64_t n = 0;
    rc = gguf__catalog_txn_commit(dst, err);
    if (rc == 0)
        rc = gguf__catalog_txn_begin(dst, err);
    for (size_t t = 0; rc == 0 && t < sizeof tables / sizeof tables[0]; t++) {
        rc = copy_table(dst, from, src->path, t, &n, err);
        gguf__test_pause("catalog-table-copied");
    }
    if (rc == 0 && dst->pg)
        rc = gguf__catalog_exec(dst,
                                "SELECT setval('files_id_seq', coalesce(max(id), 0) + 1, false)"
                                " FROM files;"
                                "SELECT setval('runs_id_seq', coalesce(max(id), 0) + 1, false)"
                                " FROM runs",
                                "moving the id sequences", err);
    if (rc == 0)
        rc = gguf__catalog_txn_commit(dst, err);
    else
        gguf__catalog_txn_rollback(dst);
    if (rc == 0 && rows != NULL)
        *rows = n;
    return rc;
}

static int export_open(const char *dest, gguf_catalog *src, uint64_t *rows, gguf_error *err) {
    gguf_catalog *dst = NULL;
    int rc = gguf_catalog_open(&dst, dest, GGUF_CATALOG_OPEN_DEFAULT, err);
    if (rc == 0)
        rc = gguf_catalog_copy(dst, src, rows, err);
    gguf_catalog_close(dst);
    return rc;
}

int gguf_catalog_export(const char *dest, gguf_catalog *src, uint64_t *rows, gguf_error *err) {
    struct stat st;
    if (dest == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no catalog to copy into");
    struct stat from;
    if (!gguf__db_is_pg_url(dest) && src != NULL && !src->pg && stat(dest, &st) == 0 &&
        stat(src->conninfo, &from) == 0 && st.st_dev == from.st_dev && st.st_ino == from.st_ino)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "catalog %s: it is the catalog being copied: refused, nothing written",
                          dest);
    if (gguf__db_is_pg_url(dest) || lstat(dest, &st) == 0 || errno != ENOENT)
        return export_open(dest, src, rows, err);
    /* a new SQLite file: made whole as a temporary file, its WAL and shared memory (SQLite's,
     * gone when it closes) listed for an interrupt's cleanup as well */
    char *tmp = NULL;
    int fd = gguf__temp_create(&tmp, dest, ".tmp", err);
    if (fd < 0)
        return fd;
    char *wal = gguf__path_beside(tmp, "", "-wal"), *shm = gguf__path_beside(tmp, "", "-shm");
    int rc = wal == NULL || shm == NULL
                 ? gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory")
             : gguf__temp_track(wal) != 0 || gguf__temp_track(shm) != 0
                 ? gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                              "catalog %s: too many temporary files open", dest)
                 : export_open(tmp, src, rows, err);
    /* closed, SQLite has moved its WAL into the file and removed it: a WAL still there would
     * hold rows the renamed file lacks */
    if (rc == 0 && access(wal, F_OK) == 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                        "catalog %s: SQLite kept its WAL beside the new catalog: not put in place",
                        dest);
    if (rc == 0 && gguf__io_fsync(fd) != 0)
        rc = gguf__io_fail(err, tmp, "fsync");
    if (rc == 0 && gguf__temp_rename(tmp, dest) != 0)
        rc = gguf__io_fail(err, dest, "renaming the catalog into place");
    if (rc == 0)
        (void)gguf__io_sync_dir(dest);
    else
        gguf__temp_discard(tmp);
    char *beside[] = {wal, shm};
    for (size_t i = 0; i < 2; i++) {
        if (beside[i] != NULL) {
            gguf__temp_untrack(beside[i]);
            if (rc != 0)
                (void)unlink(beside[i]);
            gguf__free(beside[i]);
        }
    }
    close(fd);
    gguf__free(tmp);
    return rc;
}

#endif /* GGUF_HAVE_CATALOG */
