/* The catalog API in a build without SQLite (configure --disable-catalog, or no SQLite found):
 * every call that needs the database answers "catalog not built". */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifndef GGUF_HAVE_CATALOG

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

int gguf_catalog_set_query_limits(gguf_catalog *cat, uint64_t timeout_ms, uint64_t max_memory,
                                  gguf_error *err) {
    (void)cat, (void)timeout_ms, (void)max_memory;
    return NOT_BUILT(err);
}

int gguf_catalog_index(gguf_catalog_stats *stats, gguf_catalog *cat, const char *const *paths,
                       size_t n_paths, const gguf_catalog_index_options *opt, gguf_error *err) {
    (void)stats, (void)cat, (void)paths, (void)n_paths, (void)opt;
    return NOT_BUILT(err);
}

int gguf_catalog_set_url_options(gguf_catalog *cat, const gguf_open_options *opt,
                                 gguf_error *err) {
    (void)cat, (void)opt;
    return NOT_BUILT(err);
}

int gguf_catalog_prune(gguf_catalog_stats *stats, gguf_catalog *cat, gguf_catalog_event_fn fn,
                       void *user, gguf_error *err) {
    (void)stats, (void)cat, (void)fn, (void)user;
    return NOT_BUILT(err);
}

int gguf_catalog_copy(gguf_catalog *dst, gguf_catalog *src, uint64_t *rows, gguf_error *err) {
    (void)dst, (void)src, (void)rows;
    return NOT_BUILT(err);
}

int gguf_catalog_export(const char *dest, gguf_catalog *src, uint64_t *rows, gguf_error *err) {
    (void)dest, (void)src, (void)rows;
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

#else
typedef int gguf__catalog_none_unused; /* ISO C wants something in a translation unit */
#endif
