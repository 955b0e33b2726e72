/* Requantization (libgguf/requant/): the per-tensor policy of each preset, the data (every
 * converted tensor equals gguf_quant_quantize of its source values, whatever the threads, the
 * byte order or the source), the metadata llama.cpp writes, importance matrices, allocation
 * failures, and -- when ggml-oracle is present -- whole files against llama_model_quantize for
 * models of several shapes and architectures built here.
 *
 * Also a model generator for the CLI test and the benchmark:
 *   check_requant --write-model OUT [--arch A --embd N --ff N --layers N --heads N --kv-heads N
 *                 --vocab N --experts N --f16 --tied --qkv --seed N]
 */
#define _GNU_SOURCE
#include "tests/support/testutil.h"

#include <check.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

/* ------------------------------------------------------------------------------------------ */
/* Models built here                                                                           */

/* ck_assert inside the tests; a message and exit(1) in --write-model mode */
static int in_tests = 1;
#define REQUIRE(c)                                                                             \
    do {                                                                                       \
        if (!(c)) {                                                                            \
            if (in_tests)                                                                      \
                ck_abort_msg("failed: %s", #c);                                                \
            fprintf(stderr, "check_requant: failed: %s\n", #c);                                \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

typedef struct spec {
    const char *arch;
    uint32_t embd, ff, layers, heads, kv_heads, vocab, experts;
    uint32_t dtype;     /* storage of the 2-D+ weights: F32 or F16 (1-D stay F32) */
    int tied;           /* no output.weight */
    int qkv;            /* fused attn_qkv instead of attn_q/k/v */
    int no_file_type;   /* no general.file_type key */
    uint32_t alignment; /* 0: none set */
    uint64_t seed;
} spec;

static spec llama_spec(uint32_t embd, uint32_t ff, uint32_t layers) {
    return (spec){.arch = "llama", .embd = embd, .ff = ff, .layers = layers, .heads = 4,
                  .kv_heads = 2, .vocab = 64, .dtype = GGUF_DTYPE_F32, .seed = 1};
}

static uint64_t mix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A value of tensor t at element k: uniform in about [-0.05, 0.05], computed exactly (integer
 * to float, one product), with a rare larger one, so that every platform makes the same file. */
static float value_at(uint64_t seed, size_t t, uint64_t k) {
    uint64_t h = mix64(seed * 1000003u + t * 0x1000193u + mix64(k));
    int32_t r = (int32_t)(h & 0xffffff) - 0x800000;
    float x = (float)r * (0.05f / 8388608.0f);
    if ((h >> 40) % 997 == 0)
        x *= 8.0f;
    return x;
}

typedef struct fill_ctx {
    const gguf_file *f;
    uint64_t seed;
} fill_ctx;

static int model_fill(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                      gguf_error *err) {
    fill_ctx *c = user;
    gguf_tensor_info ti;
    gguf_tensor_get(&ti, c->f, tensor);
    size_t esize = ti.type == GGUF_DTYPE_F32 ? 4 : 2;
    size_t n = len / esize;
    uint64_t first = offset / esize;
    float *v = malloc((n ? n : 1) * sizeof *v);
    if (v == NULL)
        return GGUF_ENOMEM;
    for (size_t k = 0; k < n; k++)
        v[k] = value_at(c->seed, tensor, first + k);
    int rc = gguf_quant_quantize(buf, len, ti.type, v, 1, (int64_t)n, NULL, err);
    free(v);
    return rc;
}

static void add_t(gguf_file *f, const char *name, uint32_t type, uint64_t d0, uint64_t d1,
                  uint64_t d2) {
    uint64_t dims[3] = {d0, d1, d2};
    uint32_t n = d2 > 1 ? 3 : d1 > 0 ? 2 : 1;
    gguf_error err;
    gguf_error_clear(&err);
    REQUIRE(gguf_tensor_add(f, name, type, dims, n, &err) == 0);
}

static void set_u32(gguf_file *f, const char *arch, const char *suffix, uint32_t v) {
    char key[128];
    if (arch)
        snprintf(key, sizeof key, "%s.%s", arch, suffix);
    else
        snprintf(key, sizeof key, "%s", suffix);
    REQUIRE(gguf_kv_set_scalar(f, key, GGUF_VTYPE_U32, &v, NULL) == 0);
}

/* A llama.cpp-loadable model header (for its quantizer: hyperparameters, no tokenizer). */
static gguf_file *build_model(const spec *s) {
    gguf_file *f;
    REQUIRE(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, NULL) == 0);
    const char *a = s->arch;
    REQUIRE(gguf_kv_set_str(f, "general.architecture", a, strlen(a), NULL) == 0);
    if (s->alignment)
        set_u32(f, NULL, "general.alignment", s->alignment);
    REQUIRE(gguf_kv_set_str(f, "general.name", "requant-test", 12, NULL) == 0);
    if (!s->no_file_type)
        set_u32(f, NULL, "general.file_type", s->dtype == GGUF_DTYPE_F16 ? 1 : 0);
    set_u32(f, a, "context_length", 128);
    set_u32(f, a, "embedding_length", s->embd);
    set_u32(f, a, "block_count", s->layers);
    set_u32(f, a, "feed_forward_length", s->ff);
    set_u32(f, a, "rope.dimension_count", s->embd / s->heads);
    set_u32(f, a, "attention.head_count", s->heads);
    set_u32(f, a, "attention.head_count_kv", s->kv_heads);
    float eps = 1e-5f;
    char key[128];
    snprintf(key, sizeof key, "%s.attention.layer_norm_rms_epsilon", a);
    REQUIRE(gguf_kv_set_scalar(f, key, GGUF_VTYPE_F32, &eps, NULL) == 0);
    snprintf(key, sizeof key, "%s.attention.layer_norm_epsilon", a);
    REQUIRE(gguf_kv_set_scalar(f, key, GGUF_VTYPE_F32, &eps, NULL) == 0);
    if (s->experts) {
        set_u32(f, a, "expert_count", s->experts);
        set_u32(f, a, "expert_used_count", 2);
    }
    set_u32(f, a, "vocab_size", s->vocab);
    uint32_t w = s->dtype, kv = s->embd / s->heads * s->kv_heads;
    add_t(f, "token_embd.weight", w, s->embd, s->vocab, 1);
    add_t(f, "output_norm.weight", GGUF_DTYPE_F32, s->embd, 0, 1);
    if (!s->tied)
        add_t(f, "output.weight", w, s->embd, s->vocab, 1);
    for (uint32_t l = 0; l < s->layers; l++) {
        char n[64];
#define L(sfx) (snprintf(n, sizeof n, "blk.%u.%s", l, sfx), n)
        add_t(f, L("attn_norm.weight"), GGUF_DTYPE_F32, s->embd, 0, 1);
        if (s->qkv) {
            add_t(f, L("attn_qkv.weight"), w, s->embd, s->embd + 2 * kv, 1);
        } else {
            add_t(f, L("attn_q.weight"), w, s->embd, s->embd, 1);
            add_t(f, L("attn_k.weight"), w, s->embd, kv, 1);
            add_t(f, L("attn_v.weight"), w, s->embd, kv, 1);
        }
        add_t(f, L("attn_output.weight"), w, s->embd, s->embd, 1);
        add_t(f, L("ffn_norm.weight"), GGUF_DTYPE_F32, s->embd, 0, 1);
        if (s->experts) {
            add_t(f, L("ffn_gate_inp.weight"), GGUF_DTYPE_F32, s->embd, s->experts, 1);
            add_t(f, L("ffn_gate_exps.weight"), w, s->embd, s->ff, s->experts);
            add_t(f, L("ffn_down_exps.weight"), w, s->ff, s->embd, s->experts);
            add_t(f, L("ffn_up_exps.weight"), w, s->embd, s->ff, s->experts);
        } else {
            add_t(f, L("ffn_gate.weight"), w, s->embd, s->ff, 1);
            add_t(f, L("ffn_down.weight"), w, s->ff, s->embd, 1);
            add_t(f, L("ffn_up.weight"), w, s->embd, s->ff, 1);
        }
#undef L
    }
    return f;
}

/* The model's bytes, in memory (free()) and reopened. */
static gguf_file *model_bytes(const spec *s, void **buf, size_t *len) {
    gguf_file *f = build_model(s);
    fill_ctx c = {f, s->seed};
    gguf_write_options wo = {.size = sizeof(gguf_write_options),
                             .endian = -1,
                             .layout = GGUF_LAYOUT_PACKED,
                             .fill = model_fill,
                             .fill_user = &c};
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_write_memory(buf, len, f, &wo, &err) == 0, "%s", err.message);
    gguf_file_free(f);
    gguf_file *g;
    ck_assert(gguf_file_open_memory(&g, *buf, *len, 0, 0, NULL) == 0);
    return g;
}

static int write_model_file(const spec *s, const char *path) {
    gguf_file *f = build_model(s);
    fill_ctx c = {f, s->seed};
    gguf_write_options wo = {.size = sizeof(gguf_write_options),
                             .endian = -1,
                             .layout = GGUF_LAYOUT_PACKED,
                             .fill = model_fill,
                             .fill_user = &c};
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_file_save(f, path, &wo, &err);
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", path, err.message);
    gguf_file_free(f);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Helpers                                                                                     */

static gguf_requant_options opts(const char *preset) {
    gguf_requant_options o = GGUF_REQUANT_OPTIONS_INIT;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_requant_parse_type(&o, preset, &err) == 0, "%s: %s", preset, err.message);
    return o;
}

/* The plan's type of a tensor, by name. */
typedef struct planned {
    gguf_requant_choice *ch;
    const gguf_file *f;
} planned;

static planned plan_of(const gguf_file *f, const gguf_requant_options *o) {
    size_t n = gguf_tensor_count(f);
    planned p = {calloc(n ? n : 1, sizeof *p.ch), f};
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_requant_plan(p.ch, f, o, &err) == 0, "%s", err.message);
    return p;
}

static const gguf_requant_choice *pick(const planned *p, const char *name) {
    int64_t i = gguf_tensor_find(p->f, name);
    ck_assert_msg(i >= 0, "no tensor %s", name);
    return &p->ch[i];
}

#define TYPE_IS(p, name, want)                                                                 \
    do {                                                                                       \
        uint32_t got_ = pick(&(p), name)->type;                                                \
        ck_assert_msg(got_ == (uint32_t)(want), "%s: %s, expected %s", name,                  \
                      gguf_dtype_name(got_), gguf_dtype_name(want));                           \
    } while (0)

static char *layer_name(unsigned l, const char *sfx) {
    static char buf[4][64];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "blk.%u.%s", l, sfx);
    return buf[k];
}

/* Plans a preset on a spec: the model lives in *buf until freed. */
static planned plan_spec(const spec *s, const gguf_requant_options *o, gguf_file **f, void **buf) {
    size_t len;
    *f = model_bytes(s, buf, &len);
    return plan_of(*f, o);
}

static void plan_free(planned *p, gguf_file *f, void *buf) {
    free(p->ch);
    gguf_file_free(f);
    free(buf);
}

