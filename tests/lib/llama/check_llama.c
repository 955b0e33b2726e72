/* llama.cpp's loader rules (libgguf/llama/llama_*.c): the expression language the tables are
 * written in, the tables themselves (every expression parses, every symbol exists), and
 * gguf_llama_check on models built in memory, one rule at a time, with every allocation failure.
 * The rules against llama.cpp itself: tests/cli/verify_llama.sh. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libgguf/llama/llama.h"
#include "tests/support/testutil.h"

/* ---- expressions ---- */

static int fixed_sym(void *ctx, const char *name, size_t len, int defined, int64_t *v) {
    (void)ctx;
    static const struct {
        const char *name;
        int64_t v;
        int undef;
    } syms[] = {{"E", 64, 0}, {"H", 4, 0}, {"Z", 0, 0}, {"U", 0, 1}, {"BIG", INT64_MAX, 0}};
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        if (strlen(syms[i].name) == len && memcmp(syms[i].name, name, len) == 0) {
            *v = defined ? strcmp(syms[i].name, "U") != 0 : syms[i].v;
            return defined ? 0 : syms[i].undef;
        }
    }
    return -1;
}

static int ev(const char *e, int64_t layer, int64_t *v) {
    *v = -12345;
    return gguf__llama_eval(v, e, layer, fixed_sym, NULL);
}

