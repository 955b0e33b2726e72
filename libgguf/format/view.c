/* Views: a new gguf_file over another file's bytes, with its own list of keys and tensors, to
 * be edited and written without touching the original. The shards of a split being written,
 * and the header of a merge, are views of the model they come from. */
#include "format/format.h"

#include <string.h>

int gguf__file_view(gguf_file **out, const gguf_file *f, size_t first, size_t n, bool with_kv,
                    gguf_error *err) {
    if (first > f->n_tensors || n > f->n_tensors - first)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "tensors %zu..%zu of a file of %zu", first, first + n, f->n_tensors);
    gguf_file *v = gguf__calloc(1, sizeof *v);
    size_t n_kv = with_kv ? f->n_kv : 0;
    gguf__kv *kv = gguf__malloc((n_kv ? n_kv : 1) * sizeof *kv);
    gguf__tensor *tt = gguf__malloc((n ? n : 1) * sizeof *tt);
    if (v == NULL || kv == NULL || tt == NULL) {
        gguf__free(v);
        gguf__free(kv);
        gguf__free(tt);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    for (size_t i = 0; i < n_kv; i++) {
        kv[i] = f->kv[i];
        kv[i].key_owned = false;
        kv[i].value.owned = 0;
    }
    for (size_t i = 0; i < n; i++) {
        tt[i] = f->tensors[first + i];
        tt[i].name_owned = false;
    }
    *v = (gguf_file){
        .src = f->src,
        .src_borrowed = true,
        .size = f->size,
        .head = f->head,
        .head_len = f->head_len,
        .version = f->version,
        .big = f->big,
        .alignment = with_kv ? f->alignment : 32,
        .header_end = f->header_end,
        .data_offset = f->data_offset,
        .kv = kv,
        .n_kv = n_kv,
        .cap_kv = n_kv ? n_kv : 1,
        .tensors = tt,
        .n_tensors = n,
        .cap_tensors = n ? n : 1,
        .flags = f->flags & (GGUF_OPEN_LENIENT | GGUF_OPEN_UNKNOWN_TYPES),
        .must_pack = true,
    };
    gguf__index_kv(v);
    gguf__index_tensors(v);
    *out = v;
    return 0;
}