static bool more_bits(int i, int n) {
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

/* ------------------------------------------------------------------------------------------ */
/* Presets and names                                                                           */

START_TEST(preset_names) {
    static const char *const issue[] = {
        "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q2_K_S", "Q3_K_S", "Q3_K_M", "Q3_K_L",
        "Q4_K_S", "Q4_K_M", "Q5_K_S", "Q5_K_M", "Q6_K", "IQ4_NL", "IQ4_XS", "TQ1_0", "TQ2_0",
        "MXFP4_MOE", "F16", "BF16", "F32"};
    for (size_t i = 0; i < sizeof issue / sizeof issue[0]; i++) {
        gguf_requant_options o = opts(issue[i]);
        ck_assert_str_eq(gguf_requant_ftype_name(o.ftype), issue[i]);
        ck_assert(!o.pure && !o.copy);
        ck_assert(gguf_requant_ftype_dtype(o.ftype) >= 0);
    }
    /* llama.cpp's general.file_type values */
    ck_assert_int_eq(opts("Q4_K_M").ftype, 15);
    ck_assert_int_eq(opts("q8_0").ftype, 7);
    ck_assert_int_eq(opts("MXFP4_MOE").ftype, 38);
    ck_assert_int_eq(opts("BF16").ftype, 32);
    ck_assert_int_eq(opts("Q2_K_S").ftype, 21);
    ck_assert_int_eq(gguf_requant_ftype_dtype(GGUF_REQUANT_IQ3_XS), GGUF_DTYPE_IQ3_S);
    ck_assert_int_eq(gguf_requant_ftype_dtype(GGUF_REQUANT_IQ2_S), GGUF_DTYPE_IQ2_XS);
    gguf_requant_options c = opts("copy");
    ck_assert(c.copy);
    /* llama-quantize's aliases: Q4_K is Q4_K_M, with its mixture (not every tensor Q4_K) */
    gguf_requant_options q = opts("Q4_K");
    ck_assert(!q.pure);
    ck_assert_int_eq(q.ftype, GGUF_REQUANT_Q4_K_M);
    ck_assert_int_eq(opts("q5_k").ftype, GGUF_REQUANT_Q5_K_M);
    ck_assert_int_eq(opts("Q3_K").ftype, GGUF_REQUANT_Q3_K_M);
    gguf_requant_options bad = GGUF_REQUANT_OPTIONS_INIT;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_requant_parse_type(&bad, "Q4_K_X", &err), GGUF_EINVAL);
    ck_assert(strstr(err.message, "Q4_K_X") != NULL);
    ck_assert_int_eq(gguf_requant_parse_type(&bad, "Q8_K", NULL), GGUF_EINVAL);
    ck_assert_int_eq(gguf_requant_parse_type(&bad, "I32", NULL), GGUF_EINVAL);
    ck_assert(gguf_requant_ftype_name(4) == NULL && gguf_requant_ftype_dtype(33) == -1);
    ck_assert(gguf_requant_ftype_name(GGUF_REQUANT_FTYPE_COUNT) == NULL);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* The policy                                                                                  */

START_TEST(q4_k_m_mixture) {
    spec s = llama_spec(256, 512, 8);
    gguf_requant_options o = opts("Q4_K_M");
    gguf_file *f;
    void *buf;
    planned p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, "output.weight", GGUF_DTYPE_Q6_K);
    TYPE_IS(p, "token_embd.weight", GGUF_DTYPE_Q4_K);
    TYPE_IS(p, "output_norm.weight", GGUF_DTYPE_F32);
    ck_assert(!pick(&p, "output_norm.weight")->allowed && !pick(&p, "output_norm.weight")->convert);
    for (unsigned l = 0; l < 8; l++) {
        /* 8 layers: more bits for layers 0, 3, 6, 7 */
        uint32_t more = (l == 0 || l == 3 || l == 6 || l == 7) ? GGUF_DTYPE_Q6_K : GGUF_DTYPE_Q4_K;
        ck_assert_int_eq(more_bits((int)l, 8), more == GGUF_DTYPE_Q6_K);
        TYPE_IS(p, layer_name(l, "attn_v.weight"), more);
        TYPE_IS(p, layer_name(l, "ffn_down.weight"), more);
        TYPE_IS(p, layer_name(l, "attn_q.weight"), GGUF_DTYPE_Q4_K);
        TYPE_IS(p, layer_name(l, "attn_k.weight"), GGUF_DTYPE_Q4_K);
        TYPE_IS(p, layer_name(l, "attn_output.weight"), GGUF_DTYPE_Q4_K);
        TYPE_IS(p, layer_name(l, "ffn_gate.weight"), GGUF_DTYPE_Q4_K);
        TYPE_IS(p, layer_name(l, "ffn_up.weight"), GGUF_DTYPE_Q4_K);
        TYPE_IS(p, layer_name(l, "attn_norm.weight"), GGUF_DTYPE_F32);
        ck_assert(pick(&p, layer_name(l, "ffn_up.weight"))->convert);
    }
    plan_free(&p, f, buf);
    /* Q5_K_M: the same layers at Q6_K, the rest Q5_K */
    o = opts("Q5_K_M");
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, layer_name(3, "ffn_down.weight"), GGUF_DTYPE_Q6_K);
    TYPE_IS(p, layer_name(4, "ffn_down.weight"), GGUF_DTYPE_Q5_K);
    TYPE_IS(p, layer_name(5, "attn_v.weight"), GGUF_DTYPE_Q5_K);
    TYPE_IS(p, "output.weight", GGUF_DTYPE_Q6_K);
    plan_free(&p, f, buf);
    /* Q4_K_S: the first 4 attn_v and the first eighth of ffn_down at Q5_K */
    o = opts("Q4_K_S");
    p = plan_spec(&s, &o, &f, &buf);
    for (unsigned l = 0; l < 8; l++)
        TYPE_IS(p, layer_name(l, "attn_v.weight"), l < 4 ? GGUF_DTYPE_Q5_K : GGUF_DTYPE_Q4_K);
    TYPE_IS(p, layer_name(0, "ffn_down.weight"), GGUF_DTYPE_Q5_K);
    TYPE_IS(p, layer_name(1, "ffn_down.weight"), GGUF_DTYPE_Q4_K);
    plan_free(&p, f, buf);
}
END_TEST

START_TEST(k_quant_presets) {
    spec s = llama_spec(256, 512, 16);
    gguf_file *f;
    void *buf;
    /* Q3_K_M: attn_v Q5_K for the first two, then Q4_K; ffn_down Q5_K below n/16, then Q4_K */
    gguf_requant_options o = opts("Q3_K_M");
    planned p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, layer_name(0, "attn_v.weight"), GGUF_DTYPE_Q5_K);
    TYPE_IS(p, layer_name(1, "attn_v.weight"), GGUF_DTYPE_Q5_K);
    TYPE_IS(p, layer_name(2, "attn_v.weight"), GGUF_DTYPE_Q4_K);
    TYPE_IS(p, layer_name(0, "ffn_down.weight"), GGUF_DTYPE_Q5_K);
    TYPE_IS(p, layer_name(1, "ffn_down.weight"), GGUF_DTYPE_Q4_K);
    TYPE_IS(p, layer_name(5, "attn_output.weight"), GGUF_DTYPE_Q4_K);
    TYPE_IS(p, layer_name(5, "attn_q.weight"), GGUF_DTYPE_Q3_K);
    TYPE_IS(p, "output.weight", GGUF_DTYPE_Q6_K);
    plan_free(&p, f, buf);
    /* Q3_K_L: attn_v, ffn_down, attn_output Q5_K */
    o = opts("Q3_K_L");
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, layer_name(9, "attn_v.weight"), GGUF_DTYPE_Q5_K);
    TYPE_IS(p, layer_name(9, "ffn_down.weight"), GGUF_DTYPE_Q5_K);
    TYPE_IS(p, layer_name(9, "attn_output.weight"), GGUF_DTYPE_Q5_K);
    TYPE_IS(p, layer_name(9, "ffn_up.weight"), GGUF_DTYPE_Q3_K);
    plan_free(&p, f, buf);
    /* Q2_K: n_gqa 2: attn_v Q3_K; ffn_down, attn_output Q3_K; the rest Q2_K */
    o = opts("Q2_K");
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, layer_name(3, "attn_v.weight"), GGUF_DTYPE_Q3_K);
    TYPE_IS(p, layer_name(3, "ffn_down.weight"), GGUF_DTYPE_Q3_K);
    TYPE_IS(p, layer_name(3, "attn_output.weight"), GGUF_DTYPE_Q3_K);
    TYPE_IS(p, layer_name(3, "ffn_gate.weight"), GGUF_DTYPE_Q2_K);
    TYPE_IS(p, "token_embd.weight", GGUF_DTYPE_Q2_K);
    plan_free(&p, f, buf);
    /* n_gqa 4: Q2_K's attn_v becomes Q4_K, IQ4_NL's Q5_K */
    s.heads = 8;
    s.kv_heads = 2;
    o = opts("Q2_K");
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, layer_name(3, "attn_v.weight"), GGUF_DTYPE_Q4_K);
    plan_free(&p, f, buf);
    o = opts("IQ4_NL");
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, layer_name(3, "attn_v.weight"), GGUF_DTYPE_Q5_K);
    /* without an imatrix, the first eighth of ffn_down is Q5_K */
    TYPE_IS(p, layer_name(1, "ffn_down.weight"), GGUF_DTYPE_Q5_K);
    TYPE_IS(p, layer_name(2, "ffn_down.weight"), GGUF_DTYPE_IQ4_NL);
    TYPE_IS(p, "output.weight", GGUF_DTYPE_Q6_K);
    plan_free(&p, f, buf);
    /* Q8_0: the output stays Q8_0; Q6_K: everything Q6_K */
    o = opts("Q8_0");
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, "output.weight", GGUF_DTYPE_Q8_0);
    TYPE_IS(p, layer_name(0, "ffn_down.weight"), GGUF_DTYPE_Q8_0);
    plan_free(&p, f, buf);
    /* TQ1_0: token embeddings Q4_K, output Q6_K */
    o = opts("TQ1_0");
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, "token_embd.weight", GGUF_DTYPE_Q4_K);
    TYPE_IS(p, "output.weight", GGUF_DTYPE_Q6_K);
    TYPE_IS(p, layer_name(0, "ffn_down.weight"), GGUF_DTYPE_TQ1_0);
    plan_free(&p, f, buf);
    /* F16, BF16, F32: no mixture, no fallback */
    o = opts("BF16");
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, "output.weight", GGUF_DTYPE_BF16);
    TYPE_IS(p, "token_embd.weight", GGUF_DTYPE_BF16);
    TYPE_IS(p, "output_norm.weight", GGUF_DTYPE_F32);
    plan_free(&p, f, buf);
}
END_TEST

START_TEST(tied_embeddings_follow_the_output) {
    spec s = llama_spec(256, 512, 2);
    s.tied = 1;
    gguf_requant_options o = opts("Q4_K_M");
    gguf_file *f;
    void *buf;
    planned p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, "token_embd.weight", GGUF_DTYPE_Q6_K);
    plan_free(&p, f, buf);
    /* --output-tensor-type reaches tied embeddings too; --token-embedding-type wins */
    o.output_type = GGUF_DTYPE_Q8_0;
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, "token_embd.weight", GGUF_DTYPE_Q8_0);
    plan_free(&p, f, buf);
    o.token_embd_type = GGUF_DTYPE_Q5_0;
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, "token_embd.weight", GGUF_DTYPE_Q5_0);
    plan_free(&p, f, buf);
}
END_TEST

START_TEST(output_options) {
    spec s = llama_spec(256, 512, 2);
    gguf_requant_options o = opts("Q4_K_M");
    o.leave_output = 1;
    gguf_file *f;
    void *buf;
    planned p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, "output.weight", GGUF_DTYPE_F32);
    ck_assert(!pick(&p, "output.weight")->convert);
    plan_free(&p, f, buf);
    o = opts("Q4_K_M");
    o.output_type = GGUF_DTYPE_Q8_0;
    o.token_embd_type = GGUF_DTYPE_F16;
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, "output.weight", GGUF_DTYPE_Q8_0);
    TYPE_IS(p, "token_embd.weight", GGUF_DTYPE_F16);
    plan_free(&p, f, buf);
    /* with a preset that is not quantized, still honoured */
    o = opts("F16");
    o.output_type = GGUF_DTYPE_Q6_K;
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, "output.weight", GGUF_DTYPE_Q6_K);
    TYPE_IS(p, "token_embd.weight", GGUF_DTYPE_F16);
    plan_free(&p, f, buf);
}
END_TEST

START_TEST(fallbacks_when_rows_do_not_fit) {
    /* rows of 160: not 256-aligned, 32-aligned; ff 200: not even 32-aligned */
    spec s = llama_spec(160, 200, 2);
    s.heads = 5;
    s.kv_heads = 5;
    gguf_requant_options o = opts("Q4_K_M");
    gguf_file *f;
    void *buf;
    planned p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, layer_name(0, "attn_q.weight"), GGUF_DTYPE_Q5_0); /* Q4_K -> Q5_0 */
    ck_assert(pick(&p, layer_name(0, "attn_q.weight"))->fallback);
    TYPE_IS(p, layer_name(1, "attn_v.weight"), GGUF_DTYPE_Q8_0); /* Q6_K -> Q8_0 */
    TYPE_IS(p, layer_name(1, "ffn_down.weight"), GGUF_DTYPE_F16); /* rows of 200 */
    TYPE_IS(p, layer_name(0, "ffn_down.weight"), GGUF_DTYPE_F16);
    /* the output: rows that do not fit the preset's blocks give Q8_0 (no fallback needed) */
    TYPE_IS(p, "output.weight", GGUF_DTYPE_Q8_0);
    ck_assert(!pick(&p, "output.weight")->fallback);
    plan_free(&p, f, buf);
    struct {
        const char *preset;
        uint32_t want;
    } cases[] = {
        {"Q2_K", GGUF_DTYPE_Q4_0}, {"Q3_K_S", GGUF_DTYPE_Q4_0}, {"Q5_K_S", GGUF_DTYPE_Q5_1},
        {"Q6_K", GGUF_DTYPE_Q8_0}, {"TQ2_0", GGUF_DTYPE_Q4_0}, {"IQ4_XS", GGUF_DTYPE_IQ4_NL},
        {"Q4_0", GGUF_DTYPE_Q4_0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        o = opts(cases[i].preset);
        p = plan_spec(&s, &o, &f, &buf);
        TYPE_IS(p, layer_name(0, "ffn_gate.weight"), cases[i].want);
        TYPE_IS(p, layer_name(0, "ffn_down.weight"), GGUF_DTYPE_F16);
        plan_free(&p, f, buf);
    }
    /* a type with blocks of more than 32 and no fallback: refused, naming the tensor */
    o = opts("Q4_K_M");
    gguf_requant_override ov = {"ffn_up", GGUF_DTYPE_Q1_0};
    o.overrides = &ov;
    o.n_overrides = 1;
    size_t len;
    f = model_bytes(&s, &buf, &len);
    gguf_requant_choice ch[64];
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_requant_plan(ch, f, &o, &err), GGUF_EINVAL);
    ck_assert_msg(strstr(err.message, "ffn_up") && strstr(err.message, "Q1_0"), "%s", err.message);
    gguf_file_free(f);
    free(buf);
}
END_TEST

