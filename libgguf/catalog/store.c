/* A file's rows: the files row (with facts derived from the header for the models view), its
 * kv and tensors rows, written in one transaction of a batch and replacing the old ones; the
 * errors row of a file the reader refused, or of a split set that does not open as one model;
 * and dropping them. A file keeps the run that last changed it (changed_run) unless its rows
 * show it changed: new, another header or size, or tensor crc32s that differ (or cannot be
 * compared when its stat, or a URL's date, changed). */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifdef GGUF_HAVE_CATALOG

#include <string.h>

/* ---- facts for the models view: parameters, bytes, dominant type, split set ---- */

typedef struct derived {
    int has_params;
    uint64_t params;
    uint64_t tensor_bytes;
    int dominant; /* a dtype id, or -1 */
    int has_split_no, has_split_count;
    int64_t split_no, split_count;
} derived;

static int known_dtype(uint32_t type) {
    return type < GGUF_DTYPE_COUNT && gguf_dtype_name(type) != NULL;
}

static void derive(derived *d, const gguf_file *f) {
    uint64_t elems[GGUF_DTYPE_COUNT];
    memset(d, 0, sizeof *d);
    memset(elems, 0, sizeof elems);
    d->has_params = 1;
    d->dominant = -1;
    for (size_t i = 0; i < gguf_tensor_count(f); i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        uint64_t n = 0;
        int ok = gguf__tensor_elements(&t, &n);
        if (!ok || !gguf__add_u64(&d->params, d->params, n))
            d->has_params = 0;
        if (t.nbytes != GGUF_NBYTES_UNKNOWN)
            d->tensor_bytes += t.nbytes; /* bounded by the file size: no overflow */
        if (known_dtype(t.type) && (!ok || !gguf__add_u64(&elems[t.type], elems[t.type], n)))
            elems[t.type] = UINT64_MAX;
    }
    /* the known type holding the most elements; ties go to the lower id */
    uint64_t best = 0;
    for (size_t i = 0; i < gguf_tensor_count(f); i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        if (!known_dtype(t.type))
            continue;
        uint64_t e = elems[t.type];
        if (d->dominant < 0 || e > best || (e == best && (int)t.type < d->dominant)) {
            best = e;
            d->dominant = (int)t.type;
        }
    }
    d->has_split_no = gguf__kv_int(&d->split_no, f, "split.no", INT64_MIN, NULL) == 0;
    d->has_split_count = gguf__kv_int(&d->split_count, f, "split.count", INT64_MIN, NULL) == 0;
}

/* ---- dropping rows ---- */

