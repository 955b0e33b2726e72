/* The hyperparameters llama.cpp's loader reads into llama_hparams, read once for everyone who
 * needs them: the per-layer arrays, the expert layout, MLA, the sliding-window pattern and
 * which layers are recurrent. Written from llama.cpp's llama-model.cpp (load_hparams),
 * llama-hparams.{h,cpp} (set_swa_pattern, set_recr_pattern) and models/<arch>.cpp
 * (load_arch_hparams). A key of the wrong type reads as absent: the checker (llama_check.c)
 * reports it; the reader gives what the loader would use if it went on. */
#include "llama.h"

#include <stdio.h>
#include <string.h>

/* ---- where an architecture's layer kinds come from ---- */

enum swa_when {
    SWA_NEVER = 0,
    SWA_ALWAYS,      /* the pattern applies whatever the file says */
    SWA_IF_FOUND,    /* only when attention.sliding_window is in the file and not 0 */
    SWA_IF_NONZERO,  /* only when the window (the file's or the default) is not 0 */
    SWA_ARRAY,       /* sliding_window_pattern: a period, else one flag per layer */
    SWA_EVERY_LAYER  /* every layer, the nextn ones too, whatever the file says */
};

enum recr_rule {
    RECR_NONE = 0,
    RECR_ALL,           /* llm_arch_is_recurrent: every layer */
    RECR_NO_KV_HEADS,   /* a layer without key/value heads is recurrent */
    RECR_NO_KV_NO_FF,   /* ... and without a feed-forward length (nemotron_h) */
    RECR_INTERVAL,      /* attention.recurrent_layers, else every full_attention_interval-th
                           layer is attention (the others recurrent) */
    RECR_EVERY_LAYER    /* every layer, attention alongside (falcon-h1) */
};

typedef struct layer_kinds {
    const char *arch;
    uint8_t swa;          /* a swa_when */
    uint8_t dense_first;  /* set_swa_pattern(n, true): layer 0 of each period is full */
    uint8_t swa_flags;    /* SWA_ARRAY without a period: a scalar is every layer's flag */
    uint8_t swa_all;      /* SWA_ARRAY: the flags cover the nextn layers too */
    uint32_t period;      /* sliding_window_pattern when absent */
    uint32_t window;      /* sliding_window when absent */
    uint8_t recr;         /* a recr_rule */
    uint32_t interval;    /* RECR_INTERVAL: full_attention_interval when absent */
} layer_kinds;

