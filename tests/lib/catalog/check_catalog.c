/* The catalog: schema and its migrations from every older version, indexing (stored rows equal
 * what the reader sees, unchanged files skipped, refused files in errors), prune, verify
 * (missing, changed and rotted files, naming the tensor), read-only queries, concurrent
 * indexers, the default path, allocation failures, and the corpus. Without SQLite the API
 * must answer "not built". */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "tests/support/gguf_builder.h"
#include "tests/support/testutil.h"

#include <check.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The testing build's hook: runs SQL on a database file (old schemas are made with it). */
int gguf_testing_catalog_exec(const char *path, const char *sql, gguf_error *err);

#ifndef GGUF_HAVE_CATALOG

START_TEST(catalog_not_built) {
    gguf_catalog *cat = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_catalog_available(), 0);
    ck_assert_int_eq(gguf_catalog_open(&cat, "/tmp/x.db", 0, &err), GGUF_EUNSUPPORTED);
    ck_assert_ptr_null(cat);
    ck_assert_msg(strstr(err.message, "not built") != NULL, "%s", err.message);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_catalog_query(NULL, "SELECT 1", NULL, NULL, &err), GGUF_EUNSUPPORTED);
    gguf_catalog_close(NULL);
}
END_TEST

int main(void) {
    Suite *s = suite_create("catalog");
    TCase *tc = tcase_create("catalog");
    tcase_add_test(tc, catalog_not_built);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}

#else

static char dir[64];

static void make_dir(void) {
    strcpy(dir, "/tmp/gguf-catalog-XXXXXX");
    ck_assert(mkdtemp(dir) != NULL);
}

static void remove_dir(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert(system(cmd) == 0);
}

/* dir/rel, in one of a few rotating static buffers. */
static const char *at(const char *rel) {
    static char bufs[4][512];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, rel);
    return b;
}

/* A path below dir that stays valid in the enclosing block (at()'s buffers rotate). */
#define DIR_PATH(var, rel)                                                                      \
    char var[512];                                                                              \
    snprintf(var, sizeof var, "%s/%s", dir, rel)

static void copy_file(const char *from, const char *to) {
    size_t n;
    uint8_t *p = tu_read_file(from, &n);
    ck_assert_msg(p != NULL, "cannot read %s", from);
    ck_assert_int_eq(tu_write_file(to, p, n), 0);
    free(p);
}

static void make_folder(const char *rel) { ck_assert(mkdir(at(rel), 0755) == 0); }

/* The sample file of gguf_builder.h: 11 keys, tensors a, b, c with data. */
static void write_sample(const char *path) {
    gb b;
    gb_sample(&b, 3, 0);
    ck_assert_int_eq(tu_write_file(path, b.p, b.len), 0);
    gb_free(&b);
}

static gguf_catalog *open_cat(const char *path, unsigned flags) {
    gguf_catalog *cat = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_catalog_open(&cat, path, flags, &err) == 0, "%s", err.message);
    return cat;
}

static void index_paths(gguf_catalog_stats *st, gguf_catalog *cat, const char *const *paths,
                        size_t n, unsigned flags) {
    gguf_catalog_index_options opt = GGUF_CATALOG_INDEX_OPTIONS_INIT;
    opt.flags = flags;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_catalog_index(st, cat, paths, n, &opt, &err) == 0, "%s", err.message);
}

/* ---- reading results ---- */

typedef struct rows {
    char text[8192]; /* cells joined by '|', rows by '\n' */
    size_t len;
    int n;
    int64_t first_int;
    int first_null;
} rows;

static int collect(size_t ncols, const char *const *names, const gguf_catalog_cell *cells,
                   void *user) {
    rows *r = user;
    (void)names;
    if (cells == NULL)
        return 0;
    if (r->n == 0) {
        r->first_int = cells[0].i;
        r->first_null = cells[0].type == GGUF_CATALOG_NULL;
    }
    r->n++;
    for (size_t c = 0; c < ncols; c++) {
        const char *s = cells[c].type == GGUF_CATALOG_NULL ? "NULL" : cells[c].text;
        size_t n = cells[c].type == GGUF_CATALOG_NULL ? 4 : cells[c].len;
        if (r->len + n + 2 < sizeof r->text) {
            memcpy(r->text + r->len, s, n);
            r->len += n;
            r->text[r->len++] = c + 1 < ncols ? '|' : '\n';
            r->text[r->len] = '\0';
        }
    }
    return 0;
}

static rows *query(gguf_catalog *cat, const char *sql) {
    static rows r;
    memset(&r, 0, sizeof r);
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_catalog_query(cat, sql, collect, &r, &err) == 0, "%s: %s", sql,
                  err.message);
    return &r;
}

static int64_t qint(gguf_catalog *cat, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int64_t qint(gguf_catalog *cat, const char *fmt, ...) {
    char sql[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    rows *r = query(cat, sql);
    ck_assert_msg(r->n == 1 && !r->first_null, "%s: %d rows", sql, r->n);
    return r->first_int;
}

static const char *qtext(gguf_catalog *cat, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *qtext(gguf_catalog *cat, const char *fmt, ...) {
    char sql[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    rows *r = query(cat, sql);
    if (r->len > 0 && r->text[r->len - 1] == '\n')
        r->text[--r->len] = '\0';
    return r->text;
}


/* ---- schema ---- */

/* The schema as text (tables, indexes, views in name order), to compare catalogs. */
static char *schema_of(gguf_catalog *cat) {
    rows *r = query(cat, "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name");
    return strdup(r->text);
}

START_TEST(fresh_catalog_has_the_current_schema) {
    make_dir();
    ck_assert_int_eq(gguf_catalog_available(), 1);
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    ck_assert_str_eq(gguf_catalog_path(cat), at("c.db"));
    ck_assert_int_eq(qint(cat, "PRAGMA user_version"), GGUF_CATALOG_SCHEMA_VERSION);
    ck_assert_int_eq(qint(cat, "PRAGMA application_id"), 0x47475546);
    /* WAL is persistent: the header's read and write versions are 2 */
    size_t hlen;
    uint8_t *head = tu_read_file(at("c.db"), &hlen);
    ck_assert(head != NULL && hlen >= 100);
    ck_assert_int_eq(head[18], 2);
    ck_assert_int_eq(head[19], 2);
    free(head);
    ck_assert_str_eq(qtext(cat, "SELECT group_concat(name, ' ') FROM (SELECT name FROM "
                                "sqlite_master WHERE type IN ('table', 'view') ORDER BY name)"),
                     "array_items errors file_types files kv models runs tensors");
    ck_assert_str_eq(qtext(cat, "SELECT name FROM file_types WHERE id = 15"), "Q4_K_M");
    /* every file type llama.cpp writes has its name (Q2_0, 41, was missing) */
    for (uint32_t ft = 0; ft < GGUF_REQUANT_FTYPE_COUNT; ft++) {
        const char *name = gguf_requant_ftype_name(ft);
        if (name != NULL)
            ck_assert_str_eq(qtext(cat, "SELECT name FROM file_types WHERE id = %u", ft), name);
    }
    gguf_catalog_close(cat);
    /* opening again changes nothing */
    cat = open_cat(at("c.db"), GGUF_CATALOG_OPEN_NOCREATE);
    ck_assert_int_eq(qint(cat, "PRAGMA user_version"), GGUF_CATALOG_SCHEMA_VERSION);
    gguf_catalog_close(cat);
    remove_dir();
}
END_TEST

START_TEST(open_refusals) {
    make_dir();
    gguf_catalog *cat = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_catalog_open(&cat, at("none.db"), GGUF_CATALOG_OPEN_NOCREATE, &err),
                     GGUF_ENOTFOUND);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_catalog_open(&cat, at("none.db"), GGUF_CATALOG_OPEN_READONLY, &err),
                     GGUF_ENOTFOUND);
    ck_assert_ptr_null(cat);
    ck_assert_int_ne(access(at("none.db"), F_OK), 0);
    /* somebody else's database */
    ck_assert_int_eq(gguf_testing_catalog_exec(at("other.db"), "CREATE TABLE t(x)", NULL), 0);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_catalog_open(&cat, at("other.db"), 0, &err), GGUF_ECORRUPT);
    ck_assert_msg(strstr(err.message, "not a gguf catalog") != NULL, "%s", err.message);
    /* a catalog from the future */
    ck_assert_int_eq(gguf_testing_catalog_exec(at("new.db"),
                                               "PRAGMA application_id = 1195857222;"
                                               "CREATE TABLE files(x); PRAGMA user_version = 99",
                                               NULL),
                     0);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_catalog_open(&cat, at("new.db"), 0, &err), GGUF_EUNSUPPORTED);
    ck_assert_msg(strstr(err.message, "newer") != NULL, "%s", err.message);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_catalog_open(&cat, at("new.db"), GGUF_CATALOG_OPEN_READONLY, &err),
                     GGUF_EUNSUPPORTED);
    ck_assert_ptr_null(cat);
    /* not a database at all */
    ck_assert_int_eq(tu_write_file(at("junk.db"),
                                   "this is not sqlite, it is just a text file of some length....",
                                   62),
                     0);
    gguf_error_clear(&err);
    ck_assert_int_ne(gguf_catalog_open(&cat, at("junk.db"), 0, &err), 0);
    ck_assert_ptr_null(cat);
    remove_dir();
}
END_TEST

/* Old schemas, as those versions of the library created them, with a little data: a llama
 * model with two tensors (one with a stored crc32) and one split shard. */
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

static const char data_v1[] =
    "INSERT INTO files VALUES (1, '/models/llama-q4.gguf', 1000, 1700000000, 3, 'little', 32,"
    " 640, 4, 2, 305419896, 1700000001);"
    "INSERT INTO files VALUES (2, '/models/big-00001-of-00002.gguf', 500, 1700000000, 3,"
    " 'little', 32, 320, 3, 0, 1, 1700000001);"
    "INSERT INTO kv VALUES (1, 0, 'general.architecture', 'STRING', NULL, NULL, NULL, NULL, 'llama');"
    "INSERT INTO kv VALUES (1, 1, 'general.name', 'STRING', NULL, NULL, NULL, NULL, 'Llama Q4');"
    "INSERT INTO kv VALUES (1, 2, 'general.file_type', 'UINT32', NULL, NULL, 15, NULL, NULL);"
    "INSERT INTO kv VALUES (1, 3, 'llama.context_length', 'UINT32', NULL, NULL, 32768, NULL, NULL);"
    "INSERT INTO kv VALUES (2, 0, 'general.architecture', 'STRING', NULL, NULL, NULL, NULL, 'llama');"
    "INSERT INTO kv VALUES (2, 1, 'split.no', 'UINT16', NULL, NULL, 0, NULL, NULL);"
    "INSERT INTO kv VALUES (2, 2, 'split.count', 'UINT16', NULL, NULL, 2, NULL, NULL);"
    "INSERT INTO tensors VALUES (1, 0, 'token_embd.weight', 'Q4_K', 2, 256, 1000, 1, 1, 0,"
    " 144000, 3735928559);"
    "INSERT INTO tensors VALUES (1, 1, 'output_norm.weight', 'F32', 1, 256, 1, 1, 1, 144000,"
    " 1024, NULL);";

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

static const char data_v2[] =
    "INSERT INTO errors VALUES ('/models/broken.gguf', 1, 2, 3, 4, -5, 'corrupt file', 8,"
    " 'bad magic', 1700000001);";

/* gguf__dtype_id and gguf__split_set are the library's own SQL functions, which the testing
 * hook registers as the library did; file_types was filled by code after this step (the row
 * the checks below need). */
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

static const char schema_v4[] =
    "CREATE TABLE runs ("
    " id INTEGER PRIMARY KEY,"
    " kind TEXT NOT NULL,"
    " started_at INTEGER NOT NULL,"
    " finished_at INTEGER,"
    " paths TEXT,"
    " seen INTEGER NOT NULL DEFAULT 0,"
    " indexed INTEGER NOT NULL DEFAULT 0,"
    " unchanged INTEGER NOT NULL DEFAULT 0,"
    " broken INTEGER NOT NULL DEFAULT 0,"
    " skipped INTEGER NOT NULL DEFAULT 0,"
    " walk_errors INTEGER NOT NULL DEFAULT 0,"
    " removed INTEGER NOT NULL DEFAULT 0);"
    "ALTER TABLE files ADD COLUMN indexed_run INTEGER;"
    "ALTER TABLE files ADD COLUMN changed_run INTEGER;"
    "ALTER TABLE files ADD COLUMN journal TEXT;"
    "ALTER TABLE errors ADD COLUMN run INTEGER;"
    "ALTER TABLE errors ADD COLUMN journal TEXT;"
    "CREATE INDEX files_changed_run ON files(changed_run);"
    "PRAGMA user_version = 4;";

