/* Preparing the output: the metadata llama.cpp writes (general.quantization_version and
 * general.file_type moved to the end, split keys removed, the caller's key overrides,
 * quantize.imatrix.*, {arch}.block_count after pruning), each tensor's new type and the job
 * that fills its bytes, llama.cpp's tensor order, pruned tensors removed and the others
 * renamed; then gguf_requant_save writes the file with run.c's fill callback. */
#define _GNU_SOURCE /* strnlen */
#include "requant/requant.h"

#include <math.h> /* isfinite */
#include <stdio.h>
#include <string.h>

/* Removes a key if it is there, then appends it: keys llama.cpp sets go to the end. */
static int move_u32(gguf_file *f, const char *key, uint32_t v, gguf_error *err) {
    if (gguf_kv_find(f, key) >= 0) {
        int rc = gguf_kv_remove(f, key, err);
        if (rc != 0)
            return rc;
    }
    return gguf_kv_set_scalar(f, key, GGUF_VTYPE_U32, &v, err);
}

static int move_str(gguf_file *f, const char *key, const char *s, gguf_error *err) {
    if (gguf_kv_find(f, key) >= 0) {
        int rc = gguf_kv_remove(f, key, err);
        if (rc != 0)
            return rc;
    }
    size_t len = strnlen(s, 127); /* llama-quantize keeps 127 bytes of these strings */
    return gguf_kv_set_str(f, key, s, len, err);
}

/* general.file_type for COPY: the source's, or llama.cpp's guess from the most common tensor
 * type (in its order), marked as guessed. */
static uint32_t copy_ftype(const gguf_file *f, const size_t *order) {
    int64_t ftype;
    if (gguf__kv_int(&ftype, f, "general.file_type", INT64_MIN, NULL) == 0)
        return (uint32_t)ftype;
    uint32_t counts[GGUF_DTYPE_COUNT] = {0}, best = 0, type = GGUF_DTYPE_F32;
    for (size_t i = 0; i < gguf_tensor_count(f); i++) {
        gguf_tensor_info ti;
        gguf_tensor_get(&ti, f, order[i]);
        if (ti.type >= GGUF_DTYPE_COUNT)
            continue;
        if (++counts[ti.type] > best) {
            best = counts[ti.type];
            type = ti.type;
        }
    }
    return gguf__llama_ftype_guess(type) | GGUF__LLAMA_FTYPE_GUESSED; /* unknown: ALL_F32 */
}

/* Every imatrix value must be finite (llama.cpp checks before it starts). */
static int check_imatrix(const gguf_requant_imatrix *im, gguf_error *err) {
    for (size_t e = 0; im && e < im->n; e++) {
        const gguf__imatrix_entry *en = &im->e[e];
        for (size_t k = 0; k < en->n; k++) {
            if (!isfinite(en->w[k]))
                return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                                  "importance matrix of '%s': value %zu is not finite", en->name,
                                  k);
        }
    }
    return 0;
}

/* The keys llama.cpp sets, in its order (its tool passes the imatrix keys as overrides after
 * the user's). */
static int write_metadata(gguf_file *f, const gguf_requant_options *opt, const size_t *order,
                          const gguf__requant_plan_info *info, gguf_error *err) {
    uint32_t ftype = opt->copy ? copy_ftype(f, order) : opt->ftype;
    int rc = move_u32(f, "general.quantization_version", GGUF__QNT_VERSION, err);
    if (rc == 0)
        rc = move_u32(f, "general.file_type", ftype, err);
    static const char *const split_keys[] = {"split.no", "split.count", "split.tensors.count"};
    for (size_t k = 0; rc == 0 && k < 3; k++) {
        if (gguf_kv_find(f, split_keys[k]) >= 0)
            rc = gguf_kv_remove(f, split_keys[k], err);
    }
    if (rc == 0)
        rc = gguf__requant_kv_write(f, opt, err);
    const gguf_requant_imatrix *im = opt->imatrix;
    if (rc == 0 && im && im->n > 0) {
        rc = move_str(f, "quantize.imatrix.file", im->path, err);
        if (rc == 0 && im->dataset)
            rc = move_str(f, "quantize.imatrix.dataset", im->dataset, err);
        if (rc == 0)
            rc = move_u32(f, "quantize.imatrix.entries_count", (uint32_t)im->n, err);
        if (rc == 0 && im->chunk_count > 0)
            rc = move_u32(f, "quantize.imatrix.chunks_count", im->chunk_count, err);
    }
    if (rc == 0 && opt->n_prune_layers > 0) {
        char key[96];
        snprintf(key, sizeof key, "%s.block_count", info->arch);
        rc = move_u32(f, key, info->n_layers_kept, err);
    }
    return rc;
}