START_TEST(overrides_and_pure) {
    spec s = llama_spec(256, 512, 4);
    gguf_requant_options o = opts("Q3_K_M");
    gguf_file *f;
    void *buf;
    /* an override on blk.0's attn_v is not counted: blk.1 and blk.2 are the "first two" */
    gguf_requant_override ov[] = {{"blk\\.0\\.attn_v", GGUF_DTYPE_Q8_0},
                                  {"ffn_(up|gate)", GGUF_DTYPE_Q4_K},
                                  {"ffn_up", GGUF_DTYPE_Q2_K}};
    o.overrides = ov;
    o.n_overrides = 3;
    planned p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, layer_name(0, "attn_v.weight"), GGUF_DTYPE_Q8_0);
    ck_assert_int_eq(pick(&p, layer_name(0, "attn_v.weight"))->override, 1);
    TYPE_IS(p, layer_name(1, "attn_v.weight"), GGUF_DTYPE_Q5_K);
    TYPE_IS(p, layer_name(2, "attn_v.weight"), GGUF_DTYPE_Q5_K);
    TYPE_IS(p, layer_name(3, "attn_v.weight"), GGUF_DTYPE_Q4_K);
    TYPE_IS(p, layer_name(2, "ffn_up.weight"), GGUF_DTYPE_Q4_K); /* first match wins */
    ck_assert_int_eq(pick(&p, layer_name(2, "ffn_up.weight"))->override, 2);
    TYPE_IS(p, layer_name(2, "ffn_down.weight"), GGUF_DTYPE_Q4_K);
    plan_free(&p, f, buf);
    /* a bad pattern is refused */
    gguf_requant_override bad = {"attn_(v", GGUF_DTYPE_Q8_0};
    o.overrides = &bad;
    o.n_overrides = 1;
    size_t len;
    f = model_bytes(&s, &buf, &len);
    gguf_requant_choice ch[64];
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_requant_plan(ch, f, &o, &err), GGUF_EINVAL);
    ck_assert(strstr(err.message, "attn_(v") != NULL);
    gguf_file_free(f);
    free(buf);
    /* pure: every tensor that may change gets the type, output and embeddings too */
    o = opts("Q4_K_M");
    o.pure = 1;
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, "output.weight", GGUF_DTYPE_Q4_K);
    TYPE_IS(p, "token_embd.weight", GGUF_DTYPE_Q4_K);
    TYPE_IS(p, layer_name(3, "attn_v.weight"), GGUF_DTYPE_Q4_K);
    TYPE_IS(p, layer_name(3, "ffn_norm.weight"), GGUF_DTYPE_F32);
    plan_free(&p, f, buf);
    /* COPY: nothing changes */
    o = opts("COPY");
    p = plan_spec(&s, &o, &f, &buf);
    for (size_t i = 0; i < gguf_tensor_count(f); i++)
        ck_assert(!p.ch[i].convert && !p.ch[i].allowed);
    plan_free(&p, f, buf);
}
END_TEST

START_TEST(experts_falcon_70b_mxfp4) {
    gguf_file *f;
    void *buf;
    /* 8 experts: attn_v, attn_k Q8_0; attn_output Q5_K; expert tensors by their layer */
    spec s = llama_spec(256, 256, 8);
    s.experts = 8;
    gguf_requant_options o = opts("Q4_K_M");
    planned p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, layer_name(2, "attn_v.weight"), GGUF_DTYPE_Q8_0);
    TYPE_IS(p, layer_name(2, "attn_k.weight"), GGUF_DTYPE_Q8_0);
    TYPE_IS(p, layer_name(2, "attn_output.weight"), GGUF_DTYPE_Q5_K);
    for (unsigned l = 0; l < 8; l++)
        TYPE_IS(p, layer_name(l, "ffn_down_exps.weight"),
                more_bits((int)l, 8) ? GGUF_DTYPE_Q6_K : GGUF_DTYPE_Q4_K);
    TYPE_IS(p, layer_name(2, "ffn_gate_inp.weight"), GGUF_DTYPE_F32);
    TYPE_IS(p, layer_name(2, "ffn_up_exps.weight"), GGUF_DTYPE_Q4_K);
    plan_free(&p, f, buf);
    /* MXFP4_MOE: 3-D experts MXFP4, the rest Q8_0, the output too */
    o = opts("MXFP4_MOE");
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, layer_name(2, "ffn_up_exps.weight"), GGUF_DTYPE_MXFP4);
    TYPE_IS(p, layer_name(2, "ffn_down_exps.weight"), GGUF_DTYPE_MXFP4);
    TYPE_IS(p, layer_name(2, "attn_q.weight"), GGUF_DTYPE_Q8_0);
    TYPE_IS(p, "output.weight", GGUF_DTYPE_Q8_0);
    TYPE_IS(p, "token_embd.weight", GGUF_DTYPE_Q8_0);
    plan_free(&p, f, buf);
    /* falcon: the output Q8_0; Q4_K_M's ffn_down Q6_K below n/16, Q5_K for more bits */
    s = llama_spec(256, 512, 16);
    s.arch = "falcon";
    o = opts("Q4_K_M");
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, "output.weight", GGUF_DTYPE_Q8_0);
    TYPE_IS(p, layer_name(0, "ffn_down.weight"), GGUF_DTYPE_Q6_K);
    TYPE_IS(p, layer_name(1, "ffn_down.weight"), GGUF_DTYPE_Q5_K);
    TYPE_IS(p, layer_name(4, "ffn_down.weight"), GGUF_DTYPE_Q5_K); /* (4 - 2) % 3 == 2 */
    TYPE_IS(p, layer_name(5, "ffn_down.weight"), GGUF_DTYPE_Q4_K);
    plan_free(&p, f, buf);
    /* a 70B llama (80 layers, grouped-query attention): attn_v Q3_K/Q4_K -> Q5_K */
    s = llama_spec(256, 256, 80);
    s.vocab = 8;
    o = opts("Q3_K_S");
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, layer_name(40, "attn_v.weight"), GGUF_DTYPE_Q5_K);
    TYPE_IS(p, layer_name(40, "attn_q.weight"), GGUF_DTYPE_Q3_K);
    plan_free(&p, f, buf);
    s.kv_heads = s.heads; /* no GQA: a 65B, no bump */
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, layer_name(40, "attn_v.weight"), GGUF_DTYPE_Q3_K);
    plan_free(&p, f, buf);
    /* a fused attn_qkv is attn_v-like: Q4_K_M gives it Q6_K on more-bits layers */
    s = llama_spec(256, 512, 8);
    s.qkv = 1;
    o = opts("Q4_K_M");
    p = plan_spec(&s, &o, &f, &buf);
    TYPE_IS(p, layer_name(0, "attn_qkv.weight"), GGUF_DTYPE_Q6_K);
    TYPE_IS(p, layer_name(1, "attn_qkv.weight"), GGUF_DTYPE_Q4_K);
    plan_free(&p, f, buf);
}
END_TEST

START_TEST(experts_need_layer_numbers) {
    gguf_file *f;
    ck_assert(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "general.architecture", "llama", 5, NULL) == 0);
    set_u32(f, "llama", "block_count", 2);
    set_u32(f, "llama", "expert_count", 4);
    add_t(f, "mystery.ffn_down_exps.weight", GGUF_DTYPE_F32, 256, 256, 4);
    gguf_requant_options o = opts("Q4_K_M");
    gguf_requant_choice ch[1];
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_requant_plan(ch, f, &o, &err), GGUF_EINVAL);
    ck_assert(strstr(err.message, "mystery.ffn_down_exps.weight") != NULL);
    gguf_file_free(f);
    ck_assert(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "general.architecture", "llama", 5, NULL) == 0);
    set_u32(f, "llama", "block_count", 2);
    set_u32(f, "llama", "expert_count", 4);
    add_t(f, "blk.7.ffn_down_exps.weight", GGUF_DTYPE_F32, 256, 256, 4);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_requant_plan(ch, f, &o, &err), GGUF_EINVAL);
    ck_assert(strstr(err.message, "layer 7") != NULL);
    gguf_file_free(f);
}
END_TEST

START_TEST(which_tensors_may_change) {
    gguf_file *f;
    ck_assert(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "general.architecture", "llama", 5, NULL) == 0);
    set_u32(f, "llama", "block_count", 1);
    struct {
        const char *name;
        uint64_t d0, d1;
        int allowed;
    } cases[] = {
        {"blk.0.attn_q.weight", 256, 256, 1},
        {"blk.0.attn_q.bias", 256, 256, 0},       /* not a weight */
        {"blk.0.my_weight", 256, 256, 1},         /* ends in "weight" */
        {"blk.0.attn_norm.weight", 256, 256, 0},  /* a norm, even 2-D */
        {"blk.0.ffn_gate_inp.weight", 256, 8, 0}, /* expert gate */
        {"position_embd.weight", 256, 64, 0},
        {"token_types.weight", 256, 2, 0},
        {"blk.0.ssm_conv1d.weight", 256, 4, 0},
        {"v.patch_embd.weight", 256, 16, 0},
        {"blk.0.flat.weight", 256, 1, 0},         /* 2-D stored, 1-D to ggml */
        {"abcde", 256, 256, 1},                   /* llama.cpp's 5-byte quirk */
        {"abcd", 256, 256, 0},
        {"abcdef", 256, 256, 0},
    };
    size_t n = sizeof cases / sizeof cases[0];
    for (size_t i = 0; i < n; i++)
        add_t(f, cases[i].name, GGUF_DTYPE_F32, cases[i].d0, cases[i].d1, 1);
    gguf_requant_options o = opts("Q8_0");
    planned p = plan_of(f, &o);
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(pick(&p, cases[i].name)->allowed == cases[i].allowed, "%s",
                      cases[i].name);
        TYPE_IS(p, cases[i].name, cases[i].allowed ? GGUF_DTYPE_Q8_0 : GGUF_DTYPE_F32);
    }
    free(p.ch);
    gguf_file_free(f);
}
END_TEST

START_TEST(tensor_order_is_llama_cpps) {
    gguf_file *f;
    ck_assert(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, NULL) == 0);
    static const char *const names[] = {"blk.10.a.weight", "token_embd.weight", "blk.2.b.weight",
                                        "blk.2.a.weight",  "output.weight",     "blk.9.z.weight",
                                        "zz.weight",       "blk.x.weight"};
    static const size_t want[] = {7, 2, 5, 4, 1, 6, 3, 0}; /* positions */
    for (size_t i = 0; i < 8; i++)
        add_t(f, names[i], GGUF_DTYPE_F32, 32, 0, 1);
    gguf_requant_options o = opts("Q8_0");
    planned p = plan_of(f, &o);
    /* "blk.x." has no number: with the others without one, by name */
    for (size_t i = 0; i < 8; i++)
        ck_assert_msg(p.ch[i].position == want[i], "%s at %zu", names[i], p.ch[i].position);
    free(p.ch);
    gguf_file_free(f);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Data and metadata                                                                           */

/* Requantizes a model in memory; returns the output bytes (free()) reopened in *out. */
static void *requant_memory(gguf_file *f, const gguf_requant_options *o, size_t *len,
                            gguf_file **out) {
    gguf_requant *rq;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_requant_prepare(&rq, f, o, &err) == 0, "%s", err.message);
    gguf_write_options wo = {.size = sizeof(gguf_write_options),
                             .endian = -1,
                             .layout = GGUF_LAYOUT_PACKED,
                             .fill = gguf_requant_fill,
                             .fill_user = rq};
    void *buf;
    ck_assert_msg(gguf_file_write_memory(&buf, len, f, &wo, &err) == 0, "%s", err.message);
    gguf_requant_free(rq);
    if (out)
        ck_assert(gguf_file_open_memory(out, buf, *len, 0, 0, NULL) == 0);
    return buf;
}