START_TEST(test_expr_values) {
    static const struct {
        const char *e;
        int64_t layer, want;
    } cases[] = {
        {"E", -1, 64},          {"E/H", -1, 16},       {"E / H * 2", -1, 32},
        {"2 + 3 * 4", -1, 14},  {"(2 + 3) * 4", -1, 20}, {"E % 5", -1, 4},
        {"-E + 1", -1, -63},    {"!Z", -1, 1},         {"E == 64 && H != 3", -1, 1},
        {"E < 64 || H >= 4", -1, 1}, {"E <= 63", -1, 0}, {"Z ? 1 : 2", -1, 2},
        {"H ? E/H : 0", -1, 16}, {"Z ? U : 7", -1, 7},  {"i * 2", 5, 10},
        {"i % 2 == 1", 3, 1},   {"Z && U", -1, 0},     {"H || U", -1, 1},
        {"defined(E)", -1, 1},  {"defined(U)", -1, 0}, {"!(E > 1 && H > 1)", -1, 0},
        {"10 - 3 - 2", -1, 5},  {"64 / 4 / 2", -1, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t v;
        int rc = ev(cases[i].e, cases[i].layer, &v);
        ck_assert_msg(rc == 0, "'%s' gave rc %d", cases[i].e, rc);
        ck_assert_msg(v == cases[i].want, "'%s' = %lld, want %lld", cases[i].e, (long long)v,
                      (long long)cases[i].want);
    }
}
END_TEST

START_TEST(test_expr_undefined_and_errors) {
    static const char *const undef[] = {"U", "U + 1", "E / Z", "E % Z", "BIG + 1", "BIG * 2",
                                        "-BIG - 2", "U ? 1 : 2", "U && H", "i", "99999999999999999999"};
    for (size_t i = 0; i < sizeof undef / sizeof undef[0]; i++) {
        int64_t v;
        ck_assert_msg(ev(undef[i], -1, &v) == 1, "'%s' should be undefined", undef[i]);
        ck_assert_int_eq(v, -12345); /* untouched */
    }
    static const char *const bad[] = {"", "E +", "(E", "E)", "NOPE", "E ? 1", "defined E",
                                      "defined()", "E $ H", "1 2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t v;
        ck_assert_msg(ev(bad[i], -1, &v) == -1, "'%s' should be a syntax error", bad[i]);
    }
}
END_TEST

static const char *label(void *ctx, const char *name, size_t len) {
    (void)ctx;
    return len == 1 && name[0] == 'E' ? "llama.embedding_length" : NULL;
}

START_TEST(test_expr_explain) {
    char buf[128];
    gguf__llama_expr_explain(buf, sizeof buf, "E / H * 2", label, NULL);
    ck_assert_str_eq(buf, "llama.embedding_length/H*2");
    gguf__llama_expr_explain(buf, 8, "E + E", label, NULL);
    ck_assert_uint_lt(strlen(buf), 8);
}
END_TEST

/* ---- the tables ---- */

typedef struct known {
    const char *names[256];
    size_t n;
} known;

static void know(known *k, const char *name) {
    if (name != NULL && k->n < 256)
        k->names[k->n++] = name;
}

static void know_keys(known *k, const gguf__llama_key *keys) {
    for (; keys != NULL && keys->name != NULL; keys++)
        know(k, keys->sym);
}

static int known_sym(void *ctx, const char *name, size_t len, int defined, int64_t *v) {
    known *k = ctx;
    (void)defined;
    if (len == 5 && memcmp(name, "XUMAX", 5) == 0) {
        *v = 1;
        return 0;
    }
    for (size_t i = 0; i < k->n; i++) {
        if (strlen(k->names[i]) == len && memcmp(k->names[i], name, len) == 0) {
            *v = 2;
            return 0;
        }
    }
    return -1;
}

static void parses(known *k, const char *e, const char *where) {
    if (e == NULL)
        return;
    int64_t v;
    ck_assert_msg(gguf__llama_eval(&v, e, 1, known_sym, k) >= 0,
                  "%s: '%s' does not parse or names an unknown symbol", where, e);
}

static void parse_keys(known *k, const gguf__llama_key *keys, const char *arch) {
    for (; keys != NULL && keys->name != NULL; keys++) {
        parses(k, keys->dflt, arch);
        parses(k, keys->when, arch);
        ck_assert_msg(keys->type < GGUF_VTYPE_COUNT, "%s: key %s has no type", arch, keys->name);
        ck_assert_msg(keys->sym == NULL || keys->values != NULL || keys->type != GGUF_VTYPE_STRING ||
                          keys->form == GGUF__LK_ARRAY,
                      "%s: string key %s sets a symbol without a value list", arch, keys->name);
    }
}

START_TEST(test_tables_parse) {
    size_t full = 0;
    for (size_t a = 0; a < gguf__llama_n_archs; a++) {
        const gguf__llama_arch *arch = &gguf__llama_archs[a];
        for (size_t b = 0; b < a; b++)
            ck_assert_msg(strcmp(gguf__llama_archs[b].name, arch->name) != 0, "%s twice",
                          arch->name);
        known k = {{NULL}, 0};
        know(&k, "V");
        know_keys(&k, gguf__llama_file_keys);
        know_keys(&k, gguf__llama_vocab_keys);
        know_keys(&k, arch->keys);
        for (const gguf__llama_sym *s = arch->syms; s != NULL && s->name != NULL; s++)
            know(&k, s->name);
        know_keys(&k, gguf__llama_generic_keys);
        for (const gguf__llama_sym *s = gguf__llama_generic_syms; s->name != NULL; s++)
            know(&k, s->name);
        for (size_t i = 0; gguf__llama_layer_sym(i) != NULL; i++)
            know(&k, gguf__llama_layer_sym(i));
        for (const gguf__llama_sym *s = arch->syms; s != NULL && s->name != NULL; s++)
            parses(&k, s->expr, arch->name);
        for (const gguf__llama_sym *s = gguf__llama_generic_syms; s->name != NULL; s++)
            parses(&k, s->expr, "generic");
        parse_keys(&k, gguf__llama_file_keys, "file");
        parse_keys(&k, gguf__llama_vocab_keys, "vocab");
        parse_keys(&k, gguf__llama_generic_keys, "generic");
        parse_keys(&k, arch->keys, arch->name);
        for (const gguf__llama_rule *r = gguf__llama_generic_rules; r->expr != NULL; r++) {
            parses(&k, r->expr, "generic rule");
            parses(&k, r->when, "generic rule");
        }
        for (const gguf__llama_rule *r = arch->rules; r != NULL && r->expr != NULL; r++) {
            parses(&k, r->expr, arch->name);
            parses(&k, r->when, arch->name);
        }
        const gguf__llama_tensor *lists[2] = {arch->tensors, gguf__llama_generic_tensors};
        for (int l = 0; l < 2 && arch->tensors != NULL; l++) {
            for (const gguf__llama_tensor *t = lists[l]; t->name != NULL; t++) {
                int per_layer = (t->flags & (GGUF__LT_LAYER | GGUF__LT_ALL_LAYERS)) != 0;
                ck_assert_msg((strstr(t->name, "%d") != NULL) == per_layer,
                              "%s: %s: %%d and the layer flag disagree", arch->name, t->name);
                ck_assert_msg(t->dims[0] != NULL, "%s: %s has no shape", arch->name, t->name);
                for (int d = 0; d < 4 && t->dims[d] != NULL; d++)
                    parses(&k, t->dims[d], t->name);
                for (int d = 0; d < 4 && t->alt_dims[d] != NULL; d++)
                    parses(&k, t->alt_dims[d], t->name);
                parses(&k, t->when, t->name);
            }
        }
        full += arch->tensors != NULL;
    }
    ck_assert_uint_ge(gguf__llama_n_archs, 140);
    ck_assert_uint_eq(full, 140);
}
END_TEST

START_TEST(test_arch_support) {
    static const char *const full[] = {"llama", "qwen2", "qwen3", "qwen3moe", "gemma2", "gemma3",
                                       "phi3", "deepseek2", "gpt-oss", "bert", "nomic-bert",
                                       "mistral3", "mamba2", "rwkv7", "glm4moe", "lfm2",
                                       "falcon", "openelm"};
    for (size_t i = 0; i < sizeof full / sizeof full[0]; i++)
        ck_assert_int_eq(gguf_llama_arch_support(full[i]), GGUF_LLAMA_ARCH_FULL);
    ck_assert_int_eq(gguf_llama_arch_support("eagle3"), GGUF_LLAMA_ARCH_KEYS);
    ck_assert_int_eq(gguf_llama_arch_support("clip"), GGUF_LLAMA_ARCH_UNKNOWN);
    ck_assert_int_eq(gguf_llama_arch_support("lama"), GGUF_LLAMA_ARCH_UNKNOWN);
    ck_assert_int_eq(gguf_llama_arch_support(NULL), GGUF_LLAMA_ARCH_UNKNOWN);
    ck_assert_ptr_null(gguf_llama_arch_not_a_model("llama"));
    ck_assert_ptr_null(gguf_llama_arch_not_a_model("lama"));
    ck_assert_ptr_null(gguf_llama_arch_not_a_model(NULL));
    ck_assert_ptr_nonnull(gguf_llama_arch_not_a_model("eagle3"));
    ck_assert_ptr_nonnull(gguf_llama_arch_not_a_model("clip"));
    ck_assert_str_eq(gguf_llama_arch_name(1), "llama");
    ck_assert_ptr_null(gguf_llama_arch_name(100000));
    size_t n = 0;
    while (gguf_llama_arch_name(n) != NULL)
        n++;
    ck_assert_uint_eq(n, gguf__llama_n_archs);
}
END_TEST

/* ---- gguf_llama_check on models built in memory ---- */

#define MAX_F 64
typedef struct found {
    int n;
    int severity[MAX_F];
    char key[MAX_F][160], tensor[MAX_F][80], msg[MAX_F][1024];
} found;

static void collect(void *user, const gguf_llama_finding *f) {
    found *r = user;
    ck_assert_ptr_nonnull(f->message);
    if (r->n < MAX_F) {
        r->severity[r->n] = f->severity;
        snprintf(r->key[r->n], sizeof r->key[0], "%s", f->key ? f->key : "");
        snprintf(r->tensor[r->n], sizeof r->tensor[0], "%s", f->tensor ? f->tensor : "");
        snprintf(r->msg[r->n], sizeof r->msg[0], "%s", f->message);
    }
    r->n++;
}

/* A llama model with a 6-token SPM vocabulary and every tensor it needs. */
static gguf_file *tiny_llama(void) {
    gguf_file *f;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, &err), 0);
    static const char *text[] = {
        "general.architecture=str:llama", "llama.context_length=u32:64",
        "llama.embedding_length=u32:32", "llama.block_count=u32:1",
        "llama.feed_forward_length=u32:48", "llama.attention.head_count=u32:4",
        "llama.attention.head_count_kv=u32:2", "llama.attention.layer_norm_rms_epsilon=f32:1e-5",
        "tokenizer.ggml.model=str:llama", "tokenizer.ggml.bos_token_id=u32:1",
        "general.file_type=u32:0"};
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s", text[i]);
        char *eq = strchr(buf, '='), *colon = strchr(eq, ':');
        *eq = *colon = '\0';
        ck_assert_int_eq(gguf_kv_set_text(f, buf, (uint32_t)gguf_vtype_parse(eq + 1),
                                          GGUF_VTYPE_COUNT, colon + 1, strlen(colon + 1), &err),
                         0);
    }
    static const char *const toks[] = {"<unk>", "<s>", "</s>", "a", "b", "c"};
    size_t lens[6];
    for (int i = 0; i < 6; i++)
        lens[i] = strlen(toks[i]);
    ck_assert_int_eq(gguf_kv_set_str_array(f, "tokenizer.ggml.tokens", toks, lens, 6, &err), 0);
    static const struct {
        const char *name;
        uint64_t d0, d1;
    } t[] = {{"token_embd.weight", 32, 6},      {"output_norm.weight", 32, 0},
             {"blk.0.attn_norm.weight", 32, 0}, {"blk.0.attn_q.weight", 32, 32},
             {"blk.0.attn_k.weight", 32, 16},   {"blk.0.attn_v.weight", 32, 16},
             {"blk.0.attn_output.weight", 32, 32}, {"blk.0.ffn_norm.weight", 32, 0},
             {"blk.0.ffn_gate.weight", 32, 48}, {"blk.0.ffn_down.weight", 48, 32},
             {"blk.0.ffn_up.weight", 32, 48}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint64_t dims[2] = {t[i].d0, t[i].d1};
        ck_assert_int_eq(gguf_tensor_add(f, t[i].name, GGUF_DTYPE_F32, dims, t[i].d1 ? 2 : 1, &err), 0);
    }
    return f;
}