static const layer_kinds kinds[] = {
    {.arch = "gemma2", .swa = SWA_ALWAYS, .period = 2, .window = 4096},
    {.arch = "gemma3", .swa = SWA_IF_FOUND, .period = 6},
    {.arch = "gemma3n", .swa = SWA_ALWAYS, .period = 5},
    {.arch = "gemma-embedding", .swa = SWA_ALWAYS, .period = 6},
    {.arch = "gpt-oss", .swa = SWA_ALWAYS, .period = 2},
    {.arch = "cohere2", .swa = SWA_ALWAYS, .period = 4},
    {.arch = "exaone-moe", .swa = SWA_ALWAYS, .period = 4},
    {.arch = "llama4", .swa = SWA_IF_NONZERO, .period = 4, .window = 8192},
    {.arch = "olmo2", .swa = SWA_IF_FOUND, .period = 4},
    {.arch = "modern-bert", .swa = SWA_IF_FOUND, .period = 3, .dense_first = 1},
    {.arch = "plamo3", .swa = SWA_IF_FOUND, .period = 8},
    {.arch = "smallthinker", .swa = SWA_IF_FOUND, .period = 4, .dense_first = 1},
    {.arch = "afmoe", .swa = SWA_IF_NONZERO, .period = 4},
    {.arch = "laguna", .swa = SWA_IF_NONZERO, .period = 4, .dense_first = 1},
    {.arch = "cohere2moe", .swa = SWA_ARRAY, .period = 4, .dense_first = 1},
    {.arch = "muse-glimmer", .swa = SWA_ARRAY, .period = 4},
    {.arch = "mellum", .swa = SWA_ARRAY, .period = 4},
    {.arch = "gemma4", .swa = SWA_ARRAY},
    {.arch = "gemma4-assistant", .swa = SWA_ARRAY},
    {.arch = "mimo2", .swa = SWA_ARRAY, .swa_flags = 1},
    {.arch = "dots3note", .swa = SWA_ARRAY},
    {.arch = "granite_swa", .swa = SWA_ARRAY},
    {.arch = "step35", .swa = SWA_ARRAY, .swa_flags = 1, .swa_all = 1},
    {.arch = "deepseek4", .swa = SWA_EVERY_LAYER},
    {.arch = "mamba", .recr = RECR_ALL},
    {.arch = "mamba2", .recr = RECR_ALL},
    {.arch = "rwkv6", .recr = RECR_ALL},
    {.arch = "rwkv6qwen2", .recr = RECR_ALL},
    {.arch = "rwkv7", .recr = RECR_ALL},
    {.arch = "arwkv7", .recr = RECR_ALL},
    {.arch = "jamba", .recr = RECR_NO_KV_HEADS},
    {.arch = "plamo2", .recr = RECR_NO_KV_HEADS},
    {.arch = "granitehybrid", .recr = RECR_NO_KV_HEADS},
    {.arch = "lfm2", .recr = RECR_NO_KV_HEADS},
    {.arch = "lfm2moe", .recr = RECR_NO_KV_HEADS},
    {.arch = "kimi-linear", .recr = RECR_NO_KV_HEADS},
    {.arch = "kimi-k3", .recr = RECR_NO_KV_HEADS},
    {.arch = "bailingmoe3", .recr = RECR_NO_KV_HEADS},
    {.arch = "nemotron_h", .recr = RECR_NO_KV_NO_FF},
    {.arch = "nemotron_h_moe", .recr = RECR_NO_KV_NO_FF},
    {.arch = "falcon-h1", .recr = RECR_EVERY_LAYER},
    {.arch = "qwen3next", .recr = RECR_INTERVAL, .interval = 4},
    {.arch = "qwen35", .recr = RECR_INTERVAL, .interval = 4},
    {.arch = "qwen35moe", .recr = RECR_INTERVAL, .interval = 4},
    {.arch = "qwen4exp", .recr = RECR_INTERVAL, .interval = 4},
    {.arch = "minimax-01", .recr = RECR_INTERVAL, .interval = 8},
};

static const layer_kinds *kinds_find(const char *arch) {
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (strcmp(kinds[i].arch, arch) == 0)
            return &kinds[i];
    }
    return NULL;
}

/* ---- reading keys as the loader does ---- */

typedef struct reader {
    const gguf_file *f;
    const gguf__llama_hparams *hp;
    gguf__llama_override_fn override;
    void *user;
} reader;

static const gguf_value *arch_value(const reader *r, const char *suffix, char *key, size_t size) {
    snprintf(key, size, "%s.%s", r->hp->arch, suffix);
    int64_t i = gguf_kv_find(r->f, key);
    return i < 0 ? NULL : gguf_kv_value(r->f, (size_t)i);
}

static int int_of(uint32_t *out, const gguf_value *v) {
    uint64_t u;
    int64_t s;
    int is_signed;
    if (gguf_value_get_int(&u, &s, &is_signed, v, NULL) != 0)
        return 1;
    if (is_signed)
        *out = s < 0 ? 0 : s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
    else
        *out = u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
    return 0;
}

/* get_key: an unsigned scalar; an override counts even when the file lacks the key. Returns 1
 * when it was found. */
