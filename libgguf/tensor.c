/* Tensor infos: lookup and views. */
#include "internal.h"

#include <string.h>

size_t gguf_tensor_count(const gguf_file *f) {
    return f->n_tensors;
}

int64_t gguf_tensor_find(const gguf_file *f, const char *name) {
    size_t n = strlen(name);
    for (size_t i = 0; i < f->n_tensors; i++) {
        if (f->tensors[i].name_len == n && memcmp(f->tensors[i].name, name, n) == 0)
            return (int64_t)i;
    }
    return -1;
}

void gguf_tensor_get(gguf_tensor_info *out, const gguf_file *f, size_t i) {
    const gguf__tensor *t = &f->tensors[i];
    out->name = t->name;
    out->name_len = (size_t)t->name_len;
    out->n_dims = t->n_dims;
    memcpy(out->dims, t->dims, sizeof out->dims);
    out->type = t->type;
    out->offset = t->offset;
    out->nbytes = t->nbytes;
}

const void *gguf_tensor_data(const gguf_file *f, size_t i) {
    if (i >= f->n_tensors || f->tensors[i].nbytes == UINT64_MAX)
        return NULL;
    return f->data + f->tensors[i].src_offset;
}

/* ---- edits ---- */

int gguf_tensor_rename(gguf_file *f, const char *from, const char *to, gguf_error *err) {
    int64_t i = f && from ? gguf_tensor_find(f, from) : -1;
    if (i < 0)
        return gguf__fail(err, GGUF_ENOTFOUND, GGUF_ERROR_NO_OFFSET, "no tensor '%s'",
                          from ? from : "");
    size_t n = to ? strlen(to) : 0;
    if (n > 64)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "tensor name of %zu bytes is longer than 64", n);
    if (strcmp(from, to) == 0)
        return 0;
    if (gguf_tensor_find(f, to) >= 0)
        return gguf__fail(err, GGUF_EEXIST, GGUF_ERROR_NO_OFFSET,
                          "cannot rename tensor '%s' to '%s': that name exists", from, to);
    char *copy = gguf__malloc(n ? n : 1);
    if (copy == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    memcpy(copy, to, n);
    gguf__tensor *t = &f->tensors[i];
    if (t->name_owned)
        gguf__free((void *)t->name);
    t->name = copy;
    t->name_len = n;
    t->name_owned = true;
    return 0;
}

int gguf_tensor_remove(gguf_file *f, const char *name, gguf_error *err) {
    int64_t i = f && name ? gguf_tensor_find(f, name) : -1;
    if (i < 0)
        return gguf__fail(err, GGUF_ENOTFOUND, GGUF_ERROR_NO_OFFSET, "no tensor '%s'",
                          name ? name : "");
    gguf__tensor *t = &f->tensors[i];
    if (t->name_owned)
        gguf__free((void *)t->name);
    memmove(t, t + 1, (f->n_tensors - (size_t)i - 1) * sizeof *t);
    f->n_tensors--;
    f->must_pack = true; /* its bytes leave a hole that ggml would refuse */
    return 0;
}
