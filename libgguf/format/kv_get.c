/* Typed reads of a value by its key: the value as the C type asked for when it holds it, and
 * otherwise an error naming the key, its type and, for a number out of range, the number. */
#include "format/format.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define QUOTE_MAX 96

/* The value of key, and its index; GGUF_ENOTFOUND naming the key when f has none. */
static int lookup(const gguf_value **v, size_t *at, const gguf_file *f, const char *key,
                  gguf_error *err) {
    if (f == NULL || key == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no file or no key");
    int64_t i = gguf_kv_find(f, key);
    if (i < 0) {
        char q[QUOTE_MAX];
        return gguf__fail(err, GGUF_ENOTFOUND, GGUF_ERROR_NO_OFFSET, "key '%s' not found",
                          gguf__quote(q, sizeof q, key, strlen(key)));
    }
    *at = (size_t)i;
    *v = gguf_kv_value(f, *at);
    return 0;
}

/* "INT32", or "ARRAY of UINT32" */
static void type_name(char *buf, size_t size, const gguf_value *v) {
    const char *t = gguf_vtype_name(gguf_value_type(v));
    if (gguf_value_type(v) != GGUF_VTYPE_ARRAY) {
        snprintf(buf, size, "%s", t != NULL ? t : "?");
        return;
    }
    const char *e = gguf_vtype_name(gguf_value_elem_type(v));
    snprintf(buf, size, "ARRAY of %s", e != NULL ? e : "?");
}

static int wrong_type(const gguf_file *f, size_t at, const char *key, const gguf_value *v,
                      const char *wanted, gguf_error *err) {
    char q[QUOTE_MAX], t[32];
    type_name(t, sizeof t, v);
    return gguf__fail(err, GGUF_ETYPE, gguf_kv_source_offset(f, at),
                      "key '%s' has type %s, not %s", gguf__quote(q, sizeof q, key, strlen(key)), t, wanted);
}

/* Whether v is an integer (any integer type, not BOOL), widened into *u or *i. */
static int is_integer(uint64_t *u, int64_t *i, int *is_signed, const gguf_value *v) {
    return gguf_value_type(v) != GGUF_VTYPE_BOOL &&
           gguf_value_get_int(u, i, is_signed, v, NULL) == 0;
}

/* An integer value, widened; GGUF_ETYPE for any other type (BOOL included). */
static int integer(uint64_t *u, int64_t *i, int *is_signed, size_t *at, const gguf_file *f,
                   const char *key, gguf_error *err) {
    const gguf_value *v;
    int rc = lookup(&v, at, f, key, err);
    if (rc != 0)
        return rc;
    if (!is_integer(u, i, is_signed, v))
        return wrong_type(f, *at, key, v, "an integer", err);
    return 0;
}

int gguf__kv_int(int64_t *out, const gguf_file *f, const char *key, int64_t min,
                 gguf_error *err) {
    int64_t at = gguf_kv_find(f, key);
    if (at < 0)
        return 1;
    const gguf_value *v = gguf_kv_value(f, (size_t)at);
    uint64_t u;
    int64_t s;
    int is_signed;
    uint64_t offset = gguf_kv_source_offset(f, (size_t)at);
    if (!is_integer(&u, &s, &is_signed, v)) {
        const char *t = gguf_vtype_name(gguf_value_type(v));
        return gguf__fail(err, GGUF_ETYPE, offset, "%s is %s, not an integer", key,
                          t != NULL ? t : "of no known type");
    }
    if ((is_signed && s < min) || (!is_signed && u > INT64_MAX))
        return gguf__fail(err, GGUF_ECORRUPT, offset, "%s is out of range", key);
    *out = is_signed ? s : (int64_t)u;
    return 0;
}

static int out_of_range(const gguf_file *f, size_t at, const char *key, const char *value,
                        const char *target, gguf_error *err) {
    char q[QUOTE_MAX], t[32];
    type_name(t, sizeof t, gguf_kv_value(f, at));
    return gguf__fail(err, GGUF_ETYPE, gguf_kv_source_offset(f, at),
                      "key '%s' (%s) holds %s, out of range for %s",
                      gguf__quote(q, sizeof q, key, strlen(key)), t, value, target);
}

int gguf_kv_get_u64(uint64_t *out, const gguf_file *f, const char *key, gguf_error *err) {
    uint64_t u;
    int64_t i;
    int is_signed;
    size_t at;
    int rc = integer(&u, &i, &is_signed, &at, f, key, err);
    if (rc != 0)
        return rc;
    if (is_signed && i < 0) {
        char n[24];
        snprintf(n, sizeof n, "%" PRId64, i);
        return out_of_range(f, at, key, n, "uint64", err);
    }
    *out = is_signed ? (uint64_t)i : u;
    return 0;
}

int gguf_kv_get_i64(int64_t *out, const gguf_file *f, const char *key, gguf_error *err) {
    uint64_t u;
    int64_t i;
    int is_signed;
    size_t at;
    int rc = integer(&u, &i, &is_signed, &at, f, key, err);
    if (rc != 0)
        return rc;
    if (!is_signed && u > INT64_MAX) {
        char n[24];
        snprintf(n, sizeof n, "%" PRIu64, u);
        return out_of_range(f, at, key, n, "int64", err);
    }
    *out = is_signed ? i : (int64_t)u;
    return 0;
}

int gguf_kv_get_f64(double *out, const gguf_file *f, const char *key, gguf_error *err) {
    const gguf_value *v;
    size_t at;
    int rc = lookup(&v, &at, f, key, err);
    if (rc != 0)
        return rc;
    if (gguf_value_get_f64(out, v, NULL) != 0)
        return wrong_type(f, at, key, v, "a float (FLOAT32 or FLOAT64)", err);
    return 0;
}

int gguf_kv_get_str(const char **s, size_t *len, const gguf_file *f, const char *key,
                    gguf_error *err) {
    const gguf_value *v;
    size_t at;
    int rc = lookup(&v, &at, f, key, err);
    if (rc != 0)
        return rc;
    const char *p;
    uint64_t n;
    if (gguf_value_get_str(&p, &n, v, NULL) != 0)
        return wrong_type(f, at, key, v, "STRING", err);
    *s = p;
    *len = (size_t)n;
    return 0;
}