static int get_u32(uint32_t *out, const reader *r, const char *suffix) {
    char key[160];
    const gguf_value *v = arch_value(r, suffix, key, sizeof key);
    int64_t o;
    if (r->override != NULL && r->override(r->user, key, &o)) {
        *out = o < 0 ? 0 : o > UINT32_MAX ? UINT32_MAX : (uint32_t)o;
        return 1;
    }
    if (v == NULL || gguf_value_type(v) == GGUF_VTYPE_ARRAY || gguf_value_type(v) == GGUF_VTYPE_BOOL)
        return 0;
    return int_of(out, v) == 0;
}

/* get_key_or_arr: a scalar for every layer (an override counts only for a scalar the file has),
 * or an array of one element per layer (`n` of them). Leaves out[] as it is when absent or
 * unusable. Returns 1 when found. */
static int get_per_layer(uint32_t *out, const reader *r, const char *suffix, uint32_t n) {
    char key[160];
    const gguf_value *v = arch_value(r, suffix, key, sizeof key);
    if (v == NULL || n > GGUF__LLAMA_MAX_LAYERS)
        return 0;
    if (gguf_value_type(v) != GGUF_VTYPE_ARRAY) {
        uint32_t x;
        int64_t o;
        if (r->override != NULL && r->override(r->user, key, &o))
            x = o < 0 ? 0 : o > UINT32_MAX ? UINT32_MAX : (uint32_t)o;
        else if (gguf_value_type(v) == GGUF_VTYPE_BOOL || int_of(&x, v) != 0)
            return 0;
        for (uint32_t il = 0; il < n; il++)
            out[il] = x;
        return 1;
    }
    uint32_t et = gguf_value_elem_type(v);
    if (gguf_value_count(v) != n ||
        !(et == GGUF_VTYPE_U32 || et == GGUF_VTYPE_I32 || et == GGUF_VTYPE_BOOL))
        return 0;
    gguf_value_iter it;
    gguf_value e;
    gguf_value_iter_init(&it, v);
    for (uint32_t il = 0; gguf_value_iter_next(&it, &e) && il < n; il++) {
        uint32_t x = 0;
        if (et == GGUF_VTYPE_BOOL) {
            uint8_t b = 0;
            gguf_value_get_bool_byte(&b, &e, NULL);
            x = b != 0;
        } else {
            int_of(&x, &e);
        }
        out[il] = x;
    }
    return 1;
}

/* get_arr into a per-layer array: an array of integers (or booleans) of at most
 * GGUF__LLAMA_MAX_LAYERS elements, copied from the start. Leaves out[] as it is otherwise. */
static void read_array(uint32_t *out, const reader *r, const char *suffix) {
    char key[160];
    const gguf_value *v = arch_value(r, suffix, key, sizeof key);
    if (v == NULL || gguf_value_type(v) != GGUF_VTYPE_ARRAY ||
        gguf_value_count(v) > GGUF__LLAMA_MAX_LAYERS)
        return;
    uint32_t et = gguf_value_elem_type(v);
    if (!(et == GGUF_VTYPE_U32 || et == GGUF_VTYPE_I32 || et == GGUF_VTYPE_BOOL))
        return;
    gguf_value_iter it;
    gguf_value e;
    gguf_value_iter_init(&it, v);
    for (uint32_t il = 0; gguf_value_iter_next(&it, &e); il++) {
        uint32_t x = 0;
        if (et == GGUF_VTYPE_BOOL) {
            uint8_t b = 0;
            gguf_value_get_bool_byte(&b, &e, NULL);
            x = b != 0;
        } else {
            /* as the loader copies them: an INT32's bits */
            uint64_t u;
            int64_t sv;
            int is_signed;
            if (gguf_value_get_int(&u, &sv, &is_signed, &e, NULL) == 0)
                x = is_signed ? (uint32_t)sv : (uint32_t)u;
        }
        out[il] = x;
    }
}

