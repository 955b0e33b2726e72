/* llama.cpp's vocabulary loader (llama_vocab::impl::load) as rules: the tokenizer models and
 * pre-tokenizers it knows, the keys it reads with a fixed type, and what it refuses in the
 * token arrays. Names are llama.cpp's (llama-vocab.cpp, release of ggml 0.23.0). */
#include "llama.h"

#include <stdio.h>
#include <string.h>

/* Rows name their leading fields in order and leave the rest zero. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* tokenizer.ggml.model: anything else is "unknown tokenizer" */
static const gguf__llama_tokenizer tokenizers[] = {
    {"no_vocab", GGUF__LV_NONE, 0, 0}, {"none", GGUF__LV_NONE, 0, 0},
    {"llama", GGUF__LV_SPM, 0, 0},     {"bert", GGUF__LV_WPM, 0, 0},
    {"gpt2", GGUF__LV_BPE, 1, 1},      {"hybriddna", GGUF__LV_BPE, 1, 1},
    {"whitespace", GGUF__LV_BPE, 1, 1}, {"t5", GGUF__LV_UGM, 0, 0},
    {"rwkv", GGUF__LV_RWKV, 0, 0},     {"plamo2", GGUF__LV_PLAMO2, 0, 0},
    /* gemma4 is BPE with merges; its pre-tokenizer is forced to "gemma4" */
    {"gemma4", GGUF__LV_BPE, 1, 0},
};

const gguf__llama_tokenizer *gguf__llama_tokenizer_find(const char *model, size_t len) {
    for (size_t i = 0; i < sizeof tokenizers / sizeof tokenizers[0]; i++) {
        if (strlen(tokenizers[i].model) == len && memcmp(tokenizers[i].model, model, len) == 0)
            return &tokenizers[i];
    }
    return NULL;
}

/* tokenizer.ggml.pre values the BPE loader knows; anything else is "unknown pre-tokenizer" */
static const char *const pre_names[] = {
    "default", "minicpm5", "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral",
    "midm-2.0", "lfm2", "jina-v5-nano", "deepseek-llm", "deepseek-coder", "deepseek-v3", "youtu",
    "falcon", "mpt", "starcoder", "gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es",
    "jina-v2-de", "a.x-4.0", "mellum", "modern-bert", "jais-2", "gemma4",
    "granite-embed-multi-311m", "sarvam-moe", "jina-v1-en", "jina-v2-code", "roberta-bpe",
    "whitespace", "refact", "command-r", "qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "qwen35",
    "stablelm2", "olmo", "dbrx", "smaug-bpe", "poro-chat", "glm4", "chatglm-bpe", "viking", "jais",
    "tekken", "smollm", "codeshell", "bloom", "gpt3-finnish", "exaone", "exaone4", "exaone-moe",
    "chameleon", "minerva-7b", "megrez", "gpt-4o", "llama4", "kanana2", "talkie",
    "granite-embed-multi-97m", "tiny_aya", "cohere2moe", "superbpe", "trillion", "granite-docling",
    "bailingmoe", "bailingmoe2", "llada-moe", "seed-coder", "hunyuan", "hunyuan-dense", "joyai-llm",
    "kimi-k2", "grok-2", "afmoe", "laguna", "minimax-m2", "solar-open", "mellum2",
};

int gguf__llama_pre_known(const char *pre, size_t len) {
    for (size_t i = 0; i < sizeof pre_names / sizeof pre_names[0]; i++) {
        if (strlen(pre_names[i]) == len && memcmp(pre_names[i], pre, len) == 0)
            return 1;
    }
    return 0;
}

#define G GGUF__LK_GLOBAL
#define ID(name) {"tokenizer.ggml." name, GGUF_VTYPE_U32, GGUF__LK_SCALAR, G}
#define FLAG(name) {"tokenizer.ggml." name, GGUF_VTYPE_BOOL, GGUF__LK_SCALAR, G}

