/* Writing a model as a split set, byte for byte as llama.cpp's llama-gguf-split writes it.
 *
 * Its rules (tools/gguf-split/gguf-split.cpp, with ggml's gguf writer): tensors keep their
 * order and are cut into consecutive shards, either every max_tensors tensors or, by size,
 * before the tensor that would take a shard's tensor bytes (each padded to 32) past max_bytes;
 * with no_tensor_first the first shard holds metadata only. A shard with no tensor is an error,
 * except that first one (and, as llama-gguf-split has it, the last shard of a model with no
 * tensors). The first shard holds every key of the model; each shard then gets split.no
 * (UINT16), split.tensors.count (INT32) and split.count (UINT16), in that order at the end (a
 * key the model had already moves there). Each shard is GGUF v3 with ggml's n_dims (trailing
 * dims of 1 dropped), its tensors packed in order, each padded to the alignment, data after the
 * header padded to it. The alignment is 32 in shards without general.alignment; llama-gguf-split
 * also lays out the first shard at 32 when the model says otherwise (a file ggml then refuses):
 * we keep the model's alignment there, the one difference.
 *
 * Each shard is a view of the model (format/view.c) saved atomically (temporary file, fsync,
 * rename), its tensor bytes copied by the copy engine (base/copy.c) from whichever file holds
 * them: a split set can be split again. */
#include "split/split.h"

#include <stdio.h>
#include <string.h>

int gguf_split_plan(uint32_t *shard_of, uint32_t *n_shards, const gguf_file *f,
                    const gguf_split_options *opt, gguf_error *err) {
    if (shard_of == NULL && f != NULL && f->n_tensors > 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no plan to fill");
    if (n_shards == NULL || f == NULL || opt == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to plan");
    gguf_split_options o;
    int rc = GGUF__OPTIONS_READ(o, gguf_split_options, GGUF_SPLIT_OPTIONS_INIT, opt, err);
    if (rc != 0)
        return rc;
    opt = &o;
    if (opt->mode == GGUF_SPLIT_BY_SHARD) {
        uint32_t last = 0;
        for (size_t i = 0; i < f->n_tensors; i++) {
            if (f->tensors[i].shard < last)
                return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                                  "tensor %zu is in shard %u, after tensors of shard %u: the "
                                  "shards are not in order", i, f->tensors[i].shard + 1,
                                  last + 1);
            last = f->tensors[i].shard;
            shard_of[i] = last;
        }
        *n_shards = last + 1;
        return 0;
    }
    bool by_size = opt->mode == GGUF_SPLIT_BY_SIZE;
    if (opt->mode != GGUF_SPLIT_BY_SIZE && opt->mode != GGUF_SPLIT_BY_TENSORS)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "unknown split mode %d",
                          opt->mode);
    if (by_size ? opt->max_bytes == 0 : opt->max_tensors == 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          by_size ? "the size of a shard must be positive"
                                  : "the tensors of a shard must be at least 1");
    uint32_t shard = opt->no_tensor_first ? 1 : 0;
    uint64_t used = 0;     /* tensor bytes (padded) in the current shard */
    size_t in_shard = 0;   /* tensors in the current shard */
    for (size_t i = 0; i < f->n_tensors; i++) {
        const gguf__tensor *t = &f->tensors[i];
        char q[96];
        if (t->nbytes == UINT64_MAX)
            return gguf__fail(err, GGUF_EUNSUPPORTED, t->info_offset,
                              "tensor '%s': unknown type id %u, its size is unknown",
                              gguf__quote(q, sizeof q, t->name, (size_t)t->name_len), t->type);
        uint64_t padded, next;
        if (!gguf__align_up(&padded, t->nbytes, GGUF__SPLIT_ALIGN) ||
            !gguf__add_u64(&next, used, padded))
            return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET, "tensor sizes overflow");
        bool cut = by_size ? next > opt->max_bytes
                           : i > 0 && i % opt->max_tensors == 0;
        if (cut) {
            if (in_shard == 0)
                return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                                  "tensor '%s' (%llu bytes) alone is larger than a shard may "
                                  "be: shard %u would hold no tensor",
                                  gguf__quote(q, sizeof q, t->name, (size_t)t->name_len),
                                  (unsigned long long)t->nbytes, shard + 1);
            shard++;
            used = padded;
            in_shard = 0;
        } else {
            used = next;
        }
        if (shard >= UINT16_MAX)
            return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                              "more than %u shards: split.count is a UINT16", UINT16_MAX);
        shard_of[i] = shard;
        in_shard++;
    }
    *n_shards = shard + 1;
    return 0;
}

