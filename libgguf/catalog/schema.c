/* The catalog's schema and its migrations, the names of llama.cpp's file types, and the checks
 * that a database is a catalog this library can use.
 *
 * Version 1: the tables DESIGN.md §6 sketched (files with size and mtime in seconds, kv,
 *            tensors, a small models view).
 * Version 2: an errors table for files the reader refuses; files identified by device, inode,
 *            size and mtime in nanoseconds; the open flags and whether crc32s were stored.
 * Version 3: facts derived from the header kept on files (parameter count, tensor bytes,
 *            dominant type, split set), tensors.type_id, file_types, an index on kv(file, key)
 *            for the per-file lookups of the models view, and the full models view.
 * Version 4: runs (one row per index or prune run, with its counts); files.indexed_run and
 *            files.changed_run (the run that last read the file, and the one that last found it
 *            new or changed), errors.run; files.journal and errors.journal (a journal of an
 *            interrupted edit lies beside the file: 'pending' or 'refused').
 * Version 5: split sets and URLs. files.model (the path of the model a file belongs to: its
 *            own, or for a shard of a split set its first shard's), files.etag and
 *            files.last_modified (what a server said of a URL, for conditional re-index
 *            requests); errors.scope ('file': the file was refused; 'set': the split set whose
 *            first shard is path does not open as one model) and errors.shard (the shard a set
 *            error names), so that one path may have both, errors.etag and
 *            errors.last_modified (a URL the reader refused: asked for conditionally too);
 *            runs.broken_sets; the models view lists one row per model, a split set's totals
 *            on its first shard's row.
 * Version 6: array_items (one row per element of an array, for the arrays' elements as rows).
 * Version 7: files.missing_bytes (a file cut short inside its tensor data, a download that
 *            stopped, is catalogued from its header, with the bytes it lacks; 0: whole); the
 *            models view's missing_bytes and partial.
 * Version 8: what a model needs in memory, from llama.cpp's arithmetic (gguf_llama_summary):
 *            files.kv_bytes_token, files.kv_bytes_token_swa (the f16 KV cache per token of
 *            context, full-attention and sliding-window layers apart), files.swa_window and
 *            files.state_bytes (the recurrent state per sequence), NULL where the estimate
 *            does not know the architecture; the models view's bits_per_weight,
 *            kv_bytes_per_token, kv_bytes_per_token_swa, sliding_window and
 *            state_bytes_per_sequence.
 *            Files stored before get theirs when they are read again (index --force).
 * Version 9: runs.host and runs.pid (the machine and process of each index or prune run: a
 *            row another machine stored is unchanged there when its path, size and mtime
 *            are, whatever the device and inode numbers that machine sees). PostgreSQL: an
 *            array's elements are one row of array_values, in arrays, and array_items is a
 *            view of them with SQLite's rows (one row per element would cost a b-tree entry
 *            and a WAL record each: a tokenizer is 150,000).
 *
 * A new catalog is made by running every step from 0, so the steps are always exercised; each
 * step runs inside the one migration transaction and ends by setting user_version. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"
#include "llama/llama.h"

#ifdef GGUF_HAVE_CATALOG

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(GGUF__CATALOG_APPLICATION_ID == 0x47475546, "application_id is \"GGUF\"");

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

/* file_types rows are inserted by code after this step. */
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

/* Rows of older versions were stored before runs were recorded: their run columns stay NULL,
 * and their journal state is unknown (NULL) until they are read again. */
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

/* The models view's columns and rows as version 5 made them (later versions add columns):
 * one row per model, a split set's totals on its first shard's row. In either dialect: NUM
 * widens a product of dimensions (PostgreSQL's BIGINT would overflow where SQLite's integers
 * turn REAL), SUM keeps a sum of integers an integer (PostgreSQL's is NUMERIC), and BO and BC
 * around a comparison make it 0 or 1 (PostgreSQL's is a boolean). */