static int check(const gguf_file *f, unsigned flags, found *r) {
    memset(r, 0, sizeof *r);
    gguf_llama_check_stats st;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_llama_check(&st, f, flags, collect, r, &err), 0);
    ck_assert_int_eq((int)(st.errors + st.warnings + st.notes), r->n);
    return (int)st.errors;
}

static int has(const found *r, int severity, const char *key, const char *tensor,
               const char *needle) {
    for (int i = 0; i < r->n && i < MAX_F; i++) {
        if (r->severity[i] == severity && (key == NULL || strcmp(r->key[i], key) == 0) &&
            (tensor == NULL || strcmp(r->tensor[i], tensor) == 0) &&
            (needle == NULL || strstr(r->msg[i], needle) != NULL))
            return 1;
    }
    for (int i = 0; i < r->n && i < MAX_F; i++)
        fprintf(stderr, "  finding %d [%d] key=%s tensor=%s: %s\n", i, r->severity[i], r->key[i],
                r->tensor[i], r->msg[i]);
    return 0;
}

static void set(gguf_file *f, const char *key, const char *type, const char *value) {
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_kv_set_text(f, key, (uint32_t)gguf_vtype_parse(type), GGUF_VTYPE_COUNT,
                                   value, strlen(value), &err) == 0, "%s", err.message);
}

START_TEST(test_check_clean) {
    gguf_file *f = tiny_llama();
    found r;
    ck_assert_int_eq(check(f, 0, &r), 0);
    ck_assert_int_eq(r.n, 0);
    gguf_file_free(f);
}
END_TEST

