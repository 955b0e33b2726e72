/* The memory llama.cpp allocates on its CPU backend for a model and a context, from the header:
 * the weights (every tensor it loads), the KV cache (llama_context's padding of n_ctx, the
 * caches of llama_model::create_memory, the tensors of llama_kv_cache's constructor) or the
 * recurrent state (llama_memory_recurrent's), the f16 KV cache per token for the summary, and the
 * scheduler's compute buffer for the largest batch (a model of the tensors ggml's allocator
 * keeps alive at once in the layer graph, its three peaks: attention, feed-forward, output).
 * Written from llama.cpp's llama-context.cpp, llama-model.cpp, llama-kv-cache*.cpp,
 * llama-memory-recurrent.cpp, llama-hparams.cpp, llama-graph.cpp and models/deepseek4.cpp;
 * the tests compare every part with llama.cpp's own memory breakdown. */
#include "llama.h"
#include "base/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LLAMA_MAX_SEQ 256 /* llama.cpp refuses more sequences */
/* chameleon's image tokens, whose logits its graph sets to -FLT_MAX: ids 4 to 8195, one f32
 * each (a constant of its graph, not of the file) */
#define CHAMELEON_IMG_ROW ((uint64_t)8192 * 4)
#define CTX_PAD 256       /* llama_context pads n_ctx (and n_ctx_seq) to this */
/* block-sparse attention's axis of positions: at least this many, padded to this (while
 * reserving, the cache empty, this many) */
#define POS_PAD 256
#define BUF_ALIGN 32      /* the CPU buffer's alignment of each tensor */

/* How an architecture keeps its context, as create_memory builds it. */
enum memory_kind {
    MEM_NONE = 0, /* encoders: no cache (res = nullptr) */
    MEM_KV,       /* llama_kv_cache, or llama_kv_cache_iswa when some layers slide */
    MEM_RECURRENT, /* llama_memory_recurrent: a state per sequence in every layer */
    MEM_HYBRID,    /* llama_memory_hybrid: a KV cache for the attention layers, a recurrent
                      state for the others */
    MEM_DSV4       /* llama_kv_cache_dsv4: every layer's keys in a sliding-window cache, the
                      compressing layers' compressed keys and compressor states beside it */
};

/* Which layers keep a sparse-attention indexer's key cache. */
enum indexer_kind {
    INDEXER_NONE = 0,
    INDEXER_ALL,  /* every layer that runs */
    INDEXER_FULL, /* those attention.indexer.types marks full (the others reuse its picks) */
    INDEXER_SPARSE /* those past the leading dense ones (block-sparse attention's) */
};

/* Where ggml's allocator puts the logits: the graph's last layer keeps a tensor alive above the
 * inputs while the last hidden states are made, so those go above it, and the logits go into
 * the hole the freed inputs (the masks) leave below when it holds them, else above all. */
enum out_place {
    OUT_LOW = 0,        /* the last hidden states and logits go where the inputs were freed */
    OUT_ABOVE_NO_FLASH, /* above the inputs without flash attention only */
    OUT_ABOVE           /* above the inputs with flash attention or without */
};

/* The architectures whose memory and graph this file knows: llama_kv_cache(_iswa) without a
 * layer filter, reuse or sharing (or llama_kv_cache_dsa(_iswa) for a sparse-attention
 * indexer), or llama_memory_recurrent for every layer, and a graph of the usual shape; or
 * deepseek4's llama_kv_cache_dsv4 and its own graph (tests/cli/estimate.sh checks each against
 * llama.cpp). */
#define KV(name) {.arch = name, .kind = MEM_KV}
#define ENC(name) {.arch = name, .kind = MEM_NONE}
#define REC(name) {.arch = name, .kind = MEM_RECURRENT}
#define HYB(name) {.arch = name, .kind = MEM_HYBRID}
/* diffusion models: no cache, attention over the whole batch, logits for every token */
#define DIFF(name) {.arch = name, .kind = MEM_NONE, .logits = 1, .non_causal = 1}
/* a KV cache, and a compute buffer from llama_graph.c's replay */
#define GRAPH(name) {.arch = name, .kind = MEM_KV, .graph = 1}
static const struct arch_memory {
    const char *arch;
    uint8_t kind;
    uint8_t qkv_rope; /* Q and K roped into copies: beside a fused QKV projection's block (V a
                         view of it) or, separate (nomic-bert's), above a second residual */
    uint8_t no_flash; /* llama_init_from_model turns flash attention off, whatever was asked */
    uint8_t ffn_no_cache; /* a hybrid whose feed-forward layers keep neither cache nor state */
    uint8_t linear_attn; /* a hybrid's recurrent layers are linear attention: a head x head
                            state per head */
    uint8_t nextn_no_cache; /* the next-token prediction layers keep no cache (their own context
                               does) */
    uint8_t out_place;    /* where the logits go (an out_place) */
    uint8_t attn_and_recr; /* a hybrid whose every layer runs attention beside its recurrent
                              block: a cache and a state in each */
    uint8_t logits;     /* no cache, yet logits for every token (a diffusion model) */
    uint8_t non_causal; /* llama.cpp sets causal_attn false whatever attention.causal says: the
                           batch is not clamped to the context */
    uint8_t indexer;    /* llama_kv_cache_dsa (an indexer_kind): beside the latent cache, the
                           sparse-attention indexer's key cache (one head of
                           indexer.key_length, the K cache's type), and a top-k mask over the
                           cells in each layer's graph */
    uint8_t block_sparse; /* the indexer picks blocks of positions for each token and key head
                             (minimax-m3's graph): instead of a top-k mask over the cells, each
                             stream's block picks spread over its cells, twice, beside the mask
                             in f32 */
    uint8_t pooled_blocks; /* the indexer scores blocks of attention.compress_ratios cells by
                              their pooled keys (qwen4exp's graph, in the attention layers with
                              a ratio): instead of a top-k mask over the cells, the blocks' keys
                              gathered, their scores per query head, or the scores' sum spread
                              over the cells (f32), each beside a copy */
    uint8_t indexer_kv; /* the indexer's cache is a whole llama_kv_cache of one head: beside
                           its keys, values as wide as the model's heads (stored transposed, and
                           as wide as the widest, without flash attention) */
    uint8_t cache_unread; /* create_memory's KV cache, which the graph never reads: it attends
                             over the batch alone and gives no logits (an encoder's graph) */
    uint8_t rel_bias; /* a relative position bias added to the scores (t5's): no flash
                         attention, and one cache stream */
    uint8_t cross;    /* a decoder's cross-attention over the encoder's output, as many rows as
                         the training context when the graph is reserved (t5's) */
    uint8_t logits_copy; /* the logits copied whole once more, above the first (chameleon's:
                            ggml_set_1d writes its image tokens' suppressed logits into a copy,
                            not in place), beside a row of those tokens allocated with the
                            inputs: the first logits go above the inputs */
    uint16_t per_layer_input; /* the width of each layer's own slice of the token's input,
                                 computed before the first layer and read by every one */
    uint8_t graph; /* the compute buffer from llama_graph.c's model of the graph and of
                      ggml-alloc's placement: exact, and the only way where no closed form
                      follows the placement */
} archs[] = {
    KV("falcon"),     KV("gpt2"),         KV("gptneox"),     KV("mpt"),
    KV("baichuan"),   KV("starcoder"),    KV("refact"),      KV("bloom"),
    KV("stablelm"),   KV("qwen"),         KV("qwen2moe"),    KV("qwen2vl"),
    KV("phi2"),       KV("phi3"),         KV("codeshell"),   KV("orion"),
    KV("internlm2"),  KV("minicpm"),      KV("gemma"),       KV("gemma2"),
    KV("starcoder2"), KV("xverse"),       KV("command-r"),
    KV("cohere2"),    KV("dbrx"),         KV("olmo"),        KV("olmo2"),
    KV("openelm"),    KV("arctic"),       KV("deepseek"),    KV("deepseek2"),
    KV("chatglm"),    KV("glm4"),         KV("glm4moe"),     KV("bitnet"),
    KV("jais"),       KV("jais2"),        KV("nemotron"),    KV("exaone"),
    KV("granite"),    KV("granitemoe"),   KV("bailingmoe"),  KV("arcee"),
    KV("ernie4_5"),   KV("ernie4_5-moe"), KV("hunyuan-moe"), KV("hunyuan-dense"),
    KV("hunyuan_vl"), KV("smollm3"),      KV("gpt-oss"),     KV("seed_oss"),
    KV("apertus"),    KV("pangu-embedded"), KV("mistral3"),  KV("mistral4"),
    KV("paddleocr"),  KV("maincoder"),    KV("qwen3vl"),     KV("qwen3vlmoe"),
    KV("talkie"),     KV("minicpm3"),     KV("plm"),         KV("bailingmoe2"),
    KV("exaone-moe"), KV("grovemoe"),     KV("llama4"),      KV("afmoe"),
    KV("olmoe"),      KV("exaone4"),      KV("smallthinker"), KV("minimax-m2"),
    KV("dots1"),      KV("deepseek2-ocr"), KV("laguna"),     KV("granite_swa"),
    KV("nanbeige"),   KV("mellum"),       KV("plamo3"),      KV("muse-glimmer"),
    KV("graniteswitch"), KV("cogvlm"),    KV("cohere2moe"),
    ENC("bert"),      ENC("jina-bert-v3"), ENC("jina-bert-v2"), ENC("eurobert"),
    ENC("nomic-bert-moe"),
    {.arch = "nomic-bert", .kind = MEM_NONE, .qkv_rope = 1},
    {.arch = "neo-bert", .kind = MEM_NONE, .qkv_rope = 1},
    {.arch = "modern-bert", .kind = MEM_NONE, .qkv_rope = 1},
    {.arch = "llama-embed", .kind = MEM_KV, .qkv_rope = 1, .cache_unread = 1},
    {.arch = "t5", .kind = MEM_KV, .rel_bias = 1, .cross = 1},
    {.arch = "t5encoder", .kind = MEM_KV, .cache_unread = 1, .rel_bias = 1},
    {.arch = "gemma-embedding", .kind = MEM_NONE, .non_causal = 1},
    {.arch = "grok", .kind = MEM_KV, .no_flash = 1},
    {.arch = "chameleon", .kind = MEM_KV, .out_place = OUT_ABOVE, .logits_copy = 1},
    {.arch = "plamo", .kind = MEM_KV, .out_place = OUT_ABOVE},
    GRAPH("llama"),   GRAPH("qwen2"),     GRAPH("qwen3"),    GRAPH("qwen3moe"),
    GRAPH("gemma3"),  GRAPH("phimoe"),  GRAPH("gemma4"),
    {.arch = "plamo2", .kind = MEM_HYBRID, .graph = 1},
    {.arch = "bailingmoe3", .kind = MEM_HYBRID, .graph = 1},
    {.arch = "deci", .kind = MEM_KV, .out_place = OUT_ABOVE},
    {.arch = "gemma3n", .kind = MEM_KV, .per_layer_input = 256}, /* n_embd_altup, a constant */
    {.arch = "hy_v3", .kind = MEM_KV, .nextn_no_cache = 1},
    {.arch = "deepseek32", .kind = MEM_KV, .nextn_no_cache = 1, .indexer = INDEXER_ALL},
    {.arch = "glm-dsa", .kind = MEM_KV, .nextn_no_cache = 1, .indexer = INDEXER_FULL},
    {.arch = "dots3note", .kind = MEM_KV, .nextn_no_cache = 1, .indexer = INDEXER_FULL},
    {.arch = "minimax-m3", .kind = MEM_KV, .indexer = INDEXER_SPARSE, .indexer_kv = 1,
     .block_sparse = 1},
    {.arch = "deepseek4", .kind = MEM_DSV4},
    {.arch = "mimo2", .kind = MEM_KV, .nextn_no_cache = 1},
    {.arch = "step35", .kind = MEM_KV, .nextn_no_cache = 1},
    {.arch = "minimax-01", .kind = MEM_HYBRID, .linear_attn = 1},
    {.arch = "nemotron_h", .kind = MEM_HYBRID, .ffn_no_cache = 1,
     .out_place = OUT_ABOVE_NO_FLASH},
    {.arch = "nemotron_h_moe", .kind = MEM_HYBRID, .ffn_no_cache = 1,
     .out_place = OUT_ABOVE_NO_FLASH},
    {.arch = "falcon-h1", .kind = MEM_HYBRID, .attn_and_recr = 1},
    {.arch = "qwen4exp", .kind = MEM_HYBRID, .nextn_no_cache = 1, .indexer = INDEXER_ALL,
     .indexer_kv = 1, .pooled_blocks = 1},
    REC("mamba"),     REC("mamba2"),      REC("rwkv7"),      REC("rwkv6"),
    REC("rwkv6qwen2"), REC("arwkv7"),
    HYB("lfm2"),      HYB("lfm2moe"),     HYB("qwen3next"),  HYB("qwen35"),
    HYB("qwen35moe"), HYB("granitehybrid"), HYB("jamba"),
    HYB("kimi-linear"), HYB("kimi-k3"),
    DIFF("dream"),    DIFF("llada"),      DIFF("llada-moe"), DIFF("rnd1"),
};
#undef KV
#undef ENC
#undef REC
#undef HYB
#undef DIFF
#undef GRAPH