#define MODELS_V5_COLUMNS_AS(NUM, SUM, BO, BC) \
    " SELECT f.id AS file, f.path AS path, f.arch AS architecture," \
    " (SELECT text FROM kv WHERE kv.file = f.id AND kv.key = 'general.name') AS name," \
    " (SELECT text FROM kv WHERE kv.file = f.id AND kv.key = 'general.size_label') AS size_label," \
    " (SELECT coalesce(ft.name, 'FTYPE_' || kv.int) FROM kv LEFT JOIN file_types ft" \
    "  ON ft.id = kv.int WHERE kv.file = f.id AND kv.key = 'general.file_type') AS file_type," \
    " CASE WHEN f.split_count > 1 THEN (SELECT t.type FROM files g JOIN tensors t" \
    "  ON t.file = g.id WHERE g.model = f.path AND t.type NOT LIKE 'TYPE\\_%' ESCAPE '\\'" \
    "  GROUP BY t.type ORDER BY sum(t.ne0" NUM " * t.ne1 * t.ne2 * t.ne3) DESC, min(t.type_id)" \
    "  LIMIT 1) ELSE f.dominant_type END AS quant," \
    " (SELECT int FROM kv WHERE kv.file = f.id AND kv.key = f.arch || '.context_length')" \
    "  AS context_length," \
    " (SELECT int FROM kv WHERE kv.file = f.id AND kv.key = f.arch || '.embedding_length')" \
    "  AS embedding_length," \
    " (SELECT int FROM kv WHERE kv.file = f.id AND kv.key = f.arch || '.block_count')" \
    "  AS block_count," \
    " CASE WHEN f.split_count > 1 THEN (SELECT sum(g.n_params)" SUM " FROM files g" \
    "  WHERE g.model = f.path) ELSE f.n_params END AS n_params," \
    " CASE WHEN f.split_count > 1 THEN (SELECT sum(g.size)" SUM " FROM files g" \
    "  WHERE g.model = f.path) ELSE f.size END AS bytes," \
    " CASE WHEN f.split_count > 1 THEN (SELECT sum(g.tensor_bytes)" SUM " FROM files g" \
    "  WHERE g.model = f.path) ELSE f.tensor_bytes END AS tensor_bytes," \
    " CASE WHEN f.split_count > 1 THEN (SELECT sum(g.n_tensors)" SUM " FROM files g" \
    "  WHERE g.model = f.path) ELSE f.n_tensors END AS n_tensors," \
    " f.split_no AS split_no, f.split_count AS split_count," \
    " CASE WHEN f.split_count > 1 THEN (SELECT count(*) FROM files g" \
    "  WHERE g.model = f.path) ELSE 1 END AS shards," \
    " CASE WHEN f.split_count IS NULL THEN NULL WHEN f.split_count <= 1 THEN 1 ELSE" \
    "  " BO "(SELECT count(*) FROM files g WHERE g.model = f.path) = f.split_count AND NOT EXISTS" \
    "  (SELECT 1 FROM errors e WHERE e.path = f.path AND e.scope = 'set')" BC " END" \
    "  AS split_complete"
#define MODELS_V5_COLUMNS MODELS_V5_COLUMNS_AS("", "", "", "")

#define MODELS_ROWS \
    " FROM (SELECT files.*, (SELECT text FROM kv WHERE kv.file = files.id" \
    "  AND kv.key = 'general.architecture' LIMIT 1) AS arch FROM files" \
    "  WHERE model = path) f"

/* The errors table is rebuilt for its new primary key (path, scope). */
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
    "CREATE VIEW models AS" MODELS_V5_COLUMNS MODELS_ROWS ";"
    "PRAGMA user_version = 5;";

/* Arrays' elements, one row each (position: the kv row's). The files of an older catalog get
 * theirs when they are read again (index --force reads every file). */
static const char schema_v6[] =
    "CREATE TABLE array_items ("
    " file INTEGER NOT NULL REFERENCES files(id),"
    " position INTEGER NOT NULL,"
    " key TEXT NOT NULL,"
    " idx INTEGER NOT NULL,"
    " int INTEGER, real REAL, text TEXT,"
    " PRIMARY KEY (file, position, idx)) WITHOUT ROWID;"
    "PRAGMA user_version = 6;";

