/* The catalog handle: opening a database (creating it and its folders, switching it to WAL,
 * migrating an older schema) and closing it. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifdef GGUF_HAVE_CATALOG

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_TIMEOUT_MS 60000
#define DEFAULT_MAX_MEMORY ((uint64_t)1 << 30)

int gguf_catalog_available(void) { return 1; }

/* Switches to WAL (persistent in the file). Another process switching at the same time may
 * hold the lock for a moment: retry until the busy timeout. */
static int use_wal(gguf_catalog *cat, gguf_error *err) {
    int64_t deadline = gguf__catalog_now_ns() + (int64_t)GGUF__CATALOG_BUSY_TIMEOUT_MS * 1000000;
    for (;;) {
        gguf__stmt *st;
        int rc = gguf__db_prepare(&st, cat->db, "PRAGMA journal_mode = WAL", NULL, 0);
        if (rc == SQLITE_OK) {
            rc = gguf__step(st);
            if (rc == SQLITE_ROW) {
                const char *mode = (const char *)gguf__col_text(st, 0);
                int wal = mode != NULL && sqlite3_stricmp(mode, "wal") == 0;
                gguf__finalize(st);
                if (!wal)
                    return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                                      "catalog %s: cannot switch to WAL mode", cat->path);
                return 0;
            }
            gguf__finalize(st);
        }
        if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) ||
            gguf__catalog_now_ns() > deadline)
            return gguf__catalog_db_fail(err, cat->db, rc, cat->path, "switching to WAL mode");
        sqlite3_sleep(10);
    }
}

void gguf_catalog_close(gguf_catalog *cat) {
    if (cat == NULL)
        return;
    /* the query connection first: SQLite's last connection to close, when it can write,
     * removes the -wal and -shm files, which a read-only one cannot */
    gguf__db_close(cat->ro);
    if (cat->db != NULL) {
        if (cat->in_txn)
            gguf__db_exec(cat->db, "COMMIT", NULL);
        for (int i = 0; i < GGUF__ST_COUNT; i++)
            gguf__finalize(cat->st[i]);
        gguf__db_close(cat->db);
    } else if (cat->wal_absent) { /* reading leaves the catalog's folder as it found it */
        gguf__db_sqlite_tidy_wal(cat->conninfo);
    }
    gguf__guard_free(&cat->guard);
    for (int i = 0; i < 3; i++)
        gguf__buf_free(&cat->items[i].lit);
    gguf__free(cat->path);
    gguf__free(cat->conninfo);
    gguf__free(cat);
}

/* The database (and its WAL and shared-memory files) must be regular files when they exist:
 * SQLite would wait on a FIFO, or read a device. */
static int check_regular(const char *path, gguf_error *err) {
    static const char *const tails[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        struct stat st;
        int rc = gguf__db_stat_beside(path, tails[i], 1, &st);
        if (rc == 1)
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "catalog path too long");
        if (rc == 0 && !S_ISREG(st.st_mode))
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "catalog %s%s: %s, not a regular file: refused", path, tails[i],
                              gguf__catalog_file_kind(st.st_mode));
    }
    return 0;
}

int gguf_catalog_open(gguf_catalog **out, const char *path, unsigned flags, gguf_error *err) {
    char defpath[PATH_MAX];
    if (out == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no output for the catalog");
    int readonly = (flags & GGUF_CATALOG_OPEN_READONLY) != 0;
    int create = !readonly && !(flags & GGUF_CATALOG_OPEN_NOCREATE);
    int rc;
    if (path == NULL) {
        rc = gguf__catalog_default_path(defpath, sizeof defpath, err);
        if (rc != 0)
            return rc;
        path = defpath;
    }
    struct stat st;
    int pg = gguf__db_is_pg_url(path);
    if (!pg && !create && stat(path, &st) != 0)
        return gguf__fail(err, GGUF_ENOTFOUND, GGUF_ERROR_NO_OFFSET, "no catalog at %s", path);
    rc = pg ? 0 : check_regular(path, err);
    if (rc == 0 && create && path == defpath)
        rc = gguf__catalog_make_parents(path, err);
    if (rc != 0)
        return rc;
    gguf_catalog *cat = gguf__calloc(1, sizeof *cat);
    if (cat == NULL || (cat->path = gguf__db_redact(path)) == NULL ||
        (cat->conninfo = gguf__strdup(path)) == NULL) {
        if (cat != NULL)
            gguf__free(cat->path);
        gguf__free(cat);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    cat->flags = flags;
    cat->pg = pg;
    cat->timeout_ms = DEFAULT_TIMEOUT_MS;
    cat->max_memory = DEFAULT_MAX_MEMORY;
    if (readonly) {
        cat->wal_absent = !pg && gguf__db_stat_beside(path, "-wal", 0, &st) != 0 &&
                          gguf__db_stat_beside(path, "-shm", 0, &st) != 0;
        rc = gguf__catalog_connect(&cat->ro, path, 1, 0, err);
        if (rc == 0)
            rc = gguf__catalog_check_readonly(cat->ro, path, err);
    } else {
        rc = gguf__catalog_connect(&cat->db, path, 0, create, err);
        if (rc == 0) {
            if (!pg)
                gguf__catalog_register_functions(cat->db->lite);
            rc = gguf__catalog_check_identity(cat, err); /* before touching another's file */
        }
        if (rc == 0 && !pg)
            rc = use_wal(cat, err);
        if (rc == 0 && !pg)
            rc = gguf__catalog_exec(cat, "PRAGMA synchronous = NORMAL", "setting synchronous mode",
                                    err);
        if (rc == 0)
            rc = gguf__catalog_migrate(cat, err);
    }
    if (rc != 0) {
        gguf_catalog_close(cat);
        return rc;
    }
    *out = cat;
    return 0;
}

const char *gguf_catalog_path(const gguf_catalog *cat) { return cat != NULL ? cat->path : NULL; }

int gguf_catalog_set_query_limits(gguf_catalog *cat, uint64_t timeout_ms, uint64_t max_memory,
                                  gguf_error *err) {
    if (cat == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no catalog");
    if (max_memory > INT64_MAX || timeout_ms > INT64_MAX / 1000000)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "query limits too large");
    cat->timeout_ms = timeout_ms;
    cat->max_memory = max_memory;
    return 0;
}

int gguf__catalog_need_writable(gguf_catalog *cat, const char *what, gguf_error *err) {
    if (cat == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no catalog");
    if (cat->db == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "catalog %s: opened read-only, cannot %s", cat->path, what);
    return 0;
}

/* ---- test hook: run SQL on a database file (old schemas for migration tests) ---- */

#ifdef GGUF_ALLOC_FAULTS
GGUF_API int gguf_testing_catalog_exec(const char *path, const char *sql, gguf_error *err);
int gguf_testing_catalog_exec(const char *path, const char *sql, gguf_error *err) {
    gguf__db *d;
    int rc = gguf__catalog_connect(&d, path, 0, 1, err);
    if (rc != 0)
        return rc;
    if (d->kind != GGUF__DB_SQLITE) {
        gguf__db_close(d);
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "a SQLite file only");
    }
    sqlite3 *db = d->lite;
    gguf__catalog_register_functions(db); /* as the library had when it made old schemas */
    char *msg = NULL;
    int src = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (src != SQLITE_OK)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s", msg ? msg : sqlite3_errstr(src));
    sqlite3_free(msg);
    gguf__db_close(d);
    return rc;
}
#endif

#endif /* GGUF_HAVE_CATALOG */