static const struct arch_memory *arch_memory_find(const char *arch) {
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++) {
        if (strcmp(archs[i].arch, arch) == 0)
            return &archs[i];
    }
    return NULL;
}

int gguf_llama_estimate_defaults(gguf_llama_estimate_params *p, gguf_error *err) {
    if (p == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no parameters to fill");
    static const gguf_llama_estimate_params defaults = GGUF_LLAMA_ESTIMATE_PARAMS_INIT;
    int rc = gguf__options_size_check(p->size, sizeof defaults, "gguf_llama_estimate_params", err);
    if (rc != 0)
        return rc;
    size_t n = p->size < sizeof defaults ? p->size : sizeof defaults;
    memcpy((char *)p + sizeof p->size, (const char *)&defaults + sizeof p->size,
           n - sizeof p->size);
    return 0;
}

static uint64_t pad(uint64_t x, uint64_t n) {
    return (x + n - 1) / n * n;
}

/* Products and sums of hyperparameters a hostile file sets to anything: one that passes 64
 * bits sets *ovf (the estimate is then refused, never wrapped). */
static uint64_t mul(int *ovf, uint64_t a, uint64_t b) {
    uint64_t r;
    if (!gguf__mul_u64(&r, a, b)) {
        *ovf = 1;
        return 0;
    }
    return r;
}

static uint64_t mul4(int *ovf, uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
    return mul(ovf, mul(ovf, a, b), mul(ovf, c, d));
}

static uint64_t add(int *ovf, uint64_t a, uint64_t b) {
    uint64_t r;
    if (!gguf__add_u64(&r, a, b)) {
        *ovf = 1;
        return 0;
    }
    return r;
}

/* A tensor's bytes in the CPU buffer: rounded up to its alignment. */
static uint64_t aligned(int *ovf, uint64_t x) {
    uint64_t r;
    if (!gguf__align_up(&r, x, BUF_ALIGN)) {
        *ovf = 1;
        return 0;
    }
    return r;
}

/* ggml_row_size: bytes of n elements of dtype (n a multiple of its block). */
static uint64_t row_size(uint32_t dtype, uint64_t n) {
    return n / gguf_dtype_block_elems(dtype) * gguf_dtype_block_bytes(dtype);
}

/* tokenizer.ggml.tokens' length: the vocabulary llama.cpp's output layer produces. */
static uint64_t vocab_size(const gguf_file *f) {
    int64_t i = gguf_kv_find(f, "tokenizer.ggml.tokens");
    if (i < 0)
        return 0;
    const gguf_value *v = gguf_kv_value(f, (size_t)i);
    return gguf_value_type(v) == GGUF_VTYPE_ARRAY ? gguf_value_count(v) : 0;
}

/* ---- weights ---- */

/* The layer of a "blk.N." tensor (t5's "enc.blk.N." and "dec.blk.N." too), or -1. */
static long layer_of(const char *name, size_t len) {
    if (len >= 8 && (memcmp(name, "enc.", 4) == 0 || memcmp(name, "dec.", 4) == 0))
        name += 4, len -= 4; /* t5's encoder's and decoder's layers, counted by their index */
    if (len < 6 || memcmp(name, "blk.", 4) != 0)
        return -1;
    long il = 0;
    size_t i = 4;
    for (; i < len && name[i] >= '0' && name[i] <= '9' && il < 100000; i++)
        il = il * 10 + (name[i] - '0');
    return i > 4 && i < len && name[i] == '.' ? il : -1;
}

static int add_weights(gguf_llama_estimate *e, const gguf_file *f, gguf_error *err) {
    for (size_t i = 0; i < gguf_tensor_count(f); i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        if (t.nbytes == GGUF_NBYTES_UNKNOWN)
            return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                              "tensor '%.*s': type %u is unknown, its size too",
                              (int)t.name_len, t.name, t.type);
        e->weights += t.nbytes;
        long il = layer_of(t.name, t.name_len);
        if (il >= 0 && (uint64_t)il < e->n_layer)
            e->layer[il].weights += t.nbytes;
        else if (t.name_len == 17 && memcmp(t.name, "token_embd.weight", 17) == 0)
            e->weights_token_embd += t.nbytes;
        else if (t.name_len == 13 && memcmp(t.name, "output.weight", 13) == 0)
            e->weights_output += t.nbytes;
        else
            e->weights_other += t.nbytes;
    }
    return 0;
}

