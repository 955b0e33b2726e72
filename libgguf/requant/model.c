/* The model as far as llama.cpp's quantization rules look at it: the architecture, the number
 * of layers, grouped-query attention, experts, and whether llama.cpp takes it for a 70B model. */
#include "requant/requant.h"

#include <stdio.h>
#include <string.h>

/* How llama.cpp's loader reads a key: a scalar only (get_key: an override counts even when the
 * file lacks the key), or a scalar or a per-layer array (get_key_or_arr: an override counts
 * only for a scalar the file has). */
enum read_as { SCALAR, SCALAR_OR_ARRAY };

/* An integer key (or the first element of an integer array), or def. */
static uint64_t int_key(const gguf_file *f, const gguf_requant_options *opt, const char *arch,
                        const char *suffix, enum read_as how, uint64_t def) {
    char key[160];
    snprintf(key, sizeof key, "%s.%s", arch, suffix);
    int64_t i = gguf_kv_find(f, key);
    const gguf_requant_kv *o = gguf__requant_kv_find(opt, key, GGUF_REQUANT_KV_INT);
    const gguf_value *v = i >= 0 ? gguf_kv_value(f, (size_t)i) : NULL;
    if (o && (how == SCALAR || (v && gguf_value_type(v) != GGUF_VTYPE_ARRAY)))
        return (uint32_t)o->i; /* the loader stores the 64-bit value in a uint32_t */
    if (v == NULL)
        return def;
    gguf_value elem;
    if (gguf_value_type(v) == GGUF_VTYPE_ARRAY) {
        gguf_value_iter it;
        gguf_value_iter_init(&it, v);
        if (!gguf_value_iter_next(&it, &elem))
            return def;
        v = &elem;
    }
    uint64_t u;
    int64_t s;
    int is_signed;
    if (gguf_value_get_int(&u, &s, &is_signed, v, NULL) != 0)
        return def;
    return is_signed ? (s < 0 ? 0 : (uint64_t)s) : u;
}

static uint32_t clamp32(uint64_t v) {
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Architectures whose 70B size llama.cpp recognises by their layer count (and, for llama,
 * grouped-query attention without experts). */
static const struct {
    const char *arch;
    uint32_t n_layer;
    bool needs_gqa; /* head_count != head_count_kv, and not 8 experts */
} models_70b[] = {
    {"llama", 80, true}, {"deci", 80, false}, {"olmo", 80, false},
    {"qwen2", 80, false}, {"jais2", 68, false},
};

void gguf__requant_read_model(gguf__requant_model *m, const gguf_file *f,
                              const gguf_requant_options *opt) {
    memset(m, 0, sizeof *m);
    int64_t i = gguf_kv_find(f, "general.architecture");
    const gguf_requant_kv *o = gguf__requant_kv_find(opt, "general.architecture",
                                                     GGUF_REQUANT_KV_STR);
    const char *s;
    uint64_t len;
    if (o != NULL && strlen(o->s) < sizeof m->arch) {
        strcpy(m->arch, o->s);
    } else if (i >= 0 && gguf_value_get_str(&s, &len, gguf_kv_value(f, (size_t)i), NULL) == 0 &&
               len < sizeof m->arch) {
        memcpy(m->arch, s, (size_t)len);
        m->arch[len] = '\0';
    }
    m->falcon = strcmp(m->arch, "falcon") == 0;
    m->bailingmoe3 = strcmp(m->arch, "bailingmoe3") == 0;
    m->n_layer = clamp32(int_key(f, opt, m->arch, "block_count", SCALAR, 0));
    uint32_t nextn = clamp32(int_key(f, opt, m->arch, "nextn_predict_layers", SCALAR, 0));
    uint32_t n_head =
        clamp32(int_key(f, opt, m->arch, "attention.head_count", SCALAR_OR_ARRAY, 0));
    uint32_t n_head_kv = clamp32(
        int_key(f, opt, m->arch, "attention.head_count_kv", SCALAR_OR_ARRAY, n_head));
    m->n_gqa = n_head_kv ? n_head / n_head_kv : 0;
    m->n_expert = clamp32(int_key(f, opt, m->arch, "expert_count", SCALAR, 0));
    uint32_t n_layer = nextn <= m->n_layer ? m->n_layer - nextn : 0;
    for (size_t k = 0; k < sizeof models_70b / sizeof models_70b[0]; k++) {
        if (strcmp(m->arch, models_70b[k].arch) == 0 && n_layer == models_70b[k].n_layer &&
            (!models_70b[k].needs_gqa || (n_head != n_head_kv && m->n_expert != 8)))
            m->is_70b = true;
    }
}