/* Every converted tensor of out equals gguf_quant_quantize of src's values. */
static void check_tensors(const gguf_file *src, const gguf_file *out,
                          const gguf_requant_imatrix *im) {
    ck_assert_uint_eq(gguf_tensor_count(src), gguf_tensor_count(out));
    for (size_t i = 0; i < gguf_tensor_count(out); i++) {
        gguf_tensor_info to, ts;
        gguf_tensor_get(&to, out, i);
        char name[80];
        snprintf(name, sizeof name, "%.*s", (int)to.name_len, to.name);
        int64_t j = gguf_tensor_find(src, name);
        ck_assert(j >= 0);
        gguf_tensor_get(&ts, src, (size_t)j);
        const uint8_t *a = gguf_tensor_data(src, (size_t)j), *b = gguf_tensor_data(out, i);
        if (ts.type == to.type) {
            ck_assert(ts.nbytes == to.nbytes && memcmp(a, b, to.nbytes) == 0);
            continue;
        }
        uint64_t n = ts.dims[0] * ts.dims[1] * ts.dims[2] * ts.dims[3];
        float *v = malloc(n * sizeof *v);
        uint8_t *q = malloc(to.nbytes);
        ck_assert(v && q);
        ck_assert(gguf_quant_dequantize(v, ts.type, a, ts.nbytes, (int64_t)n, NULL) == 0);
        size_t wn = 0;
        const float *w = gguf_requant_imatrix_find(im, name, &wn);
        if (w && wn != ts.dims[0] * ts.dims[2])
            w = NULL;
        int64_t rows = (int64_t)ts.dims[1], per = (int64_t)ts.dims[0];
        size_t row_bytes = gguf_quant_row_size(to.type, per);
        for (uint64_t e = 0; e < ts.dims[2] * ts.dims[3]; e++) {
            const float *we = w ? w + e * (uint64_t)per : NULL;
            ck_assert(gguf_quant_quantize(q + e * rows * row_bytes, rows * row_bytes, to.type,
                                          v + e * rows * per, rows, per, we, NULL) == 0);
        }
        ck_assert_msg(memcmp(q, b, to.nbytes) == 0, "tensor %s differs", name);
        free(v);
        free(q);
    }
}

START_TEST(data_equals_quantize_of_source_values) {
    spec s = llama_spec(256, 512, 3);
    s.heads = 8;
    s.kv_heads = 2;
    void *srcbuf;
    size_t srclen;
    static const char *const presets[] = {"Q4_K_M", "Q2_K", "Q3_K_M", "Q5_K_M", "Q6_K",
                                          "Q4_0", "Q8_0", "F16", "IQ4_NL", "TQ2_0"};
    void *first = NULL;
    size_t first_len = 0;
    for (size_t k = 0; k < sizeof presets / sizeof presets[0]; k++) {
        for (unsigned threads = 1; threads <= 3; threads += 2) {
            gguf_file *f = model_bytes(&s, &srcbuf, &srclen);
            gguf_file *src;
            ck_assert(gguf_file_open_memory(&src, srcbuf, srclen, 0, 0, NULL) == 0);
            gguf_requant_options o = opts(presets[k]);
            o.threads = threads;
            size_t len;
            gguf_file *out;
            void *buf = requant_memory(f, &o, &len, &out);
            check_tensors(src, out, NULL);
            if (threads == 1) {
                first = buf;
                first_len = len;
            } else {
                ck_assert_msg(len == first_len && memcmp(buf, first, len) == 0,
                              "%s: 3 threads differ from 1", presets[k]);
                free(first);
                free(buf);
            }
            gguf_file_free(out);
            gguf_file_free(src);
            gguf_file_free(f);
            free(srcbuf);
        }
    }
}
END_TEST

START_TEST(f16_and_quantized_sources) {
    spec s = llama_spec(256, 512, 2);
    s.dtype = GGUF_DTYPE_F16;
    void *srcbuf;
    size_t srclen;
    gguf_file *f = model_bytes(&s, &srcbuf, &srclen);
    gguf_requant_options o = opts("Q5_K_M");
    size_t len;
    gguf_file *mid;
    void *midbuf = requant_memory(f, &o, &len, &mid);
    gguf_file *src;
    ck_assert(gguf_file_open_memory(&src, srcbuf, srclen, 0, 0, NULL) == 0);
    check_tensors(src, mid, NULL);
    /* and from those K-quants to Q4_0 (their values dequantized) */
    gguf_file *mid2;
    ck_assert(gguf_file_open_memory(&mid2, midbuf, len, 0, 0, NULL) == 0);
    o = opts("Q4_0");
    o.threads = 2;
    /* only when allowed, as llama.cpp: the first tensor requantized in its order is named */
    gguf_requant_choice ch[64];
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_requant_plan(ch, mid2, &o, &err), GGUF_EINVAL);
    ck_assert_msg(strstr(err.message, "'token_embd.weight' is quantized already (Q5_K)") != NULL,
                  "%s", err.message);
    o.allow_requantize = 1;
    size_t len2;
    gguf_file *out;
    void *buf2 = requant_memory(mid2, &o, &len2, &out);
    check_tensors(mid, out, NULL);
    gguf_file_free(out);
    gguf_file_free(mid2);
    gguf_file_free(mid);
    gguf_file_free(src);
    gguf_file_free(f);
    free(buf2);
    free(midbuf);
    free(srcbuf);
}
END_TEST

static char tmpdir[64];

static void make_tmpdir(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/check_requant.XXXXXX");
    ck_assert(mkdtemp(tmpdir) != NULL);
}

static void rm_tmpdir(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    ck_assert(system(cmd) == 0);
}

static const char *tmp(const char *name) {
    static char buf[4][160];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

START_TEST(files_memory_and_big_endian_agree) {
    make_tmpdir();
    spec s = llama_spec(256, 512, 2);
    ck_assert(write_model_file(&s, tmp("in.gguf")) == 0);
    /* from a mapped file (read with pread) */
    gguf_file *f;
    ck_assert(gguf_file_open(&f, tmp("in.gguf"), 0, NULL) == 0);
    gguf_requant_options o = opts("Q4_K_M");
    o.threads = 2;
    o.keep_order = 1;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_requant_save(f, tmp("out.gguf"), &o, NULL, NULL, &err) == 0, "%s",
                  err.message);
    gguf_file_free(f);
    /* from memory */
    size_t inlen, outlen;
    uint8_t *in = tu_read_file(tmp("in.gguf"), &inlen);
    ck_assert(gguf_file_open_memory(&f, in, inlen, 0, 0, NULL) == 0);
    size_t mlen;
    void *mem = requant_memory(f, &o, &mlen, NULL);
    gguf_file_free(f);
    uint8_t *out = tu_read_file(tmp("out.gguf"), &outlen);
    ck_assert(outlen == mlen && memcmp(out, mem, mlen) == 0);
    /* read into memory by the library */
    ck_assert(gguf_file_open(&f, tmp("in.gguf"), GGUF_OPEN_NO_MMAP, NULL) == 0);
    void *mem2 = requant_memory(f, &o, &mlen, NULL);
    ck_assert(outlen == mlen && memcmp(out, mem2, mlen) == 0);
    gguf_file_free(f);
    /* big-endian: convert the input, requantize, convert back: the same file */
    ck_assert(gguf_file_open(&f, tmp("in.gguf"), 0, NULL) == 0);
    gguf_write_options be = {.size = sizeof(gguf_write_options), .endian = GGUF_ENDIAN_BIG};
    ck_assert(gguf_file_save(f, tmp("in.be.gguf"), &be, NULL) == 0);
    gguf_file_free(f);
    ck_assert(gguf_file_open(&f, tmp("in.be.gguf"), 0, NULL) == 0);
    gguf_error_clear(&err);
    ck_assert_msg(gguf_requant_save(f, tmp("out.be.gguf"), &o, NULL, NULL, &err) == 0, "%s",
                  err.message);
    gguf_file_free(f);
    ck_assert(gguf_file_open(&f, tmp("out.be.gguf"), 0, NULL) == 0);
    ck_assert_int_eq(gguf_file_endian(f), GGUF_ENDIAN_BIG);
    gguf_write_options le = {.size = sizeof(gguf_write_options), .endian = GGUF_ENDIAN_LITTLE};
    ck_assert(gguf_file_save(f, tmp("out.le.gguf"), &le, NULL) == 0);
    gguf_file_free(f);
    size_t backlen;
    uint8_t *back = tu_read_file(tmp("out.le.gguf"), &backlen);
    ck_assert(backlen == outlen && memcmp(back, out, outlen) == 0);
    free(back);
    free(in);
    free(out);
    free(mem);
    free(mem2);
    rm_tmpdir();
}
END_TEST

static const char *key_at(const gguf_file *f, size_t i) {
    static char buf[128];
    size_t len;
    const char *k = gguf_kv_key(f, i, &len);
    snprintf(buf, sizeof buf, "%.*s", (int)len, k);
    return buf;
}

static uint64_t u_of(const gguf_file *f, const char *key) {
    int64_t i = gguf_kv_find(f, key);
    ck_assert_msg(i >= 0, "no %s", key);
    uint64_t u;
    int64_t sv;
    int sg;
    ck_assert(gguf_value_get_int(&u, &sv, &sg, gguf_kv_value(f, (size_t)i), NULL) == 0);
    return u;
}

START_TEST(metadata_as_llama_cpp_writes_it) {
    spec s = llama_spec(256, 512, 2);
    s.alignment = 64;
    void *srcbuf;
    size_t srclen;
    gguf_file *f = model_bytes(&s, &srcbuf, &srclen);
    uint16_t v16 = 0;
    ck_assert(gguf_kv_set_scalar(f, "split.no", GGUF_VTYPE_U16, &v16, NULL) == 0);
    v16 = 1;
    ck_assert(gguf_kv_set_scalar(f, "split.count", GGUF_VTYPE_U16, &v16, NULL) == 0);
    uint32_t q = 1;
    ck_assert(gguf_kv_set_scalar(f, "general.quantization_version", GGUF_VTYPE_U32, &q, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "general.zzz", "last", 4, NULL) == 0);
    size_t nkv = gguf_kv_count(f);
    gguf_requant_options o = opts("Q4_K_M");
    size_t len;
    gguf_file *out;
    void *buf = requant_memory(f, &o, &len, &out);
    /* quantization_version and file_type moved to the end, split keys gone, the rest kept */
    size_t n = gguf_kv_count(out);
    ck_assert_uint_eq(n, nkv - 2);
    ck_assert_str_eq(key_at(out, n - 2), "general.quantization_version");
    ck_assert_str_eq(key_at(out, n - 1), "general.file_type");
    ck_assert_str_eq(key_at(out, n - 3), "general.zzz");
    ck_assert_str_eq(key_at(out, 0), "general.architecture");
    ck_assert_str_eq(key_at(out, 1), "general.alignment");
    ck_assert_uint_eq(u_of(out, "general.quantization_version"), 2);
    ck_assert_uint_eq(u_of(out, "general.file_type"), 15);
    ck_assert_int_eq(gguf_value_type(gguf_kv_value(out, n - 1)), GGUF_VTYPE_U32);
    ck_assert(gguf_kv_find(out, "split.no") < 0 && gguf_kv_find(out, "split.count") < 0);
    /* the alignment kept: every tensor at a multiple of 64 */
    ck_assert_uint_eq(gguf_file_alignment(out), 64);
    for (size_t i = 0; i < gguf_tensor_count(out); i++) {
        gguf_tensor_info ti;
        gguf_tensor_get(&ti, out, i);
        ck_assert(ti.offset % 64 == 0);
    }
    ck_assert(gguf_file_data_offset(out) % 64 == 0);
    gguf_file_free(out);
    gguf_file_free(f);
    free(buf);
    free(srcbuf);
    /* COPY keeps general.file_type; without one, llama.cpp's guess, marked guessed (1024) */
    s.dtype = GGUF_DTYPE_F16;
    f = model_bytes(&s, &srcbuf, &srclen);
    o = opts("COPY");
    buf = requant_memory(f, &o, &len, &out);
    ck_assert_uint_eq(u_of(out, "general.file_type"), 1);
    gguf_file_free(out);
    gguf_file_free(f);
    free(buf);
    free(srcbuf);
    s.no_file_type = 1;
    f = model_bytes(&s, &srcbuf, &srclen);
    buf = requant_memory(f, &o, &len, &out);
    ck_assert_uint_eq(u_of(out, "general.file_type"), 1 | 1024);
    gguf_file_free(out);
    gguf_file_free(f);
    free(buf);
    free(srcbuf);
}
END_TEST