/* ---- context ---- */

static uint32_t head_k(const gguf__llama_hparams *hp, uint32_t il) {
    return hp->is_swa[il] ? hp->n_embd_head_k_swa : hp->n_embd_head_k;
}

static uint32_t head_v(const gguf__llama_hparams *hp, uint32_t il) {
    return hp->is_swa[il] ? hp->n_embd_head_v_swa : hp->n_embd_head_v;
}

/* Refuses what llama_init_from_model refuses for these parameters. */
static int check_params(const gguf__llama_hparams *hp, const struct arch_memory *am,
                        const gguf_llama_estimate_params *p, int flash, int mla,
                        gguf_error *err) {
    static const char *const which[2] = {"K", "V"};
    uint32_t types[2] = {p->type_k, p->type_v};
    for (int kv = 0; kv < 2; kv++) {
        if (gguf_dtype_name(types[kv]) == NULL || gguf_dtype_block_elems(types[kv]) == 0)
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "%s cache type %u is not a tensor type", which[kv], types[kv]);
    }
    if ((mla || am->kind == MEM_DSV4) && p->type_k != p->type_v)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "%s takes one cache type for K and V, not %s and %s",
                          mla ? "a model with latent attention (MLA)"
                              : "a model whose caches keep keys only",
                          gguf_dtype_name(p->type_k), gguf_dtype_name(p->type_v));
    int v_quant = gguf_dtype_block_elems(p->type_v) > 1;
    if (v_quant && !flash)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "a quantized V cache (%s) needs flash attention (%s)",
                          gguf_dtype_name(p->type_v),
                          am->no_flash ? "which llama.cpp turns off for this architecture"
                                   : "-fa on or auto");
    if (am->block_sparse && hp->indexer_block_size == 0)
        return gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                          "%s.attention.indexer.block_size is absent or 0: llama.cpp fails an "
                          "assertion loading the model", hp->arch);
    if (am->rel_bias && !am->cache_unread && !p->kv_unified && p->n_seq > 1)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "%s's relative position bias spans one stream of the cache: llama.cpp "
                          "fails an assertion building its graph with a cache per sequence (%u "
                          "sequences; -kvu keeps one cache)", hp->arch, p->n_seq);
    for (uint32_t il = 0; flash && il < hp->n_layer; il++) {
        for (int kv = 0; kv < 2; kv++) {
            uint32_t blck = gguf_dtype_block_elems(types[kv]);
            uint32_t head = kv == 0 ? head_k(hp, il) : head_v(hp, il);
            if (blck > 1 && head % blck != 0)
                return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                                  "%s cache type %s: its block of %u does not divide layer %u's "
                                  "head size %u", which[kv], gguf_dtype_name(types[kv]), blck, il,
                                  head);
        }
    }
    return 0;
}

/* Resolves the parameters as llama_context's constructor does. */
static int resolve(gguf_llama_estimate *e, const gguf__llama_hparams *hp, int causal,
                   gguf_error *err) {
    gguf_llama_estimate_params *p = &e->params;
    if (p->n_seq == 0 || p->n_seq > LLAMA_MAX_SEQ)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "%u parallel sequences: llama.cpp takes 1 to %d", p->n_seq,
                          LLAMA_MAX_SEQ);
    if (p->n_batch == 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "a batch of 0 tokens");
    uint64_t n_ctx = p->n_ctx == 0 ? hp->n_ctx_train : p->n_ctx;
    if (n_ctx == 0)
        return gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                          "context 0 asks for the training context, and %s.context_length is "
                          "absent or 0", hp->arch);
    /* the batch is clamped to the context as asked, before the padding */
    if (causal && p->n_batch > n_ctx)
        p->n_batch = (uint32_t)n_ctx;
    if (p->n_ubatch == 0 || p->n_ubatch > p->n_batch)
        p->n_ubatch = p->n_batch;
    n_ctx = pad(n_ctx, CTX_PAD);
    uint64_t n_ctx_seq = n_ctx;
    if (!p->kv_unified) {
        n_ctx_seq = pad(n_ctx / p->n_seq, CTX_PAD);
        if (n_ctx_seq == 0)
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "a context of %llu tokens for %u sequences leaves none per "
                              "sequence", (unsigned long long)n_ctx, p->n_seq);
        n_ctx = n_ctx_seq * p->n_seq;
    }
    if (n_ctx > UINT32_MAX)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "a context of %llu tokens is past llama.cpp's 32-bit count",
                          (unsigned long long)n_ctx);
    p->n_ctx = (uint32_t)n_ctx;
    e->n_ctx_seq = (uint32_t)n_ctx_seq;
    return 0;
}

/* Layer il runs attention over the cache: a hybrid's recurrent layers do not, unless every
 * layer runs both. */
static int layer_attends(const gguf__llama_hparams *hp, const struct arch_memory *am,
                         uint32_t il) {
    return !hp->is_recr[il] || am->attn_and_recr;
}

/* Layer il is one of a hybrid's feed-forward layers, which keep neither cache nor state. */
static int layer_ffn_only(const gguf__llama_hparams *hp, const struct arch_memory *am,
                          uint32_t il) {
    return am->ffn_no_cache && hp->n_ff[il] != 0;
}

/* The KV cache: llama_kv_cache for every layer, or llama_kv_cache_iswa's two caches when some
 * layers slide (those in a cache of their window unless swa_full). */
static void add_kv_cache(gguf_llama_estimate *e, const gguf__llama_hparams *hp,
                         const struct arch_memory *am, int mla, int *ovf) {
    const gguf_llama_estimate_params *p = &e->params;
    uint32_t n_stream = p->kv_unified ? 1 : p->n_seq;
    uint32_t cells = e->n_ctx_seq, cells_swa = cells;
    int any_swa = 0;
    for (uint32_t il = 0; il < e->n_layer; il++)
        any_swa |= hp->is_swa[il];
    if (any_swa && !p->swa_full) {
        uint64_t want = (uint64_t)hp->n_swa * (p->kv_unified ? p->n_seq : 1) + p->n_ubatch;
        cells_swa = (uint32_t)pad(want < cells ? want : cells, CTX_PAD);
    }
    e->n_swa_cells = any_swa ? cells_swa : 0;
    /* without flash attention V is stored transposed, every layer as wide as the widest */
    uint64_t v_max = 0, v_head_max = 0;
    for (uint32_t il = 0; il < e->n_layer; il++) {
        uint64_t w = (uint64_t)head_v(hp, il) * hp->n_head_kv[il];
        v_max = w > v_max ? w : v_max;
        v_head_max = head_v(hp, il) > v_head_max ? head_v(hp, il) : v_head_max;
    }
    for (uint32_t il = 0; il < e->n_layer; il++) {
        gguf_llama_estimate_layer *l = &e->layer[il];
        if (!layer_attends(hp, am, il) || layer_ffn_only(hp, am, il) ||
            (am->nextn_no_cache && il >= hp->n_layer) || il >= hp->n_layer_kv_from_start)
            continue; /* a hybrid's recurrent layer (its state, not a cache), a feed-forward, a
                         next-token prediction layer, a layer reading an earlier one's cache */
        l->cells = l->swa ? cells_swa : cells;
        uint64_t n = (uint64_t)l->cells * n_stream;
        uint64_t k = (uint64_t)head_k(hp, il) * hp->n_head_kv[il];
        uint64_t v = e->flash_attn_used ? (uint64_t)head_v(hp, il) * hp->n_head_kv[il] : v_max;
        l->k = aligned(ovf, mul(ovf, row_size(p->type_k, k), n));
        l->v = mla ? 0 : aligned(ovf, mul(ovf, row_size(p->type_v, v), n));
        int indexed = am->indexer == INDEXER_ALL ||
                      (am->indexer == INDEXER_FULL && hp->is_indexer_full[il]) ||
                      (am->indexer == INDEXER_SPARSE && il >= hp->n_layer_dense_lead);
        if (indexed) /* the indexer's keys: a cache of their own, K only */
            l->k = add(ovf, l->k,
                       aligned(ovf, mul(ovf, row_size(p->type_k, hp->indexer_head_size), n)));
        if (indexed && am->indexer_kv) /* and its one head's values */
            l->v = add(ovf, l->v,
                       aligned(ovf, mul(ovf, row_size(p->type_v, e->flash_attn_used
                                                                     ? head_v(hp, il)
                                                                     : v_head_max),
                                        n)));
        e->context = add(ovf, e->context, add(ovf, l->k, l->v));
    }
}

