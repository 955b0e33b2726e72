/* Requantization the way llama.cpp's quantizer (llama_model_quantize) does it: which type each
 * tensor gets for a preset, the metadata it writes, and the data, dequantized to f32 and
 * quantized again row by row while the file is written (the write's fill callback), on a pool of
 * threads, with memory bounded by a few rows per thread.
 *
 * The per-tensor policy is data: the tables below, read from llama.cpp's rules (not its code).
 *
 *   1. Which tensors may change type at all (allowed_tensor): names ending in "weight" with at
 *      least two dimensions, except norms, expert gates, positional and token-type embeddings
 *      and a list of small special tensors; none with COPY; not output.weight when it is left.
 *   2. Explicit choices first: --token-embedding-type, --output-tensor-type.
 *   3. A preset whose default type is not quantized (F32, F16, BF16) gives that type as is.
 *   4. Else a --tensor-type pattern that matches the name decides; else, unless --pure, the
 *      mixture: the first *group* (table `groups`) whose categories, presets and guard fit the
 *      tensor is evaluated alone: its rules are tried in order and the first that fits gives
 *      the type (a KEEP rule stops with the preset's default); then its post rules each apply
 *      in turn; then its counter advances (llama.cpp counts attn_v-like and ffn tensors in its
 *      tensor order, and some rules depend on that count).
 *   5. Finally a type whose block does not divide the row length falls back to another
 *      (table `fallback_of`), and to F16 when that does not fit either.
 *
 * Tensors are considered in llama.cpp's order: by layer number ("blk.N."), tensors without one
 * first, then by name; the output is written in that order too unless the caller keeps the
 * source's.
 */
#define _GNU_SOURCE
#include "commit/commit.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h> /* isfinite */
#include <pthread.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define QNT_VERSION 2 /* ggml's GGML_QNT_VERSION, written as general.quantization_version */
#define FTYPE_GUESSED 1024u /* llama.cpp marks a file type it guessed from the tensors */

/* ------------------------------------------------------------------------------------------ */
/* Presets                                                                                     */

#define NO_TYPE UINT32_MAX

typedef struct preset {
    const char *name;  /* as llama-quantize spells it */
    uint32_t dtype;    /* the default tensor type of the preset */
    const char *about;
} preset;

/* Indexed by llama_ftype (general.file_type). */
static const preset presets[GGUF_REQUANT_FTYPE_COUNT] = {
    [GGUF_REQUANT_F32] = {"F32", GGUF_DTYPE_F32, "32-bit floats"},
    [GGUF_REQUANT_F16] = {"F16", GGUF_DTYPE_F16, "16-bit floats"},
    [GGUF_REQUANT_Q4_0] = {"Q4_0", GGUF_DTYPE_Q4_0, "4.5 bits per weight"},
    [GGUF_REQUANT_Q4_1] = {"Q4_1", GGUF_DTYPE_Q4_1, "5.0 bits per weight"},
    [GGUF_REQUANT_Q8_0] = {"Q8_0", GGUF_DTYPE_Q8_0, "8.5 bits per weight"},
    [GGUF_REQUANT_Q5_0] = {"Q5_0", GGUF_DTYPE_Q5_0, "5.5 bits per weight"},
    [GGUF_REQUANT_Q5_1] = {"Q5_1", GGUF_DTYPE_Q5_1, "6.0 bits per weight"},
    [GGUF_REQUANT_Q2_K] = {"Q2_K", GGUF_DTYPE_Q2_K, "k-quant mixture around Q2_K"},
    [GGUF_REQUANT_Q3_K_S] = {"Q3_K_S", GGUF_DTYPE_Q3_K, "Q3_K everywhere but the output"},
    [GGUF_REQUANT_Q3_K_M] = {"Q3_K_M", GGUF_DTYPE_Q3_K, "Q3_K with attn_v, ffn_down at Q4_K/Q5_K"},
    [GGUF_REQUANT_Q3_K_L] = {"Q3_K_L", GGUF_DTYPE_Q3_K, "Q3_K with attn_v, ffn_down, attn_output at Q5_K"},
    [GGUF_REQUANT_Q4_K_S] = {"Q4_K_S", GGUF_DTYPE_Q4_K, "Q4_K with a few Q5_K layers"},
    [GGUF_REQUANT_Q4_K_M] = {"Q4_K_M", GGUF_DTYPE_Q4_K, "Q4_K with half of attn_v, ffn_down at Q6_K"},
    [GGUF_REQUANT_Q5_K_S] = {"Q5_K_S", GGUF_DTYPE_Q5_K, "Q5_K everywhere but the output"},
    [GGUF_REQUANT_Q5_K_M] = {"Q5_K_M", GGUF_DTYPE_Q5_K, "Q5_K with half of attn_v, ffn_down at Q6_K"},
    [GGUF_REQUANT_Q6_K] = {"Q6_K", GGUF_DTYPE_Q6_K, "6.56 bits per weight"},
    [GGUF_REQUANT_IQ2_XXS] = {"IQ2_XXS", GGUF_DTYPE_IQ2_XXS, "2.06 bpw (needs an imatrix)"},
    [GGUF_REQUANT_IQ2_XS] = {"IQ2_XS", GGUF_DTYPE_IQ2_XS, "2.31 bpw (needs an imatrix)"},
    [GGUF_REQUANT_Q2_K_S] = {"Q2_K_S", GGUF_DTYPE_Q2_K, "Q2_K mixture (needs an imatrix)"},
    [GGUF_REQUANT_IQ3_XS] = {"IQ3_XS", GGUF_DTYPE_IQ3_S, "3.3 bpw mixture"},
    [GGUF_REQUANT_IQ3_XXS] = {"IQ3_XXS", GGUF_DTYPE_IQ3_XXS, "3.06 bpw (needs an imatrix)"},
    [GGUF_REQUANT_IQ1_S] = {"IQ1_S", GGUF_DTYPE_IQ1_S, "1.56 bpw (needs an imatrix)"},
    [GGUF_REQUANT_IQ4_NL] = {"IQ4_NL", GGUF_DTYPE_IQ4_NL, "4.50 bpw non-linear"},
    [GGUF_REQUANT_IQ3_S] = {"IQ3_S", GGUF_DTYPE_IQ3_S, "3.44 bpw"},
    [GGUF_REQUANT_IQ3_M] = {"IQ3_M", GGUF_DTYPE_IQ3_S, "3.66 bpw mixture"},
    [GGUF_REQUANT_IQ2_S] = {"IQ2_S", GGUF_DTYPE_IQ2_XS, "2.5 bpw mixture (needs an imatrix)"},
    [GGUF_REQUANT_IQ2_M] = {"IQ2_M", GGUF_DTYPE_IQ2_S, "2.7 bpw mixture (needs an imatrix)"},
    [GGUF_REQUANT_IQ4_XS] = {"IQ4_XS", GGUF_DTYPE_IQ4_XS, "4.25 bpw non-linear"},
    [GGUF_REQUANT_IQ1_M] = {"IQ1_M", GGUF_DTYPE_IQ1_M, "1.75 bpw (needs an imatrix)"},
    [GGUF_REQUANT_BF16] = {"BF16", GGUF_DTYPE_BF16, "bfloat16"},
    [GGUF_REQUANT_TQ1_0] = {"TQ1_0", GGUF_DTYPE_TQ1_0, "1.69 bpw ternary"},
    [GGUF_REQUANT_TQ2_0] = {"TQ2_0", GGUF_DTYPE_TQ2_0, "2.06 bpw ternary"},
    [GGUF_REQUANT_MXFP4_MOE] = {"MXFP4_MOE", GGUF_DTYPE_MXFP4, "MXFP4 experts, Q8_0 elsewhere"},
    [GGUF_REQUANT_NVFP4] = {"NVFP4", GGUF_DTYPE_NVFP4, "NVFP4"},
    [GGUF_REQUANT_Q1_0] = {"Q1_0", GGUF_DTYPE_Q1_0, "1-bit"},
    [GGUF_REQUANT_Q2_0] = {"Q2_0", GGUF_DTYPE_Q2_0, "2-bit"},
};
_Static_assert(sizeof presets / sizeof presets[0] == GGUF_REQUANT_FTYPE_COUNT, "one per ftype");
_Static_assert(GGUF_REQUANT_FTYPE_COUNT <= 64, "presets are bits of a uint64_t");

/* The file type llama.cpp's loader guesses from a file's most common tensor type; it is also
 * the preset a plain type name stands for. 0 where there is none. */
static const uint8_t ftype_of_dtype[GGUF_DTYPE_COUNT] = {
    [GGUF_DTYPE_F32] = GGUF_REQUANT_F32, [GGUF_DTYPE_F16] = GGUF_REQUANT_F16,
    [GGUF_DTYPE_BF16] = GGUF_REQUANT_BF16, [GGUF_DTYPE_Q4_0] = GGUF_REQUANT_Q4_0,
    [GGUF_DTYPE_Q4_1] = GGUF_REQUANT_Q4_1, [GGUF_DTYPE_Q5_0] = GGUF_REQUANT_Q5_0,
    [GGUF_DTYPE_Q5_1] = GGUF_REQUANT_Q5_1, [GGUF_DTYPE_Q8_0] = GGUF_REQUANT_Q8_0,
    [GGUF_DTYPE_Q2_K] = GGUF_REQUANT_Q2_K, [GGUF_DTYPE_Q3_K] = GGUF_REQUANT_Q3_K_M,
    [GGUF_DTYPE_Q4_K] = GGUF_REQUANT_Q4_K_M, [GGUF_DTYPE_Q5_K] = GGUF_REQUANT_Q5_K_M,
    [GGUF_DTYPE_Q6_K] = GGUF_REQUANT_Q6_K, [GGUF_DTYPE_TQ1_0] = GGUF_REQUANT_TQ1_0,
    [GGUF_DTYPE_TQ2_0] = GGUF_REQUANT_TQ2_0, [GGUF_DTYPE_IQ2_XXS] = GGUF_REQUANT_IQ2_XXS,
    [GGUF_DTYPE_IQ2_XS] = GGUF_REQUANT_IQ2_XS, [GGUF_DTYPE_IQ2_S] = GGUF_REQUANT_IQ2_S,
    [GGUF_DTYPE_IQ3_XXS] = GGUF_REQUANT_IQ3_XXS, [GGUF_DTYPE_IQ1_S] = GGUF_REQUANT_IQ1_S,
    [GGUF_DTYPE_IQ1_M] = GGUF_REQUANT_IQ1_M, [GGUF_DTYPE_IQ4_NL] = GGUF_REQUANT_IQ4_NL,
    [GGUF_DTYPE_IQ4_XS] = GGUF_REQUANT_IQ4_XS, [GGUF_DTYPE_IQ3_S] = GGUF_REQUANT_IQ3_S,
    [GGUF_DTYPE_NVFP4] = GGUF_REQUANT_NVFP4, [GGUF_DTYPE_Q1_0] = GGUF_REQUANT_Q1_0,
    [GGUF_DTYPE_Q2_0] = GGUF_REQUANT_Q2_0,
};

