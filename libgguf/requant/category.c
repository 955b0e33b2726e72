/* What a tensor is, from its name as llama.cpp's quantizer sees it: its category (output,
 * attn_v, ffn_down, ...), its layer ("blk.N."), whether it may change type at all, and whether
 * its new type needs an importance matrix. */
#include "requant/requant.h"

#include <ctype.h>
#include <limits.h>
#include <string.h>

/* Name -> category: the first row whose text the name equals (exact) or contains wins. */
static const struct {
    const char *text;
    bool exact;
    uint8_t cat;
} cat_rules[] = {
    {"output.weight", true, GGUF__CAT_OUTPUT},
    {"token_embd.weight", true, GGUF__CAT_TOKEN_EMBD},
    {"per_layer_token_embd.weight", true, GGUF__CAT_TOKEN_EMBD},
    {"attn_qkv.weight", false, GGUF__CAT_ATTN_QKV},
    {"attn_kv_b.weight", false, GGUF__CAT_ATTN_KV_B},
    {"attn_v.weight", false, GGUF__CAT_ATTN_V},
    {"attn_k.weight", false, GGUF__CAT_ATTN_K},
    {"attn_q.weight", false, GGUF__CAT_ATTN_Q},
    {"attn_output.weight", false, GGUF__CAT_ATTN_OUTPUT},
    {"ffn_up", false, GGUF__CAT_FFN_UP},
    {"ffn_gate", false, GGUF__CAT_FFN_GATE},
    {"ffn_down", false, GGUF__CAT_FFN_DOWN},
};

enum gguf__requant_cat gguf__requant_category(const char *name) {
    for (size_t i = 0; i < sizeof cat_rules / sizeof cat_rules[0]; i++) {
        if (cat_rules[i].exact ? strcmp(name, cat_rules[i].text) == 0
                               : strstr(name, cat_rules[i].text) != NULL)
            return (enum gguf__requant_cat)cat_rules[i].cat;
    }
    return GGUF__CAT_OTHER;
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
bool gguf__requant_allowed(const char *name, const gguf_tensor_info *ti,
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

/* The types that need an importance matrix (except for the token embeddings and the output);
 * Q2_K only in a Q2_K_S file. */
bool gguf__requant_needs_imatrix(const char *name, uint32_t dtype, uint32_t ftype) {
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

/* "blk.%d." as sscanf reads it: the number after "blk." (false when there is none). */
bool gguf__requant_blk_number(const char *name, int *out) {
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