START_TEST(fill_refuses_what_it_does_not_fill) {
    spec s = llama_spec(256, 512, 1);
    void *srcbuf;
    size_t srclen;
    gguf_file *f = model_bytes(&s, &srcbuf, &srclen);
    gguf_requant_options o = opts("Q8_0");
    gguf_requant *rq;
    ck_assert(gguf_requant_prepare(&rq, f, &o, NULL) == 0);
    uint8_t buf[4096];
    gguf_error err;
    gguf_error_clear(&err);
    /* output_norm (position 1 in llama.cpp's order) keeps its bytes */
    ck_assert_int_eq(gguf_requant_fill(rq, 1, 0, buf, 1024, &err), GGUF_EINVAL);
    ck_assert_int_eq(gguf_requant_fill(rq, 999, 0, buf, 1024, NULL), GGUF_EINVAL);
    /* token_embd: rows of 256 Q8_0 = 272 bytes */
    int64_t te = gguf_tensor_find(f, "token_embd.weight");
    ck_assert_int_eq(gguf_requant_fill(rq, (size_t)te, 0, buf, 100, NULL), GGUF_EINVAL);
    ck_assert_int_eq(gguf_requant_fill(rq, (size_t)te, 272, buf, 544, NULL), 0);
    gguf_requant_free(rq);
    gguf_requant_free(NULL);
    gguf_file_free(f);
    free(srcbuf);
}
END_TEST

START_TEST(allocation_failures_fail_cleanly) {
    spec s = llama_spec(256, 256, 2);
    void *srcbuf;
    size_t srclen;
    gguf_file *f0 = model_bytes(&s, &srcbuf, &srclen);
    gguf_file_free(f0);
    gguf_requant_override ov = {"attn_q", GGUF_DTYPE_Q8_0};
    gguf_requant_kv kv[2];
    ck_assert(gguf_requant_kv_parse(&kv[0], "general.name=str:x", NULL) == 0);
    ck_assert(gguf_requant_kv_parse(&kv[1], "my.n=int:3", NULL) == 0);
    int32_t prune = 0;
    int ok = 0;
    for (long n = 1; n < 100000 && !ok; n++) {
        gguf_file *f;
        ck_assert(gguf_file_open_memory(&f, srcbuf, srclen, 0, 0, NULL) == 0);
        gguf_requant_options o = opts("Q4_K_M");
        o.overrides = &ov;
        o.n_overrides = 1;
        o.threads = 2;
        o.kv_overrides = kv;
        o.n_kv_overrides = 2;
        o.prune_layers = &prune;
        o.n_prune_layers = 1;
        gguf_requant *rq = NULL;
        gguf_error err;
        gguf_error_clear(&err);
        gguf_testing_fail_alloc_after(n);
        int rc = gguf_requant_prepare(&rq, f, &o, &err);
        void *buf = NULL;
        size_t len;
        if (rc == 0) {
            gguf_write_options wo = {.size = sizeof(gguf_write_options),
                                     .endian = -1,
                                     .layout = GGUF_LAYOUT_PACKED,
                                     .fill = gguf_requant_fill,
                                     .fill_user = rq};
            rc = gguf_file_write_memory(&buf, &len, f, &wo, &err);
        }
        gguf_testing_fail_alloc_after(0);
        if (rc == 0)
            ok = 1;
        else
            ck_assert_msg(rc == GGUF_ENOMEM, "n=%ld: %d %s", n, rc, err.message);
        free(buf);
        gguf_requant_free(rq);
        gguf_file_free(f);
    }
    ck_assert(ok);
    free(srcbuf);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Importance matrices                                                                         */

/* A GGUF imatrix for the tensors given (ne0 x n_mat sums, n_mat counts). */
typedef struct im_spec {
    const char *name;
    uint32_t ne0, n_mat;
} im_spec;

static float im_sum(size_t t, size_t k) {
    return 0.5f + (float)((t * 131 + k * 7) % 97);
}

static float im_count(size_t t, size_t j) {
    return (t + j) % 5 == 4 ? 0.0f : (float)(10 + t + j);
}

typedef struct im_fill_ctx {
    const gguf_file *f;
} im_fill_ctx;

static int im_fill(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                   gguf_error *err) {
    (void)err;
    im_fill_ctx *c = user;
    gguf_tensor_info ti;
    gguf_tensor_get(&ti, c->f, tensor);
    float *v = buf;
    size_t t = tensor / 2;
    bool counts = tensor % 2 == 1;
    for (size_t k = 0; k < len / 4; k++) {
        size_t at = (size_t)(offset / 4) + k;
        v[k] = counts ? im_count(t, at) : im_sum(t, at);
    }
    return 0;
}

static void write_imatrix(const char *path, const im_spec *e, size_t n, int with_meta) {
    gguf_file *f;
    ck_assert(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, NULL) == 0);
    if (with_meta) {
        const char *ds[] = {"calibration.txt", "other.txt"};
        size_t lens[] = {15, 9};
        ck_assert(gguf_kv_set_str_array(f, "imatrix.datasets", ds, lens, 2, NULL) == 0);
        set_u32(f, NULL, "imatrix.chunk_count", 42);
        set_u32(f, NULL, "imatrix.chunk_size", 512);
    }
    for (size_t i = 0; i < n; i++) {
        char name[96];
        snprintf(name, sizeof name, "%s.in_sum2", e[i].name);
        add_t(f, name, GGUF_DTYPE_F32, e[i].ne0, e[i].n_mat, 1);
        snprintf(name, sizeof name, "%s.counts", e[i].name);
        add_t(f, name, GGUF_DTYPE_F32, 1, e[i].n_mat, 1);
    }
    im_fill_ctx c = {f};
    gguf_write_options wo = {.size = sizeof(gguf_write_options),
                             .endian = -1,
                             .layout = GGUF_LAYOUT_PACKED,
                             .fill = im_fill,
                             .fill_user = &c};
    ck_assert(gguf_file_save(f, path, &wo, NULL) == 0);
    gguf_file_free(f);
}

START_TEST(imatrix_gguf_format) {
    make_tmpdir();
    im_spec e[] = {{"blk.0.attn_q.weight", 256, 1}, {"blk.0.ffn_down_exps.weight", 256, 4}};
    write_imatrix(tmp("im.gguf"), e, 2, 1);
    gguf_requant_imatrix *im;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_requant_imatrix_load(&im, tmp("im.gguf"), &err) == 0, "%s", err.message);
    ck_assert_uint_eq(gguf_requant_imatrix_count(im), 2);
    for (size_t t = 0; t < 2; t++) {
        size_t n;
        const float *w = gguf_requant_imatrix_find(im, e[t].name, &n);
        ck_assert(w != NULL && n == (size_t)e[t].ne0 * e[t].n_mat);
        for (size_t j = 0; j < e[t].n_mat; j++) {
            float c = im_count(t, j);
            for (size_t k = 0; k < e[t].ne0; k++) {
                float want = c > 0 ? im_sum(t, j * e[t].ne0 + k) / c : 1.0f;
                ck_assert(w[j * e[t].ne0 + k] == want);
            }
        }
    }
    ck_assert(gguf_requant_imatrix_find(im, "nope", NULL) == NULL);
    gguf_requant_imatrix_free(im);
    /* without its metadata keys: not an imatrix file */
    write_imatrix(tmp("nometa.gguf"), e, 2, 0);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_requant_imatrix_load(&im, tmp("nometa.gguf"), &err), GGUF_ECORRUPT);
    ck_assert(strstr(err.message, "imatrix.") != NULL);
    ck_assert_int_eq(gguf_requant_imatrix_load(&im, tmp("missing.gguf"), NULL), GGUF_EIO);
    /* sums without counts */
    gguf_file *f;
    ck_assert(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, NULL) == 0);
    const char *ds[] = {"x"};
    size_t dl[] = {1};
    ck_assert(gguf_kv_set_str_array(f, "imatrix.datasets", ds, dl, 1, NULL) == 0);
    set_u32(f, NULL, "imatrix.chunk_count", 1);
    set_u32(f, NULL, "imatrix.chunk_size", 1);
    add_t(f, "a.weight.in_sum2", GGUF_DTYPE_F32, 32, 1, 1);
    im_fill_ctx c = {f};
    gguf_write_options wo = {.size = sizeof(gguf_write_options),
                             .endian = -1,
                             .layout = GGUF_LAYOUT_PACKED,
                             .fill = im_fill,
                             .fill_user = &c};
    ck_assert(gguf_file_save(f, tmp("nocounts.gguf"), &wo, NULL) == 0);
    gguf_file_free(f);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_requant_imatrix_load(&im, tmp("nocounts.gguf"), &err), GGUF_ECORRUPT);
    ck_assert(strstr(err.message, "a.weight") != NULL);
    rm_tmpdir();
}
END_TEST

static void le32(uint8_t **p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        *(*p)++ = (uint8_t)(v >> (8 * i));
}

START_TEST(imatrix_legacy_format) {
    make_tmpdir();
    /* byte map: i32 entries=1 | i32 len=5 "x.wgt" | i32 ncall=4 | i32 nval=3 | f32 x3 |
     *           i32 chunks=7 | i32 len=2 "ds" */
    uint8_t bytes[64], *p = bytes;
    le32(&p, 1);
    le32(&p, 5);
    memcpy(p, "x.wgt", 5);
    p += 5;
    le32(&p, 4);
    le32(&p, 3);
    float vals[3] = {4.0f, 2.0f, 1.0f};
    for (int i = 0; i < 3; i++) {
        uint32_t u;
        memcpy(&u, &vals[i], 4);
        le32(&p, u);
    }
    le32(&p, 7);
    le32(&p, 2);
    memcpy(p, "ds", 2);
    p += 2;
    size_t len = (size_t)(p - bytes);
    ck_assert_int_eq(tu_write_file(tmp("im.dat"), bytes, len), 0);
    gguf_requant_imatrix *im;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_requant_imatrix_load(&im, tmp("im.dat"), &err) == 0, "%s", err.message);
    size_t n;
    const float *w = gguf_requant_imatrix_find(im, "x.wgt", &n);
    ck_assert(w && n == 3 && w[0] == 1.0f && w[1] == 0.5f && w[2] == 0.25f);
    gguf_requant_imatrix_free(im);
    /* every cut inside the entries fails cleanly (the trailer is optional) */
    for (size_t cut = 0; cut < 4 + 4 + 5 + 4 + 4 + 12; cut++) {
        ck_assert_int_eq(tu_write_file(tmp("cut.dat"), bytes, cut), 0);
        int rc = gguf_requant_imatrix_load(&im, tmp("cut.dat"), NULL);
        ck_assert_msg(rc == GGUF_ETRUNC || rc == GGUF_ECORRUPT, "cut %zu: %d", cut, rc);
    }
    rm_tmpdir();
}
END_TEST

/* The testing build's count of imatrix name comparisons (libgguf/requant/imatrix.c). */
long gguf_testing_imatrix_name_compares(void);

static void put32(FILE *fp, uint32_t v) {
    uint8_t b[4], *p = b;
    le32(&p, v);
    ck_assert(fwrite(b, 1, 4, fp) == 4);
}

static void put_f32(FILE *fp, float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    put32(fp, u);
}

/* A legacy imatrix with n entries named like a big MoE model's expert tensors, 4 weights each
 * (entry i: i % 1000 + k, ncall 1), and then entry 0 once more with weights -1: the later one
 * replaces it. */
static void write_many_entries(const char *path, uint32_t n) {
    FILE *fp = fopen(path, "wb");
    ck_assert(fp != NULL);
    put32(fp, n + 1);
    for (uint32_t i = 0; i <= n; i++) {
        uint32_t e = i < n ? i : 0;
        char name[64];
        int len = snprintf(name, sizeof name, "blk.%u.ffn_down_exps.%u.weight", e / 256, e % 256);
        put32(fp, (uint32_t)len);
        ck_assert(fwrite(name, 1, (size_t)len, fp) == (size_t)len);
        put32(fp, 1);
        put32(fp, 4);
        for (int k = 0; k < 4; k++)
            put_f32(fp, i < n ? (float)(i % 1000 + k) : -1.0f);
    }
    ck_assert(fclose(fp) == 0);
}

/* A 160k-entry legacy imatrix loads in time linear in its entries: each entry compared with
 * every one loaded before it would take 45 s. The comparisons are counted: a few per entry, not
 * one per entry already loaded. That count is the check; the tcase's timeout only ends a hang. */
START_TEST(imatrix_many_entries) {
    make_tmpdir();
    const uint32_t n = 160000;
    write_many_entries(tmp("many.dat"), n);
    long before = gguf_testing_imatrix_name_compares();
    gguf_requant_imatrix *im;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_requant_imatrix_load(&im, tmp("many.dat"), &err) == 0, "%s", err.message);
    ck_assert_uint_eq(gguf_requant_imatrix_count(im), n);
    for (uint32_t i = 0; i < n; i += 997) {
        char name[64];
        snprintf(name, sizeof name, "blk.%u.ffn_down_exps.%u.weight", i / 256, i % 256);
        size_t nw;
        const float *w = gguf_requant_imatrix_find(im, name, &nw);
        ck_assert_msg(w != NULL && nw == 4, "%s not found", name);
        ck_assert(w[3] == (i == 0 ? -1.0f : (float)(i % 1000 + 3)));
    }
    ck_assert(gguf_requant_imatrix_find(im, "blk.0.ffn_down_exps.0.weigh", NULL) == NULL);
    long compares = gguf_testing_imatrix_name_compares() - before;
    ck_assert_msg(compares <= 8L * n, "%ld name comparisons to load and look up %u entries",
                  compares, n);
    gguf_requant_imatrix_free(im);
    rm_tmpdir();
}
END_TEST