int gguf__store_drop_file(gguf_catalog *cat, int64_t id, gguf_error *err) {
    static const int which[4] = {GGUF__ST_ITEM_DELETE, GGUF__ST_KV_DELETE, GGUF__ST_TENSOR_DELETE,
                                 GGUF__ST_FILE_DELETE};
    for (int i = 0; i < 4; i++) {
        gguf__stmt *st;
        int rc = gguf__catalog_stmt(&st, cat, which[i], err);
        if (rc != 0)
            return rc;
        gguf__bind_int64(st, 1, id);
        rc = gguf__catalog_step_done(cat, st, "deleting a file's rows", err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int gguf__store_drop_error(gguf_catalog *cat, const char *path, const char *scope,
                           gguf_error *err) {
    gguf__stmt *st;
    int rc = gguf__catalog_stmt(&st, cat, GGUF__ST_ERROR_DELETE, err);
    if (rc != 0)
        return rc;
    gguf__bind_text(st, 1, path, -1);
    gguf__bind_text(st, 2, scope, -1);
    return gguf__catalog_step_done(cat, st, "dropping an error row", err);
}

/* ---- the old row of a path ---- */

typedef struct old_row {
    int64_t id; /* 0: none */
    int64_t size, header_crc, dev, ino, mtime_ns, changed_run;
    int has_header_crc, has_crc, has_changed_run;
} old_row;

static int64_t int_or(gguf__stmt *st, int col, int64_t none) {
    return gguf__col_type(st, col) == SQLITE_NULL ? none : gguf__col_int64(st, col);
}

static int read_old(old_row *o, gguf_catalog *cat, const char *path, gguf_error *err) {
    gguf__stmt *st;
    int rc = gguf__catalog_stmt(&st, cat, GGUF__ST_FILE_OLD, err);
    if (rc != 0)
        return rc;
    memset(o, 0, sizeof *o);
    gguf__bind_text(st, 1, path, -1);
    rc = gguf__step(st);
    if (rc == SQLITE_ROW) {
        o->id = gguf__col_int64(st, 0);
        o->size = gguf__col_int64(st, 1);
        o->has_header_crc = gguf__col_type(st, 2) != SQLITE_NULL;
        o->header_crc = gguf__col_int64(st, 2);
        o->has_crc = gguf__col_int64(st, 3) != 0;
        o->dev = int_or(st, 4, -1);
        o->ino = int_or(st, 5, -1);
        o->mtime_ns = gguf__col_int64(st, 6);
        o->has_changed_run = gguf__col_type(st, 7) != SQLITE_NULL;
        o->changed_run = gguf__col_int64(st, 7);
    }
    gguf__reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return gguf__catalog_db_fail(err, cat->db, rc, cat->path, "looking a file up");
    return 0;
}

/* 1 when the stored tensor crc32s equal the new ones (the header is the same, so the tensors
 * are the same list). */
static int same_crcs(int *same, gguf_catalog *cat, int64_t id, const gguf__file_rows *r,
                     gguf_error *err) {
    gguf__stmt *st;
    int rc = gguf__catalog_stmt(&st, cat, GGUF__ST_TENSOR_CRCS, err);
    if (rc != 0)
        return rc;
    gguf__bind_int64(st, 1, id);
    size_t n = gguf_tensor_count(r->f), i = 0;
    *same = 1;
    while ((rc = gguf__step(st)) == SQLITE_ROW && *same) {
        gguf_tensor_info t;
        if (i >= n) {
            *same = 0;
            break;
        }
        gguf_tensor_get(&t, r->f, i);
        int stored = gguf__col_type(st, 0) != SQLITE_NULL;
        int now = t.nbytes != GGUF_NBYTES_UNKNOWN;
        if (stored != now || (now && (uint32_t)gguf__col_int64(st, 0) != r->crcs[i]))
            *same = 0;
        i++;
    }
    if (rc == SQLITE_DONE && i != n)
        *same = 0;
    gguf__reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return gguf__catalog_db_fail(err, cat->db, rc, cat->path, "reading tensor crc32s");
    return 0;
}

/* The run to record as the one that last changed the file. */
static int changed_run(int64_t *run, gguf_catalog *cat, const old_row *o, const gguf__file_rows *r,
                       gguf_error *err) {
    *run = r->run;
    const gguf__file_id *id = r->id;
    if (o->id == 0 || !o->has_changed_run || !o->has_header_crc ||
        (uint32_t)o->header_crc != r->header_crc || o->size != id->size)
        return 0;
    int same = o->dev == (id->has_stat ? id->dev : -1) &&
               o->ino == (id->has_stat ? id->ino : -1) && o->mtime_ns == id->mtime_ns;
    if (o->has_crc && r->with_crc) {
        int rc = same_crcs(&same, cat, o->id, r, err);
        if (rc != 0)
            return rc;
    }
    if (same)
        *run = o->changed_run;
    return 0;
}

/* ---- storing ---- */

/* Binds the files row; model is the model path (gguf__malloc'd, the caller's to free). */
static int bind_file(gguf__stmt *st, const gguf__file_rows *r, int64_t changed, int64_t id,
                     char **model) {
    derived d;
    derive(&d, r->f);
    size_t plen = strlen(r->path);
    const char *journal = gguf__catalog_journal_name(r->journal);
    *model = gguf__catalog_model_path(r->path, d.has_split_count ? d.split_count : -1);
    if (*model == NULL)
        return GGUF_ENOMEM;
    gguf__bind_text(st, 1, r->path, (int)plen);
    gguf__catalog_bind_id(st, 2, r->id);
    gguf__bind_int64(st, 6, (int)gguf_file_version(r->f));
    gguf__bind_text(st, 7, gguf_file_endian(r->f) == GGUF_ENDIAN_BIG ? "big" : "little", -1);
    gguf__bind_int64(st, 8, gguf_file_alignment(r->f));
    gguf__bind_int64(st, 9, (int64_t)gguf_file_data_offset(r->f));
    gguf__bind_int64(st, 10, (int64_t)gguf_kv_count(r->f));
    gguf__bind_int64(st, 11, (int64_t)gguf_tensor_count(r->f));
    gguf__bind_int64(st, 12, r->header_crc);
    gguf__bind_int64(st, 13, r->open_flags);
    gguf__bind_int64(st, 14, r->with_crc);
    gguf__bind_int64(st, 15, r->now);
    if (d.has_params && d.params <= INT64_MAX)
        gguf__bind_int64(st, 16, (int64_t)d.params);
    gguf__bind_int64(st, 17, (int64_t)d.tensor_bytes);
    if (d.dominant >= 0)
        gguf__bind_text(st, 18, gguf_dtype_name((uint32_t)d.dominant), -1);
    if (d.has_split_count)
        gguf__bind_text(st, 19, r->path, (int)gguf__catalog_split_set_len(r->path, plen));
    if (d.has_split_no)
        gguf__bind_int64(st, 20, d.split_no);
    if (d.has_split_count)
        gguf__bind_int64(st, 21, d.split_count);
    gguf__bind_int64(st, 22, r->run);
    gguf__bind_int64(st, 23, changed);
    if (journal != NULL)
        gguf__bind_text(st, 24, journal, -1);
    gguf__bind_text(st, 25, *model, -1);
    if (r->id->etag != NULL)
        gguf__bind_text(st, 26, r->id->etag, -1);
    if (r->id->last_modified != NULL)
        gguf__bind_text(st, 27, r->id->last_modified, -1);
    if (id != 0)
        gguf__bind_int64(st, 28, id);
    /* a file cut short (read with GGUF_OPEN_PARTIAL): the bytes its tensors lack */
    uint64_t end = gguf_file_data_end(r->f), size = gguf_file_size(r->f);
    gguf__bind_int64(st, 29, end > size ? (int64_t)(end - size) : 0);
    gguf_llama_summary sum;
    int rc = gguf_llama_summary_read(&sum, r->f, NULL);
    if (rc != 0)
        return rc;
    /* what a model needs in memory, where the estimate knows its architecture */
    if (sum.has_kv && sum.kv_bytes_token <= INT64_MAX && sum.kv_bytes_token_swa <= INT64_MAX &&
        sum.state_bytes <= INT64_MAX) {
        gguf__bind_int64(st, 30, (int64_t)sum.kv_bytes_token);
        gguf__bind_int64(st, 31, (int64_t)sum.kv_bytes_token_swa);
        gguf__bind_int64(st, 32, sum.n_swa);
        gguf__bind_int64(st, 33, (int64_t)sum.state_bytes);
    }
    return 0;
}

/* The array_items rows of key i of f (file id): one per element of an array of at most
 * GGUF__CATALOG_ITEMS_MAX scalars or strings. PostgreSQL: one array_values row, each element's
 * values, as bound for its own row, gathered into the arrays of its columns. */
static int store_items(gguf_catalog *cat, int64_t id, const gguf_file *f, size_t i,
                       gguf_error *err) {
    const gguf_value *v = gguf_kv_value(f, i);
    if (gguf_value_type(v) != GGUF_VTYPE_ARRAY || gguf_value_elem_type(v) == GGUF_VTYPE_ARRAY ||
        gguf_value_count(v) > GGUF__CATALOG_ITEMS_MAX || gguf_value_count(v) == 0)
        return 0;
    size_t klen;
    const char *key = gguf_kv_key(f, i, &klen);
    gguf_value_iter it;
    gguf_value e;
    int64_t k = 0;
    gguf__stmt *st;
    int rc = gguf__catalog_stmt(&st, cat, GGUF__ST_ITEM_INSERT, err);
    gguf_value_iter_init(&it, v);
    while (rc == 0 && gguf_value_iter_next(&it, &e)) {
        gguf__bind_int64(st, 1, id);
        gguf__bind_int64(st, 2, (int64_t)i);
        gguf__catalog_bind_bytes(st, 3, key, klen);
        gguf__bind_int64(st, 4, k++);
        gguf__catalog_bind_scalar(st, &e);
        if (!cat->pg) {
            rc = gguf__catalog_step_done(cat, st, "storing an array's element", err);
            continue;
        }
        for (int c = 0; c < 3; c++)
            gguf__db_array_add(&cat->items[c], st, GGUF__COL_INT + c);
    }
    if (rc == 0 && cat->pg)
        rc = gguf__catalog_store_array(cat, st, err);
    return rc;
}

int gguf__catalog_store_array(gguf_catalog *cat, gguf__stmt *st, gguf_error *err) {
    int rc = 0;
    for (int c = 0; c < 3; c++) {
        if (gguf__db_array_bind(st, GGUF__COL_INT + c, &cat->items[c]) != SQLITE_OK)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    return rc != 0 ? rc : gguf__catalog_step_done(cat, st, "storing an array", err);
}

/* The kv, array_items and tensors rows of file id. */
static int store_children(gguf_catalog *cat, int64_t id, const gguf__file_rows *r,
                          gguf__buf *json, gguf_error *err) {
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < gguf_kv_count(r->f); i++) {
        gguf__stmt *st;
        rc = gguf__catalog_stmt(&st, cat, GGUF__ST_KV_INSERT, err);
        if (rc != 0)
            break;
        gguf__bind_int64(st, 1, id);
        gguf__bind_int64(st, 2, (int64_t)i);
        rc = gguf__catalog_bind_kv(st, r->f, i, r->array_max, json, err);
        if (rc == 0)
            rc = gguf__catalog_step_done(cat, st, "storing a key", err);
        if (rc == 0)
            rc = store_items(cat, id, r->f, i, err);
    }
    for (size_t i = 0; rc == 0 && i < gguf_tensor_count(r->f); i++) {
        gguf__stmt *st;
        rc = gguf__catalog_stmt(&st, cat, GGUF__ST_TENSOR_INSERT, err);
        if (rc != 0)
            break;
        gguf__bind_int64(st, 1, id);
        gguf__bind_int64(st, 2, (int64_t)i);
        gguf__catalog_bind_tensor(st, r->f, i, r->with_crc ? (int64_t)r->crcs[i] : -1);
        rc = gguf__catalog_step_done(cat, st, "storing a tensor", err);
    }
    return rc;
}

int gguf__store_file(gguf_catalog *cat, const gguf__file_rows *r, gguf__buf *json,
                     gguf_error *err) {
    old_row o;
    int64_t changed = 0, id = 0;
    gguf__stmt *st;
    char *model = NULL;
    int rc = gguf__catalog_txn_begin(cat, err);
    if (rc == 0)
        rc = read_old(&o, cat, r->path, err);
    if (rc == 0)
        rc = changed_run(&changed, cat, &o, r, err);
    if (rc == 0)
        rc = gguf__catalog_stmt(&st, cat, o.id != 0 ? GGUF__ST_FILE_UPDATE : GGUF__ST_FILE_INSERT,
                                err);
    if (rc == 0 && bind_file(st, r, changed, o.id, &model) != 0)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    if (rc == 0)
        rc = gguf__catalog_step_done(cat, st, "storing a file", err);
    gguf__free(model);
    /* PostgreSQL: the insert may have met the row another indexer just stored (an upsert),
     * whose children go as an old row's do */
    if (rc == 0 && o.id == 0 && !cat->pg) {
        id = gguf__db_last_id(cat->db);
    } else if (rc == 0) {
        id = o.id != 0 ? o.id : gguf__db_last_id(cat->db);
        static const int which[3] = {GGUF__ST_ITEM_DELETE, GGUF__ST_KV_DELETE,
                                     GGUF__ST_TENSOR_DELETE};
        for (int k = 0; k < 3 && rc == 0; k++) {
            rc = gguf__catalog_stmt(&st, cat, which[k], err);
            if (rc == 0) {
                gguf__bind_int64(st, 1, id);
                rc = gguf__catalog_step_done(cat, st, "deleting old rows", err);
            }
        }
    }
    if (rc == 0)
        rc = store_children(cat, id, r, json, err);
    if (rc == 0)
        rc = gguf__store_drop_error(cat, r->path, "file", err);
    if (rc == 0)
        gguf__test_pause("catalog-file-stored"); /* the rows written, not committed */
    if (rc == 0)
        rc = gguf__catalog_txn_maybe_commit(cat, r->with_crc, err);
    if (rc != 0)
        gguf__catalog_txn_rollback(cat);
    return rc;
}

/* The errors row (path, scope): fe's code, name, offset and message. */
static int upsert_error(gguf_catalog *cat, const char *path, const char *scope,
                        const gguf__file_id *id, const gguf_error *fe, int journal,
                        uint32_t shard, int64_t run, int64_t now, gguf_error *err) {
    gguf__stmt *st;
    int rc = gguf__catalog_stmt(&st, cat, GGUF__ST_ERROR_UPSERT, err);
    if (rc != 0)
        return rc;
    int code = fe->code != 0 ? fe->code : GGUF_EIO;
    const char *msg = fe->message[0] ? fe->message : gguf_strerror(code);
    const char *jname = gguf__catalog_journal_name(journal);
    gguf__bind_text(st, 1, path, -1);
    gguf__catalog_bind_id(st, 2, id);
    gguf__bind_int64(st, 6, code);
    gguf__bind_text(st, 7, gguf_strerror(code), -1);
    if (fe->offset != GGUF_ERROR_NO_OFFSET && fe->offset <= INT64_MAX)
        gguf__bind_int64(st, 8, (int64_t)fe->offset);
    gguf__catalog_bind_bytes(st, 9, msg, strlen(msg));
    gguf__bind_int64(st, 10, now);
    gguf__bind_int64(st, 11, run);
    if (jname != NULL)
        gguf__bind_text(st, 12, jname, -1);
    gguf__bind_text(st, 13, scope, -1);
    if (shard > 0)
        gguf__bind_int64(st, 14, shard);
    if (id != NULL && id->etag != NULL)
        gguf__bind_text(st, 15, id->etag, -1);
    if (id != NULL && id->last_modified != NULL)
        gguf__bind_text(st, 16, id->last_modified, -1);
    return gguf__catalog_step_done(cat, st, "recording an error", err);
}

int gguf__store_error(gguf_catalog *cat, const char *path, const gguf__file_id *id,
                      const gguf_error *fe, int journal, int64_t run, int64_t now,
                      gguf_error *err) {
    old_row o;
    int rc = gguf__catalog_txn_begin(cat, err);
    if (rc == 0)
        rc = read_old(&o, cat, path, err);
    if (rc == 0 && o.id != 0)
        rc = gguf__store_drop_file(cat, o.id, err);
    if (rc == 0)
        rc = upsert_error(cat, path, "file", id, fe, journal, 0, run, now, err);
    if (rc == 0)
        rc = gguf__catalog_txn_maybe_commit(cat, 0, err);
    if (rc != 0)
        gguf__catalog_txn_rollback(cat);
    return rc;
}

int gguf__store_set_error(gguf_catalog *cat, const char *model, uint32_t shard,
                          const gguf_error *fe, int64_t run, int64_t now, gguf_error *err) {
    int rc = gguf__catalog_txn_begin(cat, err);
    if (rc == 0)
        rc = upsert_error(cat, model, "set", NULL, fe, GGUF_JOURNAL_NONE, shard, run, now, err);
    if (rc == 0)
        rc = gguf__catalog_txn_maybe_commit(cat, 0, err);
    if (rc != 0)
        gguf__catalog_txn_rollback(cat);
    return rc;
}

int gguf__store_forget(gguf_catalog *cat, const char *path, gguf_error *err) {
    old_row o;
    int rc = gguf__catalog_txn_begin(cat, err);
    if (rc == 0)
        rc = read_old(&o, cat, path, err);
    if (rc == 0 && o.id != 0)
        rc = gguf__store_drop_file(cat, o.id, err);
    if (rc == 0)
        rc = gguf__store_drop_error(cat, path, "file", err);
    if (rc == 0)
        rc = gguf__catalog_txn_maybe_commit(cat, 0, err);
    if (rc != 0)
        gguf__catalog_txn_rollback(cat);
    return rc;
}

int gguf__store_clear_set_error(gguf_catalog *cat, const char *model, gguf_error *err) {
    int rc = gguf__catalog_txn_begin(cat, err);
    if (rc == 0)
        rc = gguf__store_drop_error(cat, model, "set", err);
    if (rc == 0)
        rc = gguf__catalog_txn_maybe_commit(cat, 0, err);
    if (rc != 0)
        gguf__catalog_txn_rollback(cat);
    return rc;
}

int gguf__store_journal(gguf_catalog *cat, const char *path, int is_error, int journal,
                        gguf_error *err) {
    gguf__stmt *st;
    const char *jname = gguf__catalog_journal_name(journal);
    int rc = gguf__catalog_txn_begin(cat, err);
    if (rc == 0)
        rc = gguf__catalog_stmt(&st, cat, is_error ? GGUF__ST_ERROR_JOURNAL : GGUF__ST_FILE_JOURNAL,
                                err);
    if (rc == 0) {
        gguf__bind_text(st, 1, path, -1);
        if (jname != NULL)
            gguf__bind_text(st, 2, jname, -1);
        rc = gguf__catalog_step_done(cat, st, "recording a journal", err);
    }
    if (rc == 0)
        rc = gguf__catalog_txn_maybe_commit(cat, 0, err);
    if (rc != 0)
        gguf__catalog_txn_rollback(cat);
    return rc;
}

#endif /* GGUF_HAVE_CATALOG */