/* the models view as version 5 made it: its columns, and its rows */
#define MODELS_V5_COLUMNS \
    " SELECT f.id AS file, f.path AS path, f.arch AS architecture," \
    " (SELECT text FROM kv WHERE kv.file = f.id AND kv.key = 'general.name') AS name," \
    " (SELECT text FROM kv WHERE kv.file = f.id AND kv.key = 'general.size_label') AS size_label," \
    " (SELECT coalesce(ft.name, 'FTYPE_' || kv.int) FROM kv LEFT JOIN file_types ft" \
    "  ON ft.id = kv.int WHERE kv.file = f.id AND kv.key = 'general.file_type') AS file_type," \
    " CASE WHEN f.split_count > 1 THEN (SELECT t.type FROM files g JOIN tensors t" \
    "  ON t.file = g.id WHERE g.model = f.path AND t.type NOT LIKE 'TYPE\\_%' ESCAPE '\\'" \
    "  GROUP BY t.type ORDER BY sum(t.ne0 * t.ne1 * t.ne2 * t.ne3) DESC, min(t.type_id)" \
    "  LIMIT 1) ELSE f.dominant_type END AS quant," \
    " (SELECT int FROM kv WHERE kv.file = f.id AND kv.key = f.arch || '.context_length')" \
    "  AS context_length," \
    " (SELECT int FROM kv WHERE kv.file = f.id AND kv.key = f.arch || '.embedding_length')" \
    "  AS embedding_length," \
    " (SELECT int FROM kv WHERE kv.file = f.id AND kv.key = f.arch || '.block_count')" \
    "  AS block_count," \
    " CASE WHEN f.split_count > 1 THEN (SELECT sum(g.n_params) FROM files g" \
    "  WHERE g.model = f.path) ELSE f.n_params END AS n_params," \
    " CASE WHEN f.split_count > 1 THEN (SELECT sum(g.size) FROM files g" \
    "  WHERE g.model = f.path) ELSE f.size END AS bytes," \
    " CASE WHEN f.split_count > 1 THEN (SELECT sum(g.tensor_bytes) FROM files g" \
    "  WHERE g.model = f.path) ELSE f.tensor_bytes END AS tensor_bytes," \
    " CASE WHEN f.split_count > 1 THEN (SELECT sum(g.n_tensors) FROM files g" \
    "  WHERE g.model = f.path) ELSE f.n_tensors END AS n_tensors," \
    " f.split_no AS split_no, f.split_count AS split_count," \
    " CASE WHEN f.split_count > 1 THEN (SELECT count(*) FROM files g" \
    "  WHERE g.model = f.path) ELSE 1 END AS shards," \
    " CASE WHEN f.split_count IS NULL THEN NULL WHEN f.split_count <= 1 THEN 1 ELSE" \
    "  (SELECT count(*) FROM files g WHERE g.model = f.path) = f.split_count AND NOT EXISTS" \
    "  (SELECT 1 FROM errors e WHERE e.path = f.path AND e.scope = 'set') END" \
    "  AS split_complete"
#define MODELS_V5_ROWS \
    " FROM (SELECT files.*, (SELECT text FROM kv WHERE kv.file = files.id" \
    "  AND kv.key = 'general.architecture' LIMIT 1) AS arch FROM files" \
    "  WHERE model = path) f"

/* models per set, errors per scope, URL validators */
static const char schema_v5[] =
    "DROP VIEW models;"
    "ALTER TABLE files ADD COLUMN model TEXT;"
    "ALTER TABLE files ADD COLUMN etag TEXT;"
    "ALTER TABLE files ADD COLUMN last_modified TEXT;"
    "UPDATE files SET model = gguf__model_path(path, split_count);"
    "CREATE INDEX files_model ON files(model);"
    "CREATE TABLE errors_v5 ("
    " path TEXT NOT NULL,"
    " dev INTEGER, ino INTEGER, size INTEGER, mtime_ns INTEGER,"
    " code INTEGER NOT NULL, error TEXT, offset INTEGER, message TEXT NOT NULL,"
    " indexed_at INTEGER NOT NULL, run INTEGER, journal TEXT,"
    " scope TEXT NOT NULL DEFAULT 'file',"
    " shard INTEGER,"
    " etag TEXT, last_modified TEXT,"
    " PRIMARY KEY (path, scope));"
    "INSERT INTO errors_v5 (path, dev, ino, size, mtime_ns, code, error, offset, message,"
    " indexed_at, run, journal) SELECT path, dev, ino, size, mtime_ns, code, error, offset,"
    " message, indexed_at, run, journal FROM errors;"
    "DROP TABLE errors;"
    "ALTER TABLE errors_v5 RENAME TO errors;"
    "ALTER TABLE runs ADD COLUMN broken_sets INTEGER NOT NULL DEFAULT 0;"
    "CREATE VIEW models AS" MODELS_V5_COLUMNS MODELS_V5_ROWS ";"
    "PRAGMA user_version = 5;";

/* arrays' elements, one row each */
static const char schema_v6[] =
    "CREATE TABLE array_items ("
    " file INTEGER NOT NULL REFERENCES files(id),"
    " position INTEGER NOT NULL,"
    " key TEXT NOT NULL,"
    " idx INTEGER NOT NULL,"
    " int INTEGER, real REAL, text TEXT,"
    " PRIMARY KEY (file, position, idx)) WITHOUT ROWID;"
    "PRAGMA user_version = 6;";

/* files cut short, partial models */
static const char schema_v7[] =
    "ALTER TABLE files ADD COLUMN missing_bytes INTEGER NOT NULL DEFAULT 0;"
    "DROP VIEW models;"
    "CREATE VIEW models AS" MODELS_V5_COLUMNS ","
    " CASE WHEN f.split_count > 1 THEN (SELECT sum(g.missing_bytes) FROM files g"
    "  WHERE g.model = f.path) ELSE f.missing_bytes END AS missing_bytes,"
    " CASE WHEN f.split_count > 1 THEN (SELECT count(*) FROM files g"
    "  WHERE g.model = f.path AND g.missing_bytes > 0) > 0 ELSE f.missing_bytes > 0 END"
    "  AS partial" MODELS_V5_ROWS ";"
    "PRAGMA user_version = 7;";

/* a file cut short */
static const char data_v7[] = "UPDATE files SET missing_bytes = 0;";

/* what a model needs in memory */
static const char schema_v8[] =
    "ALTER TABLE files ADD COLUMN kv_bytes_token INTEGER;"
    "ALTER TABLE files ADD COLUMN kv_bytes_token_swa INTEGER;"
    "ALTER TABLE files ADD COLUMN swa_window INTEGER;"
    "ALTER TABLE files ADD COLUMN state_bytes INTEGER;"
    "DROP VIEW models;"
    "CREATE VIEW models AS SELECT *,"
    " CASE WHEN n_params > 0 THEN tensor_bytes * 8.0 / n_params END AS bits_per_weight"
    " FROM (" MODELS_V5_COLUMNS ","
    " CASE WHEN f.split_count > 1 THEN (SELECT sum(g.missing_bytes) FROM files g"
    "  WHERE g.model = f.path) ELSE f.missing_bytes END AS missing_bytes,"
    " CASE WHEN f.split_count > 1 THEN (SELECT count(*) FROM files g"
    "  WHERE g.model = f.path AND g.missing_bytes > 0) > 0 ELSE f.missing_bytes > 0 END"
    "  AS partial,"
    " f.kv_bytes_token AS kv_bytes_per_token, f.kv_bytes_token_swa AS kv_bytes_per_token_swa,"
    " f.swa_window AS sliding_window, f.state_bytes AS state_bytes_per_sequence"
    MODELS_V5_ROWS ");"
    "PRAGMA user_version = 8;";

/* a model's KV figures */
static const char data_v8[] = "UPDATE files SET kv_bytes_token = NULL;";

/* an array's element */
static const char data_v6[] =
    "INSERT INTO array_items VALUES (1, 6, 'tokenizer.ggml.tokens', 0, NULL, NULL, '<s>');";

/* a split set's error, and a run that found it */
static const char data_v5[] =
    "INSERT INTO runs (id, kind, started_at, finished_at, broken_sets) VALUES"
    " (2, 'index', 1700000005, 1700000006, 1);"
    "INSERT INTO errors (path, code, message, indexed_at, run, scope, shard) VALUES"
    " ('/models/big-00001-of-00002.gguf', -2, 'split set of 2 shards: 1 missing', 1700000005, 2,"
    " 'set', 2);";

/* a run, and a refused file it recorded (with a journal beside it) */
static const char data_v4[] =
    "INSERT INTO runs VALUES (1, 'index', 1700000003, 1700000004, '[\"/models\"]', 4, 0, 3, 1,"
    " 0, 0, 0);"
    "INSERT INTO errors VALUES ('/models/edited.gguf', 1, 5, 3, 4, -4, 'truncated file', 9,"
    " 'cut short', 1700000003, 1, 'pending');";

static const char data_v3[] =
    "INSERT INTO file_types VALUES (15, 'Q4_K_M');"
    "INSERT INTO errors VALUES ('/models/cut.gguf', 1, 3, 3, 4, -4, 'truncated file', 9,"
    " 'cut short', 1700000002);";

/* Checks that the catalog made from an old version holds the old rows, migrated. */
static void check_migrated(gguf_catalog *cat, int from) {
    int64_t n_errors = (from >= 2) + (from >= 3) + (from >= 4) + (from >= 5);
    ck_assert_int_eq(qint(cat, "PRAGMA user_version"), GGUF_CATALOG_SCHEMA_VERSION);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files"), 2);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM kv"), 7);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM tensors"), 2);
    ck_assert_int_eq(qint(cat, "SELECT mtime_ns FROM files WHERE id = 1"), 1700000000000000000LL);
    ck_assert_int_eq(qint(cat, "SELECT has_crc FROM files WHERE id = 1"), 1);
    ck_assert_int_eq(qint(cat, "SELECT has_crc FROM files WHERE id = 2"), 0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files WHERE dev IS NULL"), 2);
    ck_assert_int_eq(qint(cat, "SELECT type_id FROM tensors WHERE position = 0"), GGUF_DTYPE_Q4_K);
    ck_assert_str_eq(qtext(cat, "SELECT architecture || '|' || name || '|' || file_type || '|' ||"
                                " quant || '|' || context_length || '|' || n_params || '|' ||"
                                " tensor_bytes FROM models WHERE file = 1"),
                     "llama|Llama Q4|Q4_K_M|Q4_K|32768|256256|145024");
    ck_assert_str_eq(qtext(cat, "SELECT f.split_set || '|' || m.split_no || '|' || m.split_count"
                                " || '|' || m.split_complete FROM models m JOIN files f ON"
                                " f.id = m.file WHERE m.file = 2"),
                     "/models/big|0|2|0");
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM errors"), n_errors);
    /* version 4: no runs before it, old rows have none and no journal state */
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM runs"), (from >= 4) + (from >= 5));
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files WHERE indexed_run IS NULL AND"
                               " changed_run IS NULL AND journal IS NULL"),
                     2);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM errors WHERE run IS NULL"),
                     (from >= 2) + (from >= 3));
    if (from >= 4)
        ck_assert_str_eq(qtext(cat, "SELECT run || '|' || journal FROM errors WHERE path ="
                                    " '/models/edited.gguf'"),
                         "1|pending");
    /* version 5: every file is its own model (the shard is its set's first), old errors are
     * files' errors, old runs broke no set; URL columns empty */
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files WHERE model = path"), 2);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM errors WHERE scope = 'file' AND shard IS"
                               " NULL"),
                     n_errors - (from >= 5));
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM runs WHERE broken_sets = 0"), from >= 4);
    if (from >= 5)
        ck_assert_str_eq(qtext(cat, "SELECT scope || '|' || shard || '|' || run FROM errors WHERE"
                                    " path = '/models/big-00001-of-00002.gguf'"),
                         "set|2|2");
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files WHERE etag IS NULL AND last_modified"
                               " IS NULL"),
                     2);
    ck_assert_str_eq(qtext(cat, "SELECT n_tensors || '|' || shards || '|' || bytes FROM models"
                                " WHERE file = 1"),
                     "2|1|1000");
    ck_assert_str_eq(qtext(cat, "SELECT n_tensors || '|' || shards || '|' || bytes FROM models"
                                " WHERE file = 2"),
                     "0|1|500");
    /* version 6: arrays' elements come when a file is read again */
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM array_items"), from >= 6);
    /* version 7: the files stored before were whole (a file cut short was an errors row) */
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files WHERE missing_bytes = 0"), 2);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM models WHERE partial = 0 AND"
                               " missing_bytes = 0"),
                     2);
    /* version 8: the KV figures come when a file is read again; bits per weight from the
     * stored counts */
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files WHERE kv_bytes_token IS NULL AND"
                               " kv_bytes_token_swa IS NULL AND swa_window IS NULL AND"
                               " state_bytes IS NULL"),
                     2);
    ck_assert_str_eq(qtext(cat, "SELECT round(bits_per_weight, 4) || '|' ||"
                                " coalesce(kv_bytes_per_token, 'null') FROM models WHERE file = 1"),
                     "4.5275|null");
    /* version 9: old runs have no machine or process */
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM runs WHERE host IS NULL AND pid IS NULL"),
                     (from >= 4) + (from >= 5));
}