/* The recurrent state (llama_memory_recurrent): per layer an r row (mamba: the convolution's
 * last d_conv-1 inputs; rwkv: its token shifts) and an s row (mamba: the ssm state; rwkv: the
 * wkv state) in f32, for each sequence (n_rs_seq 0: no rollback rows). */
static void add_recurrent_state(gguf_llama_estimate *e, const gguf__llama_hparams *hp,
                                const struct arch_memory *am, int *ovf) {
    uint64_t n_r, n_s;
    if (hp->wkv_head_size != 0) {
        n_r = mul(ovf, hp->token_shift_count, hp->n_embd);
        n_s = mul(ovf, hp->n_embd, hp->wkv_head_size);
    } else if (hp->kda_head_dim != 0) {
        /* kimi's delta attention: the convolutions' last d_conv-1 (3 when unset) inputs of Q, K
         * and V, and a head x head state per head */
        uint64_t conv = hp->ssm_d_conv > 0 ? hp->ssm_d_conv - 1 : 3;
        n_r = mul4(ovf, 3, conv, hp->n_head[0], hp->kda_head_dim);
        n_s = mul4(ovf, hp->kda_head_dim, hp->kda_head_dim, hp->n_head[0], 1);
    } else if (am->linear_attn) {
        n_r = 0;
        n_s = mul4(ovf, hp->n_embd_head_k, hp->n_embd_head_k, hp->n_head[0], 1);
    } else if (hp->shortconv_l_cache != 0) { /* lfm2: the convolution's last l_cache-1 inputs */
        n_r = mul(ovf, hp->shortconv_l_cache - 1, hp->n_embd);
        n_s = 0;
    } else {
        uint64_t conv = hp->ssm_d_conv > 0 ? hp->ssm_d_conv - 1 : 0;
        n_r = mul(ovf, conv,
                  add(ovf, hp->ssm_d_inner, mul4(ovf, 2, hp->ssm_n_group, hp->ssm_d_state, 1)));
        n_s = mul(ovf, hp->ssm_d_state, hp->ssm_d_inner);
    }
    uint64_t rows = e->params.n_seq;
    for (uint32_t il = 0; il < e->n_layer; il++) {
        gguf_llama_estimate_layer *l = &e->layer[il];
        if (!hp->is_recr[il] || layer_ffn_only(hp, am, il))
            continue; /* a hybrid's attention layer, or a feed-forward */
        l->r = aligned(ovf, mul4(ovf, n_r, rows, 4, 1));
        /* qwen4exp's n-gram embeddings: their convolution's history, a tensor of its own */
        if (hp->ple_conv_state != 0 && il == hp->ple_layer)
            l->r = add(ovf, l->r, aligned(ovf, mul4(ovf, hp->ple_conv_state, rows, 4, 1)));
        l->s = aligned(ovf, mul4(ovf, n_s, rows, 4, 1));
        e->context = add(ovf, e->context, add(ovf, l->r, l->s));
    }
}

/* deepseek4's compression: a layer's ratio of 4 (CSA, with a lightning indexer) or 128 (HCA)
 * tokens to one compressed row; 0 keeps only the sliding window. */
#define DSV4_CSA 4
#define DSV4_HCA 128
/* rows of a CSA layer's compressor state: two blocks of 4 tokens (its blocks overlap) */
#define DSV4_CSA_STATE (2 * DSV4_CSA)

/* One deepseek4 layer's memory, apart: the sliding-window keys, the compressed keys (and the
 * indexer's), the compressor states. */
struct dsv4_layer {
    uint64_t window, compressed, state;
};

/* Cells of a compressed cache per stream: a row per `ratio` cells of the context (one at
 * least), padded to 256. */
static uint64_t dsv4_cells(uint64_t n_ctx_seq, uint64_t ratio) {
    uint64_t rows = (n_ctx_seq + ratio - 1) / ratio;
    return pad(rows > 0 ? rows : 1, CTX_PAD);
}

/* llama_kv_cache_dsv4 for layer il: every cache of it keeps a stream per sequence whether or
 * not the cache is unified, and stores keys only (the one key/value head serves as both).
 * The sliding-window cache holds every layer, the next-token prediction ones too, over the
 * window plus a batch (not per sequence) unless swa_full; a CSA layer adds its compressed keys
 * and its indexer's (one head of indexer.key_length) over a quarter of the cells, an HCA layer
 * its compressed keys over a 128th, all of the K cache's type. The compressor states (a kv and
 * a score tensor each, f32, in the layers that run) hold the tokens of a block not yet
 * compressed: CSA's and its indexer's 8 rows twice their head wide, HCA's 128 rows one head
 * wide (every state's head is layer 0's). */
static struct dsv4_layer dsv4_layer_memory(const gguf__llama_hparams *hp,
                                           const gguf_llama_estimate_params *p, uint64_t n_ctx_seq,
                                           uint64_t window_cells, uint32_t il, int *ovf) {
    struct dsv4_layer m = {0, 0, 0};
    uint64_t n_seq = p->n_seq, ratio = hp->compress_ratio[il];
    uint64_t key = row_size(p->type_k, (uint64_t)head_k(hp, il) * hp->n_head_kv[il]);
    m.window = aligned(ovf, mul4(ovf, key, window_cells, n_seq, 1));
    if (ratio != DSV4_CSA && ratio != DSV4_HCA)
        return m;
    uint64_t cells = dsv4_cells(n_ctx_seq, ratio);
    m.compressed = aligned(ovf, mul4(ovf, key, cells, n_seq, 1));
    if (ratio == DSV4_CSA)
        m.compressed = add(ovf, m.compressed,
                           aligned(ovf, mul4(ovf, row_size(p->type_k, hp->indexer_head_size),
                                             cells, n_seq, 1)));
    if (il >= hp->n_layer)
        return m;
    uint64_t head = head_k(hp, 0), f32 = 4;
    uint64_t one = ratio == DSV4_CSA
                       ? add(ovf, aligned(ovf, mul4(ovf, 2 * head, DSV4_CSA_STATE, n_seq, f32)),
                             aligned(ovf, mul4(ovf, 2 * (uint64_t)hp->indexer_head_size,
                                               DSV4_CSA_STATE, n_seq, f32)))
                       : aligned(ovf, mul4(ovf, head, DSV4_HCA, n_seq, f32));
    m.state = mul(ovf, 2, one); /* kv and score */
    return m;
}

/* The context of llama_kv_cache_dsv4: each layer's keys in k (the sliding window's and the
 * compressed ones), its compressor states in s (a state per sequence, like a recurrent one). */
static void add_dsv4_cache(gguf_llama_estimate *e, const gguf__llama_hparams *hp, int *ovf) {
    const gguf_llama_estimate_params *p = &e->params;
    uint64_t want = (uint64_t)hp->n_swa + p->n_ubatch;
    uint32_t cells = p->swa_full ? e->n_ctx_seq
                                 : (uint32_t)pad(want < e->n_ctx_seq ? want : e->n_ctx_seq,
                                                 CTX_PAD);
    e->n_swa_cells = cells;
    for (uint32_t il = 0; il < e->n_layer; il++) {
        gguf_llama_estimate_layer *l = &e->layer[il];
        struct dsv4_layer m = dsv4_layer_memory(hp, p, e->n_ctx_seq, cells, il, ovf);
        l->cells = cells;
        l->k = add(ovf, m.window, m.compressed);
        l->s = m.state;
        e->context = add(ovf, e->context, add(ovf, l->k, l->s));
    }
}

/* The context as create_memory builds it for the architecture: a KV cache, a recurrent state,
 * both (a hybrid's), or none (an encoder's). */
static void add_memory(gguf_llama_estimate *e, const gguf__llama_hparams *hp,
                       const struct arch_memory *am, int mla, int *ovf) {
    for (uint32_t il = 0; il < e->n_layer; il++) /* an encoder's sliding layers too */
        e->layer[il].swa = hp->is_swa[il];
    if (am->kind == MEM_KV || am->kind == MEM_HYBRID)
        add_kv_cache(e, hp, am, mla, ovf);
    if (am->kind == MEM_RECURRENT || am->kind == MEM_HYBRID)
        add_recurrent_state(e, hp, am, ovf);
    if (am->kind == MEM_DSV4)
        add_dsv4_cache(e, hp, ovf);
}

