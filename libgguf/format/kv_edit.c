/* Metadata edits: set (scalars, strings, arrays, copies of values), remove, rename. An edited
 * key keeps its place; a new key goes at the end. New values are encoded in the file's own byte
 * order and length width, so that writing the file in its own format copies them as they are. */
#include "format/format.h"

#include <string.h>

static bool file_wide(const gguf_file *f) {
    return f->version >= 2;
}

/* Builds an owned gguf_value from a sink's bytes. */
static int take_value(gguf_value *v, gguf__sink *s, uint32_t type, const gguf_file *f,
                      gguf_error *err) {
    if (s->b.failed) {
        gguf__buf_free(&s->b);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory for a value");
    }
    *v = (gguf_value){
        .raw = s->b.data,
        .raw_len = s->b.len,
        .type = type,
        .big_endian = f->big,
        .wide = file_wide(f),
        .owned = 1,
    };
    return 0;
}

static void value_release(gguf_value *v) {
    if (v->owned)
        gguf__free((void *)v->raw);
    v->owned = 0;
    v->raw = NULL;
}

static int check_key(const char *key, gguf_error *err) {
    if (key == NULL || key[0] == '\0')
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "empty key");
    return 0;
}

/* general.alignment must stay a valid UINT32 alignment; changing it re-lays out the data. */
static int check_alignment(gguf_file *f, const gguf_value *v, uint32_t *out, gguf_error *err) {
    if (v->type != GGUF_VTYPE_U32)
        return gguf__fail(err, GGUF_ETYPE, GGUF_ERROR_NO_OFFSET,
                          "general.alignment must be UINT32, not %s", gguf_vtype_name(v->type));
    uint32_t a = gguf__load32(v->raw, v->big_endian);
    if (a == 0 || ((a & (a - 1)) != 0 && a % 8 != 0))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "alignment %u is neither a power of two nor a multiple of 8", a);
    (void)f;
    *out = a;
    return 0;
}

static int grow_kv(gguf_file *f, gguf_error *err) {
    if (f->n_kv < f->cap_kv)
        return 0;
    size_t cap = f->cap_kv ? f->cap_kv * 2 : 8;
    gguf__kv *kv = gguf__realloc(f->kv, cap * sizeof *kv);
    if (kv == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory for keys");
    f->kv = kv;
    f->cap_kv = cap;
    return 0;
}

/* Installs an owned value under key (taking ownership of v's bytes, even on failure). */
static int install(gguf_file *f, const char *key, gguf_value *v, gguf_error *err) {
    int rc = check_key(key, err);
    uint32_t align = 0;
    bool is_align = rc == 0 && strcmp(key, "general.alignment") == 0;
    if (rc == 0 && is_align)
        rc = check_alignment(f, v, &align, err);
    int64_t at = rc == 0 ? gguf_kv_find(f, key) : -1;
    if (rc == 0 && at < 0) {
        rc = grow_kv(f, err);
        size_t n = strlen(key);
        char *copy = rc == 0 ? gguf__malloc(n) : NULL;
        if (rc == 0 && copy == NULL)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory for a key");
        if (rc == 0) {
            memcpy(copy, key, n);
            f->kv[f->n_kv] = (gguf__kv){.key = copy, .key_len = n, .key_owned = true,
                                        .src_offset = GGUF_ERROR_NO_OFFSET};
            at = (int64_t)f->n_kv++;
            gguf__index_add_kv(f, (size_t)at);
        }
    }
    if (rc != 0) {
        value_release(v);
        return rc;
    }
    value_release(&f->kv[at].value);
    f->kv[at].value = *v;
    if (is_align && align != f->alignment) {
        f->alignment = align;
        f->must_pack = true;
    }
    return 0;
}

static void sink_for(gguf__sink *s, const gguf_file *f) {
    memset(s, 0, sizeof *s);
    s->big = f->big;
    s->wide = file_wide(f);
}

int gguf_kv_set_scalar(gguf_file *f, const char *key, uint32_t vtype, const void *value,
                       gguf_error *err) {
    if (f == NULL || value == NULL || gguf_vtype_size(vtype) == 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "gguf_kv_set_scalar needs a scalar type, not %u", vtype);
    gguf__sink s;
    sink_for(&s, f);
    gguf__sink_scalar(&s, vtype, value);
    gguf_value v;
    int rc = take_value(&v, &s, vtype, f, err);
    return rc ? rc : install(f, key, &v, err);
}

static int len_fits(const gguf_file *f, uint64_t n, gguf_error *err) {
    if (!file_wide(f) && n > UINT32_MAX)
        return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                          "length %llu does not fit a GGUF v1 file's 32-bit lengths",
                          (unsigned long long)n);
    return 0;
}

int gguf_kv_set_str(gguf_file *f, const char *key, const char *str, size_t len,
                    gguf_error *err) {
    if (f == NULL || (str == NULL && len > 0))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no string given");
    int rc = len_fits(f, len, err);
    if (rc != 0)
        return rc;
    gguf__sink s;
    sink_for(&s, f);
    gguf__sink_len(&s, len);
    gguf__buf_add(&s.b, str, len);
    gguf_value v;
    rc = take_value(&v, &s, GGUF_VTYPE_STRING, f, err);
    return rc ? rc : install(f, key, &v, err);
}