START_TEST(migrates_from_every_older_version) {
    static const char *const schemas[] = {schema_v1, schema_v2, schema_v3, schema_v4, schema_v5,
                                          schema_v6, schema_v7, schema_v8};
    static const char *const data[] = {data_v1, data_v2, data_v3, data_v4, data_v5, data_v6,
                                       data_v7, data_v8};
    ck_assert_int_eq(GGUF_CATALOG_SCHEMA_VERSION, 9); /* add the new old version here */
    make_dir();
    gguf_catalog *fresh = open_cat(at("fresh.db"), 0);
    char *want = schema_of(fresh);
    gguf_catalog_close(fresh);
    for (int from = 1; from < GGUF_CATALOG_SCHEMA_VERSION; from++) {
        char name[32];
        snprintf(name, sizeof name, "v%d.db", from);
        const char *path = at(name);
        gguf_error err;
        for (int v = 0; v < from; v++) {
            gguf_error_clear(&err);
            ck_assert_msg(gguf_testing_catalog_exec(path, schemas[v], &err) == 0, "v%d: %s",
                          v + 1, err.message);
            ck_assert_msg(gguf_testing_catalog_exec(path, data[v], &err) == 0, "v%d data: %s",
                          v + 1, err.message);
        }
        /* read-only: refused, not migrated */
        gguf_catalog *cat = NULL;
        gguf_error_clear(&err);
        ck_assert_int_eq(gguf_catalog_open(&cat, path, GGUF_CATALOG_OPEN_READONLY, &err),
                         GGUF_EUNSUPPORTED);
        ck_assert_msg(strstr(err.message, "upgraded") != NULL, "%s", err.message);
        cat = open_cat(path, 0);
        char *got = schema_of(cat);
        ck_assert_msg(strcmp(got, want) == 0, "from v%d:\n%s\nfresh:\n%s", from, got, want);
        free(got);
        check_migrated(cat, from);
        gguf_catalog_close(cat);
        /* and again: nothing left to do */
        cat = open_cat(path, GGUF_CATALOG_OPEN_READONLY);
        check_migrated(cat, from);
        gguf_catalog_close(cat);
    }
    free(want);
    remove_dir();
}
END_TEST

/* ---- indexing ---- */

static const char *const golden_hand[] = {"be_v3_scalars", "gaps_and_trailer", "le_v3_two_tensors",
                                          "v1_one_tensor"};

/* dir/models: the hand-made golden files, a sample, a file that is not GGUF, a text file, a
 * symbolic link and a nested folder. */
static void make_tree(void) {
    char src[128], dst[128];
    make_folder("models");
    make_folder("models/sub");
    for (size_t i = 0; i < 4; i++) {
        snprintf(src, sizeof src, "golden/hand/%s.gguf", golden_hand[i]);
        snprintf(dst, sizeof dst, "models/%s.gguf", golden_hand[i]);
        copy_file(tu_src(src), at(dst));
    }
    write_sample(at("models/sub/sample.GGUF"));
    ck_assert_int_eq(tu_write_file(at("models/junk.gguf"), "GGUF but not really", 19), 0);
    ck_assert_int_eq(tu_write_file(at("models/notes.txt"), "hello", 5), 0);
    ck_assert(symlink(at("models/sub/sample.GGUF"), at("models/link.gguf")) == 0);
}

/* The rows stored for path equal what the reader sees in it. */
static void check_rows(gguf_catalog *cat, const char *path) {
    gguf_file *f;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_open(&f, path, 0, &err) == 0, "%s: %s", path, err.message);
    int64_t id = qint(cat, "SELECT id FROM files WHERE path = '%s'", path);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM kv WHERE file = %" PRId64, id),
                     (int64_t)gguf_kv_count(f));
    ck_assert_int_eq(qint(cat, "SELECT n_kv FROM files WHERE id = %" PRId64, id),
                     (int64_t)gguf_kv_count(f));
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM tensors WHERE file = %" PRId64, id),
                     (int64_t)gguf_tensor_count(f));
    ck_assert_int_eq(qint(cat, "SELECT data_offset FROM files WHERE id = %" PRId64, id),
                     (int64_t)gguf_file_data_offset(f));
    ck_assert_int_eq(qint(cat, "SELECT version FROM files WHERE id = %" PRId64, id),
                     (int64_t)gguf_file_version(f));
    for (size_t i = 0; i < gguf_tensor_count(f); i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        ck_assert_int_eq(qint(cat,
                              "SELECT offset FROM tensors WHERE file = %" PRId64
                              " AND position = %zu",
                              id, i),
                         (int64_t)t.offset);
        char dims[128];
        snprintf(dims, sizeof dims, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u",
                 t.dims[0], t.dims[1], t.dims[2], t.dims[3], t.n_dims);
        ck_assert_str_eq(qtext(cat,
                               "SELECT ne0 || ',' || ne1 || ',' || ne2 || ',' || ne3 || ',' ||"
                               " n_dims FROM tensors WHERE file = %" PRId64 " AND position = %zu",
                               id, i),
                         dims);
    }
    for (size_t i = 0; i < gguf_kv_count(f); i++) {
        size_t klen;
        const char *key = gguf_kv_key(f, i, &klen);
        char k[256];
        if (klen >= sizeof k || memchr(key, '\0', klen) != NULL) {
            ck_assert_int_eq(qint(cat,
                                  "SELECT length(CAST(key AS BLOB)) FROM kv WHERE file = %" PRId64
                                  " AND position = %zu",
                                  id, i),
                             (int64_t)klen);
            continue;
        }
        memcpy(k, key, klen);
        k[klen] = '\0';
        ck_assert_str_eq(qtext(cat, "SELECT key FROM kv WHERE file = %" PRId64 " AND position = %zu",
                               id, i),
                         k);
    }
    gguf_file_free(f);
}

START_TEST(index_stores_what_the_reader_sees) {
    make_dir();
    make_tree();
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    gguf_catalog_stats st;
    DIR_PATH(models, "models");
    const char *paths[] = {models};
    index_paths(&st, cat, paths, 1, 0);
    ck_assert_int_eq(st.seen, 6);
    ck_assert_int_eq(st.indexed, 5);
    ck_assert_int_eq(st.broken, 1);
    ck_assert_int_eq(st.unchanged, 0);
    ck_assert_int_eq(st.skipped, 1); /* the link */
    ck_assert_int_eq(st.walk_errors, 0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files"), 5);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM errors"), 1);
    for (size_t i = 0; i < 4; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "models/%s.gguf", golden_hand[i]);
        check_rows(cat, at(rel));
    }
    check_rows(cat, at("models/sub/sample.GGUF"));
    /* the refused file: the reader's own message */
    gguf_file *f = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_ne(gguf_file_open(&f, at("models/junk.gguf"), 0, &err), 0);
    ck_assert_str_eq(qtext(cat, "SELECT message FROM errors WHERE path = '%s'",
                           at("models/junk.gguf")),
                     err.message);
    ck_assert_int_eq(qint(cat, "SELECT code FROM errors"), err.code);
    /* typed values */
    const char *sample = at("models/sub/sample.GGUF");
    ck_assert_str_eq(qtext(cat, "SELECT type || '|' || int FROM kv JOIN files ON kv.file = files.id"
                                " WHERE path = '%s' AND key = 'test.i16'", sample),
                     "INT16|-300");
    ck_assert_str_eq(qtext(cat, "SELECT real FROM kv WHERE key = 'test.f32'"), "0.5");
    ck_assert_str_eq(qtext(cat, "SELECT int FROM kv WHERE key = 'test.u64'"), "1099511627776");
    ck_assert_str_eq(qtext(cat, "SELECT elem_type || '|' || array_len || '|' || text FROM kv"
                                " WHERE key = 'test.arr.str'"),
                     "STRING|3|[\"x\",\"\",\"yz\"]");
    ck_assert_str_eq(qtext(cat, "SELECT text FROM kv WHERE key = 'test.arr.nested'"),
                     "[[-1,1],[\"q\"]]");
    ck_assert_str_eq(qtext(cat, "SELECT type || '|' || type_id || '|' || n_dims || '|' || ne0 ||"
                                " '|' || ne1 || '|' || nbytes FROM tensors t JOIN files f ON"
                                " t.file = f.id WHERE f.path = '%s' AND name = 'b'", sample),
                     "Q4_0|2|1|64|1|36");
    ck_assert_str_eq(qtext(cat, "SELECT architecture || '|' || n_params || '|' || quant FROM"
                                " models WHERE path = '%s'", sample),
                     "test|75|Q4_0");
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM tensors WHERE crc32 IS NOT NULL"), 0);
    gguf_catalog_close(cat);
    remove_dir();
}
END_TEST

static void set_mtime(const char *path, time_t sec) {
    struct timespec ts[2] = {{sec, 0}, {sec, 0}};
    ck_assert(utimensat(AT_FDCWD, path, ts, 0) == 0);
}

START_TEST(unchanged_files_are_skipped_and_changed_ones_reread) {
    make_dir();
    make_tree();
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    gguf_catalog_stats st;
    DIR_PATH(models, "models");
    const char *paths[] = {models};
    index_paths(&st, cat, paths, 1, 0);
    int64_t id = qint(cat, "SELECT id FROM files WHERE path = '%s'",
                      at("models/le_v3_two_tensors.gguf"));
    index_paths(&st, cat, paths, 1, 0);
    ck_assert_int_eq(st.seen, 6);
    ck_assert_int_eq(st.unchanged, 6); /* the refused file too */
    ck_assert_int_eq(st.indexed + st.broken, 0);
    /* a new mtime: read again, same id, same rows */
    set_mtime(at("models/le_v3_two_tensors.gguf"), 1000000000);
    index_paths(&st, cat, paths, 1, 0);
    ck_assert_int_eq(st.indexed, 1);
    ck_assert_int_eq(st.unchanged, 5);
    ck_assert_int_eq(qint(cat, "SELECT id FROM files WHERE path = '%s'",
                          at("models/le_v3_two_tensors.gguf")),
                     id);
    check_rows(cat, at("models/le_v3_two_tensors.gguf"));
    ck_assert_int_eq(qint(cat, "SELECT mtime_ns FROM files WHERE id = %" PRId64, id),
                     1000000000000000000LL);
    /* other content under the same name: the rows follow */
    copy_file(tu_src("golden/hand/v1_one_tensor.gguf"), at("models/le_v3_two_tensors.gguf"));
    set_mtime(at("models/le_v3_two_tensors.gguf"), 1000000001);
    index_paths(&st, cat, paths, 1, 0);
    ck_assert_int_eq(st.indexed, 1);
    check_rows(cat, at("models/le_v3_two_tensors.gguf"));
    ck_assert_int_eq(qint(cat, "SELECT version FROM files WHERE id = %" PRId64, id), 1);
    /* the broken file is repaired: out of errors, into files */
    write_sample(at("models/junk.gguf"));
    index_paths(&st, cat, paths, 1, 0);
    ck_assert_int_eq(st.indexed, 1);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM errors"), 0);
    check_rows(cat, at("models/junk.gguf"));
    /* and broken again: out of files (with its kv and tensors), into errors */
    int64_t jid = qint(cat, "SELECT id FROM files WHERE path = '%s'", at("models/junk.gguf"));
    ck_assert_int_eq(tu_write_file(at("models/junk.gguf"), "GGUF", 4), 0);
    index_paths(&st, cat, paths, 1, 0);
    ck_assert_int_eq(st.broken, 1);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files WHERE id = %" PRId64, jid), 0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM kv WHERE file = %" PRId64, jid), 0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM tensors WHERE file = %" PRId64, jid), 0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM errors"), 1);
    /* --force reads everything */
    index_paths(&st, cat, paths, 1, GGUF_CATALOG_FORCE);
    ck_assert_int_eq(st.indexed + st.broken, 6);
    /* asking for crc32s re-reads files that have none */
    index_paths(&st, cat, paths, 1, GGUF_CATALOG_CRC);
    ck_assert_int_eq(st.indexed, 5);
    index_paths(&st, cat, paths, 1, GGUF_CATALOG_CRC);
    ck_assert_int_eq(st.unchanged, 6);
    index_paths(&st, cat, paths, 1, 0);
    ck_assert_int_eq(st.unchanged, 6);
    gguf_catalog_close(cat);
    remove_dir();
}
END_TEST