/* The layers the arrays hold (llama.cpp refuses a model with more). */
static uint32_t layers(const gguf__llama_hparams *hp) {
    return hp->n_layer_all < GGUF__LLAMA_MAX_LAYERS ? hp->n_layer_all : GGUF__LLAMA_MAX_LAYERS;
}

/* set_swa_pattern / set_recr_pattern: with period n, layer il is of the kind unless it is the
 * period's last layer (or, dense first, its first); n == 0 makes every layer of the kind. */
static void set_pattern(uint8_t *kind, const gguf__llama_hparams *hp, uint32_t n, int dense_first) {
    for (uint32_t il = 0; il < layers(hp); il++) {
        if (il >= hp->n_layer)
            kind[il] = 0;
        else if (dense_first)
            kind[il] = n == 0 || il % n != 0;
        else
            kind[il] = n == 0 || il % n < n - 1;
    }
}

static void read_swa(gguf__llama_hparams *hp, const reader *r, const layer_kinds *k) {
    int found = get_u32(&hp->n_swa, r, "attention.sliding_window");
    if (!found)
        hp->n_swa = k ? k->window : 0;
    if (k == NULL || k->swa == SWA_NEVER)
        return;
    if (k->swa == SWA_EVERY_LAYER) {
        for (uint32_t il = 0; il < layers(hp); il++)
            hp->is_swa[il] = 1;
        return;
    }
    if ((k->swa == SWA_IF_FOUND && (!found || hp->n_swa == 0)) ||
        (k->swa == SWA_IF_NONZERO && hp->n_swa == 0))
        return;
    char key[160];
    const gguf_value *v = arch_value(r, "attention.sliding_window_pattern", key, sizeof key);
    if (v != NULL && (gguf_value_type(v) == GGUF_VTYPE_ARRAY || k->swa_flags)) {
        uint32_t flags[GGUF__LLAMA_MAX_LAYERS] = {0};
        uint32_t n = k->swa_all ? layers(hp) : hp->n_layer;
        if (k->swa == SWA_ARRAY && get_per_layer(flags, r, "attention.sliding_window_pattern", n)) {
            for (uint32_t il = 0; il < n; il++)
                hp->is_swa[il] = flags[il] != 0;
        }
        hp->swa_period = 0;
        return;
    }
    uint32_t period = k->period;
    get_u32(&period, r, "attention.sliding_window_pattern");
    if (k->swa == SWA_ARRAY && period == 0)
        return; /* an array-only architecture without the array: no sliding layer */
    hp->swa_period = period;
    set_pattern(hp->is_swa, hp, period, k->dense_first);
}

/* attention.indexer.types: the layers with a full sparse-attention indexer (the others reuse
 * the last one's picks). dots3note: get_arr, an array of any length up to the layer limit, of
 * BOOL, U32 or I32. glm-dsa: get_key_or_arr over the layers without the nextn ones, and without
 * the key GLM 5 and 5.1 (a training context under 2^20) index every layer, GLM 5.2 layers 0 and
 * 1 and then every fourth of its 78. */
static void read_indexer_types(gguf__llama_hparams *hp, const reader *r) {
    uint32_t types[GGUF__LLAMA_MAX_LAYERS] = {0};
    if (strcmp(hp->arch, "glm-dsa") == 0) {
        for (uint32_t il = 0; il < GGUF__LLAMA_MAX_LAYERS; il++)
            types[il] = hp->n_ctx_train < (1u << 20) || il < 2 || (il < 78 && (il - 2) % 4 == 0);
        get_per_layer(types, r, "attention.indexer.types", hp->n_layer);
    } else {
        read_array(types, r, "attention.indexer.types");
    }
    for (uint32_t il = 0; il < GGUF__LLAMA_MAX_LAYERS; il++)
        hp->is_indexer_full[il] = types[il] != 0;
}