/* The job of each tensor, from its source (before its type changes). */
static int make_jobs(gguf__requant_job *jobs, const gguf_file *f, const gguf_requant_choice *ch,
                     const gguf_requant_imatrix *im, gguf_error *err) {
    for (size_t i = 0; i < gguf_tensor_count(f); i++) {
        const gguf__tensor *src = &f->tensors[i];
        gguf__requant_job *t = &jobs[i];
        snprintf(t->name, sizeof t->name, "%s", ch[i].name);
        t->convert = ch[i].convert;
        if (!t->convert)
            continue;
        if (src->src_offset == GGUF__NO_SOURCE)
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "tensor '%s' has no bytes in the source to requantize", t->name);
        t->src_type = src->type;
        t->dst_type = ch[i].type;
        t->src_offset = src->src_offset;
        t->n_per_row = (int64_t)src->dims[0];
        t->rows_per_expert = (int64_t)src->dims[1];
        t->src_row = gguf_quant_row_size(t->src_type, t->n_per_row);
        t->dst_row = gguf_quant_row_size(t->dst_type, t->n_per_row);
        if (t->src_row == 0 || t->dst_row == 0 || t->rows_per_expert == 0)
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "tensor '%s': rows of %lld do not fit its type", t->name,
                              (long long)t->n_per_row);
        if (ch[i].imatrix) { /* found by the source's name, as the plan did */
            char name[72];
            int len = (int)(src->name_len < GGUF_TENSOR_NAME_MAX ? src->name_len
                                                                   : GGUF_TENSOR_NAME_MAX);
            snprintf(name, sizeof name, "%.*s", len, src->name);
            t->imatrix = gguf__imatrix_lookup(im, name)->w;
        }
    }
    return 0;
}

/* Puts the tensors (and their jobs) in llama.cpp's order; cur[k] becomes the source index of
 * tensor k. */
static int reorder(gguf_file *f, gguf__requant_job *jobs, size_t *cur, size_t n,
                   gguf_error *err) {
    if (n == 0)
        return 0;
    gguf__requant_job *moved = gguf__malloc(n * sizeof *moved);
    if (moved == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    int rc = gguf_tensor_reorder(f, cur, n, err);
    if (rc == 0) {
        for (size_t k = 0; k < n; k++)
            moved[k] = jobs[cur[k]];
        memcpy(jobs, moved, n * sizeof *moved);
    }
    gguf__free(moved);
    return rc;
}

/* The name of tensor k of f, as a C string (names are at most GGUF_TENSOR_NAME_MAX bytes). */
static void name_at(char *buf, size_t size, const gguf_file *f, size_t k) {
    gguf_tensor_info ti;
    gguf_tensor_get(&ti, f, k);
    int len = (int)(ti.name_len < GGUF_TENSOR_NAME_MAX ? ti.name_len : GGUF_TENSOR_NAME_MAX);
    snprintf(buf, size, "%.*s", len, ti.name);
}

/* Removes the pruned tensors (and their jobs, and their places in cur); *n becomes the number
 * of tensors left. */
static int remove_pruned(gguf_file *f, gguf__requant_job *jobs, size_t *cur,
                         const gguf_requant_choice *ch, size_t *n, gguf_error *err) {
    for (size_t k = *n; k-- > 0;) {
        if (!ch[cur[k]].pruned)
            continue;
        char name[72];
        name_at(name, sizeof name, f, k);
        if (gguf_tensor_find(f, name) != (int64_t)k)
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "tensor '%s': its name is not unique, so its layer cannot be pruned",
                              name);
        int rc = gguf_tensor_remove(f, name, err);
        if (rc != 0)
            return rc;
        memmove(&jobs[k], &jobs[k + 1], (*n - k - 1) * sizeof *jobs);
        memmove(&cur[k], &cur[k + 1], (*n - k - 1) * sizeof *cur);
        (*n)--;
    }
    return 0;
}