START_TEST(walk_options) {
    make_dir();
    make_tree();
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    gguf_catalog_stats st;
    DIR_PATH(models, "models");
    const char *paths[] = {models};
    index_paths(&st, cat, paths, 1, GGUF_CATALOG_FOLLOW_SYMLINKS);
    ck_assert_int_eq(st.seen, 7);
    ck_assert_int_eq(st.skipped, 0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files WHERE path = '%s'",
                          at("models/link.gguf")),
                     1);
    index_paths(&st, cat, paths, 1, GGUF_CATALOG_ALL_FILES);
    ck_assert_int_eq(st.seen, 7); /* notes.txt, not the link */
    ck_assert_int_eq(qtext(cat, "SELECT error FROM errors WHERE path = '%s'",
                           at("models/notes.txt"))[0] != '\0',
                     1);
    /* a file named on the command line is taken whatever its name; a missing one is a walk
     * error that does not stop the others */
    gguf_catalog *cat2 = open_cat(at("d.db"), 0);
    DIR_PATH(f1, "models/nope.gguf");
    DIR_PATH(f2, "models/notes.txt");
    DIR_PATH(f3, "models/v1_one_tensor.gguf");
    const char *files[] = {f1, f2, f3};
    index_paths(&st, cat2, files, 3, 0);
    ck_assert_int_eq(st.walk_errors, 1);
    ck_assert_int_eq(st.seen, 2);
    ck_assert_int_eq(st.indexed, 1);
    ck_assert_int_eq(st.broken, 1);
    /* relative paths are stored absolute */
    char cwd[512];
    ck_assert(getcwd(cwd, sizeof cwd) != NULL);
    ck_assert(chdir(at("models")) == 0);
    const char *rel[] = {"./sub/../gaps_and_trailer.gguf"};
    index_paths(&st, cat2, rel, 1, 0);
    ck_assert(chdir(cwd) == 0);
    ck_assert_int_eq(qint(cat2, "SELECT count(*) FROM files WHERE path = '%s'",
                          at("models/gaps_and_trailer.gguf")),
                     1);
    gguf_catalog_close(cat2);
    gguf_catalog_close(cat);
    remove_dir();
}
END_TEST

/* The walk: sorted by name, depth first, so that runs are deterministic; a link back to a folder
 * above is skipped, not followed round. */
typedef struct seen_paths {
    char text[2048];
    size_t len;
} seen_paths;

static void collect_paths(const gguf_catalog_event *ev, void *user) {
    seen_paths *sp = user;
    const char *tail = strrchr(ev->path, '/') - 1;
    while (tail > ev->path && *tail != '/')
        tail--; /* the folder and the name */
    int n = snprintf(sp->text + sp->len, sizeof sp->text - sp->len, "%d:%s ", ev->kind, tail + 1);
    if (n > 0 && (size_t)n < sizeof sp->text - sp->len)
        sp->len += (size_t)n;
}

START_TEST(walk_is_sorted_and_stops_at_loops) {
    make_dir();
    make_folder("w");
    make_folder("w/c");
    make_folder("w/c/d");
    static const char *const files[] = {"w/b.gguf", "w/B.gguf", "w/a.gguf", "w/c/z.gguf",
                                        "w/c/d/y.gguf", "w/e.gguf", "w/c/a.gguf"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        write_sample(at(files[i]));
    ck_assert(symlink(at("w"), at("w/c/d/up")) == 0);
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    DIR_PATH(w, "w");
    const char *paths[] = {w};
    for (int follow = 0; follow < 2; follow++) {
        seen_paths sp;
        memset(&sp, 0, sizeof sp);
        gguf_catalog_index_options opt = GGUF_CATALOG_INDEX_OPTIONS_INIT;
        opt.flags = GGUF_CATALOG_FORCE | (follow ? GGUF_CATALOG_FOLLOW_SYMLINKS : 0);
        opt.on_event = collect_paths;
        opt.user = &sp;
        gguf_catalog_stats st;
        ck_assert_int_eq(gguf_catalog_index(&st, cat, paths, 1, &opt, NULL), 0);
        ck_assert_str_eq(sp.text, "1:w/B.gguf 1:w/a.gguf 1:w/b.gguf 1:c/a.gguf 4:d/up 1:d/y.gguf "
                                  "1:c/z.gguf 1:w/e.gguf ");
        ck_assert_int_eq(st.skipped, 1);
    }
    gguf_catalog_close(cat);
    remove_dir();
}
END_TEST

static void count_removed(const gguf_catalog_event *ev, void *user) {
    ck_assert_int_eq(ev->kind, GGUF_CATALOG_EV_REMOVED);
    (*(int *)user)++;
}

START_TEST(prune_drops_vanished_files) {
    make_dir();
    make_tree();
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    gguf_catalog_stats st;
    DIR_PATH(models, "models");
    const char *paths[] = {models};
    index_paths(&st, cat, paths, 1, 0);
    int64_t id = qint(cat, "SELECT id FROM files WHERE path = '%s'",
                      at("models/be_v3_scalars.gguf"));
    ck_assert(unlink(at("models/be_v3_scalars.gguf")) == 0);
    ck_assert(unlink(at("models/junk.gguf")) == 0);
    int removed = 0;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_catalog_prune(&st, cat, count_removed, &removed, &err) == 0, "%s",
                  err.message);
    ck_assert_int_eq(st.removed, 2);
    ck_assert_int_eq(removed, 2);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files"), 4);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM errors"), 0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM kv WHERE file = %" PRId64, id), 0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM tensors WHERE file = %" PRId64, id), 0);
    ck_assert_int_eq(gguf_catalog_prune(&st, cat, NULL, NULL, NULL), 0);
    ck_assert_int_eq(st.removed, 0);
    gguf_catalog_close(cat);
    remove_dir();
}
END_TEST

/* ---- verify ---- */

typedef struct findings {
    int n;
    int problem[16];
    char tensor[16][64];
    uint32_t expected[16], actual[16];
    char message[16][600];
    char path[16][512];
} findings;

static void on_finding(const gguf_catalog_finding *f, void *user) {
    findings *fs = user;
    ck_assert_int_lt(fs->n, 16);
    ck_assert_ptr_nonnull(f->path);
    ck_assert_ptr_nonnull(f->message);
    fs->problem[fs->n] = f->problem;
    snprintf(fs->tensor[fs->n], sizeof fs->tensor[0], "%s", f->tensor ? f->tensor : "");
    fs->expected[fs->n] = f->expected_crc;
    fs->actual[fs->n] = f->actual_crc;
    snprintf(fs->message[fs->n], sizeof fs->message[0], "%s", f->message);
    snprintf(fs->path[fs->n], sizeof fs->path[0], "%s", f->path);
    fs->n++;
}

static void run_verify(findings *fs, gguf_catalog_verify_stats *st, gguf_catalog *cat,
                       const char *path) {
    memset(fs, 0, sizeof *fs);
    gguf_error err;
    gguf_error_clear(&err);
    const char *paths[] = {path};
    ck_assert_msg(gguf_catalog_verify(st, cat, paths, path ? 1 : 0, on_finding, fs, &err) == 0,
                  "%s", err.message);
}

/* Flips one byte of tensor `name` in path, keeping (keep_mtime) or not its mtime. */
static void flip_tensor_byte(const char *path, const char *name, int keep_mtime) {
    gguf_file *f;
    ck_assert(gguf_file_open(&f, path, 0, NULL) == 0);
    int64_t i = gguf_tensor_find(f, name);
    ck_assert_int_ge(i, 0);
    gguf_tensor_info t;
    gguf_tensor_get(&t, f, (size_t)i);
    uint64_t at_byte = gguf_file_data_offset(f) + t.offset + t.nbytes / 2;
    gguf_file_free(f);
    struct stat sb;
    ck_assert(stat(path, &sb) == 0);
    int fd = open(path, O_RDWR);
    ck_assert(fd >= 0);
    uint8_t b;
    ck_assert(pread(fd, &b, 1, (off_t)at_byte) == 1);
    b ^= 0x10;
    ck_assert(pwrite(fd, &b, 1, (off_t)at_byte) == 1);
    close(fd);
    if (keep_mtime) {
        struct timespec ts[2] = {sb.st_atim, sb.st_mtim};
        ck_assert(utimensat(AT_FDCWD, path, ts, 0) == 0);
    } else {
        set_mtime(path, sb.st_mtim.tv_sec + 10);
    }
}