const char *gguf_requant_ftype_name(uint32_t ftype) {
    return ftype < GGUF_REQUANT_FTYPE_COUNT ? presets[ftype].name : NULL;
}

int gguf_requant_ftype_dtype(uint32_t ftype) {
    return ftype < GGUF_REQUANT_FTYPE_COUNT && presets[ftype].name ? (int)presets[ftype].dtype
                                                                   : -1;
}

const char *gguf_requant_ftype_about(uint32_t ftype) {
    return ftype < GGUF_REQUANT_FTYPE_COUNT ? presets[ftype].about : NULL;
}

static int name_eq_ci(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    }
    return *a == *b;
}

int gguf_requant_parse_type(gguf_requant_options *opt, const char *name, gguf_error *err) {
    if (opt == NULL || name == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no type given");
    if (name_eq_ci(name, "COPY")) {
        opt->ftype = GGUF_REQUANT_F32;
        opt->copy = 1;
        return 0;
    }
    for (uint32_t i = 0; i < GGUF_REQUANT_FTYPE_COUNT; i++) {
        if (presets[i].name && name_eq_ci(name, presets[i].name)) {
            opt->ftype = i;
            opt->copy = 0;
            return 0;
        }
    }
    int t = gguf_dtype_parse(name);
    if (t >= 0 && (t == GGUF_DTYPE_F32 || ftype_of_dtype[t] != 0)) {
        opt->ftype = ftype_of_dtype[t];
        opt->copy = 0;
        opt->pure = 1;
        return 0;
    }
    return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                      t >= 0 ? "'%s' is a tensor type no preset stores (no file type has it)"
                             : "unknown type or preset '%s'",
                      name);
}

/* ------------------------------------------------------------------------------------------ */
/* Tensor categories                                                                           */

enum cat {
    CAT_OTHER,
    CAT_TOKEN_EMBD,      /* token_embd.weight, per_layer_token_embd.weight */
    CAT_TOKEN_EMBD_TIED, /* the same, in a model without output.weight (tied to the output) */
    CAT_OUTPUT,          /* output.weight */
    CAT_ATTN_Q,
    CAT_ATTN_K,
    CAT_ATTN_V,
    CAT_ATTN_QKV,
    CAT_ATTN_KV_B,
    CAT_ATTN_OUTPUT,
    CAT_FFN_UP,
    CAT_FFN_GATE,
    CAT_FFN_DOWN,
    CAT_COUNT
};

#define CB(c) (1u << (c))
#define CATS_ALL ((1u << CAT_COUNT) - 1)
#define CATS_ATTN_V_LIKE (CB(CAT_ATTN_V) | CB(CAT_ATTN_QKV) | CB(CAT_ATTN_KV_B))

/* Name -> category: the first row whose text the name equals (exact) or contains wins. */
static const struct {
    const char *text;
    bool exact;
    uint8_t cat;
} cat_rules[] = {
    {"output.weight", true, CAT_OUTPUT},
    {"token_embd.weight", true, CAT_TOKEN_EMBD},
    {"per_layer_token_embd.weight", true, CAT_TOKEN_EMBD},
    {"attn_qkv.weight", false, CAT_ATTN_QKV},
    {"attn_kv_b.weight", false, CAT_ATTN_KV_B},
    {"attn_v.weight", false, CAT_ATTN_V},
    {"attn_k.weight", false, CAT_ATTN_K},
    {"attn_q.weight", false, CAT_ATTN_Q},
    {"attn_output.weight", false, CAT_ATTN_OUTPUT},
    {"ffn_up", false, CAT_FFN_UP},
    {"ffn_gate", false, CAT_FFN_GATE},
    {"ffn_down", false, CAT_FFN_DOWN},
};

static enum cat category_of(const char *name) {
    for (size_t i = 0; i < sizeof cat_rules / sizeof cat_rules[0]; i++) {
        if (cat_rules[i].exact ? strcmp(name, cat_rules[i].text) == 0
                               : strstr(name, cat_rules[i].text) != NULL)
            return (enum cat)cat_rules[i].cat;
    }
    return CAT_OTHER;
}

/* Tensors that never change type although their names end in "weight": the name contains
 * (or, exact, equals) one of these. */
static const struct {
    const char *text;
    bool exact;
} keep_rules[] = {
    {"_norm.weight", false},           /* norms */
    {"ffn_gate_inp.weight", false},    /* expert gates */
    {"ffn_gate_tid2eid.weight", false}, /* i32 token-to-expert routing table */
    {"altup", false},                  /* tiny */
    {"laurel", false},
    {"per_layer_model_proj", false},
    {"position_embd.weight", true},    /* positional embeddings, token types (BERT) */
    {"token_types.weight", true},
    {"ssm_conv1d", false},             /* small conv1d weights (Mamba, Kimi) */
    {"shortconv.conv.weight", false},
    {"indexer.k_proj.weight", false},  /* MiniMax indexer projections */
    {"indexer.q_proj.weight", false},
    {"time_mix_first.weight", false},  /* RWKV's small 2-D weights */
    {"time_mix_w0.weight", false},
    {"time_mix_w1.weight", false},
    {"time_mix_w2.weight", false},
    {"time_mix_v0.weight", false},
    {"time_mix_v1.weight", false},
    {"time_mix_v2.weight", false},
    {"time_mix_a0.weight", false},
    {"time_mix_a1.weight", false},
    {"time_mix_a2.weight", false},
    {"time_mix_g1.weight", false},
    {"time_mix_g2.weight", false},
    {"time_mix_decay_w1.weight", false},
    {"time_mix_decay_w2.weight", false},
    {"time_mix_lerp_fused.weight", false},
    {"attn_rel_b.weight", false},      /* relative position bias (T5) */
    {".position_embd", false},         /* multimodal parts */
    {"sam.pos_embd", false},
    {"sam.neck.", false},
    {"sam.net_", false},
    {".rel_pos", false},
    {".patch_embd", false},
    {".patch_merger", false},
    {"a.rvq.codebook", false},         /* audio codebooks */
    {"mm.a.code_embd", false},
};

/* Dimensions as ggml counts them: trailing dimensions of 1 do not count. */
static uint32_t ggml_dims(const gguf_tensor_info *ti) {
    uint32_t n = GGUF_MAX_DIMS;
    while (n > 1 && ti->dims[n - 1] == 1)
        n--;
    return n;
}

/* Whether a tensor may change type at all. llama.cpp tests "ends with weight" as "the last
 * occurrence of 'weight' starts 6 bytes before the end", which a 5-byte name without it also
 * passes (npos == size - 6); that quirk is kept. */
