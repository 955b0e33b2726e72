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