START_TEST(requant_with_imatrix) {
    make_tmpdir();
    spec s = llama_spec(256, 256, 8);
    s.experts = 4;
    void *srcbuf;
    size_t srclen;
    gguf_file *f = model_bytes(&s, &srcbuf, &srclen);
    im_spec e[] = {{"blk.0.attn_q.weight", 256, 1},
                   {"blk.0.ffn_down_exps.weight", 256, 4},
                   {"blk.1.ffn_down_exps.weight", 256, 4},
                   {"blk.0.ffn_up_exps.weight", 256, 4},
                   {"token_embd.weight", 7, 1}}; /* wrong size: ignored for embeddings */
    write_imatrix(tmp("im.gguf"), e, 5, 1);
    gguf_requant_imatrix *im;
    ck_assert(gguf_requant_imatrix_load(&im, tmp("im.gguf"), NULL) == 0);
    gguf_requant_options o = opts("Q4_0");
    o.imatrix = im;
    o.threads = 3;
    planned p = plan_of(f, &o);
    /* with an imatrix, Q4_0's first eighth of ffn_down is Q4_1 */
    TYPE_IS(p, "blk.0.ffn_down_exps.weight", GGUF_DTYPE_Q4_1);
    TYPE_IS(p, "blk.1.ffn_down_exps.weight", GGUF_DTYPE_Q4_0);
    ck_assert(pick(&p, "blk.0.ffn_down_exps.weight")->imatrix);
    ck_assert(pick(&p, "blk.0.attn_q.weight")->imatrix);
    ck_assert(!pick(&p, "token_embd.weight")->imatrix);
    ck_assert(!pick(&p, "blk.2.attn_q.weight")->imatrix);
    free(p.ch);
    gguf_file *src;
    ck_assert(gguf_file_open_memory(&src, srcbuf, srclen, 0, 0, NULL) == 0);
    size_t len;
    gguf_file *out;
    void *buf = requant_memory(f, &o, &len, &out);
    check_tensors(src, out, im);
    /* llama-quantize's keys, at the end */
    size_t n = gguf_kv_count(out);
    ck_assert_str_eq(key_at(out, n - 4), "quantize.imatrix.file");
    ck_assert_str_eq(key_at(out, n - 3), "quantize.imatrix.dataset");
    ck_assert_str_eq(key_at(out, n - 2), "quantize.imatrix.entries_count");
    ck_assert_str_eq(key_at(out, n - 1), "quantize.imatrix.chunks_count");
    ck_assert_uint_eq(u_of(out, "quantize.imatrix.entries_count"), 5);
    ck_assert_uint_eq(u_of(out, "quantize.imatrix.chunks_count"), 42);
    gguf_file_free(out);
    free(buf);
    gguf_file_free(src);
    gguf_file_free(f);
    /* an imatrix of the wrong size for a tensor that is converted: refused */
    im_spec bad[] = {{"blk.0.attn_q.weight", 128, 1}};
    write_imatrix(tmp("bad.gguf"), bad, 1, 1);
    gguf_requant_imatrix *imb;
    ck_assert(gguf_requant_imatrix_load(&imb, tmp("bad.gguf"), NULL) == 0);
    ck_assert(gguf_file_open_memory(&f, srcbuf, srclen, 0, 0, NULL) == 0);
    o.imatrix = imb;
    gguf_requant_choice ch[128];
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_requant_plan(ch, f, &o, &err), GGUF_EINVAL);
    ck_assert(strstr(err.message, "blk.0.attn_q.weight") != NULL);
    /* presets that need one refuse to start without */
    o = opts("Q2_K_S");
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_requant_plan(ch, f, &o, &err), GGUF_EINVAL);
    ck_assert(strstr(err.message, "importance matrix") != NULL);
    o = opts("IQ2_XXS");
    ck_assert_int_eq(gguf_requant_plan(ch, f, &o, NULL), GGUF_EINVAL);
    /* IQ4_NL: with an imatrix, no Q5_K for the first ffn_down */
    o = opts("IQ4_NL");
    o.imatrix = im;
    planned p2 = plan_of(f, &o);
    TYPE_IS(p2, "blk.0.ffn_down_exps.weight", GGUF_DTYPE_IQ4_NL);
    free(p2.ch);
    o.imatrix = NULL;
    p2 = plan_of(f, &o);
    TYPE_IS(p2, "blk.0.ffn_down_exps.weight", GGUF_DTYPE_Q5_K);
    free(p2.ch);
    gguf_file_free(f);
    gguf_requant_imatrix_free(imb);
    gguf_requant_imatrix_free(im);
    free(srcbuf);
    rm_tmpdir();
}
END_TEST

/* An imatrix with weights for every 2-D+ tensor of f. */
static void write_full_imatrix(const gguf_file *f, const char *path) {
    size_t n = gguf_tensor_count(f), k = 0;
    im_spec *e = calloc(n, sizeof *e);
    char (*names)[72] = calloc(n, sizeof *names);
    ck_assert(e && names);
    for (size_t i = 0; i < n; i++) {
        gguf_tensor_info ti;
        gguf_tensor_get(&ti, f, i);
        if (ti.dims[1] <= 1)
            continue;
        snprintf(names[k], sizeof names[k], "%.*s", (int)ti.name_len, ti.name);
        e[k] = (im_spec){names[k], (uint32_t)ti.dims[0], (uint32_t)ti.dims[2]};
        k++;
    }
    write_imatrix(path, e, k, 1);
    free(e);
    free(names);
}

START_TEST(imatrix_presets) {
    make_tmpdir();
    spec s = llama_spec(256, 512, 8);
    void *srcbuf;
    size_t srclen;
    gguf_file *f = model_bytes(&s, &srcbuf, &srclen);
    write_full_imatrix(f, tmp("im.gguf"));
    gguf_requant_imatrix *im;
    ck_assert(gguf_requant_imatrix_load(&im, tmp("im.gguf"), NULL) == 0);
    gguf_requant_options o = opts("IQ2_XXS");
    o.imatrix = im;
    planned p = plan_of(f, &o);
    TYPE_IS(p, "output.weight", GGUF_DTYPE_Q5_K);
    TYPE_IS(p, "token_embd.weight", GGUF_DTYPE_Q2_K);
    TYPE_IS(p, layer_name(4, "attn_v.weight"), GGUF_DTYPE_Q2_K); /* n_gqa 2 */
    TYPE_IS(p, layer_name(0, "ffn_down.weight"), GGUF_DTYPE_Q2_K); /* first eighth */
    TYPE_IS(p, layer_name(1, "ffn_down.weight"), GGUF_DTYPE_IQ2_XXS);
    TYPE_IS(p, layer_name(1, "attn_output.weight"), GGUF_DTYPE_IQ2_XXS);
    TYPE_IS(p, layer_name(1, "ffn_up.weight"), GGUF_DTYPE_IQ2_XXS);
    free(p.ch);
    o = opts("IQ2_M");
    o.imatrix = im;
    p = plan_of(f, &o);
    TYPE_IS(p, "token_embd.weight", GGUF_DTYPE_IQ3_S);
    TYPE_IS(p, layer_name(4, "attn_v.weight"), GGUF_DTYPE_IQ3_S);
    TYPE_IS(p, layer_name(0, "ffn_down.weight"), GGUF_DTYPE_IQ3_S);
    TYPE_IS(p, layer_name(1, "attn_output.weight"), GGUF_DTYPE_IQ3_S);
    TYPE_IS(p, layer_name(1, "ffn_up.weight"), GGUF_DTYPE_IQ2_S);
    free(p.ch);
    o = opts("IQ1_S");
    o.imatrix = im;
    p = plan_of(f, &o);
    TYPE_IS(p, layer_name(1, "attn_output.weight"), GGUF_DTYPE_IQ2_XXS);
    TYPE_IS(p, layer_name(1, "attn_q.weight"), GGUF_DTYPE_IQ1_S);
    free(p.ch);
    o = opts("IQ3_XS");
    o.imatrix = im;
    p = plan_of(f, &o);
    TYPE_IS(p, layer_name(3, "attn_q.weight"), GGUF_DTYPE_IQ3_XXS);
    TYPE_IS(p, layer_name(3, "attn_k.weight"), GGUF_DTYPE_IQ3_XXS);
    TYPE_IS(p, layer_name(0, "ffn_gate.weight"), GGUF_DTYPE_IQ3_S); /* outside the middle */
    TYPE_IS(p, layer_name(1, "ffn_gate.weight"), GGUF_DTYPE_IQ3_XXS);
    TYPE_IS(p, layer_name(6, "ffn_up.weight"), GGUF_DTYPE_IQ3_XXS);
    TYPE_IS(p, layer_name(7, "ffn_up.weight"), GGUF_DTYPE_IQ3_S);
    TYPE_IS(p, layer_name(3, "attn_v.weight"), GGUF_DTYPE_IQ3_S);
    free(p.ch);
    o = opts("IQ3_XXS");
    o.imatrix = im;
    p = plan_of(f, &o);
    TYPE_IS(p, layer_name(3, "attn_v.weight"), GGUF_DTYPE_IQ3_XXS); /* with an imatrix */
    TYPE_IS(p, layer_name(3, "attn_q.weight"), GGUF_DTYPE_IQ2_S);
    TYPE_IS(p, layer_name(0, "ffn_down.weight"), GGUF_DTYPE_IQ3_XXS);
    TYPE_IS(p, layer_name(3, "attn_output.weight"), GGUF_DTYPE_IQ3_S);
    TYPE_IS(p, "token_embd.weight", GGUF_DTYPE_IQ3_S);
    free(p.ch);
    o = opts("IQ3_M");
    o.imatrix = im;
    p = plan_of(f, &o);
    TYPE_IS(p, layer_name(3, "attn_v.weight"), GGUF_DTYPE_Q4_K);
    TYPE_IS(p, layer_name(0, "ffn_down.weight"), GGUF_DTYPE_Q4_K);
    TYPE_IS(p, layer_name(1, "ffn_down.weight"), GGUF_DTYPE_IQ3_S);
    TYPE_IS(p, layer_name(1, "attn_output.weight"), GGUF_DTYPE_Q4_K);
    free(p.ch);
    /* the data, where this build can quantize the types */
    static const char *const run[] = {"IQ2_XXS", "IQ2_M", "IQ3_XS", "Q2_K_S", "IQ1_M"};
    for (size_t r = 0; r < sizeof run / sizeof run[0]; r++) {
        o = opts(run[r]);
        o.imatrix = im;
        o.threads = 2;
        gguf_file *g;
        ck_assert(gguf_file_open_memory(&g, srcbuf, srclen, 0, 0, NULL) == 0);
        planned q = plan_of(g, &o);
        int can = 1;
        for (size_t i = 0; i < gguf_tensor_count(g); i++)
            can = can && (!q.ch[i].convert || gguf_quant_can_quantize(q.ch[i].type));
        free(q.ch);
        if (!can) {
            fprintf(stderr, "check_requant: %s: types this build cannot quantize yet, data "
                            "not checked\n", run[r]);
            gguf_file_free(g);
            continue;
        }
        size_t len;
        gguf_file *out;
        void *buf = requant_memory(g, &o, &len, &out);
        gguf_file *src;
        ck_assert(gguf_file_open_memory(&src, srcbuf, srclen, 0, 0, NULL) == 0);
        check_tensors(src, out, im);
        gguf_file_free(src);
        gguf_file_free(out);
        gguf_file_free(g);
        free(buf);
    }
    gguf_file_free(f);
    gguf_requant_imatrix_free(im);
    free(srcbuf);
    rm_tmpdir();
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* llama-quantize's options: preset numbers, key overrides, pruned layers, imatrix filters     */

START_TEST(preset_numbers) {
    /* llama-quantize takes a preset's llama_ftype number too */
    ck_assert_int_eq(opts("15").ftype, GGUF_REQUANT_Q4_K_M);
    ck_assert_int_eq(opts("7").ftype, GGUF_REQUANT_Q8_0);
    ck_assert_int_eq(opts("38").ftype, GGUF_REQUANT_MXFP4_MOE);
    gguf_requant_options z = opts("0");
    ck_assert(z.ftype == GGUF_REQUANT_F32 && !z.copy && !z.pure);
    gguf_requant_options bad = GGUF_REQUANT_OPTIONS_INIT;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_requant_parse_type(&bad, "4", &err), GGUF_EINVAL); /* removed */
    ck_assert(strstr(err.message, "4") != NULL);
    ck_assert_int_eq(gguf_requant_parse_type(&bad, "42", NULL), GGUF_EINVAL);
    ck_assert_int_eq(gguf_requant_parse_type(&bad, "99999999999999999999", NULL), GGUF_EINVAL);
    ck_assert_int_eq(gguf_requant_parse_type(&bad, "15x", NULL), GGUF_EINVAL);
}
END_TEST