/* ---- compute ---- */

/* llama.cpp rotates a quantized cache by a Hadamard matrix (K: Q and K before K is stored; V:
 * V before it is stored, and the attention's output) when every layer the cache keeps has one
 * head size for it and layer 0's is a multiple of 64; a latent cache's V is never rotated.
 * Returns that head size, or 0 when the cache is not rotated; kv: 0 for K, 1 for V; swa: the
 * sliding layers' cache, else the full-attention layers'. */
static uint32_t cache_rotated(const gguf_llama_estimate *e, const gguf__llama_hparams *hp,
                              int mla, int kv, int swa) {
    uint32_t type = kv == 0 ? e->params.type_k : e->params.type_v;
    uint32_t head0 = kv == 0 ? head_k(hp, 0) : head_v(hp, 0);
    if ((kv == 1 && mla) || gguf_dtype_block_elems(type) <= 1 || head0 % 64 != 0)
        return 0;
    uint32_t head = 0;
    for (uint32_t il = 0; il < e->n_layer; il++) {
        if (e->layer[il].cells == 0 || e->layer[il].swa != swa)
            continue;
        uint32_t h = kv == 0 ? head_k(hp, il) : head_v(hp, il);
        if (head != 0 && h != head)
            return 0;
        head = h;
    }
    return head;
}

/* What the first layer's tensors tell of an encoder's graph. */
struct layer_shape {
    int gated;     /* a gate projection beside the up one, or both in one up projection twice
                      the feed-forward's width (split by a fused SWIGLU or GEGLU) */
    int pre_norm;  /* the feed-forward's input normed into a tensor of its own (ffn_norm) */
    int fused_qkv; /* Q, K and V as views of one projection (attn_qkv) */
    int q_head_norm; /* Q normed per head (attn_q_norm one head wide: gemma's), into a block of
                        its own */
};

/* The first layer's tensor NAME ("ffn_up.weight"): blk.0's, or t5's encoder's enc.blk.0's. */
static int64_t layer0_tensor(const gguf_file *f, const char *name) {
    char full[64];
    snprintf(full, sizeof full, "blk.0.%s", name);
    int64_t i = gguf_tensor_find(f, full);
    if (i < 0) {
        snprintf(full, sizeof full, "enc.blk.0.%s", name);
        i = gguf_tensor_find(f, full);
    }
    return i;
}

static struct layer_shape layer_shape_read(const gguf_file *f, const gguf__llama_hparams *hp) {
    struct layer_shape s = {
        .gated = layer0_tensor(f, "ffn_gate.weight") >= 0,
        .pre_norm = layer0_tensor(f, "ffn_norm.weight") >= 0,
        .fused_qkv = layer0_tensor(f, "attn_qkv.weight") >= 0,
    };
    int64_t q_norm = layer0_tensor(f, "attn_q_norm.weight");
    if (q_norm >= 0) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, (size_t)q_norm);
        s.q_head_norm = t.n_dims == 1 && t.dims[0] == head_k(hp, 0);
    }
    int64_t up = layer0_tensor(f, "ffn_up.weight");
    if (!s.gated && up >= 0) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, (size_t)up);
        s.gated = t.n_dims == 2 && hp->n_ff[0] != 0 && t.dims[1] == 2 * (uint64_t)hp->n_ff[0];
    }
    return s;
}

/* The side of the Hadamard rotation llama_kv_cache builds for heads of `head`: the largest
 * power of two from 64 up that divides it (64 when none does). */
static uint64_t rotation_side(uint64_t head) {
    uint64_t n = 64;
    while (head % (n * 2) == 0 && n < ((uint64_t)1 << 32))
        n *= 2;
    return n;
}

/* deepseek4's compute buffer: its own graph (models/deepseek4.cpp) as ggml's allocator lays it
 * out. The inputs: the sliding window's mask, the CSA layers' masks (the compressed cells',
 * and the indexer's in f16 for its fused kernel), the indexer's rotation and the zeros its
 * top-k picks are written with, the HCA layers' mask; above them the residual's streams
 * (hyper_connection.count of them, three alive at once). A layer attends over its window's
 * cells and its compressed ones, every stream's keys concatenated into one tensor (K is V),
 * the masks concatenated likewise; without flash attention V is that tensor made contiguous
 * and the scores are n_head x cells x tokens in f32. A CSA layer's indexer first scores its
 * compressed cells (f32), then refills the mask with its picks (the refilled mask and the
 * picks unmasked in a copy, unless it is the last CSA layer, whose copy goes in place of the
 * input): without flash attention these go where the concatenated keys were, when they fit;
 * with it, above the scores' block, except that with a quantized K cache (rotated: the
 * queries' copy shifts the blocks) the concatenated mask fits in the block the scores and
 * the refilled mask leave unless the window is wide. Within 10% of llama.cpp's over the test
 * matrix: without flash attention, the copy of a CSA layer that is not the last may land in a
 * hole below, which this counts above (up to +9.8%). */
static uint64_t dsv4_compute_bytes(const gguf_llama_estimate *e, const gguf__llama_hparams *hp,
                                   uint64_t n_vocab, int *ovf) {
    const gguf_llama_estimate_params *p = &e->params;
    int flash = e->flash_attn_used;
    uint64_t T = p->n_ubatch < p->n_ctx ? p->n_ubatch : p->n_ctx;
    uint64_t S = p->n_seq, mask_elem = flash ? 2 : 4;
    uint64_t R = e->n_swa_cells;
    uint64_t C = dsv4_cells(e->n_ctx_seq, DSV4_CSA), Hc = dsv4_cells(e->n_ctx_seq, DSV4_HCA);
    uint64_t top_k = hp->indexer_top_k < C ? hp->indexer_top_k : C;
    uint64_t E = mul4(ovf, hp->n_embd, T, 4, 1), streams = mul(ovf, hp->hc_count, E);
    uint64_t hk = head_k(hp, 0);
    /* llama_kv_cache rotates the keys of a quantized cache, and deepseek4's always when its
     * heads are as wide as the indexer's */
    int rotated = (gguf_dtype_block_elems(p->type_k) > 1 && hk % 64 == 0) ||
                  hp->n_embd_head_k == hp->indexer_head_size;
    int any_csa = 0, any_hca = 0;
    uint32_t last_csa = 0;
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        if (hp->compress_ratio[il] == DSV4_CSA)
            any_csa = 1, last_csa = il;
        any_hca |= hp->compress_ratio[il] == DSV4_HCA;
    }
    uint64_t in = add(ovf, T * 8, mul4(ovf, R, T, mask_elem, 1)); /* tokens, positions */
    if (rotated) {
        uint64_t side = rotation_side(hk);
        in = add(ovf, in, mul4(ovf, side, side, 4, 1));
    }
    uint64_t lid = mul4(ovf, C, T, 4, 1); /* the indexer's scores */
    uint64_t picks = mul4(ovf, top_k, T, 4, 1); /* its top-k picks */
    if (any_csa) {
        uint64_t side = rotation_side(hp->indexer_head_size);
        in = add(ovf, in, add(ovf, mul4(ovf, C, T, mask_elem + 2, 1),
                              add(ovf, mul4(ovf, side, side, 4, 1),
                                  mul4(ovf, top_k, T, mask_elem, 1))));
    }
    if (any_hca)
        in = add(ovf, in, mul4(ovf, Hc, T, mask_elem, 1));
    uint64_t base = add(ovf, in, mul(ovf, 3, streams)), peak = 0;
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        uint64_t ratio = hp->compress_ratio[il];
        uint64_t n = R + (ratio == DSV4_CSA ? C : ratio == DSV4_HCA ? Hc : 0);
        uint64_t keys = mul4(ovf, row_size(p->type_k, hk * hp->n_head_kv[il]), n, S, 1);
        uint64_t concat = ratio != 0 ? keys : 0;
        uint64_t mask = ratio != 0 ? mul4(ovf, n, T, mask_elem, 1) : 0;
        uint64_t q = mul4(ovf, hk, hp->n_head[il], T, 4), after = 0;
        if (ratio == DSV4_CSA && !flash) {
            uint64_t hole = concat, lid_above = lid <= hole ? 0 : lid;
            if (il == last_csa) {
                after = mask <= hole ? lid_above : mask > lid_above ? mask : lid_above;
            } else {
                int copy_in = lid <= hole / 2;
                after = add(ovf, add(ovf, lid_above, copy_in ? 0 : lid),
                            mask <= hole - (copy_in ? lid : 0) ? 0 : mask);
            }
        } else if (ratio == DSV4_CSA) {
            if (il == last_csa)
                after = lid > mask ? lid : mask;
            else if (rotated && mask <= add(ovf, mul4(ovf, C, T, mask_elem, 1), picks))
                after = add(ovf, lid, picks);
            else
                after = add(ovf, lid, mask);
        } else if (ratio == DSV4_HCA) {
            after = flash || mask > concat ? mask : 0;
        }
        uint64_t a = add(ovf, add(ovf, q, concat), after);
        if (flash && ratio == 0)
            a = add(ovf, a, q); /* the fused kernel's output */
        if (!flash)
            a = add(ovf, a, add(ovf, keys, mul4(ovf, n, T, hp->n_head[il], 4)));
        a = add(ovf, base, a);
        peak = a > peak ? a : peak;
        /* the experts: gate, up and their product per chosen expert, their outputs */
        uint64_t used = hp->n_expert_used[il];
        uint64_t f = add(ovf, base, add(ovf, mul4(ovf, 3 * used, hp->n_ff_exp[il], T, 4),
                                        mul(ovf, used, E)));
        peak = f > peak ? f : peak;
    }
    uint64_t out = add(ovf, mul4(ovf, n_vocab, T, 4, 1), streams);
    return aligned(ovf, peak > out ? peak : out);
}

