/* A model in one line, as llama.cpp's loader prints it: the architecture, the parameter count
 * and the bytes of the weights (llama_model_n_params, llama_model_size: every tensor of the
 * file), the file type (general.file_type, or the loader's guess from its most common tensor
 * type), the training context, the f16 KV cache per token of context and the recurrent state
 * per sequence. */
#include "llama.h"
#include "base/base.h"

#include <string.h>

/* The byte order of std::string, which orders the loader's map of tensors by name. */
static int name_cmp(const char *a, size_t alen, const char *b, size_t blen) {
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c != 0 ? c : (alen > blen) - (alen < blen);
}

/* The loader's guess: it counts the tensors of each type in name order, and the first type to
 * reach the highest count wins. Among the types tied at that count, the winner is the one whose
 * last tensor in name order comes first. */
static uint32_t guess_file_type(const gguf_file *f) {
    uint32_t counts[GGUF_DTYPE_COUNT] = {0};
    size_t last[GGUF_DTYPE_COUNT] = {0};
    for (size_t i = 0; i < gguf_tensor_count(f); i++) {
        gguf_tensor_info a, b;
        gguf_tensor_get(&a, f, i);
        if (a.type >= GGUF_DTYPE_COUNT)
            continue;
        if (counts[a.type]++ > 0) {
            gguf_tensor_get(&b, f, last[a.type]);
            if (name_cmp(a.name, a.name_len, b.name, b.name_len) < 0)
                continue;
        }
        last[a.type] = i;
    }
    uint32_t best = GGUF_DTYPE_F32, n_best = 0;
    for (uint32_t t = 0; t < GGUF_DTYPE_COUNT; t++) {
        if (counts[t] == 0 || counts[t] < n_best)
            continue;
        if (counts[t] == n_best) {
            gguf_tensor_info a, b;
            gguf_tensor_get(&a, f, last[t]);
            gguf_tensor_get(&b, f, last[best]);
            if (name_cmp(a.name, a.name_len, b.name, b.name_len) > 0)
                continue;
        }
        best = t;
        n_best = counts[t];
    }
    return gguf__llama_ftype_guess(best);
}

int gguf_llama_summary_read(gguf_llama_summary *s, const gguf_file *f, gguf_error *err) {
    if (s == NULL || f == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no summary or no file");
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < gguf_tensor_count(f); i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        uint64_t n;
        if (!gguf__tensor_elements(&t, &n) || !gguf__add_u64(&s->n_params, s->n_params, n))
            s->n_params = UINT64_MAX;
        if (t.nbytes == GGUF_NBYTES_UNKNOWN || !gguf__add_u64(&s->weight_bytes, s->weight_bytes,
                                                              t.nbytes))
            s->weight_bytes = UINT64_MAX;
    }
    int64_t k = gguf_kv_find(f, "general.file_type");
    uint64_t u;
    int64_t si;
    int sg;
    if (k >= 0 && gguf_value_type(gguf_kv_value(f, (size_t)k)) == GGUF_VTYPE_U32 &&
        gguf_value_get_int(&u, &si, &sg, gguf_kv_value(f, (size_t)k), NULL) == 0) {
        s->file_type = (uint32_t)u;
    } else {
        s->file_type = guess_file_type(f);
        s->file_type_guessed = 1;
    }
    const gguf__llama_ftype *ft = gguf__llama_ftype_find(s->file_type);
    s->file_type_name = ft != NULL ? ft->name : NULL;

    gguf__llama_hparams *hp = gguf__malloc(sizeof *hp);
    if (hp == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    gguf__llama_hparams_read(hp, f, NULL, NULL, NULL);
    memcpy(s->arch, hp->arch, sizeof s->arch);
    s->n_ctx_train = hp->n_ctx_train;
    gguf__llama_kv_token kv;
    int rc = gguf__llama_kv_per_token(&kv, hp);
    gguf__free(hp);
    if (rc == GGUF_ENOMEM)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    if (rc == 0) {
        s->has_kv = 1;
        s->kv_bytes_token = kv.full;
        s->kv_bytes_token_swa = kv.swa;
        s->n_swa = kv.n_swa;
        s->state_bytes = kv.state;
    }
    return 0;
}

double gguf_llama_summary_bpw(const gguf_llama_summary *s) {
    if (s->n_params == 0 || s->n_params == UINT64_MAX || s->weight_bytes == UINT64_MAX)
        return 0;
    return (double)s->weight_bytes * 8.0 / (double)s->n_params;
}