START_TEST(kv_override_parsing) {
    gguf_requant_kv kv;
    gguf_error err;
    ck_assert(gguf_requant_kv_parse(&kv, "a.b=int:-42", NULL) == 0);
    ck_assert(strcmp(kv.key, "a.b") == 0 && kv.type == GGUF_REQUANT_KV_INT && kv.i == -42);
    ck_assert(gguf_requant_kv_parse(&kv, "x=float:0.5", NULL) == 0);
    ck_assert(kv.type == GGUF_REQUANT_KV_FLOAT && kv.f == 0.5);
    ck_assert(gguf_requant_kv_parse(&kv, "x=bool:false", NULL) == 0);
    ck_assert(kv.type == GGUF_REQUANT_KV_BOOL && kv.b == 0);
    ck_assert(gguf_requant_kv_parse(&kv, "x=str:a=b:c", NULL) == 0); /* the first '=' splits */
    ck_assert(kv.type == GGUF_REQUANT_KV_STR && strcmp(kv.s, "a=b:c") == 0);
    ck_assert(gguf_requant_kv_parse(&kv, "x=str:", NULL) == 0 && kv.s[0] == '\0');
    char long_key[200], long_str[200];
    memset(long_key, 'k', 127);
    strcpy(long_key + 127, "=int:1");
    ck_assert(gguf_requant_kv_parse(&kv, long_key, NULL) == 0 && strlen(kv.key) == 127);
    memset(long_key, 'k', 128);
    strcpy(long_key + 128, "=int:1");
    strcpy(long_str, "x=str:");
    memset(long_str + 6, 's', 128);
    long_str[6 + 128] = '\0';
    static const char *const refused[] = {"x", "=int:1", "x=int:", "x=int:1.5", "x=int:12x",
                                          "x=int:99999999999999999999", "x=float:", "x=float:1e",
                                          "x=bool:yes", "x=bool:True", "x=string:s", "x=u32:1"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        gguf_error_clear(&err);
        ck_assert_msg(gguf_requant_kv_parse(&kv, refused[i], &err) == GGUF_EINVAL, "%s",
                      refused[i]);
        ck_assert(err.message[0] != '\0');
    }
    ck_assert_int_eq(gguf_requant_kv_parse(&kv, long_key, NULL), GGUF_EINVAL);
    ck_assert_int_eq(gguf_requant_kv_parse(&kv, long_str, NULL), GGUF_EINVAL);
    long_str[6 + 127] = '\0';
    ck_assert_int_eq(gguf_requant_kv_parse(&kv, long_str, NULL), 0);
}
END_TEST

static gguf_requant_kv kv_of(const char *text) {
    gguf_requant_kv kv;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_requant_kv_parse(&kv, text, &err) == 0, "%s", err.message);
    return kv;
}

/* A fresh model from its bytes (prepare edits the file it is given). */
static gguf_file *reopen(const void *buf, size_t len) {
    gguf_file *f;
    ck_assert(gguf_file_open_memory(&f, buf, len, 0, 0, NULL) == 0);
    return f;
}

START_TEST(kv_overrides_in_the_output_and_the_rules) {
    spec s = llama_spec(256, 512, 8);
    void *srcbuf;
    size_t srclen;
    gguf_file *f = model_bytes(&s, &srcbuf, &srclen);
    gguf_requant_kv kv[] = {kv_of("general.name=str:renamed"), kv_of("my.i=int:-7"),
                            kv_of("my.f=float:0.25"), kv_of("my.b=bool:true"),
                            kv_of("llama.block_count=int:64"), kv_of("my.i=int:9")};
    gguf_requant_options o = opts("Q4_K_M");
    /* the rules: Q4_K_M's ffn_down gets Q6_K in layers where more_bits(i, block_count); with
     * block_count 64, layers 0..7 are all in its first eighth */
    planned p = plan_of(f, &o);
    for (unsigned l = 0; l < 8; l++)
        TYPE_IS(p, layer_name(l, "ffn_down.weight"),
                more_bits((int)l, 8) ? GGUF_DTYPE_Q6_K : GGUF_DTYPE_Q4_K);
    free(p.ch);
    o.kv_overrides = kv;
    o.n_kv_overrides = 6;
    p = plan_of(f, &o);
    for (unsigned l = 0; l < 8; l++)
        TYPE_IS(p, layer_name(l, "ffn_down.weight"), GGUF_DTYPE_Q6_K);
    free(p.ch);
    /* an override of another type than the loader reads is ignored */
    gguf_requant_kv wrong = kv_of("llama.block_count=str:64");
    o.kv_overrides = &wrong;
    o.n_kv_overrides = 1;
    p = plan_of(f, &o);
    TYPE_IS(p, layer_name(1, "ffn_down.weight"), GGUF_DTYPE_Q4_K);
    free(p.ch);
    /* the output: llama.cpp's keys, then the overrides in order (a key seen before moves to the
     * end), INT as a UINT32 of the absolute value, FLOAT as a FLOAT32 */
    o.kv_overrides = kv;
    o.n_kv_overrides = 6;
    size_t nkv = gguf_kv_count(f), len;
    gguf_file *out;
    void *buf = requant_memory(f, &o, &len, &out);
    size_t n = gguf_kv_count(out);
    /* + quantization_version, my.i, my.f, my.b; the others existed */
    ck_assert_uint_eq(n, nkv + 4);
    ck_assert_str_eq(key_at(out, n - 7), "general.quantization_version");
    ck_assert_str_eq(key_at(out, n - 6), "general.file_type");
    ck_assert_str_eq(key_at(out, n - 5), "general.name");
    ck_assert_str_eq(key_at(out, n - 4), "my.f");
    ck_assert_str_eq(key_at(out, n - 3), "my.b");
    ck_assert_str_eq(key_at(out, n - 2), "llama.block_count");
    ck_assert_str_eq(key_at(out, n - 1), "my.i");
    ck_assert_int_eq(gguf_value_type(gguf_kv_value(out, n - 1)), GGUF_VTYPE_U32);
    ck_assert_uint_eq(u_of(out, "my.i"), 9);
    ck_assert_uint_eq(u_of(out, "llama.block_count"), 64);
    double x;
    ck_assert_int_eq(gguf_value_type(gguf_kv_value(out, n - 4)), GGUF_VTYPE_F32);
    ck_assert(gguf_value_get_f64(&x, gguf_kv_value(out, n - 4), NULL) == 0 && x == 0.25);
    ck_assert_int_eq(gguf_value_type(gguf_kv_value(out, n - 3)), GGUF_VTYPE_BOOL);
    gguf_file_free(out);
    free(buf);
    gguf_file_free(f);
    /* a negative INT is written as its absolute value */
    f = reopen(srcbuf, srclen);
    gguf_requant_kv neg = kv_of("my.n=int:-5");
    o.kv_overrides = &neg;
    o.n_kv_overrides = 1;
    buf = requant_memory(f, &o, &len, &out);
    ck_assert_uint_eq(u_of(out, "my.n"), 5);
    gguf_file_free(out);
    free(buf);
    gguf_file_free(f);
    free(srcbuf);
}
END_TEST

START_TEST(prune_layers) {
    spec s = llama_spec(256, 512, 8);
    void *srcbuf;
    size_t srclen;
    gguf_file *f = model_bytes(&s, &srcbuf, &srclen);
    /* any order, repeats allowed; layers after the first pruned one numbered again */
    int32_t prune[] = {5, 2, 5};
    gguf_requant_options o = opts("Q4_K_M");
    o.prune_layers = prune;
    o.n_prune_layers = 3;
    planned p = plan_of(f, &o);
    static const int new_layer[8] = {0, 1, -1, 2, 3, -1, 4, 5};
    size_t kept = 0;
    for (unsigned l = 0; l < 8; l++) {
        const gguf_requant_choice *c = pick(&p, layer_name(l, "attn_q.weight"));
        ck_assert_int_eq(c->pruned, new_layer[l] < 0);
        if (new_layer[l] >= 0)
            ck_assert_str_eq(c->name, layer_name((unsigned)new_layer[l], "attn_q.weight"));
    }
    for (size_t i = 0; i < gguf_tensor_count(f); i++)
        kept += !p.ch[i].pruned;
    ck_assert_uint_eq(kept, gguf_tensor_count(f) - 2 * 9);
    for (size_t i = 0; i < gguf_tensor_count(f); i++)
        ck_assert(p.ch[i].pruned ? p.ch[i].position >= kept : p.ch[i].position < kept);
    ck_assert_str_eq(pick(&p, "output.weight")->name, "output.weight");
    /* the rules count the tensors kept against the model's own block_count (8), as llama.cpp */
    for (unsigned l = 0; l < 8; l++) {
        if (new_layer[l] >= 0)
            TYPE_IS(p, layer_name(l, "ffn_down.weight"),
                    more_bits(new_layer[l], 8) ? GGUF_DTYPE_Q6_K : GGUF_DTYPE_Q4_K);
    }
    free(p.ch);
    gguf_file_free(f);
    /* the file: tensors left out and renamed, block_count last; the data of a renamed tensor
     * is its source's (Q8_0's types do not depend on the layer) */
    o = opts("Q8_0");
    o.prune_layers = prune;
    o.n_prune_layers = 3;
    gguf_requant_options plain = opts("Q8_0");
    size_t len, full_len;
    gguf_file *out, *full;
    f = reopen(srcbuf, srclen);
    void *buf = requant_memory(f, &o, &len, &out);
    gguf_file_free(f);
    f = reopen(srcbuf, srclen);
    void *full_buf = requant_memory(f, &plain, &full_len, &full);
    gguf_file_free(f);
    ck_assert_uint_eq(gguf_tensor_count(out), gguf_tensor_count(full) - 18);
    ck_assert_str_eq(key_at(out, gguf_kv_count(out) - 1), "llama.block_count");
    ck_assert_uint_eq(u_of(out, "llama.block_count"), 6);
    for (unsigned l = 0; l < 8; l++) {
        int64_t a = gguf_tensor_find(full, layer_name(l, "ffn_up.weight"));
        int64_t b = new_layer[l] < 0 ? -1
                                     : gguf_tensor_find(out, layer_name((unsigned)new_layer[l],
                                                                        "ffn_up.weight"));
        ck_assert(a >= 0 && (new_layer[l] < 0 || b >= 0));
        if (b < 0)
            continue;
        gguf_tensor_info ta, tb;
        gguf_tensor_get(&ta, full, (size_t)a);
        gguf_tensor_get(&tb, out, (size_t)b);
        ck_assert(ta.nbytes == tb.nbytes && memcmp(gguf_tensor_data(full, (size_t)a),
                                                   gguf_tensor_data(out, (size_t)b),
                                                   ta.nbytes) == 0);
    }
    ck_assert(gguf_tensor_find(out, "blk.6.attn_q.weight") < 0);
    gguf_file_free(out);
    gguf_file_free(full);
    free(buf);
    free(full_buf);
    /* the source's order kept: the same tensors, renamed in place, each where its source was */
    f = reopen(srcbuf, srclen);
    o.keep_order = 1;
    buf = requant_memory(f, &o, &len, &out);
    gguf_file_free(f);
    f = reopen(srcbuf, srclen);
    ck_assert_uint_eq(gguf_tensor_count(out), gguf_tensor_count(f) - 18);
    for (size_t i = 0, k = 0; i < gguf_tensor_count(f); i++) {
        gguf_tensor_info ts, to;
        gguf_tensor_get(&ts, f, i);
        int layer = -1;
        if (sscanf(ts.name, "blk.%d.", &layer) == 1 && new_layer[layer] < 0)
            continue;
        gguf_tensor_get(&to, out, k++);
        ck_assert(strncmp(ts.name + (layer >= 0 ? 6 : 0), to.name + (layer >= 0 ? 6 : 0),
                          ts.name_len - (layer >= 0 ? 6 : 0)) == 0);
    }
    gguf_file_free(out);
    free(buf);
    /* a layer below 0 */
    int32_t negative = -1;
    o.prune_layers = &negative;
    o.n_prune_layers = 1;
    gguf_requant_choice ch[128];
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_requant_plan(ch, f, &o, &err), GGUF_EINVAL);
    /* layers past the model's: nothing pruned, block_count unchanged */
    int32_t beyond = 40;
    o.prune_layers = &beyond;
    o.keep_order = 0;
    buf = requant_memory(f, &o, &len, &out);
    ck_assert_uint_eq(u_of(out, "llama.block_count"), 8);
    ck_assert_uint_eq(gguf_tensor_count(out), 3 + 8 * 9);
    gguf_file_free(out);
    free(buf);
    gguf_file_free(f);
    free(srcbuf);
}
END_TEST

