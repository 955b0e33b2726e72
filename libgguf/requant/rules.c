/* llama.cpp's mixture rules (llama_tensor_get_type), as data read from its rules, not its code:
 * for a tensor that may change type and is not chosen explicitly (--tensor-type,
 * --output-tensor-type, --token-embedding-type), the first *group* (table `groups`) whose
 * categories, presets and guard fit the tensor is evaluated alone: its rules are tried in order
 * and the first that fits gives the type (a KEEP rule stops with the preset's default); then its
 * post rules each apply in turn; then its counter advances (llama.cpp counts attn_v-like and ffn
 * tensors in its tensor order, and some rules depend on that count). Finally a type whose block
 * does not divide the row length falls back to another (table `fallback_of`), and to F16 when
 * that does not fit either. */
#include "requant/requant.h"

#include <limits.h>

#define CB(c) (1u << GGUF__CAT_##c)
#define CATS_ALL ((1u << GGUF__CAT_COUNT) - 1)
#define CATS_ATTN_V_LIKE GGUF__CATS_ATTN_V_LIKE
#define CNT(c) GGUF__CNT_##c

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
    {CB(OUTPUT) | CB(TOKEN_EMBD_TIED), ANY, 0, L_NONE, CNT(NONE), RULES(r_output), NO_RULES},
    {CATS_ALL, FT(MXFP4_MOE), 0, L_NONE, CNT(NONE), RULES(r_mxfp4_moe), NO_RULES},
    {CB(TOKEN_EMBD), ANY, 0, L_NONE, CNT(NONE), RULES(r_token_embd), NO_RULES},
    {CATS_ATTN_V_LIKE, FT_VERY_LOW, 0, L_NONE, CNT(WV), RULES(r_low_attn_v), NO_RULES},
    {CB(ATTN_K), FT_VERY_LOW, C_EXPERTS8, L_NONE, CNT(NONE), RULES(r_low_attn_k), NO_RULES},
    {CB(FFN_DOWN), FT_VERY_LOW, 0, L_DOWN_COUNT, CNT(DOWN), RULES(r_low_ffn_down), NO_RULES},
    {CB(ATTN_OUTPUT), FT_VERY_LOW, 0, L_NONE, CNT(NONE), RULES(r_low_attn_output), NO_RULES},
    {CATS_ALL, FT_VERY_LOW, 0, L_NONE, CNT(NONE), NO_RULES, NO_RULES},
    {CATS_ATTN_V_LIKE, ANY, 0, L_WV, CNT(WV), RULES(r_attn_v), RULES(p_attn_v)},
    {CB(ATTN_K), ANY, 0, L_NONE, CNT(NONE), RULES(r_attn_k), NO_RULES},
    {CB(ATTN_Q), ANY, 0, L_NONE, CNT(NONE), RULES(r_attn_q), NO_RULES},
    {CB(FFN_DOWN), ANY, 0, L_DOWN, CNT(DOWN), RULES(r_ffn_down), NO_RULES},
    {CB(ATTN_OUTPUT), ANY, 0, L_NONE, CNT(NONE), RULES(r_attn_output), NO_RULES},
    {CB(FFN_GATE), ANY, 0, L_GATE, CNT(GATE), RULES(r_ffn_gate_up), NO_RULES},
    {CB(FFN_UP), ANY, 0, L_UP, CNT(UP), RULES(r_ffn_gate_up), NO_RULES},
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

static bool more_bits(int i, int n) {
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

static bool cond_holds(const gguf__requant_policy *p, const gguf__requant_tensor *s,
                       uint8_t c) {
    const gguf__requant_model *m = &p->m;
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
               (!m->bailingmoe3 || s->cat == GGUF__CAT_FFN_UP || s->cat == GGUF__CAT_FFN_GATE ||
                s->cat == GGUF__CAT_FFN_DOWN);
    case C_MODEL_70B: return m->is_70b;
    case C_TYPE_Q3K_Q4K: return s->cur == GGUF_DTYPE_Q3_K || s->cur == GGUF_DTYPE_Q4_K;
    }
    return false;
}

static bool rule_fits(const gguf__requant_policy *p, const gguf__requant_tensor *s,
                      const rule *r) {
    return (r->ftypes == 0 || (r->ftypes >> p->opt->ftype & 1)) && cond_holds(p, s, r->cond[0]) &&
           cond_holds(p, s, r->cond[1]);
}

static uint32_t rule_type(const gguf__requant_policy *p, const gguf__requant_tensor *s,
                          uint8_t t) {
    switch (t) {
    case R_KEEP: return s->cur;
    case R_OUTPUT_TYPE: return (uint32_t)p->opt->output_type;
    case R_TOKEN_TYPE: return (uint32_t)p->opt->token_embd_type;
    default: return t;
    }
}

/* The layer of an ffn tensor: its counter, or in models with experts (whose expert tensors are
 * not one per layer) the number in its name. */
static int layer_info(const gguf__requant_policy *p, gguf__requant_tensor *s, int counter,
                      gguf_error *err) {
    s->i_layer = counter;
    s->n_layer = (int)(p->m.n_layer > INT_MAX ? INT_MAX : p->m.n_layer);
    if (p->m.n_expert > 1) {
        int l;
        if (!gguf__requant_blk_number(s->name, &l))
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
int gguf__requant_mixture(gguf__requant_policy *p, gguf__requant_tensor *s, gguf_error *err) {
    enum gguf__requant_cat gcat = s->cat;
    if (gcat == GGUF__CAT_TOKEN_EMBD && p->tied)
        gcat = GGUF__CAT_TOKEN_EMBD_TIED;
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        const group *gr = &groups[g];
        if (!(gr->cats >> gcat & 1) || (gr->ftypes && !(gr->ftypes >> p->opt->ftype & 1)) ||
            !cond_holds(p, s, gr->guard))
            continue;
        s->count = gr->bump != GGUF__CNT_NONE ? p->cnt[gr->bump] : 0;
        int rc = 0;
        switch ((enum layer_src)gr->layer) {
        case L_NONE: break;
        case L_WV: s->i_layer = p->cnt[GGUF__CNT_WV]; s->n_layer = p->n_wv; break;
        case L_DOWN_COUNT:
            s->i_layer = p->cnt[GGUF__CNT_DOWN];
            s->n_layer = (int)(p->m.n_layer > INT_MAX ? INT_MAX : p->m.n_layer);
            break;
        case L_DOWN: rc = layer_info(p, s, p->cnt[GGUF__CNT_DOWN], err); break;
        case L_GATE: rc = layer_info(p, s, p->cnt[GGUF__CNT_GATE], err); break;
        case L_UP: rc = layer_info(p, s, p->cnt[GGUF__CNT_UP], err); break;
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
        if (gr->bump != GGUF__CNT_NONE)
            p->cnt[gr->bump]++;
        return 0;
    }
    return 0;
}

int gguf__requant_fallback(uint32_t *type, const char *name, uint64_t ncols, bool *fell,
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
