/* Names to indices: key and tensor lookups in constant time. The parser builds both indexes
 * (they also find duplicates); an edit that changes the list of keys or tensors rebuilds the
 * one it changed. Without an index (memory ran out during a rebuild) lookups scan, so a lookup
 * never fails for want of memory. With duplicates (a lenient open), the first entry is found. */
#include "format/format.h"

#include <string.h>

const void *gguf__kv_key(const void *file, size_t i, size_t *n) {
    const gguf_file *f = file;
    *n = (size_t)f->kv[i].key_len;
    return f->kv[i].key;
}

const void *gguf__tensor_name(const void *file, size_t i, size_t *n) {
    const gguf_file *f = file;
    *n = (size_t)f->tensors[i].name_len;
    return f->tensors[i].name;
}

static void rebuild(gguf__hashset *set, const gguf_file *f, size_t count,
                    gguf__hashset_key_fn key) {
    gguf__hashset_free(set);
    if (gguf__hashset_init(set, count) != 0)
        return;
    for (size_t i = 0; i < count; i++) {
        if (gguf__hashset_insert(set, (uint32_t)i, key, f) == -2) {
            gguf__hashset_free(set);
            return;
        }
    }
}

void gguf__index_kv(gguf_file *f) {
    rebuild(&f->kv_index, f, f->n_kv, gguf__kv_key);
}

void gguf__index_tensors(gguf_file *f) {
    rebuild(&f->tensor_index, f, f->n_tensors, gguf__tensor_name);
}

static void add(gguf__hashset *set, const gguf_file *f, size_t i, gguf__hashset_key_fn key) {
    if (set->slots != NULL && gguf__hashset_insert(set, (uint32_t)i, key, f) == -2)
        gguf__hashset_free(set);
}

void gguf__index_add_kv(gguf_file *f, size_t i) {
    add(&f->kv_index, f, i, gguf__kv_key);
}

void gguf__index_add_tensor(gguf_file *f, size_t i) {
    add(&f->tensor_index, f, i, gguf__tensor_name);
}

static int64_t find(const gguf__hashset *set, const gguf_file *f, size_t count,
                    gguf__hashset_key_fn key, const char *name, size_t n) {
    if (name == NULL) { /* allowed with n 0: the empty name */
        if (n > 0)
            return -1;
        name = "";
    }
    if (set->slots != NULL && set->n == count)
        return gguf__hashset_find(set, name, n, key, f);
    for (size_t i = 0; i < count; i++) {
        size_t len;
        const void *k = key(f, i, &len);
        if (len == n && memcmp(k, name, n) == 0)
            return (int64_t)i;
    }
    return -1;
}

int64_t gguf_kv_find_n(const gguf_file *f, const char *key, size_t len) {
    return find(&f->kv_index, f, f->n_kv, gguf__kv_key, key, len);
}

int64_t gguf_kv_find(const gguf_file *f, const char *key) {
    return gguf_kv_find_n(f, key, strlen(key));
}

int64_t gguf_tensor_find_n(const gguf_file *f, const char *name, size_t len) {
    return find(&f->tensor_index, f, f->n_tensors, gguf__tensor_name, name, len);
}

int64_t gguf_tensor_find(const gguf_file *f, const char *name) {
    return gguf_tensor_find_n(f, name, strlen(name));
}