START_TEST(imatrix_include_exclude) {
    make_tmpdir();
    im_spec e[] = {{"blk.0.attn_q.weight", 256, 1},
                   {"blk.0.ffn_down.weight", 256, 1},
                   {"blk.1.attn_q.weight", 256, 1}};
    write_imatrix(tmp("im.gguf"), e, 3, 1);
    gguf_requant_imatrix *im;
    ck_assert(gguf_requant_imatrix_load(&im, tmp("im.gguf"), NULL) == 0);
    const char *ex[] = {"ffn_"};
    ck_assert(gguf_requant_imatrix_filter(im, ex, 1, 1, NULL) == 0);
    ck_assert_uint_eq(gguf_requant_imatrix_count(im), 2);
    ck_assert(gguf_requant_imatrix_find(im, "blk.0.ffn_down.weight", NULL) == NULL);
    ck_assert(gguf_requant_imatrix_find(im, "blk.1.attn_q.weight", NULL) != NULL);
    const char *in[] = {"nothing", "blk.1."};
    ck_assert(gguf_requant_imatrix_filter(im, in, 2, 0, NULL) == 0);
    ck_assert_uint_eq(gguf_requant_imatrix_count(im), 1);
    ck_assert(gguf_requant_imatrix_find(im, "blk.1.attn_q.weight", NULL) != NULL);
    ck_assert(gguf_requant_imatrix_find(im, "blk.0.attn_q.weight", NULL) == NULL);
    ck_assert_int_eq(gguf_requant_imatrix_filter(NULL, in, 1, 0, NULL), GGUF_EINVAL);
    gguf_requant_imatrix_free(im);
    rm_tmpdir();
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Against llama.cpp (ggml-oracle), when present                                               */

static const char *oracle(void) {
    return tu_oracle();
}

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...) {
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static uint32_t crc_file(const char *path) {
    size_t len;
    uint8_t *b = tu_read_file(path, &len);
    ck_assert_msg(b != NULL, "cannot read %s", path);
    uint32_t c = (uint32_t)crc32_z(0, b, len);
    free(b);
    return c;
}

static int files_equal(const char *a, const char *b) {
    size_t la, lb;
    uint8_t *x = tu_read_file(a, &la), *y = tu_read_file(b, &lb);
    int eq = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return eq;
}

/* Ours and llama_model_quantize's output of one preset, byte for byte. */
static void against_oracle(const char *in, const char *preset, const char *tag) {
    const char *o = oracle();
    gguf_file *f;
    ck_assert(gguf_file_open(&f, in, 0, NULL) == 0);
    gguf_requant_options opt = opts(preset);
    opt.threads = 2;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_requant_save(f, tmp("ours.gguf"), &opt, NULL, NULL, &err) == 0,
                  "%s %s: %s", tag, preset, err.message);
    gguf_file_free(f);
    ck_assert_msg(run("'%s' llama-quantize --allow-requantize '%s' '%s' %s 2 >/dev/null 2>&1", o,
                      in, tmp("theirs.gguf"), preset) == 0,
                  "%s: oracle llama-quantize %s failed", tag, preset);
    ck_assert_msg(files_equal(tmp("ours.gguf"), tmp("theirs.gguf")),
                  "%s %s: our file differs from llama_model_quantize's", tag, preset);
}

START_TEST(oracle_whole_files) {
    if (oracle() == NULL)
        tu_skip("no ggml-oracle (GGML_ORACLE)");
    make_tmpdir();
    /* every preset that needs no importance matrix */
#define ALL_PRESETS                                                                            \
    "Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q2_K Q3_K_S Q3_K_M Q3_K_L Q4_K_S Q4_K_M Q5_K_S Q5_K_M Q6_K "      \
    "IQ4_NL IQ4_XS TQ1_0 TQ2_0 MXFP4_MOE F16 BF16 F32 COPY"
    struct {
        const char *tag;
        spec s;
        const char *presets;
    } models[] = {
        {"llama-gqa4-f16", {.arch = "llama", .embd = 256, .ff = 512, .layers = 8, .heads = 8,
                            .kv_heads = 2, .vocab = 64, .dtype = GGUF_DTYPE_F16, .seed = 3},
         ALL_PRESETS},
        {"llama-tied-qkv", {.arch = "llama", .embd = 256, .ff = 256, .layers = 4, .heads = 4,
                            .kv_heads = 4, .vocab = 64, .dtype = GGUF_DTYPE_F32, .tied = 1,
                            .qkv = 1, .seed = 4},
         ALL_PRESETS},
        {"llama-moe8", {.arch = "llama", .embd = 256, .ff = 256, .layers = 8, .heads = 4,
                        .kv_heads = 1, .vocab = 64, .experts = 8, .dtype = GGUF_DTYPE_F32,
                        .seed = 5},
         ALL_PRESETS},
        {"falcon", {.arch = "falcon", .embd = 256, .ff = 512, .layers = 16, .heads = 4,
                    .kv_heads = 1, .vocab = 64, .dtype = GGUF_DTYPE_F32, .seed = 6},
         ALL_PRESETS},
        {"fallbacks", {.arch = "llama", .embd = 160, .ff = 200, .layers = 3, .heads = 5,
                       .kv_heads = 5, .vocab = 64, .dtype = GGUF_DTYPE_F32, .seed = 7},
         ALL_PRESETS},
        {"llama-70b", {.arch = "llama", .embd = 256, .ff = 256, .layers = 80, .heads = 8,
                       .kv_heads = 1, .vocab = 8, .dtype = GGUF_DTYPE_F16, .seed = 8},
         "Q3_K_S Q3_K_M Q4_K_S Q4_K_M Q2_K"},
    };
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        ck_assert(write_model_file(&models[m].s, tmp("in.gguf")) == 0);
        char list[256], *save = NULL;
        snprintf(list, sizeof list, "%s", models[m].presets);
        for (char *p = strtok_r(list, " ", &save); p; p = strtok_r(NULL, " ", &save))
            against_oracle(tmp("in.gguf"), p, models[m].tag);
    }
    rm_tmpdir();
}
END_TEST

/* Expected outputs made by our code (crc32 of the whole file) for a small model, so that the
 * suite checks the bytes without the oracle; with the oracle, each is proven to be exactly what
 * llama_model_quantize writes. */
static const struct {
    const char *preset;
    uint32_t crc;
} golden[] = {
    {"Q4_0", 0x19529340},   {"Q8_0", 0x6de62138}, {"Q4_K_M", 0xa5d5b359},
    {"Q5_K_M", 0xb0f6ee25}, {"Q6_K", 0x8cb0bd12}, {"Q2_K", 0xbf587a87},
    {"Q3_K_M", 0x8cccc15b}, {"COPY", 0x3c95d956},
};

static const spec golden_spec = {.arch = "llama", .embd = 256, .ff = 512, .layers = 4,
                                 .heads = 8, .kv_heads = 2, .vocab = 32,
                                 .dtype = GGUF_DTYPE_F16, .seed = 11};

START_TEST(golden_outputs) {
    make_tmpdir();
    ck_assert(write_model_file(&golden_spec, tmp("in.gguf")) == 0);
    const char *o = oracle();
    if (o == NULL) /* the crcs are then only our own earlier output */
        tu_skip_part("the crcs proven against llama_model_quantize", "no ggml-oracle (GGML_ORACLE)");
    for (size_t i = 0; i < sizeof golden / sizeof golden[0]; i++) {
        gguf_file *f;
        ck_assert(gguf_file_open(&f, tmp("in.gguf"), 0, NULL) == 0);
        gguf_requant_options opt = opts(golden[i].preset);
        opt.threads = 2;
        ck_assert(gguf_requant_save(f, tmp("ours.gguf"), &opt, NULL, NULL, NULL) == 0);
        gguf_file_free(f);
        uint32_t c = crc_file(tmp("ours.gguf"));
        ck_assert_msg(c == golden[i].crc, "%s: crc32 %08x, expected %08x", golden[i].preset, c,
                      golden[i].crc);
        if (o) {
            ck_assert(run("'%s' llama-quantize '%s' '%s' %s 2 >/dev/null 2>&1", o,
                          tmp("in.gguf"), tmp("theirs.gguf"), golden[i].preset) == 0);
            ck_assert_msg(crc_file(tmp("theirs.gguf")) == golden[i].crc,
                          "%s: llama_model_quantize's output is not the golden file",
                          golden[i].preset);
        }
    }
    rm_tmpdir();
}
END_TEST

/* ------------------------------------------------------------------------------------------ */

static int write_model_main(int argc, char **argv) {
    spec s = llama_spec(256, 512, 2);
    s.vocab = 32000;
    const char *out = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NUM(flag, field)                                                                       \
    if (strcmp(a, flag) == 0 && v) {                                                           \
        s.field = (uint32_t)strtoul(v, NULL, 10);                                              \
        i++;                                                                                   \
        continue;                                                                              \
    }
        NUM("--embd", embd) NUM("--ff", ff) NUM("--layers", layers) NUM("--heads", heads)
        NUM("--kv-heads", kv_heads) NUM("--vocab", vocab) NUM("--experts", experts)
#undef NUM
        if (strcmp(a, "--seed") == 0 && v) {
            s.seed = strtoull(v, NULL, 10);
            i++;
        } else if (strcmp(a, "--arch") == 0 && v) {
            s.arch = v;
            i++;
        } else if (strcmp(a, "--f16") == 0) {
            s.dtype = GGUF_DTYPE_F16;
        } else if (strcmp(a, "--tied") == 0) {
            s.tied = 1;
        } else if (strcmp(a, "--qkv") == 0) {
            s.qkv = 1;
        } else if (strcmp(a, "--golden") == 0) {
            s = golden_spec;
        } else if (out == NULL) {
            out = a;
        } else {
            fprintf(stderr, "check_requant --write-model: unexpected '%s'\n", a);
            return 2;
        }
    }
    if (out == NULL || s.heads == 0 || s.kv_heads == 0 || s.embd % s.heads != 0) {
        fprintf(stderr, "usage: check_requant --write-model OUT [--embd N --ff N --layers N "
                        "--heads N --kv-heads N --vocab N --experts N --arch A --seed N --f16 "
                        "--tied --qkv --golden]\n");
        return 2;
    }
    return write_model_file(&s, out) == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "--write-model") == 0) {
        in_tests = 0;
        return write_model_main(argc, argv);
    }
    Suite *s = suite_create("requant");
    TCase *tc = tcase_create("policy");
    tcase_set_timeout(tc, 120); /* models of 80 layers built under sanitizers on a busy machine */
    tcase_add_test(tc, preset_names);
    tcase_add_test(tc, q4_k_m_mixture);
    tcase_add_test(tc, k_quant_presets);
    tcase_add_test(tc, tied_embeddings_follow_the_output);
    tcase_add_test(tc, output_options);
    tcase_add_test(tc, fallbacks_when_rows_do_not_fit);
    tcase_add_test(tc, overrides_and_pure);
    tcase_add_test(tc, experts_falcon_70b_mxfp4);
    tcase_add_test(tc, experts_need_layer_numbers);
    tcase_add_test(tc, which_tensors_may_change);
    tcase_add_test(tc, tensor_order_is_llama_cpps);
    suite_add_tcase(s, tc);
    tc = tcase_create("data");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, data_equals_quantize_of_source_values);
    tcase_add_test(tc, f16_and_quantized_sources);
    tcase_add_test(tc, files_memory_and_big_endian_agree);
    tcase_add_test(tc, metadata_as_llama_cpp_writes_it);
    tcase_add_test(tc, fill_refuses_what_it_does_not_fill);
    tcase_add_test(tc, allocation_failures_fail_cleanly);
    suite_add_tcase(s, tc);
    tc = tcase_create("imatrix");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, imatrix_gguf_format);
    tcase_add_test(tc, imatrix_legacy_format);
    tcase_add_test(tc, requant_with_imatrix);
    tcase_add_test(tc, imatrix_presets);
    suite_add_tcase(s, tc);
    tc = tcase_create("llama_quantize_options");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, preset_numbers);
    tcase_add_test(tc, kv_override_parsing);
    tcase_add_test(tc, kv_overrides_in_the_output_and_the_rules);
    tcase_add_test(tc, prune_layers);
    tcase_add_test(tc, imatrix_include_exclude);
    suite_add_tcase(s, tc);
    tc = tcase_create("imatrix_scale");
    /* the load takes 0.4 s of CPU, yet more than 20 s of a machine saturated by other work */
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, imatrix_many_entries);
    suite_add_tcase(s, tc);
    tc = tcase_create("oracle");
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, golden_outputs);
    tcase_add_test(tc, oracle_whole_files);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