/* The special token ids (read as uint32: an INT32 id is refused) and the flags. */
static const char *const special_ids[] = {
    "tokenizer.ggml.bos_token_id",     "tokenizer.ggml.eos_token_id",
    "tokenizer.ggml.eot_token_id",     "tokenizer.ggml.eom_token_id",
    "tokenizer.ggml.unknown_token_id", "tokenizer.ggml.seperator_token_id",
    "tokenizer.ggml.padding_token_id", "tokenizer.ggml.mask_token_id",
    "tokenizer.ggml.fim_pre_token_id", "tokenizer.ggml.fim_suf_token_id",
    "tokenizer.ggml.fim_mid_token_id", "tokenizer.ggml.fim_pad_token_id",
    "tokenizer.ggml.fim_rep_token_id", "tokenizer.ggml.fim_sep_token_id",
    "tokenizer.ggml.prefix_token_id",  "tokenizer.ggml.suffix_token_id",
    "tokenizer.ggml.middle_token_id",
};

const gguf__llama_key gguf__llama_vocab_keys[] = {
    {"tokenizer.ggml.model", GGUF_VTYPE_STRING, GGUF__LK_SCALAR, G | GGUF__LK_REQUIRED},
    {"tokenizer.ggml.pre", GGUF_VTYPE_STRING, GGUF__LK_SCALAR, G},
    {"tokenizer.ggml.token_type_count", GGUF_VTYPE_U32, GGUF__LK_SCALAR, G, .sym = "TT",
     .dflt = "0"},
    FLAG("add_space_prefix"), FLAG("remove_extra_whitespaces"),
    ID("bos_token_id"), ID("eos_token_id"), ID("eot_token_id"), ID("eom_token_id"),
    ID("unknown_token_id"), ID("seperator_token_id"), ID("padding_token_id"),
    ID("mask_token_id"), ID("fim_pre_token_id"), ID("fim_suf_token_id"), ID("fim_mid_token_id"),
    ID("fim_pad_token_id"), ID("fim_rep_token_id"), ID("fim_sep_token_id"),
    ID("prefix_token_id"), ID("suffix_token_id"), ID("middle_token_id"),
    FLAG("add_bos_token"), FLAG("add_eos_token"), FLAG("add_sep_token"),
    FLAG("normalizer.lowercase"), FLAG("normalizer.strip_accents"),
    {NULL, 0, 0, 0}};

/* ---- the checks ---- */

static const gguf_value *find_value(const gguf_file *f, const char *key) {
    int64_t i = gguf_kv_find(f, key);
    return i < 0 ? NULL : gguf_kv_value(f, (size_t)i);
}

static uint64_t key_offset(const gguf_file *f, const char *key) {
    int64_t i = gguf_kv_find(f, key);
    return i < 0 ? GGUF_ERROR_NO_OFFSET : gguf_kv_source_offset(f, (size_t)i);
}

static const char *type_text(char *buf, size_t size, const gguf_value *v) {
    uint32_t t = gguf_value_type(v);
    const char *n = gguf_vtype_name(t);
    if (t == GGUF_VTYPE_ARRAY) {
        const char *e = gguf_vtype_name(gguf_value_elem_type(v));
        snprintf(buf, size, "ARRAY of %s", e ? e : "?");
        return buf;
    }
    return n ? n : "?";
}

/* An array of `elem` (or of elem2 when not GGUF_VTYPE_COUNT), else a finding. Returns 1 when
 * the value fits. */
static int want_array(gguf__llama_report *r, const gguf_file *f, const char *key,
                      const gguf_value *v, uint32_t elem, uint32_t elem2, const char *why) {
    if (gguf_value_type(v) == GGUF_VTYPE_ARRAY &&
        (gguf_value_elem_type(v) == elem || gguf_value_elem_type(v) == elem2))
        return 1;
    char tb[48];
    gguf__llama_emit(r, GGUF_LLAMA_ERROR, key, NULL, 0, key_offset(f, key),
                     "%s is %s where llama.cpp reads %s: it refuses the file", key,
                     type_text(tb, sizeof tb, v), why);
    return 0;
}

/* Token strings hashed to find one that appears twice (llama.cpp asserts it never does). */
typedef struct tok_set {
    const char **s;
    uint32_t *len;
    size_t cap; /* a power of two */
} tok_set;