/* The scheduler's buffer for the worst-case batch (n_ubatch tokens, every one an output): ggml's
 * allocator frees a tensor after its last use, so the buffer is the largest set alive at once.
 * Three points of the graph hold it: a layer's attention (the residual stream, Q, K and V of
 * the batch, the scores of every head over every cell unless flash attention fuses them, and
 * the masks, alive from the first layer to the last of their kind), its feed-forward (the gate
 * and up projections, the experts' selected rows), and the output (the logits of every token). */
static uint64_t compute_bytes(const gguf_llama_estimate *e, const gguf__llama_hparams *hp,
                              uint64_t n_vocab, const struct arch_memory *am, int mla,
                              const struct layer_shape *shape, int *ovf) {
    if (am->kind == MEM_DSV4)
        return dsv4_compute_bytes(e, hp, n_vocab, ovf);
    const gguf_llama_estimate_params *p = &e->params;
    int has_cache = (am->kind == MEM_KV || am->kind == MEM_HYBRID || am->kind == MEM_DSV4) &&
                    !am->cache_unread;
    int flash = e->flash_attn_used, decoder = has_cache || am->kind == MEM_RECURRENT || am->logits;
    uint64_t n_stream = p->kv_unified ? 1 : p->n_seq;
    uint64_t T = p->n_ubatch < p->n_ctx ? p->n_ubatch : p->n_ctx;
    uint64_t E = mul4(ovf, hp->n_embd, T, 4, 1);
    uint64_t mask_elem = flash ? 2 : 4;
    /* cells a layer attends to: its cache's (per stream), or the batch without a cache (a
     * sliding layer's too: its mask, not its cells, keeps it to the window) */
    uint64_t kv_full = has_cache ? e->n_ctx_seq : T, kv_swa = has_cache ? e->n_swa_cells : T;
    /* inputs: token ids, positions (t5's relative bias has none: a bucket per cell and token
     * instead, read by every layer), a mask (cells x batch) per kind of attention layer there
     * is (recurrent layers have none) */
    int any_full = 0, any_swa = 0;
    uint32_t last_full = 0, last_swa = 0;
    for (uint32_t il = 0; il < e->n_layer; il++) {
        if (!e->layer[il].swa && layer_attends(hp, am, il))
            any_full = 1, last_full = il;
        if (e->layer[il].swa)
            any_swa = 1, last_swa = il;
    }
    uint64_t mask_full = any_full ? mul4(ovf, kv_full, T, mask_elem, 1) : 0;
    uint64_t mask_swa = any_swa ? mul4(ovf, kv_swa, T, mask_elem, 1) : 0;
    uint64_t positions = am->rel_bias ? mul4(ovf, kv_full, T, 4, 1) : T * 4;
    uint64_t in = add(ovf, add(ovf, T * 4, positions), add(ovf, mask_full, mask_swa));
    if (am->cross) /* the encoder's output and its mask: the training context's rows */
        in = add(ovf, in, add(ovf, mul4(ovf, hp->n_embd, hp->n_ctx_train, 4, 1),
                              mul4(ovf, hp->n_ctx_train, T, mask_elem, 1)));
    int top_k_mask = am->indexer && !am->block_sparse && !am->pooled_blocks;
    if (top_k_mask) /* the indexer's own mask, f16 for its fused kernel */
        in = add(ovf, in, mul4(ovf, kv_full, T, 2, 1));
    /* block-sparse attention, which the graph runs with flash attention and, for several
     * sequences, a cache per sequence (else it attends densely, as any other): its inputs are,
     * over the axis of positions (POS_PAD while reserving, padded to whole blocks), a mask and
     * the local blocks' bias per token and the positions' cells per stream, and each stream's
     * cells' blocks */
    int block_sparse = am->block_sparse && flash && (p->n_seq == 1 || !p->kv_unified);
    uint32_t sparse_before = 0;
    if (block_sparse) {
        uint64_t blk = hp->indexer_block_size, n_ps = pad(POS_PAD, blk), n_blk = n_ps / blk;
        in = add(ovf, in, add(ovf, mul4(ovf, add(ovf, n_ps, n_blk), T, 4, 1),
                              mul4(ovf, add(ovf, n_ps, kv_full), n_stream, 4, 1)));
    }
    /* the pooled blocks' inputs, one set per ratio: each block's bias per token (f32), and per
     * stream each cell's block, each block's cells and four positions */
    for (uint32_t il = 0; am->pooled_blocks && il < hp->n_layer; il++) {
        uint64_t r = hp->compress_ratio[il];
        int seen = 0;
        for (uint32_t j = 0; j < il; j++)
            seen |= !hp->is_recr[j] && hp->compress_ratio[j] == r;
        if (hp->is_recr[il] || r == 0 || seen)
            continue;
        uint64_t n_blocks = (kv_full + r - 1) / r;
        in = add(ovf, in, add(ovf, mul4(ovf, n_blocks, T, 4, 1),
                              mul4(ovf, add(ovf, kv_full, mul(ovf, add(ovf, r, 4), n_blocks)),
                                   n_stream, 4, 1)));
    }
    /* per-layer inputs: the selected slices, alive through every layer; below them their
     * projection's intermediates leave a hole as large, which the layers' larger tensors fill
     * or not, by the cache's shape: half of it is counted, so that either way the error is
     * half the hole (the layers' peaks are within 8% of llama.cpp's) */
    uint64_t per_layer = mul4(ovf, am->per_layer_input, hp->n_layer, T, 4);
    in = add(ovf, in, add(ovf, per_layer, per_layer / 2));
    /* an encoder's graph as ggml's allocator lays it out; the decoders' terms below are bounds
     * that absorb what is left out (the matrix checks both) */
    int encoder = !decoder;
    if (encoder) /* the embeddings input (for a batch of embeddings: for tokens never read, so
                    never freed) and the output rows' ids */
        in = add(ovf, in, add(ovf, E, T * 4));
    uint64_t peak = 0; /* the layers': the inputs alive then and a layer's phase */
    uint32_t indexed_before = 0;
    for (uint32_t il = 0; il < e->n_layer; il++) {
        uint64_t n_kv = e->layer[il].swa ? kv_swa : kv_full;
        uint64_t hk = head_k(hp, il), hv = head_v(hp, il);
        uint64_t q = mul4(ovf, hk, hp->n_head[il], T, 4);
        uint64_t k = mul4(ovf, hk, hp->n_head_kv[il], T, 4);
        uint64_t v = mul4(ovf, hv, hp->n_head_kv[il], T, 4), kv = add(ovf, k, v);
        /* the residual stream (an encoder's: one, nomic-bert's roped separate projections
         * above a second), Q, K and V of the batch */
        uint64_t residual = (encoder ? 1 : 2) * (am->qkv_rope && !shape->fused_qkv ? 2 : 1);
        uint64_t a = add(ovf, add(ovf, mul(ovf, residual, E), q), kv);
        /* the roped copies of Q and K beside the fused block */
        if (am->qkv_rope && shape->fused_qkv)
            a = add(ovf, a, add(ovf, q, k));
        if (am->rel_bias) {
            /* t5's relative position bias, added to the scores, so no flash attention (ggml's
             * kernel takes no bias). V is made contiguous first and freed; the scores go above
             * Q and K, their sources; once those are freed, their block takes the bias gathered
             * for every head, cell and token if it fits, and the bias is made contiguous above.
             * At that peak only the residual is left of the footprint above. */
            uint64_t scores = mul4(ovf, n_kv, T, hp->n_head[il], 4);
            uint64_t qk = add(ovf, q, k);
            uint64_t gathered = scores > qk ? scores : 0; /* above, when the block is too small */
            a = add(ovf, add(ovf, E, v),
                    add(ovf, add(ovf, qk, mul(ovf, 2, scores)), gathered));
            if (has_cache && flash) /* V's cache rows, stored untransposed, made contiguous */
                a = add(ovf, a, mul4(ovf, row_size(p->type_v, n_kv), hv, hp->n_head_kv[il],
                                     n_stream));
        } else if (encoder) {
            /* no cache: with flash attention K cast to f16 for the kernel (V's cast comes once
             * K is freed), without it V made contiguous beside the scores */
            uint64_t scores = mul4(ovf, n_kv, T, hp->n_head[il], 4);
            if (flash) {
                a = add(ovf, a, k / 2);
            } else if (shape->q_head_norm) {
                /* gemma's Q, normed per head into a block of its own (roped and scaled in
                 * place there), frees its projection's block, which K, V and V's contiguous
                 * copy take when they fit; below, the attention's norm leaves a hole */
                uint64_t kv_side = add(ovf, k, mul(ovf, 2, v));
                a = add(ovf, add(ovf, mul(ovf, 2, E), q),
                        add(ovf, q > kv_side ? q : kv_side, scores));
            } else {
                a = add(ovf, a, add(ovf, v, scores));
            }
        } else if (flash) {
            a = add(ovf, a, mul4(ovf, hv, hp->n_head[il], T, 4)); /* the fused kernel's output */
        } else {
            /* the scores; softmax works in place */
            a = add(ovf, a, mul4(ovf, n_kv, T, hp->n_head[il], 4));
            if (mla) /* V is the latent K cache's first rows, made contiguous */
                a = add(ovf, a, mul4(ovf, row_size(p->type_k, hv), n_kv, n_stream, 1));
        }
        /* the indexer's top-k picks: the mask refilled, and the picks unmasked in a copy,
         * alive through the attention (sliding layers attend without an indexer). Without
         * flash attention, in the first indexed layer ggml's allocator puts the refilled mask
         * (f32) where the indexer's f32 scores were; from the second on, and with flash
         * attention's f16 masks, both add to the peak (as llama-mem shows). */
        if (top_k_mask && !e->layer[il].swa)
            a = add(ovf, a, mul4(ovf, indexed_before++ || flash ? 2 : 1, n_kv, T, mask_elem));
        /* the pooled blocks, three steps in turn: the blocks' keys gathered (f32) and summed a
         * slice at a time; the pooled keys normed and roped (the norm's block left free below)
         * and scored per query head, rectified into a copy; the scores' sum spread over the
         * cells, made contiguous, and the mask added (in f32) */
        if (am->pooled_blocks && layer_attends(hp, am, il) && il < hp->n_layer &&
            hp->compress_ratio[il] > 0) {
            uint64_t r = hp->compress_ratio[il], n_blocks = (n_kv + r - 1) / r;
            uint64_t pooled = mul4(ovf, hp->indexer_head_size, n_blocks, n_stream, 4);
            uint64_t gathered = add(ovf, mul(ovf, r, pooled), mul(ovf, 2, pooled));
            uint64_t scored = mul(ovf, 2, add(ovf, mul4(ovf, n_blocks, hp->indexer_n_head, T, 4),
                                              pooled));
            uint64_t spread = mul4(ovf, 2, n_kv, T, 4);
            uint64_t step = gathered > scored ? gathered : scored;
            a = add(ovf, a, step > spread ? step : spread);
        }
        /* block-sparse layers, one stream at a time: the picks spread over the stream's cells,
         * per token and key head (f32), gathered and then made contiguous transposed; the mask
         * cast to f32 for all streams once, after the first stream's picks are freed, and alive
         * to the last sparse layer */
        if (block_sparse && il >= hp->n_layer_dense_lead && il < hp->n_layer) {
            uint64_t picks = mul4(ovf, T / n_stream, hp->n_head_kv[il], n_kv, 4);
            a = add(ovf, a, mul(ovf, 2, picks));
            if (sparse_before++ > 0 || n_stream > 1)
                a = add(ovf, a, mul4(ovf, n_kv, T, 4, 1));
        }
        /* an encoder's mask is freed after the last layer of its kind, and its block reused
         * (the decoders' bounds keep every mask to the end) */
        uint64_t in_attn = in, in_ffn = in;
        if (encoder) {
            in_attn -= (il > last_full ? mask_full : 0) + (il > last_swa ? mask_swa : 0);
            in_ffn -= (il >= last_full ? mask_full : 0) + (il >= last_swa ? mask_swa : 0);
        }
        uint64_t at_attn = add(ovf, in_attn, a);
        peak = at_attn > peak ? at_attn : peak;
        uint64_t ff = hp->n_ff[il];
        if (hp->n_expert > 0 && hp->n_expert_used[il] > 0 && hp->n_ff_exp[il] > 0 &&
            il >= hp->n_layer_dense_lead)
            ff = (uint64_t)hp->n_ff_exp[il] * hp->n_expert_used[il];
        uint64_t ff_bytes = mul4(ovf, ff, T, 4, 1), f;
        /* the block below the feed-forward's input: the normed input's; t5's two (its
         * attention's output lands above the block where V was made contiguous) */
        uint64_t ffn_hole = am->rel_bias ? mul(ovf, 2, E) : E;
        int experts = encoder && hp->n_expert > 0 && hp->moe_every_n_layers > 0 &&
                      il % hp->moe_every_n_layers == 1;
        if (!encoder) {
            f = add(ovf, mul(ovf, 2, E), mul(ovf, 2, ff_bytes));
        } else if (experts) {
            /* an encoder's expert layer (nomic-bert-moe's): the input, the router's logits and
             * their sorted ids, the chosen weights, each chosen expert's activated up
             * projection and its down projection, before they are summed. Below the input lies
             * the residual sum's hole, or not, by where the attention's blocks were freed: half
             * of it is counted, so that either way the error is half the hole. */
            uint64_t used = hp->n_expert_used[il];
            uint64_t router = mul4(ovf, 2 * (uint64_t)hp->n_expert + used, T, 4, 1);
            f = add(ovf, add(ovf, add(ovf, E, E / 2), router),
                    add(ovf, mul4(ovf, hp->n_ff[il], used, T, 4), mul(ovf, used, E)));
        } else if (shape->gated) {
            /* the input, the gate, the up projection and their product (a fused op, not in
             * place). Without a norm of its own, all three above the input. After one
             * (pre-norm), the norm is freed with the up projection, and a product larger than
             * the block below the input goes above; one that is not may fit there or not, by
             * where the previous layer's output landed: half of it is counted, so that either
             * way the error is half a product. But when one product is larger than the
             * attention's whole footprint, none fits in what the attention freed and all
             * three go above that footprint (t5's attention leaves nothing there: they start
             * above the input). */
            if (!shape->pre_norm)
                f = add(ovf, E, mul(ovf, 3, ff_bytes));
            else if (ff_bytes > a && !am->rel_bias)
                f = add(ovf, a, mul(ovf, 3, ff_bytes));
            else
                f = add(ovf, add(ovf, ffn_hole, E),
                        add(ovf, mul(ovf, 2, ff_bytes),
                            ff_bytes > ffn_hole ? ff_bytes : ff_bytes / 2));
        } else { /* the norm and the up projection, activated in place */
            f = add(ovf, add(ovf, ffn_hole, E), ff_bytes);
        }
        uint64_t at_ffn = add(ovf, in_ffn, f);
        peak = at_ffn > peak ? at_ffn : peak;
    }
    if (per_layer != 0) {
        /* the projection, normed and added in layer 0 beside its four altup streams */
        uint64_t proj = add(ovf, in, add(ovf, mul(ovf, 2, per_layer), mul(ovf, 8, E)));
        peak = proj > peak ? proj : peak;
    }
    /* the output: the last hidden states and the logits of every token (none for encoders) */
    uint64_t logits = decoder ? mul4(ovf, n_vocab, T, 4, 1) : 0;
    uint64_t out = add(ovf, logits, add(ovf, mul(ovf, 2, E), T * 4));
    int above = am->out_place == OUT_ABOVE || (am->out_place == OUT_ABOVE_NO_FLASH && !flash);
    if (above && logits > in) /* the inputs' hole is too small for the logits */
        out = add(ovf, out, add(ovf, in, E));
    if (am->logits_copy) /* and the image tokens' row: 8192 f32, 32 KiB */
        out = add(ovf, out, add(ovf, logits, CHAMELEON_IMG_ROW));
    return aligned(ovf, peak > out ? peak : out);
}

