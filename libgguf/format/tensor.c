/* Tensor infos: lookup and views. */
#include "format/format.h"

#include <string.h>

size_t gguf_tensor_count(const gguf_file *f) {
    return f->n_tensors;
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

uint64_t gguf_tensor_bytes_present(const gguf_file *f, size_t i) {
    if (f == NULL || i >= f->n_tensors)
        return 0;
    const gguf__tensor *t = &f->tensors[i];
    if (t->nbytes == GGUF_NBYTES_UNKNOWN || t->src_offset == GGUF__NO_SOURCE ||
        t->src_offset >= f->size)
        return 0;
    return t->nbytes < f->size - t->src_offset ? t->nbytes : f->size - t->src_offset;
}

uint64_t gguf_file_data_end(const gguf_file *f) {
    uint64_t end = f->data_offset;
    for (size_t i = 0; i < f->n_tensors; i++) {
        const gguf__tensor *t = &f->tensors[i];
        if (t->src_offset == GGUF__NO_SOURCE)
            continue;
        /* cannot overflow: the parse checked each end */
        uint64_t e = t->src_offset + (t->nbytes == GGUF_NBYTES_UNKNOWN ? 0 : t->nbytes);
        if (e > end)
            end = e;
    }
    return end;
}

int gguf__tensor_present(const gguf_file *f, size_t i, uint64_t offset, uint64_t len,
                         gguf_error *err) {
    const gguf__tensor *t = &f->tensors[i];
    uint64_t have = gguf_tensor_bytes_present(f, i);
    if (!f->partial || (offset <= have && len <= have - offset))
        return 0;
    char q[96];
    return gguf__fail(err, GGUF_ETRUNC, t->info_offset,
                      "tensor '%s': the file is cut short: it ends at byte %llu, and only %llu "
                      "of the tensor's %llu bytes are there",
                      gguf__quote(q, sizeof q, t->name, (size_t)t->name_len),
                      (unsigned long long)f->size, (unsigned long long)have,
                      (unsigned long long)t->nbytes);
}

int gguf__file_complete(const gguf_file *f, gguf_error *err) {
    if (!f->partial)
        return 0;
    for (size_t i = 0; i < f->n_tensors; i++) {
        if (f->tensors[i].src_offset != GGUF__NO_SOURCE &&
            f->tensors[i].nbytes != GGUF_NBYTES_UNKNOWN) {
            int rc = gguf__tensor_present(f, i, 0, f->tensors[i].nbytes, err);
            if (rc != 0)
                return rc;
        }
    }
    return gguf__fail(err, GGUF_ETRUNC, GGUF_ERROR_NO_OFFSET,
                      "the file is cut short: it ends at byte %llu, inside the padding before "
                      "its data (byte %llu)", (unsigned long long)f->size,
                      (unsigned long long)f->data_offset);
}

const void *gguf_tensor_data(const gguf_file *f, size_t i) {
    if (i >= f->n_tensors || f->tensors[i].nbytes == GGUF_NBYTES_UNKNOWN ||
        f->tensors[i].src_offset == GGUF__NO_SOURCE || f->src == NULL ||
        gguf_tensor_bytes_present(f, i) < f->tensors[i].nbytes)
        return NULL;
    const gguf__source *leaf;
    uint64_t at;
    if (!gguf__source_locate(f->src, f->tensors[i].src_offset, f->tensors[i].nbytes, &leaf, &at))
        return NULL;
    const uint8_t *all = leaf->mem != NULL ? leaf->mem : leaf->map;
    return all != NULL ? all + at : NULL;
}

int gguf_tensor_read(void *buf, const gguf_file *f, size_t i, uint64_t offset, size_t len,
                     gguf_error *err) {
    if (f == NULL || i >= f->n_tensors)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no tensor %zu", i);
    const gguf__tensor *t = &f->tensors[i];
    if (t->nbytes == GGUF_NBYTES_UNKNOWN || t->src_offset == GGUF__NO_SOURCE)
        return gguf__fail(err, GGUF_EUNSUPPORTED, t->info_offset, "tensor %zu has %s", i,
                          t->nbytes == GGUF_NBYTES_UNKNOWN ? "an unknown size" : "no bytes yet");
    if (offset > t->nbytes || len > t->nbytes - offset)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "bytes %llu..%llu are outside tensor %zu (%llu bytes)",
                          (unsigned long long)offset, (unsigned long long)(offset + len), i,
                          (unsigned long long)t->nbytes);
    int rc = gguf__tensor_present(f, i, offset, len, err);
    if (rc != 0)
        return rc;
    /* the rest of the tensor may well be read next: a remote source streams it in one
     * request if the next read continues this one */
    if (f->src != NULL && len < t->nbytes - offset)
        gguf__source_will_read(f->src, t->src_offset + offset, t->nbytes - offset, false);
    return gguf__file_read(f, buf, len, t->src_offset + offset, err);
}

/* ---- edits ---- */