int gguf__split_set_keys(gguf_file *f, uint32_t no, uint32_t count, uint64_t tensors,
                         bool quantize_order, gguf_error *err) {
    static const char *const keys[] = {GGUF__KEY_SPLIT_NO, GGUF__KEY_SPLIT_TENSORS,
                                       GGUF__KEY_SPLIT_COUNT};
    if (tensors > INT32_MAX)
        return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                          "%llu tensors: split.tensors.count is an INT32",
                          (unsigned long long)tensors);
    uint16_t no16 = (uint16_t)no, count16 = (uint16_t)count;
    int32_t n32 = (int32_t)tensors;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < 3; i++) {
        if (gguf_kv_find(f, keys[i]) >= 0)
            rc = gguf_kv_remove(f, keys[i], err);
    }
    if (rc == 0)
        rc = gguf_kv_set_scalar(f, GGUF__KEY_SPLIT_NO, GGUF_VTYPE_U16, &no16, err);
    if (rc == 0 && quantize_order)
        rc = gguf_kv_set_scalar(f, GGUF__KEY_SPLIT_COUNT, GGUF_VTYPE_U16, &count16, err);
    if (rc == 0)
        rc = gguf_kv_set_scalar(f, GGUF__KEY_SPLIT_TENSORS, GGUF_VTYPE_I32, &n32, err);
    if (rc == 0 && !quantize_order)
        rc = gguf_kv_set_scalar(f, GGUF__KEY_SPLIT_COUNT, GGUF_VTYPE_U16, &count16, err);
    return rc;
}

/* Progress over all shards: each shard's save reports its own bytes; the fill of a shard's
 * tensor i is the model's tensor first + i. */
typedef struct split_progress {
    const gguf_split_options *opt;
    uint64_t before; /* tensor bytes of the shards already written */
    uint64_t total;
    size_t first;    /* the current shard's first tensor in the model */
} split_progress;

static int shard_fill(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                      gguf_error *err) {
    split_progress *p = user;
    return p->opt->fill(p->opt->fill_user, p->first + tensor, offset, buf, len, err);
}

static void shard_progress(void *user, uint64_t done, uint64_t total) {
    (void)total;
    split_progress *p = user;
    p->opt->progress(p->opt->progress_user, p->before + done, p->total);
}

/* The view of shard k: its tensors, its keys, ggml's dims, v3. */
static int shard_view(gguf_file **out, const gguf_file *f, size_t first, size_t n, uint32_t k,
                      uint32_t count, bool quantize_keys, gguf_error *err) {
    gguf_file *v;
    int rc = gguf__file_view(&v, f, first, n, k == 0, err);
    if (rc != 0)
        return rc;
    v->version = 3; /* ggml writes v3; new keys get v3's 64-bit lengths */
    gguf__tensor_ggml_dims(v);
    rc = gguf__split_set_keys(v, k, count, f->n_tensors, quantize_keys, err);
    if (rc != 0) {
        gguf_file_free(v);
        return rc;
    }
    *out = v;
    return 0;
}

int gguf_split_save(uint32_t *n_out, const gguf_file *f, const char *prefix,
                    const gguf_split_options *opt, gguf_error *err) {
    if (f == NULL || prefix == NULL || opt == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to split");
    gguf_split_options o;
    int rc = GGUF__OPTIONS_READ(o, gguf_split_options, GGUF_SPLIT_OPTIONS_INIT, opt, err);
    if (rc != 0)
        return rc;
    opt = &o;
    uint32_t *shard_of = gguf__malloc((f->n_tensors ? f->n_tensors : 1) * sizeof *shard_of);
    if (shard_of == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    uint32_t count = 0;
    rc = gguf_split_plan(shard_of, &count, f, opt, err);
    size_t size = strlen(prefix) + 32;
    char *path = rc == 0 ? gguf__malloc(size) : NULL;
    if (rc == 0 && path == NULL)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    /* every name first: none may be a file being read, or a special file */
    for (uint32_t k = 0; rc == 0 && k < count; k++) {
        gguf_split_name(path, size, prefix, k, count);
        rc = gguf_output_check(path, f, err);
    }
    split_progress prog = {.opt = opt};
    for (size_t i = 0; i < f->n_tensors; i++)
        prog.total += f->tensors[i].nbytes;
    size_t first = 0;
    for (uint32_t k = 0; rc == 0 && k < count; k++) {
        size_t n = 0;
        while (first + n < f->n_tensors && shard_of[first + n] == k)
            n++;
        gguf_file *v = NULL;
        rc = shard_view(&v, f, first, n, k, count, opt->quantize_keys != 0, err);
        gguf_write_options w = GGUF_WRITE_OPTIONS_INIT;
        w.version = 3;
        w.layout = GGUF_LAYOUT_PACKED;
        if (opt->progress != NULL) {
            w.progress = shard_progress;
            w.progress_user = &prog;
        }
        prog.first = first;
        if (opt->fill != NULL) {
            w.fill = shard_fill;
            w.fill_user = &prog;
        }
        if (rc == 0) {
            gguf_split_name(path, size, prefix, k, count);
            rc = gguf_file_save(v, path, &w, err);
        }
        for (size_t i = 0; i < n; i++)
            prog.before += f->tensors[first + i].nbytes;
        gguf_file_free(v);
        first += n;
    }
    gguf__free(path);
    gguf__free(shard_of);
    if (rc == 0 && n_out != NULL)
        *n_out = count;
    return rc;
}