/* The compute buffer from llama_graph.c's model of the graph llama.cpp reserves. */
static int graph_compute(uint64_t *bytes, const gguf_llama_estimate *e,
                         const gguf__llama_hparams *hp, const gguf_file *f, int mla,
                         gguf_error *err) {
    const gguf_llama_estimate_params *p = &e->params;
    gguf__llama_graph_params gp = {
        .n_tokens = pad(p->n_ubatch < p->n_ctx ? p->n_ubatch : p->n_ctx, p->n_seq),
        .n_seqs = p->n_seq,
        .n_outputs = p->n_ubatch < p->n_ctx ? p->n_ubatch : p->n_ctx,
        .n_kv = e->n_ctx_seq,
        .n_kv_swa = e->n_swa_cells,
        .n_stream = p->kv_unified ? 1 : p->n_seq,
        .n_vocab = (int64_t)vocab_size(f),
        .flash = e->flash_attn_used,
        .type_k = p->type_k,
        .type_v = p->type_v,
        .k_rot_head = {cache_rotated(e, hp, mla, 0, 0), cache_rotated(e, hp, mla, 0, 1)},
        .v_rot = {cache_rotated(e, hp, mla, 1, 0) != 0, cache_rotated(e, hp, mla, 1, 1) != 0},
    };
    int rc = gguf__llama_graph_compute(bytes, hp, f, &gp);
    if (rc == GGUF_ENOMEM)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET,
                          "out of memory modelling %s's compute graph", hp->arch);
    if (rc == GGUF_ELIMIT)
        return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                          "the hyperparameters of %s give shapes llama.cpp cannot build "
                          "(negative, past 2^48 elements, or more experts than it takes): sizes "
                          "near 2^64 bytes are refused, never wrapped", hp->arch);
    return rc == 0 ? 0 : gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                                    "%s's compute graph is not modelled", hp->arch);
}