static bool allowed_tensor(const char *name, const gguf_tensor_info *ti,
                           const gguf_requant_options *opt) {
    if (opt->copy || ggml_dims(ti) < 2)
        return false;
    size_t len = strlen(name);
    const char *last = NULL;
    for (const char *p = strstr(name, "weight"); p; p = strstr(p + 1, "weight"))
        last = p;
    size_t pos = last ? (size_t)(last - name) : SIZE_MAX;
    if (pos != len - 6)
        return false;
    if (opt->leave_output && strcmp(name, "output.weight") == 0)
        return false;
    for (size_t i = 0; i < sizeof keep_rules / sizeof keep_rules[0]; i++) {
        if (keep_rules[i].exact ? strcmp(name, keep_rules[i].text) == 0
                                : strstr(name, keep_rules[i].text) != NULL)
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* The model, as far as the rules look at it                                                  */

typedef struct model {
    char arch[64];
    bool falcon, bailingmoe3;
    bool is_70b;         /* llama.cpp's LLM_TYPE_70B (its attn_v gets more bits) */
    uint32_t n_layer;    /* {arch}.block_count */
    uint32_t n_gqa;      /* head_count / head_count_kv of layer 0 (0 without heads) */
    uint32_t n_expert;   /* {arch}.expert_count */
} model;

/* An integer key (or the first element of an integer array), or def. */
static uint64_t int_key(const gguf_file *f, const char *arch, const char *suffix, uint64_t def) {
    char key[160];
    snprintf(key, sizeof key, "%s.%s", arch, suffix);
    int64_t i = gguf_kv_find(f, key);
    if (i < 0)
        return def;
    const gguf_value *v = gguf_kv_value(f, (size_t)i);
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

static void read_model(model *m, const gguf_file *f) {
    memset(m, 0, sizeof *m);
    int64_t i = gguf_kv_find(f, "general.architecture");
    const char *s;
    uint64_t len;
    if (i >= 0 && gguf_value_get_str(&s, &len, gguf_kv_value(f, (size_t)i), NULL) == 0 &&
        len < sizeof m->arch) {
        memcpy(m->arch, s, (size_t)len);
        m->arch[len] = '\0';
    }
    m->falcon = strcmp(m->arch, "falcon") == 0;
    m->bailingmoe3 = strcmp(m->arch, "bailingmoe3") == 0;
    m->n_layer = clamp32(int_key(f, m->arch, "block_count", 0));
    uint32_t nextn = clamp32(int_key(f, m->arch, "nextn_predict_layers", 0));
    uint32_t n_head = clamp32(int_key(f, m->arch, "attention.head_count", 0));
    uint32_t n_head_kv = clamp32(int_key(f, m->arch, "attention.head_count_kv", n_head));
    m->n_gqa = n_head_kv ? n_head / n_head_kv : 0;
    m->n_expert = clamp32(int_key(f, m->arch, "expert_count", 0));
    uint32_t n_layer = nextn <= m->n_layer ? m->n_layer - nextn : 0;
    for (size_t k = 0; k < sizeof models_70b / sizeof models_70b[0]; k++) {
        if (strcmp(m->arch, models_70b[k].arch) == 0 && n_layer == models_70b[k].n_layer &&
            (!models_70b[k].needs_gqa || (n_head != n_head_kv && m->n_expert != 8)))
            m->is_70b = true;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The mixture rules                                                                           */

enum cond {
    C_ALWAYS = 0,
    C_GQA4,              /* n_gqa >= 4 */
    C_GQA4_OR_EXPERTS4,  /* n_gqa >= 4 or at least 4 experts */
    C_EXPERTS8,          /* exactly 8 experts */
    C_FALCON,
    C_NOT_FALCON,
    C_IMATRIX,           /* an importance matrix was given */
    C_NO_IMATRIX,
    C_LAYER_EIGHTH,      /* i_layer < n_layer / 8 */
    C_LAYER_SIXTEENTH,   /* i_layer < n_layer / 16 */
    C_MORE_BITS,         /* the first and last eighth of the layers, and every third between */
    C_LAYER_MIDDLE,      /* n_layer / 8 <= i_layer < 7 n_layer / 8 */
    C_EIGHTH_OR_E8_MORE_BITS, /* C_LAYER_EIGHTH, or 8 experts and C_MORE_BITS */
    C_COUNT_LT2,         /* the group's counter is below 2 */
    C_COUNT_LT4,
    C_OUTPUT_TYPE_SET,   /* the caller chose the output tensor's type */
    C_TOKEN_TYPE_SET,    /* the caller chose the token embeddings' type */
    C_ROW_NOT_BLOCKS,    /* the preset's type does not divide the row length */
    C_DEFAULT_NOT_Q8_0,  /* the preset's type is not Q8_0 */
    C_EXPERT_TENSOR,     /* 3-D expert tensor (bailingmoe3: ffn up/gate/down only) */
    C_MODEL_70B,
    C_TYPE_Q3K_Q4K,      /* the type chosen so far is Q3_K or Q4_K */
};

enum { R_KEEP = 250, R_OUTPUT_TYPE, R_TOKEN_TYPE };

typedef struct rule {
    uint64_t ftypes;  /* presets it applies to; 0: all */
    uint8_t cond[2];  /* both must hold */
    uint8_t type;     /* a dtype, R_KEEP (stop, no change), R_OUTPUT_TYPE or R_TOKEN_TYPE */
} rule;

/* Where a group's i_layer / n_layer come from. */
enum layer_src {
    L_NONE,
    L_WV,         /* the attn_v counter, over the number of attn_v-like tensors */
    L_DOWN_COUNT, /* the ffn_down counter, over block_count */
    L_DOWN,       /* as L_DOWN_COUNT, but from the name ("blk.N.") in models with experts */
    L_GATE,
    L_UP
};

enum counter { CNT_NONE, CNT_WV, CNT_DOWN, CNT_GATE, CNT_UP, CNT_COUNT };

typedef struct group {
    uint32_t cats;      /* categories */
    uint64_t ftypes;    /* presets; 0: all */
    uint8_t guard;      /* a condition the group needs */
    uint8_t layer;      /* enum layer_src */
    uint8_t bump;       /* enum counter advanced afterwards */
    const rule *rules;  /* the first that fits decides */
    size_t n_rules;
    const rule *post;   /* then each that fits applies */
    size_t n_post;
} group;

#define FT(x) (UINT64_C(1) << GGUF_REQUANT_##x)
#define ANY 0
/* presets of 1-2 bits per weight, handled by their own group */
#define FT_VERY_LOW (FT(IQ2_XXS) | FT(IQ2_XS) | FT(IQ1_S) | FT(IQ2_S) | FT(IQ2_M) | FT(IQ1_M))
#define FT_IQ2_SM (FT(IQ2_S) | FT(IQ2_M))

#define Q(t) GGUF_DTYPE_##t
#define RULES(a) a, sizeof a / sizeof a[0]
#define NO_RULES NULL, 0

/* output.weight, and the token embeddings when they double as the output */
static const rule r_output[] = {
    {ANY, {C_OUTPUT_TYPE_SET}, R_OUTPUT_TYPE},
    {FT(MXFP4_MOE), {0}, Q(Q8_0)},
    {ANY, {C_FALCON}, Q(Q8_0)},
    {ANY, {C_ROW_NOT_BLOCKS}, Q(Q8_0)},
    {FT_VERY_LOW | FT(IQ3_XXS), {0}, Q(Q5_K)},
    {ANY, {C_DEFAULT_NOT_Q8_0}, Q(Q6_K)},
};
/* MXFP4_MOE: experts MXFP4, the rest Q8_0 */
static const rule r_mxfp4_moe[] = {
    {ANY, {C_EXPERT_TENSOR}, Q(MXFP4)},
    {ANY, {0}, Q(Q8_0)},
};
static const rule r_token_embd[] = {
    {ANY, {C_TOKEN_TYPE_SET}, R_TOKEN_TYPE},
    {FT(IQ2_XXS) | FT(IQ2_XS) | FT(IQ1_S) | FT(IQ1_M), {0}, Q(Q2_K)},
    {FT_IQ2_SM | FT(IQ3_XXS), {0}, Q(IQ3_S)},
    {FT(TQ1_0) | FT(TQ2_0) | FT(Q2_0), {0}, Q(Q4_K)},
};
static const rule r_low_attn_v[] = {
    {ANY, {C_GQA4_OR_EXPERTS4}, Q(Q4_K)},
    {FT_IQ2_SM, {0}, Q(IQ3_S)},
    {ANY, {0}, Q(Q2_K)},
};
static const rule r_low_attn_k[] = {
    {ANY, {0}, Q(Q4_K)},
};
static const rule r_low_ffn_down[] = {
    {FT_IQ2_SM, {C_LAYER_EIGHTH}, Q(IQ3_S)},
    {ANY, {C_LAYER_EIGHTH}, Q(Q2_K)},
};
static const rule r_low_attn_output[] = {
    {ANY, {C_EXPERTS8}, Q(Q5_K)},
    {FT(IQ1_S) | FT(IQ1_M), {0}, Q(IQ2_XXS)},
    {FT_IQ2_SM, {0}, Q(IQ3_S)},
};
static const rule r_attn_v[] = {
    {FT(Q2_K), {C_GQA4}, Q(Q4_K)},
    {FT(Q2_K), {0}, Q(Q3_K)},
    {FT(Q2_K_S), {C_GQA4}, Q(Q4_K)},
    {FT(IQ3_XXS), {C_GQA4}, Q(Q4_K)},
    {FT(IQ3_XXS), {C_NO_IMATRIX}, Q(IQ3_S)},
    {FT(IQ3_XXS), {0}, Q(IQ3_XXS)},
    {FT(IQ3_XS) | FT(IQ3_S), {C_GQA4}, Q(Q4_K)},
    {FT(IQ3_M), {0}, Q(Q4_K)},
    {FT(Q3_K_M), {C_COUNT_LT2}, Q(Q5_K)},
    {FT(Q3_K_M), {0}, Q(Q4_K)},
    {FT(Q3_K_L), {0}, Q(Q5_K)},
    {FT(IQ4_NL) | FT(IQ4_XS), {C_GQA4}, Q(Q5_K)},
    {FT(Q4_K_M) | FT(Q5_K_M), {C_MORE_BITS}, Q(Q6_K)},
    {FT(Q4_K_S), {C_COUNT_LT4}, Q(Q5_K)},
};
static const rule p_attn_v[] = {
    /* 70B models share attn_v between 8 heads: it is small, so it gets more bits */
    {ANY, {C_MODEL_70B, C_TYPE_Q3K_Q4K}, Q(Q5_K)},
    {ANY, {C_EXPERTS8}, Q(Q8_0)},
};
static const rule r_attn_k[] = {
    {ANY, {C_EXPERTS8}, Q(Q8_0)},
    {FT(IQ3_XS), {0}, Q(IQ3_XXS)},
    {FT(IQ3_XXS), {0}, Q(IQ2_S)},
};
static const rule r_attn_q[] = {
    {FT(IQ3_XS), {0}, Q(IQ3_XXS)},
    {FT(IQ3_XXS), {0}, Q(IQ2_S)},
};
static const rule r_ffn_down[] = {
    {FT(Q2_K), {0}, Q(Q3_K)},
    {FT(Q2_K_S), {C_LAYER_EIGHTH}, Q(Q4_K)},
    {FT(Q2_K_S), {0}, R_KEEP},
    {FT(IQ3_XXS), {C_NO_IMATRIX, C_LAYER_EIGHTH}, Q(Q4_K)},
    {FT(IQ3_XXS), {C_NO_IMATRIX}, Q(Q3_K)},
    {FT(Q3_K_M), {C_LAYER_SIXTEENTH}, Q(Q5_K)},
    {FT(Q3_K_M), {C_NOT_FALCON}, Q(Q4_K)},
    {FT(Q3_K_M), {C_MORE_BITS}, Q(Q4_K)},
    {FT(Q3_K_M), {0}, Q(Q3_K)},
    {FT(IQ3_M), {C_EIGHTH_OR_E8_MORE_BITS}, Q(Q4_K)},
    {FT(Q3_K_L), {C_FALCON}, Q(Q4_K)},
    {FT(Q3_K_L), {0}, Q(Q5_K)},
    {FT(Q4_K_M), {C_FALCON, C_LAYER_SIXTEENTH}, Q(Q6_K)},
    {FT(Q4_K_M), {C_FALCON, C_MORE_BITS}, Q(Q5_K)},
    {FT(Q4_K_M), {C_FALCON}, Q(Q4_K)},
    {FT(Q4_K_M), {C_MORE_BITS}, Q(Q6_K)},
    {FT(Q4_K_M), {0}, R_KEEP},
    {FT(IQ4_NL) | FT(IQ4_XS), {C_LAYER_EIGHTH, C_NO_IMATRIX}, Q(Q5_K)},
    {FT(Q5_K_M), {C_MORE_BITS}, Q(Q6_K)},
    {FT(Q4_K_S), {C_NOT_FALCON, C_LAYER_EIGHTH}, Q(Q5_K)},
    /* with an imatrix, the first eighth of ffn_down of Q4_0/Q5_0 gets the _1 variant */
    {FT(Q4_0), {C_IMATRIX, C_LAYER_EIGHTH}, Q(Q4_1)},
    {FT(Q5_0), {C_IMATRIX, C_LAYER_EIGHTH}, Q(Q5_1)},
};
#define FT_E8_ATTN_OUT                                                                         \
    (FT(Q2_K) | FT(IQ3_XS) | FT(IQ3_XXS) | FT(Q3_K_S) | FT(Q3_K_M) | FT(IQ4_NL) | FT(Q4_K_S) |   \
     FT(Q4_K_M) | FT(IQ3_S) | FT(IQ3_M) | FT(IQ4_XS))
static const rule r_attn_output[] = {
    {FT_E8_ATTN_OUT, {C_NOT_FALCON, C_EXPERTS8}, Q(Q5_K)},
    {ANY, {C_NOT_FALCON, C_EXPERTS8}, R_KEEP},
    {FT(Q2_K), {C_NOT_FALCON}, Q(Q3_K)},
    {FT(IQ3_XXS), {C_NOT_FALCON}, Q(IQ3_S)},
    {FT(Q3_K_M), {C_NOT_FALCON}, Q(Q4_K)},
    {FT(Q3_K_L), {C_NOT_FALCON}, Q(Q5_K)},
    {FT(IQ3_M), {C_NOT_FALCON}, Q(Q4_K)},
    {FT(Q3_K_L), {C_FALCON}, Q(Q4_K)},
};
static const rule r_ffn_gate_up[] = {
    {FT(IQ3_XS), {C_LAYER_MIDDLE}, Q(IQ3_XXS)},
};

/* In order: the first group that fits a tensor is the only one evaluated. (llama.cpp also has
 * rules for attn_qkv after attn_output; attn_qkv is attn_v-like, so those never apply.) */
static const group groups[] = {
    {CB(CAT_OUTPUT) | CB(CAT_TOKEN_EMBD_TIED), ANY, 0, L_NONE, CNT_NONE, RULES(r_output), NO_RULES},
    {CATS_ALL, FT(MXFP4_MOE), 0, L_NONE, CNT_NONE, RULES(r_mxfp4_moe), NO_RULES},
    {CB(CAT_TOKEN_EMBD), ANY, 0, L_NONE, CNT_NONE, RULES(r_token_embd), NO_RULES},
    {CATS_ATTN_V_LIKE, FT_VERY_LOW, 0, L_NONE, CNT_WV, RULES(r_low_attn_v), NO_RULES},
    {CB(CAT_ATTN_K), FT_VERY_LOW, C_EXPERTS8, L_NONE, CNT_NONE, RULES(r_low_attn_k), NO_RULES},
    {CB(CAT_FFN_DOWN), FT_VERY_LOW, 0, L_DOWN_COUNT, CNT_DOWN, RULES(r_low_ffn_down), NO_RULES},
    {CB(CAT_ATTN_OUTPUT), FT_VERY_LOW, 0, L_NONE, CNT_NONE, RULES(r_low_attn_output), NO_RULES},
    {CATS_ALL, FT_VERY_LOW, 0, L_NONE, CNT_NONE, NO_RULES, NO_RULES},
    {CATS_ATTN_V_LIKE, ANY, 0, L_WV, CNT_WV, RULES(r_attn_v), RULES(p_attn_v)},
    {CB(CAT_ATTN_K), ANY, 0, L_NONE, CNT_NONE, RULES(r_attn_k), NO_RULES},
    {CB(CAT_ATTN_Q), ANY, 0, L_NONE, CNT_NONE, RULES(r_attn_q), NO_RULES},
    {CB(CAT_FFN_DOWN), ANY, 0, L_DOWN, CNT_DOWN, RULES(r_ffn_down), NO_RULES},
    {CB(CAT_ATTN_OUTPUT), ANY, 0, L_NONE, CNT_NONE, RULES(r_attn_output), NO_RULES},
    {CB(CAT_FFN_GATE), ANY, 0, L_GATE, CNT_GATE, RULES(r_ffn_gate_up), NO_RULES},
    {CB(CAT_FFN_UP), ANY, 0, L_UP, CNT_UP, RULES(r_ffn_gate_up), NO_RULES},
};

/* Where a type goes when its block does not divide the row length (0: nowhere; a type with
 * blocks of at most 32 then stays, and goes to F16 if that does not fit either). */
static const uint8_t fallback_of[GGUF_DTYPE_COUNT] = {
    [GGUF_DTYPE_IQ1_S] = GGUF_DTYPE_IQ4_NL, [GGUF_DTYPE_IQ1_M] = GGUF_DTYPE_IQ4_NL,
    [GGUF_DTYPE_IQ2_XXS] = GGUF_DTYPE_IQ4_NL, [GGUF_DTYPE_IQ2_XS] = GGUF_DTYPE_IQ4_NL,
    [GGUF_DTYPE_IQ2_S] = GGUF_DTYPE_IQ4_NL, [GGUF_DTYPE_IQ3_XXS] = GGUF_DTYPE_IQ4_NL,
    [GGUF_DTYPE_IQ3_S] = GGUF_DTYPE_IQ4_NL, [GGUF_DTYPE_IQ4_XS] = GGUF_DTYPE_IQ4_NL,
    [GGUF_DTYPE_Q2_0] = GGUF_DTYPE_Q4_0, [GGUF_DTYPE_Q2_K] = GGUF_DTYPE_Q4_0,
    [GGUF_DTYPE_Q3_K] = GGUF_DTYPE_Q4_0, [GGUF_DTYPE_TQ1_0] = GGUF_DTYPE_Q4_0,
    [GGUF_DTYPE_TQ2_0] = GGUF_DTYPE_Q4_0, [GGUF_DTYPE_Q4_K] = GGUF_DTYPE_Q5_0,
    [GGUF_DTYPE_Q5_K] = GGUF_DTYPE_Q5_1, [GGUF_DTYPE_Q6_K] = GGUF_DTYPE_Q8_0,
};

/* The types that need an importance matrix (except for the token embeddings and the output);
 * Q2_K only in a Q2_K_S file. */
static bool needs_imatrix(const char *name, uint32_t dtype, uint32_t ftype) {
    if (strcmp(name, "token_embd.weight") == 0 || strcmp(name, "per_layer_token_embd.weight") == 0 ||
        strcmp(name, "output.weight") == 0)
        return false;
    switch (dtype) {
    case GGUF_DTYPE_IQ3_XXS:
    case GGUF_DTYPE_IQ2_XXS:
    case GGUF_DTYPE_IQ2_XS:
    case GGUF_DTYPE_IQ2_S:
    case GGUF_DTYPE_IQ1_M:
    case GGUF_DTYPE_IQ1_S:
        return true;
    case GGUF_DTYPE_Q2_K:
        return ftype == GGUF_REQUANT_Q2_K_S;
    default:
        return false;
    }
}

static bool is_quantized(uint32_t dtype) {
    return gguf_dtype_block_elems(dtype) > 1;
}

/* ------------------------------------------------------------------------------------------ */
/* Importance matrices                                                                         */

typedef struct im_entry {
    char *name;
    float *w;  /* per column (and per expert) weights, as llama-quantize computes them */
    size_t n;
} im_entry;

struct gguf_requant_imatrix {
    im_entry *e;
    size_t n, cap;
    char *path;     /* as given */
    char *dataset;  /* the first dataset name, or NULL */
    uint32_t chunk_count;
};

void gguf_requant_imatrix_free(gguf_requant_imatrix *im) {
    if (im == NULL)
        return;
    for (size_t i = 0; i < im->n; i++) {
        gguf__free(im->e[i].name);
        gguf__free(im->e[i].w);
    }
    gguf__free(im->e);
    gguf__free(im->path);
    gguf__free(im->dataset);
    gguf__free(im);
}

static char *dup_n(const char *s, size_t n) {
    char *p = gguf__malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

static int im_cmp(const void *a, const void *b) {
    return strcmp(((const im_entry *)a)->name, ((const im_entry *)b)->name);
}

static im_entry *im_lookup(const gguf_requant_imatrix *im, const char *name) {
    if (im == NULL || im->n == 0)
        return NULL;
    im_entry key = {.name = (char *)name};
    return bsearch(&key, im->e, im->n, sizeof *im->e, im_cmp);
}

/* Adds (or, for a name seen before, replaces) an entry; takes w. */
static int im_put(gguf_requant_imatrix *im, const char *name, size_t name_len, float *w, size_t n,
                  gguf_error *err) {
    for (size_t i = 0; i < im->n; i++) {
        if (strlen(im->e[i].name) == name_len && memcmp(im->e[i].name, name, name_len) == 0) {
            gguf__free(im->e[i].w);
            im->e[i].w = w;
            im->e[i].n = n;
            return 0;
        }
    }
    if (im->n == im->cap) {
        size_t cap = im->cap ? im->cap * 2 : 64;
        im_entry *grown = gguf__realloc(im->e, cap * sizeof *grown);
        if (grown == NULL) {
            gguf__free(w);
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        }
        im->e = grown;
        im->cap = cap;
    }
    char *copy = dup_n(name, name_len);
    if (copy == NULL) {
        gguf__free(w);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    im->e[im->n++] = (im_entry){copy, w, n};
    return 0;
}

static float ld_f32(const uint8_t *p, bool big) {
    uint32_t u = gguf__load32(p, big);
    float x;
    memcpy(&x, &u, 4);
    return x;
}

/* lround: to the nearest integer, halves away from zero (|x| < 2^63). */
static int64_t round_away(float x) {
    int64_t t = (int64_t)x;
    float frac = x - (float)t; /* exact: both on x's grid */
    if (frac >= 0.5f)
        t++;
    else if (frac <= -0.5f)
        t--;
    return t;
}

static bool ends_with(const char *s, size_t len, const char *suffix, size_t *stem) {
    size_t n = strlen(suffix);
    if (len < n || memcmp(s + len - n, suffix, n) != 0)
        return false;
    *stem = len - n;
    return true;
}

/* llama-imatrix's GGUF format: NAME.in_sum2 (sums of squared activations, ne0 x n_expert) and
 * NAME.counts (tokens seen per expert), both F32; keys imatrix.datasets, imatrix.chunk_count
 * and imatrix.chunk_size. Weight = sum / count, or 1 where the count is 0. */
static int im_load_gguf(gguf_requant_imatrix *im, const char *path, gguf_error *err) {
    gguf_file *f;
    int rc = gguf_file_open(&f, path, 0, err);
    if (rc != 0)
        return rc;
    int64_t kd = gguf_kv_find(f, "imatrix.datasets"), kc = gguf_kv_find(f, "imatrix.chunk_count"),
            ks = gguf_kv_find(f, "imatrix.chunk_size");
    if (gguf_tensor_count(f) == 0)
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET, "%s: no importance data", path);
    else if (kd < 0 || kc < 0 || ks < 0)
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "%s: not an imatrix file: imatrix.datasets, imatrix.chunk_count or "
                        "imatrix.chunk_size missing", path);
    if (rc == 0) {
        uint64_t u;
        int64_t s;
        int sg;
        if (gguf_value_type(gguf_kv_value(f, (size_t)kc)) != GGUF_VTYPE_U32 ||
            gguf_value_get_int(&u, &s, &sg, gguf_kv_value(f, (size_t)kc), NULL) != 0)
            rc = gguf__fail(err, GGUF_ETYPE, gguf_kv_source_offset(f, (size_t)kc),
                            "%s: imatrix.chunk_count is not a UINT32", path);
        else
            im->chunk_count = (uint32_t)u;
    }
    const gguf_value *dv = rc == 0 ? gguf_kv_value(f, (size_t)kd) : NULL;
    if (dv && gguf_value_type(dv) == GGUF_VTYPE_ARRAY &&
        gguf_value_elem_type(dv) == GGUF_VTYPE_STRING && gguf_value_count(dv) > 0) {
        gguf_value_iter it;
        gguf_value elem;
        const char *s;
        uint64_t len;
        gguf_value_iter_init(&it, dv);
        if (gguf_value_iter_next(&it, &elem) && gguf_value_get_str(&s, &len, &elem, NULL) == 0) {
            im->dataset = dup_n(s, (size_t)len);
            if (im->dataset == NULL)
                rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        }
    }
    bool big = gguf_file_endian(f) == GGUF_ENDIAN_BIG;
    size_t n = gguf_tensor_count(f);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        gguf_tensor_info a;
        gguf_tensor_get(&a, f, i);
        size_t stem;
        if (!ends_with(a.name, a.name_len, ".in_sum2", &stem) || stem == 0)
            continue;
        /* its counts */
        char cname[160];
        gguf_tensor_info c;
        int64_t ci = -1;
        if (stem + 8 < sizeof cname) {
            snprintf(cname, sizeof cname, "%.*s.counts", (int)stem, a.name);
            ci = gguf_tensor_find(f, cname);
        }
        if (ci < 0) {
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "%s: '%.*s' has sums but no counts", path, (int)stem, a.name);
            break;
        }
        gguf_tensor_get(&c, f, (size_t)ci);
        if (a.type != GGUF_DTYPE_F32 || c.type != GGUF_DTYPE_F32) {
            rc = gguf__fail(err, GGUF_ETYPE, GGUF_ERROR_NO_OFFSET,
                            "%s: sums and counts of '%.*s' must be F32", path, (int)stem, a.name);
            break;
        }
        size_t nval = (size_t)(a.nbytes / 4), ncounts = (size_t)(c.nbytes / 4);
        if (ncounts == 0 || nval == 0) {
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "%s: '%.*s' has no values", path, (int)stem, a.name);
            break;
        }
        float *w = gguf__calloc(nval, sizeof *w);
        if (w == NULL) {
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            break;
        }
        const uint8_t *sums = gguf_tensor_data(f, i), *counts = gguf_tensor_data(f, (size_t)ci);
        size_t ne0 = nval / ncounts;
        for (size_t j = 0; rc == 0 && j < ncounts; j++) {
            float cf = ld_f32(counts + 4 * j, big);
            if (!(cf > -9e18f && cf < 9e18f)) {
                rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                                "%s: '%.*s': count %zu is not a number of tokens", path,
                                (int)stem, a.name, j);
                break;
            }
            int64_t count = round_away(cf);
            for (size_t k = 0; k < ne0; k++)
                w[j * ne0 + k] = count > 0 ? ld_f32(sums + 4 * (j * ne0 + k), big) / (float)count
                                           : 1.0f;
        }
        if (rc == 0)
            rc = im_put(im, a.name, stem, w, nval, err);
        else
            gguf__free(w);
    }
    /* counts without sums */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        gguf_tensor_info c;
        gguf_tensor_get(&c, f, i);
        size_t stem;
        if (!ends_with(c.name, c.name_len, ".counts", &stem) || stem == 0)
            continue;
        char sname[160];
        if (stem + 9 >= sizeof sname)
            continue;
        snprintf(sname, sizeof sname, "%.*s.in_sum2", (int)stem, c.name);
        if (gguf_tensor_find(f, sname) < 0)
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "%s: '%.*s' has counts but no sums", path, (int)stem, c.name);
    }
    gguf_file_free(f);
    return rc;
}