static uint64_t hash_bytes(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* Adds a token; returns 1 when it was there already, -1 when it cannot be stored. */
static int tok_set_add(tok_set *t, const char *s, uint64_t n) {
    if (n > UINT32_MAX)
        return -1;
    size_t m = t->cap - 1;
    for (size_t i = (size_t)hash_bytes(s, (size_t)n) & m;; i = (i + 1) & m) {
        if (t->s[i] == NULL) {
            t->s[i] = s;
            t->len[i] = (uint32_t)n;
            return 0;
        }
        if (t->len[i] == n && memcmp(t->s[i], s, (size_t)n) == 0)
            return 1;
    }
}

static int check_tokens(gguf__llama_report *r, const gguf_file *f, const gguf_value *tokens,
                        gguf_error *err) {
    uint64_t n = gguf_value_count(tokens);
    size_t cap = 16;
    while (cap < 2 * n && cap < ((size_t)1 << 40))
        cap <<= 1;
    tok_set set = {gguf__calloc(cap, sizeof(char *)), gguf__calloc(cap, sizeof(uint32_t)), cap};
    if (set.s == NULL || set.len == NULL) {
        gguf__free(set.s);
        gguf__free(set.len);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    gguf_value_iter it;
    gguf_value e;
    gguf_value_iter_init(&it, tokens);
    uint64_t empty = 0, first_empty = 0, dups = 0;
    while (gguf_value_iter_next(&it, &e)) {
        const char *s;
        uint64_t len;
        if (gguf_value_get_str(&s, &len, &e, NULL) != 0)
            continue;
        if (len == 0) {
            if (empty++ == 0)
                first_empty = it.index - 1;
            continue; /* llama.cpp names it [EMPTY_<id>] */
        }
        if (tok_set_add(&set, s, len) == 1 && dups++ < 3) {
            char q[96];
            gguf__llama_emit(r, GGUF_LLAMA_ERROR, "tokenizer.ggml.tokens", NULL, 0,
                             key_offset(f, "tokenizer.ggml.tokens"),
                             "tokenizer.ggml.tokens[%llu] '%s' appears twice: llama.cpp aborts "
                             "on a vocabulary with duplicate tokens",
                             (unsigned long long)(it.index - 1), gguf__quote(q, 64, s, len));
        }
    }
    gguf__free(set.s);
    gguf__free(set.len);
    if (dups > 3)
        gguf__llama_emit(r, GGUF_LLAMA_ERROR, "tokenizer.ggml.tokens", NULL, 0,
                         GGUF_ERROR_NO_OFFSET, "tokenizer.ggml.tokens: %llu duplicate tokens in all",
                         (unsigned long long)dups);
    if (empty > 0)
        gguf__llama_emit(r, GGUF_LLAMA_WARNING, "tokenizer.ggml.tokens", NULL, 0,
                         key_offset(f, "tokenizer.ggml.tokens"),
                         "tokenizer.ggml.tokens: %llu empty token(s), the first at %llu (llama.cpp "
                         "renames them [EMPTY_<id>])",
                         (unsigned long long)empty, (unsigned long long)first_empty);
    return 0;
}

/* A per-token array: shorter than the tokens is refused, longer is odd. */
static void check_per_token(gguf__llama_report *r, const gguf_file *f, const char *key,
                            const gguf_value *v, uint64_t n_tokens) {
    uint64_t n = gguf_value_count(v);
    if (n < n_tokens)
        gguf__llama_emit(r, GGUF_LLAMA_ERROR, key, NULL, 0, key_offset(f, key),
                         "%s has %llu elements for %llu tokens: llama.cpp refuses fewer than one "
                         "per token", key, (unsigned long long)n, (unsigned long long)n_tokens);
    else if (n > n_tokens)
        gguf__llama_emit(r, GGUF_LLAMA_WARNING, key, NULL, 0, key_offset(f, key),
                         "%s has %llu elements for %llu tokens (llama.cpp ignores the rest)", key,
                         (unsigned long long)n, (unsigned long long)n_tokens);
}

static void check_charsmap(gguf__llama_report *r, const gguf_file *f, const gguf_value *v) {
    static const char key[] = "tokenizer.ggml.precompiled_charsmap";
    if (!want_array(r, f, key, v, GGUF_VTYPE_I8, GGUF_VTYPE_U8, "an array of bytes"))
        return;
    uint64_t n = gguf_value_count(v);
    uint32_t blob = 0;
    gguf_value_iter it;
    gguf_value e;
    gguf_value_iter_init(&it, v);
    for (int k = 0; k < 4 && gguf_value_iter_next(&it, &e); k++) {
        uint64_t u;
        int64_t s;
        int sgn;
        if (gguf_value_get_int(&u, &s, &sgn, &e, NULL) == 0)
            blob |= (uint32_t)((sgn ? (uint64_t)s : u) & 0xff) << (8 * k);
    }
    if (n < 4 || (uint64_t)blob + 4 >= n)
        gguf__llama_emit(r, GGUF_LLAMA_ERROR, key, NULL, 0, key_offset(f, key),
                         "%s: its %llu bytes cannot hold the %u-byte table its header declares: "
                         "llama.cpp refuses it", key, (unsigned long long)n, blob);
}

static void check_special_ids(gguf__llama_report *r, const gguf_file *f, uint64_t n_tokens) {
    for (size_t k = 0; k < sizeof special_ids / sizeof special_ids[0]; k++) {
        const gguf_value *v = find_value(f, special_ids[k]);
        uint64_t id;
        if (v == NULL || gguf_value_type(v) != GGUF_VTYPE_U32 ||
            gguf_value_get_u64(&id, v, NULL) != 0)
            continue; /* a wrong type is reported with the key types */
        if (id >= n_tokens)
            gguf__llama_emit(r, GGUF_LLAMA_WARNING, special_ids[k], NULL, 0,
                             key_offset(f, special_ids[k]),
                             "%s is %llu, outside the vocabulary of %llu tokens: llama.cpp loads "
                             "the model but ignores it (generation goes wrong)",
                             special_ids[k], (unsigned long long)id, (unsigned long long)n_tokens);
    }
}

static void check_chat_templates(gguf__llama_report *r, const gguf_file *f) {
    static const char prefix[] = "tokenizer.chat_template";
    size_t plen = sizeof prefix - 1;
    for (size_t i = 0; i < gguf_kv_count(f); i++) {
        size_t len;
        const char *k = gguf_kv_key(f, i, &len);
        if (len < plen || memcmp(k, prefix, plen) != 0 || (len > plen && k[plen] != '.'))
            continue;
        const gguf_value *v = gguf_kv_value(f, i);
        if (gguf_value_type(v) == GGUF_VTYPE_STRING)
            continue;
        char q[96], tb[48];
        gguf__quote(q, sizeof q, k, len);
        gguf__llama_emit(r, GGUF_LLAMA_WARNING, q, NULL, 0, gguf_kv_source_offset(f, i),
                         "%s is %s, not a STRING: llama.cpp loads the model but has no usable "
                         "chat template", q, type_text(tb, sizeof tb, v));
    }
}

int gguf__llama_check_vocab(gguf__llama_report *r, const gguf_file *f, const char *arch,
                            int64_t *n_tokens, gguf_error *err) {
    *n_tokens = -1;
    const char *mkey = "tokenizer.ggml.model";
    const gguf_value *mv = find_value(f, mkey);
    const char *model;
    uint64_t mlen;
    if (mv == NULL || gguf_value_get_str(&model, &mlen, mv, NULL) != 0)
        return 0; /* missing or not a string: reported with the key types */
    const gguf__llama_tokenizer *tk = gguf__llama_tokenizer_find(model, (size_t)mlen);
    if (tk == NULL) {
        char q[96];
        gguf__llama_emit(r, GGUF_LLAMA_ERROR, mkey, NULL, 0, key_offset(f, mkey),
                         "%s is '%s', a tokenizer llama.cpp does not know: it refuses the model "
                         "(it knows llama, gpt2, bert, t5, rwkv, plamo2, gemma4, whitespace, "
                         "hybriddna, none)", mkey, gguf__quote(q, sizeof q, model, (size_t)mlen));
        return 0;
    }
    if (tk->kind == GGUF__LV_NONE) {
        /* the vocabulary is <arch>.vocab_size dummy tokens */
        char key[160];
        snprintf(key, sizeof key, "%s.vocab_size", arch);
        const gguf_value *v = find_value(f, key);
        uint64_t n = 0;
        if (v != NULL && gguf_value_type(v) == GGUF_VTYPE_U32 && gguf_value_get_u64(&n, v, NULL) == 0)
            *n_tokens = (int64_t)n;
        else
            *n_tokens = 0;
        return 0;
    }

    const char *pkey = "tokenizer.ggml.pre";
    const gguf_value *pv = find_value(f, pkey);
    const char *pre = "";
    uint64_t plen = 0;
    int pre_ok = pv == NULL || gguf_value_get_str(&pre, &plen, pv, NULL) == 0;
    if (tk->uses_pre && pre_ok) {
        char q[96];
        if (plen == 0)
            gguf__llama_emit(r, GGUF_LLAMA_WARNING, pkey, NULL, 0, key_offset(f, pkey),
                             "%s is %s: llama.cpp uses the 'default' BPE pre-tokenizer, and "
                             "warns that generation quality will be degraded", pkey,
                             pv == NULL ? "absent" : "empty");
        else if (!gguf__llama_pre_known(pre, (size_t)plen))
            gguf__llama_emit(r, GGUF_LLAMA_ERROR, pkey, NULL, 0, key_offset(f, pkey),
                             "%s is '%s', a pre-tokenizer llama.cpp does not know: it refuses "
                             "the model", pkey, gguf__quote(q, sizeof q, pre, (size_t)plen));
    }
    if (tk->needs_merges) {
        const char *gkey = "tokenizer.ggml.merges";
        const gguf_value *gv = find_value(f, gkey);
        int kimi = plen == 7 && memcmp(pre, "kimi-k2", 7) == 0 && tk->uses_pre;
        if (gv == NULL && !kimi)
            gguf__llama_emit(r, GGUF_LLAMA_ERROR, gkey, NULL, 0, GGUF_ERROR_NO_OFFSET,
                             "%s is absent: llama.cpp refuses a BPE tokenizer (%s) without merges",
                             gkey, tk->model);
        else if (gv != NULL)
            want_array(r, f, gkey, gv, GGUF_VTYPE_STRING, GGUF_VTYPE_STRING, "an array of STRING");
    }
    if (tk->kind == GGUF__LV_UGM) {
        const gguf_value *cv = find_value(f, "tokenizer.ggml.precompiled_charsmap");
        if (cv != NULL)
            check_charsmap(r, f, cv);
    }

    const char *tkey = "tokenizer.ggml.tokens";
    const gguf_value *tv = find_value(f, tkey);
    if (tv == NULL) {
        gguf__llama_emit(r, GGUF_LLAMA_ERROR, tkey, NULL, 0, GGUF_ERROR_NO_OFFSET,
                         "%s is absent: llama.cpp refuses a model without its vocabulary", tkey);
        return 0;
    }
    if (!want_array(r, f, tkey, tv, GGUF_VTYPE_STRING, GGUF_VTYPE_STRING, "an array of STRING"))
        return 0;
    uint64_t n = gguf_value_count(tv);
    if (n > INT32_MAX)
        n = INT32_MAX;
    *n_tokens = (int64_t)n;
    int rc = check_tokens(r, f, tv, err);
    if (rc != 0)
        return rc;

    const char *skey = "tokenizer.ggml.scores";
    const gguf_value *sv = find_value(f, skey);
    if (sv != NULL && want_array(r, f, skey, sv, GGUF_VTYPE_F32, GGUF_VTYPE_I32,
                                 "an array of FLOAT32 or INT32"))
        check_per_token(r, f, skey, sv, n);
    const char *ykey = "tokenizer.ggml.token_type";
    const gguf_value *yv = find_value(f, ykey);
    if (yv != NULL && want_array(r, f, ykey, yv, GGUF_VTYPE_I32, GGUF_VTYPE_I32, "an array of INT32"))
        check_per_token(r, f, ykey, yv, n);
    const char *ukey = "tokenizer.ggml.suppress_tokens";
    const gguf_value *uv = find_value(f, ukey);
    if (uv != NULL)
        want_array(r, f, ukey, uv, GGUF_VTYPE_I32, GGUF_VTYPE_I32, "an array of INT32");

    check_special_ids(r, f, n);
    check_chat_templates(r, f);
    return 0;
}