START_TEST(test_check_key_types) {
    static const struct {
        const char *key, *type, *value;
    } cases[] = {{"llama.context_length", "str", "64"},
                 {"llama.embedding_length", "f32", "32"},
                 {"llama.attention.layer_norm_rms_epsilon", "u32", "0"},
                 {"tokenizer.ggml.eos_token_id", "i32", "2"},
                 {"general.file_type", "str", "x"},
                 {"llama.attention.head_count", "u64", "4"},
                 {"tokenizer.ggml.add_bos_token", "u8", "1"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gguf_file *f = tiny_llama();
        set(f, cases[i].key, cases[i].type, cases[i].value);
        found r;
        ck_assert_int_ge(check(f, 0, &r), 1);
        ck_assert_msg(has(&r, GGUF_LLAMA_ERROR, cases[i].key, NULL, "where llama.cpp reads"),
                      "%s as %s", cases[i].key, cases[i].type);
        gguf_file_free(f);
    }
}
END_TEST

START_TEST(test_check_hparams) {
    gguf_file *f = tiny_llama();
    gguf_error err;
    gguf_error_clear(&err);
    found r;
    ck_assert_int_eq(gguf_kv_remove(f, "llama.embedding_length", &err), 0);
    ck_assert_int_ge(check(f, 0, &r), 1);
    ck_assert(has(&r, GGUF_LLAMA_ERROR, "llama.embedding_length", NULL, "is absent"));
    gguf_file_free(f);

    f = tiny_llama();
    set(f, "llama.expert_count", "u32", "4");
    ck_assert_int_ge(check(f, 0, &r), 1);
    ck_assert(has(&r, GGUF_LLAMA_ERROR, "llama.expert_used_count", NULL, "aborts"));
    ck_assert(has(&r, GGUF_LLAMA_ERROR, NULL, "blk.0.ffn_gate_inp.weight", "missing"));
    gguf_file_free(f);

    f = tiny_llama();
    set(f, "llama.attention.head_count_kv", "u32", "3");
    ck_assert_int_ge(check(f, 0, &r), 1);
    ck_assert(has(&r, GGUF_LLAMA_WARNING, "llama.attention.head_count_kv", NULL, "does not divide"));
    ck_assert(has(&r, GGUF_LLAMA_ERROR, NULL, "blk.0.attn_k.weight", "llama.attention.head_count_kv"));
    gguf_file_free(f);

    f = tiny_llama();
    set(f, "llama.block_count", "u32", "2");
    ck_assert_int_ge(check(f, 0, &r), 1);
    ck_assert(has(&r, GGUF_LLAMA_ERROR, "llama.block_count", "blk.1.attn_norm.weight", "missing"));
    gguf_file_free(f);

    f = tiny_llama();
    set(f, "llama.rope.scaling.type", "str", "sideways");
    ck_assert_int_ge(check(f, 0, &r), 1);
    ck_assert(has(&r, GGUF_LLAMA_ERROR, "llama.rope.scaling.type", NULL, "aborts"));
    gguf_file_free(f);

    /* a per-layer array: one per layer is accepted, another length refused */
    f = tiny_llama();
    uint32_t one[1] = {4}, two[2] = {4, 4};
    ck_assert_int_eq(gguf_kv_set_array(f, "llama.attention.head_count", GGUF_VTYPE_U32, one, 1, &err), 0);
    ck_assert_int_eq(check(f, 0, &r), 0);
    ck_assert_int_eq(gguf_kv_set_array(f, "llama.attention.head_count", GGUF_VTYPE_U32, two, 2, &err), 0);
    ck_assert_int_ge(check(f, 0, &r), 1);
    ck_assert(has(&r, GGUF_LLAMA_ERROR, "llama.attention.head_count", NULL, "one per layer"));
    gguf_file_free(f);
}
END_TEST

START_TEST(test_check_tensors) {
    gguf_file *f = tiny_llama();
    gguf_error err;
    gguf_error_clear(&err);
    found r;
    uint64_t d = 32;
    ck_assert_int_eq(gguf_tensor_add(f, "blk.0.unused.weight", GGUF_DTYPE_F32, &d, 1, &err), 0);
    ck_assert_int_eq(check(f, 0, &r), 1);
    ck_assert(has(&r, GGUF_LLAMA_ERROR, NULL, "blk.0.unused.weight", "does not use"));
    ck_assert_int_eq(gguf_tensor_remove(f, "blk.0.unused.weight", &err), 0);
    ck_assert_int_eq(gguf_tensor_remove(f, "output_norm.weight", &err), 0);
    ck_assert_int_eq(check(f, 0, &r), 1);
    ck_assert(has(&r, GGUF_LLAMA_ERROR, NULL, "output_norm.weight", "missing"));
    /* an optional tensor of the wrong shape is refused too */
    uint64_t dims[2] = {32, 7};
    ck_assert_int_eq(gguf_tensor_add(f, "output_norm.weight", GGUF_DTYPE_F32, &d, 1, &err), 0);
    ck_assert_int_eq(gguf_tensor_add(f, "output.weight", GGUF_DTYPE_F32, dims, 2, &err), 0);
    ck_assert_int_eq(check(f, 0, &r), 1);
    ck_assert(has(&r, GGUF_LLAMA_ERROR, NULL, "output.weight", "[32, 6]"));
    gguf_file_free(f);
}
END_TEST

START_TEST(test_check_vocab) {
    gguf_file *f = tiny_llama();
    found r;
    set(f, "tokenizer.ggml.eos_token_id", "u32", "6");
    ck_assert_int_eq(check(f, 0, &r), 0);
    ck_assert(has(&r, GGUF_LLAMA_WARNING, "tokenizer.ggml.eos_token_id", NULL, "outside"));
    set(f, "tokenizer.ggml.model", "str", "gpt2");
    ck_assert_int_ge(check(f, 0, &r), 1);
    ck_assert(has(&r, GGUF_LLAMA_ERROR, "tokenizer.ggml.merges", NULL, "without merges"));
    ck_assert(has(&r, GGUF_LLAMA_WARNING, "tokenizer.ggml.pre", NULL, "degraded"));
    set(f, "tokenizer.ggml.pre", "str", "no-such");
    ck_assert_int_ge(check(f, 0, &r), 1);
    ck_assert(has(&r, GGUF_LLAMA_ERROR, "tokenizer.ggml.pre", NULL, "does not know"));
    set(f, "tokenizer.ggml.model", "str", "llamax");
    ck_assert_int_ge(check(f, 0, &r), 1);
    ck_assert(has(&r, GGUF_LLAMA_ERROR, "tokenizer.ggml.model", NULL, "does not know"));
    gguf_file_free(f);

    f = tiny_llama();
    gguf_error err;
    gguf_error_clear(&err);
    float scores[2] = {0, 1};
    ck_assert_int_eq(gguf_kv_set_array(f, "tokenizer.ggml.scores", GGUF_VTYPE_F32, scores, 2, &err), 0);
    static const char *const dup[] = {"<unk>", "<s>", "</s>", "a", "b", "a"};
    size_t lens[6];
    for (int i = 0; i < 6; i++)
        lens[i] = strlen(dup[i]);
    ck_assert_int_eq(gguf_kv_set_str_array(f, "tokenizer.ggml.tokens", dup, lens, 6, &err), 0);
    set(f, "tokenizer.chat_template", "u32", "1");
    ck_assert_int_ge(check(f, 0, &r), 2);
    ck_assert(has(&r, GGUF_LLAMA_ERROR, "tokenizer.ggml.scores", NULL, "2 elements for 6 tokens"));
    ck_assert(has(&r, GGUF_LLAMA_ERROR, "tokenizer.ggml.tokens", NULL, "twice"));
    ck_assert(has(&r, GGUF_LLAMA_WARNING, "tokenizer.chat_template", NULL, "not a STRING"));
    gguf_file_free(f);
}
END_TEST

/* The per-layer symbols: lfm2's layers are short convolutions where head_count_kv is 0 and
 * attention elsewhere, each with its own width (what llama.cpp's loader creates; cli_verify_archs
 * holds the same plan to llama-load) */
typedef struct plan_seen {
    char names[64][64];
    int64_t d1[64];
    size_t n;
} plan_seen;

static void on_plan(void *user, const char *name, const int64_t *dims, int n_dims, int required) {
    plan_seen *p = user;
    (void)required;
    if (p->n < 64) {
        snprintf(p->names[p->n], sizeof p->names[0], "%s", name);
        p->d1[p->n++] = n_dims > 1 ? dims[1] : -1;
    }
}

static int64_t planned(const plan_seen *p, const char *name) {
    for (size_t i = 0; i < p->n; i++) {
        if (strcmp(p->names[i], name) == 0)
            return p->d1[i];
    }
    return -2;
}

START_TEST(test_layer_symbols) {
    gguf_file *f;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, &err), 0);
    set(f, "general.architecture", "str", "lfm2");
    set(f, "lfm2.block_count", "u32", "3");
    set(f, "lfm2.context_length", "u32", "64");
    set(f, "lfm2.embedding_length", "u32", "32");
    set(f, "lfm2.feed_forward_length", "u32", "48");
    set(f, "lfm2.attention.head_count", "u32", "4");
    set(f, "lfm2.shortconv.l_cache", "u32", "3");
    set(f, "lfm2.attention.layer_norm_rms_epsilon", "f32", "1e-5");
    ck_assert_int_eq(gguf_kv_set_text(f, "lfm2.attention.head_count_kv", GGUF_VTYPE_ARRAY,
                                      GGUF_VTYPE_U32, "[0, 2, 4]", 9, &err), 0);
    static plan_seen p;
    p.n = 0;
    ck_assert_int_eq(gguf__llama_plan(f, on_plan, &p, &err), 0);
    ck_assert_int_eq(planned(&p, "blk.0.shortconv.conv.weight"), 32);
    ck_assert_int_eq(planned(&p, "blk.0.attn_k.weight"), -2);
    ck_assert_int_eq(planned(&p, "blk.1.shortconv.conv.weight"), -2);
    ck_assert_int_eq(planned(&p, "blk.1.attn_k.weight"), 16); /* head size 8, 2 heads */
    ck_assert_int_eq(planned(&p, "blk.2.attn_k.weight"), 32); /* 4 heads */
    gguf_file_free(f);
}
END_TEST

