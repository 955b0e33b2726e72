/* What a query may do. The query connection is opened read-only, set to query_only, and given
 * an authorizer that allows only what reads: SELECT and the reads of tables, functions that
 * SQLite itself marks innocuous or deterministic and not direct-only (fts3_tokenizer, which
 * hands out and takes raw pointers, load_extension and their kind are not), PRAGMAs that
 * report (table_info(x), user_version, ...) and never one that sets something (query_only = 0,
 * writable_schema, temp_store, ...). Every query runs under a time limit (a progress handler,
 * which SQLite calls between steps, never inside one), a length limit on every value (so that
 * one step cannot build or scan much), and a memory limit (SQLite's hard heap limit,
 * process-wide while the query runs); temporary tables and sorts stay in memory so that the
 * memory limit bounds them too, instead of the disk filling with temporary files. A function
 * that runs long on values within the length limit (instr() of two long strings) is the
 * caller's to stop: gguf-catalog ends the process at the deadline. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifdef GGUF_HAVE_CATALOG

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define PROGRESS_STEPS 1000 /* virtual machine steps between two looks at the clock */

/* Never allowed, whatever flags SQLite gives them (and whether or not this SQLite lists its
 * functions): they hand out or take raw pointers, or reach files. */
static const char *const denied_functions[] = {
    "fts3_tokenizer", "fts5", "load_extension", "readfile", "writefile", "edit",
};

/* PRAGMAs whose argument names what to look at. */
static const char *const pragmas_with_argument[] = {
    "foreign_key_check", "foreign_key_list", "index_info", "index_list", "index_xinfo",
    "integrity_check", "quick_check", "table_info", "table_list", "table_xinfo",
};

/* PRAGMAs that report a setting when given no argument (with one, they would set it). */
static const char *const pragmas_reading[] = {
    "application_id", "auto_vacuum",   "busy_timeout",    "cache_size",     "collation_list",
    "compile_options", "data_version", "database_list",   "encoding",       "foreign_key_check",
    "foreign_keys",   "freelist_count", "function_list",  "integrity_check", "journal_mode",
    "max_page_count", "module_list",   "page_count",      "page_size",      "pragma_list",
    "query_only",     "quick_check",   "schema_version",  "synchronous",    "table_list",
    "temp_store",     "user_version",
};

static int in_list(const char *name, const char *const *list, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (strcasecmp(name, list[i]) == 0)
            return 1;
    }
    return 0;
}

#define IN_LIST(name, list) in_list(name, list, sizeof list / sizeof list[0])

static const void *name_key(const void *ctx, size_t i, size_t *n) {
    const gguf__guard *g = ctx;
    const char *s = g->names + g->name_at[i];
    *n = strlen(s);
    return s;
}

static int function_allowed(const gguf__guard *g, const char *name) {
    char lower[64];
    size_t n = strlen(name);
    if (n >= sizeof lower)
        return 0;
    for (size_t i = 0; i <= n; i++)
        lower[i] = (char)tolower((unsigned char)name[i]);
    if (IN_LIST(lower, denied_functions))
        return 0;
    if (!g->have_list)
        return 1; /* this SQLite cannot list its functions: the deny-list only */
    return gguf__hashset_find(&g->allowed, lower, n, name_key, g) >= 0;
}

/* Refuses, remembering the first thing refused in the statement (a: a PRAGMA's name or NULL,
 * b: its argument or a function's name). */
static int deny(gguf__guard *g, int kind, const char *a, const char *b) {
    if (g->denied)
        return SQLITE_DENY;
    g->denied = kind;
    if (kind == GGUF__DENIED_FUNCTION)
        snprintf(g->why, sizeof g->why, "function %s()", b ? b : "");
    else if (kind == GGUF__DENIED_PRAGMA && b != NULL)
        snprintf(g->why, sizeof g->why, "PRAGMA %s = %s", a ? a : "", b);
    else if (kind == GGUF__DENIED_PRAGMA)
        snprintf(g->why, sizeof g->why, "PRAGMA %s", a ? a : "");
    return SQLITE_DENY;
}

