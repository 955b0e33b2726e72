/* gguf_catalog_query: the caller's SQL, one statement after another, on the guarded read-only
 * connection (guard.c); each statement's column names, then its rows, go to the caller. A
 * statement that would write is refused before it runs. On PostgreSQL the reader role's
 * connection runs it (pg.c), and the database refuses what the role may not do. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifdef GGUF_HAVE_CATALOG

#include <string.h>

static int open_query_connection(gguf_catalog *cat, gguf_error *err) {
    if (cat->ro != NULL && (cat->guard.installed || cat->pg))
        return 0;
    int rc = 0;
    if (cat->ro == NULL) {
        rc = gguf__catalog_connect(&cat->ro, cat->conninfo, 1, 0, err);
        if (rc == 0)
            rc = gguf__catalog_check_readonly(cat->ro, cat->path, err);
    }
    if (rc == 0 && !cat->pg)
        rc = gguf__guard_install(cat, err);
    if (rc != 0) {
        gguf__db_close(cat->ro);
        cat->ro = NULL;
    }
    return rc;
}

/* Fills cells from the current row; returns SQLITE_ROW, or SQLITE_NOMEM. */
static int read_row(gguf_catalog_cell *cells, sqlite3_stmt *st, size_t ncols) {
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
            if (cell->text == NULL && cell->len > 0)
                return SQLITE_NOMEM;
            if (cell->text == NULL)
                cell->text = "";
        } else if (t != SQLITE_NULL) {
            cell->text = (const char *)sqlite3_column_text(st, (int)c);
            cell->len = (size_t)sqlite3_column_bytes(st, (int)c);
            if (cell->text == NULL)
                return SQLITE_NOMEM;
        }
    }
    return SQLITE_ROW;
}

/* Runs one prepared statement: its names, then its rows. Sets *stop when fn asked to. */
static int run_statement(gguf_catalog *cat, sqlite3_stmt *st, gguf_catalog_row_fn fn, void *user,
                         int *stop, gguf_error *err) {
    size_t ncols = (size_t)sqlite3_column_count(st);
    const char **names = gguf__malloc((ncols ? ncols : 1) * sizeof *names);
    gguf_catalog_cell *cells = gguf__malloc((ncols ? ncols : 1) * sizeof *cells);
    if (names == NULL || cells == NULL) {
        gguf__free(names);
        gguf__free(cells);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    for (size_t c = 0; c < ncols; c++) {
        names[c] = sqlite3_column_name(st, (int)c);
        if (names[c] == NULL)
            names[c] = "";
    }
    if (ncols > 0 && fn != NULL)
        *stop = fn(ncols, names, NULL, user);
    int src = SQLITE_DONE;
    while (!*stop && (src = sqlite3_step(st)) == SQLITE_ROW) {
        src = read_row(cells, st, ncols);
        if (src != SQLITE_ROW)
            break;
        if (fn != NULL)
            *stop = fn(ncols, names, cells, user);
    }
    gguf__free(names);
    gguf__free(cells);
    if (!*stop && src != SQLITE_DONE)
        return gguf__guard_fail(cat, src, 0, err);
    return 0;
}

int gguf_catalog_query(gguf_catalog *cat, const char *sql, gguf_catalog_row_fn fn, void *user,
                       gguf_error *err) {
    if (cat == NULL || sql == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no catalog or no query");
    int rc = open_query_connection(cat, err);
    if (rc != 0)
        return rc;
#ifdef GGUF_HAVE_PG
    if (cat->pg) {
        rc = gguf__pg_query(cat, sql, fn, user, err);
        return rc == GGUF__PG_TIMED_OUT ? gguf__guard_fail(cat, SQLITE_INTERRUPT, 0, err) : rc;
    }
#endif
    sqlite3 *db = cat->ro->lite;
    int64_t saved_heap_limit;
    gguf__guard_start(cat, &saved_heap_limit);
    const char *tail = sql;
    int stop = 0;
    while (rc == 0 && !stop && tail != NULL && *tail != '\0') {
        sqlite3_stmt *st = NULL;
        const char *next = NULL;
        cat->guard.denied = 0;
        int src = sqlite3_prepare_v2(db, tail, -1, &st, &next);
        if (src == SQLITE_OK && st != NULL && !sqlite3_stmt_readonly(st)) {
            sqlite3_finalize(st);
            cat->guard.denied = GGUF__DENIED_STATEMENT;
            src = SQLITE_AUTH;
        }
        if (src != SQLITE_OK) {
            rc = gguf__guard_fail(cat, src, 1, err);
            break;
        }
        tail = next;
        if (st == NULL) /* only whitespace or comments */
            continue;
        rc = run_statement(cat, st, fn, user, &stop, err);
        sqlite3_finalize(st);
    }
    /* a BEGIN without its COMMIT must not hold a read snapshot until the next query */
    if (!sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    gguf__guard_stop(cat, saved_heap_limit);
    return rc;
}

#endif /* GGUF_HAVE_CATALOG */