/* The models view's columns as version 7 made them. */
#define MODELS_V7_COLUMNS_AS(NUM, SUM, BO, BC) MODELS_V5_COLUMNS_AS(NUM, SUM, BO, BC) "," \
    " CASE WHEN f.split_count > 1 THEN (SELECT sum(g.missing_bytes)" SUM " FROM files g" \
    "  WHERE g.model = f.path) ELSE f.missing_bytes END AS missing_bytes," \
    " CASE WHEN f.split_count > 1 THEN " BO "(SELECT count(*) FROM files g" \
    "  WHERE g.model = f.path AND g.missing_bytes > 0) > 0" BC " ELSE " BO "f.missing_bytes > 0" \
    BC " END" \
    "  AS partial"
#define MODELS_V7_COLUMNS MODELS_V7_COLUMNS_AS("", "", "", "")

/* Files cut short inside their tensor data (a download that stopped): read with
 * GGUF_OPEN_PARTIAL, their header catalogued, with the bytes they lack. */
static const char schema_v7[] =
    "ALTER TABLE files ADD COLUMN missing_bytes INTEGER NOT NULL DEFAULT 0;"
    "DROP VIEW models;"
    "CREATE VIEW models AS" MODELS_V7_COLUMNS MODELS_ROWS ";"
    "PRAGMA user_version = 7;";

/* The models view as version 8 made it; REAL makes an integer a float in a division. */
#define MODELS_V8_AS(REAL, NUM, SUM, BO, BC) \
    "CREATE VIEW models AS SELECT *," \
    " CASE WHEN n_params > 0 THEN tensor_bytes" REAL " * 8.0 / n_params END AS bits_per_weight" \
    " FROM (" MODELS_V7_COLUMNS_AS(NUM, SUM, BO, BC) "," \
    " f.kv_bytes_token AS kv_bytes_per_token, f.kv_bytes_token_swa AS kv_bytes_per_token_swa," \
    " f.swa_window AS sliding_window, f.state_bytes AS state_bytes_per_sequence" MODELS_ROWS \
    ")"

/* The KV figures live on the row of the file with the metadata: a split set's first shard. */
static const char schema_v8[] =
    "ALTER TABLE files ADD COLUMN kv_bytes_token INTEGER;"
    "ALTER TABLE files ADD COLUMN kv_bytes_token_swa INTEGER;"
    "ALTER TABLE files ADD COLUMN swa_window INTEGER;"
    "ALTER TABLE files ADD COLUMN state_bytes INTEGER;"
    "DROP VIEW models;"
    MODELS_V8_AS("", "", "", "", "") ";"
    "PRAGMA user_version = 8;";

/* PostgreSQL: a new catalog is made at version 8 in one step (PostgreSQL catalogs began at
 * it); a later version adds its step in both dialects. The same tables, columns (in the same
 * order) and view as SQLite's, in PostgreSQL's types: INTEGER is BIGINT, REAL DOUBLE PRECISION,
 * comparisons yield 0 or 1 and sums BIGINT as in SQLite; the children's file columns carry no
 * foreign key (SQLite's are declared, never enforced: foreign_keys is off), which would cost a
 * check per row of a COPY of a tokenizer's items. The version and application id live
 * in the table gguf_catalog. The role GGUF__PG_READER may read these tables and nothing more;
 * its transactions are read-only by default. Every subquery in FROM has a name. */
#define PG_MODELS_V8 \
    MODELS_V8_AS("::double precision", "::numeric", "::bigint", "(", ")::int") " m;"