START_TEST(verify_names_the_tensor_that_changed) {
    make_dir();
    make_folder("m");
    write_sample(at("m/a.gguf"));
    write_sample(at("m/b.gguf"));
    write_sample(at("m/c.gguf"));
    copy_file(tu_src("golden/hand/le_v3_two_tensors.gguf"), at("m/nocrc.gguf"));
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    gguf_catalog_stats st;
    DIR_PATH(fa, "m/a.gguf");
    DIR_PATH(fb, "m/b.gguf");
    DIR_PATH(fc, "m/c.gguf");
    const char *files[] = {fa, fb, fc};
    index_paths(&st, cat, files, 3, GGUF_CATALOG_CRC);
    DIR_PATH(fn, "m/nocrc.gguf");
    const char *nocrc[] = {fn};
    index_paths(&st, cat, nocrc, 1, 0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM tensors WHERE crc32 IS NOT NULL"), 9);
    findings fs;
    gguf_catalog_verify_stats vs;
    run_verify(&fs, &vs, cat, NULL);
    ck_assert_int_eq(fs.n, 0);
    ck_assert_int_eq(vs.files, 4);
    ck_assert_int_eq(vs.files_with_crc, 3);
    ck_assert_int_eq(vs.tensors, 9);
    ck_assert_int_eq(vs.bytes, 3 * (32 + 36 + 6));

    /* bit rot: a byte of tensor b changes, size and mtime stay */
    flip_tensor_byte(at("m/a.gguf"), "b", 1);
    run_verify(&fs, &vs, cat, at("m/a.gguf"));
    ck_assert_int_eq(vs.files, 1);
    ck_assert_int_eq(fs.n, 1);
    ck_assert_int_eq(fs.problem[0], GGUF_CATALOG_CORRUPT);
    ck_assert_str_eq(fs.tensor[0], "b");
    ck_assert_int_ne(fs.expected[0], fs.actual[0]);
    ck_assert_msg(strstr(fs.message[0], "tensor 'b'") != NULL, "%s", fs.message[0]);
    ck_assert_int_eq(vs.corrupt, 1);
    ck_assert_int_eq(qint(cat, "SELECT crc32 FROM tensors t JOIN files f ON t.file = f.id WHERE"
                               " f.path = '%s' AND t.name = 'b'",
                          at("m/a.gguf")),
                     (int64_t)fs.expected[0]);

    /* an edit: the mtime moves too; still named */
    flip_tensor_byte(at("m/b.gguf"), "c", 0);
    run_verify(&fs, &vs, cat, at("m/b.gguf"));
    ck_assert_int_eq(fs.n, 2);
    ck_assert_int_eq(fs.problem[0], GGUF_CATALOG_CHANGED);
    ck_assert_str_eq(fs.tensor[0], "");
    ck_assert_int_eq(fs.problem[1], GGUF_CATALOG_CHANGED);
    ck_assert_str_eq(fs.tensor[1], "c");
    ck_assert_int_eq(vs.changed, 1);

    /* touched, same bytes: nothing to report */
    set_mtime(at("m/c.gguf"), 1000000000);
    run_verify(&fs, &vs, cat, at("m/c.gguf"));
    ck_assert_int_eq(fs.n, 0);

    /* no crc32s stored: a touched file is reported as changed */
    set_mtime(at("m/nocrc.gguf"), 1000000000);
    run_verify(&fs, &vs, cat, at("m/nocrc.gguf"));
    ck_assert_int_eq(fs.n, 1);
    ck_assert_int_eq(fs.problem[0], GGUF_CATALOG_CHANGED);
    ck_assert_msg(strstr(fs.message[0], "--crc") != NULL, "%s", fs.message[0]);

    /* gone */
    ck_assert(unlink(at("m/c.gguf")) == 0);
    run_verify(&fs, &vs, cat, at("m"));
    ck_assert_int_eq(vs.files, 4);
    ck_assert_int_eq(vs.missing, 1);
    ck_assert_int_eq(vs.corrupt, 1);
    ck_assert_int_eq(vs.changed, 2);
    /* truncated under the catalog: the header no longer reads */
    ck_assert(truncate(at("m/a.gguf"), 40) == 0);
    run_verify(&fs, &vs, cat, at("m/a.gguf"));
    ck_assert_int_eq(fs.n, 1);
    ck_assert_int_eq(fs.problem[0], GGUF_CATALOG_CHANGED);
    /* re-indexing takes the new state as the reference */
    index_paths(&st, cat, files, 2, GGUF_CATALOG_CRC);
    run_verify(&fs, &vs, cat, at("m/b.gguf"));
    ck_assert_int_eq(fs.n, 0);
    gguf_catalog_close(cat);
    remove_dir();
}
END_TEST

/* ---- queries ---- */

static int stop_after_header(size_t n, const char *const *names, const gguf_catalog_cell *cells,
                             void *user) {
    (void)n, (void)names, (void)cells;
    (*(int *)user)++;
    return 1;
}

START_TEST(queries_cannot_change_the_catalog) {
    static const char *const writes[] = {
        "INSERT INTO files (path, size, mtime_ns, indexed_at) VALUES ('x', 1, 1, 1)",
        "UPDATE files SET size = 0",
        "DELETE FROM kv",
        "DROP TABLE kv",
        "DROP VIEW models",
        "CREATE TABLE t (x)",
        "CREATE TEMP TABLE t (x)",
        "CREATE INDEX i ON kv(text)",
        "ALTER TABLE files ADD COLUMN x",
        "PRAGMA user_version = 7",
        "PRAGMA journal_mode = DELETE",
        "ATTACH DATABASE 'other.db' AS other",
        "VACUUM",
        "VACUUM INTO 'copy.db'",
        "REINDEX",
        "ANALYZE",
        "SELECT 1; DELETE FROM kv",
        "BEGIN; DELETE FROM kv; COMMIT",
        "WITH x AS (SELECT 1) DELETE FROM kv",
    };
    make_dir();
    make_tree();
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    gguf_catalog_stats st;
    DIR_PATH(models, "models");
    const char *paths[] = {models};
    index_paths(&st, cat, paths, 1, 0);
    char *before = strdup(qtext(cat, "SELECT (SELECT count(*) FROM files) || '|' || (SELECT "
                                     "count(*) FROM kv) || '|' || (SELECT sum(size) FROM files)"));
    char *schema = schema_of(cat);
    char cwd[512];
    ck_assert(getcwd(cwd, sizeof cwd) != NULL);
    ck_assert(chdir(dir) == 0); /* where relative file names in the SQL would land */
    for (size_t i = 0; i < sizeof writes / sizeof writes[0]; i++) {
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_msg(gguf_catalog_query(cat, writes[i], NULL, NULL, &err) == GGUF_EINVAL,
                      "accepted: %s", writes[i]);
        ck_assert_msg(strstr(err.message, "cannot change the catalog") != NULL, "%s: %s",
                      writes[i], err.message);
    }
    ck_assert_int_ne(access(at("copy.db"), F_OK), 0);
    ck_assert_int_ne(access(at("other.db"), F_OK), 0);
    ck_assert(chdir(cwd) == 0);
    ck_assert_str_eq(qtext(cat, "SELECT (SELECT count(*) FROM files) || '|' || (SELECT count(*)"
                                " FROM kv) || '|' || (SELECT sum(size) FROM files)"),
                     before);
    char *after = schema_of(cat);
    ck_assert_str_eq(after, schema);
    ck_assert_int_eq(qint(cat, "PRAGMA user_version"), GGUF_CATALOG_SCHEMA_VERSION);
    free(before);
    free(schema);
    free(after);
    /* reading pragmas, several statements, errors */
    ck_assert_str_eq(qtext(cat, "PRAGMA integrity_check"), "ok");
    rows *r = query(cat, "SELECT 1; SELECT 2 UNION ALL SELECT 3; -- done");
    ck_assert_int_eq(r->n, 3);
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_catalog_query(cat, "SELEKT 1", NULL, NULL, &err), GGUF_EINVAL);
    ck_assert_msg(strstr(err.message, "syntax error") != NULL, "%s", err.message);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_catalog_query(cat, "SELECT * FROM nope", NULL, NULL, &err), GGUF_EINVAL);
    int calls = 0;
    ck_assert_int_eq(gguf_catalog_query(cat, "SELECT path FROM files; SELECT 1", stop_after_header,
                                        &calls, NULL),
                     0);
    ck_assert_int_eq(calls, 1);
    /* typed cells */
    r = query(cat, "SELECT 7, 2.5, 'x', NULL, x'00ff'");
    ck_assert_int_eq(r->len, 16);
    ck_assert(memcmp(r->text, "7|2.5|x|NULL|\x00\xff\n", 16) == 0);
    gguf_catalog_close(cat);
    /* a read-only handle queries but does not index or prune */
    cat = open_cat(at("c.db"), GGUF_CATALOG_OPEN_READONLY);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files"), 5);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_catalog_index(NULL, cat, paths, 1, NULL, &err), GGUF_EINVAL);
    ck_assert_int_eq(gguf_catalog_prune(NULL, cat, NULL, NULL, NULL), GGUF_EINVAL);
    gguf_catalog_close(cat);
    remove_dir();
}
END_TEST

/* Returns the error of a query that must fail (its code in *code). */
static const char *query_error(gguf_catalog *cat, const char *sql, int *code) {
    static gguf_error err;
    gguf_error_clear(&err);
    *code = gguf_catalog_query(cat, sql, NULL, NULL, &err);
    return err.message;
}

START_TEST(queries_cannot_reach_outside_the_catalog) {
    static const char *const functions[] = {
        "SELECT fts3_tokenizer('simple')",
        "SELECT fts3_tokenizer('simple', x'4141414141414141')",
        "SELECT FTS3_TOKENIZER('porter')",
        "SELECT load_extension('libm.so.6')",
        "SELECT path FROM files WHERE fts3_tokenizer('simple') IS NOT NULL",
    };
    static const char *const pragmas[] = {
        "PRAGMA query_only = 0",        "PRAGMA query_only = OFF",     "PRAGMA writable_schema = 1",
        "PRAGMA temp_store = MEMORY",   "PRAGMA cache_size = 100000",  "PRAGMA main.user_version = 5",
        "PRAGMA wal_checkpoint",        "PRAGMA optimize",             "PRAGMA shrink_memory",
    };
    make_dir();
    make_tree();
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    gguf_catalog_stats st;
    DIR_PATH(models, "models");
    const char *paths[] = {models};
    index_paths(&st, cat, paths, 1, 0);
    int code;
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
        const char *msg = query_error(cat, functions[i], &code);
        ck_assert_msg(code == GGUF_EINVAL && strstr(msg, "refused: function") != NULL, "%s: %s",
                      functions[i], msg);
    }
    for (size_t i = 0; i < sizeof pragmas / sizeof pragmas[0]; i++) {
        const char *msg = query_error(cat, pragmas[i], &code);
        ck_assert_msg(code == GGUF_EINVAL && strstr(msg, "refused: PRAGMA") != NULL, "%s: %s",
                      pragmas[i], msg);
    }
    ck_assert_int_eq(qint(cat, "PRAGMA query_only"), 1);
    /* what only reads runs: reporting PRAGMAs, also as table-valued functions */
    ck_assert_str_eq(qtext(cat, "SELECT group_concat(name, ' ') FROM pragma_table_info('runs')"),
                     "id kind started_at finished_at paths seen indexed unchanged broken skipped "
                     "walk_errors removed broken_sets host pid");
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM pragma_index_list('kv')"), 3);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM pragma_table_info('models')"), 25);
    ck_assert_int_eq(query(cat, "PRAGMA table_info(files)")->n, 33);
    ck_assert_int_eq(qint(cat, "PRAGMA user_version"), GGUF_CATALOG_SCHEMA_VERSION);
    ck_assert_int_eq(qint(cat, "SELECT sum(value) FROM json_each('[1,2,3]')"), 6);
    ck_assert_str_eq(qtext(cat, "SELECT upper(substr(hex(randomblob(4)), 1, 0)) || lower('A') ||"
                                " printf('%%d', 7) || coalesce(NULL, 'x') || abs(-2)"),
                     "a7x2");
    gguf_catalog_close(cat);
    /* a catalog holding an FTS3 table: a tokenizer pointer set through fts3_tokenizer made a
     * later MATCH crash. The child must end normally. */
    ck_assert_int_eq(gguf_testing_catalog_exec(at("c.db"),
                                               "CREATE VIRTUAL TABLE notes USING fts3(body);"
                                               "INSERT INTO notes VALUES ('some words')",
                                               NULL),
                     0);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        gguf_catalog *c = NULL;
        if (gguf_catalog_open(&c, at("c.db"), GGUF_CATALOG_OPEN_READONLY, NULL) != 0)
            _exit(3);
        int rc = gguf_catalog_query(c, "SELECT fts3_tokenizer('simple', x'4141414141414141')",
                                    NULL, NULL, NULL);
        gguf_catalog_query(c, "SELECT * FROM notes WHERE notes MATCH 'words'", NULL, NULL, NULL);
        gguf_catalog_close(c);
        _exit(rc == GGUF_EINVAL ? 0 : 4);
    }
    int status;
    ck_assert(waitpid(pid, &status, 0) == pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: %s %d",
                  WIFSIGNALED(status) ? "signal" : "exit",
                  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    remove_dir();
}
END_TEST

