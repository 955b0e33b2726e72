/* Header values into SQL columns: keys and strings as TEXT when they are UTF-8 and as BLOBs
 * when not (so that comparisons stay bytewise and exact), integers typed, floats as REAL (NaN
 * as NULL, with their text beside), strings up to GGUF__CATALOG_TEXT_MAX, arrays as their
 * JSON up to a size, tensors with their dims and type. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifdef GGUF_HAVE_CATALOG

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int gguf__catalog_bind_bytes(gguf__stmt *st, int col, const char *s, size_t n) {
    if (n > GGUF__CATALOG_TEXT_MAX)
        gguf__bind_null(st, col);
    else if (gguf__utf8_valid(s, n) && (st->lite != NULL || memchr(s, 0, n) == NULL))
        gguf__bind_text(st, col, n ? s : "", (int)n);
    else
        gguf__bind_blob(st, col, s, (int)n);
    return 0;
}

void gguf__catalog_id_of_stat(gguf__file_id *id, const struct stat *s) {
    *id = (gguf__file_id){.has_stat = 1, .dev = (int64_t)s->st_dev, .ino = (int64_t)s->st_ino,
                          .size = (int64_t)s->st_size, .mtime_ns = gguf__catalog_mtime_ns(s)};
}

void gguf__catalog_bind_id(gguf__stmt *st, int col, const gguf__file_id *id) {
    if (id == NULL)
        return; /* all NULL */
    if (id->has_stat) {
        gguf__bind_int64(st, col, id->dev);
        gguf__bind_int64(st, col + 1, id->ino);
    }
    if (id->size >= 0)
        gguf__bind_int64(st, col + 2, id->size);
    gguf__bind_int64(st, col + 3, id->mtime_ns);
}

int64_t gguf__catalog_http_time_ns(const char *date) {
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = date != NULL ? strptime(date, "%a, %d %b %Y %H:%M:%S GMT", &tm) : NULL;
    if (end == NULL || *end != '\0')
        return 0;
    time_t t = timegm(&tm);
    if (t < 0 || (int64_t)t > INT64_MAX / 1000000000)
        return 0;
    return (int64_t)t * 1000000000;
}

/* Columns of the kv insert. */
enum { KV_KEY = 3, KV_TYPE, KV_ELEM_TYPE, KV_ARRAY_LEN, KV_INT = GGUF__COL_INT,
       KV_REAL = GGUF__COL_REAL, KV_TEXT = GGUF__COL_TEXT };

static void bind_float(gguf__stmt *st, double d) {
    if (!isnan(d))
        gguf__bind_double(st, KV_REAL, d);
    if (!isfinite(d))
        gguf__bind_text(st, KV_TEXT, isnan(d) ? "nan" : d > 0 ? "inf" : "-inf", -1);
}

static void bind_int(gguf__stmt *st, const gguf_value *v) {
    uint64_t u = 0;
    int64_t s = 0;
    int is_signed = 0;
    if (gguf_value_get_int(&u, &s, &is_signed, v, NULL) != 0)
        return;
    if (is_signed) {
        gguf__bind_int64(st, KV_INT, s);
    } else if (u <= INT64_MAX) {
        gguf__bind_int64(st, KV_INT, (int64_t)u);
    } else { /* beyond SQLite's integers: a REAL, and the exact decimal as text */
        char num[32];
        gguf__bind_double(st, KV_REAL, (double)u);
        snprintf(num, sizeof num, "%" PRIu64, u);
        gguf__bind_text_copy(st, KV_TEXT, num, -1);
    }
}

int gguf__catalog_bind_kv(gguf__stmt *st, const gguf_file *f, size_t i, uint64_t array_max,
                          gguf__buf *json, gguf_error *err) {
    size_t klen;
    const char *key = gguf_kv_key(f, i, &klen);
    const gguf_value *v = gguf_kv_value(f, i);
    uint32_t t = gguf_value_type(v);
    const char *tname = gguf_vtype_name(t);
    gguf__catalog_bind_bytes(st, KV_KEY, key, klen);
    gguf__bind_text(st, KV_TYPE, tname ? tname : "?", -1);
    if (t == GGUF_VTYPE_ARRAY) {
        const char *ename = gguf_vtype_name(gguf_value_elem_type(v));
        uint64_t count = gguf_value_count(v);
        gguf__bind_text(st, KV_ELEM_TYPE, ename ? ename : "?", -1);
        gguf__bind_int64(st, KV_ARRAY_LEN, count <= INT64_MAX ? (int64_t)count : INT64_MAX);
        if (count <= array_max) {
            json->len = 0;
            gguf__value_json(json, v, GGUF__CATALOG_JSON_MAX);
            if (json->failed) {
                json->failed = false;
                return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            }
            if (json->len <= GGUF__CATALOG_JSON_MAX)
                gguf__bind_text(st, KV_TEXT, (const char *)json->data, (int)json->len);
        }
    } else {
        gguf__catalog_bind_scalar(st, v);
    }
    return 0;
}

void gguf__catalog_bind_scalar(gguf__stmt *st, const gguf_value *v) {
    uint32_t t = gguf_value_type(v);
    if (t == GGUF_VTYPE_STRING) {
        const char *s;
        uint64_t len;
        gguf_value_get_str(&s, &len, v, NULL);
        gguf__catalog_bind_bytes(st, KV_TEXT, s, (size_t)len);
    } else if (t == GGUF_VTYPE_F32 || t == GGUF_VTYPE_F64) {
        double d = 0;
        gguf_value_get_f64(&d, v, NULL);
        bind_float(st, d);
    } else {
        bind_int(st, v);
    }
}

void gguf__catalog_bind_tensor(gguf__stmt *st, const gguf_file *f, size_t i, int64_t crc) {
    gguf_tensor_info t;
    gguf_tensor_get(&t, f, i);
    char tbuf[32];
    const char *tname = gguf_dtype_name(t.type);
    if (tname == NULL) {
        snprintf(tbuf, sizeof tbuf, "TYPE_%u", t.type);
        tname = tbuf;
    }
    gguf__catalog_bind_bytes(st, 3, t.name, t.name_len);
    gguf__bind_text_copy(st, 4, tname, -1);
    gguf__bind_int64(st, 5, t.type);
    gguf__bind_int64(st, 6, (int)t.n_dims);
    for (int d = 0; d < GGUF_MAX_DIMS; d++) {
        uint64_t ne = (uint32_t)d < t.n_dims ? t.dims[d] : 1;
        if (ne <= INT64_MAX)
            gguf__bind_int64(st, 7 + d, (int64_t)ne);
    }
    gguf__bind_int64(st, 11, t.offset <= INT64_MAX ? (int64_t)t.offset : -1);
    if (t.nbytes != GGUF_NBYTES_UNKNOWN && t.nbytes <= INT64_MAX)
        gguf__bind_int64(st, 12, (int64_t)t.nbytes);
    if (crc >= 0 && t.nbytes != GGUF_NBYTES_UNKNOWN)
        gguf__bind_int64(st, 13, crc);
}

const char *gguf__catalog_journal_name(int state) {
    switch (state) {
    case GGUF_JOURNAL_PENDING: return "pending";
    case GGUF_JOURNAL_REFUSED: return "refused";
    default: return NULL;
    }
}

#endif /* GGUF_HAVE_CATALOG */