static const char schema_pg_v8[] =
    "CREATE TABLE gguf_catalog (application_id BIGINT NOT NULL, version BIGINT NOT NULL);"
    "INSERT INTO gguf_catalog VALUES (1195857222, 0);"
    "CREATE TABLE files ("
    " id BIGSERIAL PRIMARY KEY,"
    " path TEXT NOT NULL UNIQUE,"
    " dev BIGINT, ino BIGINT,"
    " size BIGINT NOT NULL,"
    " mtime_ns BIGINT NOT NULL,"
    " version BIGINT, endian TEXT, alignment BIGINT, data_offset BIGINT,"
    " n_kv BIGINT, n_tensors BIGINT, header_crc32 BIGINT,"
    " open_flags BIGINT NOT NULL DEFAULT 0,"
    " has_crc BIGINT NOT NULL DEFAULT 0,"
    " indexed_at BIGINT NOT NULL,"
    " n_params BIGINT, tensor_bytes BIGINT, dominant_type TEXT, split_set TEXT,"
    " split_no BIGINT, split_count BIGINT,"
    " indexed_run BIGINT, changed_run BIGINT, journal TEXT,"
    " model TEXT, etag TEXT, last_modified TEXT,"
    " missing_bytes BIGINT NOT NULL DEFAULT 0,"
    " kv_bytes_token BIGINT, kv_bytes_token_swa BIGINT, swa_window BIGINT, state_bytes BIGINT);"
    "CREATE TABLE kv ("
    " file BIGINT NOT NULL,"
    " position BIGINT NOT NULL,"
    " key TEXT NOT NULL, type TEXT NOT NULL, elem_type TEXT, array_len BIGINT,"
    " int BIGINT, real DOUBLE PRECISION, text TEXT,"
    " PRIMARY KEY (file, position));"
    "CREATE INDEX kv_key ON kv(key);"
    "CREATE INDEX kv_file_key ON kv(file, key);"
    "CREATE TABLE tensors ("
    " file BIGINT NOT NULL,"
    " position BIGINT NOT NULL,"
    " name TEXT NOT NULL, type TEXT NOT NULL, n_dims BIGINT NOT NULL,"
    " ne0 BIGINT, ne1 BIGINT, ne2 BIGINT, ne3 BIGINT,"
    " \"offset\" BIGINT NOT NULL, nbytes BIGINT, crc32 BIGINT, type_id BIGINT,"
    " PRIMARY KEY (file, position));"
    "CREATE INDEX tensors_name ON tensors(name);"
    "CREATE INDEX files_split_set ON files(split_set);"
    "CREATE INDEX files_changed_run ON files(changed_run);"
    "CREATE INDEX files_model ON files(model);"
    "CREATE TABLE errors ("
    " path TEXT NOT NULL,"
    " dev BIGINT, ino BIGINT, size BIGINT, mtime_ns BIGINT,"
    " code BIGINT NOT NULL, error TEXT, \"offset\" BIGINT, message TEXT NOT NULL,"
    " indexed_at BIGINT NOT NULL, run BIGINT, journal TEXT,"
    " scope TEXT NOT NULL DEFAULT 'file',"
    " shard BIGINT,"
    " etag TEXT, last_modified TEXT,"
    " PRIMARY KEY (path, scope));"
    "CREATE TABLE file_types (id BIGINT PRIMARY KEY, name TEXT NOT NULL);"
    "CREATE TABLE runs ("
    " id BIGSERIAL PRIMARY KEY,"
    " kind TEXT NOT NULL,"
    " started_at BIGINT NOT NULL,"
    " finished_at BIGINT,"
    " paths TEXT,"
    " seen BIGINT NOT NULL DEFAULT 0,"
    " indexed BIGINT NOT NULL DEFAULT 0,"
    " unchanged BIGINT NOT NULL DEFAULT 0,"
    " broken BIGINT NOT NULL DEFAULT 0,"
    " skipped BIGINT NOT NULL DEFAULT 0,"
    " walk_errors BIGINT NOT NULL DEFAULT 0,"
    " removed BIGINT NOT NULL DEFAULT 0,"
    " broken_sets BIGINT NOT NULL DEFAULT 0);"
    "CREATE TABLE array_items ("
    " file BIGINT NOT NULL,"
    " position BIGINT NOT NULL,"
    " key TEXT NOT NULL,"
    " idx BIGINT NOT NULL,"
    " int BIGINT, real DOUBLE PRECISION, text TEXT,"
    " PRIMARY KEY (file, position, idx));"
    PG_MODELS_V8
    /* the reader: cluster-wide, made once for every catalog of the cluster */
    "DO $$ BEGIN CREATE ROLE " GGUF__PG_READER " LOGIN NOINHERIT;"
    " EXCEPTION WHEN duplicate_object THEN NULL; END $$;"
    "ALTER ROLE " GGUF__PG_READER " SET default_transaction_read_only = on;"
    "DO $$ BEGIN EXECUTE format('GRANT CONNECT ON DATABASE %I TO " GGUF__PG_READER "',"
    " current_database()); END $$;"
    "GRANT USAGE ON SCHEMA public TO " GGUF__PG_READER ";"
    "GRANT SELECT ON gguf_catalog, files, kv, array_items, tensors, errors, runs, file_types,"
    " models TO " GGUF__PG_READER ";"
    "UPDATE gguf_catalog SET version = 8;";