/* plan callback: adds each required tensor to the file (F32) */
static void add_planned(void *user, const char *name, const int64_t *dims, int n_dims,
                        int required) {
    gguf_error err;
    gguf_error_clear(&err);
    uint64_t d[4];
    for (int i = 0; i < n_dims; i++)
        d[i] = (uint64_t)dims[i];
    if (required)
        ck_assert_int_eq(gguf_tensor_add(user, name, GGUF_DTYPE_F32, d, (uint32_t)n_dims, &err), 0);
}

/* a tensor llama.cpp retries with a second shape: either is clean, a third names both */
START_TEST(test_check_alt_shape) {
    gguf_file *f = tiny_llama();
    gguf_error err;
    gguf_error_clear(&err);
    while (gguf_tensor_count(f) > 0) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, 0);
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)t.name_len, t.name);
        ck_assert_int_eq(gguf_tensor_remove(f, name, &err), 0);
    }
    set(f, "general.architecture", "str", "arwkv7");
    set(f, "arwkv7.context_length", "u32", "64");
    set(f, "arwkv7.embedding_length", "u32", "32");
    set(f, "arwkv7.block_count", "u32", "1");
    set(f, "arwkv7.feed_forward_length", "u32", "48");
    set(f, "arwkv7.wkv.head_size", "u32", "16");
    set(f, "arwkv7.attention.decay_lora_rank", "u32", "8");
    set(f, "arwkv7.attention.iclr_lora_rank", "u32", "8");
    set(f, "arwkv7.attention.value_residual_mix_lora_rank", "u32", "8");
    ck_assert_int_eq(gguf__llama_plan(f, add_planned, f, &err), 0);
    found r;
    ck_assert_int_eq(check(f, 0, &r), 0);
    const char *fused = "blk.0.time_mix_lerp_fused.weight";
    for (uint64_t rows = 5; rows >= 4; rows--) {
        uint64_t dims[4] = {32, 1, 1, rows};
        ck_assert_int_eq(gguf_tensor_remove(f, fused, &err), 0);
        ck_assert_int_eq(gguf_tensor_add(f, fused, GGUF_DTYPE_F32, dims, 4, &err), 0);
        ck_assert_int_eq(check(f, 0, &r), rows == 5 ? 0 : 1);
    }
    ck_assert(has(&r, GGUF_LLAMA_ERROR, NULL, fused, "[32, 1, 1, 6] = [arwkv7.embedding_length, "
                                                     "1, 1, 6] (or [32, 1, 1, 5])"));
    gguf_file_free(f);
}
END_TEST

START_TEST(test_check_modes) {
    gguf_file *f = tiny_llama();
    found r;
    gguf_error err;
    gguf_error_clear(&err);
    /* vocab-only: hyperparameters and tensors are not llama.cpp's business then */
    ck_assert_int_eq(gguf_kv_remove(f, "llama.context_length", &err), 0);
    ck_assert_int_eq(check(f, GGUF_LLAMA_CHECK_VOCAB_ONLY, &r), 0);
    ck_assert_int_eq(check(f, 0, &r), 1);
    set(f, "general.type", "str", "adapter");
    ck_assert_int_eq(check(f, 0, &r), 0);
    ck_assert(has(&r, GGUF_LLAMA_NOTE, "general.type", NULL, "not a model"));
    gguf_file_free(f);

    f = tiny_llama();
    set(f, "general.architecture", "str", "eagle3");
    check(f, 0, &r);
    ck_assert(has(&r, GGUF_LLAMA_NOTE, NULL, NULL, "not its hyperparameters"));
    ck_assert(has(&r, GGUF_LLAMA_ERROR, "eagle3.target_hidden_size", NULL, "absent"));
    set(f, "general.architecture", "str", "clip");
    ck_assert_int_ge(check(f, 0, &r), 1);
    gguf_file_free(f);

    ck_assert_int_eq(gguf_llama_check(NULL, NULL, 0, NULL, NULL, &err), GGUF_EINVAL);
    ck_assert_int_eq(gguf_llama_check(NULL, NULL, 0, NULL, NULL, NULL), GGUF_EINVAL);

    /* split keys of another type than llama.cpp reads: the container's findings */
    f = tiny_llama();
    set(f, "split.count", "u32", "1");
    ck_assert_int_ge(check(f, 0, &r), 1);
    ck_assert(has(&r, GGUF_LLAMA_ERROR, NULL, NULL, "split.count"));
    /* one shard of a set alone: the tensor set is not judged */
    uint16_t three = 3, zero = 0;
    int32_t n = 11;
    ck_assert_int_eq(gguf_kv_set_scalar(f, "split.count", GGUF_VTYPE_U16, &three, &err), 0);
    ck_assert_int_eq(gguf_kv_set_scalar(f, "split.no", GGUF_VTYPE_U16, &zero, &err), 0);
    ck_assert_int_eq(gguf_kv_set_scalar(f, "split.tensors.count", GGUF_VTYPE_I32, &n, &err), 0);
    ck_assert_int_eq(gguf_tensor_remove(f, "output_norm.weight", &err), 0);
    ck_assert_int_eq(check(f, 0, &r), 0);
    ck_assert(has(&r, GGUF_LLAMA_NOTE, "split.count", NULL, "checked alone"));
    gguf_file_free(f);
}
END_TEST

/* Every allocation the check makes can fail: it then returns GGUF_ENOMEM and leaks nothing. */
/* ---- file types: the table against llama.cpp's own sources ---- */

/* llama.cpp's tree beside the oracle (GGML_ORACLE=.../bin/ggml-oracle: .../src). */
static char *oracle_source(const char *rel) {
    const char *oracle = getenv("GGML_ORACLE");
    char root[512];
    snprintf(root, sizeof root, "%s", oracle ? oracle : "/tmp/ggml-oracle/bin/ggml-oracle");
    for (int up = 0; up < 2; up++) { /* bin/ggml-oracle -> the oracle's folder */
        char *slash = strrchr(root, '/');
        if (slash == NULL)
            return NULL;
        *slash = '\0';
    }
    char path[768];
    snprintf(path, sizeof path, "%s/src/%s", root, rel);
    size_t len;
    uint8_t *text = tu_read_file(path, &len);
    if (text == NULL)
        return NULL;
    char *s = realloc(text, len + 1);
    ck_assert_ptr_nonnull(s);
    s[len] = '\0';
    return s;
}