/* llama.cpp's older binary format: i32 n_entries, then per entry i32 name length, name, i32
 * ncall, i32 nval, f32[nval] (weights times ncall); then optionally i32 chunk count, i32
 * length, dataset name. Weight = value / ncall (the value itself when ncall is 0). */
static int im_load_legacy(gguf_requant_imatrix *im, const uint8_t *p, size_t size,
                          const char *path, gguf_error *err) {
    gguf__cursor c = {.base = p, .len = size, .held = size};
    uint32_t n_entries;
    if (!gguf__cursor_u32(&c, &n_entries) || (int32_t)n_entries < 1)
        return gguf__fail(err, GGUF_ECORRUPT, 0, "%s: not an imatrix file (no entries)", path);
    for (uint32_t i = 0; i < n_entries; i++) {
        uint32_t len, ncall, nval;
        const uint8_t *name, *vals;
        if (!gguf__cursor_u32(&c, &len) || (int32_t)len < 0 ||
            !gguf__cursor_bytes(&c, len, &name) || !gguf__cursor_u32(&c, &ncall) ||
            !gguf__cursor_u32(&c, &nval) || (int32_t)nval < 1 ||
            gguf__cursor_remain(&c) / 4 < nval || !gguf__cursor_bytes(&c, (uint64_t)nval * 4, &vals))
            return gguf__fail(err, GGUF_ETRUNC, c.pos, "%s: imatrix entry %u is cut short", path,
                              i);
        float *w = gguf__malloc((size_t)nval * sizeof *w);
        if (w == NULL)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        int32_t calls = (int32_t)ncall;
        for (uint32_t k = 0; k < nval; k++) {
            float v = ld_f32(vals + 4 * k, false);
            w[k] = calls > 0 ? v / (float)(int64_t)calls : v;
        }
        /* the name ends at its first NUL, as a C string would */
        size_t nl = strnlen((const char *)name, len);
        int rc = im_put(im, (const char *)name, nl, w, nval, err);
        if (rc != 0)
            return rc;
    }
    uint32_t chunks, dlen;
    const uint8_t *ds;
    if (gguf__cursor_u32(&c, &chunks)) {
        im->chunk_count = chunks;
        if (gguf__cursor_u32(&c, &dlen) && (int32_t)dlen > 0 && gguf__cursor_bytes(&c, dlen, &ds)) {
            im->dataset = dup_n((const char *)ds, strnlen((const char *)ds, dlen));
            if (im->dataset == NULL)
                return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        }
    }
    return 0;
}