/* qwen4exp's n-gram embeddings (PLE) in the one layer ple.layers names: their depthwise
 * convolution, dilated by ple.ngram_size, keeps (ple.conv_kernel-1)*ple.ngram_size past inputs
 * of every hyper-connection stream (hyper_connection.count of the embedding), when there are
 * heads ((ple.ngram_size-1)*ple.heads_per_ngram) and a kernel (saturated at UINT64_MAX). */
static void read_ple(gguf__llama_hparams *hp, const reader *r) {
    char key[160];
    const gguf_value *v = arch_value(r, "ple.layers", key, sizeof key);
    if (v == NULL || gguf_value_type(v) != GGUF_VTYPE_ARRAY || gguf_value_count(v) != 1)
        return;
    uint32_t layer[GGUF__LLAMA_MAX_LAYERS] = {0};
    read_array(layer, r, "ple.layers");
    uint32_t ngram = 0, per_ngram = 0, kernel = 0, hc = 0;
    get_u32(&ngram, r, "ple.ngram_size");
    get_u32(&per_ngram, r, "ple.heads_per_ngram");
    get_u32(&kernel, r, "ple.conv_kernel");
    get_u32(&hc, r, "hyper_connection.count");
    if (ngram < 2 || per_ngram == 0 || kernel == 0)
        return;
    uint64_t taps = (uint64_t)(kernel - 1) * ngram, width = (uint64_t)hc * hp->n_embd;
    hp->ple_layer = layer[0];
    hp->ple_conv_state = width != 0 && taps > UINT64_MAX / width ? UINT64_MAX : taps * width;
}

static void read_recurrent(gguf__llama_hparams *hp, const reader *r, const layer_kinds *k) {
    int rule = k ? k->recr : RECR_NONE;
    hp->is_recurrent_model = rule == RECR_ALL;
    hp->is_hybrid = rule != RECR_NONE && rule != RECR_ALL;
    get_u32(&hp->ssm_d_conv, r, "ssm.conv_kernel");
    get_u32(&hp->ssm_d_inner, r, "ssm.inner_size");
    get_u32(&hp->ssm_d_state, r, "ssm.state_size");
    get_u32(&hp->ssm_dt_rank, r, "ssm.time_step_rank");
    get_u32(&hp->ssm_n_group, r, "ssm.group_count");
    get_u32(&hp->wkv_head_size, r, "wkv.head_size");
    hp->token_shift_count = 2;
    get_u32(&hp->token_shift_count, r, "token_shift_count");
    get_u32(&hp->shortconv_l_cache, r, "shortconv.l_cache");
    get_u32(&hp->kda_head_dim, r, "kda.head_dim");
    for (uint32_t il = 0; il < layers(hp); il++) {
        switch (rule) {
        case RECR_ALL: hp->is_recr[il] = 1; break;
        case RECR_EVERY_LAYER: hp->is_recr[il] = 1; break;
        case RECR_NO_KV_HEADS: hp->is_recr[il] = hp->n_head_kv[il] == 0; break;
        case RECR_NO_KV_NO_FF:
            hp->is_recr[il] = il < hp->n_layer && hp->n_head_kv[il] == 0 && hp->n_ff[il] == 0;
            break;
        default: hp->is_recr[il] = 0; break;
        }
    }
    if (rule == RECR_INTERVAL) {
        uint32_t flags[GGUF__LLAMA_MAX_LAYERS] = {0};
        if (get_per_layer(flags, r, "attention.recurrent_layers", hp->n_layer_all)) {
            for (uint32_t il = 0; il < layers(hp); il++)
                hp->is_recr[il] = flags[il] != 0;
        } else {
            uint32_t n = k->interval;
            get_u32(&n, r, "full_attention_interval");
            for (uint32_t il = 0; il < layers(hp); il++)
                hp->is_recr[il] = il < hp->n_layer && n != 0 && (il + 1) % n != 0;
        }
    }
}

/* Layers the loader adds after reading the file's: nanbeige runs its layers num_loops times
 * (each repeat a layer of the same sizes), graniteswitch appends a router layer of one head
 * (counted as a next-token prediction layer so that it does not run as a block). */