START_TEST(test_ftype_table) {
    char *header = oracle_source("include/llama.h");
    char *quantize = oracle_source("tools/quantize/quantize.cpp");
    char *loader = oracle_source("src/llama-model-loader.cpp");
    if (header == NULL || quantize == NULL || loader == NULL) {
        free(header);
        free(quantize);
        free(loader);
        tu_skip("llama.cpp's sources beside the oracle (src/include/llama.h, "
                "tools/quantize/quantize.cpp, src/llama-model-loader.cpp) are not here");
    }
    /* every value of enum llama_ftype, the removed ones (commented out) too, has its row, named
     * as the enum names it without LLAMA_FTYPE_ and ALL_/MOSTLY_ */
    int n_enum = 0;
    for (const char *p = header; (p = strstr(p, "LLAMA_FTYPE_")) != NULL; p++) {
        char name[64];
        unsigned id;
        int used = 0;
        if (sscanf(p, "LLAMA_FTYPE_%63[A-Z0-9_] = %u,%n", name, &id, &used) != 2 || used == 0)
            continue;
        const char *shortname = name;
        if (strncmp(name, "ALL_", 4) == 0)
            shortname += 4;
        else if (strncmp(name, "MOSTLY_", 7) == 0)
            shortname += 7;
        const gguf__llama_ftype *row = gguf__llama_ftype_find(id);
        ck_assert_msg(row != NULL, "LLAMA_FTYPE_%s = %u has no row", name, id);
        ck_assert_str_eq(row->name, shortname);
        n_enum++;
    }
    ck_assert_int_eq(n_enum, (int)gguf__llama_n_ftypes);
    /* llama-quantize's names (its aliases and COPY aside) and the default types: every preset
     * it offers can be written */
    int n_quant = 0;
    for (const char *p = strstr(quantize, "QUANT_OPTIONS"); p && (p = strstr(p, "{ \"")) != NULL;
         p++) {
        char name[32], ftype[64], about[24];
        if (sscanf(p, "{ \"%31[^\"]\", LLAMA_FTYPE_%63[A-Z0-9_], \"%23[^\"]", name, ftype, about) != 3)
            break;
        if (strncmp(about, "alias for", 9) == 0 || strcmp(name, "COPY") == 0)
            continue;
        const char *tail = strncmp(ftype, "ALL_", 4) == 0 ? ftype + 4 : ftype + 7;
        ck_assert_str_eq(name, tail);
        int seen = 0;
        for (size_t i = 0; i < gguf__llama_n_ftypes; i++) {
            if (strcmp(gguf__llama_ftypes[i].name, name) == 0) {
                ck_assert_int_ge(gguf__llama_ftypes[i].dtype, 0);
                seen = 1;
            }
        }
        ck_assert_msg(seen, "llama-quantize's %s has no row", name);
        n_quant++;
    }
    ck_assert_int_ge(n_quant, 30);
    /* llama_ftype_name's display names */
    int n_display = 0;
    for (const char *p = loader; (p = strstr(p, "case LLAMA_FTYPE_")) != NULL; p++) {
        char ftype[64], display[64];
        if (sscanf(p, "case LLAMA_FTYPE_%63[A-Z0-9_]: name = LLAMA_FTYPE_PREFIX \"%63[^\"]\"",
                   ftype, display) != 2)
            continue;
        const char *tail = strncmp(ftype, "ALL_", 4) == 0 ? ftype + 4 : ftype + 7;
        int seen = 0;
        for (size_t i = 0; i < gguf__llama_n_ftypes; i++) {
            if (strcmp(gguf__llama_ftypes[i].name, tail) == 0) {
                ck_assert_ptr_nonnull(gguf__llama_ftypes[i].display);
                ck_assert_str_eq(gguf__llama_ftypes[i].display, display);
                seen = 1;
            }
        }
        ck_assert_msg(seen, "llama_ftype_name's %s has no row", ftype);
        n_display++;
    }
    ck_assert_int_ge(n_display, 30);
    /* a row llama.cpp cannot write has no display name (llama.cpp shows 'unknown') */
    for (size_t i = 0; i < gguf__llama_n_ftypes; i++)
        ck_assert((gguf__llama_ftypes[i].dtype < 0) == (gguf__llama_ftypes[i].display == NULL));
    free(header);
    free(quantize);
    free(loader);
}
END_TEST

/* verify's general.file_type check reads the quantizer's default type: an IQ2_S file whose
 * weights are IQ2_XS (as llama_model_quantize writes them) is not told it has no IQ2_S. */
START_TEST(test_check_file_type) {
    gguf_file *f = tiny_llama();
    gguf_error err;
    gguf_error_clear(&err);
    uint64_t dims[2] = {256, 1};
    ck_assert_int_eq(gguf_tensor_add(f, "blk.0.extra.weight", GGUF_DTYPE_IQ2_XS, dims, 2, &err), 0);
    /* the F32 weights outnumber it; the check asks only that some weight has the type */
    set(f, "general.file_type", "u32", "28");
    found r;
    check(f, 0, &r);
    ck_assert_msg(!has(&r, GGUF_LLAMA_WARNING, "general.file_type", NULL, NULL),
                  "IQ2_S with IQ2_XS weights");
    /* Q4_K_M with no Q4_K tensor is named as llama.cpp shows it */
    set(f, "general.file_type", "u32", "15");
    check(f, 0, &r);
    ck_assert(has(&r, GGUF_LLAMA_WARNING, "general.file_type", NULL, "Q4_K - Medium"));
    /* the removed Q4_0_4_4 is no file type llama.cpp knows */
    set(f, "general.file_type", "u32", "33");
    check(f, 0, &r);
    ck_assert(has(&r, GGUF_LLAMA_WARNING, "general.file_type", NULL, "no llama.cpp file type"));
    gguf_file_free(f);
}
END_TEST

/* ---- the hyperparameter reader ---- */

/* A model of architecture `arch` with the keys "KEY=TYPE:VALUE" (KEY after "{arch}."; an
 * array is "KEY=array/ELEM:[...]"). */
