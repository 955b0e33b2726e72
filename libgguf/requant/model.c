/* The model as far as llama.cpp's quantization rules look at it: the architecture, the number
 * of layers, grouped-query attention, experts, and whether llama.cpp takes it for a 70B model. */
#include "requant/requant.h"

#include <stdio.h>
#include <string.h>

/* --override-kv's integer overrides, as llama.cpp's loader sees them. */
static int int_override(void *user, const char *key, int64_t *v) {
    const gguf_requant_kv *o = gguf__requant_kv_find(user, key, GGUF_REQUANT_KV_INT);
    if (o == NULL)
        return 0;
    *v = (uint32_t)o->i; /* the loader stores the 64-bit value in a uint32_t */
    return 1;
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
    gguf__llama_hparams hp; /* 13 KiB */
    gguf__llama_hparams_read(&hp, f, m->arch, int_override, (void *)opt);
    m->n_layer = hp.n_layer_all;
    uint32_t n_head = hp.n_head[0], n_head_kv = hp.n_head_kv[0];
    m->n_gqa = n_head_kv ? n_head / n_head_kv : 0;
    m->n_expert = hp.n_expert;
    uint32_t n_layer = hp.n_layer;
    for (size_t k = 0; k < sizeof models_70b / sizeof models_70b[0]; k++) {
        if (strcmp(m->arch, models_70b[k].arch) == 0 && n_layer == models_70b[k].n_layer &&
            (!models_70b[k].needs_gqa || (n_head != n_head_kv && m->n_expert != 8)))
            m->is_70b = true;
    }
}