START_TEST(queries_stop_at_their_limits) {
    make_dir();
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    gguf_error err;
    int code;
    const char *msg;
    /* time: an endless recursion is stopped */
    ck_assert_int_eq(gguf_catalog_set_query_limits(cat, 300, 0, NULL), 0);
    msg = query_error(cat, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"
                           " SELECT count(*) FROM c", &code);
    ck_assert_msg(code == GGUF_ELIMIT && strstr(msg, "time limit of 0.3 s") != NULL, "%s", msg);
    /* memory: a sort of an endless recursion, and one large value */
    ck_assert_int_eq(gguf_catalog_set_query_limits(cat, 0, 16 << 20, NULL), 0);
    msg = query_error(cat, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"
                           " SELECT x FROM c ORDER BY x DESC", &code);
    ck_assert_msg(code == GGUF_ELIMIT && strstr(msg, "memory limit of 16 MiB") != NULL, "%s", msg);
    ck_assert_int_eq(gguf_catalog_set_query_limits(cat, 0, 8 << 20, NULL), 0);
    msg = query_error(cat, "SELECT length(randomblob(12000000))", &code);
    ck_assert_msg(code == GGUF_ELIMIT && strstr(msg, "memory limit of 8 MiB") != NULL, "%s", msg);
    /* length: no value past 16 MiB, whatever the memory limit */
    ck_assert_int_eq(gguf_catalog_set_query_limits(cat, 0, 0, NULL), 0);
    msg = query_error(cat, "SELECT length(randomblob(20000000))", &code);
    ck_assert_msg(code == GGUF_ELIMIT && strstr(msg, "length limit") != NULL, "%s", msg);
    /* the limits are the query's: afterwards the catalog works, and can be indexed */
    ck_assert_int_eq(qint(cat, "SELECT length(randomblob(1000))"), 1000);
    ck_assert_int_eq(gguf_catalog_set_query_limits(cat, 60000, 1 << 30, NULL), 0);
    ck_assert_int_eq(qint(cat, "SELECT length(randomblob(15000000))"), 15000000);
    write_sample(at("s.gguf"));
    DIR_PATH(sfile, "s.gguf");
    const char *paths[] = {sfile};
    index_paths(NULL, cat, paths, 1, 0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files"), 1);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_catalog_set_query_limits(NULL, 1, 1, &err), GGUF_EINVAL);
    ck_assert_int_eq(gguf_catalog_set_query_limits(cat, UINT64_MAX, 1, NULL), GGUF_EINVAL);
    gguf_catalog_close(cat);
    remove_dir();
}
END_TEST

/* ---- runs ---- */

START_TEST(runs_say_what_changed) {
    make_dir();
    make_folder("m");
    write_sample(at("m/a.gguf"));
    write_sample(at("m/b.gguf"));
    ck_assert_int_eq(tu_write_file(at("m/junk.gguf"), "GGUF", 4), 0);
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    gguf_catalog_stats st;
    DIR_PATH(m, "m");
    DIR_PATH(fa, "m/a.gguf");
    const char *paths[] = {m};
    static const char changed_last[] =
        "SELECT coalesce(group_concat(DISTINCT replace(f.path, '%s/', '')), '') FROM tensors t JOIN"
        " files f ON f.id = t.file WHERE f.changed_run = (SELECT max(id) FROM runs WHERE"
        " kind = 'index')";
    index_paths(&st, cat, paths, 1, 0); /* run 1 */
    ck_assert_str_eq(qtext(cat, "SELECT id || kind || seen || indexed || unchanged || broken ||"
                                " (finished_at >= started_at) || paths FROM runs"),
                     qtext(cat, "SELECT '1index3201[\"%s\"]'", m));
    ck_assert_str_eq(qtext(cat, changed_last, m), "a.gguf,b.gguf");
    ck_assert_int_eq(qint(cat, "SELECT run FROM errors"), 1);
    /* nothing changed: the files keep run 1 */
    index_paths(&st, cat, paths, 1, 0); /* run 2 */
    ck_assert_str_eq(qtext(cat, "SELECT unchanged || indexed FROM runs WHERE id = 2"), "30");
    ck_assert_str_eq(qtext(cat, changed_last, m), "");
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files WHERE changed_run = 1 AND"
                               " indexed_run = 1"),
                     2);
    /* read again for crc32s, touched with the same bytes: not changed */
    index_paths(&st, cat, paths, 1, GGUF_CATALOG_CRC); /* run 3 */
    set_mtime(fa, 1000000000);
    index_paths(&st, cat, paths, 1, GGUF_CATALOG_CRC); /* run 4: a.gguf read again */
    ck_assert_int_eq(st.indexed, 1);
    ck_assert_str_eq(qtext(cat, changed_last, m), "");
    ck_assert_int_eq(qint(cat, "SELECT CAST(indexed_run || changed_run AS INTEGER) FROM files WHERE path = '%s'",
                          fa),
                     41);
    index_paths(&st, cat, paths, 1, GGUF_CATALOG_FORCE | GGUF_CATALOG_CRC); /* run 5 */
    ck_assert_str_eq(qtext(cat, changed_last, m), "");
    /* a tensor's bytes change: the file changed in this run */
    flip_tensor_byte(fa, "b", 0);
    index_paths(&st, cat, paths, 1, GGUF_CATALOG_CRC); /* run 6 */
    ck_assert_str_eq(qtext(cat, changed_last, m), "a.gguf");
    ck_assert_int_eq(qint(cat, "SELECT changed_run FROM files WHERE path = '%s'", fa), 6);
    /* without crc32s a touched file counts as changed: nothing proves its bytes the same */
    set_mtime(fa, 1000000002);
    index_paths(&st, cat, paths, 1, 0); /* run 7: crc32s are there, and compared */
    ck_assert_str_eq(qtext(cat, changed_last, m), "a.gguf");
    gguf_catalog_close(cat);
    cat = open_cat(at("d.db"), 0);
    index_paths(&st, cat, paths, 1, 0);
    set_mtime(fa, 1000000003);
    index_paths(&st, cat, paths, 1, 0);
    ck_assert_str_eq(qtext(cat, changed_last, m), "a.gguf");
    /* prune is a run too */
    ck_assert(unlink(fa) == 0);
    ck_assert_int_eq(gguf_catalog_prune(&st, cat, NULL, NULL, NULL), 0);
    ck_assert_str_eq(qtext(cat, "SELECT kind || removed || coalesce(paths, '-') FROM runs"
                                " ORDER BY id DESC LIMIT 1"),
                     "prune1-");
    gguf_catalog_close(cat);
    remove_dir();
}
END_TEST

/* ---- journals beside files: recorded, never applied or removed ---- */

static void plant_journal(const char *model, const char *jpath) {
    tu_journal j;
    ck_assert_int_eq(tu_journal_for_edit(&j, model, "general.architecture"), 0);
    uint8_t *bytes = malloc(tu_journal_encoded_size(&j));
    ck_assert_ptr_nonnull(bytes);
    size_t n = tu_journal_encode(bytes, &j);
    ck_assert_int_eq(tu_write_file(jpath, bytes, n), 0);
    free(bytes);
    tu_journal_free(&j);
}

START_TEST(journals_are_recorded_not_applied) {
    make_dir();
    make_folder("m");
    DIR_PATH(model, "m/x.gguf");
    DIR_PATH(jpath, "m/.x.gguf.gguf-journal");
    copy_file(tu_src("golden/hand/le_v3_two_tensors.gguf"), model);
    plant_journal(model, jpath);
    size_t mlen, jlen;
    uint8_t *mbytes = tu_read_file(model, &mlen), *jbytes = tu_read_file(jpath, &jlen);
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    DIR_PATH(m, "m");
    const char *paths[] = {m};
    index_paths(NULL, cat, paths, 1, GGUF_CATALOG_CRC);
    ck_assert_str_eq(qtext(cat, "SELECT journal FROM files WHERE path = '%s'", model), "pending");
    findings fs;
    gguf_catalog_verify_stats vs;
    run_verify(&fs, &vs, cat, NULL);
    ck_assert_int_eq(fs.n, 0);
    /* the model and its journal are as they were */
    size_t n1, n2;
    uint8_t *m2 = tu_read_file(model, &n1), *j2 = tu_read_file(jpath, &n2);
    ck_assert(m2 != NULL && n1 == mlen && memcmp(m2, mbytes, mlen) == 0);
    ck_assert(j2 != NULL && n2 == jlen && memcmp(j2, jbytes, jlen) == 0);
    free(m2);
    free(j2);
    /* the state follows the journal, for an unchanged file too */
    ck_assert_int_eq(tu_write_file(jpath, "not a journal", 13), 0);
    gguf_catalog_stats st;
    index_paths(&st, cat, paths, 1, 0);
    ck_assert_int_eq(st.unchanged, 1);
    ck_assert_str_eq(qtext(cat, "SELECT journal FROM files WHERE path = '%s'", model), "refused");
    ck_assert(unlink(jpath) == 0);
    index_paths(&st, cat, paths, 1, 0);
    ck_assert_str_eq(qtext(cat, "SELECT coalesce(journal, 'none') FROM files"), "none");
    /* a refused file's journal goes to its errors row */
    ck_assert_int_eq(tu_write_file(model, "GGUF", 4), 0);
    ck_assert_int_eq(tu_write_file(jpath, "not a journal", 13), 0);
    index_paths(&st, cat, paths, 1, 0);
    ck_assert_int_eq(st.broken, 1);
    ck_assert_str_eq(qtext(cat, "SELECT journal FROM errors"), "refused");
    free(mbytes);
    free(jbytes);
    gguf_catalog_close(cat);
    remove_dir();
}
END_TEST

/* ---- FIFOs: never opened (a hang fails the test through the alarm) ---- */

START_TEST(fifos_are_never_opened) {
    make_dir();
    make_folder("m");
    alarm(60);
    DIR_PATH(fa, "m/a.gguf");
    DIR_PATH(fifo, "m/pipe.gguf");
    write_sample(fa);
    ck_assert(mkfifo(fifo, 0600) == 0);
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    gguf_catalog_stats st;
    DIR_PATH(m, "m");
    const char *paths[] = {m};
    index_paths(&st, cat, paths, 1, GGUF_CATALOG_CRC);
    ck_assert_int_eq(st.indexed, 1);
    ck_assert_int_eq(st.skipped, 1);
    const char *named[] = {fifo};
    index_paths(&st, cat, named, 1, GGUF_CATALOG_ALL_FILES);
    ck_assert_int_eq(st.walk_errors, 1);
    ck_assert_int_eq(st.seen, 0);
    /* a catalogued file replaced by a FIFO */
    ck_assert(unlink(fa) == 0);
    ck_assert(mkfifo(fa, 0600) == 0);
    findings fs;
    gguf_catalog_verify_stats vs;
    run_verify(&fs, &vs, cat, NULL);
    ck_assert_int_eq(fs.n, 1);
    ck_assert_int_eq(fs.problem[0], GGUF_CATALOG_CHANGED);
    ck_assert_msg(strstr(fs.message[0], "a FIFO now") != NULL, "%s", fs.message[0]);
    ck_assert_int_eq(vs.changed, 1);
    /* a FIFO where a journal would be */
    ck_assert(unlink(fa) == 0);
    write_sample(fa);
    DIR_PATH(jfifo, "m/.a.gguf.gguf-journal");
    ck_assert(mkfifo(jfifo, 0600) == 0);
    index_paths(&st, cat, paths, 1, 0);
    ck_assert_str_eq(qtext(cat, "SELECT journal FROM files"), "refused");
    gguf_catalog_close(cat);
    /* a catalog that is a FIFO */
    gguf_catalog *c2 = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert(mkfifo(at("f.db"), 0600) == 0);
    ck_assert_int_eq(gguf_catalog_open(&c2, at("f.db"), GGUF_CATALOG_OPEN_READONLY, &err),
                     GGUF_EINVAL);
    ck_assert_msg(strstr(err.message, "a FIFO, not a regular file") != NULL, "%s", err.message);
    alarm(0);
    remove_dir();
}
END_TEST

/* ---- several indexers at once ---- */

START_TEST(concurrent_indexers_leave_a_consistent_catalog) {
    enum { COPIES = 40, WORKERS = 4 };
    make_dir();
    make_folder("a");
    make_folder("b");
    for (int i = 0; i < COPIES; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "%s/m%02d.gguf", i % 2 ? "a" : "b", i);
        if (i % 3 == 0)
            write_sample(at(rel));
        else
            copy_file(tu_src("golden/hand/le_v3_two_tensors.gguf"), at(rel));
    }
    ck_assert_int_eq(tu_write_file(at("a/broken.gguf"), "GGUF\3\0\0\0", 8), 0);
    /* every worker opens the (not yet existing) catalog itself and indexes overlapping paths */
    pid_t pids[WORKERS];
    for (int w = 0; w < WORKERS; w++) {
        pids[w] = fork();
        ck_assert(pids[w] >= 0);
        if (pids[w] == 0) {
            gguf_catalog *cat = NULL;
            gguf_error err;
            gguf_error_clear(&err);
            int rc = gguf_catalog_open(&cat, at("c.db"), 0, &err);
            DIR_PATH(da, "a");
            DIR_PATH(db, "b");
            const char *paths[] = {dir, da, db};
            gguf_catalog_index_options opt = GGUF_CATALOG_INDEX_OPTIONS_INIT;
            opt.flags = (w % 2 ? GGUF_CATALOG_CRC : 0) | (w >= 2 ? GGUF_CATALOG_FORCE : 0);
            for (int round = 0; rc == 0 && round < 3; round++)
                rc = gguf_catalog_index(NULL, cat, paths + w % 3, 1 + (w == 0), &opt, &err);
            if (rc != 0)
                fprintf(stderr, "worker %d: %s\n", w, err.message);
            gguf_catalog_close(cat);
            _exit(rc == 0 ? 0 : 1);
        }
    }
    for (int w = 0; w < WORKERS; w++) {
        int status;
        ck_assert(waitpid(pids[w], &status, 0) == pids[w]);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "worker %d failed", w);
    }
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    ck_assert_str_eq(qtext(cat, "PRAGMA integrity_check"), "ok");
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files"), COPIES);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM errors"), 1);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files f WHERE n_kv != (SELECT count(*) FROM"
                               " kv WHERE kv.file = f.id) OR n_tensors != (SELECT count(*) FROM"
                               " tensors t WHERE t.file = f.id)"),
                     0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM kv WHERE file NOT IN (SELECT id FROM files)"),
                     0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM tensors WHERE file NOT IN (SELECT id FROM "
                               "files)"),
                     0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM (SELECT file, position FROM kv GROUP BY"
                               " file, position HAVING count(*) > 1)"),
                     0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM errors WHERE path IN (SELECT path FROM "
                               "files)"),
                     0);
    for (int i = 0; i < COPIES; i += 7) {
        char rel[64];
        snprintf(rel, sizeof rel, "%s/m%02d.gguf", i % 2 ? "a" : "b", i);
        check_rows(cat, at(rel));
    }
    gguf_catalog_close(cat);
    remove_dir();
}
END_TEST