int gguf_tensor_rename(gguf_file *f, const char *from, const char *to, gguf_error *err) {
    int64_t i = f && from ? gguf_tensor_find(f, from) : -1;
    if (i < 0)
        return gguf__fail(err, GGUF_ENOTFOUND, GGUF_ERROR_NO_OFFSET, "no tensor '%s'",
                          from ? from : "");
    size_t n = to ? strlen(to) : 0;
    if (n > GGUF_TENSOR_NAME_MAX)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "tensor name of %zu bytes is longer than %d", n, GGUF_TENSOR_NAME_MAX);
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
    gguf__index_tensors(f);
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
    gguf__index_tensors(f);
    f->must_pack = true; /* its bytes leave a hole that ggml would refuse */
    return 0;
}

static int check_new_name(const gguf_file *f, const char *name, size_t n, gguf_error *err) {
    if (n > GGUF_TENSOR_NAME_MAX)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "tensor name of %zu bytes is longer than %d", n, GGUF_TENSOR_NAME_MAX);
    if (gguf_tensor_find(f, name) >= 0)
        return gguf__fail(err, GGUF_EEXIST, GGUF_ERROR_NO_OFFSET, "tensor '%s' exists", name);
    return 0;
}

int gguf_tensor_add(gguf_file *f, const char *name, uint32_t dtype, const uint64_t *dims,
                    uint32_t n_dims, gguf_error *err) {
    if (f == NULL || name == NULL || (dims == NULL && n_dims > 0))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no tensor given");
    size_t n = strlen(name);
    int rc = check_new_name(f, name, n, err);
    if (rc != 0)
        return rc;
    gguf__tensor t = {.n_dims = n_dims, .type = dtype, .src_offset = GGUF__NO_SOURCE,
                      .info_offset = GGUF_ERROR_NO_OFFSET};
    for (uint32_t d = 0; d < GGUF_MAX_DIMS; d++)
        t.dims[d] = d < n_dims ? dims[d] : 1;
    uint64_t elems = 1;
    for (uint32_t d = 0; d < GGUF_MAX_DIMS; d++) {
        if (t.dims[d] > (uint64_t)INT64_MAX || !gguf__mul_u64(&elems, elems, t.dims[d]) ||
            elems > (uint64_t)INT64_MAX)
            return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                              "tensor '%s': element count overflows 63 bits", name);
    }
    rc = gguf_dtype_nbytes(&t.nbytes, dtype, t.dims, GGUF_MAX_DIMS, err);
    if (rc != 0)
        return rc;
    if (f->n_tensors == f->cap_tensors) {
        size_t cap = f->cap_tensors ? f->cap_tensors * 2 : 16;
        gguf__tensor *grown = gguf__realloc(f->tensors, cap * sizeof *grown);
        if (grown == NULL)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        f->tensors = grown;
        f->cap_tensors = cap;
    }
    char *copy = gguf__malloc(n ? n : 1);
    if (copy == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    memcpy(copy, name, n);
    t.name = copy;
    t.name_len = n;
    t.name_owned = true;
    f->tensors[f->n_tensors++] = t;
    gguf__index_add_tensor(f, f->n_tensors - 1);
    f->must_pack = true;
    return 0;
}

int gguf_tensor_reorder(gguf_file *f, const size_t *order, size_t n, gguf_error *err) {
    if (f == NULL || order == NULL || n != f->n_tensors)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "an order of %zu tensors for a file of %zu", n, f ? f->n_tensors : 0);
    gguf__tensor *tt = gguf__malloc((n ? n : 1) * sizeof *tt);
    uint8_t *seen = gguf__calloc(n ? n : 1, 1);
    int rc = 0;
    if (tt == NULL || seen == NULL)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    for (size_t k = 0; rc == 0 && k < n; k++) {
        if (order[k] >= n || seen[order[k]]++)
            rc = gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                            "the order is not a permutation (place %zu)", k);
        else
            tt[k] = f->tensors[order[k]];
    }
    if (rc == 0) {
        memcpy(f->tensors, tt, n * sizeof *tt);
        gguf__index_tensors(f);
        f->must_pack = true;
    }
    gguf__free(tt);
    gguf__free(seen);
    return rc;
}

int gguf_tensor_set_type(gguf_file *f, size_t i, uint32_t dtype, gguf_error *err) {
    if (f == NULL || i >= f->n_tensors)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no tensor %zu", i);
    gguf__tensor *t = &f->tensors[i];
    uint64_t nbytes;
    int rc = gguf_dtype_nbytes(&nbytes, dtype, t->dims, GGUF_MAX_DIMS, err);
    if (rc != 0)
        return rc;
    t->type = dtype;
    t->nbytes = nbytes;
    t->src_offset = GGUF__NO_SOURCE;
    f->must_pack = true;
    return 0;
}

void gguf__tensor_ggml_dims(gguf_file *f) {
    for (size_t i = 0; i < f->n_tensors; i++) {
        gguf__tensor *t = &f->tensors[i];
        uint32_t n = GGUF_MAX_DIMS;
        while (n > 1 && t->dims[n - 1] <= 1)
            n--;
        t->n_dims = n;
    }
}

bool gguf__tensor_elements(const gguf_tensor_info *t, uint64_t *n) {
    uint64_t e = 1;
    for (uint32_t d = 0; d < t->n_dims; d++)
        if (!gguf__mul_u64(&e, e, t->dims[d]))
            return false;
    *n = e;
    return true;
}