int gguf_kv_set_array(gguf_file *f, const char *key, uint32_t elem_type, const void *elems,
                      uint64_t count, gguf_error *err) {
    size_t size = gguf_vtype_size(elem_type);
    if (f == NULL || size == 0 || (elems == NULL && count > 0))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "gguf_kv_set_array needs scalar elements, not type %u", elem_type);
    int rc = len_fits(f, count, err);
    if (rc != 0)
        return rc;
    gguf__sink s;
    sink_for(&s, f);
    gguf__sink_u32(&s, elem_type);
    gguf__sink_len(&s, count);
    for (uint64_t i = 0; i < count; i++)
        gguf__sink_scalar(&s, elem_type, (const uint8_t *)elems + i * size);
    gguf_value v;
    rc = take_value(&v, &s, GGUF_VTYPE_ARRAY, f, err);
    return rc ? rc : install(f, key, &v, err);
}

int gguf_kv_set_str_array(gguf_file *f, const char *key, const char *const *strs,
                          const size_t *lens, uint64_t count, gguf_error *err) {
    if (f == NULL || ((strs == NULL || lens == NULL) && count > 0))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no strings given");
    int rc = len_fits(f, count, err);
    for (uint64_t i = 0; rc == 0 && i < count; i++)
        rc = len_fits(f, lens[i], err);
    if (rc != 0)
        return rc;
    gguf__sink s;
    sink_for(&s, f);
    gguf__sink_u32(&s, GGUF_VTYPE_STRING);
    gguf__sink_len(&s, count);
    for (uint64_t i = 0; i < count; i++) {
        gguf__sink_len(&s, lens[i]);
        gguf__buf_add(&s.b, strs[i], lens[i]);
    }
    gguf_value v;
    rc = take_value(&v, &s, GGUF_VTYPE_ARRAY, f, err);
    return rc ? rc : install(f, key, &v, err);
}

int gguf_kv_set_value(gguf_file *f, const char *key, const gguf_value *value, gguf_error *err) {
    if (f == NULL || value == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no value given");
    gguf__sink s;
    sink_for(&s, f);
    gguf__value_emit(&s, value);
    gguf_value v;
    int rc = take_value(&v, &s, value->type, f, err);
    return rc ? rc : install(f, key, &v, err);
}

int gguf_kv_remove(gguf_file *f, const char *key, gguf_error *err) {
    int64_t i = f && key ? gguf_kv_find(f, key) : -1;
    if (i < 0)
        return gguf__fail(err, GGUF_ENOTFOUND, GGUF_ERROR_NO_OFFSET, "no key '%s'",
                          key ? key : "");
    return gguf_kv_remove_at(f, (size_t)i, err);
}

int gguf_kv_remove_at(gguf_file *f, size_t i, gguf_error *err) {
    if (f == NULL || i >= f->n_kv)
        return gguf__fail(err, GGUF_ENOTFOUND, GGUF_ERROR_NO_OFFSET, "no key number %zu", i);
    gguf__kv *kv = &f->kv[i];
    value_release(&kv->value);
    if (kv->key_owned)
        gguf__free((void *)kv->key);
    memmove(kv, kv + 1, (f->n_kv - i - 1) * sizeof *kv);
    f->n_kv--;
    gguf__index_kv(f);
    /* the alignment in force is the first general.alignment's, or the default */
    uint32_t align = 32;
    int64_t at = gguf_kv_find(f, "general.alignment");
    if (at >= 0 && check_alignment(f, &f->kv[at].value, &align, NULL) != 0)
        align = 32;
    if (align != f->alignment) {
        f->alignment = align;
        f->must_pack = true;
    }
    return 0;
}

int gguf_kv_rename(gguf_file *f, const char *from, const char *to, gguf_error *err) {
    int rc = check_key(to, err);
    if (rc != 0)
        return rc;
    int64_t i = f && from ? gguf_kv_find(f, from) : -1;
    if (i < 0)
        return gguf__fail(err, GGUF_ENOTFOUND, GGUF_ERROR_NO_OFFSET, "no key '%s'",
                          from ? from : "");
    if (strcmp(from, to) == 0)
        return 0;
    if (gguf_kv_find(f, to) >= 0)
        return gguf__fail(err, GGUF_EEXIST, GGUF_ERROR_NO_OFFSET,
                          "cannot rename '%s' to '%s': that key exists", from, to);
    if (strcmp(from, "general.alignment") == 0 || strcmp(to, "general.alignment") == 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "general.alignment cannot be renamed to or from: set or remove it");
    size_t n = strlen(to);
    char *copy = gguf__malloc(n);
    if (copy == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    memcpy(copy, to, n);
    gguf__kv *kv = &f->kv[i];
    if (kv->key_owned)
        gguf__free((void *)kv->key);
    kv->key = copy;
    kv->key_len = n;
    kv->key_owned = true;
    gguf__index_kv(f);
    return 0;
}