static int authorize(void *user, int action, const char *a, const char *b, const char *db,
                     const char *inner) {
    gguf__guard *g = user;
    (void)db, (void)inner;
    switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_TRANSACTION:
    case SQLITE_SAVEPOINT:
    case SQLITE_RECURSIVE: return SQLITE_OK;
    case SQLITE_FUNCTION:
        return function_allowed(g, b != NULL ? b : "") ? SQLITE_OK
                                                       : deny(g, GGUF__DENIED_FUNCTION, a, b);
    case SQLITE_PRAGMA:
        if (a != NULL && (IN_LIST(a, pragmas_with_argument) ||
                          (b == NULL && IN_LIST(a, pragmas_reading))))
            return SQLITE_OK;
        return deny(g, GGUF__DENIED_PRAGMA, a, b);
    case SQLITE_UPDATE:
        /* SQLite asks this about its schema table when it first sets up a table-valued
         * function (pragma_table_info, json_each) on a connection. A real UPDATE of the
         * schema table is refused anyway: the connection is read-only and query_only, and
         * statements that are not read-only are refused before they run. */
        if (a != NULL && (strcmp(a, "sqlite_master") == 0 || strcmp(a, "sqlite_temp_master") == 0))
            return SQLITE_OK;
        return deny(g, GGUF__DENIED_STATEMENT, NULL, NULL);
    default: return deny(g, GGUF__DENIED_STATEMENT, NULL, NULL);
    }
}

static int on_progress(void *user) {
    gguf__guard *g = user;
    if (g->deadline_ns != 0 && gguf__catalog_now_ns() > g->deadline_ns) {
        g->timed_out = 1;
        return 1;
    }
    return 0;
}

/* The functions SQLite marks safe: innocuous or deterministic, and not direct-only, for every
 * argument count a name has. */
static int list_functions(gguf__guard *g, sqlite3 *db) {
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT lower(name) FROM pragma_function_list GROUP BY lower(name) HAVING"
             " min((flags & %d) = 0 AND (flags & %d) != 0)",
             SQLITE_DIRECTONLY, SQLITE_INNOCUOUS | SQLITE_DETERMINISTIC);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0; /* no introspection in this SQLite */
    gguf__buf names = {0}, at = {0};
    int rc;
    size_t n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (name == NULL)
            continue;
        size_t off = names.len;
        gguf__buf_add(&names, name, strlen(name) + 1);
        gguf__buf_add(&at, &off, sizeof off);
        n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && !names.failed && !at.failed) {
        gguf__buf_free(&names);
        gguf__buf_free(&at);
        return 0;
    }
    if (names.failed || at.failed || n >= UINT32_MAX || gguf__hashset_init(&g->allowed, n) != 0) {
        gguf__buf_free(&names);
        gguf__buf_free(&at);
        return GGUF_ENOMEM;
    }
    g->names = (char *)names.data;
    g->name_at = (size_t *)(void *)at.data;
    g->n_names = n;
    for (size_t i = 0; i < n; i++) {
        if (gguf__hashset_insert(&g->allowed, (uint32_t)i, name_key, g) == -2)
            return GGUF_ENOMEM;
    }
    g->have_list = 1;
    return 0;
}

int gguf__guard_install(gguf_catalog *cat, gguf_error *err) {
    sqlite3 *db = cat->ro->lite;
    gguf__guard *g = &cat->guard;
    gguf__guard_free(g);
    int rc = sqlite3_exec(db, "PRAGMA query_only = 1; PRAGMA temp_store = MEMORY", NULL, NULL,
                          NULL);
    if (rc != SQLITE_OK)
        return gguf__catalog_db_fail(err, cat->ro, rc, cat->path,
                                     "making the query connection read-only");
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)NULL);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, GGUF__CATALOG_QUERY_LENGTH_MAX);
    if (list_functions(g, db) != 0) {
        gguf__guard_free(g);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    sqlite3_set_authorizer(db, authorize, g);
    sqlite3_progress_handler(db, PROGRESS_STEPS, on_progress, g);
    g->installed = 1;
    return 0;
}