static void extra_layers(gguf__llama_hparams *hp, const reader *r) {
    if (strcmp(hp->arch, "nanbeige") == 0) {
        uint32_t loops = 1, phys = hp->n_layer;
        get_u32(&loops, r, "num_loops");
        if (loops <= 1 || phys == 0 || (uint64_t)phys * loops > GGUF__LLAMA_MAX_LAYERS)
            return; /* one pass, or a count llama.cpp refuses */
        for (uint32_t dst = phys; dst < phys * loops; dst++) {
            uint32_t src = dst % phys;
            hp->n_head[dst] = hp->n_head[src];
            hp->n_head_kv[dst] = hp->n_head_kv[src];
            hp->n_ff[dst] = hp->n_ff[src];
            hp->is_swa[dst] = hp->is_swa[src];
            hp->is_recr[dst] = hp->is_recr[src];
        }
        hp->n_layer_all = phys * loops;
        hp->n_layer = hp->n_layer_all - hp->n_layer_nextn;
    } else if (strcmp(hp->arch, "graniteswitch") == 0) {
        uint32_t real = hp->n_layer;
        if (real >= GGUF__LLAMA_MAX_LAYERS)
            return; /* llama.cpp refuses the model */
        hp->n_layer_all = real + 1;
        hp->n_layer_nextn = 1;
        hp->n_layer = real;
        hp->n_head[real] = hp->n_head_kv[real] = 1;
        hp->n_ff[real] = 0;
    }
}

/* Layers that read the cache of the last earlier layer of their kind (sliding or full) instead
 * of keeping one: gemma3n's from layer 20 on, gemma4's last attention.shared_kv_layers. */
static void read_kv_reuse(gguf__llama_hparams *hp, const reader *r) {
    hp->n_layer_kv_from_start = hp->n_layer_all;
    if (strcmp(hp->arch, "gemma3n") == 0 && hp->n_layer_all > 20) {
        hp->n_layer_kv_from_start = 20;
    } else if (strcmp(hp->arch, "gemma4") == 0) {
        uint32_t shared = 0;
        get_u32(&shared, r, "attention.shared_kv_layers");
        if (shared <= hp->n_layer_all)
            hp->n_layer_kv_from_start = hp->n_layer_all - shared;
    }
}

int gguf__llama_arch_bool(const gguf_file *f, const char *arch, const char *suffix, int dflt) {
    char key[160];
    snprintf(key, sizeof key, "%s.%s", arch, suffix);
    int64_t i = gguf_kv_find(f, key);
    uint8_t b;
    if (i < 0 || gguf_value_get_bool_byte(&b, gguf_kv_value(f, (size_t)i), NULL) != 0)
        return dflt;
    return b != 0;
}

