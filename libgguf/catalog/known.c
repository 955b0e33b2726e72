/* The rows already in the catalog, loaded once per index run and found by path: what lets an
 * index run skip an unchanged file with one stat. Entries live in an array, their paths in one
 * arena, and the hash set indexes them by path. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifdef GGUF_HAVE_CATALOG

#include <string.h>

static const void *known_key(const void *ctx, size_t i, size_t *n) {
    const gguf__known_set *ks = ctx;
    *n = ks->items[i].path_len;
    return ks->arena.data + ks->items[i].path_at;
}

gguf__known *gguf__known_find(const gguf__known_set *ks, const char *path) {
    int64_t i = gguf__hashset_find(&ks->index, path, strlen(path), known_key, ks);
    return i >= 0 ? &ks->items[i] : NULL;
}

int gguf__known_put(gguf__known_set *ks, const char *path, const gguf__known *k) {
    size_t len = strlen(path);
    if (ks->index.slots == NULL && gguf__hashset_init(&ks->index, 64) != 0)
        return GGUF_ENOMEM;
    gguf__known *old = gguf__known_find(ks, path);
    if (old != NULL) {
        size_t at = old->path_at;
        *old = *k;
        old->path_at = at;
        old->path_len = len;
        return 0;
    }
    if (ks->n == ks->cap) {
        size_t cap = ks->cap ? ks->cap * 2 : 256;
        gguf__known *p = cap < SIZE_MAX / sizeof *p ? gguf__realloc(ks->items, cap * sizeof *p)
                                                     : NULL;
        if (p == NULL)
            return GGUF_ENOMEM;
        ks->items = p;
        ks->cap = cap;
    }
    size_t at = ks->arena.len;
    gguf__buf_add(&ks->arena, path, len);
    if (ks->arena.failed || ks->n >= UINT32_MAX)
        return GGUF_ENOMEM;
    gguf__known *e = &ks->items[ks->n];
    *e = *k;
    e->path_at = at;
    e->path_len = len;
    if (gguf__hashset_insert(&ks->index, (uint32_t)ks->n, known_key, ks) == -2) {
        ks->arena.len = at;
        return GGUF_ENOMEM;
    }
    ks->n++;
    return 0;
}

void gguf__known_free(gguf__known_set *ks) {
    gguf__free(ks->items);
    gguf__buf_free(&ks->arena);
    gguf__hashset_free(&ks->index);
    memset(ks, 0, sizeof *ks);
}

int gguf__known_retry_code(int code) { return code == GGUF_EIO || code == GGUF_ENOMEM; }

static int journal_state(const char *name) {
    if (name == NULL)
        return GGUF_JOURNAL_NONE;
    return strcmp(name, "pending") == 0 ? GGUF_JOURNAL_PENDING
                                                      : GGUF_JOURNAL_REFUSED;
}

int gguf__known_load(gguf__known_set *ks, gguf_catalog *cat, int sets, gguf_error *err) {
    int64_t rows = 0;
    if (gguf__catalog_query_int(cat->db,
                                sets ? "SELECT count(*) FROM errors WHERE scope = 'set'"
                                     : "SELECT (SELECT count(*) FROM files) + (SELECT count(*)"
                                       " FROM errors WHERE scope = 'file')",
                                &rows) != SQLITE_OK)
        rows = 0;
    if (gguf__hashset_init(&ks->index, rows > 0 ? (size_t)rows : 64) != 0)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    /* query 0 gives files (is_error 0), the others errors; each with the machine that ran
     * the run that stored it */
    static const char *const sql[3] = {
        "SELECT f.path, f.dev, f.ino, f.size, f.mtime_ns, f.has_crc, 0, f.journal, r.host"
        " FROM files f LEFT JOIN runs r ON r.id = f.indexed_run",
        "SELECT e.path, e.dev, e.ino, e.size, e.mtime_ns, 0, e.code, e.journal, r.host"
        " FROM errors e LEFT JOIN runs r ON r.id = e.run WHERE e.scope = 'file'",
        "SELECT path, NULL, NULL, 0, 0, 0, code, NULL, NULL FROM errors WHERE scope = 'set'",
    };
    char host[256];
    if (gguf__catalog_host(host, sizeof host) != 0)
        host[0] = '\0';
    for (int q = sets ? 2 : 0; q < (sets ? 3 : 2); q++) {
        gguf__stmt *st;
        int rc = gguf__db_prepare(&st, cat->db, sql[q], NULL, 0);
        if (rc != SQLITE_OK)
            return gguf__catalog_db_fail(err, cat->db, rc, cat->path, "reading the catalog");
        while ((rc = gguf__step(st)) == SQLITE_ROW) {
            const char *path = (const char *)gguf__col_text(st, 0);
            if (path == NULL)
                continue;
            gguf__known k = {
                .dev = gguf__col_type(st, 1) == SQLITE_NULL ? -1 : gguf__col_int64(st, 1),
                .ino = gguf__col_type(st, 2) == SQLITE_NULL ? -1 : gguf__col_int64(st, 2),
                .size = gguf__col_int64(st, 3),
                .mtime_ns = gguf__col_int64(st, 4),
                .has_crc = (uint8_t)(gguf__col_int64(st, 5) != 0),
                .is_error = (uint8_t)(q > 0),
                .retry = (uint8_t)(q > 0 && gguf__known_retry_code(gguf__col_int64(st, 6))),
                .journal = (uint8_t)journal_state(gguf__col_text(st, 7)),
            };
            k.other_host = (uint8_t)gguf__catalog_other_host(gguf__col_text(st, 8), host);
            if (gguf__known_put(ks, path, &k) != 0) {
                gguf__finalize(st);
                return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            }
        }
        gguf__finalize(st);
        if (rc != SQLITE_DONE)
            return gguf__catalog_db_fail(err, cat->db, rc, cat->path, "reading the catalog");
    }
    return 0;
}

#endif /* GGUF_HAVE_CATALOG */