void gguf__guard_free(gguf__guard *g) {
    gguf__free(g->names);
    gguf__free(g->name_at);
    gguf__hashset_free(&g->allowed);
    g->names = NULL;
    g->name_at = NULL;
    g->n_names = 0;
    g->have_list = 0;
    g->installed = 0;
}

void gguf__guard_start(gguf_catalog *cat, int64_t *saved_heap_limit) {
    gguf__guard *g = &cat->guard;
    g->denied = 0;
    g->why[0] = '\0';
    g->timed_out = 0;
    g->deadline_ns =
        cat->timeout_ms != 0 ? gguf__catalog_now_ns() + (int64_t)cat->timeout_ms * 1000000 : 0;
    *saved_heap_limit = -1;
    if (cat->max_memory != 0) {
        *saved_heap_limit = sqlite3_hard_heap_limit64(-1);
        sqlite3_hard_heap_limit64((sqlite3_int64)cat->max_memory);
    }
}

void gguf__guard_stop(gguf_catalog *cat, int64_t saved_heap_limit) {
    cat->guard.deadline_ns = 0;
    if (saved_heap_limit >= 0)
        sqlite3_hard_heap_limit64(saved_heap_limit);
}

/* "2 s", "0.5 s", "512 MiB", "1.5 GiB" */
static void say_ms(char *buf, size_t size, uint64_t ms) {
    if (ms % 1000 == 0)
        snprintf(buf, size, "%llu s", (unsigned long long)(ms / 1000));
    else
        snprintf(buf, size, "%.3g s", (double)ms / 1000);
}

static void say_bytes(char *buf, size_t size, uint64_t n) {
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)n;
    int u = 0;
    while (v >= 1024 && u < 4)
        v /= 1024, u++;
    snprintf(buf, size, u == 0 ? "%.0f %s" : "%.4g %s", v, units[u]);
}

int gguf__guard_fail(gguf_catalog *cat, int rc, int preparing, gguf_error *err) {
    gguf__guard *g = &cat->guard;
    char limit[32];
    if (g->denied == GGUF__DENIED_PRAGMA)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "query: refused: %s: queries cannot change the catalog or their "
                          "connection (only PRAGMAs that report, such as table_info, run)",
                          g->why);
    if (g->denied == GGUF__DENIED_FUNCTION)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "query: refused: %s is not allowed: queries may only call functions "
                          "that cannot reach outside the catalog",
                          g->why);
    if (g->denied)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "query: refused: queries cannot change the catalog (no INSERT, "
                          "UPDATE, DELETE, CREATE, DROP, ALTER, ATTACH, VACUUM or writing "
                          "PRAGMA)");
    if (g->timed_out || (rc & 0xff) == SQLITE_INTERRUPT) {
        say_ms(limit, sizeof limit, cat->timeout_ms);
        return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                          "query: stopped at the time limit of %s", limit);
    }
    if ((rc & 0xff) == SQLITE_TOOBIG) {
        say_bytes(limit, sizeof limit, (uint64_t)GGUF__CATALOG_QUERY_LENGTH_MAX);
        return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                          "query: stopped at a value longer than %s, the length limit of query "
                          "values (a stored value is at most %zu MiB)",
                          limit, GGUF__CATALOG_TEXT_MAX >> 20);
    }
    if ((rc & 0xff) == SQLITE_NOMEM && cat->max_memory != 0) {
        say_bytes(limit, sizeof limit, cat->max_memory);
        return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                          "query: stopped at the memory limit of %s", limit);
    }
    if ((rc & 0xff) == SQLITE_NOMEM)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "query: out of memory");
    return gguf__fail(err, preparing ? GGUF_EINVAL : GGUF_EIO, GGUF_ERROR_NO_OFFSET, "query: %s",
                      sqlite3_errmsg(cat->ro->lite));
}

#endif /* GGUF_HAVE_CATALOG */