void gguf__llama_hparams_read(gguf__llama_hparams *hp, const gguf_file *f, const char *arch,
                              gguf__llama_override_fn override, void *user) {
    memset(hp, 0, sizeof *hp);
    if (arch != NULL && strlen(arch) < sizeof hp->arch) {
        strcpy(hp->arch, arch);
    } else if (arch == NULL) {
        int64_t i = gguf_kv_find(f, "general.architecture");
        const char *s;
        uint64_t len;
        if (i >= 0 && gguf_value_get_str(&s, &len, gguf_kv_value(f, (size_t)i), NULL) == 0 &&
            len < sizeof hp->arch)
            memcpy(hp->arch, s, (size_t)len);
    }
    reader r = {f, hp, override, user};
    get_u32(&hp->n_ctx_train, &r, "context_length");
    get_u32(&hp->n_embd, &r, "embedding_length");
    get_u32(&hp->n_layer_all, &r, "block_count");
    get_u32(&hp->n_layer_nextn, &r, "nextn_predict_layers");
    hp->n_layer = hp->n_layer_nextn <= hp->n_layer_all ? hp->n_layer_all - hp->n_layer_nextn : 0;
    uint32_t n = hp->n_layer_all;
    if (hp->n_layer_nextn > 0 && strcmp(hp->arch, "deepseek4") == 0) {
        /* deepseek4's loader counts no nextn layers unless the first one's eh_proj is there:
         * the last layers are then plain ones */
        char probe[64];
        snprintf(probe, sizeof probe, "blk.%u.nextn.eh_proj.weight", hp->n_layer);
        if (gguf_tensor_find(f, probe) < 0) {
            hp->n_layer_nextn = 0;
            hp->n_layer = hp->n_layer_all;
        }
    }

    get_per_layer(hp->n_ff, &r, "feed_forward_length", n);
    get_per_layer(hp->n_head, &r, "attention.head_count", n);
    memcpy(hp->n_head_kv, hp->n_head, sizeof hp->n_head); /* n_head_kv defaults to n_head */
    get_per_layer(hp->n_head_kv, &r, "attention.head_count_kv", n);
    if (hp->n_head[0] > 0) {
        hp->n_embd_head_k = hp->n_embd_head_v = hp->n_embd / hp->n_head[0];
        get_u32(&hp->n_embd_head_k, &r, "attention.key_length");
        get_u32(&hp->n_embd_head_v, &r, "attention.value_length");
    }
    hp->n_embd_head_k_swa = hp->n_embd_head_k;
    hp->n_embd_head_v_swa = hp->n_embd_head_v;
    get_u32(&hp->n_embd_head_k_swa, &r, "attention.key_length_swa");
    get_u32(&hp->n_embd_head_v_swa, &r, "attention.value_length_swa");

    get_u32(&hp->n_expert, &r, "expert_count");
    get_per_layer(hp->n_expert_used, &r, "expert_used_count", n);
    get_per_layer(hp->n_ff_exp, &r, "expert_feed_forward_length", n);
    get_u32(&hp->n_ff_shexp, &r, "expert_shared_feed_forward_length");
    get_u32(&hp->n_expert_shared, &r, "expert_shared_count");
    get_u32(&hp->n_layer_dense_lead, &r, "leading_dense_block_count");
    get_u32(&hp->n_expert_groups, &r, "expert_group_count");
    get_u32(&hp->n_group_used, &r, "expert_group_used_count");
    if (!get_u32(&hp->moe_every_n_layers, &r, "moe_every_n_layers"))
        get_u32(&hp->moe_every_n_layers, &r, "interleave_moe_layer_step");

    get_u32(&hp->n_lora_q, &r, "attention.q_lora_rank");
    get_u32(&hp->n_lora_kv, &r, "attention.kv_lora_rank");
    get_u32(&hp->n_embd_head_k_mla, &r, "attention.key_length_mla");
    get_u32(&hp->n_embd_head_v_mla, &r, "attention.value_length_mla");

    get_u32(&hp->indexer_head_size, &r, "attention.indexer.key_length");
    get_u32(&hp->indexer_block_size, &r, "attention.indexer.block_size");
    get_u32(&hp->indexer_n_head, &r, "attention.indexer.head_count");
    get_u32(&hp->indexer_top_k, &r, "attention.indexer.top_k");
    get_u32(&hp->hc_count, &r, "hyper_connection.count");

    read_array(hp->compress_ratio, &r, "attention.compress_ratios");
    if (strcmp(hp->arch, "qwen4exp") == 0) /* get_key_or_arr: a scalar is every layer's */
        get_per_layer(hp->compress_ratio, &r, "attention.compress_ratios", hp->n_layer_all);

    const layer_kinds *k = kinds_find(hp->arch);
    read_swa(hp, &r, k);
    read_recurrent(hp, &r, k);
    read_indexer_types(hp, &r);
    read_ple(hp, &r);
    extra_layers(hp, &r);
    read_kv_reuse(hp, &r);
}