/* Gives the tensors left their new names: through temporary names first, so that a new name
 * that another tensor still has is no obstacle. */
static int rename_layers(gguf_file *f, const size_t *cur, const gguf_requant_choice *ch,
                         size_t n, gguf_error *err) {
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = 0; k < n; k++) {
            char name[72], tmp[32];
            name_at(name, sizeof name, f, k);
            snprintf(tmp, sizeof tmp, "\x01requant.%zu", k);
            const char *to = pass == 0 ? tmp : ch[cur[k]].name;
            if (pass == 1 && strcmp(name, tmp) != 0)
                continue; /* not renamed */
            if (pass == 0 && strcmp(name, ch[cur[k]].name) == 0)
                continue;
            int rc = gguf_tensor_rename(f, name, to, err);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}

int gguf_requant_prepare(gguf_requant **out, gguf_file *f, const gguf_requant_options *opt,
                         gguf_error *err) {
    if (out == NULL || f == NULL || opt == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to requantize");
    gguf_requant_options o;
    int rc = GGUF__OPTIONS_READ(o, gguf_requant_options, GGUF_REQUANT_OPTIONS_INIT, opt, err);
    if (rc != 0)
        return rc;
    opt = &o;
    size_t n = gguf_tensor_count(f);
    gguf_requant_choice *ch = gguf__calloc(n ? n : 1, sizeof *ch);
    size_t *cur = gguf__malloc((n ? n : 1) * sizeof *cur);
    gguf_requant *rq = gguf__requant_new(f, n, opt->threads);
    if (ch == NULL || cur == NULL || rq == NULL) {
        gguf__free(ch);
        gguf__free(cur);
        gguf_requant_free(rq);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    gguf__requant_plan_info info;
    rc = gguf__requant_plan(ch, &info, f, opt, err);
    if (rc == 0)
        rc = check_imatrix(opt->imatrix, err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        cur[ch[i].position] = i; /* llama.cpp's order */
    if (rc == 0)
        rc = write_metadata(f, opt, cur, &info, err);
    gguf__requant_job *jobs = gguf__requant_jobs(rq);
    if (rc == 0)
        rc = make_jobs(jobs, f, ch, opt->imatrix, err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (ch[i].convert)
            rc = gguf_tensor_set_type(f, i, ch[i].type, err);
    }
    if (rc == 0 && !opt->keep_order)
        rc = reorder(f, jobs, cur, n, err);
    else
        for (size_t k = 0; k < n; k++)
            cur[k] = k; /* the source's order */
    size_t left = n;
    if (rc == 0 && opt->n_prune_layers > 0)
        rc = remove_pruned(f, jobs, cur, ch, &left, err);
    if (rc == 0 && opt->n_prune_layers > 0)
        rc = rename_layers(f, cur, ch, left, err);
    /* ggml's writer records each tensor's dims up to its last that is not 1, so llama.cpp's
     * file holds a [512, 1] norm as [512] */
    if (rc == 0)
        gguf__tensor_ggml_dims(f);
    gguf__requant_keep(rq, left);
    if (rc == 0)
        f->must_pack = true;
    gguf__free(cur);
    gguf__free(ch);
    if (rc != 0) {
        gguf_requant_free(rq);
        return rc;
    }
    *out = rq;
    return 0;
}

int gguf_requant_save(gguf_file *f, const char *path, const gguf_requant_options *opt,
                      gguf_progress_fn progress, void *progress_user, gguf_error *err) {
    gguf_requant_options o;
    int rc = GGUF__OPTIONS_READ(o, gguf_requant_options, GGUF_REQUANT_OPTIONS_INIT, opt, err);
    gguf_requant *rq;
    if (rc == 0)
        rc = gguf_requant_prepare(&rq, f, opt != NULL ? &o : NULL, err);
    if (rc != 0)
        return rc;
    gguf_write_options wo = GGUF_WRITE_OPTIONS_INIT;
    wo.layout = GGUF_LAYOUT_PACKED;
    wo.threads = o.threads;
    wo.progress = progress;
    wo.progress_user = progress_user;
    wo.fill = gguf_requant_fill;
    wo.fill_user = rq;
    rc = gguf_file_save(f, path, &wo, err);
    gguf_requant_free(rq);
    return rc;
}