static const char schema_v9[] =
    "ALTER TABLE runs ADD COLUMN host TEXT;"
    "ALTER TABLE runs ADD COLUMN pid INTEGER;"
    "PRAGMA user_version = 9;";

/* An array is one row whose columns int, real and text are arrays of its elements' values
 * (NULL where no element has one), stored uncompressed: compressing a tokenizer's strings on
 * every insert costs more than the bytes it saves. unnest pads the shorter arrays with NULLs,
 * as the rows of SQLite's table have them. */
static const char schema_pg_v9[] =
    "ALTER TABLE runs ADD COLUMN host TEXT, ADD COLUMN pid BIGINT;"
    "CREATE TABLE array_values ("
    " file BIGINT NOT NULL,"
    " position BIGINT NOT NULL,"
    " key TEXT NOT NULL,"
    " int BIGINT[], real DOUBLE PRECISION[], text TEXT[],"
    " PRIMARY KEY (file, position));"
    "ALTER TABLE array_values ALTER COLUMN int SET STORAGE EXTERNAL,"
    " ALTER COLUMN real SET STORAGE EXTERNAL, ALTER COLUMN text SET STORAGE EXTERNAL;"
    "INSERT INTO array_values SELECT file, position, min(key),"
    " CASE WHEN count(int) > 0 THEN array_agg(int ORDER BY idx) END,"
    " CASE WHEN count(real) > 0 THEN array_agg(real ORDER BY idx) END,"
    " CASE WHEN count(text) > 0 THEN array_agg(text ORDER BY idx) END"
    " FROM array_items GROUP BY file, position;"
    "DROP TABLE array_items;"
    "CREATE VIEW array_items AS SELECT a.file, a.position, a.key, e.n - 1 AS idx,"
    " e.int, e.real, e.text FROM array_values a,"
    " unnest(a.int, a.real, a.text) WITH ORDINALITY AS e(int, real, text, n);"
    "GRANT SELECT ON array_values, array_items TO " GGUF__PG_READER ";"
    "UPDATE gguf_catalog SET version = 9;";

/* Each step in both dialects; NULL: PostgreSQL's is in a later step. */
static const char *const migrations[GGUF_CATALOG_SCHEMA_VERSION][2] = {
    {schema_v1, NULL},         {schema_v2, NULL}, {schema_v3, NULL},
    {schema_v4, NULL},         {schema_v5, NULL}, {schema_v6, NULL},
    {schema_v7, NULL},         {schema_v8, schema_pg_v8}, {schema_v9, schema_pg_v9}};

/* file_types: llama.cpp's enum llama_ftype (general.file_type) by llama-quantize's names. */
static int fill_file_types(gguf_catalog *cat, gguf_error *err) {
    gguf__stmt *st;
    int rc = gguf__db_prepare(&st, cat->db,
                              "INSERT INTO file_types (id, name) VALUES (?1, ?2)"
                              " ON CONFLICT (id) DO UPDATE SET name = excluded.name",
                              NULL, 0);
    if (rc != SQLITE_OK)
        return gguf__catalog_db_fail(err, cat->db, rc, cat->path, "filling file_types");
    for (size_t i = 0; i < gguf__llama_n_ftypes; i++) {
        gguf__bind_int64(st, 1, gguf__llama_ftypes[i].id);
        gguf__bind_text(st, 2, gguf__llama_ftypes[i].name, -1);
        rc = gguf__step_done(st);
        if (rc != SQLITE_DONE) {
            rc = gguf__catalog_db_fail(err, cat->db, rc, cat->path, "filling file_types");
            gguf__finalize(st);
            return rc;
        }
    }
    gguf__finalize(st);
    return 0;
}