int gguf_requant_imatrix_load(gguf_requant_imatrix **out, const char *path, gguf_error *err) {
    if (out == NULL || path == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no imatrix file given");
    gguf_requant_imatrix *im = gguf__calloc(1, sizeof *im);
    if (im == NULL || (im->path = dup_n(path, strlen(path))) == NULL) {
        gguf__free(im);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        gguf_requant_imatrix_free(im);
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: cannot open: %s", path,
                          strerror(e));
    }
    uint8_t magic[4] = {0};
    bool is_gguf = st.st_size >= 4 && gguf__io_pread(fd, magic, 4, 0) == 0 &&
                   memcmp(magic, "GGUF", 4) == 0;
    int rc = 0;
    if (is_gguf) {
        close(fd);
        rc = im_load_gguf(im, path, err);
    } else if ((uint64_t)st.st_size > ((uint64_t)1 << 32)) {
        close(fd);
        rc = gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                        "%s: a legacy imatrix file of more than 4 GiB", path);
    } else {
        size_t size = (size_t)st.st_size;
        uint8_t *buf = gguf__malloc(size ? size : 1);
        if (buf == NULL)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        else if (gguf__io_pread(fd, buf, size, 0) != 0)
            rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: read failed: %s", path,
                            strerror(errno));
        else
            rc = im_load_legacy(im, buf, size, path, err);
        gguf__free(buf);
        close(fd);
    }
    if (rc != 0) {
        gguf_requant_imatrix_free(im);
        return rc;
    }
    qsort(im->e, im->n, sizeof *im->e, im_cmp);
    *out = im;
    return 0;
}

size_t gguf_requant_imatrix_count(const gguf_requant_imatrix *im) {
    return im ? im->n : 0;
}

