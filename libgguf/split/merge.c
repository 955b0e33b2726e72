/* Merging a split set into one file, byte for byte as llama-gguf-split --merge writes it: the
 * first shard's keys with split.count moved to the end and set to 0 (the other split keys
 * stay), the tensors of every shard in shard order, GGUF v3 with ggml's n_dims, packed.
 *
 * gguf_split_merge_save writes that file beside the shards (temporary file, fsync, rename).
 * The merge that deletes its shards as it goes (merge_delete.c) writes the same file, from the
 * same view (gguf__merge_view). */
#include "split/split.h"

int gguf__merge_view(gguf_file **out, const gguf_file *set, gguf_error *err) {
    int64_t count;
    int rc = gguf__split_keys(set, NULL, &count, NULL, err);
    if (rc == 0 && count < 0)
        rc = gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                        "not a split set: it has no split.count");
    gguf_file *v = NULL;
    if (rc == 0)
        rc = gguf__file_view(&v, set, 0, set->n_tensors, true, err);
    if (rc != 0)
        return rc;
    v->version = 3;
    gguf__tensor_ggml_dims(v);
    uint16_t zero = 0;
    rc = gguf_kv_remove(v, GGUF__KEY_SPLIT_COUNT, err);
    if (rc == 0)
        rc = gguf_kv_set_scalar(v, GGUF__KEY_SPLIT_COUNT, GGUF_VTYPE_U16, &zero, err);
    if (rc != 0) {
        gguf_file_free(v);
        return rc;
    }
    *out = v;
    return 0;
}

int gguf_split_merge_save(const gguf_file *set, const char *out, gguf_progress_fn progress,
                          void *progress_user, gguf_error *err) {
    if (set == NULL || out == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to merge");
    gguf_file *v;
    int rc = gguf__merge_view(&v, set, err);
    if (rc != 0)
        return rc;
    gguf_write_options w = GGUF_WRITE_OPTIONS_INIT;
    w.version = 3;
    w.layout = GGUF_LAYOUT_PACKED;
    w.progress = progress;
    w.progress_user = progress_user;
    rc = gguf_file_save(v, out, &w, err);
    gguf_file_free(v);
    return rc;
}