static gguf_file *hp_model(const char *arch, const char *const *keys, size_t n) {
    gguf_file *f;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, &err), 0);
    set(f, "general.architecture", "str", arch);
    for (size_t i = 0; i < n; i++) {
        char key[160], type[32];
        const char *eq = strchr(keys[i], '='), *colon = strchr(eq, ':');
        snprintf(key, sizeof key, "%s.%.*s", arch, (int)(eq - keys[i]), keys[i]);
        snprintf(type, sizeof type, "%.*s", (int)(colon - eq - 1), eq + 1);
        char *slash = strchr(type, '/');
        uint32_t vt, et = GGUF_VTYPE_COUNT;
        if (slash != NULL) {
            *slash = '\0';
            et = (uint32_t)gguf_vtype_parse(slash + 1);
        }
        vt = (uint32_t)gguf_vtype_parse(type);
        ck_assert_msg(gguf_kv_set_text(f, key, vt, et, colon + 1, strlen(colon + 1), &err) == 0,
                      "%s: %s", key, err.message);
    }
    return f;
}

static void hp_of(gguf__llama_hparams *hp, const char *arch, const char *const *keys, size_t n) {
    gguf_file *f = hp_model(arch, keys, n);
    gguf__llama_hparams_read(hp, f, NULL, NULL, NULL);
    gguf_file_free(f);
}

#define HP(hp, arch, ...)                                                                       \
    do {                                                                                        \
        static const char *const k_[] = {__VA_ARGS__};                                          \
        hp_of(hp, arch, k_, sizeof k_ / sizeof k_[0]);                                          \
    } while (0)

static void layers_are(const uint8_t *got, const char *want) {
    for (size_t il = 0; want[il]; il++)
        ck_assert_msg(got[il] == (want[il] == '1'), "layer %zu: %d, want %s", il, got[il], want);
}

START_TEST(test_hparams_layers) {
    static gguf__llama_hparams hp;
    /* per-layer arrays, head_count_kv defaulting to head_count, nextn layers apart */
    HP(&hp, "llama", "block_count=u32:4", "embedding_length=u32:64", "nextn_predict_layers=u32:1",
       "attention.head_count=u32:8", "feed_forward_length=array/i32:[96,128,96,0]");
    ck_assert_uint_eq(hp.n_layer_all, 4);
    ck_assert_uint_eq(hp.n_layer, 3);
    ck_assert_uint_eq(hp.n_head[3], 8);
    ck_assert_uint_eq(hp.n_head_kv[2], 8);
    ck_assert_uint_eq(hp.n_ff[1], 128);
    ck_assert_uint_eq(hp.n_ff[3], 0);
    ck_assert_uint_eq(hp.n_embd_head_k, 8); /* E/H without key_length */
    /* an array of another length than block_count is refused by llama.cpp: read as absent */
    HP(&hp, "llama", "block_count=u32:4", "attention.head_count=array/u32:[8,8]");
    ck_assert_uint_eq(hp.n_head[0], 0);

    /* gemma2: the window and the period default (4096, 2); the window from the file */
    HP(&hp, "gemma2", "block_count=u32:4");
    ck_assert_uint_eq(hp.n_swa, 4096);
    ck_assert_uint_eq(hp.swa_period, 2);
    layers_are(hp.is_swa, "1010");
    HP(&hp, "gemma2", "block_count=u32:4", "attention.sliding_window=u32:512",
       "attention.sliding_window_pattern=u32:4");
    ck_assert_uint_eq(hp.n_swa, 512);
    layers_are(hp.is_swa, "1110");
    /* gemma3: sliding layers only with a window in the file */
    HP(&hp, "gemma3", "block_count=u32:7");
    layers_are(hp.is_swa, "0000000");
    HP(&hp, "gemma3", "block_count=u32:7", "attention.sliding_window=u32:1024");
    layers_are(hp.is_swa, "1111101");
    /* dense first (modern-bert): layer 0 of each period is full */
    HP(&hp, "modern-bert", "block_count=u32:6", "attention.sliding_window=u32:128");
    layers_are(hp.is_swa, "011011");
    /* one flag per layer, BOOL or integer (gemma4) */
    HP(&hp, "gemma4", "block_count=u32:4", "attention.sliding_window=u32:512",
       "attention.sliding_window_pattern=array/bool:[true,false,true,true]");
    layers_are(hp.is_swa, "1011");
    HP(&hp, "gemma4", "block_count=u32:3", "attention.sliding_window=u32:512",
       "attention.sliding_window_pattern=array/u32:[0,1,1]");
    layers_are(hp.is_swa, "011");
    /* no sliding window where the architecture has none */
    HP(&hp, "llama", "block_count=u32:2", "attention.sliding_window=u32:512");
    layers_are(hp.is_swa, "00");
    /* deepseek4: every layer slides, whatever a pattern key says; without the first nextn
     * layer's eh_proj its loader counts no nextn layers */
    HP(&hp, "deepseek4", "block_count=u32:3", "attention.sliding_window=u32:128",
       "attention.sliding_window_pattern=u32:2", "nextn_predict_layers=u32:1");
    layers_are(hp.is_swa, "111");
    ck_assert_uint_eq(hp.n_layer_nextn, 0);
    ck_assert_uint_eq(hp.n_layer, 3);
}
END_TEST

START_TEST(test_hparams_experts_mla) {
    static gguf__llama_hparams hp;
    HP(&hp, "deepseek2", "block_count=u32:3", "expert_count=u32:8",
       "expert_used_count=array/u32:[0,2,4]", "expert_shared_count=u32:1",
       "leading_dense_block_count=u32:1", "expert_feed_forward_length=u32:32",
       "attention.q_lora_rank=u32:96", "attention.kv_lora_rank=u32:64",
       "attention.key_length_mla=u32:48", "attention.value_length_mla=u32:32");
    ck_assert_uint_eq(hp.n_expert, 8);
    ck_assert_uint_eq(hp.n_expert_used[2], 4);
    ck_assert_uint_eq(hp.n_expert_shared, 1);
    ck_assert_uint_eq(hp.n_layer_dense_lead, 1);
    ck_assert_uint_eq(hp.n_ff_exp[2], 32);
    ck_assert_uint_eq(hp.n_lora_q, 96);
    ck_assert_uint_eq(hp.n_lora_kv, 64);
    ck_assert_uint_eq(hp.n_embd_head_k_mla, 48);
    ck_assert_uint_eq(hp.n_embd_head_v_mla, 32);
    HP(&hp, "llama4", "block_count=u32:4", "interleave_moe_layer_step=u32:2");
    ck_assert_uint_eq(hp.moe_every_n_layers, 2);
    /* llama4's chunked attention: the window defaults to 8192, 3 chunked layers and 1 full */
    layers_are(hp.is_swa, "1110");
    ck_assert_uint_eq(hp.n_swa, 8192);
}
END_TEST