const float *gguf_requant_imatrix_find(const gguf_requant_imatrix *im, const char *name,
                                       size_t *n) {
    const im_entry *e = im && name ? im_lookup(im, name) : NULL;
    if (n)
        *n = e ? e->n : 0;
    return e ? e->w : NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* The plan                                                                                    */

typedef struct plan_ctx {
    const gguf_file *f;
    const gguf_requant_options *opt;
    model m;
    uint32_t def;          /* the preset's default type */
    bool tied;             /* no output.weight: the token embeddings are the output too */
    bool has_imatrix;
    int n_wv;              /* attn_v-like tensors */
    int cnt[CNT_COUNT];    /* counters, advanced in llama.cpp's tensor order */
    regex_t *re;           /* compiled override patterns */
    size_t n_re;
    char **names;          /* NUL-terminated copies of the tensor names */
    size_t *order;         /* llama.cpp's order */
} plan_ctx;

/* "blk.%d." as sscanf reads it: the number after "blk." (false when there is none). */
static bool blk_number(const char *name, int *out) {
    if (strncmp(name, "blk.", 4) != 0)
        return false;
    const char *p = name + 4;
    while (isspace((unsigned char)*p))
        p++;
    bool neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    if (!isdigit((unsigned char)*p))
        return false;
    long long v = 0;
    for (; isdigit((unsigned char)*p); p++) {
        if (v <= INT_MAX)
            v = v * 10 + (*p - '0');
    }
    if (v > INT_MAX)
        v = INT_MAX;
    *out = (int)(neg ? -v : v);
    return true;
}

/* The layer llama.cpp sorts by: the block number, or -1. */
static int layer_of(const char *name) {
    int l = -1;
    blk_number(name, &l);
    return l;
}

/* A tensor's place in llama.cpp's order: by layer, then by name (byte order, as std::string
 * compares), then (duplicate names in lenient files) by index. */
typedef struct order_key {
    int layer;
    const char *name;
    size_t index;
} order_key;

static int order_cmp(const void *a, const void *b) {
    const order_key *x = a, *y = b;
    if (x->layer != y->layer)
        return x->layer < y->layer ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c != 0)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

typedef struct eval_state {
    const char *name;
    const gguf_tensor_info *ti;
    enum cat cat;
    int i_layer, n_layer;
    int count;      /* the group's counter before this tensor */
    uint32_t cur;   /* the type chosen so far */
} eval_state;

static bool more_bits(int i, int n) {
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

static bool cond_holds(const plan_ctx *p, const eval_state *s, uint8_t c) {
    const model *m = &p->m;
    switch ((enum cond)c) {
    case C_ALWAYS: return true;
    case C_GQA4: return m->n_gqa >= 4;
    case C_GQA4_OR_EXPERTS4: return m->n_gqa >= 4 || m->n_expert >= 4;
    case C_EXPERTS8: return m->n_expert == 8;
    case C_FALCON: return m->falcon;
    case C_NOT_FALCON: return !m->falcon;
    case C_IMATRIX: return p->has_imatrix;
    case C_NO_IMATRIX: return !p->has_imatrix;
    case C_LAYER_EIGHTH: return s->i_layer < s->n_layer / 8;
    case C_LAYER_SIXTEENTH: return s->i_layer < s->n_layer / 16;
    case C_MORE_BITS: return more_bits(s->i_layer, s->n_layer);
    case C_LAYER_MIDDLE: return s->i_layer >= s->n_layer / 8 && s->i_layer < 7 * s->n_layer / 8;
    case C_EIGHTH_OR_E8_MORE_BITS:
        return s->i_layer < s->n_layer / 8 ||
               (m->n_expert == 8 && more_bits(s->i_layer, s->n_layer));
    case C_COUNT_LT2: return s->count < 2;
    case C_COUNT_LT4: return s->count < 4;
    case C_OUTPUT_TYPE_SET: return p->opt->output_type >= 0;
    case C_TOKEN_TYPE_SET: return p->opt->token_embd_type >= 0;
    case C_ROW_NOT_BLOCKS: return s->ti->dims[0] % gguf_dtype_block_elems(p->def) != 0;
    case C_DEFAULT_NOT_Q8_0: return p->def != GGUF_DTYPE_Q8_0;
    case C_EXPERT_TENSOR:
        return s->ti->dims[2] > 1 &&
               (!m->bailingmoe3 || s->cat == CAT_FFN_UP || s->cat == CAT_FFN_GATE ||
                s->cat == CAT_FFN_DOWN);
    case C_MODEL_70B: return m->is_70b;
    case C_TYPE_Q3K_Q4K: return s->cur == GGUF_DTYPE_Q3_K || s->cur == GGUF_DTYPE_Q4_K;
    }
    return false;
}

static bool rule_fits(const plan_ctx *p, const eval_state *s, const rule *r) {
    return (r->ftypes == 0 || (r->ftypes >> p->opt->ftype & 1)) && cond_holds(p, s, r->cond[0]) &&
           cond_holds(p, s, r->cond[1]);
}

static uint32_t rule_type(const plan_ctx *p, const eval_state *s, uint8_t t) {
    switch (t) {
    case R_KEEP: return s->cur;
    case R_OUTPUT_TYPE: return (uint32_t)p->opt->output_type;
    case R_TOKEN_TYPE: return (uint32_t)p->opt->token_embd_type;
    default: return t;
    }
}

/* The layer of an ffn tensor: its counter, or in models with experts (whose expert tensors are
 * not one per layer) the number in its name. */
static int layer_info(const plan_ctx *p, eval_state *s, int counter, gguf_error *err) {
    s->i_layer = counter;
    s->n_layer = (int)(p->m.n_layer > INT_MAX ? INT_MAX : p->m.n_layer);
    if (p->m.n_expert > 1) {
        int l;
        if (!blk_number(s->name, &l))
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "tensor '%s': cannot tell its layer (no 'blk.N.')", s->name);
        if (l < 0 || l >= s->n_layer)
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "tensor '%s': layer %d is not below block_count %d", s->name, l,
                              s->n_layer);
        s->i_layer = l;
    }
    return 0;
}

/* The mixture for one tensor: the first group that fits decides. */
static int mixture(plan_ctx *p, eval_state *s, gguf_error *err) {
    enum cat gcat = s->cat == CAT_TOKEN_EMBD && p->tied ? CAT_TOKEN_EMBD_TIED : s->cat;
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        const group *gr = &groups[g];
        if (!(gr->cats >> gcat & 1) || (gr->ftypes && !(gr->ftypes >> p->opt->ftype & 1)) ||
            !cond_holds(p, s, gr->guard))
            continue;
        s->count = gr->bump != CNT_NONE ? p->cnt[gr->bump] : 0;
        int rc = 0;
        switch ((enum layer_src)gr->layer) {
        case L_NONE: break;
        case L_WV: s->i_layer = p->cnt[CNT_WV]; s->n_layer = p->n_wv; break;
        case L_DOWN_COUNT:
            s->i_layer = p->cnt[CNT_DOWN];
            s->n_layer = (int)(p->m.n_layer > INT_MAX ? INT_MAX : p->m.n_layer);
            break;
        case L_DOWN: rc = layer_info(p, s, p->cnt[CNT_DOWN], err); break;
        case L_GATE: rc = layer_info(p, s, p->cnt[CNT_GATE], err); break;
        case L_UP: rc = layer_info(p, s, p->cnt[CNT_UP], err); break;
        }
        if (rc != 0)
            return rc;
        for (size_t r = 0; r < gr->n_rules; r++) {
            if (rule_fits(p, s, &gr->rules[r])) {
                s->cur = rule_type(p, s, gr->rules[r].type);
                break;
            }
        }
        for (size_t r = 0; r < gr->n_post; r++) {
            if (rule_fits(p, s, &gr->post[r]))
                s->cur = rule_type(p, s, gr->post[r].type);
        }
        if (gr->bump != CNT_NONE)
            p->cnt[gr->bump]++;
        return 0;
    }
    return 0;
}

static int fallback(uint32_t *type, const char *name, uint64_t ncols, bool *fell,
                    gguf_error *err) {
    uint32_t t = *type, be = gguf_dtype_block_elems(t);
    if (be == 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "tensor '%s': unknown type %u",
                          name, t);
    if (ncols % be == 0)
        return 0;
    *fell = true;
    uint32_t r = t < GGUF_DTYPE_COUNT ? fallback_of[t] : 0;
    if (r == 0) {
        if (be > 32)
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "tensor '%s': rows of %llu do not fit %s blocks and %s has no "
                              "fallback type", name, (unsigned long long)ncols,
                              gguf_dtype_name(t), gguf_dtype_name(t));
        r = t;
    }
    if (ncols % gguf_dtype_block_elems(r) != 0)
        r = GGUF_DTYPE_F16; /* rows not a multiple of 32: rare */
    *type = r;
    return 0;
}

static void plan_ctx_free(plan_ctx *p) {
    for (size_t i = 0; i < p->n_re; i++)
        regfree(&p->re[i]);
    gguf__free(p->re);
    if (p->names) {
        for (size_t i = 0; i < gguf_tensor_count(p->f); i++)
            gguf__free(p->names[i]);
    }
    gguf__free(p->names);
    gguf__free(p->order);
}

static bool valid_dtype(int t) {
    return t >= 0 && t < GGUF_DTYPE_COUNT && gguf_dtype_name((uint32_t)t) != NULL;
}

static int plan_init(plan_ctx *p, const gguf_file *f, const gguf_requant_options *opt,
                     gguf_error *err) {
    memset(p, 0, sizeof *p);
    p->f = f;
    p->opt = opt;
    if (opt->ftype >= GGUF_REQUANT_FTYPE_COUNT || presets[opt->ftype].name == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "unknown file type %u",
                          opt->ftype);
    if ((opt->output_type >= 0 && !valid_dtype(opt->output_type)) ||
        (opt->token_embd_type >= 0 && !valid_dtype(opt->token_embd_type)))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "unknown output or token embedding type");
    p->def = presets[opt->ftype].dtype;
    p->has_imatrix = opt->imatrix != NULL && opt->imatrix->n > 0;
    read_model(&p->m, f);
    size_t n = gguf_tensor_count(f);
    p->names = gguf__calloc(n ? n : 1, sizeof *p->names);
    p->order = gguf__malloc((n ? n : 1) * sizeof *p->order);
    if (opt->n_overrides)
        p->re = gguf__calloc(opt->n_overrides, sizeof *p->re);
    if (p->names == NULL || p->order == NULL || (opt->n_overrides && p->re == NULL))
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    for (size_t i = 0; i < opt->n_overrides; i++) {
        const gguf_requant_override *o = &opt->overrides[i];
        if (o->pattern == NULL || !valid_dtype((int)o->type))
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "tensor type override %zu: no pattern or unknown type", i);
        int rc = regcomp(&p->re[i], o->pattern, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char msg[128];
            regerror(rc, &p->re[i], msg, sizeof msg);
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "tensor type pattern '%s': %s", o->pattern, msg);
        }
        p->n_re = i + 1;
    }
    p->tied = true;
    for (size_t i = 0; i < n; i++) {
        gguf_tensor_info ti;
        gguf_tensor_get(&ti, f, i);
        p->names[i] = dup_n(ti.name, ti.name_len);
        if (p->names[i] == NULL)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        enum cat c = category_of(p->names[i]);
        if ((CATS_ATTN_V_LIKE >> c) & 1)
            p->n_wv++;
        if (c == CAT_OUTPUT)
            p->tied = false;
    }
    order_key *keys = gguf__malloc((n ? n : 1) * sizeof *keys);
    if (keys == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    for (size_t i = 0; i < n; i++)
        keys[i] = (order_key){layer_of(p->names[i]), p->names[i], i};
    qsort(keys, n, sizeof *keys, order_cmp);
    for (size_t k = 0; k < n; k++)
        p->order[k] = keys[k].index;
    gguf__free(keys);
    return 0;
}