/* ---- split sets ---- */

/* Shard `no` of a set of `count` (split.no, split.count, split.tensors.count = count) holding
 * one F32 tensor of 4 elements named "t<tensor>", all bytes `fill`. */
static void write_shard_t(const char *path, int no, int count, int tensor, uint8_t fill) {
    char name[16];
    snprintf(name, sizeof name, "t%d", tensor);
    gb b;
    gb_begin(&b, 3, 0, 1, 4);
    gb_kv(&b, "general.architecture", GGUF_VTYPE_STRING), gb_str(&b, "llama");
    gb_kv(&b, "split.no", GGUF_VTYPE_U16), gb_u16(&b, (uint16_t)no);
    gb_kv(&b, "split.count", GGUF_VTYPE_U16), gb_u16(&b, (uint16_t)count);
    gb_kv(&b, "split.tensors.count", GGUF_VTYPE_I32), gb_i32(&b, count);
    gb_tensor(&b, name, 1, (const uint64_t[]){4}, GGUF_DTYPE_F32, 0);
    gb_align(&b, 32);
    gb_fill(&b, fill, 16);
    ck_assert_int_eq(tu_write_file(path, b.p, b.len), 0);
    gb_free(&b);
}

static void write_shard(const char *path, int no, int count) {
    gb b;
    gb_begin(&b, 3, 0, 0, 3);
    gb_kv(&b, "general.architecture", GGUF_VTYPE_STRING), gb_str(&b, "llama");
    gb_kv(&b, "split.no", GGUF_VTYPE_U16), gb_u16(&b, (uint16_t)no);
    gb_kv(&b, "split.count", GGUF_VTYPE_U16), gb_u16(&b, (uint16_t)count);
    ck_assert_int_eq(tu_write_file(path, b.p, b.len), 0);
    gb_free(&b);
}

typedef struct set_events {
    int broken;
    char last[512];
    char why[GGUF_ERROR_MESSAGE_MAX];
} set_events;

static void count_set_events(const gguf_catalog_event *ev, void *user) {
    set_events *e = user;
    if (ev->kind != GGUF_CATALOG_EV_SET_BROKEN)
        return;
    e->broken++;
    snprintf(e->last, sizeof e->last, "%s", ev->path);
    snprintf(e->why, sizeof e->why, "%s", ev->error->message);
}

/* The models view, one "name:split_no/split_count=split_complete" per row. */
static const char *model_rows(gguf_catalog *cat) {
    return qtext(cat, "SELECT group_concat(n || ':' || coalesce(split_no, '-') || '/' ||"
                      " coalesce(split_count, '-') || '=' || coalesce(split_complete, '-'), ' ')"
                      " FROM (SELECT replace(path, '%s/', '') AS n, * FROM models ORDER BY path)",
                 at("s"));
}

START_TEST(split_sets_are_one_model) {
    make_dir();
    make_folder("s");
    write_shard(at("s/big-00001-of-00003.gguf"), 0, 3);
    write_shard(at("s/big-00003-of-00003.gguf"), 2, 3);
    write_shard(at("s/ok-00001-of-00002.gguf"), 0, 2);
    write_shard(at("s/ok-00002-of-00002.gguf"), 1, 2);
    write_shard(at("s/lonely.gguf"), 0, 1);
    write_shard(at("s/renamed.gguf"), 1, 3); /* a shard renamed: its set cannot be found */
    for (int k = 0; k < 3; k++) {
        char name[64];
        snprintf(name, sizeof name, "s/three-%05d-of-00003.gguf", k + 1);
        write_shard_t(at(name), k, 3, k, (uint8_t)k);
    }
    copy_file(tu_src("golden/hand/le_v3_two_tensors.gguf"), at("s/plain.gguf"));
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    gguf_catalog_stats st;
    DIR_PATH(sdir, "s");
    const char *paths[] = {sdir};
    set_events ev = {0};
    gguf_catalog_index_options opt = GGUF_CATALOG_INDEX_OPTIONS_INIT;
    opt.on_event = count_set_events;
    opt.user = &ev;
    ck_assert_int_eq(gguf_catalog_index(&st, cat, paths, 1, &opt, NULL), 0);
    /* one row per model: no row for a set's other shards; every shard is a file */
    ck_assert_str_eq(model_rows(cat), "big-00001-of-00003.gguf:0/3=0 lonely.gguf:0/1=1 "
                                      "ok-00001-of-00002.gguf:0/2=1 plain.gguf:-/-=- "
                                      "renamed.gguf:1/3=0 three-00001-of-00003.gguf:0/3=1");
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files"), 10);
    ck_assert_int_eq(st.seen, 10);
    ck_assert_int_eq(st.indexed, 10);
    ck_assert_int_eq(st.broken_sets, 2);
    ck_assert_int_eq(ev.broken, 2);
    /* the set's totals: every shard's bytes, tensors and parameters */
    ck_assert_str_eq(qtext(cat, "SELECT n_tensors || '|' || shards || '|' || n_params || '|' ||"
                                " tensor_bytes || '|' || quant || '|' || (bytes = (SELECT sum(size)"
                                " FROM files WHERE path LIKE '%%/three-%%')) FROM models WHERE"
                                " path LIKE '%%/three-00001-of-00003.gguf'"),
                     "3|3|12|48|F32|1");
    /* the missing shard is named by the set's errors row, on its first shard's path */
    ck_assert_str_eq(qtext(cat, "SELECT replace(path, '%s/', '') || '|' || scope || '|' || shard"
                                " || '|' || message FROM errors WHERE path LIKE '%%/big-%%'",
                           at("s")),
                     "big-00001-of-00003.gguf|set|2|split set of 3 shards: 1 missing: "
                     "big-00002-of-00003.gguf");
    ck_assert_str_eq(qtext(cat, "SELECT shard || '|' || message FROM errors WHERE path LIKE"
                                " '%%/renamed.gguf'"),
                     "2|split.count is 3 but the name is not PREFIX-00002-of-00003.gguf, so the "
                     "other shards cannot be found");
    /* again: nothing changed, nothing is read, the verdict stays */
    memset(&ev, 0, sizeof ev);
    ck_assert_int_eq(gguf_catalog_index(&st, cat, paths, 1, &opt, NULL), 0);
    ck_assert_int_eq(st.unchanged, 10);
    ck_assert_int_eq(st.indexed, 0);
    ck_assert_int_eq(ev.broken, 0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM errors WHERE scope = 'set'"), 2);
    /* the missing shard comes: the set is whole, its error goes */
    write_shard(at("s/big-00002-of-00003.gguf"), 1, 3);
    ck_assert_int_eq(gguf_catalog_index(&st, cat, paths, 1, &opt, NULL), 0);
    ck_assert_int_eq(st.indexed, 1);
    ck_assert_int_eq(qint(cat, "SELECT split_complete FROM models WHERE path LIKE '%%/big-%%'"),
                     1);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM errors WHERE path LIKE '%%/big-%%'"), 0);
    ck_assert_str_eq(qtext(cat, "SELECT split_set FROM files WHERE path LIKE '%%big-00002%%'"),
                     at("s/big"));
    ck_assert_str_eq(qtext(cat, "SELECT model FROM files WHERE path LIKE '%%big-00003%%'"),
                     at("s/big-00001-of-00003.gguf"));
    /* a shard replaced by another set's: the set's error names it, no model row for it */
    write_shard_t(at("s/three-00002-of-00003.gguf"), 1, 4, 1, 9);
    memset(&ev, 0, sizeof ev);
    ck_assert_int_eq(gguf_catalog_index(&st, cat, paths, 1, &opt, NULL), 0);
    ck_assert_int_eq(st.indexed, 1);
    ck_assert_int_eq(ev.broken, 1);
    ck_assert_str_eq(ev.last, at("s/three-00001-of-00003.gguf"));
    ck_assert_str_eq(qtext(cat, "SELECT shard || '|' || message FROM errors WHERE path LIKE"
                                " '%%/three-%%'"),
                     "2|shard 2 of 3 (three-00002-of-00003.gguf): split.count 4, but the set has "
                     "3 shards: shards from two different sets");
    ck_assert_int_eq(qint(cat, "SELECT split_complete FROM models WHERE path LIKE '%%/three-%%'"),
                     0);
    /* a copy of the first shard in the second's place: no second model row either */
    copy_file(at("s/three-00001-of-00003.gguf"), at("s/three-00002-of-00003.gguf"));
    ck_assert_int_eq(gguf_catalog_index(&st, cat, paths, 1, &opt, NULL), 0);
    ck_assert_str_eq(qtext(cat, "SELECT shard || '|' || message FROM errors WHERE path LIKE"
                                " '%%/three-%%'"),
                     "2|shard 2 of 3 (three-00002-of-00003.gguf): split.no 0: this file is a "
                     "copy of shard 1, not shard 2 (a duplicated or misnamed shard)");
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM models WHERE path LIKE '%%/three-%%'"), 1);
    /* a shard gone: its rows go with the next index run, and the set says so */
    write_shard_t(at("s/three-00002-of-00003.gguf"), 1, 3, 1, 1);
    ck_assert_int_eq(gguf_catalog_index(&st, cat, paths, 1, &opt, NULL), 0);
    ck_assert_int_eq(qint(cat, "SELECT split_complete FROM models WHERE path LIKE '%%/three-%%'"),
                     1);
    ck_assert_int_eq(unlink(at("s/three-00003-of-00003.gguf")), 0);
    ck_assert_int_eq(gguf_catalog_index(&st, cat, paths, 1, &opt, NULL), 0);
    ck_assert_int_eq(qint(cat, "SELECT shards FROM models WHERE path LIKE '%%/three-%%'"), 2);
    ck_assert_str_eq(qtext(cat, "SELECT shard FROM errors WHERE path LIKE '%%/three-%%'"), "3");
    /* a shard named on its own brings its set */
    gguf_catalog_close(cat);
    ck_assert_int_eq(unlink(at("c.db")), 0);
    cat = open_cat(at("c.db"), 0);
    DIR_PATH(second, "s/ok-00002-of-00002.gguf");
    const char *one[] = {second};
    index_paths(&st, cat, one, 1, 0);
    ck_assert_int_eq(st.indexed, 2);
    ck_assert_str_eq(model_rows(cat), "ok-00001-of-00002.gguf:0/2=1");
    /* prune: a set's row goes with its last shard */
    index_paths(&st, cat, paths, 1, 0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM errors WHERE scope = 'set'"), 2);
    ck_assert_int_eq(unlink(at("s/three-00001-of-00003.gguf")), 0);
    ck_assert_int_eq(gguf_catalog_prune(&st, cat, NULL, NULL, NULL), 0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM errors WHERE scope = 'set'"), 2);
    ck_assert_int_eq(unlink(at("s/three-00002-of-00003.gguf")), 0);
    ck_assert_int_eq(gguf_catalog_prune(&st, cat, NULL, NULL, NULL), 0);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM errors WHERE scope = 'set'"), 1);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files WHERE path LIKE '%%/three-%%'"), 0);
    gguf_catalog_close(cat);
    remove_dir();
}
END_TEST

/* verify walks every shard of a set: each one's bytes against its rows, and the shards the
 * catalog lacks */
START_TEST(verify_checks_every_shard) {
    make_dir();
    make_folder("s");
    for (int k = 0; k < 3; k++) {
        char name[64];
        snprintf(name, sizeof name, "s/m-%05d-of-00003.gguf", k + 1);
        write_shard_t(at(name), k, 3, k, (uint8_t)(k + 1));
    }
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    DIR_PATH(sdir, "s");
    DIR_PATH(first, "s/m-00001-of-00003.gguf");
    const char *paths[] = {sdir};
    index_paths(NULL, cat, paths, 1, GGUF_CATALOG_CRC);
    findings fs;
    gguf_catalog_verify_stats vs;
    run_verify(&fs, &vs, cat, first); /* the model selects its shards */
    ck_assert_int_eq(vs.files, 3);
    ck_assert_int_eq(vs.tensors, 3);
    ck_assert_int_eq(fs.n, 0);
    /* shard 3's bytes rot (same size and mtime): found, naming the shard and the tensor */
    flip_tensor_byte(at("s/m-00003-of-00003.gguf"), "t2", 1);
    run_verify(&fs, &vs, cat, first);
    ck_assert_int_eq(fs.n, 1);
    ck_assert_int_eq(fs.problem[0], GGUF_CATALOG_CORRUPT);
    ck_assert_str_eq(fs.path[0], at("s/m-00003-of-00003.gguf"));
    ck_assert_str_eq(fs.tensor[0], "t2");
    /* shard 2 missing when indexed, then there: reported either way */
    ck_assert_int_eq(rename(at("s/m-00002-of-00003.gguf"), at("hold.gguf")), 0);
    index_paths(NULL, cat, paths, 1, GGUF_CATALOG_CRC);
    run_verify(&fs, &vs, cat, first);
    ck_assert_int_eq(vs.missing, 1);
    ck_assert_int_eq(vs.corrupt, 1);
    ck_assert_int_eq(fs.n, 2); /* in path order */
    ck_assert_str_eq(fs.path[0], at("s/m-00002-of-00003.gguf"));
    ck_assert_int_eq(fs.problem[0], GGUF_CATALOG_MISSING);
    ck_assert_msg(strstr(fs.message[0], "shard 2 of 3") != NULL, "%s", fs.message[0]);
    ck_assert_str_eq(fs.path[1], at("s/m-00003-of-00003.gguf"));
    ck_assert_int_eq(rename(at("hold.gguf"), at("s/m-00002-of-00003.gguf")), 0);
    run_verify(&fs, &vs, cat, first);
    ck_assert_int_eq(vs.missing, 0);
    ck_assert_int_eq(vs.changed, 1);
    gguf_catalog_close(cat);
    remove_dir();
}
END_TEST

/* ---- options, the default path ---- */

START_TEST(array_max_limits_stored_arrays) {
    make_dir();
    write_sample(at("s.gguf"));
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    gguf_catalog_index_options opt = GGUF_CATALOG_INDEX_OPTIONS_INIT;
    opt.array_max = 2;
    DIR_PATH(sfile, "s.gguf");
    const char *paths[] = {sfile};
    ck_assert_int_eq(gguf_catalog_index(NULL, cat, paths, 1, &opt, NULL), 0);
    ck_assert_str_eq(qtext(cat, "SELECT array_len || '|' || coalesce(text, 'NULL') FROM kv WHERE"
                                " key = 'test.arr.str'"),
                     "3|NULL");
    ck_assert_str_eq(qtext(cat, "SELECT text FROM kv WHERE key = 'test.arr.nested'"),
                     "[[-1,1],[\"q\"]]");
    gguf_catalog_close(cat);
    remove_dir();
}
END_TEST

START_TEST(default_path_follows_xdg) {
    make_dir();
    char want[600], got[600];
    setenv("XDG_DATA_HOME", at("xdg"), 1);
    ck_assert_int_eq(gguf_catalog_default_path(got, sizeof got, NULL), 0);
    snprintf(want, sizeof want, "%s/xdg/gguf/catalog.db", dir);
    ck_assert_str_eq(got, want);
    gguf_catalog *cat = open_cat(NULL, 0);
    ck_assert_str_eq(gguf_catalog_path(cat), want);
    gguf_catalog_close(cat);
    ck_assert_int_eq(access(want, F_OK), 0);
    /* relative or empty XDG_DATA_HOME: ignored, as the spec says */
    setenv("XDG_DATA_HOME", "relative/dir", 1);
    setenv("HOME", at("home"), 1);
    ck_assert_int_eq(gguf_catalog_default_path(got, sizeof got, NULL), 0);
    snprintf(want, sizeof want, "%s/home/.local/share/gguf/catalog.db", dir);
    ck_assert_str_eq(got, want);
    unsetenv("XDG_DATA_HOME");
    ck_assert_int_eq(gguf_catalog_default_path(got, sizeof got, NULL), 0);
    ck_assert_str_eq(got, want);
    cat = open_cat(NULL, 0);
    gguf_catalog_close(cat);
    ck_assert_int_eq(access(want, F_OK), 0);
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_catalog_default_path(got, 10, &err), GGUF_EINVAL);
    unsetenv("HOME");
    ck_assert_int_eq(gguf_catalog_default_path(got, sizeof got, NULL), GGUF_EINVAL);
    remove_dir();
}
END_TEST