size_t gguf__catalog_split_set_len(const char *path, size_t len) {
    static const char tail[] = "-NNNNN-of-NNNNN.gguf";
    size_t tl = sizeof tail - 1;
    if (len < tl)
        return len;
    const char *t = path + len - tl;
    for (size_t i = 0; i < tl; i++) {
        if (tail[i] == 'N' ? (t[i] < '0' || t[i] > '9') : t[i] != tail[i])
            return len;
    }
    return len - tl;
}

char *gguf__catalog_model_path(const char *path, int64_t split_count) {
    if (split_count <= 1 || !gguf_split_parse_name(NULL, NULL, NULL, path))
        return gguf__strdup(path);
    return gguf__catalog_shard_path(path, 0);
}

/* SQL functions used by migrations (not by views: those stay readable by any SQLite). */
static void sql_split_set(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    const char *p = (const char *)sqlite3_value_text(argv[0]);
    if (p == NULL) {
        sqlite3_result_null(ctx);
        return;
    }
    size_t n = (size_t)sqlite3_value_bytes(argv[0]);
    sqlite3_result_text(ctx, p, (int)gguf__catalog_split_set_len(p, n), SQLITE_TRANSIENT);
}

static void sql_model_path(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    const char *p = (const char *)sqlite3_value_text(argv[0]);
    if (p == NULL) {
        sqlite3_result_null(ctx);
        return;
    }
    int64_t count = sqlite3_value_type(argv[1]) == SQLITE_NULL ? -1 : sqlite3_value_int64(argv[1]);
    char *model = gguf__catalog_model_path(p, count);
    if (model == NULL) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    sqlite3_result_text(ctx, model, -1, SQLITE_TRANSIENT);
    gguf__free(model);
}

static void sql_dtype_id(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    const char *name = (const char *)sqlite3_value_text(argv[0]);
    int id = name != NULL ? gguf_dtype_parse(name) : -1;
    if (id < 0 && name != NULL && strncmp(name, "TYPE_", 5) == 0) {
        char *end;
        unsigned long v = strtoul(name + 5, &end, 10);
        if (end != name + 5 && *end == '\0' && v <= UINT32_MAX) {
            sqlite3_result_int64(ctx, (int64_t)v);
            return;
        }
    }
    if (id < 0)
        sqlite3_result_null(ctx);
    else
        sqlite3_result_int(ctx, id);
}

void gguf__catalog_register_functions(sqlite3 *db) {
    sqlite3_create_function(db, "gguf__split_set", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                            sql_split_set, NULL, NULL);
    sqlite3_create_function(db, "gguf__dtype_id", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                            sql_dtype_id, NULL, NULL);
    sqlite3_create_function(db, "gguf__model_path", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                            sql_model_path, NULL, NULL);
}

/* The identity of a database, read in one statement (one snapshot: another process may be
 * creating the schema right now). PostgreSQL: the database's other tables are its owner's
 * business; a table named files without gguf_catalog is what is refused. */
static int read_identity(gguf__db *db, int64_t *version, int64_t *app_id, int64_t *n_tables) {
    gguf__stmt *st;
    int rc = gguf__db_prepare(&st, db,
                              "SELECT (SELECT user_version FROM pragma_user_version),"
                              " (SELECT application_id FROM pragma_application_id),"
                              " (SELECT count(*) FROM sqlite_master)",
                              "SELECT 0, 0, (SELECT count(*) FROM pg_tables WHERE schemaname ="
                              " current_schema() AND tablename IN ('files', 'gguf_catalog')),"
                              " to_regclass('gguf_catalog') IS NOT NULL",
                              0);
    if (rc != SQLITE_OK)
        return rc;
    rc = gguf__step(st);
    int has_meta = 0;
    if (rc == SQLITE_ROW) {
        *version = gguf__col_int64(st, 0);
        *app_id = gguf__col_int64(st, 1);
        *n_tables = gguf__col_int64(st, 2);
        has_meta = db->kind == GGUF__DB_PG && gguf__col_int64(st, 3) != 0;
        rc = SQLITE_OK;
    }
    gguf__finalize(st);
    if (rc == SQLITE_OK && has_meta) {
        rc = gguf__db_prepare(&st, db, "SELECT version, application_id FROM gguf_catalog", NULL,
                              0);
        if (rc != SQLITE_OK)
            return rc;
        rc = gguf__step(st);
        if (rc == SQLITE_ROW) {
            *version = gguf__col_int64(st, 0);
            *app_id = gguf__col_int64(st, 1);
            rc = SQLITE_OK;
        } else if (rc == SQLITE_DONE) {
            rc = SQLITE_OK;
        }
        gguf__finalize(st);
    }
    return rc;
}