/* The type of tensor i (llama_tensor_get_type). */
static int choose(gguf_requant_choice *ch, plan_ctx *p, size_t i, gguf_error *err) {
    const gguf_requant_options *opt = p->opt;
    const char *name = p->names[i];
    gguf_tensor_info ti;
    gguf_tensor_get(&ti, p->f, i);
    memset(ch, 0, sizeof *ch);
    ch->type = ti.type;
    ch->allowed = allowed_tensor(name, &ti, opt);
    if (!ch->allowed)
        return 0;
    enum cat c = category_of(name);
    if (opt->token_embd_type >= 0 && c == CAT_TOKEN_EMBD) {
        /* per_layer_token_embd follows it too, unless a pattern names it */
        bool named = false;
        for (size_t k = 0; strcmp(name, "per_layer_token_embd.weight") == 0 && k < p->n_re; k++)
            named = named || regexec(&p->re[k], name, 0, NULL, 0) == 0;
        if (!named) {
            ch->type = (uint32_t)opt->token_embd_type;
            return 0;
        }
    }
    if (opt->output_type >= 0 && c == CAT_OUTPUT) {
        ch->type = (uint32_t)opt->output_type;
        return 0;
    }
    ch->type = p->def;
    if (!is_quantized(p->def))
        return 0;
    bool manual = false;
    for (size_t k = 0; k < p->n_re; k++) {
        if (regexec(&p->re[k], name, 0, NULL, 0) == 0) {
            ch->type = opt->overrides[k].type;
            ch->override = (int)k + 1;
            manual = true;
            break;
        }
    }
    if (!manual && !opt->pure) {
        eval_state s = {.name = name, .ti = &ti, .cat = c, .cur = p->def};
        int rc = mixture(p, &s, err);
        if (rc != 0)
            return rc;
        ch->type = s.cur;
    }
    bool fell = false;
    int rc = fallback(&ch->type, name, ti.dims[0], &fell, err);
    ch->fallback = fell;
    return rc;
}

int gguf_requant_plan(gguf_requant_choice *out, const gguf_file *f,
                      const gguf_requant_options *opt, gguf_error *err) {
    if (out == NULL || f == NULL || opt == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to plan");
    plan_ctx p;
    int rc = plan_init(&p, f, opt, err);
    size_t n = gguf_tensor_count(f);
    gguf_requant_choice *ch = rc == 0 ? gguf__calloc(n ? n : 1, sizeof *ch) : NULL;
    if (rc == 0 && ch == NULL)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    for (size_t k = 0; rc == 0 && k < n; k++) {
        size_t i = p.order[k];
        rc = choose(&ch[i], &p, i, err);
        ch[i].position = k;
    }
    /* what the data needs: importance matrices, kernels */
    for (size_t k = 0; rc == 0 && k < n; k++) {
        size_t i = p.order[k];
        gguf_tensor_info ti;
        gguf_tensor_get(&ti, f, i);
        const char *name = p.names[i];
        gguf_requant_choice *c = &ch[i];
        c->convert = c->type != ti.type;
        bool need = c->allowed && needs_imatrix(name, c->type, opt->ftype);
        if (need && !p.has_imatrix) {
            rc = gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                            "tensor '%s': type %s needs an importance matrix (--imatrix)", name,
                            gguf_dtype_name(c->type));
            break;
        }
        if (!c->convert)
            continue;
        if (ti.nbytes == UINT64_MAX || !gguf_quant_can_dequantize(ti.type)) {
            char tb[16];
            snprintf(tb, sizeof tb, "%u", ti.type);
            rc = gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                            "tensor '%s': cannot read values of type %s", name,
                            gguf_dtype_name(ti.type) ? gguf_dtype_name(ti.type) : tb);
            break;
        }
        if (!gguf_quant_can_quantize(c->type)) {
            rc = gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                            "tensor '%s': this build cannot quantize to %s", name,
                            gguf_dtype_name(c->type));
            break;
        }
        if (p.has_imatrix) {
            const im_entry *e = im_lookup(opt->imatrix, name);
            uint64_t want = ti.dims[0] * ti.dims[2];
            if (e && e->n == want && ti.dims[3] == 1) {
                c->imatrix = 1;
            } else if (e && c->type != ti.type && category_of(name) != CAT_TOKEN_EMBD) {
                rc = gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                                "tensor '%s': the importance matrix has %zu values, the tensor "
                                "needs %llu", name, e->n, (unsigned long long)want);
                break;
            }
            if (!c->imatrix && need) {
                rc = gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                                "tensor '%s': no importance matrix for it, and %s needs one",
                                name, gguf_dtype_name(c->type));
                break;
            }
        }
        if (gguf_quant_needs_imatrix(c->type) && !c->imatrix) {
            rc = gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                            "tensor '%s': %s needs an importance matrix", name,
                            gguf_dtype_name(c->type));
            break;
        }
    }
    if (rc == 0)
        memcpy(out, ch, n * sizeof *ch);
    gguf__free(ch);
    plan_ctx_free(&p);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Requantizing: the tensors' sources and the thread pool                                      */

typedef struct rq_tensor {
    bool convert;        /* bytes come from fill */
    uint32_t src_type, dst_type;
    uint64_t src_offset; /* absolute, in the source */
    int64_t n_per_row;
    int64_t rows_per_expert; /* dims[1] */
    size_t src_row, dst_row; /* bytes per row */
    const float *imatrix;    /* dims[0] * dims[2] weights, or NULL */
    char name[72];
} rq_tensor;

#define RQ_MAX_THREADS 256
#define RQ_BATCH_BYTES ((size_t)256 << 10) /* f32 values per batch of rows */

typedef struct worker_arg {
    struct gguf_requant *rq;
    unsigned w;
} worker_arg;

typedef struct rq_scratch {
    uint8_t *src;
    float *f32;
    size_t src_cap, f32_cap; /* bytes */
} rq_scratch;

struct gguf_requant {
    const gguf_file *f;
    rq_tensor *t;
    size_t n;
    bool big;       /* tensor data is big-endian */
    const uint8_t *mem; /* the source's bytes when they are all in memory, else NULL: read */
    unsigned threads;
    rq_scratch *scratch; /* [threads] */

    /* the pool: workers 1..threads-1; the caller of fill is worker 0 */
    pthread_t tid[RQ_MAX_THREADS];
    worker_arg args[RQ_MAX_THREADS];
    unsigned started;
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    bool pool_init;
    uint64_t generation;
    unsigned running;
    bool quit;

    /* the job of the current fill call */
    const rq_tensor *job;
    uint8_t *job_dst;
    int64_t job_row0, job_nrows, job_batch;
    atomic_llong next;
    int job_rc;
    gguf_error job_err;
};

/* Rows [row, row + k) of the job (within one expert) into the job's buffer. */
static int convert_rows(gguf_requant *rq, rq_scratch *sc, int64_t row, int64_t k,
                        gguf_error *err) {
    const rq_tensor *t = rq->job;
    const gguf_file *f = rq->f;
    int64_t g = rq->job_row0 + row; /* row in the tensor */
    size_t src_bytes = (size_t)k * t->src_row;
    uint64_t at = t->src_offset + (uint64_t)g * t->src_row;
    size_t nvals = (size_t)k * (size_t)t->n_per_row;
    const float *vals;
    bool direct_f32 = t->src_type == GGUF_DTYPE_F32 && !rq->big && !gguf__host_is_big();
    if (direct_f32 && rq->mem == NULL) {
        int rc = gguf__file_read(f, sc->f32, src_bytes, at, err);
        if (rc != 0)
            return gguf__wrap(err, rc, "tensor '%s'", t->name);
        vals = sc->f32;
    } else if (direct_f32 && ((uintptr_t)(rq->mem + at) % sizeof(float)) == 0) {
        vals = (const float *)(const void *)(rq->mem + at);
    } else {
        const uint8_t *src;
        if (rq->mem == NULL) {
            int rc = gguf__file_read(f, sc->src, src_bytes, at, err);
            if (rc != 0)
                return gguf__wrap(err, rc, "tensor '%s'", t->name);
            src = sc->src;
        } else {
            src = rq->mem + at;
        }
        if (rq->big) {
            if (src != sc->src)
                memcpy(sc->src, src, src_bytes);
            gguf__byteswap_blocks(t->src_type, sc->src, src_bytes);
            src = sc->src;
        }
        int rc = gguf_quant_dequantize(sc->f32, t->src_type, src, src_bytes, (int64_t)nvals, err);
        if (rc != 0)
            return rc;
        vals = sc->f32;
    }
    const float *im = NULL;
    if (t->imatrix)
        im = t->imatrix + (g / t->rows_per_expert) * t->n_per_row;
    uint8_t *dst = rq->job_dst + (size_t)row * t->dst_row;
    size_t dst_bytes = (size_t)k * t->dst_row;
    int rc = gguf_quant_quantize(dst, dst_bytes, t->dst_type, vals, k, t->n_per_row, im, err);
    if (rc == 0 && rq->big)
        gguf__byteswap_blocks(t->dst_type, dst, dst_bytes);
    return rc;
}

/* A worker's share of the job: batches of rows taken in turn, split at expert boundaries. */
static void run_share(gguf_requant *rq, unsigned w) {
    rq_scratch *sc = &rq->scratch[w];
    const rq_tensor *t = rq->job;
    gguf_error err;
    gguf_error_clear(&err);
    for (;;) {
        int64_t r = atomic_fetch_add(&rq->next, rq->job_batch);
        if (r >= rq->job_nrows)
            break;
        int64_t end = r + rq->job_batch < rq->job_nrows ? r + rq->job_batch : rq->job_nrows;
        int rc = 0;
        while (rc == 0 && r < end) {
            int64_t g = rq->job_row0 + r, k = end - r;
            if (t->imatrix && k > t->rows_per_expert - g % t->rows_per_expert)
                k = t->rows_per_expert - g % t->rows_per_expert;
            rc = convert_rows(rq, sc, r, k, &err);
            r += k;
        }
        if (rc != 0) {
            pthread_mutex_lock(&rq->mu);
            if (rq->job_rc == 0) {
                rq->job_rc = rc;
                rq->job_err = err;
            }
            pthread_mutex_unlock(&rq->mu);
            atomic_store(&rq->next, rq->job_nrows); /* the others stop too */
            break;
        }
    }
}

static void *worker(void *arg) {
    gguf_requant *rq = ((worker_arg *)arg)->rq;
    unsigned w = ((worker_arg *)arg)->w;
    uint64_t seen = 0;
    pthread_mutex_lock(&rq->mu);
    for (;;) {
        while (!rq->quit && rq->generation == seen)
            pthread_cond_wait(&rq->wake, &rq->mu);
        if (rq->quit)
            break;
        seen = rq->generation;
        pthread_mutex_unlock(&rq->mu);
        run_share(rq, w);
        pthread_mutex_lock(&rq->mu);
        if (--rq->running == 0)
            pthread_cond_signal(&rq->done);
    }
    pthread_mutex_unlock(&rq->mu);
    return NULL;
}