/* Refuses a model whose memory this file does not know, or whose hyperparameters it cannot
 * use; am gets its architecture's row. */
static int memory_known(const struct arch_memory **am, const gguf__llama_hparams *hp,
                        gguf_error *err) {
    int rc = 0;
    *am = arch_memory_find(hp->arch);
    if (hp->arch[0] == '\0') {
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "no general.architecture: not a model llama.cpp loads");
    } else if (*am == NULL) { /* not one llama.cpp runs alone (a draft head, a projector) */
        rc = gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                        "architecture '%s': estimate does not know how llama.cpp keeps its "
                        "context", hp->arch);
    } else if (hp->n_layer_all == 0 || hp->n_layer_all > GGUF_LLAMA_MAX_LAYERS ||
               hp->n_embd == 0 ||
               (hp->n_head[0] == 0 && ((*am)->kind == MEM_KV || (*am)->kind == MEM_DSV4))) {
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "%s.block_count (%u), embedding_length (%u) or attention.head_count "
                        "(%u) is absent or out of range", hp->arch, hp->n_layer_all, hp->n_embd,
                        hp->n_head[0]);
    }
    return rc;
}

int gguf__llama_kv_per_token(gguf__llama_kv_token *out, const gguf__llama_hparams *hp) {
    memset(out, 0, sizeof *out);
    const struct arch_memory *am;
    if (memory_known(&am, hp, NULL) != 0)
        return 1;
    if (am->kind == MEM_DSV4) {
        /* every layer's window and compressed keys over 128 blocks of 256 cells, which each
         * ratio divides, f16, one sequence: the window per token apart */
        gguf_llama_estimate_params p = GGUF_LLAMA_ESTIMATE_PARAMS_INIT;
        p.n_seq = 1;
        uint64_t cells = (uint64_t)CTX_PAD * DSV4_HCA, window = 0, compressed = 0;
        int ovf = 0;
        for (uint32_t il = 0; il < hp->n_layer_all; il++) {
            struct dsv4_layer m = dsv4_layer_memory(hp, &p, cells, cells, il, &ovf);
            window = add(&ovf, window, m.window);
            compressed = add(&ovf, compressed, m.compressed);
            out->state = add(&ovf, out->state, m.state);
        }
        out->swa = window / cells;
        out->full = compressed / cells;
        out->n_swa = hp->n_swa;
        return ovf ? 1 : 0;
    }
    /* every layer's cache over one padded block of cells, f16, flash attention's layout */
    gguf_llama_estimate *e = gguf__malloc(sizeof *e);
    if (e == NULL)
        return GGUF_ENOMEM;
    memset(e, 0, sizeof *e);
    e->params = (gguf_llama_estimate_params)GGUF_LLAMA_ESTIMATE_PARAMS_INIT;
    e->params.n_seq = 1;
    e->params.n_ctx = e->n_ctx_seq = CTX_PAD;
    e->params.n_ubatch = CTX_PAD;
    e->params.swa_full = 1;
    e->flash_attn_used = 1;
    e->n_layer = hp->n_layer_all;
    int ovf = 0;
    add_memory(e, hp, am, hp->n_embd_head_k_mla != 0 && hp->n_embd_head_v_mla != 0, &ovf);
    for (uint32_t il = 0; il < e->n_layer; il++) {
        uint64_t *sum = e->layer[il].swa ? &out->swa : &out->full;
        *sum = add(&ovf, *sum, (e->layer[il].k + e->layer[il].v) / CTX_PAD);
        out->state = add(&ovf, out->state, add(&ovf, e->layer[il].r, e->layer[il].s));
    }
    out->n_swa = e->n_swa_cells > 0 ? hp->n_swa : 0;
    gguf__free(e);
    return ovf ? 1 : 0;
}

int gguf_llama_estimate_run(gguf_llama_estimate *out, const gguf_file *f,
                            const gguf_llama_estimate_params *p, gguf_error *err) {
    if (out == NULL || f == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no estimate or no file");
    gguf_llama_estimate_params params;
    int rc = GGUF__OPTIONS_READ(params, gguf_llama_estimate_params,
                                GGUF_LLAMA_ESTIMATE_PARAMS_INIT, p, err);
    if (rc != 0)
        return rc;
    memset(out, 0, sizeof *out);
    out->params = params;
    gguf__llama_hparams *hp = gguf__malloc(sizeof *hp);
    if (hp == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    gguf__llama_hparams_read(hp, f, NULL, NULL, NULL);
    const struct arch_memory *am = arch_memory_find(hp->arch);
    if (hp->arch[0] != '\0' && gguf_tensor_count(f) == 0)
        rc = gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                        "no tensors: a vocabulary, not a model llama.cpp runs");
    else
        rc = memory_known(&am, hp, err);
    int causal = am != NULL && !am->non_causal &&
                 gguf__llama_arch_bool(f, hp->arch, "attention.causal", 1);
    int mla = hp->n_embd_head_k_mla != 0 && hp->n_embd_head_v_mla != 0;
    gguf_llama_estimate_params *ep = &out->params;
    if (rc == 0) {
        out->n_layer = hp->n_layer_all;
        out->n_ctx_train = hp->n_ctx_train;
        if (am->no_flash)
            ep->flash_attn = GGUF_LLAMA_FLASH_ATTN_OFF;
        /* a quantized V cache turns flash attention on when it is auto; on the CPU auto is on */
        out->flash_attn_used = ep->flash_attn != GGUF_LLAMA_FLASH_ATTN_OFF;
        rc = check_params(hp, am, ep, out->flash_attn_used, mla, err);
    }
    if (rc == 0)
        rc = resolve(out, hp, causal, err);
    if (rc == 0)
        rc = add_weights(out, f, err);
    if (rc == 0) {
        int ovf = 0;
        add_memory(out, hp, am, mla, &ovf);
        struct layer_shape shape = layer_shape_read(f, hp);
        if (am->graph)
            rc = graph_compute(&out->compute, out, hp, f, mla, err);
        else
            out->compute = compute_bytes(out, hp, vocab_size(f), am, mla, &shape, &ovf);
        out->total = add(&ovf, out->weights, add(&ovf, out->context, out->compute));
        if (ovf)
            rc = gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                            "the hyperparameters of %s give more than 2^64 bytes", hp->arch);
    }
    gguf__free(hp);
    return rc;
}