static int newer_than_us(const char *path, int64_t version, gguf_error *err) {
    return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                      "catalog %s: schema version %" PRId64
                      " is newer than this library's (%d): upgrade libgguf",
                      path, version, GGUF_CATALOG_SCHEMA_VERSION);
}

/* Reads the schema version, refusing databases that are not catalogs (a database with tables
 * but no version, or another application id) and catalogs newer than this library. */
static int schema_version(int64_t *version, gguf_catalog *cat, gguf_error *err) {
    int64_t app_id = 0, n_tables = 0;
    int rc = read_identity(cat->db, version, &app_id, &n_tables);
    if (rc != SQLITE_OK)
        return gguf__catalog_db_fail(err, cat->db, rc, cat->path, "reading the schema version");
    if ((*version == 0 && n_tables > 0) ||
        (*version > 0 && app_id != GGUF__CATALOG_APPLICATION_ID))
        return gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                          "catalog %s: not a gguf catalog (a database with other tables)",
                          cat->path);
    if (*version > GGUF_CATALOG_SCHEMA_VERSION)
        return newer_than_us(cat->path, *version, err);
    return 0;
}

int gguf__catalog_check_identity(gguf_catalog *cat, gguf_error *err) {
    int64_t version;
    return schema_version(&version, cat, err);
}

int gguf__catalog_migrate(gguf_catalog *cat, gguf_error *err) {
    int64_t version;
    int rc = schema_version(&version, cat, err);
    if (rc != 0 || version == GGUF_CATALOG_SCHEMA_VERSION)
        return rc;
    rc = gguf__catalog_txn_begin(cat, err);
    if (rc != 0)
        return rc;
    /* PostgreSQL: the write lock of SQLite's BEGIN IMMEDIATE is this lock */
    if (cat->pg)
        rc = gguf__catalog_exec(cat, "SELECT pg_advisory_xact_lock(1195857222)",
                                "taking the migration lock", err);
    /* again under the write lock: another process may have migrated meanwhile */
    if (rc == 0)
        rc = schema_version(&version, cat, err);
    for (int64_t v = version; rc == 0 && v < GGUF_CATALOG_SCHEMA_VERSION; v++) {
        char what[64];
        const char *sql = migrations[v][cat->pg ? 1 : 0];
        if (sql == NULL)
            continue;
        snprintf(what, sizeof what, "migrating to schema version %d", (int)v + 1);
        rc = gguf__catalog_exec(cat, sql, what, err);
        if (rc == 0 && v + 1 == (cat->pg ? 8 : 3))
            rc = fill_file_types(cat, err);
    }
    if (rc != 0) {
        gguf__catalog_txn_rollback(cat);
        return rc;
    }
    return gguf__catalog_txn_commit(cat, err);
}

int gguf__catalog_check_readonly(gguf__db *db, const char *path, gguf_error *err) {
    int64_t version = 0, app_id = 0, n_tables = 0;
    int rc = read_identity(db, &version, &app_id, &n_tables);
    if (rc != SQLITE_OK)
        return gguf__catalog_db_fail(err, db, rc, path, "reading the schema version");
    if (version == 0 || app_id != GGUF__CATALOG_APPLICATION_ID)
        return gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                          "catalog %s: not a gguf catalog", path);
    if (version > GGUF_CATALOG_SCHEMA_VERSION)
        return newer_than_us(path, version, err);
    if (version < GGUF_CATALOG_SCHEMA_VERSION)
        return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                          "catalog %s: schema version %" PRId64
                          " must be upgraded to %d: open it read-write once (gguf-catalog index)",
                          path, version, GGUF_CATALOG_SCHEMA_VERSION);
    return 0;
}

#endif /* GGUF_HAVE_CATALOG */