static void pool_stop(gguf_requant *rq) {
    if (!rq->pool_init)
        return;
    pthread_mutex_lock(&rq->mu);
    rq->quit = true;
    pthread_cond_broadcast(&rq->wake);
    pthread_mutex_unlock(&rq->mu);
    for (unsigned i = 0; i < rq->started; i++)
        pthread_join(rq->tid[i], NULL);
    pthread_cond_destroy(&rq->wake);
    pthread_cond_destroy(&rq->done);
    pthread_mutex_destroy(&rq->mu);
    rq->pool_init = false;
}

/* Starts the workers on first use; threads that cannot be started leave their share to the
 * others. */
static void pool_start(gguf_requant *rq) {
    if (rq->pool_init || rq->threads <= 1)
        return;
    if (pthread_mutex_init(&rq->mu, NULL) != 0)
        return;
    if (pthread_cond_init(&rq->wake, NULL) != 0) {
        pthread_mutex_destroy(&rq->mu);
        return;
    }
    if (pthread_cond_init(&rq->done, NULL) != 0) {
        pthread_cond_destroy(&rq->wake);
        pthread_mutex_destroy(&rq->mu);
        return;
    }
    rq->pool_init = true;
    for (unsigned w = 1; w < rq->threads; w++) {
        rq->args[w] = (worker_arg){rq, w};
        if (pthread_create(&rq->tid[rq->started], NULL, worker, &rq->args[w]) != 0)
            break;
        rq->started++;
    }
}

/* Scratch of every worker, big enough for a batch of this tensor. */
static int scratch_reserve(gguf_requant *rq, const rq_tensor *t, int64_t batch, gguf_error *err) {
    size_t f32 = (size_t)batch * (size_t)t->n_per_row * sizeof(float);
    size_t src = t->src_type == GGUF_DTYPE_F32 && !rq->big ? 0 : (size_t)batch * t->src_row;
    for (unsigned w = 0; w < rq->threads; w++) {
        rq_scratch *sc = &rq->scratch[w];
        if (sc->f32_cap < f32) {
            float *p = gguf__realloc(sc->f32, f32);
            if (p == NULL)
                return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            sc->f32 = p;
            sc->f32_cap = f32;
        }
        if (sc->src_cap < src) {
            uint8_t *p = gguf__realloc(sc->src, src);
            if (p == NULL)
                return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            sc->src = p;
            sc->src_cap = src;
        }
    }
    return 0;
}

int gguf_requant_fill(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                      gguf_error *err) {
    gguf_requant *rq = user;
    if (rq == NULL || tensor >= rq->n || !rq->t[tensor].convert)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "requant: tensor %zu is not one this requantization fills", tensor);
    const rq_tensor *t = &rq->t[tensor];
    if (offset % t->dst_row != 0 || len % t->dst_row != 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "requant: tensor '%s': asked for bytes that are not whole rows",
                          t->name);
    int64_t nrows = (int64_t)(len / t->dst_row);
    int64_t batch = (int64_t)(RQ_BATCH_BYTES / sizeof(float) / (size_t)t->n_per_row);
    if (batch < 1)
        batch = 1;
    /* enough batches for every thread */
    while (batch > 1 && nrows / batch < (int64_t)rq->threads * 4)
        batch /= 2;
    int rc = scratch_reserve(rq, t, batch, err);
    if (rc != 0)
        return rc;
    rq->job = t;
    rq->job_dst = buf;
    rq->job_row0 = (int64_t)(offset / t->dst_row);
    rq->job_nrows = nrows;
    rq->job_batch = batch;
    rq->job_rc = 0;
    gguf_error_clear(&rq->job_err);
    atomic_store(&rq->next, 0);
    unsigned helpers = 0;
    if (rq->threads > 1 && nrows > batch) {
        pool_start(rq);
        helpers = rq->started;
    }
    if (helpers > 0) {
        pthread_mutex_lock(&rq->mu);
        rq->running = helpers;
        rq->generation++;
        pthread_cond_broadcast(&rq->wake);
        pthread_mutex_unlock(&rq->mu);
    }
    run_share(rq, 0);
    if (helpers > 0) {
        pthread_mutex_lock(&rq->mu);
        while (rq->running > 0)
            pthread_cond_wait(&rq->done, &rq->mu);
        pthread_mutex_unlock(&rq->mu);
    }
    if (rq->job_rc != 0) {
        if (err && err->code == 0)
            *err = rq->job_err;
        return rq->job_rc;
    }
    return 0;
}

void gguf_requant_free(gguf_requant *rq) {
    if (rq == NULL)
        return;
    pool_stop(rq);
    for (unsigned w = 0; rq->scratch && w < rq->threads; w++) {
        gguf__free(rq->scratch[w].src);
        gguf__free(rq->scratch[w].f32);
    }
    gguf__free(rq->scratch);
    gguf__free(rq->t);
    gguf__free(rq);
}

/* ------------------------------------------------------------------------------------------ */
/* Preparing the file                                                                          */

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
    int64_t k = gguf_kv_find(f, "general.file_type");
    uint64_t u;
    int64_t s;
    int sg;
    if (k >= 0 && gguf_value_get_int(&u, &s, &sg, gguf_kv_value(f, (size_t)k), NULL) == 0)
        return sg ? (uint32_t)s : (uint32_t)u;
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
    return ftype_of_dtype[type] | FTYPE_GUESSED; /* unknown: 0, ALL_F32, as llama.cpp */
}

int gguf_requant_prepare(gguf_requant **out, gguf_file *f, const gguf_requant_options *opt,
                         gguf_error *err) {
    if (out == NULL || f == NULL || opt == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to requantize");
    size_t n = gguf_tensor_count(f);
    gguf_requant_choice *ch = gguf__calloc(n ? n : 1, sizeof *ch);
    gguf_requant *rq = gguf__calloc(1, sizeof *rq);
    unsigned threads = opt->threads < 1 ? 1 : opt->threads > RQ_MAX_THREADS ? RQ_MAX_THREADS
                                                                             : opt->threads;
    if (rq) {
        rq->t = gguf__calloc(n ? n : 1, sizeof *rq->t);
        rq->scratch = gguf__calloc(threads, sizeof *rq->scratch);
    }
    if (ch == NULL || rq == NULL || rq->t == NULL || rq->scratch == NULL) {
        gguf__free(ch);
        gguf_requant_free(rq);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    rq->f = f;
    rq->n = n;
    rq->threads = threads;
    rq->big = f->big;
    rq->mem = f->src != NULL ? f->src->mem : NULL;
    int rc = gguf_requant_plan(ch, f, opt, err);
    /* imatrix values must be finite, all of them (llama.cpp checks before it starts) */
    for (size_t e = 0; rc == 0 && opt->imatrix && e < opt->imatrix->n; e++) {
        const im_entry *en = &opt->imatrix->e[e];
        for (size_t k = 0; k < en->n; k++) {
            if (!isfinite(en->w[k])) {
                rc = gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                                "importance matrix of '%s': value %zu is not finite", en->name,
                                k);
                break;
            }
        }
    }
    /* the metadata llama.cpp writes */
    uint32_t ftype = opt->ftype;
    size_t *order = NULL;
    if (rc == 0) {
        order = gguf__malloc((n ? n : 1) * sizeof *order);
        if (order == NULL)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        for (size_t i = 0; rc == 0 && i < n; i++)
            order[ch[i].position] = i;
    }
    if (rc == 0 && opt->copy)
        ftype = copy_ftype(f, order);
    if (rc == 0)
        rc = move_u32(f, "general.quantization_version", QNT_VERSION, err);
    if (rc == 0)
        rc = move_u32(f, "general.file_type", ftype, err);
    static const char *const split_keys[] = {"split.no", "split.count", "split.tensors.count"};
    for (size_t k = 0; rc == 0 && k < 3; k++) {
        if (gguf_kv_find(f, split_keys[k]) >= 0)
            rc = gguf_kv_remove(f, split_keys[k], err);
    }
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
    /* the tensors: sources first, then the new types */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const gguf__tensor *src = &f->tensors[i];
        rq_tensor *t = &rq->t[i];
        snprintf(t->name, sizeof t->name, "%.*s", (int)(src->name_len < 64 ? src->name_len : 64),
                 src->name);
        t->convert = ch[i].convert;
        if (!t->convert)
            continue;
        if (src->src_offset == GGUF__NO_SOURCE) {
            rc = gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                            "tensor '%s' has no bytes in the source to requantize", t->name);
            break;
        }
        t->src_type = src->type;
        t->dst_type = ch[i].type;
        t->src_offset = src->src_offset;
        t->n_per_row = (int64_t)src->dims[0];
        t->rows_per_expert = (int64_t)src->dims[1];
        t->src_row = gguf_quant_row_size(t->src_type, t->n_per_row);
        t->dst_row = gguf_quant_row_size(t->dst_type, t->n_per_row);
        if (t->src_row == 0 || t->dst_row == 0 || t->rows_per_expert == 0) {
            rc = gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                            "tensor '%s': rows of %lld do not fit its type", t->name,
                            (long long)t->n_per_row);
            break;
        }
        if (ch[i].imatrix)
            t->imatrix = im_lookup(im, t->name)->w;
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (ch[i].convert)
            rc = gguf_tensor_set_type(f, i, ch[i].type, err);
    }
    /* llama.cpp's order (or the source's) */
    if (rc == 0 && !opt->keep_order && n > 0) {
        rq_tensor *rt = gguf__malloc(n * sizeof *rt);
        if (rt == NULL)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        if (rc == 0)
            rc = gguf_tensor_reorder(f, order, n, err);
        if (rc == 0) {
            for (size_t k = 0; k < n; k++)
                rt[k] = rq->t[order[k]];
            memcpy(rq->t, rt, n * sizeof *rt);
        }
        gguf__free(rt);
    }
    if (rc == 0)
        f->must_pack = true;
    gguf__free(order);
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
    gguf_requant *rq;
    int rc = gguf_requant_prepare(&rq, f, opt, err);
    if (rc != 0)
        return rc;
    gguf_write_options wo = {
        .version = 0,
        .endian = -1,
        .layout = GGUF_LAYOUT_PACKED,
        .threads = opt->threads,
        .progress = progress,
        .progress_user = progress_user,
        .fill = gguf_requant_fill,
        .fill_user = rq,
    };
    rc = gguf_file_save(f, path, &wo, err);
    gguf_requant_free(rq);
    return rc;
}