START_TEST(test_hparams_recurrent) {
    static gguf__llama_hparams hp;
    /* hybrid: layers without key/value heads are recurrent */
    HP(&hp, "jamba", "block_count=u32:4", "attention.head_count=u32:8",
       "attention.head_count_kv=array/u32:[0,0,0,8]", "ssm.conv_kernel=u32:4",
       "ssm.inner_size=u32:128", "ssm.state_size=u32:16", "ssm.time_step_rank=u32:8");
    ck_assert(hp.is_hybrid && !hp.is_recurrent_model);
    layers_are(hp.is_recr, "1110");
    ck_assert_uint_eq(hp.ssm_d_conv, 4);
    ck_assert_uint_eq(hp.ssm_d_inner, 128);
    ck_assert_uint_eq(hp.ssm_d_state, 16);
    ck_assert_uint_eq(hp.ssm_dt_rank, 8);
    /* every full_attention_interval-th layer is attention, or the per-layer flags */
    HP(&hp, "qwen3next", "block_count=u32:4", "full_attention_interval=u32:2");
    layers_are(hp.is_recr, "1010");
    HP(&hp, "qwen3next", "block_count=u32:8");
    layers_are(hp.is_recr, "11101110");
    HP(&hp, "qwen35", "block_count=u32:3", "attention.recurrent_layers=array/bool:[false,true,true]");
    layers_are(hp.is_recr, "011");
    /* nemotron_h: no key/value heads and no feed-forward */
    HP(&hp, "nemotron_h", "block_count=u32:3", "attention.head_count_kv=array/u32:[0,0,4]",
       "feed_forward_length=array/u32:[0,64,0]");
    layers_are(hp.is_recr, "100");
    /* recurrent models: every layer; rwkv's head size */
    HP(&hp, "rwkv7", "block_count=u32:2", "wkv.head_size=u32:64");
    ck_assert(hp.is_recurrent_model && !hp.is_hybrid);
    layers_are(hp.is_recr, "11");
    ck_assert_uint_eq(hp.wkv_head_size, 64);
    HP(&hp, "llama", "block_count=u32:2");
    layers_are(hp.is_recr, "00");
}
END_TEST

/* --override-kv: a scalar key is overridden even when absent, a per-layer key only when the
 * file has it as a scalar (llama.cpp's get_key and get_key_or_arr). */
static int override_heads(void *user, const char *key, int64_t *v) {
    (void)user;
    if (strcmp(key, "llama.expert_count") == 0 || strcmp(key, "llama.attention.head_count") == 0 ||
        strcmp(key, "llama.attention.head_count_kv") == 0) {
        *v = 4;
        return 1;
    }
    return 0;
}

START_TEST(test_hparams_overrides) {
    static gguf__llama_hparams hp;
    static const char *const keys[] = {"block_count=u32:2", "attention.head_count=u32:8",
                                       "attention.head_count_kv=array/u32:[2,2]"};
    gguf_file *f = hp_model("llama", keys, 3);
    gguf__llama_hparams_read(&hp, f, NULL, override_heads, NULL);
    ck_assert_uint_eq(hp.n_expert, 4);     /* absent, overridden */
    ck_assert_uint_eq(hp.n_head[1], 4);    /* a scalar, overridden */
    ck_assert_uint_eq(hp.n_head_kv[1], 2); /* an array: the override does not count */
    gguf__llama_hparams_read(&hp, f, "gemma2", NULL, NULL); /* the architecture given */
    ck_assert_str_eq(hp.arch, "gemma2");
    ck_assert_uint_eq(hp.n_layer_all, 0); /* gemma2.block_count is not in the file */
    gguf_file_free(f);
}
END_TEST

START_TEST(test_check_alloc_failures) {
    gguf_file *f = tiny_llama();
    set(f, "tokenizer.ggml.eos_token_id", "u32", "9");
    int failures = 0;
    for (long n = 1; n < 1000; n++) {
        gguf_error err;
        gguf_error_clear(&err);
        gguf_testing_fail_alloc_after(n);
        int rc = gguf_llama_check(NULL, f, 0, NULL, NULL, &err);
        gguf_testing_fail_alloc_after(0);
        if (rc == 0)
            break;
        ck_assert_int_eq(rc, GGUF_ENOMEM);
        failures++;
    }
    ck_assert_int_gt(failures, 0);
    gguf_file_free(f);
}
END_TEST

/* The estimate's replay of llama's compute graph fails every allocation cleanly: GGUF_ENOMEM
 * until the allocations run out, then the estimate itself. */
START_TEST(test_estimate_alloc_failures) {
    gguf_file *f = tiny_llama();
    static gguf_llama_estimate e;
    int failures = 0;
    for (long n = 1; n < 1000; n++) {
        gguf_error err;
        gguf_error_clear(&err);
        gguf_testing_fail_alloc_after(n);
        int rc = gguf_llama_estimate_run(&e, f, NULL, &err);
        gguf_testing_fail_alloc_after(0);
        if (rc == 0)
            break;
        ck_assert_int_eq(rc, GGUF_ENOMEM);
        ck_assert_msg(strstr(err.message, "out of memory") != NULL, "%s", err.message);
        failures++;
    }
    ck_assert_int_gt(failures, 0);
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_llama_estimate_run(&e, f, NULL, &err) == 0, "%s", err.message);
    ck_assert_uint_gt(e.compute, 0);
    gguf_file_free(f);
}
END_TEST

int main(void) {
    Suite *s = suite_create("llama");
    TCase *tc = tcase_create("llama");
    tcase_add_test(tc, test_expr_values);
    tcase_add_test(tc, test_expr_undefined_and_errors);
    tcase_add_test(tc, test_expr_explain);
    tcase_add_test(tc, test_layer_symbols);
    tcase_add_test(tc, test_tables_parse);
    tcase_add_test(tc, test_arch_support);
    tcase_add_test(tc, test_check_clean);
    tcase_add_test(tc, test_check_key_types);
    tcase_add_test(tc, test_check_hparams);
    tcase_add_test(tc, test_check_tensors);
    tcase_add_test(tc, test_check_vocab);
    tcase_add_test(tc, test_check_modes);
    tcase_add_test(tc, test_check_alt_shape);
    tcase_add_test(tc, test_ftype_table);
    tcase_add_test(tc, test_check_file_type);
    tcase_add_test(tc, test_hparams_layers);
    tcase_add_test(tc, test_hparams_experts_mla);
    tcase_add_test(tc, test_hparams_recurrent);
    tcase_add_test(tc, test_hparams_overrides);
    tcase_add_test(tc, test_check_alloc_failures);
    tcase_add_test(tc, test_estimate_alloc_failures);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