/* ---- allocation failures ---- */

START_TEST(allocation_failures_fail_cleanly) {
    make_dir();
    make_tree();
    write_sample(at("models/sub/one.gguf"));
    /* a split set, and one whose second shard is missing */
    write_shard_t(at("models/sub/set-00001-of-00002.gguf"), 0, 2, 0, 1);
    write_shard_t(at("models/sub/set-00002-of-00002.gguf"), 1, 2, 1, 2);
    write_shard_t(at("models/sub/gap-00001-of-00002.gguf"), 0, 2, 0, 3);
    DIR_PATH(models, "models");
    const char *paths[] = {models};
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    gguf_catalog_index_options opt = GGUF_CATALOG_INDEX_OPTIONS_INIT;
    opt.flags = GGUF_CATALOG_FORCE | GGUF_CATALOG_CRC;
    long n = 1;
    for (;; n++) {
        gguf_error err;
        gguf_error_clear(&err);
        gguf_testing_fail_alloc_after(n);
        int rc = gguf_catalog_index(NULL, cat, paths, 1, &opt, &err);
        long calls = gguf_testing_alloc_calls();
        gguf_testing_fail_alloc_after(0);
        if (rc != 0)
            ck_assert_msg(rc == GGUF_ENOMEM && err.message[0], "n=%ld: rc %d %s", n, rc,
                          err.message);
        if (calls < n)
            break;
    }
    ck_assert_int_gt(n, 10);
    /* whatever failed, a clean run leaves the right rows */
    index_paths(NULL, cat, paths, 1, GGUF_CATALOG_FORCE);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files"), 9);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM errors WHERE scope = 'file'"), 1);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM errors WHERE scope = 'set'"), 1);
    ck_assert_int_eq(qint(cat, "SELECT split_complete FROM models WHERE path LIKE '%%/set-%%'"),
                     1);
    check_rows(cat, at("models/sub/one.gguf"));
    /* verify and query too */
    for (n = 1;; n++) {
        gguf_testing_fail_alloc_after(n);
        int rc = gguf_catalog_verify(NULL, cat, NULL, 0, NULL, NULL, NULL);
        long calls = gguf_testing_alloc_calls();
        gguf_testing_fail_alloc_after(0);
        ck_assert(rc == 0 || rc == GGUF_ENOMEM);
        if (calls < n)
            break;
    }
    for (n = 1;; n++) {
        gguf_testing_fail_alloc_after(n);
        int rc = gguf_catalog_query(cat, "SELECT * FROM models; SELECT * FROM kv", NULL, NULL,
                                    NULL);
        long calls = gguf_testing_alloc_calls();
        gguf_testing_fail_alloc_after(0);
        ck_assert(rc == 0 || rc == GGUF_ENOMEM);
        if (calls < n)
            break;
    }
    gguf_catalog_close(cat);
    for (n = 1;; n++) {
        gguf_catalog *c2 = NULL;
        gguf_testing_fail_alloc_after(n);
        int rc = gguf_catalog_open(&c2, at("c.db"), 0, NULL);
        long calls = gguf_testing_alloc_calls();
        gguf_testing_fail_alloc_after(0);
        ck_assert(rc == 0 || rc == GGUF_ENOMEM);
        ck_assert((rc == 0) == (c2 != NULL));
        gguf_catalog_close(c2);
        if (calls < n)
            break;
    }
    remove_dir();
}
END_TEST

/* ---- the corpus ---- */

START_TEST(corpus_every_file_is_recorded) {
    if (!tu_have_corpus())
        tu_skip("no ../shared/corpus");
    make_dir();
    gguf_catalog *cat = open_cat(at("c.db"), 0);
    gguf_catalog_stats st;
    char corpus[4096];
    ck_assert(realpath(tu_corpus(""), corpus) != NULL);
    const char *paths[] = {corpus};
    index_paths(&st, cat, paths, 1, 0);
    char **list = tu_list_files(corpus, ".gguf");
    ck_assert_ptr_nonnull(list);
    int n = 0, accepted = 0;
    for (char **p = list; *p != NULL; p++, n++) {
        gguf_file *f = NULL;
        gguf_error err;
        gguf_error_clear(&err);
        if (gguf_file_open(&f, *p, 0, &err) == 0) {
            gguf_file_free(f);
            accepted++;
            check_rows(cat, *p);
        } else if (err.code == GGUF_ETRUNC && gguf_file_open(&f, *p, GGUF_OPEN_PARTIAL, NULL) == 0) {
            /* cut inside its tensor data: its header, with the bytes it lacks */
            int64_t missing = (int64_t)(gguf_file_data_end(f) - gguf_file_size(f));
            ck_assert_int_gt(missing, 0);
            ck_assert_int_eq(qint(cat, "SELECT missing_bytes FROM files WHERE path = '%s'", *p),
                             missing);
            ck_assert_int_eq(qint(cat, "SELECT n_tensors FROM files WHERE path = '%s'", *p),
                             (int64_t)gguf_tensor_count(f));
            gguf_file_free(f);
            accepted++;
        } else {
            ck_assert_msg(strcmp(qtext(cat, "SELECT message FROM errors WHERE path = '%s'", *p),
                                 err.message) == 0,
                          "%s: %s", *p, err.message);
        }
    }
    tu_free_list(list);
    ck_assert_int_eq(st.seen, n);
    ck_assert_int_eq(st.indexed, accepted);
    ck_assert_int_eq(st.broken, n - accepted);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM files"), accepted);
    ck_assert_int_eq(qint(cat, "SELECT count(*) FROM errors"), n - accepted);
    ck_assert_str_eq(qtext(cat, "SELECT architecture || '|' || file_type || '|' || quant || '|' ||"
                                " n_params || '|' || context_length || '|' || embedding_length ||"
                                " '|' || block_count FROM models WHERE path LIKE"
                                " '%%/models/tiny-llama-e256-Q4_K_M.gguf'"),
                     "llama|Q4_K_M|Q4_K|17564928|128|256|2");
    /* a second run only stats */
    index_paths(&st, cat, paths, 1, 0);
    ck_assert_int_eq(st.unchanged, n);
    /* with crc32s, verify is clean */
    index_paths(&st, cat, paths, 1, GGUF_CATALOG_CRC);
    findings fs;
    gguf_catalog_verify_stats vs;
    run_verify(&fs, &vs, cat, NULL);
    ck_assert_int_eq(fs.n, 0);
    ck_assert_int_eq(vs.files, accepted);
    gguf_catalog_close(cat);
    remove_dir();
}
END_TEST

int main(void) {
    Suite *s = suite_create("catalog");
    TCase *tc = tcase_create("catalog");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, fresh_catalog_has_the_current_schema);
    tcase_add_test(tc, open_refusals);
    tcase_add_test(tc, migrates_from_every_older_version);
    tcase_add_test(tc, index_stores_what_the_reader_sees);
    tcase_add_test(tc, unchanged_files_are_skipped_and_changed_ones_reread);
    tcase_add_test(tc, walk_options);
    tcase_add_test(tc, walk_is_sorted_and_stops_at_loops);
    tcase_add_test(tc, prune_drops_vanished_files);
    tcase_add_test(tc, verify_names_the_tensor_that_changed);
    tcase_add_test(tc, queries_cannot_change_the_catalog);
    tcase_add_test(tc, queries_cannot_reach_outside_the_catalog);
    tcase_add_test(tc, queries_stop_at_their_limits);
    tcase_add_test(tc, runs_say_what_changed);
    tcase_add_test(tc, journals_are_recorded_not_applied);
    tcase_add_test(tc, fifos_are_never_opened);
    tcase_add_test(tc, concurrent_indexers_leave_a_consistent_catalog);
    tcase_add_test(tc, split_sets_are_one_model);
    tcase_add_test(tc, verify_checks_every_shard);
    tcase_add_test(tc, array_max_limits_stored_arrays);
    tcase_add_test(tc, default_path_follows_xdg);
    tcase_add_test(tc, allocation_failures_fail_cleanly);
    tcase_add_test(tc, corpus_every_file_is_recorded);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}

#endif
