/* llama.cpp's model loader as data: which architectures it knows, which keys it reads and as
 * what type, what it demands of the hyperparameters, and which tensors it creates with which
 * shapes. Written from llama.cpp's llama-arch.cpp (names), llama-model.cpp (load_hparams, the
 * generic keys), models/<arch>.cpp (load_arch_hparams and load_arch_tensors) and
 * llama-model-loader.cpp (how each C type maps to a GGUF type), release of ggml 0.23.0.
 *
 * Shapes and conditions are expressions (llama_expr.c) over these symbols; a table may define
 * more:
 *   E     embedding_length            V     tokens in the vocabulary
 *   NL    block_count                 L     layers with blocks (NL - nextn_predict_layers)
 *   H     head_count (layer 0)        HKV   head_count_kv (layer 0; default H)
 *   DK    head size of keys           DV    head size of values (key_length, value_length,
 *                                           else E/H; their _swa forms on sliding layers)
 *   R     rope dimension (rope.dimension_count, else DK)
 *   FF    feed_forward_length         FFE   expert_feed_forward_length
 *   X     expert_count                XU    expert_used_count (layer 0; XUMAX the largest)
 *   CTX   context_length              TT    tokenizer.ggml.token_type_count
 *   CLS   classifier labels (1)       i     the layer of a per-layer tensor
 *   HKV_i, H_i, FF_i, FFE_i, XU_i  that layer's value of a per-layer key (llama_hparams.c)
 *   RECR_i  1 when that layer is recurrent (mamba, delta-net, short convolution), else 0
 *   SWA_i   1 when that layer is a sliding-window layer, else 0
 *   IDX_i   1 when attention.indexer.types gives that layer a sparse-attention indexer
 *   CR_i    that layer's element of attention.compress_ratios (deepseek4)
 *   UPGATE_i  1 when that layer's ffn_up.weight is twice feed_forward_length wide (the gate
 *           fused into it), else 0
 *   FULLN   the layers without a sliding window
 * LOAD_LOCALS in llama.cpp takes per-layer hyperparameters at layer 0 for every layer's shape;
 * so do these tables.
 *
 * Architectures with a tensor table are checked fully; the others have their keys checked (a
 * list derived from their load_arch_hparams: a key read at the top level of that function
 * without `false` is required).
 *
 * Making an architecture full: from its models/<arch>.cpp, give its keys symbols and defaults
 * where shapes use them, write every create_tensor as a row (TENSOR_NOT_REQUIRED is OPT, a
 * branch is a `when`, create_tensor_qkv is QKV), the throws and asserts of both functions as
 * rules; add its small hyperparameters to tests/support/make_llama_model.c's recipes; then
 * `make check-architectures` (GGUF_ARCHS=NAME for one) holds the rows to llama.cpp's loader. */
#include "llama.h"

#include <string.h>

/* Rows name their leading fields in order and leave the rest (conditions, symbols) zero. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define U32 GGUF_VTYPE_U32
#define F32 GGUF_VTYPE_F32
#define BOOL GGUF_VTYPE_BOOL
#define STR GGUF_VTYPE_STRING
#define I32 GGUF_VTYPE_I32
#define REQ GGUF__LK_REQUIRED
#define SCALAR GGUF__LK_SCALAR
#define PER_LAYER GGUF__LK_PER_LAYER
#define ANY_LENGTH GGUF__LK_ANY_LENGTH
#define OPT GGUF__LT_OPTIONAL
#define LAYER GGUF__LT_LAYER
#define ALL_LAYERS GGUF__LT_ALL_LAYERS
#define RESHAPE GGUF__LT_RESHAPE

/* ---- keys every load reads (the loader's constructor, then load_hparams' first line) ---- */

const gguf__llama_key gguf__llama_file_keys[] = {
    {"general.architecture", STR, SCALAR, GGUF__LK_GLOBAL},
    {"general.file_type", U32, SCALAR, GGUF__LK_GLOBAL},
    /* split.count, split.no (UINT16) and split.tensors.count (INT32): the container's lint */
    {"general.name", STR, SCALAR, GGUF__LK_GLOBAL},
    {NULL, 0, 0, 0}};

/* ---- load_hparams: what every architecture reads (not with vocab_only) ---- */

const gguf__llama_key gguf__llama_generic_keys[] = {
    {"context_length", U32, SCALAR, REQ, .sym = "CTX"},
    {"embedding_length", U32, SCALAR, REQ, .sym = "E"},
    {"embedding_length_out", U32, SCALAR, 0},
    {"attention.causal", BOOL, SCALAR, 0},
    {"pooling_type", U32, SCALAR, 0},
    {"block_count", U32, SCALAR, REQ, .sym = "NL"},
    {"nextn_predict_layers", U32, SCALAR, 0, .sym = "NEXTN", .dflt = "0"},
    {"expert_count", U32, SCALAR, 0, .sym = "X", .dflt = "0"},
    {"expert_used_count", U32, PER_LAYER, 0, .sym = "XU", .dflt = "0"},
    {"expert_group_count", U32, SCALAR, 0, .sym = "XG", .dflt = "0"},
    {"expert_group_used_count", U32, SCALAR, 0, .sym = "XGU", .dflt = "0"},
    {"feed_forward_length", U32, PER_LAYER, 0, .sym = "FF", .dflt = "0"},
    {"attention.head_count", U32, PER_LAYER, 0, .sym = "H", .dflt = "0"},
    {"attention.head_count_kv", U32, PER_LAYER, 0, .sym = "HKV", .dflt = "H"},
    {"rope.scaling.finetuned", BOOL, SCALAR, 0},
    {"rope.scaling.original_context_length", U32, SCALAR, 0},
    {"rope.freq_base", F32, SCALAR, 0},
    /* a name llama.cpp does not know makes it abort (GGML_ASSERT) */
    {"rope.scaling.type", STR, SCALAR, 0, .sym = "RST", .dflt = "1",
     .values = "none|linear|yarn|longrope"},
    {"rope.scaling.factor", F32, SCALAR, 0, .sym = "RSF", .dflt = "0"},
    /* the older name, read only when the newer one is absent */
    {"rope.scale_linear", F32, SCALAR, 0, .when = "!defined(RSF)"},
    {"rope.scaling.attn_factor", F32, SCALAR, 0},
    {"rope.scaling.alpha", F32, SCALAR, 0},
    /* read only for models with attention heads */
    {"attention.key_length", U32, SCALAR, 0, .sym = "DKF", .dflt = "H > 0 ? E/H : 0",
     .when = "H > 0"},
    {"attention.value_length", U32, SCALAR, 0, .sym = "DVF", .dflt = "H > 0 ? E/H : 0",
     .when = "H > 0"},
    {"rope.dimension_count", U32, SCALAR, 0, .sym = "RF", .dflt = "DKF", .when = "H > 0"},
    {"attention.key_length_swa", U32, SCALAR, 0, .sym = "DKS", .dflt = "DKF"},
    {"attention.value_length_swa", U32, SCALAR, 0, .sym = "DVS", .dflt = "DVF"},
    {"rope.dimension_count_swa", U32, SCALAR, 0, .sym = "RS", .dflt = "RF"},
    {"classifier.output_labels", STR, GGUF__LK_ARRAY, 0, .sym = "CLS", .dflt = "1"},
    {NULL, 0, 0, 0}};

const gguf__llama_sym gguf__llama_generic_syms[] = {
    {"L", "NL - NEXTN", "n_layer"},
    {"SWA0", "0", NULL}, /* is layer 0 a sliding-window layer (its head size and rope then
                            come from the _swa keys); architectures with SWA redefine it */
    {"DK", "SWA0 ? DKS : DKF", "head_size"},
    {"DV", "SWA0 ? DVS : DVF", "value_head_size"},
    {"R", "SWA0 ? RS : RF", "rope_dim"},
    {"LONGROPE", "RST == 3", NULL},
    {NULL, NULL, NULL}};

/* GGML_ASSERTs and throws of load_hparams and load_tensors that hold for every architecture. */
const gguf__llama_rule gguf__llama_generic_rules[] = {
    {"NL > 0 && NL <= 512", NULL, "block_count", GGUF_LLAMA_ERROR,
     "llama.cpp aborts unless 0 < block_count <= 512"},
    {"NEXTN <= NL", NULL, "nextn_predict_layers", GGUF_LLAMA_ERROR,
     "llama.cpp aborts: more next-token prediction layers than blocks"},
    {"X <= 1024", NULL, "expert_count", GGUF_LLAMA_ERROR,
     "llama.cpp aborts on more than 1024 experts"},
    {"XUMAX <= X", NULL, "expert_used_count", GGUF_LLAMA_ERROR,
     "llama.cpp aborts: more experts used per token than expert_count"},
    {"X == 0 || XUMAX > 0", NULL, "expert_used_count", GGUF_LLAMA_ERROR,
     "llama.cpp aborts: expert_count is set but expert_used_count is 0 or absent"},
    {"X > 0 || XUMAX == 0", NULL, "expert_count", GGUF_LLAMA_ERROR,
     "llama.cpp aborts: expert_used_count is set but expert_count is 0 or absent"},
    {"X > 0 || XG == 0", NULL, "expert_group_count", GGUF_LLAMA_ERROR,
     "llama.cpp aborts: expert groups without experts"},
    {"X == 0 || XG < X", NULL, "expert_group_count", GGUF_LLAMA_ERROR,
     "llama.cpp aborts unless expert_group_count < expert_count"},
    {"X == 0 || XG <= 1 || X % XG == 0", NULL, "expert_group_count", GGUF_LLAMA_ERROR,
     "llama.cpp aborts unless expert_group_count divides expert_count"},
    {"X == 0 || XG <= 1 || (XGU > 0 && XGU < XG)", NULL, "expert_group_used_count",
     GGUF_LLAMA_ERROR, "llama.cpp aborts unless 0 < expert_group_used_count < expert_group_count"},
    /* the attention tensors' shapes then tell whether llama.cpp refuses the model */
    {"defined(DKF) || H == 0 || E % H == 0", NULL, "attention.head_count", GGUF_LLAMA_WARNING,
     "does not divide embedding_length and attention.key_length is absent: llama.cpp truncates "
     "the head size embedding_length/head_count"},
    {"H == 0 || HKV == 0 || H % HKV == 0", NULL, "attention.head_count_kv", GGUF_LLAMA_WARNING,
     "does not divide attention.head_count: llama.cpp loads the model but aborts when it runs "
     "attention"},
    {NULL, NULL, NULL, 0, NULL}};

/* The loader's generic pass over every architecture: optional per-tensor scales (NVFP4), next
 * to the weights they scale. */
#define SCALES(B, N)                                                                             \
    {"blk.%d." B ".scale", {N}, OPT | ALL_LAYERS, .if_present = "blk.%d." B ".weight"},        \
    {"blk.%d." B ".input_scale", {N}, OPT | ALL_LAYERS, .if_present = "blk.%d." B ".weight"}
const gguf__llama_tensor gguf__llama_generic_tensors[] = {
    SCALES("attn_q", "1"), SCALES("attn_k", "1"), SCALES("attn_v", "1"),
    SCALES("attn_output", "1"), SCALES("attn_qkv", "1"), SCALES("attn_gate", "1"),
    SCALES("ffn_gate", "1"), SCALES("ffn_down", "1"), SCALES("ffn_up", "1"),
    SCALES("ffn_gate_shexp", "1"), SCALES("ffn_down_shexp", "1"), SCALES("ffn_up_shexp", "1"),
    SCALES("ffn_gate_exps", "X"), SCALES("ffn_down_exps", "X"), SCALES("ffn_up_exps", "X"),
    SCALES("ssm_in", "1"), SCALES("ssm_out", "1"), SCALES("ssm_alpha", "1"),
    SCALES("ssm_beta", "1"), SCALES("nextn.eh_proj", "1"), SCALES("nextn.shared_head_head", "1"),
    {"output.scale", {"1"}, OPT, .if_present = "output.weight"},
    {"output.input_scale", {"1"}, OPT, .if_present = "output.weight"},
    {NULL, {NULL}, 0}};

/* create_tensor_qkv: one fused attn_qkv (whose bias is optional), or separate q, k and v
 * (required unless F says otherwise) with optional biases; QKV_WHEN in the layers where W
 * holds. */
#define QKVW "blk.%d.attn_qkv.weight"
#define QKV_WHEN(Q, K, V, F, W)                                                                  \
    {QKVW, {"E", "(" Q ")+(" K ")+(" V ")"}, OPT | LAYER, .when = W},                          \
    {"blk.%d.attn_qkv.bias", {"(" Q ")+(" K ")+(" V ")"}, OPT | LAYER, .when = W,              \
     .if_present = QKVW},                                                                      \
    {"blk.%d.attn_q.weight", {"E", Q}, (F) | LAYER, .when = W, .if_absent = QKVW},             \
    {"blk.%d.attn_k.weight", {"E", K}, (F) | LAYER, .when = W, .if_absent = QKVW},             \
    {"blk.%d.attn_v.weight", {"E", V}, (F) | LAYER, .when = W, .if_absent = QKVW},             \
    {"blk.%d.attn_q.bias", {Q}, OPT | LAYER, .when = W, .if_absent = QKVW},                    \
    {"blk.%d.attn_k.bias", {K}, OPT | LAYER, .when = W, .if_absent = QKVW},                    \
    {"blk.%d.attn_v.bias", {V}, OPT | LAYER, .when = W, .if_absent = QKVW}
#define QKV(Q, K, V, F) QKV_WHEN(Q, K, V, F, NULL)

/* token_embd, output_norm, and an output that may be absent (tied to token_embd) */
#define EMBED_OUT                                                                                \
    {"token_embd.weight", {"E", "V"}, 0},                                                      \
    {"output_norm.weight", {"E"}, 0},                                                          \
    {"output.weight", {"E", "V"}, OPT}

/* token_embd, output_norm and a required output */
#define EMBED_NORM_OUT                                                                           \
    {"token_embd.weight", {"E", "V"}, 0},                                                      \
    {"output_norm.weight", {"E"}, 0},                                                          \
    {"output.weight", {"E", "V"}, 0}
/* the same with a bias on the output norm */
#define EMBED_NORM_B_OUT                                                                         \
    {"token_embd.weight", {"E", "V"}, 0},                                                      \
    {"output_norm.weight", {"E"}, 0},                                                          \
    {"output_norm.bias", {"E"}, 0},                                                            \
    {"output.weight", {"E", "V"}, 0}
/* the feed-forward block with a gate, no biases */
#define GATED_FFN                                                                                \
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER},                                            \
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},                                            \
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER}
/* the router and the experts, each of width W, in every layer */
#define EXPERT_FFN(W)                                                                            \
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER},                                         \
    {"blk.%d.ffn_gate_exps.weight", {"E", W, "X"}, LAYER},                                     \
    {"blk.%d.ffn_down_exps.weight", {W, "E", "X"}, LAYER},                                     \
    {"blk.%d.ffn_up_exps.weight", {"E", W, "X"}, LAYER}

#define RMS_EPS {"attention.layer_norm_rms_epsilon", F32, SCALAR, REQ}
#define NO_SYMS {{NULL, NULL, NULL}}
#define NO_RULES {{NULL, NULL, NULL, 0, NULL}}

/* ---- key tables that several architectures share ---- */

/* the RMS norm epsilon only: qwen2, qwen3, deci, baichuan, refact, neo_bert, eurobert, qwen,
 * phimoe, plamo, internlm2, gemma, xverse, olmoe, openelm, arctic, chatglm, bitnet, exaone, arcee,
 * smollm3, dream, llada, seed_oss, cogvlm, pangu_embedded, maincoder */
static const gguf__llama_key keys_rms_norm[] = {
    {.name = "attention.layer_norm_rms_epsilon", .type = F32, .form = SCALAR, .flags = REQ},
    {.name = NULL}};

/* the layer norm epsilon only: falcon, gpt2, starcoder, jina_bert_v2, jina_bert_v3, bloom,
 * stablelm, phi2, codeshell, orion, starcoder2, jais2, nemotron, pockettts */
static const gguf__llama_key keys_layer_norm[] = {
    {.name = "attention.layer_norm_epsilon", .type = F32, .form = SCALAR, .flags = REQ},
    {.name = NULL}};

/* RMS norm, multi-section rope and deepstack layers: qwen3vl, qwen3tts */
static const gguf__llama_key keys_rms_norm_deepstack[] = {
    {.name = "n_deepstack_layers", .type = U32, .form = SCALAR},
    {.name = "rope.dimension_sections", .type = I32, .form = PER_LAYER, .flags = ANY_LENGTH | REQ},
    {.name = "attention.layer_norm_rms_epsilon", .type = F32, .form = SCALAR, .flags = REQ},
    {.name = NULL}};

/* a mamba2 block's sizes: granitehybrid, nemotron_h, falcon-h1, plamo2 */
#define MAMBA2_KEYS                                                                              \
    {"ssm.conv_kernel", U32, SCALAR, REQ, .sym = "DCONV"},                                     \
    {"ssm.inner_size", U32, SCALAR, REQ, .sym = "DINNER"},                                     \
    {"ssm.state_size", U32, SCALAR, REQ, .sym = "DSTATE"},                                     \
    {"ssm.time_step_rank", U32, SCALAR, REQ, .sym = "DTR"},                                    \
    {"ssm.group_count", U32, SCALAR, REQ, .sym = "NG"}

/* RMS norm, dense first layers, then experts with shared ones: deepseek2_ocr, dots1 */
static const gguf__llama_key keys_rms_norm_dense_lead_moe[] = {
    {.name = "attention.layer_norm_rms_epsilon", .type = F32, .form = SCALAR, .flags = REQ},
    {.name = "leading_dense_block_count", .type = U32, .form = SCALAR, .sym = "NDL", .dflt = "0"},
    {.name = "expert_feed_forward_length", .type = U32, .form = PER_LAYER, .flags = REQ,
     .sym = "FFE"},
    {.name = "expert_shared_count", .type = U32, .form = SCALAR, .flags = REQ, .sym = "XS"},
    {.name = "expert_weights_scale", .type = F32, .form = SCALAR},
    {.name = "expert_weights_norm", .type = BOOL, .form = SCALAR},
    {.name = "expert_gating_func", .type = U32, .form = SCALAR},
    {.name = NULL}};

/* RMS norm and multi-section rope: glm4, hunyuan_dense, hunyuan_vl */
static const gguf__llama_key keys_rms_norm_mrope[] = {
    {.name = "attention.layer_norm_rms_epsilon", .type = F32, .form = SCALAR, .flags = REQ},
    {.name = "rope.dimension_sections", .type = I32, .form = PER_LAYER, .flags = ANY_LENGTH},
    {.name = NULL}};

/* rwkv6 time mixing: rwkv6, rwkv6qwen2 */
static const gguf__llama_key keys_rwkv6[] = {
    {.name = "attention.layer_norm_epsilon", .type = F32, .form = SCALAR},
    {.name = "attention.layer_norm_rms_epsilon", .type = F32, .form = SCALAR},
    {.name = "wkv.head_size", .type = U32, .form = SCALAR, .flags = REQ, .sym = "HS"},
    {.name = "time_mix_extra_dim", .type = U32, .form = SCALAR, .flags = REQ, .sym = "TMX"},
    {.name = "time_decay_extra_dim", .type = U32, .form = SCALAR, .flags = REQ, .sym = "TDX"},
    {.name = "rescale_every_n_layers", .type = U32, .form = SCALAR},
    {.name = "token_shift_count", .type = U32, .form = SCALAR},
    {.name = NULL}};

/* rwkv7 low-rank attention: rwkv7, arwkv7 */
static const gguf__llama_key keys_rwkv7[] = {
    {.name = "attention.layer_norm_epsilon", .type = F32, .form = SCALAR},
    {.name = "attention.layer_norm_rms_epsilon", .type = F32, .form = SCALAR},
    {.name = "wkv.head_size", .type = U32, .form = SCALAR, .flags = REQ},
    {.name = "attention.decay_lora_rank", .type = U32, .form = SCALAR, .flags = REQ,
     .sym = "LDECAY"},
    {.name = "attention.iclr_lora_rank", .type = U32, .form = SCALAR, .flags = REQ, .sym = "LICLR"},
    {.name = "attention.value_residual_mix_lora_rank", .type = U32, .form = SCALAR, .flags = REQ,
     .sym = "LVRES"},
    {.name = "attention.gate_lora_rank", .type = U32, .form = SCALAR, .sym = "LGATE", .dflt = "0"},
    {.name = "token_shift_count", .type = U32, .form = SCALAR},
    {.name = NULL}};


/* RMS norm and the experts' feed-forward length: llada_moe, rnd1 */
static const gguf__llama_key keys_rms_norm_expert_ff[] = {
    {.name = "expert_feed_forward_length", .type = U32, .form = PER_LAYER, .sym = "FFE",
     .dflt = "0"},
    {.name = "attention.layer_norm_rms_epsilon", .type = F32, .form = SCALAR, .flags = REQ},
    {.name = NULL}};

/* ---- llama ---- */

static const gguf__llama_key keys_llama[] = {
    {"vocab_size", U32, SCALAR, 0},
    RMS_EPS,
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_llama[] = NO_SYMS;
static const gguf__llama_rule rules_llama[] = {
    {"R == DK", NULL, "rope.dimension_count", GGUF_LLAMA_ERROR,
     "differs from the head size: llama.cpp refuses it (invalid n_rot)"},
    {NULL, NULL, NULL, 0, NULL}};
/* llama's layers, shared by the architectures whose loader is a copy of llama's (mistral3,
 * granite, granitemoe): dense feed-forward, or experts when expert_count is set */
#define LLAMA_TENSORS                                                                            \
    EMBED_OUT,                                                                                 \
    /* created at layer 0 only (duplicated for the others) */                                  \
    {"rope_freqs.weight", {"R/2"}, OPT, .when = "!LONGROPE"},                                  \
    {"rope_factors_long.weight", {"R/2"}, OPT, .when = "LONGROPE"},                            \
    {"rope_factors_short.weight", {"R/2"}, OPT, .when = "LONGROPE"},                           \
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},                                                 \
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),                                                        \
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},                                       \
    {"blk.%d.attn_output.bias", {"E"}, OPT | LAYER},                                           \
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},                                                  \
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER, .when = "X == 0"},                          \
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER, .when = "X == 0"},                          \
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER, .when = "X == 0"},                            \
    {"blk.%d.ffn_gate.bias", {"FF"}, OPT | LAYER, .when = "X == 0"},                           \
    {"blk.%d.ffn_down.bias", {"E"}, OPT | LAYER, .when = "X == 0"},                            \
    {"blk.%d.ffn_up.bias", {"FF"}, OPT | LAYER, .when = "X == 0"},                             \
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER, .when = "X > 0"},                        \
    {"blk.%d.ffn_gate_exps.weight", {"E", "FF", "X"}, OPT | LAYER, .when = "X > 0"},           \
    {"blk.%d.ffn_down_exps.weight", {"FF", "E", "X"}, LAYER, .when = "X > 0"},                 \
    {"blk.%d.ffn_up_exps.weight", {"E", "FF", "X"}, LAYER, .when = "X > 0"}
static const gguf__llama_tensor tensors_llama[] = {LLAMA_TENSORS, {NULL, {NULL}, 0}};

/* ---- qwen2 ---- */

static const gguf__llama_sym syms_qwen2[] = NO_SYMS;
static const gguf__llama_rule rules_qwen2[] = NO_RULES;
static const gguf__llama_tensor tensors_qwen2[] = {
    EMBED_OUT,
    {"output.bias", {"V"}, OPT},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("E", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    GATED_FFN,
    {NULL, {NULL}, 0}};

/* ---- qwen3 ---- */

static const gguf__llama_sym syms_qwen3[] = NO_SYMS;
static const gguf__llama_rule rules_qwen3[] = NO_RULES;
static const gguf__llama_tensor tensors_qwen3[] = {
    EMBED_OUT,
    {"cls.output.weight", {"E", "CLS"}, OPT},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    GATED_FFN,
    {NULL, {NULL}, 0}};

/* ---- qwen3moe ---- */

static const gguf__llama_key keys_qwen3moe[] = {
    {"expert_feed_forward_length", U32, PER_LAYER, 0, .sym = "FFE", .dflt = "0"},
    RMS_EPS,
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_qwen3moe[] = {
    {"FFX", "FFE ? FFE : FF/XU", "expert_ffn_length"},
    {NULL, NULL, NULL}};
static const gguf__llama_rule rules_qwen3moe[] = {
    {"X > 0", NULL, "expert_count", GGUF_LLAMA_ERROR, "llama.cpp refuses qwen3moe without experts"},
    {"XU > 0", NULL, "expert_used_count", GGUF_LLAMA_ERROR,
     "llama.cpp refuses qwen3moe with no expert used"},
    {NULL, NULL, NULL, 0, NULL}};
static const gguf__llama_tensor tensors_qwen3moe[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    EXPERT_FFN("FFX"),
    {NULL, {NULL}, 0}};

/* ---- gemma2: sliding-window layers every other layer unless the pattern says otherwise ---- */

static const gguf__llama_key keys_gemma2[] = {
    {"attention.sliding_window_pattern", U32, GGUF__LK_SCALAR_OR_IGNORED, 0, .sym = "PAT",
     .dflt = "2"},
    {"rope.freq_base_swa", F32, SCALAR, 0},
    {"attention.sliding_window", U32, SCALAR, 0},
    RMS_EPS,
    {"attn_logit_softcapping", F32, SCALAR, 0},
    {"final_logit_softcapping", F32, SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_gemma2[] = {{"SWA0", "PAT != 1", NULL}, {NULL, NULL, NULL}};
static const gguf__llama_rule rules_gemma2[] = NO_RULES;
static const gguf__llama_tensor tensors_gemma2[] = {
    /* the output is always token_embd: an output.weight is a tensor llama.cpp does not use */
    {"token_embd.weight", {"E", "V"}, 0},
    {"output_norm.weight", {"E"}, 0},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.post_attention_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {"blk.%d.post_ffw_norm.weight", {"E"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- gemma3: sliding-window layers only with attention.sliding_window > 0 ---- */

static const gguf__llama_key keys_gemma3[] = {
    {"attention.sliding_window", U32, SCALAR, 0, .sym = "SWIN", .dflt = "0"},
    {"attention.sliding_window_pattern", U32, GGUF__LK_SCALAR_OR_IGNORED, 0, .sym = "PAT",
     .dflt = "6", .when = "SWIN > 0"},
    {"rope.freq_base_swa", F32, SCALAR, 0, .when = "SWIN > 0"},
    {"final_logit_softcapping", F32, SCALAR, 0},
    RMS_EPS,
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_gemma3[] = {
    {"SWA0", "SWIN > 0 && PAT != 1", NULL},
    {NULL, NULL, NULL}};
static const gguf__llama_rule rules_gemma3[] = NO_RULES;
static const gguf__llama_tensor tensors_gemma3[] = {
    EMBED_OUT,
    /* dense_2_feat_out and dense_3_feat_in are not read for gemma3: 0 */
    {"dense_2.weight", {"E", "0"}, OPT},
    {"dense_3.weight", {"0", "E"}, OPT},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.post_attention_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {"blk.%d.post_ffw_norm.weight", {"E"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- phi3: attention weights are all optional (fused or not) ---- */

static const gguf__llama_key keys_phi3[] = {
    RMS_EPS,
    {"attention.sliding_window", U32, SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_phi3[] = NO_SYMS;
static const gguf__llama_rule rules_phi3[] = NO_RULES;
static const gguf__llama_tensor tensors_phi3[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("E", "DV*HKV", "DV*HKV", OPT),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "2*FF"}, LAYER},
    {"rope_factors_long.weight", {"R/2"}, OPT},
    {"rope_factors_short.weight", {"R/2"}, OPT},
    {NULL, {NULL}, 0}};

/* ---- deepseek2: multi-head latent attention, dense leading layers, then experts ---- */

static const gguf__llama_key keys_deepseek2[] = {
    {"vocab_size", U32, SCALAR, 0},
    RMS_EPS,
    {"leading_dense_block_count", U32, SCALAR, 0, .sym = "NDL", .dflt = "0"},
    /* the "lite" variants (27 or 26 layers, or 48 with a 128256-token vocabulary) have none */
    {"attention.q_lora_rank", U32, SCALAR, REQ, .sym = "QLR", .dflt = "0",
     .when = "!(L == 27 || L == 26 || (L == 48 && V == 128256))"},
    {"attention.kv_lora_rank", U32, SCALAR, REQ, .sym = "KVLR"},
    {"attention.key_length_mla", U32, SCALAR, 0, .sym = "KMLAK", .dflt = "0"},
    {"attention.value_length_mla", U32, SCALAR, 0, .sym = "VMLAK", .dflt = "0"},
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"expert_shared_count", U32, SCALAR, REQ, .sym = "XS"},
    {"expert_weights_scale", F32, SCALAR, 0},
    {"expert_weights_norm", BOOL, SCALAR, 0},
    {"expert_gating_func", U32, SCALAR, 0},
    {"rope.scaling.yarn_log_multiplier", F32, SCALAR, 0},
    {"attention.temperature_scale", F32, SCALAR, 0},
    {"attention.temperature_length", U32, SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_deepseek2[] = {
    {"MLA", "KMLAK != 0 && VMLAK != 0", NULL},
    {"KMLA", "MLA ? KMLAK : DK", "mla_key_head_size"},
    {"VMLA", "MLA ? VMLAK : DV", "mla_value_head_size"},
    {"NOPE", "KMLA - R", "mla_key_head_size_without_rope"},
    {NULL, NULL, NULL}};
static const gguf__llama_rule rules_deepseek2[] = {
    {"KMLA - R >= 1", NULL, "rope.dimension_count", GGUF_LLAMA_ERROR,
     "llama.cpp aborts unless the rope dimension is smaller than the key head size"},
    {"X > 0", "NDL < NL", "expert_count", GGUF_LLAMA_ERROR,
     "llama.cpp refuses expert layers (after leading_dense_block_count) without experts"},
    {"XU > 0", "NDL < NL", "expert_used_count", GGUF_LLAMA_ERROR,
     "llama.cpp refuses expert layers with no expert used"},
    {NULL, NULL, NULL, 0, NULL}};
/* dense feed-forward blocks in the first NDL layers, then routed experts of width FFE (gate and
 * up apart or fused) beside XS shared ones: deepseek2, deepseek2-ocr */
#define DS_FFN(F)                                                                                \
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, F, .when = "i < NDL"},                             \
    {"blk.%d.ffn_down.weight", {"FF", "E"}, F, .when = "i < NDL"},                             \
    {"blk.%d.ffn_up.weight", {"E", "FF"}, F, .when = "i < NDL"},                               \
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, F, .when = "i >= NDL"},                         \
    {"blk.%d.exp_probs_b.bias", {"X"}, OPT | F, .when = "i >= NDL"},                           \
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, F, .when = "i >= NDL"},                 \
    {"blk.%d.ffn_gate_up_exps.weight", {"E", "FFE*2", "X"}, OPT | F, .when = "i >= NDL"},      \
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, F, .when = "i >= NDL",                  \
     .if_absent = "blk.%d.ffn_gate_up_exps.weight"},                                           \
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, F, .when = "i >= NDL",                    \
     .if_absent = "blk.%d.ffn_gate_up_exps.weight"},                                           \
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFE*XS"}, F, .when = "i >= NDL"},                  \
    {"blk.%d.ffn_down_shexp.weight", {"FFE*XS", "E"}, F, .when = "i >= NDL"},                  \
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFE*XS"}, F, .when = "i >= NDL"}
#define DS ALL_LAYERS
static const gguf__llama_tensor tensors_deepseek2[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, DS},
    {"blk.%d.attn_q_a_norm.weight", {"QLR"}, DS, .when = "QLR > 0"},
    {"blk.%d.attn_kv_a_norm.weight", {"KVLR"}, DS},
    {"blk.%d.attn_q_a.weight", {"E", "QLR"}, DS, .when = "QLR > 0"},
    {"blk.%d.attn_q_b.weight", {"QLR", "H*KMLA"}, DS, .when = "QLR > 0"},
    {"blk.%d.attn_q.weight", {"E", "H*KMLA"}, DS, .when = "QLR == 0"},
    {"blk.%d.attn_kv_a_mqa.weight", {"E", "KVLR+R"}, DS},
    {"blk.%d.attn_k_b.weight", {"NOPE", "KVLR", "H"}, DS, .when = "MLA"},
    {"blk.%d.attn_v_b.weight", {"KVLR", "VMLA", "H"}, DS, .when = "MLA"},
    {"blk.%d.attn_kv_b.weight", {"KVLR", "H*(NOPE+VMLA)"}, DS, .when = "!MLA"},
    {"blk.%d.attn_output.weight", {"H*VMLA", "E"}, DS},
    {"blk.%d.ffn_norm.weight", {"E"}, DS},
    DS_FFN(DS),
    {"blk.%d.nextn.eh_proj.weight", {"2*E", "E"}, DS, .when = "i >= L"},
    {"blk.%d.nextn.enorm.weight", {"E"}, DS, .when = "i >= L"},
    {"blk.%d.nextn.hnorm.weight", {"E"}, DS, .when = "i >= L"},
    {"blk.%d.nextn.embed_tokens.weight", {"E", "V"}, OPT | DS, .when = "i >= L"},
    {"blk.%d.nextn.shared_head_head.weight", {"E", "V"}, OPT | DS, .when = "i >= L"},
    {"blk.%d.nextn.shared_head_norm.weight", {"E"}, OPT | DS, .when = "i >= L"},
    {NULL, {NULL}, 0}};
#undef DS

/* ---- deepseek2-ocr: deepseek2's layers with plain multi-head attention ---- */

static const gguf__llama_tensor tensors_deepseek2_ocr[] = {
    EMBED_OUT,
    {"blk.%d.attn_q.weight", {"E", "E"}, LAYER},
    {"blk.%d.attn_k.weight", {"E", "E"}, LAYER},
    {"blk.%d.attn_v.weight", {"E", "E"}, LAYER},
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    DS_FFN(LAYER),
    {NULL, {NULL}, 0}};

/* ---- gpt-oss (llama.cpp's openai-moe) ---- */

static const gguf__llama_key keys_gpt_oss[] = {
    RMS_EPS,
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"attention.sliding_window", U32, SCALAR, REQ},
    {"attention.sliding_window_pattern", U32, GGUF__LK_SCALAR_OR_IGNORED, 0, .sym = "PAT",
     .dflt = "2"},
    {"rope.freq_base_swa", F32, SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_gpt_oss[] = {{"SWA0", "PAT != 1", NULL}, {NULL, NULL, NULL}};
static const gguf__llama_rule rules_gpt_oss[] = NO_RULES;
static const gguf__llama_tensor tensors_gpt_oss[] = {
    EMBED_NORM_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.post_attention_norm.weight", {"E"}, LAYER},
    QKV("H*R", "HKV*R", "HKV*R", 0),
    {"blk.%d.attn_output.weight", {"H*R", "E"}, LAYER},
    {"blk.%d.attn_sinks.weight", {"H"}, LAYER},
    EXPERT_FFN("FFE"),
    {"blk.%d.attn_output.bias", {"E"}, LAYER},
    {"blk.%d.ffn_gate_inp.bias", {"X"}, LAYER},
    {"blk.%d.ffn_gate_exps.bias", {"FFE", "X"}, LAYER},
    {"blk.%d.ffn_down_exps.bias", {"E", "X"}, LAYER},
    {"blk.%d.ffn_up_exps.bias", {"FFE", "X"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- bert and nomic-bert (one loader; nomic-bert has gated feed-forward and experts) ---- */

#define BERT_LAYERS                                                                              \
    QKV("E", "DV*HKV", "DV*HKV", 0),                                                           \
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},                                          \
    {"blk.%d.attn_output.bias", {"E"}, OPT | LAYER},                                           \
    {"blk.%d.attn_output_norm.weight", {"E"}, LAYER},                                          \
    {"blk.%d.attn_output_norm.bias", {"E"}, LAYER},                                            \
    {"blk.%d.layer_output_norm.weight", {"E"}, LAYER},                                         \
    {"blk.%d.layer_output_norm.bias", {"E"}, LAYER}
#define BERT_FFN(WHEN)                                                                           \
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER, .when = WHEN},                                \
    {"blk.%d.ffn_up.bias", {"FF"}, OPT | LAYER, .when = WHEN},                                 \
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER, .when = WHEN},                              \
    {"blk.%d.ffn_down.bias", {"E"}, OPT | LAYER, .when = WHEN}
static const gguf__llama_rule rules_bert[] = {
    {"TT > 0", NULL, "tokenizer.ggml.token_type_count", GGUF_LLAMA_ERROR,
     "is 0 or absent: llama.cpp refuses a BERT model without token types"},
    {NULL, NULL, NULL, 0, NULL}};
#define rules_nomic_bert rules_bert

static const gguf__llama_key keys_bert[] = {
    {"attention.layer_norm_epsilon", F32, SCALAR, REQ},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_bert[] = NO_SYMS;
/* the token embedding, the token types' and the norm after them */
#define BERT_EMBD                                                                                \
    {"token_embd.weight", {"E", "V"}, 0},                                                      \
    {"token_types.weight", {"E", "TT"}, OPT},                                                  \
    {"token_embd_norm.weight", {"E"}, 0},                                                      \
    {"token_embd_norm.bias", {"E"}, 0}
static const gguf__llama_tensor tensors_bert[] = {
    BERT_EMBD,
    {"position_embd.weight", {"E", "CTX"}, 0},
    {"cls.weight", {"E", "E"}, OPT},
    {"cls.bias", {"E"}, OPT},
    {"cls.output.weight", {"E", "CLS"}, OPT},
    {"cls.output.bias", {"CLS"}, OPT},
    BERT_LAYERS,
    BERT_FFN(NULL),
    {NULL, {NULL}, 0}};
/* bert's loader without positions or classifier */
static const gguf__llama_tensor tensors_jina_bert_v3[] = {BERT_EMBD, BERT_LAYERS, BERT_FFN(NULL),
                                                          {NULL, {NULL}, 0}};

/* jina-bert-v2: token types required, optional q/k norms, and an ffn_up that may carry the gate
 * fused in (twice as wide; the loader reads its width from the tensor) */
#define JINA_UP "UPGATE_i ? 2*FF : FF"
static const gguf__llama_tensor tensors_jina_bert_v2[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    {"token_types.weight", {"E", "TT"}, 0},
    {"token_embd_norm.weight", {"E"}, 0},
    {"token_embd_norm.bias", {"E"}, 0},
    {"cls.weight", {"E", "1"}, OPT},
    {"cls.bias", {"1"}, OPT},
    QKV("E", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_q_norm.weight", {"E"}, OPT | LAYER},
    {"blk.%d.attn_q_norm.bias", {"E"}, OPT | LAYER},
    {"blk.%d.attn_k_norm.weight", {"E"}, OPT | LAYER},
    {"blk.%d.attn_k_norm.bias", {"E"}, OPT | LAYER},
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.attn_output.bias", {"E"}, LAYER},
    {"blk.%d.attn_output_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_output_norm.bias", {"E"}, LAYER},
    {"blk.%d.attn_norm_2.weight", {"E"}, OPT | LAYER},
    {"blk.%d.attn_norm_2.bias", {"E"}, OPT | LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, OPT | LAYER},
    {"blk.%d.ffn_up.weight", {"E", JINA_UP}, LAYER},
    {"blk.%d.ffn_up.bias", {JINA_UP}, OPT | LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {"blk.%d.ffn_down.bias", {"E"}, LAYER},
    {"blk.%d.layer_output_norm.weight", {"E"}, LAYER},
    {"blk.%d.layer_output_norm.bias", {"E"}, LAYER},
    {NULL, {NULL}, 0}};
#undef JINA_UP

static const gguf__llama_key keys_nomic_bert[] = {
    {"attention.layer_norm_epsilon", F32, SCALAR, REQ},
    {"moe_every_n_layers", U32, SCALAR, 0, .sym = "MOEN", .dflt = "0"},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_nomic_bert[] = NO_SYMS;
#define MOEL "MOEN > 0 && i % MOEN == 1"
/* nomic-bert-moe: the same without the gate of the dense feed-forward */
#define NOMIC_BERT_TENSORS                                                                       \
    BERT_EMBD,                                                                                 \
    BERT_LAYERS,                                                                               \
    {"blk.%d.ffn_up_exps.weight", {"E", "FF", "X"}, LAYER, .when = MOEL},                      \
    {"blk.%d.ffn_down_exps.weight", {"FF", "E", "X"}, LAYER, .when = MOEL},                    \
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER, .when = MOEL},                           \
    BERT_FFN("!(" MOEL ")")
static const gguf__llama_tensor tensors_nomic_bert[] = {
    NOMIC_BERT_TENSORS,
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER, .when = "!(" MOEL ")"},
    {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_nomic_bert_moe[] = {NOMIC_BERT_TENSORS, {NULL, {NULL}, 0}};

/* ---- mistral3: llama's loader, a temperature for attention ---- */

static const gguf__llama_key keys_mistral3[] = {
    RMS_EPS,
    {"attention.temperature_scale", F32, SCALAR, 0},
    {"rope.scaling.yarn_beta_fast", F32, SCALAR, 0},
    {"rope.scaling.yarn_beta_slow", F32, SCALAR, 0},
    {"rope.scaling.yarn_log_multiplier", F32, SCALAR, 0},
    {NULL, 0, 0, 0}};
#define syms_mistral3 syms_llama
static const gguf__llama_rule rules_mistral3[] = NO_RULES;
#define tensors_mistral3 tensors_llama

/* ---- granite and granitemoe: llama's layers, and shared experts next to the experts ---- */

static const gguf__llama_key keys_granite[] = {
    RMS_EPS,
    {"logit_scale", F32, SCALAR, REQ},
    {"residual_scale", F32, SCALAR, 0},
    {"embedding_scale", F32, SCALAR, 0},
    {"attention.scale", F32, SCALAR, 0},
    {"deepstack_mapping", I32, GGUF__LK_ARRAY, 0},
    {"expert_shared_feed_forward_length", U32, SCALAR, 0, .sym = "FFS", .dflt = "0"},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_granitemoe[] = {
    RMS_EPS,
    {"logit_scale", F32, SCALAR, REQ},
    {"residual_scale", F32, SCALAR, 0},
    {"embedding_scale", F32, SCALAR, 0},
    {"attention.scale", F32, SCALAR, 0},
    {"expert_shared_feed_forward_length", U32, SCALAR, 0, .sym = "FFS", .dflt = "0"},
    {NULL, 0, 0, 0}};
#define syms_granite syms_llama
#define syms_granitemoe syms_llama
static const gguf__llama_rule rules_granite[] = NO_RULES;
#define rules_granitemoe rules_granite
static const gguf__llama_tensor tensors_granite[] = {
    LLAMA_TENSORS,
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFS"}, LAYER, .when = "X > 0 && FFS > 0"},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFS"}, LAYER, .when = "X > 0 && FFS > 0"},
    {"blk.%d.ffn_down_shexp.weight", {"FFS", "E"}, LAYER, .when = "X > 0 && FFS > 0"},
    {NULL, {NULL}, 0}};
#define tensors_granitemoe tensors_granite

/* ---- gemma: the output is always token_embd ---- */

#define syms_gemma syms_llama
static const gguf__llama_rule rules_gemma[] = NO_RULES;
static const gguf__llama_tensor tensors_gemma[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    {"output_norm.weight", {"E"}, 0},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- olmo2: normalization after attention and feed-forward, optional sliding window ---- */

static const gguf__llama_key keys_olmo2[] = {
    RMS_EPS,
    {"attention.sliding_window", U32, SCALAR, 0, .sym = "SWIN", .dflt = "0"},
    {"attention.sliding_window_pattern", U32, GGUF__LK_SCALAR_OR_IGNORED, 0, .sym = "PAT",
     .dflt = "4", .when = "SWIN > 0"},
    {"rope.freq_base_swa", F32, SCALAR, 0, .when = "SWIN > 0"},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_olmo2[] = {
    {"SWA0", "SWIN > 0 && PAT != 1", NULL},
    {"HD", "E/H", "embedding_length/head_count"},
    {NULL, NULL, NULL}};
static const gguf__llama_rule rules_olmo2[] = NO_RULES;
static const gguf__llama_tensor tensors_olmo2[] = {
    EMBED_NORM_OUT,
    QKV("E", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"HKV*HD"}, LAYER},
    {"blk.%d.post_attention_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {"blk.%d.post_ffw_norm.weight", {"E"}, LAYER},
    {NULL, {NULL}, 0}};

/* The next-token prediction layers' attention (create_tensor_qkv with TENSOR_SKIP): any of the
 * fused or separate weights may be there, none is required. */
#define QKV_NEXTN(Q, K, V)                                                                       \
    {QKVW, {"E", "(" Q ")+(" K ")+(" V ")"}, OPT | ALL_LAYERS, .when = "i >= L"},              \
    {"blk.%d.attn_qkv.bias", {"(" Q ")+(" K ")+(" V ")"}, OPT | ALL_LAYERS, .when = "i >= L"}, \
    {"blk.%d.attn_q.weight", {"E", Q}, OPT | ALL_LAYERS, .when = "i >= L"},                    \
    {"blk.%d.attn_k.weight", {"E", K}, OPT | ALL_LAYERS, .when = "i >= L"},                    \
    {"blk.%d.attn_v.weight", {"E", V}, OPT | ALL_LAYERS, .when = "i >= L"},                    \
    {"blk.%d.attn_q.bias", {Q}, OPT | ALL_LAYERS, .when = "i >= L"},                           \
    {"blk.%d.attn_k.bias", {K}, OPT | ALL_LAYERS, .when = "i >= L"},                           \
    {"blk.%d.attn_v.bias", {V}, OPT | ALL_LAYERS, .when = "i >= L"}
#define NEXTN_HEAD                                                                               \
    {"blk.%d.nextn.eh_proj.weight", {"2*E", "E"}, ALL_LAYERS, .when = "i >= L"},               \
    {"blk.%d.nextn.enorm.weight", {"E"}, ALL_LAYERS, .when = "i >= L"},                        \
    {"blk.%d.nextn.hnorm.weight", {"E"}, ALL_LAYERS, .when = "i >= L"},                        \
    {"blk.%d.nextn.shared_head_norm.weight", {"E"}, OPT | ALL_LAYERS, .when = "i >= L"}

/* ---- exaone4: sliding-window layers only in the 64-layer model ---- */

static const gguf__llama_key keys_exaone4[] = {
    {"attention.sliding_window_pattern", U32, GGUF__LK_SCALAR_OR_IGNORED, 0, .sym = "PAT",
     .dflt = "4", .when = "L == 64"},
    {"rope.freq_base_swa", F32, SCALAR, 0, .when = "L == 64"},
    {"attention.sliding_window", U32, SCALAR, 0},
    RMS_EPS,
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_exaone4[] = {{"SWA0", "L == 64 && PAT != 1", NULL},
                                               {NULL, NULL, NULL}};
static const gguf__llama_rule rules_exaone4[] = NO_RULES;
static const gguf__llama_tensor tensors_exaone4[] = {
    EMBED_OUT,
    {"rope_freqs.weight", {"R/2"}, OPT},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    QKV_NEXTN("DK*H", "DK*HKV", "DV*HKV"),
    {"blk.%d.attn_output.weight", {"E", "E"}, ALL_LAYERS},
    {"blk.%d.post_attention_norm.weight", {"E"}, ALL_LAYERS},
    {"blk.%d.attn_q_norm.weight", {"DK"}, ALL_LAYERS},
    {"blk.%d.attn_k_norm.weight", {"DK"}, ALL_LAYERS},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, ALL_LAYERS},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, ALL_LAYERS},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, ALL_LAYERS},
    {"blk.%d.post_ffw_norm.weight", {"E"}, ALL_LAYERS},
    NEXTN_HEAD,
    {NULL, {NULL}, 0}};

/* ---- ernie4_5 (and paddleocr, its loader); ernie4_5-moe: experts after the dense layers ---- */

static const gguf__llama_key keys_ernie4_5[] = {
    {"rope.dimension_sections", I32, PER_LAYER, ANY_LENGTH},
    RMS_EPS,
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_ernie4_5_moe[] = {
    {"rope.dimension_sections", I32, PER_LAYER, ANY_LENGTH},
    RMS_EPS,
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"expert_shared_feed_forward_length", U32, SCALAR, 0, .sym = "FFS", .dflt = "0"},
    {"interleave_moe_layer_step", U32, SCALAR, REQ},
    {"leading_dense_block_count", U32, SCALAR, 0, .sym = "NDL", .dflt = "0"},
    {NULL, 0, 0, 0}};
#define syms_ernie4_5 syms_llama
#define syms_ernie4_5_moe syms_llama
static const gguf__llama_rule rules_ernie4_5[] = NO_RULES;
#define rules_ernie4_5_moe rules_ernie4_5
#define ERNIE_ATTN                                                                               \
    EMBED_OUT,                                                                                 \
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},                                                 \
    QKV("DK*H", "DV*HKV", "DV*HKV", 0),                                                        \
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},                                       \
    {"blk.%d.attn_output.bias", {"E"}, OPT | LAYER},                                           \
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER}
#define ERNIE_DENSE(WHEN)                                                                        \
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER, .when = WHEN},                              \
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER, .when = WHEN},                              \
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER, .when = WHEN}
static const gguf__llama_tensor tensors_ernie4_5[] = {ERNIE_ATTN, ERNIE_DENSE(NULL),
                                                      {NULL, {NULL}, 0}};
#define ERNIE_MOE "i >= NDL"
static const gguf__llama_tensor tensors_ernie4_5_moe[] = {
    ERNIE_ATTN,
    ERNIE_DENSE("i < NDL"),
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER, .when = ERNIE_MOE},
    {"blk.%d.exp_probs_b.bias", {"X"}, OPT | LAYER, .when = ERNIE_MOE},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, OPT | LAYER, .when = ERNIE_MOE},
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, LAYER, .when = ERNIE_MOE},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, LAYER, .when = ERNIE_MOE},
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFS"}, LAYER, .when = ERNIE_MOE " && FFS > 0"},
    {"blk.%d.ffn_down_shexp.weight", {"FFS", "E"}, LAYER, .when = ERNIE_MOE " && FFS > 0"},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFS"}, LAYER, .when = ERNIE_MOE " && FFS > 0"},
    {NULL, {NULL}, 0}};

/* ---- phi2, starcoder2, stablelm: layer norms with biases ---- */

#define syms_phi2 syms_llama
#define syms_starcoder2 syms_llama
#define syms_stablelm syms_llama
static const gguf__llama_rule rules_phi2[] = NO_RULES;
#define rules_starcoder2 rules_phi2
#define rules_stablelm rules_phi2
static const gguf__llama_tensor tensors_phi2[] = {
    EMBED_NORM_B_OUT,
    {"output.bias", {"V"}, 0},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_norm.bias", {"E"}, LAYER},
    QKV("E", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.attn_output.bias", {"E"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {"blk.%d.ffn_down.bias", {"E"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_up.bias", {"FF"}, LAYER},
    {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_starcoder2[] = {
    EMBED_OUT,
    {"output_norm.bias", {"E"}, 0},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_norm.bias", {"E"}, LAYER},
    QKV("E", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.attn_output.bias", {"E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_norm.bias", {"E"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {"blk.%d.ffn_down.bias", {"E"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_up.bias", {"FF"}, LAYER},
    {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_stablelm[] = {
    EMBED_NORM_B_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_norm.bias", {"E"}, LAYER},
    QKV("E", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK", "H"}, OPT | LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK", "HKV"}, OPT | LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, OPT | LAYER},
    {"blk.%d.ffn_norm.bias", {"E"}, OPT | LAYER},
    GATED_FFN,
    {NULL, {NULL}, 0}};

/* ---- qwen2moe: experts and a gated shared expert in every layer ---- */

static const gguf__llama_key keys_qwen2moe[] = {
    {"expert_feed_forward_length", U32, PER_LAYER, 0, .sym = "FFE", .dflt = "0"},
    {"expert_shared_feed_forward_length", U32, SCALAR, 0, .sym = "FFSK", .dflt = "0"},
    RMS_EPS,
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_qwen2moe[] = {
    {"FFX", "FFE ? FFE : FF/XU", "expert_ffn_length"},
    {"FFS", "FFSK ? FFSK : FF", "shared_expert_ffn_length"},
    {NULL, NULL, NULL}};
static const gguf__llama_rule rules_qwen2moe[] = {
    {"X > 0", NULL, "expert_count", GGUF_LLAMA_ERROR, "llama.cpp refuses qwen2moe without experts"},
    {"XU > 0", NULL, "expert_used_count", GGUF_LLAMA_ERROR,
     "llama.cpp refuses qwen2moe with no expert used"},
    {NULL, NULL, NULL, 0, NULL}};
static const gguf__llama_tensor tensors_qwen2moe[] = {
    EMBED_NORM_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("E", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    EXPERT_FFN("FFX"),
    {"blk.%d.ffn_gate_inp_shexp.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFS"}, LAYER},
    {"blk.%d.ffn_down_shexp.weight", {"FFS", "E"}, LAYER},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFS"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- glm4: a fused gate and up, next-token prediction layers at the end ---- */

#define syms_glm4 syms_llama
static const gguf__llama_rule rules_glm4[] = NO_RULES;
static const gguf__llama_tensor tensors_glm4[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, ALL_LAYERS},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    QKV_NEXTN("DK*H", "DK*HKV", "DV*HKV"),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, ALL_LAYERS},
    {"blk.%d.post_attention_norm.weight", {"E"}, ALL_LAYERS},
    {"blk.%d.ffn_norm.weight", {"E"}, ALL_LAYERS},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, ALL_LAYERS},
    {"blk.%d.ffn_up.weight", {"E", "FF*2"}, ALL_LAYERS},
    {"blk.%d.post_ffw_norm.weight", {"E"}, ALL_LAYERS},
    NEXTN_HEAD,
    {"blk.%d.nextn.embed_tokens.weight", {"E", "V"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.nextn.shared_head_head.weight", {"E", "V"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {NULL, {NULL}, 0}};

/* ---- glm4moe: dense first layers, then experts with a routing bias and shared experts ---- */

static const gguf__llama_key keys_glm4moe[] = {
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    RMS_EPS,
    {"rope.dimension_sections", I32, PER_LAYER, ANY_LENGTH},
    {"expert_shared_count", U32, SCALAR, REQ, .sym = "XS"},
    {"leading_dense_block_count", U32, SCALAR, 0, .sym = "NDL", .dflt = "0"},
    {"expert_weights_scale", F32, SCALAR, 0},
    {"expert_weights_norm", BOOL, SCALAR, 0},
    {"expert_gating_func", U32, SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_glm4moe[] = {
    {"FFX", "FFE ? FFE : FF/XU", "expert_ffn_length"},
    {NULL, NULL, NULL}};
static const gguf__llama_rule rules_glm4moe[] = {
    {"X > 0", NULL, "expert_count", GGUF_LLAMA_ERROR,
     "llama.cpp aborts on glm4moe without experts"},
    {"XU > 0", NULL, "expert_used_count", GGUF_LLAMA_ERROR,
     "llama.cpp aborts on glm4moe with no expert used"},
    {NULL, NULL, NULL, 0, NULL}};
#define GM ALL_LAYERS
#define GMX "i >= NDL"
static const gguf__llama_tensor tensors_glm4moe[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, GM},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    {"blk.%d.attn_qkv.weight", {"E", "DK*H+DK*HKV+DV*HKV"}, OPT | GM, .when = "i >= L"},
    {"blk.%d.attn_qkv.bias", {"DK*H+DK*HKV+DV*HKV"}, OPT | GM, .when = "i >= L",
     .if_present = QKVW},
    {"blk.%d.attn_q.weight", {"E", "DK*H"}, GM, .when = "i >= L", .if_absent = QKVW},
    {"blk.%d.attn_k.weight", {"E", "DK*HKV"}, GM, .when = "i >= L", .if_absent = QKVW},
    {"blk.%d.attn_v.weight", {"E", "DV*HKV"}, GM, .when = "i >= L", .if_absent = QKVW},
    {"blk.%d.attn_q.bias", {"DK*H"}, OPT | GM, .when = "i >= L", .if_absent = QKVW},
    {"blk.%d.attn_k.bias", {"DK*HKV"}, OPT | GM, .when = "i >= L", .if_absent = QKVW},
    {"blk.%d.attn_v.bias", {"DV*HKV"}, OPT | GM, .when = "i >= L", .if_absent = QKVW},
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, GM},
    {"blk.%d.attn_q_norm.weight", {"DK"}, OPT | GM},
    {"blk.%d.attn_k_norm.weight", {"DK"}, OPT | GM},
    {"blk.%d.post_attention_norm.weight", {"E"}, GM},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, GM, .when = GMX},
    {"blk.%d.exp_probs_b.bias", {"X"}, GM, .when = GMX},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFX", "X"}, GM, .when = GMX},
    {"blk.%d.ffn_down_exps.weight", {"FFX", "E", "X"}, GM, .when = GMX},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFX", "X"}, GM, .when = GMX},
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFX*XS"}, GM, .when = GMX " && XS > 0"},
    {"blk.%d.ffn_down_shexp.weight", {"FFX*XS", "E"}, GM, .when = GMX " && XS > 0"},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFX*XS"}, GM, .when = GMX " && XS > 0"},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, GM, .when = "i < NDL"},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, GM, .when = "i < NDL"},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, GM, .when = "i < NDL"},
    {"blk.%d.nextn.eh_proj.weight", {"2*E", "E"}, GM, .when = "i >= L"},
    {"blk.%d.nextn.enorm.weight", {"E"}, GM, .when = "i >= L"},
    {"blk.%d.nextn.hnorm.weight", {"E"}, GM, .when = "i >= L"},
    {"blk.%d.nextn.embed_tokens.weight", {"E", "V"}, OPT | GM, .when = "i >= L"},
    {"blk.%d.nextn.shared_head_head.weight", {"E", "V"}, OPT | GM, .when = "i >= L"},
    {"blk.%d.nextn.shared_head_norm.weight", {"E"}, OPT | GM, .when = "i >= L"},
    {NULL, {NULL}, 0}};
#undef GM
#undef GMX

/* ---- mamba2: state-space layers only ---- */

static const gguf__llama_key keys_mamba2[] = {
    {"ssm.conv_kernel", U32, SCALAR, REQ, .sym = "DCONV"},
    {"ssm.inner_size", U32, SCALAR, REQ, .sym = "DINNER"},
    {"ssm.state_size", U32, SCALAR, REQ, .sym = "DSTATE"},
    {"ssm.time_step_rank", U32, SCALAR, REQ, .sym = "DTR"},
    {"ssm.group_count", U32, SCALAR, REQ, .sym = "NG"},
    RMS_EPS,
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_mamba2[] = {
    {"CONVD", "DINNER + 2*NG*DSTATE", "ssm_conv_dim"},
    {NULL, NULL, NULL}};
static const gguf__llama_rule rules_mamba2[] = NO_RULES;
static const gguf__llama_tensor tensors_mamba2[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ssm_in.weight", {"E", "DINNER + CONVD + DTR"}, LAYER},
    {"blk.%d.ssm_conv1d.weight", {"DCONV", "CONVD"}, LAYER},
    {"blk.%d.ssm_conv1d.bias", {"CONVD"}, LAYER},
    {"blk.%d.ssm_dt.bias", {"DTR"}, LAYER},
    {"blk.%d.ssm_a", {"1", "DTR"}, LAYER},
    {"blk.%d.ssm_d", {"1", "DTR"}, LAYER},
    {"blk.%d.ssm_norm.weight", {"DINNER/NG", "NG"}, LAYER},
    {"blk.%d.ssm_out.weight", {"DINNER", "E"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- rwkv7, arwkv7: time mixing with low-rank projections ---- */

static const gguf__llama_sym syms_rwkv7[] = NO_SYMS;
static const gguf__llama_rule rules_rwkv7[] = NO_RULES;
#define RW(N, ...) {"blk.%d." N ".weight", {__VA_ARGS__}, LAYER}
/* the low-rank decay, in-context learning rate and value residual projections */
#define RWKV7_LORA                                                                               \
    RW("time_mix_w0", "E"), RW("time_mix_w1", "E", "LDECAY"), RW("time_mix_w2", "LDECAY", "E"), \
    RW("time_mix_a0", "E"), RW("time_mix_a1", "E", "LICLR"), RW("time_mix_a2", "LICLR", "E"),  \
    RW("time_mix_v0", "E"),                                                                    \
    /* layer 0's value projection has the in-context learning rate's rank */                   \
    RW("time_mix_v1", "E", "i == 0 ? LICLR : LVRES"),                                          \
    RW("time_mix_v2", "i == 0 ? LICLR : LVRES", "E")
/* the key scales and the key, value and receptance projections */
#define RWKV7_KVR                                                                                \
    RW("time_mix_k_k", "E"), RW("time_mix_k_a", "E"), RW("time_mix_r_k", "E"),                 \
    RW("time_mix_key", "E", "E"), RW("time_mix_value", "E", "E"),                              \
    RW("time_mix_receptance", "E", "E")
static const gguf__llama_tensor tensors_rwkv7[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    {"token_embd_norm.weight", {"E"}, 0},
    {"token_embd_norm.bias", {"E"}, 0},
    {"output_norm.weight", {"E"}, 0},
    {"output_norm.bias", {"E"}, 0},
    {"output.weight", {"E", "V"}, 0},
    RW("attn_norm", "E"), {"blk.%d.attn_norm.bias", {"E"}, LAYER},
    RW("attn_norm_2", "E"), {"blk.%d.attn_norm_2.bias", {"E"}, LAYER},
    RWKV7_LORA,
    RW("time_mix_g1", "E", "LGATE"), RW("time_mix_g2", "LGATE", "E"),
    RW("time_mix_lerp_fused", "E", "1", "1", "6"),
    RWKV7_KVR,
    RW("time_mix_ln", "E"), {"blk.%d.time_mix_ln.bias", {"E"}, LAYER},
    RW("time_mix_output", "E", "E"),
    RW("channel_mix_lerp_k", "E", "1", "1"),
    RW("channel_mix_key", "E", "FF"), RW("channel_mix_value", "FF", "E"),
    {NULL, {NULL}, 0}};

/* arwkv7: rwkv7's time mixing in qwen2's layers; the gate and the time mixing's norm may be
 * absent, and the fused interpolations then number five (llama.cpp takes either) */
static const gguf__llama_tensor tensors_arwkv7[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    {"output_norm.weight", {"E"}, 0},
    {"output.weight", {"E", "V"}, 0},
    RW("attn_norm", "E"),
    RWKV7_LORA,
    {"blk.%d.time_mix_g1.weight", {"E", "LGATE"}, OPT | LAYER},
    {"blk.%d.time_mix_g2.weight", {"LGATE", "E"}, OPT | LAYER},
    {"blk.%d.time_mix_lerp_fused.weight", {"E", "1", "1", "6"}, LAYER,
     .alt_dims = {"E", "1", "1", "5"}},
    RWKV7_KVR,
    {"blk.%d.time_mix_ln.weight", {"E"}, OPT | LAYER},
    {"blk.%d.time_mix_ln.bias", {"E"}, OPT | LAYER},
    RW("time_mix_output", "E", "E"),
    RW("ffn_norm", "E"),
    GATED_FFN,
    {NULL, {NULL}, 0}};
#undef RWKV7_LORA
#undef RWKV7_KVR

/* ---- rwkv6, rwkv6qwen2: time mixing with data-dependent decay ---- */

/* the time mixing both share: low-rank mixing (W1, W2) and decay projections */
#define RWKV6_TIME_MIX                                                                           \
    RW("time_mix_w1", "E", "TMX*5"), RW("time_mix_w2", "TMX", "E", "5"),                       \
    RW("time_mix_lerp_x", "E", "1", "1"),                                                      \
    RW("time_mix_decay", "E"), RW("time_mix_decay_w1", "E", "TDX"),                            \
    RW("time_mix_decay_w2", "TDX", "E")
static const gguf__llama_tensor tensors_rwkv6[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    {"token_embd_norm.weight", {"E"}, 0},
    {"token_embd_norm.bias", {"E"}, 0},
    {"output_norm.weight", {"E"}, 0},
    {"output_norm.bias", {"E"}, 0},
    {"output.weight", {"E", "V"}, 0},
    RW("attn_norm", "E"), {"blk.%d.attn_norm.bias", {"E"}, LAYER},
    RW("attn_norm_2", "E"), {"blk.%d.attn_norm_2.bias", {"E"}, LAYER},
    RWKV6_TIME_MIX,
    /* the separate interpolations, or the fused one; llama.cpp aborts when a layer has
     * neither the fused one nor the decay's */
    {"blk.%d.time_mix_lerp_w.weight", {"E", "1", "1"}, OPT | LAYER,
     .if_present = "blk.%d.time_mix_lerp_fused.weight"},
    {"blk.%d.time_mix_lerp_w.weight", {"E", "1", "1"}, LAYER,
     .if_absent = "blk.%d.time_mix_lerp_fused.weight"},
    {"blk.%d.time_mix_lerp_k.weight", {"E", "1", "1"}, OPT | LAYER},
    {"blk.%d.time_mix_lerp_v.weight", {"E", "1", "1"}, OPT | LAYER},
    {"blk.%d.time_mix_lerp_r.weight", {"E", "1", "1"}, OPT | LAYER},
    {"blk.%d.time_mix_lerp_g.weight", {"E", "1", "1"}, OPT | LAYER},
    {"blk.%d.time_mix_lerp_fused.weight", {"E", "1", "1", "5"}, OPT | LAYER},
    RW("time_mix_first", "HS", "E/HS"),
    RW("time_mix_key", "E", "E"), RW("time_mix_value", "E", "E"),
    RW("time_mix_receptance", "E", "E"), RW("time_mix_gate", "E", "E"),
    RW("time_mix_ln", "E"), {"blk.%d.time_mix_ln.bias", {"E"}, LAYER},
    RW("time_mix_output", "E", "E"),
    RW("channel_mix_lerp_k", "E", "1", "1"), RW("channel_mix_lerp_r", "E", "1", "1"),
    RW("channel_mix_key", "E", "FF"), RW("channel_mix_value", "FF", "E"),
    RW("channel_mix_receptance", "E", "E"),
    {NULL, {NULL}, 0}};

/* rwkv6qwen2: qwen2's feed-forward block, and keys and values of head_count_kv heads when
 * those differ from the embedding's heads */
static const gguf__llama_sym syms_rwkv6qwen2[] = {
    {"KVS", "(HKV == 0 || E/HS == HKV) ? E : HKV*HS", "key_value_size"},
    {NULL, NULL, NULL}};
static const gguf__llama_tensor tensors_rwkv6qwen2[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    {"output_norm.weight", {"E"}, 0},
    {"output_norm.bias", {"E"}, OPT},
    {"output.weight", {"E", "V"}, 0},
    RW("attn_norm", "E"),
    RWKV6_TIME_MIX,
    RW("time_mix_lerp_fused", "E", "1", "1", "5"),
    {"blk.%d.time_mix_first.weight", {"HS", "E/HS"}, OPT | LAYER},
    RW("time_mix_key", "E", "KVS"), RW("time_mix_value", "E", "KVS"),
    RW("time_mix_receptance", "E", "E"), RW("time_mix_gate", "E", "E"),
    {"blk.%d.time_mix_key.bias", {"KVS"}, OPT | LAYER},
    {"blk.%d.time_mix_value.bias", {"KVS"}, OPT | LAYER},
    {"blk.%d.time_mix_receptance.bias", {"E"}, OPT | LAYER},
    RW("time_mix_output", "E", "E"),
    RW("ffn_norm", "E"),
    GATED_FFN,
    {NULL, {NULL}, 0}};
#undef RWKV6_TIME_MIX
#undef RW

/* ---- gpt2, starcoder, bloom, falcon, mpt, codeshell, orion: layer norms with biases, a
 * fused attention projection or the separate ones ---- */

static const gguf__llama_rule rules_none[] = NO_RULES;
/* the output, or token_embd in its place */
#define EMBED_OUT_BIASED                                                                         \
    {"token_embd.weight", {"E", "V"}, 0},                                                      \
    {"output_norm.weight", {"E"}, 0},                                                          \
    {"output_norm.bias", {"E"}, 0},                                                            \
    {"output.weight", {"E", "V"}, OPT}
/* attention and feed-forward with biases everywhere, one fused qkv (gpt2, starcoder, bloom) */
#define FUSED_BIASED_LAYERS                                                                      \
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},                                                 \
    {"blk.%d.attn_norm.bias", {"E"}, LAYER},                                                   \
    {"blk.%d.attn_qkv.weight", {"E", "E+2*DV*HKV"}, LAYER},                                    \
    {"blk.%d.attn_qkv.bias", {"E+2*DV*HKV"}, LAYER},                                           \
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},                                          \
    {"blk.%d.attn_output.bias", {"E"}, LAYER},                                                 \
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},                                                  \
    {"blk.%d.ffn_norm.bias", {"E"}, LAYER},                                                    \
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},                                            \
    {"blk.%d.ffn_down.bias", {"E"}, LAYER},                                                    \
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER},                                              \
    {"blk.%d.ffn_up.bias", {"FF"}, LAYER}
static const gguf__llama_tensor tensors_gpt2[] = {
    EMBED_OUT_BIASED,
    {"position_embd.weight", {"E", "CTX"}, 0},
    FUSED_BIASED_LAYERS,
    {NULL, {NULL}, 0}};
#define tensors_starcoder tensors_gpt2
static const gguf__llama_tensor tensors_bloom[] = {
    EMBED_OUT_BIASED,
    {"token_embd_norm.weight", {"E"}, 0},
    {"token_embd_norm.bias", {"E"}, 0},
    FUSED_BIASED_LAYERS,
    {NULL, {NULL}, 0}};
/* llama's check of the rope dimension applies to falcon too */
#define rules_falcon rules_llama
static const gguf__llama_tensor tensors_falcon[] = {
    EMBED_OUT_BIASED,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_norm.bias", {"E"}, LAYER},
    {"blk.%d.attn_norm_2.weight", {"E"}, OPT | LAYER},
    {"blk.%d.attn_norm_2.bias", {"E"}, OPT | LAYER},
    {"blk.%d.attn_qkv.weight", {"E", "E+2*DV*HKV"}, LAYER},
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER},
    {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_mpt[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    {"position_embd.weight", {"E", "CTX"}, OPT},
    {"output_norm.weight", {"E"}, 0},
    {"output_norm.bias", {"E"}, OPT},
    {"output.weight", {"E", "V"}, OPT},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_norm.bias", {"E"}, OPT | LAYER},
    {"blk.%d.attn_qkv.weight", {"E", "E+2*DV*HKV"}, LAYER},
    {"blk.%d.attn_qkv.bias", {"E+2*DV*HKV"}, OPT | LAYER},
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.attn_output.bias", {"E"}, OPT | LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_norm.bias", {"E"}, OPT | LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {"blk.%d.ffn_down.bias", {"E"}, OPT | LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_up.bias", {"FF"}, OPT | LAYER},
    {"blk.%d.attn_q_norm.weight", {"E"}, OPT | LAYER},
    {"blk.%d.attn_q_norm.bias", {"E"}, OPT | LAYER},
    {"blk.%d.attn_k_norm.weight", {"E"}, OPT | LAYER},
    {"blk.%d.attn_k_norm.bias", {"E"}, OPT | LAYER},
    {"blk.%d.ffn_act.scales", {"FF"}, OPT | LAYER},
    {NULL, {NULL}, 0}};
/* norms and projections with biases, separate (or fused) q, k, v: codeshell, orion */
#define BIASED_NORMS_LAYERS                                                                      \
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},                                                 \
    {"blk.%d.attn_norm.bias", {"E"}, LAYER},                                                   \
    QKV("E", "DV*HKV", "DV*HKV", 0),                                                           \
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},                                          \
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},                                                  \
    {"blk.%d.ffn_norm.bias", {"E"}, LAYER},                                                    \
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},                                            \
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER}
static const gguf__llama_tensor tensors_codeshell[] = {
    /* token_embd may be absent: the output stands in for it */
    {"token_embd.weight", {"E", "V"}, OPT},
    {"output_norm.weight", {"E"}, 0},
    {"output_norm.bias", {"E"}, 0},
    {"output.weight", {"E", "V"}, 0},
    BIASED_NORMS_LAYERS,
    {"blk.%d.attn_output.bias", {"E"}, LAYER},
    {"blk.%d.ffn_down.bias", {"E"}, LAYER},
    {"blk.%d.ffn_up.bias", {"FF"}, LAYER},
    {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_orion[] = {
    EMBED_NORM_B_OUT,
    BIASED_NORMS_LAYERS,
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- internlm2, baichuan, xverse: llama's layers without options, a required output;
 * refact: llama's loader; smollm3: llama's layers, the output optional ---- */

#define DENSE_LAYERS(Q)                                                                          \
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},                                                 \
    QKV(Q, "DV*HKV", "DV*HKV", 0),                                                             \
    {"blk.%d.attn_output.weight", {Q, "E"}, LAYER},                                            \
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},                                                  \
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER},                                            \
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},                                            \
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER}
static const gguf__llama_tensor tensors_internlm2[] = {
    EMBED_NORM_OUT,
    DENSE_LAYERS("E"),
    {NULL, {NULL}, 0}};
#define tensors_baichuan tensors_internlm2
#define tensors_xverse tensors_internlm2
static const gguf__llama_tensor tensors_smollm3[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    GATED_FFN,
    {NULL, {NULL}, 0}};
/* seed_oss: a normalization after attention; head sizes from key_length */
static const gguf__llama_tensor tensors_seed_oss[] = {
    EMBED_OUT,
    QKV("DK*H", "DK*HKV", "DK*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.post_attention_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- command-r, cohere2: no feed-forward norm, the output is token_embd; command-r's 64-layer
 * models normalize queries and keys ---- */

#define COHERE_LAYERS                                                                            \
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},                                                 \
    QKV("E", "DV*HKV", "DV*HKV", 0),                                                           \
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},                                          \
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER},                                            \
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},                                            \
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER}
static const gguf__llama_tensor tensors_command_r[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    {"output_norm.weight", {"E"}, 0},
    COHERE_LAYERS,
    {"blk.%d.attn_q_norm.weight", {"DK", "H"}, LAYER, .when = "L >= 64"},
    {"blk.%d.attn_k_norm.weight", {"DK", "HKV"}, LAYER, .when = "L >= 64"},
    {NULL, {NULL}, 0}};
static const gguf__llama_key keys_cohere2[] = {
    {"attention.sliding_window_pattern", U32, GGUF__LK_SCALAR_OR_IGNORED, 0, .sym = "PAT",
     .dflt = "4"},
    {"rope.freq_base_swa", F32, SCALAR, 0},
    {"attention.sliding_window", U32, SCALAR, REQ},
    {"logit_scale", F32, SCALAR, REQ},
    {"attention.layer_norm_epsilon", F32, SCALAR, REQ},
    {NULL, 0, 0, 0}};
/* layer 0 slides unless the period is 1 */
static const gguf__llama_sym syms_cohere2[] = {{"SWA0", "PAT != 1", NULL}, {NULL, NULL, NULL}};
static const gguf__llama_tensor tensors_cohere2[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    {"output_norm.weight", {"E"}, 0},
    COHERE_LAYERS,
    {NULL, {NULL}, 0}};

/* ---- olmoe: experts in every layer, queries and keys normalized over the whole width ---- */

static const gguf__llama_rule rules_olmoe[] = {
    {"X > 0", NULL, "expert_count", GGUF_LLAMA_ERROR, "llama.cpp refuses olmoe without experts"},
    {"XU > 0", NULL, "expert_used_count", GGUF_LLAMA_ERROR,
     "llama.cpp refuses olmoe with no expert used"},
    {NULL, NULL, NULL, 0, NULL}};
static const gguf__llama_tensor tensors_olmoe[] = {
    EMBED_NORM_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("E", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    EXPERT_FFN("FF"),
    {NULL, {NULL}, 0}};

/* ---- chatglm: a fused gate and up; bitnet: sub-norms, the output is token_embd ---- */

static const gguf__llama_tensor tensors_chatglm[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF*2"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {NULL, {NULL}, 0}};
/* (the weights' optional scales are the generic rows) */
static const gguf__llama_tensor tensors_bitnet[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    {"output_norm.weight", {"E"}, 0},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_sub_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_q.weight", {"E", "E"}, LAYER},
    {"blk.%d.attn_k.weight", {"E", "DV*HKV"}, LAYER},
    {"blk.%d.attn_v.weight", {"E", "DV*HKV"}, LAYER},
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_sub_norm.weight", {"FF"}, LAYER},
    GATED_FFN,
    {NULL, {NULL}, 0}};

/* ---- exaone, arcee: llama's layers with rope factors (arcee: no gate) ---- */

#define ROPE_LAYERS(GATE)                                                                        \
    EMBED_OUT,                                                                                 \
    {"rope_freqs.weight", {"R/2"}, OPT},                                                       \
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},                                                 \
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),                                                        \
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},                                       \
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},                                                  \
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER, .when = GATE},                              \
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},                                            \
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER}
static const gguf__llama_tensor tensors_exaone[] = {ROPE_LAYERS("1"), {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_arcee[] = {ROPE_LAYERS("0"), {NULL, {NULL}, 0}};

/* ---- gptneox: gpt2's layers without position embeddings, a required output ---- */

static const gguf__llama_tensor tensors_gptneox[] = {
    EMBED_NORM_B_OUT,
    FUSED_BIASED_LAYERS,
    {NULL, {NULL}, 0}};

/* ---- minicpm: llama's loader (its scales have defaults) ---- */

static const gguf__llama_key keys_minicpm[] = {
    RMS_EPS,
    {"embedding_scale", F32, SCALAR, 0},
    {"residual_scale", F32, SCALAR, 0},
    {"logit_scale", F32, SCALAR, 0},
    {NULL, 0, 0, 0}};

/* ---- deepseek: dense first layers, then experts with shared ones ---- */

static const gguf__llama_key keys_deepseek[] = {
    RMS_EPS,
    {"leading_dense_block_count", U32, SCALAR, 0, .sym = "NDL", .dflt = "0"},
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"expert_shared_count", U32, SCALAR, REQ, .sym = "XS"},
    {"expert_weights_scale", F32, SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_rule rules_deepseek[] = {
    {"X > 0", "NDL < L", "expert_count", GGUF_LLAMA_ERROR,
     "llama.cpp refuses expert layers (after leading_dense_block_count) without experts"},
    {"XU > 0", "NDL < L", "expert_used_count", GGUF_LLAMA_ERROR,
     "llama.cpp refuses expert layers with no expert used"},
    {NULL, NULL, NULL, 0, NULL}};
static const gguf__llama_tensor tensors_deepseek[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("E", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFE*XS"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_down_shexp.weight", {"FFE*XS", "E"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFE*XS"}, LAYER, .when = "i >= NDL"},
    {NULL, {NULL}, 0}};

/* ---- dbrx: experts only, a fused attention projection, a norm after attention ---- */

static const gguf__llama_rule rules_dbrx[] = {
    {"X > 0", NULL, "expert_count", GGUF_LLAMA_ERROR, "llama.cpp refuses dbrx without experts"},
    {NULL, NULL, NULL, 0, NULL}};
static const gguf__llama_tensor tensors_dbrx[] = {
    EMBED_NORM_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_qkv.weight", {"E", "E+2*DV*HKV"}, LAYER},
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.attn_output_norm.weight", {"E"}, LAYER},
    EXPERT_FFN("FF"),
    {NULL, {NULL}, 0}};

/* ---- arctic: a dense residual feed-forward of the embedding's width beside the experts ---- */

static const gguf__llama_tensor tensors_arctic[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("E", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "E"}, LAYER},
    {"blk.%d.ffn_down.weight", {"E", "E"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "E"}, LAYER},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER},
    {"blk.%d.ffn_norm_exps.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FF", "X"}, LAYER},
    {"blk.%d.ffn_down_exps.weight", {"FF", "E", "X"}, LAYER},
    {"blk.%d.ffn_up_exps.weight", {"E", "FF", "X"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- dream, llada (diffusion), maincoder: llama-like layers ---- */

static const gguf__llama_tensor tensors_dream[] = {
    EMBED_OUT,
    {"output.bias", {"V"}, OPT},
    DENSE_LAYERS("E"),
    {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_llada[] = {
    EMBED_OUT,
    {"rope_freqs.weight", {"R/2"}, OPT},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_q.weight", {"E", "DK*H"}, LAYER},
    {"blk.%d.attn_k.weight", {"E", "DK*HKV"}, LAYER},
    {"blk.%d.attn_v.weight", {"E", "DV*HKV"}, LAYER},
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_output.bias", {"E"}, OPT | LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    GATED_FFN,
    {"blk.%d.ffn_gate.bias", {"FF"}, OPT | LAYER},
    {"blk.%d.ffn_down.bias", {"E"}, OPT | LAYER},
    {"blk.%d.ffn_up.bias", {"FF"}, OPT | LAYER},
    {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_maincoder[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    GATED_FFN,
    {NULL, {NULL}, 0}};

/* ---- plamo: no feed-forward norm; olmo: no norms at all; qwen: a fused projection of three
 * widths and feed-forward halves ---- */

static const gguf__llama_tensor tensors_plamo[] = {
    EMBED_NORM_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("E", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    GATED_FFN,
    {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_olmo[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    {"output.weight", {"E", "V"}, OPT},
    QKV("E", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    GATED_FFN,
    {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_qwen[] = {
    EMBED_NORM_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_qkv.weight", {"E", "E*3"}, LAYER},
    {"blk.%d.attn_qkv.bias", {"E*3"}, LAYER},
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF/2"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF/2", "E"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF/2"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- jais: gated feed-forward with biases; jais2: separate projections with biases; nemotron:
 * biased norms, optional biases ---- */

static const gguf__llama_tensor tensors_jais[] = {
    EMBED_NORM_B_OUT,
    FUSED_BIASED_LAYERS,
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_gate.bias", {"FF"}, LAYER},
    {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_jais2[] = {
    EMBED_OUT_BIASED,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_norm.bias", {"E"}, LAYER},
    {"blk.%d.attn_q.weight", {"E", "DK*H"}, LAYER},
    {"blk.%d.attn_k.weight", {"E", "DK*HKV"}, LAYER},
    {"blk.%d.attn_v.weight", {"E", "DV*HKV"}, LAYER},
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_q.bias", {"E"}, LAYER},
    {"blk.%d.attn_k.bias", {"E"}, LAYER},
    {"blk.%d.attn_v.bias", {"E"}, LAYER},
    {"blk.%d.attn_output.bias", {"E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_norm.bias", {"E"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_up.bias", {"FF"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {"blk.%d.ffn_down.bias", {"E"}, LAYER},
    {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_nemotron[] = {
    EMBED_NORM_B_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_norm.bias", {"E"}, LAYER},
    QKV("E", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.attn_output.bias", {"E"}, OPT | LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_norm.bias", {"E"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_down.bias", {"E"}, OPT | LAYER},
    {"blk.%d.ffn_up.bias", {"FF"}, OPT | LAYER},
    {NULL, {NULL}, 0}};

/* ---- phimoe: experts, biased norms and output, rope factors of E/H/2 ---- */

static const gguf__llama_tensor tensors_phimoe[] = {
    EMBED_NORM_B_OUT,
    {"output.bias", {"V"}, 0},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_norm.bias", {"E"}, LAYER},
    QKV("E", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.attn_output.bias", {"E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_norm.bias", {"E"}, LAYER},
    EXPERT_FFN("FF"),
    {"rope_factors_long.weight", {"E/H/2"}, OPT},
    {"rope_factors_short.weight", {"E/H/2"}, OPT},
    {NULL, {NULL}, 0}};

/* ---- pangu-embedded: llama's layers with a required output bias, rope factors ---- */

static const gguf__llama_tensor tensors_pangu_embedded[] = {
    EMBED_OUT,
    {"rope_freqs.weight", {"R/2"}, OPT, .when = "!LONGROPE"},
    {"rope_factors_long.weight", {"R/2"}, OPT, .when = "LONGROPE"},
    {"rope_factors_short.weight", {"R/2"}, OPT, .when = "LONGROPE"},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_output.bias", {"E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    GATED_FFN,
    {NULL, {NULL}, 0}};

/* ---- minimax-m2: experts sized by feed_forward_length with a routing bias, queries and keys
 * normalized over all heads; hunyuan-moe: experts and a shared expert in every layer ---- */

static const gguf__llama_tensor tensors_minimax_m2[] = {
    EMBED_NORM_OUT,
    QKV("DK*H", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK*H"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK*HKV"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    EXPERT_FFN("FF"),
    {"blk.%d.exp_probs_b.bias", {"X"}, LAYER},
    {NULL, {NULL}, 0}};
/* the shared expert is as wide as the layer's feed-forward unless given */
#define HY_FFS "FFS > 0 ? FFS : FF_i"
static const gguf__llama_tensor tensors_hunyuan_moe[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    EXPERT_FFN("FF"),
    {"blk.%d.ffn_gate_shexp.weight", {"E", HY_FFS}, LAYER},
    {"blk.%d.ffn_up_shexp.weight", {"E", HY_FFS}, LAYER},
    {"blk.%d.ffn_down_shexp.weight", {HY_FFS, "E"}, LAYER},
    {NULL, {NULL}, 0}};
#undef HY_FFS

/* ---- apertus: no gate, queries and keys normalized (optional biases), rope factors ---- */

static const gguf__llama_tensor tensors_apertus[] = {
    EMBED_NORM_OUT,
    {"rope_freqs.weight", {"R/2"}, OPT, .when = "!LONGROPE"},
    {"rope_factors_long.weight", {"R/2"}, OPT, .when = "LONGROPE"},
    {"rope_factors_short.weight", {"R/2"}, OPT, .when = "LONGROPE"},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_output.bias", {"E"}, OPT | LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_q_norm.bias", {"DK"}, OPT | LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_k_norm.bias", {"DK"}, OPT | LAYER},
    {NULL, {NULL}, 0}};

/* ---- openelm: head and feed-forward counts that change from layer to layer ---- */

static const gguf__llama_tensor tensors_openelm[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    {"output_norm.weight", {"E"}, 0},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_qkv.weight", {"E", "(2*HKV_i + H_i)*DK"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_output.weight", {"H_i*DK", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF_i"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF_i", "E"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF_i"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- qwen3next, qwen35, qwen35moe: gated delta-net layers, attention every
 * full_attention_interval-th layer (or where attention.recurrent_layers says), next-token
 * prediction layers at the end that are attention layers ---- */

#define DELTANET_KEYS                                                                            \
    RMS_EPS,                                                                                   \
    {"ssm.conv_kernel", U32, SCALAR, REQ, .sym = "DCONV"},                                     \
    {"ssm.inner_size", U32, SCALAR, REQ},                                                      \
    {"ssm.state_size", U32, SCALAR, REQ, .sym = "DSTATE"},                                     \
    {"ssm.time_step_rank", U32, SCALAR, REQ, .sym = "DTR"},                                    \
    {"ssm.group_count", U32, SCALAR, REQ, .sym = "NG"},                                        \
    {"attention.recurrent_layers", U32, PER_LAYER, 0},                                         \
    {"full_attention_interval", U32, SCALAR, 0}
#define DELTANET_EXPERT_KEYS                                                                     \
    {"expert_feed_forward_length", U32, PER_LAYER, 0, .sym = "FFE", .dflt = "0"},              \
    {"expert_shared_feed_forward_length", U32, SCALAR, 0, .sym = "FFS", .dflt = "0"}
static const gguf__llama_key keys_qwen3next[] = {DELTANET_EXPERT_KEYS, DELTANET_KEYS,
                                                 {NULL, 0, 0, 0}};
static const gguf__llama_key keys_qwen35[] = {
    {"rope.dimension_sections", I32, PER_LAYER, ANY_LENGTH | REQ}, DELTANET_KEYS, {NULL, 0, 0, 0}};
static const gguf__llama_key keys_qwen35moe[] = {
    DELTANET_EXPERT_KEYS,
    {"rope.dimension_sections", I32, PER_LAYER, ANY_LENGTH | REQ},
    DELTANET_KEYS,
    {NULL, 0, 0, 0}};
#define DELTANET_SYMS                                                                            \
    {"KD", "DSTATE*NG", "ssm.state_size*ssm.group_count"},                                     \
    {"VD", "DSTATE*DTR", "ssm.state_size*ssm.time_step_rank"}
static const gguf__llama_sym syms_deltanet[] = {DELTANET_SYMS, {NULL, NULL, NULL}};
static const gguf__llama_sym syms_deltanet_moe[] = {
    DELTANET_SYMS, {"FFX", "FFE ? FFE : FF/XU", "expert_ffn_length"}, {NULL, NULL, NULL}};
static const gguf__llama_rule rules_deltanet_moe[] = {
    {"X > 0", NULL, "expert_count", GGUF_LLAMA_ERROR,
     "llama.cpp refuses this architecture without experts"},
    {NULL, NULL, NULL, 0, NULL}};
#define DN ALL_LAYERS
#define DN_ATTN "!RECR_i"
#define DN_RECR "RECR_i"
/* create_tensor_qkv over every layer, in the attention layers */
#define DN_QKV(Q, K, V)                                                                          \
    {QKVW, {"E", "(" Q ")+(" K ")+(" V ")"}, OPT | DN, .when = DN_ATTN},                       \
    {"blk.%d.attn_qkv.bias", {"(" Q ")+(" K ")+(" V ")"}, OPT | DN, .when = DN_ATTN,           \
     .if_present = QKVW},                                                                      \
    {"blk.%d.attn_q.weight", {"E", Q}, DN, .when = DN_ATTN, .if_absent = QKVW},                \
    {"blk.%d.attn_k.weight", {"E", K}, DN, .when = DN_ATTN, .if_absent = QKVW},                \
    {"blk.%d.attn_v.weight", {"E", V}, DN, .when = DN_ATTN, .if_absent = QKVW},                \
    {"blk.%d.attn_q.bias", {Q}, OPT | DN, .when = DN_ATTN, .if_absent = QKVW},                 \
    {"blk.%d.attn_k.bias", {K}, OPT | DN, .when = DN_ATTN, .if_absent = QKVW},                 \
    {"blk.%d.attn_v.bias", {V}, OPT | DN, .when = DN_ATTN, .if_absent = QKVW}
#define DELTANET_LAYERS(BETA_ALPHA)                                                              \
    EMBED_OUT,                                                                                 \
    {"blk.%d.attn_norm.weight", {"E"}, DN},                                                    \
    {"blk.%d.post_attention_norm.weight", {"E"}, DN},                                          \
    DN_QKV("DK*H*2", "DK*HKV", "DV*HKV"),                                                      \
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, DN, .when = DN_ATTN},                         \
    {"blk.%d.attn_q_norm.weight", {"DK"}, DN, .when = DN_ATTN},                                \
    {"blk.%d.attn_k_norm.weight", {"DK"}, DN, .when = DN_ATTN},                                \
    {QKVW, {"E", "KD*2+VD"}, OPT | DN, .when = DN_RECR},                                       \
    {"blk.%d.attn_gate.weight", {"E", "VD"}, OPT | DN, .when = DN_RECR},                       \
    {"blk.%d.ssm_conv1d.weight", {"DCONV", "KD*2+VD"}, DN, .when = DN_RECR},                   \
    {"blk.%d.ssm_dt.bias", {"DTR"}, DN, .when = DN_RECR},                                      \
    {"blk.%d.ssm_a", {"DTR"}, DN, .when = DN_RECR},                                            \
    BETA_ALPHA,                                                                                \
    {"blk.%d.ssm_norm.weight", {"DSTATE"}, DN, .when = DN_RECR},                               \
    {"blk.%d.ssm_out.weight", {"VD", "E"}, DN, .when = DN_RECR},                               \
    {"blk.%d.nextn.eh_proj.weight", {"2*E", "E"}, DN, .when = "i >= L"},                       \
    {"blk.%d.nextn.enorm.weight", {"E"}, DN, .when = "i >= L"},                                \
    {"blk.%d.nextn.hnorm.weight", {"E"}, DN, .when = "i >= L"},                                \
    {"blk.%d.nextn.embed_tokens.weight", {"E", "V"}, OPT | DN, .when = "i >= L"},              \
    {"blk.%d.nextn.shared_head_head.weight", {"E", "V"}, OPT | DN, .when = "i >= L"},          \
    {"blk.%d.nextn.shared_head_norm.weight", {"E"}, OPT | DN, .when = "i >= L"}
#define DN_EXPERTS(FFS)                                                                          \
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, DN},                                            \
    {"blk.%d.ffn_down_exps.weight", {"FFX", "E", "X"}, DN},                                    \
    {"blk.%d.ffn_gate_up_exps.weight", {"E", "FFX*2", "X"}, OPT | DN},                         \
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFX", "X"}, DN,                                     \
     .if_absent = "blk.%d.ffn_gate_up_exps.weight"},                                           \
    {"blk.%d.ffn_up_exps.weight", {"E", "FFX", "X"}, DN,                                       \
     .if_absent = "blk.%d.ffn_gate_up_exps.weight"},                                           \
    {"blk.%d.ffn_gate_inp_shexp.weight", {"E"}, DN},                                           \
    {"blk.%d.ffn_gate_shexp.weight", {"E", FFS}, DN},                                          \
    {"blk.%d.ffn_up_shexp.weight", {"E", FFS}, DN},                                            \
    {"blk.%d.ffn_down_shexp.weight", {FFS, "E"}, DN}
#define DN_BA {"blk.%d.ssm_ba.weight", {"E", "DTR*2"}, DN, .when = DN_RECR}
static const gguf__llama_tensor tensors_qwen3next[] = {
    DELTANET_LAYERS(DN_BA),
    {"blk.%d.ssm_in.weight", {"E", "KD*2+VD*2"}, OPT | DN, .when = DN_RECR},
    /* the shared expert is as wide as the layer's feed-forward unless given */
    DN_EXPERTS("FFS > 0 ? FFS : FF_i"),
    {NULL, {NULL}, 0}};
#define DN_BETA_ALPHA                                                                            \
    {"blk.%d.ssm_beta.weight", {"E", "DTR"}, DN, .when = DN_RECR},                             \
    {"blk.%d.ssm_alpha.weight", {"E", "DTR"}, DN, .when = DN_RECR}
static const gguf__llama_tensor tensors_qwen35[] = {
    DELTANET_LAYERS(DN_BETA_ALPHA),
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, DN},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, DN},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, DN},
    {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_qwen35moe[] = {
    DELTANET_LAYERS(DN_BETA_ALPHA),
    DN_EXPERTS("FFS ? FFS : FF"),
    {NULL, {NULL}, 0}};

/* ---- granitehybrid, nemotron_h: mamba2 layers where a layer has no key/value heads (nemotron_h:
 * and no feed-forward), attention in the others ---- */

/* a mamba2 block in the layers where W holds, its grouped norm flagged NF */
#define MAMBA2_LAYER_NORM(F, NF, W)                                                              \
    {"blk.%d.ssm_in.weight", {"E", "2*DINNER + 2*NG*DSTATE + DTR"}, F, .when = W},             \
    {"blk.%d.ssm_conv1d.weight", {"DCONV", "DINNER + 2*NG*DSTATE"}, F, .when = W},             \
    {"blk.%d.ssm_conv1d.bias", {"DINNER + 2*NG*DSTATE"}, OPT | (F), .when = W},                \
    {"blk.%d.ssm_dt.bias", {"DTR"}, F, .when = W},                                             \
    {"blk.%d.ssm_a", {"1", "DTR"}, F, .when = W},                                              \
    {"blk.%d.ssm_d", {"1", "DTR"}, F, .when = W},                                              \
    {"blk.%d.ssm_norm.weight", {"DINNER/NG", "NG"}, NF, .when = W},                            \
    {"blk.%d.ssm_out.weight", {"DINNER", "E"}, F, .when = W}
#define MAMBA2_LAYER(F, W) MAMBA2_LAYER_NORM(F, F, W)
static const gguf__llama_key keys_granitehybrid[] = {
    RMS_EPS,
    {"logit_scale", F32, SCALAR, 0},
    {"residual_scale", F32, SCALAR, 0},
    {"embedding_scale", F32, SCALAR, 0},
    {"attention.scale", F32, SCALAR, 0},
    MAMBA2_KEYS,
    {"rope.scaling.finetuned", BOOL, SCALAR, 0},
    {"expert_shared_feed_forward_length", U32, SCALAR, 0, .sym = "FFS", .dflt = "0"},
    {NULL, 0, 0, 0}};
static const gguf__llama_rule rules_granitehybrid[] = {
    {"2*E == DINNER", NULL, "ssm.inner_size", GGUF_LLAMA_ERROR,
     "llama.cpp aborts unless it is twice embedding_length"},
    {NULL, NULL, NULL, 0, NULL}};
static const gguf__llama_tensor tensors_granitehybrid[] = {
    EMBED_OUT,
    {"rope_freqs.weight", {"R/2"}, OPT},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    MAMBA2_LAYER(LAYER, "RECR_i"),
    QKV_WHEN("DK*H_i", "DK*HKV_i", "DV*HKV_i", 0, "!RECR_i"),
    {"blk.%d.attn_output.weight", {"DK*H_i", "E"}, LAYER, .when = "!RECR_i"},
    {"blk.%d.attn_output.bias", {"E"}, OPT | LAYER, .when = "!RECR_i"},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER, .when = "X > 0"},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FF", "X"}, OPT | LAYER, .when = "X > 0"},
    {"blk.%d.ffn_down_exps.weight", {"FF", "E", "X"}, LAYER, .when = "X > 0"},
    {"blk.%d.ffn_up_exps.weight", {"E", "FF", "X"}, LAYER, .when = "X > 0"},
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFS"}, LAYER, .when = "X > 0 && FFS > 0"},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFS"}, LAYER, .when = "X > 0 && FFS > 0"},
    {"blk.%d.ffn_down_shexp.weight", {"FFS", "E"}, LAYER, .when = "X > 0 && FFS > 0"},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER, .when = "X == 0"},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER, .when = "X == 0"},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER, .when = "X == 0"},
    {"blk.%d.ffn_gate.bias", {"FF"}, OPT | LAYER, .when = "X == 0"},
    {"blk.%d.ffn_down.bias", {"E"}, OPT | LAYER, .when = "X == 0"},
    {"blk.%d.ffn_up.bias", {"FF"}, OPT | LAYER, .when = "X == 0"},
    {NULL, {NULL}, 0}};

static const gguf__llama_key keys_nemotron_h[] = {
    MAMBA2_KEYS,
    RMS_EPS,
    {"attention.layer_norm_epsilon", F32, SCALAR, REQ},
    {"expert_feed_forward_length", U32, PER_LAYER, 0},
    {"expert_shared_feed_forward_length", U32, SCALAR, 0, .sym = "FFS", .dflt = "0"},
    {"expert_shared_count", U32, SCALAR, 0},
    {"expert_weights_norm", BOOL, SCALAR, 0},
    {"expert_weights_scale", F32, SCALAR, 0},
    {"moe_latent_size", U32, SCALAR, 0, .sym = "MLAT", .dflt = "0"},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_nemotron_h[] = {
    {"MOEE", "MLAT > 0 ? MLAT : E", "moe_latent_size"},
    {NULL, NULL, NULL}};
#define NH ALL_LAYERS
#define NH_FFN "i < L && !RECR_i && FF_i != 0"
#define NH_FFX "FFE_i ? FFE_i : FF_i/XU_i"
#define NH_MTP_FFX "FFE_i ? FFE_i : FF/XU_i"
static const gguf__llama_tensor tensors_nemotron_h[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, NH},
    MAMBA2_LAYER(NH, "RECR_i"),
    /* attention in the layers without feed-forward, and in the next-token prediction layers */
    {QKVW, {"E", "DK*H_i+DK*HKV_i+DV*HKV_i"}, OPT | NH, .when = "!RECR_i && (i >= L || FF_i == 0)"},
    {"blk.%d.attn_qkv.bias", {"DK*H_i+DK*HKV_i+DV*HKV_i"}, OPT | NH,
     .when = "!RECR_i && (i >= L || FF_i == 0)", .if_present = QKVW},
    {"blk.%d.attn_q.weight", {"E", "DK*H_i"}, NH, .when = "!RECR_i && (i >= L || FF_i == 0)",
     .if_absent = QKVW},
    {"blk.%d.attn_k.weight", {"E", "DK*HKV_i"}, NH, .when = "!RECR_i && (i >= L || FF_i == 0)",
     .if_absent = QKVW},
    {"blk.%d.attn_v.weight", {"E", "DV*HKV_i"}, NH, .when = "!RECR_i && (i >= L || FF_i == 0)",
     .if_absent = QKVW},
    {"blk.%d.attn_q.bias", {"DK*H_i"}, OPT | NH, .when = "!RECR_i && (i >= L || FF_i == 0)",
     .if_absent = QKVW},
    {"blk.%d.attn_k.bias", {"DK*HKV_i"}, OPT | NH, .when = "!RECR_i && (i >= L || FF_i == 0)",
     .if_absent = QKVW},
    {"blk.%d.attn_v.bias", {"DV*HKV_i"}, OPT | NH, .when = "!RECR_i && (i >= L || FF_i == 0)",
     .if_absent = QKVW},
    {"blk.%d.attn_output.weight", {"DK*H_i", "E"}, NH, .when = "!RECR_i && (i >= L || FF_i == 0)"},
    {"blk.%d.attn_output.bias", {"E"}, OPT | NH, .when = "!RECR_i && (i >= L || FF_i == 0)"},
    /* feed-forward layers: experts, or a dense up and down */
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, NH, .when = NH_FFN " && X != 0"},
    {"blk.%d.exp_probs_b.bias", {"X"}, NH, .when = NH_FFN " && X != 0"},
    {"blk.%d.ffn_latent_down.weight", {"E", "MOEE"}, OPT | NH, .when = NH_FFN " && X != 0"},
    {"blk.%d.ffn_latent_up.weight", {"MOEE", "E"}, OPT | NH, .when = NH_FFN " && X != 0"},
    {"blk.%d.ffn_down_exps.weight", {NH_FFX, "MOEE", "X"}, NH, .when = NH_FFN " && X != 0"},
    {"blk.%d.ffn_up_exps.weight", {"MOEE", NH_FFX, "X"}, NH, .when = NH_FFN " && X != 0"},
    {"blk.%d.ffn_down_shexp.weight", {"FFS", "E"}, NH, .when = NH_FFN " && X != 0"},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFS"}, NH, .when = NH_FFN " && X != 0"},
    {"blk.%d.ffn_down.weight", {"FF_i", "E"}, NH, .when = NH_FFN " && X == 0"},
    {"blk.%d.ffn_up.weight", {"E", "FF_i"}, NH, .when = NH_FFN " && X == 0"},
    {"blk.%d.ffn_down.bias", {"E"}, OPT | NH, .when = NH_FFN " && X == 0"},
    {"blk.%d.ffn_up.bias", {"FF_i"}, OPT | NH, .when = NH_FFN " && X == 0"},
    /* next-token prediction layers */
    {"blk.%d.nextn.enorm.weight", {"E"}, NH, .when = "i >= L"},
    {"blk.%d.nextn.hnorm.weight", {"E"}, NH, .when = "i >= L"},
    {"blk.%d.nextn.eh_proj.weight", {"2*E", "E"}, NH, .when = "i >= L"},
    {"blk.%d.nextn.shared_head_norm.weight", {"E"}, NH, .when = "i >= L"},
    {"blk.%d.post_attention_norm.weight", {"E"}, NH, .when = "i >= L"},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, NH, .when = "i >= L"},
    {"blk.%d.exp_probs_b.bias", {"X"}, NH, .when = "i >= L"},
    {"blk.%d.ffn_down_exps.weight", {NH_MTP_FFX, "MOEE", "X"}, NH, .when = "i >= L"},
    {"blk.%d.ffn_up_exps.weight", {"MOEE", NH_MTP_FFX, "X"}, NH, .when = "i >= L"},
    {"blk.%d.ffn_down_shexp.weight", {"FFS", "E"}, NH, .when = "i >= L"},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFS"}, NH, .when = "i >= L"},
    {NULL, {NULL}, 0}};
#undef NH

/* ---- falcon-h1: a mamba2 block and attention side by side in every layer ---- */

static const gguf__llama_key keys_falcon_h1[] = {RMS_EPS, MAMBA2_KEYS, {NULL, 0, 0, 0}};
static const gguf__llama_tensor tensors_falcon_h1[] = {
    EMBED_OUT,
    /* created at layer 0 only (duplicated for the others) */
    {"rope_freqs.weight", {"R/2"}, OPT},
    MAMBA2_LAYER_NORM(LAYER, OPT | LAYER, NULL),
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_output.bias", {"E"}, OPT | LAYER},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    /* llama.cpp asks for this norm without the ".weight" suffix */
    {"blk.%d.ffn_norm", {"E"}, LAYER},
    GATED_FFN,
    {"blk.%d.ffn_gate.bias", {"FF"}, OPT | LAYER},
    {"blk.%d.ffn_down.bias", {"E"}, OPT | LAYER},
    {"blk.%d.ffn_up.bias", {"FF"}, OPT | LAYER},
    {NULL, {NULL}, 0}};

/* ---- plamo2: mamba layers where a layer has no key/value heads, attention with normalized
 * queries and keys in the others; norms after both blocks ---- */

static const gguf__llama_key keys_plamo2[] = {
    RMS_EPS,
    MAMBA2_KEYS,
    /* read again whatever the heads (load_hparams reads them only with heads) */
    {"attention.key_length", U32, SCALAR, 0, .sym = "DKF", .dflt = "H > 0 ? E/H : 0"},
    {"attention.value_length", U32, SCALAR, 0, .sym = "DVF", .dflt = "H > 0 ? E/H : 0"},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_plamo2[] = {
    {"DTD", "E/16 > 64 ? E/16 : 64", "time_step_dim"},
    {NULL, NULL, NULL}};
/* several of its norms have no ".weight" suffix in llama.cpp's names */
#define PR(N, ...) {"blk.%d." N, {__VA_ARGS__}, LAYER, .when = "RECR_i"}
#define PA(N, ...) {"blk.%d." N, {__VA_ARGS__}, LAYER, .when = "!RECR_i"}
static const gguf__llama_tensor tensors_plamo2[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    PR("ssm_in.weight", "E", "2*DINNER"), PR("ssm_conv1d.weight", "DCONV", "DINNER"),
    PR("ssm_x.weight", "DINNER", "DTD + 2*DSTATE"),
    PR("ssm_dt.weight", "DTD", "DTR"), PR("ssm_dt.bias", "DTR"),
    PR("ssm_a", "DTR"), PR("ssm_d", "DTR"),
    PR("ssm_out.weight", "DINNER", "E"),
    PR("ssm_dt_norm", "DTD"), PR("ssm_b_norm", "DSTATE"), PR("ssm_c_norm", "DSTATE"),
    PA("attn_qkv.weight", "E", "DK*H_i + DK*HKV_i + DV*HKV_i"),
    PA("attn_q_norm.weight", "DK", "H_i"), PA("attn_k_norm.weight", "DK", "HKV_i"),
    PA("attn_output.weight", "DV*H_i", "E"),
    {"blk.%d.post_attention_norm", {"E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "2*FF"}, LAYER},
    {"blk.%d.post_ffw_norm", {"E"}, LAYER},
    {NULL, {NULL}, 0}};
#undef PR
#undef PA

/* ---- kimi-linear: delta-attention (KDA) layers where a layer has no key/value heads, latent
 * attention in the others; dense first layers, then experts ---- */

static const gguf__llama_key keys_kimi_linear[] = {
    RMS_EPS,
    {"attention.key_length_mla", U32, SCALAR, REQ, .sym = "DKM"},
    {"attention.value_length_mla", U32, SCALAR, REQ, .sym = "DVM"},
    {"attention.kv_lora_rank", U32, SCALAR, REQ, .sym = "LKV"},
    {"ssm.conv_kernel", U32, SCALAR, REQ, .sym = "DCONV"},
    {"kda.head_dim", U32, SCALAR, REQ, .sym = "KDA"},
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"expert_shared_count", U32, SCALAR, REQ, .sym = "XS"},
    {"leading_dense_block_count", U32, SCALAR, 0, .sym = "NDL", .dflt = "0"},
    {"expert_weights_scale", F32, SCALAR, 0},
    {"expert_gating_func", U32, SCALAR, REQ},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_kimi_linear[] = {
    /* the latent heads fall back to the plain ones unless both are set */
    {"DKL", "DKM && DVM ? DKM : DK", "key_length_mla"},
    {"DVL", "DKM && DVM ? DVM : DV", "value_length_mla"},
    {"KDAH", "KDA*H", "kda_projection_size"},
    {NULL, NULL, NULL}};
#define KR(N, ...) {"blk.%d." N, {__VA_ARGS__}, LAYER, .when = "RECR_i"}
#define KA "!RECR_i"
#define KQAN "blk.%d.attn_q_a_norm.weight"
#define KKVB "blk.%d.attn_kv_b.weight"
#define KX "i >= NDL"
static const gguf__llama_tensor tensors_kimi_linear[] = {
    EMBED_NORM_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    /* the convolutions' trailing dimension of 1 may be absent (the same shape to ggml) */
    KR("ssm_conv1d_q.weight", "DCONV", "1", "KDAH"),
    KR("ssm_conv1d_k.weight", "DCONV", "1", "KDAH"),
    KR("ssm_conv1d_v.weight", "DCONV", "1", "KDAH"),
    QKV_WHEN("KDAH", "KDAH", "KDAH", 0, "RECR_i"),
    KR("ssm_f_a.weight", "E", "KDA"), KR("ssm_f_b.weight", "KDA", "KDAH"),
    KR("ssm_beta.weight", "E", "H"),
    KR("ssm_a", "1", "H"),
    KR("ssm_dt.bias", "KDAH"),
    KR("ssm_g_a.weight", "E", "KDA"), KR("ssm_g_b.weight", "KDA", "KDAH"),
    KR("ssm_norm.weight", "KDA"),
    KR("attn_output.weight", "KDAH", "E"),
    /* latent attention: the queries' rank is never read, so it is 0 */
    {KQAN, {"0"}, OPT | LAYER, .when = KA},
    {"blk.%d.attn_kv_a_norm.weight", {"LKV"}, LAYER, .when = KA},
    {"blk.%d.attn_q_a.weight", {"E", "0"}, LAYER, .when = KA, .if_present = KQAN},
    {"blk.%d.attn_q_b.weight", {"0", "H*DKL"}, LAYER, .when = KA, .if_present = KQAN},
    {"blk.%d.attn_q.weight", {"E", "H*DKL"}, LAYER, .when = KA, .if_absent = KQAN},
    {"blk.%d.attn_kv_a_mqa.weight", {"E", "LKV + R"}, LAYER, .when = KA},
    {KKVB, {"LKV", "H*(DKL - R + DVL)"}, OPT | LAYER, .when = KA},
    {"blk.%d.attn_k_b.weight", {"DKL - R", "LKV", "H"}, LAYER, .when = KA, .if_absent = KKVB},
    {"blk.%d.attn_v_b.weight", {"LKV", "DVL", "H"}, LAYER, .when = KA, .if_absent = KKVB},
    {"blk.%d.attn_output.weight", {"H*DVL", "E"}, LAYER, .when = KA},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER, .when = KX},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, LAYER, .when = KX},
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, LAYER, .when = KX},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, LAYER, .when = KX},
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFE*(XS > 0 ? XS : 1)"}, OPT | LAYER, .when = KX},
    {"blk.%d.ffn_down_shexp.weight", {"FFE*(XS > 0 ? XS : 1)", "E"}, OPT | LAYER, .when = KX},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFE*(XS > 0 ? XS : 1)"}, OPT | LAYER, .when = KX},
    {"blk.%d.exp_probs_b.bias", {"X"}, LAYER, .when = KX},
    {NULL, {NULL}, 0}};
#undef KR
#undef KA
#undef KQAN
#undef KKVB
#undef KX

/* ---- minimax-01: lightning (linear) attention layers, softmax attention every
 * full_attention_interval-th layer; experts in every layer ---- */

static const gguf__llama_key keys_minimax_01[] = {
    RMS_EPS,
    {"residual_scale", F32, SCALAR, REQ},
    {"attention.recurrent_layers", U32, PER_LAYER, 0},
    {"full_attention_interval", U32, SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_tensor tensors_minimax_01[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV_WHEN("DK*H", "DK*HKV", "DV*HKV", 0, "!RECR_i"),
    {"blk.%d.attn_norm_2.weight", {"DK*H"}, LAYER, .when = "RECR_i"},
    {QKVW, {"E", "3*DK*H"}, LAYER, .when = "RECR_i"},
    {"blk.%d.attn_gate.weight", {"E", "DK*H"}, LAYER, .when = "RECR_i"},
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FF", "X"}, OPT | LAYER},
    {"blk.%d.ffn_down_exps.weight", {"FF", "E", "X"}, LAYER},
    {"blk.%d.ffn_up_exps.weight", {"E", "FF", "X"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- mamba: selective state-space layers of twice the embedding's width ---- */

static const gguf__llama_key keys_mamba[] = {
    {"ssm.conv_kernel", U32, SCALAR, REQ, .sym = "DCONV"},
    {"ssm.inner_size", U32, SCALAR, REQ, .sym = "DINNER"},
    {"ssm.state_size", U32, SCALAR, REQ, .sym = "DSTATE"},
    {"ssm.time_step_rank", U32, SCALAR, REQ, .sym = "DTR"},
    {"ssm.dt_b_c_rms", BOOL, SCALAR, 0},
    RMS_EPS,
    {NULL, 0, 0, 0}};
static const gguf__llama_rule rules_mamba[] = {
    {"2*E == DINNER", NULL, "ssm.inner_size", GGUF_LLAMA_ERROR,
     "llama.cpp refuses it unless it is twice embedding_length"},
    {NULL, NULL, NULL, 0, NULL}};
static const gguf__llama_tensor tensors_mamba[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ssm_in.weight", {"E", "2*DINNER"}, LAYER},
    {"blk.%d.ssm_conv1d.weight", {"DCONV", "DINNER"}, LAYER},
    {"blk.%d.ssm_conv1d.bias", {"DINNER"}, LAYER},
    {"blk.%d.ssm_x.weight", {"DINNER", "DTR + 2*DSTATE"}, LAYER},
    {"blk.%d.ssm_dt.weight", {"DTR", "DINNER"}, LAYER},
    {"blk.%d.ssm_dt.bias", {"DINNER"}, LAYER},
    {"blk.%d.ssm_a", {"DSTATE", "DINNER"}, LAYER},
    {"blk.%d.ssm_d", {"DINNER"}, LAYER},
    {"blk.%d.ssm_out.weight", {"DINNER", "E"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- jamba: mamba layers where a layer has no key/value heads, attention in the others; each
 * layer's feed-forward block is experts where it has a router ---- */

static const gguf__llama_key keys_jamba[] = {
    {"ssm.conv_kernel", U32, SCALAR, REQ, .sym = "DCONV"},
    {"ssm.inner_size", U32, SCALAR, REQ, .sym = "DINNER"},
    {"ssm.state_size", U32, SCALAR, REQ, .sym = "DSTATE"},
    {"ssm.time_step_rank", U32, SCALAR, REQ, .sym = "DTR"},
    RMS_EPS,
    {NULL, 0, 0, 0}};
static const gguf__llama_rule rules_jamba[] = {
    {"2*E == DINNER", NULL, "ssm.inner_size", GGUF_LLAMA_ERROR,
     "llama.cpp aborts unless it is twice embedding_length"},
    {NULL, NULL, NULL, 0, NULL}};
#define JR(N, ...) {"blk.%d." N, {__VA_ARGS__}, LAYER, .when = "RECR_i"}
#define JFI "blk.%d.ffn_gate_inp.weight"
static const gguf__llama_tensor tensors_jamba[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    JR("ssm_in.weight", "E", "2*DINNER"),
    JR("ssm_conv1d.weight", "DCONV", "DINNER"), JR("ssm_conv1d.bias", "DINNER"),
    JR("ssm_x.weight", "DINNER", "DTR + 2*DSTATE"),
    JR("ssm_dt_norm.weight", "DTR"),
    JR("ssm_dt.weight", "DTR", "DINNER"), JR("ssm_dt.bias", "DINNER"),
    JR("ssm_b_norm.weight", "DSTATE"), JR("ssm_c_norm.weight", "DSTATE"),
    JR("ssm_a", "DSTATE", "DINNER"), JR("ssm_d", "DINNER"),
    JR("ssm_out.weight", "DINNER", "E"),
    QKV_WHEN("E", "DV*HKV_i", "DV*HKV_i", 0, "!RECR_i"),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER, .when = "!RECR_i"},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {JFI, {"E", "X"}, OPT | LAYER},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FF", "X"}, LAYER, .if_present = JFI},
    {"blk.%d.ffn_down_exps.weight", {"FF", "E", "X"}, LAYER, .if_present = JFI},
    {"blk.%d.ffn_up_exps.weight", {"E", "FF", "X"}, LAYER, .if_present = JFI},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER, .if_absent = JFI},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER, .if_absent = JFI},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER, .if_absent = JFI},
    {NULL, {NULL}, 0}};
#undef JR
#undef JFI

/* ---- hunyuan-dense and hunyuan_vl (one loader): queries and keys normalized ---- */

static const gguf__llama_tensor tensors_hunyuan_vl[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    GATED_FFN,
    {NULL, {NULL}, 0}};

/* ---- t5 (an encoder and a decoder), t5encoder (the encoder alone) ---- */

static const gguf__llama_key keys_t5[] = {
    RMS_EPS,
    {"attention.relative_buckets_count", U32, SCALAR, REQ, .sym = "NRB"},
    {"decoder_start_token_id", U32, SCALAR, 0},
    {"decoder_block_count", U32, SCALAR, 0, .sym = "DNL", .dflt = "L"},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_t5encoder[] = {
    RMS_EPS,
    {"attention.relative_buckets_count", U32, SCALAR, REQ, .sym = "NRB"},
    {NULL, 0, 0, 0}};
#define T5_ENCODER                                                                               \
    {"token_embd.weight", {"E", "V"}, 0},                                                      \
    {"enc.output_norm.weight", {"E"}, 0},                                                      \
    {"output.weight", {"E", "V"}, OPT},                                                        \
    {"enc.blk.%d.attn_norm.weight", {"E"}, LAYER},                                             \
    {"enc.blk.%d.attn_rel_b.weight", {"H", "NRB"}, OPT | LAYER},                               \
    {"enc.blk.%d.attn_q.weight", {"E", "DK*HKV"}, LAYER},                                      \
    {"enc.blk.%d.attn_k.weight", {"E", "DK*HKV"}, LAYER},                                      \
    {"enc.blk.%d.attn_v.weight", {"E", "DV*HKV"}, LAYER},                                      \
    {"enc.blk.%d.attn_o.weight", {"DV*HKV", "E"}, LAYER},                                      \
    {"enc.blk.%d.ffn_norm.weight", {"E"}, LAYER},                                              \
    {"enc.blk.%d.ffn_gate.weight", {"E", "FF"}, OPT | LAYER},                                  \
    {"enc.blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},                                        \
    {"enc.blk.%d.ffn_up.weight", {"E", "FF"}, LAYER}
static const gguf__llama_tensor tensors_t5encoder[] = {T5_ENCODER, {NULL, {NULL}, 0}};
/* The decoder's layers are judged over block_count: with more decoder than encoder layers the
 * condition is undefined (1/0), so the tensors beyond are not judged rather than misjudged. */
#define T5D "DNL <= L ? i < DNL : 1/0"
static const gguf__llama_tensor tensors_t5[] = {
    T5_ENCODER,
    {"dec.output_norm.weight", {"E"}, 0},
    {"dec.blk.%d.attn_norm.weight", {"E"}, LAYER, .when = T5D},
    {"dec.blk.%d.attn_rel_b.weight", {"H", "NRB"}, OPT | LAYER, .when = T5D},
    {"dec.blk.%d.attn_q.weight", {"E", "DK*HKV"}, LAYER, .when = T5D},
    {"dec.blk.%d.attn_k.weight", {"E", "DK*HKV"}, LAYER, .when = T5D},
    {"dec.blk.%d.attn_v.weight", {"E", "DV*HKV"}, LAYER, .when = T5D},
    {"dec.blk.%d.attn_o.weight", {"DV*HKV", "E"}, LAYER, .when = T5D},
    {"dec.blk.%d.cross_attn_norm.weight", {"E"}, LAYER, .when = T5D},
    {"dec.blk.%d.cross_attn_rel_b.weight", {"H", "NRB"}, OPT | LAYER, .when = T5D},
    {"dec.blk.%d.cross_attn_q.weight", {"E", "DK*HKV"}, LAYER, .when = T5D},
    {"dec.blk.%d.cross_attn_k.weight", {"E", "DK*HKV"}, LAYER, .when = T5D},
    {"dec.blk.%d.cross_attn_v.weight", {"E", "DV*HKV"}, LAYER, .when = T5D},
    {"dec.blk.%d.cross_attn_o.weight", {"DV*HKV", "E"}, LAYER, .when = T5D},
    {"dec.blk.%d.ffn_norm.weight", {"E"}, LAYER, .when = T5D},
    {"dec.blk.%d.ffn_gate.weight", {"E", "FF"}, OPT | LAYER, .when = T5D},
    {"dec.blk.%d.ffn_down.weight", {"FF", "E"}, LAYER, .when = T5D},
    {"dec.blk.%d.ffn_up.weight", {"E", "FF"}, LAYER, .when = T5D},
    {NULL, {NULL}, 0}};
#undef T5D

/* ---- gemma-embedding: gemma3's layers without a causal mask, optional dense projections ---- */

static const gguf__llama_key keys_gemma_embedding[] = {
    {"attention.sliding_window_pattern", U32, GGUF__LK_SCALAR_OR_IGNORED, 0, .sym = "PAT",
     .dflt = "6"},
    {"rope.freq_base_swa", F32, SCALAR, 0},
    {"attention.sliding_window", U32, SCALAR, REQ},
    RMS_EPS,
    {"dense_2_feat_in", U32, SCALAR, 0, .sym = "D2I", .dflt = "0"},
    {"dense_2_feat_out", U32, SCALAR, 0, .sym = "D2O", .dflt = "0"},
    {"dense_3_feat_in", U32, SCALAR, 0, .sym = "D3I", .dflt = "0"},
    {"dense_3_feat_out", U32, SCALAR, 0, .sym = "D3O", .dflt = "0"},
    {NULL, 0, 0, 0}};
#define syms_gemma_embedding syms_gemma2
static const gguf__llama_rule rules_gemma_embedding[] = {
    {"D2I == 0 || D2I == E", NULL, "dense_2_feat_in", GGUF_LLAMA_ERROR,
     "llama.cpp aborts unless it is 0 or embedding_length"},
    {"D3O == 0 || D3O == E", NULL, "dense_3_feat_out", GGUF_LLAMA_ERROR,
     "llama.cpp aborts unless it is 0 or embedding_length"},
    {NULL, NULL, NULL, 0, NULL}};
static const gguf__llama_tensor tensors_gemma_embedding[] = {
    EMBED_OUT,
    {"dense_2.weight", {"E", "D2O"}, OPT},
    {"dense_3.weight", {"D3I", "E"}, OPT},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.post_attention_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {"blk.%d.post_ffw_norm.weight", {"E"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- llada-moe, rnd1: experts in every layer (sized by FF/XU unless given), queries and keys
 * normalized; bailingmoe: heads of the rope dimension, shared experts ---- */

static const gguf__llama_sym syms_expert_ff[] = {
    {"FFX", "FFE ? FFE : FF/XU", "expert_ffn_length"},
    {NULL, NULL, NULL}};
static const gguf__llama_rule rules_experts_used[] = {
    {"X > 0", NULL, "expert_count", GGUF_LLAMA_ERROR,
     "llama.cpp refuses this architecture without experts"},
    {"XU > 0", NULL, "expert_used_count", GGUF_LLAMA_ERROR,
     "llama.cpp refuses this architecture with no expert used"},
    {NULL, NULL, NULL, 0, NULL}};
#define NORMED_EXPERT_LAYERS(Q)                                                                  \
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},                                                 \
    QKV(Q, "DV*HKV", "DV*HKV", 0),                                                             \
    {"blk.%d.attn_output.weight", {Q, "E"}, LAYER},                                            \
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},                                              \
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},                                              \
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},                                                  \
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER},                                         \
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFX", "X"}, LAYER},                                 \
    {"blk.%d.ffn_down_exps.weight", {"FFX", "E", "X"}, LAYER},                                 \
    {"blk.%d.ffn_up_exps.weight", {"E", "FFX", "X"}, LAYER}
static const gguf__llama_tensor tensors_llada_moe[] = {
    EMBED_NORM_OUT,
    NORMED_EXPERT_LAYERS("E"),
    {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_rnd1[] = {EMBED_OUT, NORMED_EXPERT_LAYERS("DK*H"),
                                                  {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_bailingmoe[] = {
    EMBED_NORM_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("H*R", "HKV*R", "HKV*R", 0),
    {"blk.%d.attn_output.weight", {"H*R", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    EXPERT_FFN("FFE"),
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFE*XS"}, LAYER},
    {"blk.%d.ffn_down_shexp.weight", {"FFE*XS", "E"}, LAYER},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFE*XS"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- eurobert, neo-bert: encoders; smallthinker: experts in every layer ---- */

static const gguf__llama_tensor tensors_eurobert[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    {"output_norm.weight", {"E"}, 0},
    DENSE_LAYERS("E"),
    {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_neo_bert[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    {"cls.weight", {"E", "E"}, OPT},
    {"cls.bias", {"E"}, OPT},
    {"cls.output.weight", {"E", "CLS"}, OPT},
    {"cls.output.bias", {"CLS"}, OPT},
    {"enc.output_norm.weight", {"E"}, 0},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_qkv.weight", {"E", "E+2*DV*HKV"}, LAYER},
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF*2"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_smallthinker[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    EXPERT_FFN("FFE"),
    {NULL, {NULL}, 0}};

/* ---- lfm2: short-convolution layers where a layer has no key/value heads, attention in the
 * others (head_count_kv given per layer), dense feed-forward in both ---- */

static const gguf__llama_key keys_lfm2[] = {
    {"shortconv.l_cache", U32, SCALAR, REQ, .sym = "LCACHE"},
    RMS_EPS,
    {"attention.sliding_window", U32, SCALAR, 0},
    {"embedding_length_out", U32, SCALAR, 0, .sym = "EOUTK", .dflt = "0"},
    {NULL, 0, 0, 0}};
/* lfm2's layers are all dense (and it reads no expert width); lfm2moe's after
 * leading_dense_block_count have experts */
static const gguf__llama_sym syms_lfm2[] = {
    {"EOUT", "EOUTK > 0 ? EOUTK : E", "embedding_length_out"},
    {"NDL", "L", NULL},
    {"FFE", "0", NULL},
    {NULL, NULL, NULL}};
static const gguf__llama_rule rules_lfm2[] = {
    {"DK*HKV == DV*HKV", NULL, "attention.value_length", GGUF_LLAMA_ERROR,
     "llama.cpp aborts unless layer 0's keys and values have the same width"},
    {NULL, NULL, NULL, 0, NULL}};
static const gguf__llama_key keys_lfm2moe[] = {
    {"shortconv.l_cache", U32, SCALAR, REQ, .sym = "LCACHE"},
    RMS_EPS,
    {"leading_dense_block_count", U32, SCALAR, 0, .sym = "NDL", .dflt = "0"},
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"expert_gating_func", U32, SCALAR, REQ},
    {"embedding_length_out", U32, SCALAR, 0, .sym = "EOUTK", .dflt = "0"},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_lfm2moe[] = {
    {"EOUT", "EOUTK > 0 ? EOUTK : E", "embedding_length_out"},
    {NULL, NULL, NULL}};
static const gguf__llama_rule rules_lfm2moe[] = {
    {"DK*HKV == DV*HKV", NULL, "attention.value_length", GGUF_LLAMA_ERROR,
     "llama.cpp aborts unless layer 0's keys and values have the same width"},
    {"X > 0 && XU > 0", "NDL < L", "expert_count", GGUF_LLAMA_ERROR,
     "llama.cpp aborts on expert layers (after leading_dense_block_count) without experts or "
     "with no expert used"},
    {NULL, NULL, NULL, 0, NULL}};
static const gguf__llama_tensor tensors_lfm2[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    {"token_embd_norm.weight", {"E"}, 0},
    {"output.weight", {"E", "V"}, OPT},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.exp_probs_b.bias", {"X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER, .when = "!RECR_i"},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER, .when = "!RECR_i"},
    QKV_WHEN("E", "DK*HKV_i", "DV*HKV_i", 0, "!RECR_i"),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER, .when = "!RECR_i"},
    {"blk.%d.shortconv.conv.weight", {"LCACHE", "E"}, LAYER, .when = "RECR_i"},
    {"blk.%d.shortconv.in_proj.weight", {"E", "3*E"}, LAYER, .when = "RECR_i"},
    {"blk.%d.shortconv.out_proj.weight", {"E", "E"}, LAYER, .when = "RECR_i"},
    {"dense_2.weight", {"E", "EOUT"}, OPT},
    {"dense_2.bias", {"EOUT"}, OPT},
    {NULL, {NULL}, 0}};

/* ---- talkie: no norms but the queries' gain, a scale on each layer's output ---- */

static const gguf__llama_key keys_talkie[] = {
    RMS_EPS,
    {"logit_scale", F32, SCALAR, REQ},
    {NULL, 0, 0, 0}};
static const gguf__llama_tensor tensors_talkie[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    {"output.weight", {"E", "V"}, 0},
    QKV("DK*H", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"1", "H"}, LAYER},
    GATED_FFN,
    {"blk.%d.layer_output_scale.weight", {"1"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- chameleon: queries and keys normalized per head ---- */

static const gguf__llama_key keys_chameleon[] = {
    RMS_EPS,
    {"swin_norm", BOOL, SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_tensor tensors_chameleon[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK", "H"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK", "HKV"}, LAYER},
    {"blk.%d.attn_q_norm.bias", {"DK", "H"}, OPT | LAYER},
    {"blk.%d.attn_k_norm.bias", {"DK", "HKV"}, OPT | LAYER},
    QKV("E", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    GATED_FFN,
    {NULL, {NULL}, 0}};

/* ---- dots1: dense first layers, then experts with shared ones, queries and keys
 * normalized ---- */

static const gguf__llama_tensor tensors_dots1[] = {
    EMBED_NORM_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DK*H", "DK*H", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.exp_probs_b.bias", {"X"}, OPT | LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFE*XS"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_down_shexp.weight", {"FFE*XS", "E"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFE*XS"}, LAYER, .when = "i >= NDL"},
    {NULL, {NULL}, 0}};

/* ---- minicpm3 and plm: latent attention for keys and values (plm's queries direct) ---- */

static const gguf__llama_key keys_minicpm3[] = {
    RMS_EPS,
    {"attention.q_lora_rank", U32, SCALAR, REQ, .sym = "QLR"},
    {"attention.kv_lora_rank", U32, SCALAR, REQ, .sym = "KVLR"},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_plm[] = {
    RMS_EPS,
    {"attention.kv_lora_rank", U32, SCALAR, REQ, .sym = "KVLR"},
    {NULL, 0, 0, 0}};
/* keys and values from a rank-KVLR latent (with the rope part beside it), the output */
#define LATENT_KV                                                                                \
    {"blk.%d.attn_kv_a_mqa.weight", {"E", "KVLR+R"}, LAYER},                                   \
    {"blk.%d.attn_kv_a_norm.weight", {"KVLR"}, LAYER},                                         \
    {"blk.%d.attn_kv_b.weight", {"KVLR", "H*(DK-R+DV)"}, LAYER},                               \
    {"blk.%d.attn_output.weight", {"H*DV", "E"}, LAYER}
static const gguf__llama_tensor tensors_minicpm3[] = {
    EMBED_OUT,
    /* created at layer 0 only (duplicated for the others) */
    {"rope_factors_long.weight", {"R/2"}, OPT},
    {"rope_factors_short.weight", {"R/2"}, OPT},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_q_a_norm.weight", {"QLR"}, LAYER},
    {"blk.%d.attn_q_a.weight", {"E", "QLR"}, LAYER},
    {"blk.%d.attn_q_b.weight", {"QLR", "H*DK"}, LAYER},
    LATENT_KV,
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    GATED_FFN,
    {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_plm[] = {
    /* the output is always token_embd */
    {"token_embd.weight", {"E", "V"}, 0},
    {"output_norm.weight", {"E"}, 0},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_q.weight", {"E", "DK*H"}, LAYER},
    LATENT_KV,
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- qwen3vlmoe: qwen3moe's loader (as rnd1's) with multi-section rope ---- */

static const gguf__llama_key keys_qwen3vlmoe[] = {
    {"n_deepstack_layers", U32, SCALAR, 0},
    {"rope.dimension_sections", I32, PER_LAYER, ANY_LENGTH | REQ},
    {"expert_feed_forward_length", U32, PER_LAYER, 0, .sym = "FFE", .dflt = "0"},
    RMS_EPS,
    {NULL, 0, 0, 0}};

/* ---- bailingmoe2 and exaone-moe: dense first layers, then experts with shared ones, and
 * next-token prediction layers at the end ---- */

/* the experts and their routing bias, of expert_feed_forward_length, in the layers W */
#define ROUTED_EXPERTS(W)                                                                        \
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, ALL_LAYERS, .when = W},                         \
    {"blk.%d.exp_probs_b.bias", {"X"}, OPT | ALL_LAYERS, .when = W},                           \
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, ALL_LAYERS, .when = W},                 \
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, ALL_LAYERS, .when = W},                 \
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, ALL_LAYERS, .when = W}
/* shared experts of width S in the layers W */
#define SHARED_EXPERTS(S, W)                                                                     \
    {"blk.%d.ffn_gate_shexp.weight", {"E", S}, ALL_LAYERS, .when = W},                         \
    {"blk.%d.ffn_down_shexp.weight", {S, "E"}, ALL_LAYERS, .when = W},                         \
    {"blk.%d.ffn_up_shexp.weight", {"E", S}, ALL_LAYERS, .when = W}
#define DENSE_FFN_ALL(W)                                                                         \
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, ALL_LAYERS, .when = W},                            \
    {"blk.%d.ffn_down.weight", {"FF", "E"}, ALL_LAYERS, .when = W},                            \
    {"blk.%d.ffn_up.weight", {"E", "FF"}, ALL_LAYERS, .when = W}
/* a next-token prediction layer's own tensors */
#define NEXTN_LAYER                                                                              \
    {"blk.%d.nextn.eh_proj.weight", {"2*E", "E"}, ALL_LAYERS, .when = "i >= L"},               \
    {"blk.%d.nextn.enorm.weight", {"E"}, ALL_LAYERS, .when = "i >= L"},                        \
    {"blk.%d.nextn.hnorm.weight", {"E"}, ALL_LAYERS, .when = "i >= L"},                        \
    {"blk.%d.nextn.embed_tokens.weight", {"E", "V"}, OPT | ALL_LAYERS, .when = "i >= L"},      \
    {"blk.%d.nextn.shared_head_head.weight", {"E", "V"}, OPT | ALL_LAYERS, .when = "i >= L"},  \
    {"blk.%d.nextn.shared_head_norm.weight", {"E"}, OPT | ALL_LAYERS, .when = "i >= L"}
static const gguf__llama_key keys_bailingmoe2[] = {
    RMS_EPS,
    {"leading_dense_block_count", U32, SCALAR, 0, .sym = "NDL", .dflt = "0"},
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"expert_shared_feed_forward_length", U32, SCALAR, 0, .sym = "FFS", .dflt = "0"},
    {"expert_shared_count", U32, SCALAR, REQ, .sym = "XS"},
    {"expert_weights_scale", F32, SCALAR, 0},
    {"expert_weights_norm", BOOL, SCALAR, 0},
    {"expert_gating_func", U32, SCALAR, REQ},
    {NULL, 0, 0, 0}};
static const gguf__llama_tensor tensors_bailingmoe2[] = {
    EMBED_NORM_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, ALL_LAYERS},
    {"blk.%d.attn_qkv.weight", {"E", "E+2*DV*HKV"}, ALL_LAYERS},
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, ALL_LAYERS},
    {"blk.%d.attn_q_norm.weight", {"DK"}, ALL_LAYERS},
    {"blk.%d.attn_k_norm.weight", {"DK"}, ALL_LAYERS},
    {"blk.%d.ffn_norm.weight", {"E"}, ALL_LAYERS},
    ROUTED_EXPERTS("i >= NDL"),
    SHARED_EXPERTS("(FFS ? FFS : FFE)*XS", "i >= NDL"),
    DENSE_FFN_ALL("i < NDL"),
    NEXTN_LAYER,
    {"blk.%d.layer_output_norm.weight", {"E"}, ALL_LAYERS, .when = "i >= L"},
    {NULL, {NULL}, 0}};

/* exaone-moe: sliding-window layers but every fourth unless the pattern says otherwise */
static const gguf__llama_key keys_exaone_moe[] = {
    {"attention.sliding_window_pattern", U32, GGUF__LK_SCALAR_OR_IGNORED, 0, .sym = "PAT",
     .dflt = "4"},
    {"rope.freq_base_swa", F32, SCALAR, 0},
    {"attention.sliding_window", U32, SCALAR, REQ},
    RMS_EPS,
    {"expert_shared_count", U32, SCALAR, 0},
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"expert_shared_feed_forward_length", U32, SCALAR, 0, .sym = "FFS", .dflt = "0"},
    {"expert_gating_func", U32, SCALAR, REQ},
    {"expert_weights_scale", F32, SCALAR, 0},
    {"expert_weights_norm", BOOL, SCALAR, 0},
    {"leading_dense_block_count", U32, SCALAR, 0, .sym = "NDL", .dflt = "0"},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_exaone_moe[] = {{"SWA0", "PAT != 1", NULL}, {NULL, NULL, NULL}};
#define EXPERT_LAYERS "i >= NDL && i < L"
static const gguf__llama_tensor tensors_exaone_moe[] = {
    EMBED_NORM_OUT,
    /* created at layer 0 only (duplicated for the others) */
    {"rope_freqs.weight", {"R/2"}, OPT},
    QKV_WHEN("DK*H", "DK*HKV", "DK*HKV", 0, "i < L"),
    /* a skipped layer's attention weights may all be absent, fused or not */
    {QKVW, {"E", "DK*H+2*DK*HKV"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.attn_qkv.bias", {"DK*H+2*DK*HKV"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.attn_q.weight", {"E", "DK*H"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.attn_k.weight", {"E", "DK*HKV"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.attn_v.weight", {"E", "DK*HKV"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.attn_q.bias", {"DK*H"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.attn_k.bias", {"DK*HKV"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.attn_v.bias", {"DK*HKV"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, ALL_LAYERS},
    {"blk.%d.attn_norm.weight", {"E"}, ALL_LAYERS},
    {"blk.%d.attn_q_norm.weight", {"DK"}, ALL_LAYERS},
    {"blk.%d.attn_k_norm.weight", {"DK"}, ALL_LAYERS},
    {"blk.%d.ffn_norm.weight", {"E"}, ALL_LAYERS},
    DENSE_FFN_ALL("!(" EXPERT_LAYERS ")"),
    ROUTED_EXPERTS(EXPERT_LAYERS),
    SHARED_EXPERTS("FFS > 0 ? FFS : FFE", EXPERT_LAYERS),
    NEXTN_LAYER,
    {NULL, {NULL}, 0}};
#undef EXPERT_LAYERS

/* ---- grovemoe: experts in every layer and, beside them, one chunk expert per group ---- */

static const gguf__llama_key keys_grovemoe[] = {
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"expert_chunk_feed_forward_length", U32, SCALAR, 0, .sym = "FFCHK", .dflt = "0"},
    {"expert_group_scale", F32, SCALAR, REQ},
    {"experts_per_group", U32, SCALAR, REQ, .sym = "GE"},
    RMS_EPS,
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_grovemoe[] = {
    {"FFX", "FFE ? FFE : FF/XU", "expert_ffn_length"},
    {"FFCH", "FFCHK ? FFCHK : DK", "chunk_expert_ffn_length"},
    {NULL, NULL, NULL}};
static const gguf__llama_rule rules_grovemoe[] = {
    {"X > 0", NULL, "expert_count", GGUF_LLAMA_ERROR,
     "llama.cpp aborts on grovemoe without experts"},
    {"XU > 0", NULL, "expert_used_count", GGUF_LLAMA_ERROR,
     "llama.cpp aborts on grovemoe with no expert used"},
    {"GE > 0", NULL, "experts_per_group", GGUF_LLAMA_ERROR,
     "llama.cpp aborts on grovemoe with no experts per group"},
    {NULL, NULL, NULL, 0, NULL}};
static const gguf__llama_tensor tensors_grovemoe[] = {
    EMBED_OUT,
    NORMED_EXPERT_LAYERS("DK*H"),
    {"blk.%d.ffn_gate_chexps.weight", {"E", "FFCH", "X/GE"}, LAYER},
    {"blk.%d.ffn_down_chexps.weight", {"FFCH", "E", "X/GE"}, LAYER},
    {"blk.%d.ffn_up_chexps.weight", {"E", "FFCH", "X/GE"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- deci: each layer of its own widths: attention, a linear layer in its place (heads but
 * no key/value heads) or nothing, and a feed-forward block or nothing ---- */

static const gguf__llama_tensor tensors_deci[] = {
    EMBED_OUT,
    /* created at layer 0 only (duplicated for the others) */
    {"rope_freqs.weight", {"R/2"}, OPT, .when = "!LONGROPE"},
    {"rope_factors_long.weight", {"R/2"}, OPT, .when = "LONGROPE"},
    {"rope_factors_short.weight", {"R/2"}, OPT, .when = "LONGROPE"},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER, .when = "H_i > 0 || HKV_i > 0"},
    QKV_WHEN("DK*H_i", "DK*HKV_i", "DV*HKV_i", 0, "HKV_i > 0"),
    {"blk.%d.attn_output.weight", {"HKV_i > 0 ? DK*H_i : E", "E"}, LAYER,
     .when = "H_i > 0 || HKV_i > 0"},
    {"blk.%d.attn_output.bias", {"E"}, OPT | LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER, .when = "FF_i > 0"},
    {"blk.%d.ffn_gate.weight", {"E", "FF_i"}, LAYER, .when = "FF_i > 0"},
    {"blk.%d.ffn_down.weight", {"FF_i", "E"}, LAYER, .when = "FF_i > 0"},
    {"blk.%d.ffn_up.weight", {"E", "FF_i"}, LAYER, .when = "FF_i > 0"},
    {"blk.%d.ffn_gate.bias", {"FF_i"}, OPT | LAYER},
    {"blk.%d.ffn_down.bias", {"E"}, OPT | LAYER},
    {"blk.%d.ffn_up.bias", {"FF_i"}, OPT | LAYER},
    {NULL, {NULL}, 0}};

/* ---- llama4: experts every interleave_moe_layer_step-th layer, beside a shared one; chunked
 * attention in all but every fourth layer unless the pattern says otherwise ---- */

static const gguf__llama_key keys_llama4[] = {
    RMS_EPS,
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"interleave_moe_layer_step", U32, SCALAR, REQ, .sym = "NMS"},
    {"attention.sliding_window", U32, SCALAR, 0, .sym = "SWIN"},
    {"attention.sliding_window_pattern", U32, GGUF__LK_SCALAR_OR_IGNORED, 0, .sym = "PAT",
     .dflt = "4"},
    {"rope.freq_base_swa", F32, SCALAR, 0},
    {NULL, 0, 0, 0}};
/* a sliding_window of 0 turns the chunked attention off */
static const gguf__llama_sym syms_llama4[] = {
    {"SWA0", "!(defined(SWIN) && SWIN == 0) && PAT != 1", NULL},
    {NULL, NULL, NULL}};
static const gguf__llama_rule rules_llama4[] = {
    {"X > 0", NULL, "expert_count", GGUF_LLAMA_ERROR, "llama.cpp refuses llama4 without experts"},
    {NULL, NULL, NULL, 0, NULL}};
#define MOE_LAYER "NMS > 0 && (i + 1) % NMS == 0"
static const gguf__llama_tensor tensors_llama4[] = {
    EMBED_OUT,
    /* created at layer 0 only (duplicated for the others) */
    {"rope_freqs.weight", {"R/2"}, OPT},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER, .when = MOE_LAYER},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, LAYER, .when = MOE_LAYER},
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, LAYER, .when = MOE_LAYER},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, LAYER, .when = MOE_LAYER},
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFE"}, LAYER, .when = MOE_LAYER},
    {"blk.%d.ffn_down_shexp.weight", {"FFE", "E"}, LAYER, .when = MOE_LAYER},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFE"}, LAYER, .when = MOE_LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER, .when = "!(" MOE_LAYER ")"},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER, .when = "!(" MOE_LAYER ")"},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER, .when = "!(" MOE_LAYER ")"},
    {NULL, {NULL}, 0}};
#undef MOE_LAYER

/* ---- afmoe: gated attention, norms after attention and feed-forward, dense first layers,
 * then experts with a routing bias and shared ones; sliding-window layers with
 * attention.sliding_window > 0 ---- */

static const gguf__llama_key keys_afmoe[] = {
    RMS_EPS,
    {"leading_dense_block_count", U32, SCALAR, 0, .sym = "NDL", .dflt = "0"},
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"expert_shared_count", U32, SCALAR, REQ, .sym = "XS"},
    {"expert_gating_func", U32, SCALAR, 0},
    {"expert_weights_scale", F32, SCALAR, 0},
    {"expert_weights_norm", BOOL, SCALAR, 0},
    {"attention.sliding_window", U32, SCALAR, 0, .sym = "SWIN", .dflt = "0"},
    {"attention.sliding_window_pattern", U32, GGUF__LK_SCALAR_OR_IGNORED, 0, .sym = "PAT",
     .dflt = "4", .when = "SWIN > 0"},
    {"rope.freq_base_swa", F32, SCALAR, 0, .when = "SWIN > 0"},
    {NULL, 0, 0, 0}};
#define syms_afmoe syms_gemma3
static const gguf__llama_tensor tensors_afmoe[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.post_attention_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_gate.weight", {"E", "DK*H"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.post_ffw_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.exp_probs_b.bias", {"X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFE*XS"}, LAYER, .when = "i >= NDL && XS > 0"},
    {"blk.%d.ffn_down_shexp.weight", {"FFE*XS", "E"}, LAYER, .when = "i >= NDL && XS > 0"},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFE*XS"}, LAYER, .when = "i >= NDL && XS > 0"},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {NULL, {NULL}, 0}};

/* ---- modern-bert: layer 0's attention norm optional (an identity), the gate fused into ffn_up,
 * sliding-window layers after the first of each period ---- */

static const gguf__llama_key keys_modern_bert[] = {
    {"attention.sliding_window", U32, SCALAR, 0, .sym = "SWIN", .dflt = "0"},
    {"rope.freq_base_swa", F32, SCALAR, 0, .when = "SWIN > 0"},
    {"attention.sliding_window_pattern", U32, GGUF__LK_SCALAR_OR_IGNORED, 0, .when = "SWIN > 0"},
    {"attention.layer_norm_epsilon", F32, SCALAR, REQ},
    {"hidden_activation", STR, SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_tensor tensors_modern_bert[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    {"token_embd_norm.weight", {"E"}, 0},
    {"output_norm.weight", {"E"}, 0},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER, .when = "i != 0"},
    {"blk.%d.attn_norm.weight", {"E"}, OPT | LAYER, .when = "i == 0"},
    {"blk.%d.attn_qkv.weight", {"E", "3*E"}, LAYER},
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "2*FF"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"cls.output.weight", {"E", "CLS"}, OPT},
    {"cls.output.bias", {"CLS"}, OPT},
    {"cls.weight", {"E", "E"}, OPT},
    {"cls.norm.weight", {"E"}, OPT},
    {NULL, {NULL}, 0}};

/* ---- granite_swa: granite's layers with attention sinks, sliding-window layers given per layer;
 * the experts' gate and up may be fused, the shared expert's are ---- */

static const gguf__llama_key keys_granite_swa[] = {
    RMS_EPS,
    {"logit_scale", F32, SCALAR, REQ},
    {"residual_scale", F32, SCALAR, 0},
    {"embedding_scale", F32, SCALAR, 0},
    {"attention.scale", F32, SCALAR, 0},
    /* one flag per layer: 1 for a sliding-window layer */
    {"attention.sliding_window_pattern", U32, GGUF__LK_ARRAY, REQ},
    {"attention.sliding_window", U32, SCALAR, REQ},
    {"deepstack_mapping", I32, GGUF__LK_ARRAY, 0},
    {"attention.rope_pattern", U32, GGUF__LK_ARRAY, 0},
    {"expert_shared_feed_forward_length", U32, SCALAR, 0, .sym = "FFS", .dflt = "0"},
    {NULL, 0, 0, 0}};
static const gguf__llama_tensor tensors_granite_swa[] = {
    EMBED_OUT,
    {"rope_freqs.weight", {"R/2"}, OPT, .when = "!LONGROPE"},
    {"rope_factors_long.weight", {"R/2"}, OPT, .when = "LONGROPE"},
    {"rope_factors_short.weight", {"R/2"}, OPT, .when = "LONGROPE"},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_output.bias", {"E"}, OPT | LAYER},
    {"blk.%d.attn_sinks.weight", {"H"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER, .when = "X == 0"},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER, .when = "X == 0"},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER, .when = "X == 0"},
    {"blk.%d.ffn_gate.bias", {"FF"}, OPT | LAYER, .when = "X == 0"},
    {"blk.%d.ffn_down.bias", {"E"}, OPT | LAYER, .when = "X == 0"},
    {"blk.%d.ffn_up.bias", {"FF"}, OPT | LAYER, .when = "X == 0"},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER, .when = "X > 0"},
    {"blk.%d.ffn_down_exps.weight", {"FF", "E", "X"}, LAYER, .when = "X > 0"},
    {"blk.%d.ffn_gate_up_exps.weight", {"E", "FF*2", "X"}, OPT | LAYER, .when = "X > 0"},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FF", "X"}, LAYER, .when = "X > 0",
     .if_absent = "blk.%d.ffn_gate_up_exps.weight"},
    {"blk.%d.ffn_up_exps.weight", {"E", "FF", "X"}, LAYER, .when = "X > 0",
     .if_absent = "blk.%d.ffn_gate_up_exps.weight"},
    {"blk.%d.ffn_up_shexp.weight", {"E", "2*FFS"}, LAYER, .when = "X > 0 && FFS > 0"},
    {"blk.%d.ffn_down_shexp.weight", {"FFS", "E"}, LAYER, .when = "X > 0 && FFS > 0"},
    {NULL, {NULL}, 0}};

/* ---- nanbeige: the layers run num_loops times over, sharing their weights ---- */

static const gguf__llama_key keys_nanbeige[] = {
    RMS_EPS,
    {"num_loops", U32, SCALAR, 0, .sym = "LOOPS", .dflt = "1"},
    {"skip_loop_final_norm", BOOL, SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_rule rules_nanbeige[] = {
    {"LOOPS >= 1", NULL, "num_loops", GGUF_LLAMA_ERROR, "llama.cpp aborts on 0 loops"},
    {"L * LOOPS <= 512", NULL, "num_loops", GGUF_LLAMA_ERROR,
     "llama.cpp aborts: the layers times the loops exceed 512"},
    {NULL, NULL, NULL, 0, NULL}};
static const gguf__llama_tensor tensors_nanbeige[] = {
    EMBED_OUT,
    {"rope_freqs.weight", {"R/2"}, OPT},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    GATED_FFN,
    {NULL, {NULL}, 0}};

/* ---- mellum: experts in every layer (sized by FF/XU unless given), queries and keys normalized,
 * sliding-window layers by a period or one flag per layer ---- */

static const gguf__llama_key keys_mellum[] = {
    RMS_EPS,
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"attention.sliding_window", U32, SCALAR, 0, .sym = "SWIN", .dflt = "0"},
    /* a period, or one flag per layer (absent, the loader asks for the flags) */
    {"attention.sliding_window_pattern", U32, PER_LAYER, REQ, .sym = "PAT", .when = "SWIN > 0"},
    {"rope.freq_base_swa", F32, SCALAR, 0, .when = "SWIN > 0"},
    {NULL, 0, 0, 0}};
/* layer 0 is a sliding-window layer unless the period is 1 (a flag array's first flag is
 * taken as a period: right unless the _swa head sizes differ) */
static const gguf__llama_sym syms_mellum[] = {
    {"SWA0", "SWIN > 0 && PAT != 1", NULL},
    {"FFX", "FFE ? FFE : FF/XU", "expert_ffn_length"},
    {NULL, NULL, NULL}};
static const gguf__llama_tensor tensors_mellum[] = {
    EMBED_NORM_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    EXPERT_FFN("FFX"),
    {NULL, {NULL}, 0}};

/* ---- plamo3: a fused qkv of each layer's own head counts, norms after attention and
 * feed-forward (named without .weight), the gate fused into ffn_up ---- */

static const gguf__llama_key keys_plamo3[] = {
    RMS_EPS,
    {"attention.sliding_window", U32, SCALAR, 0, .sym = "SWIN", .dflt = "0"},
    {"rope.freq_base_swa", F32, SCALAR, 0, .when = "SWIN > 0"},
    {"attention.sliding_window_pattern", U32, GGUF__LK_SCALAR_OR_IGNORED, 0, .sym = "PAT",
     .dflt = "8", .when = "SWIN > 0"},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_plamo3[] = {
    {"SWA0", "SWIN > 0 && PAT != 1", NULL},
    {NULL, NULL, NULL}};
static const gguf__llama_tensor tensors_plamo3[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_qkv.weight", {"E", "H_i*DK + HKV_i*DK + HKV_i*DV"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_output.weight", {"H_i*DV", "E"}, LAYER},
    {"blk.%d.post_attention_norm", {"E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.post_ffw_norm", {"E"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "2*FF_i"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF_i", "E"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- muse-glimmer: gated attention, queries and keys normalized, norms after attention and
 * feed-forward, sliding-window layers by a period or one flag per layer ---- */

static const gguf__llama_key keys_muse_glimmer[] = {
    RMS_EPS,
    {"attention.sliding_window", U32, SCALAR, REQ},
    {"final_logit_softcapping", F32, SCALAR, 0},
    {"logit_scale", F32, SCALAR, REQ},
    {"rope.freq_base_swa", F32, SCALAR, 0},
    /* a period, or one flag per layer (absent, the loader asks for the flags) */
    {"attention.sliding_window_pattern", U32, PER_LAYER, REQ, .sym = "PAT"},
    {NULL, 0, 0, 0}};
/* layer 0 is a sliding-window layer unless the period is 1 (a flag array's first flag is
 * taken as a period: right unless the _swa head sizes differ) */
static const gguf__llama_sym syms_muse_glimmer[] = {{"SWA0", "PAT != 1", NULL}, {NULL, NULL, NULL}};
static const gguf__llama_tensor tensors_muse_glimmer[] = {
    EMBED_NORM_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.post_attention_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_gate.weight", {"E", "DK*H"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.post_ffw_norm.weight", {"E"}, LAYER},
    GATED_FFN,
    {NULL, {NULL}, 0}};

/* ---- gemma3n: gemma3's layers with alternating updates (altup, 4 inputs), learned augmented
 * residuals (laurel, rank 64) and per-layer inputs of 256; those sizes are llama.cpp's
 * constants, not keys ---- */

static const gguf__llama_key keys_gemma3n[] = {
    {"attention.sliding_window_pattern", U32, GGUF__LK_SCALAR_OR_IGNORED, 0, .sym = "PAT",
     .dflt = "5"},
    {"rope.freq_base_swa", F32, SCALAR, 0},
    {"attention.sliding_window", U32, SCALAR, REQ},
    RMS_EPS,
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_gemma3n[] = {
    {"SWA0", "PAT != 1", NULL},
    {"ALTUP", "4", "altup_num_inputs"},
    {"LAUREL", "64", "laurel_rank"},
    {"EPL", "256", "per_layer_embedding_length"},
    {NULL, NULL, NULL}};
static const gguf__llama_tensor tensors_gemma3n[] = {
    EMBED_OUT,
    {"altup_proj.weight", {"E", "E", "ALTUP-1"}, 0},
    {"altup_unembd_proj.weight", {"E", "E", "ALTUP-1"}, 0},
    {"per_layer_token_embd.weight", {"EPL*L", "V"}, 0},
    {"per_layer_model_proj.weight", {"E", "EPL*L"}, 0},
    {"per_layer_proj_norm.weight", {"EPL"}, 0},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H", "DK*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},
    {"blk.%d.post_attention_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    GATED_FFN,
    {"blk.%d.post_ffw_norm.weight", {"E"}, LAYER},
    {"blk.%d.inp_gate.weight", {"E", "EPL"}, LAYER},
    {"blk.%d.proj.weight", {"EPL", "E"}, LAYER},
    {"blk.%d.post_norm.weight", {"E"}, LAYER},
    {"blk.%d.altup_correct_coef.weight", {"ALTUP", "ALTUP"}, LAYER},
    {"blk.%d.altup_correct_scale.weight", {"E"}, LAYER},
    {"blk.%d.altup_predict_coef.weight", {"ALTUP", "ALTUP*ALTUP"}, LAYER},
    {"blk.%d.altup_router.weight", {"E", "ALTUP"}, LAYER},
    {"blk.%d.altup_router_norm.weight", {"E"}, LAYER},
    {"blk.%d.laurel_l.weight", {"E", "LAUREL"}, LAYER},
    {"blk.%d.laurel_r.weight", {"LAUREL", "E"}, LAYER},
    {"blk.%d.laurel_post_norm.weight", {"E"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- gemma4: sliding-window layers given per layer with head sizes of their own, the last
 * shared_kv_layers layers reusing earlier layers' keys and values, rope frequencies for the
 * full layers, optional experts beside the dense feed-forward, per-layer inputs ---- */

static const gguf__llama_key keys_gemma4[] = {
    /* one flag per layer (a scalar: the same for every layer) */
    {"attention.sliding_window_pattern", U32, PER_LAYER, REQ, .sym = "PAT"},
    {"attention.shared_kv_layers", U32, SCALAR, 0, .sym = "SKV", .dflt = "0"},
    {"rope.freq_base_swa", F32, SCALAR, 0},
    {"expert_feed_forward_length", U32, PER_LAYER, 0, .sym = "FFE", .dflt = "0"},
    {"attention.sliding_window", U32, SCALAR, REQ},
    RMS_EPS,
    {"embedding_length_per_layer_input", U32, SCALAR, REQ, .sym = "EPL"},
    {"attention.key_length_swa", U32, SCALAR, REQ},
    {"attention.value_length_swa", U32, SCALAR, REQ},
    {"final_logit_softcapping", F32, SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_gemma4[] = {{"SWA0", "PAT != 0", NULL}, {NULL, NULL, NULL}};
static const gguf__llama_rule rules_gemma4[] = {
    {"DK == DV", NULL, "attention.value_length", GGUF_LLAMA_ERROR,
     "differs from the key head size (of layer 0): llama.cpp refuses Gemma 4"},
    {"DKS == DVS", NULL, "attention.value_length_swa", GGUF_LLAMA_ERROR,
     "differs from attention.key_length_swa: llama.cpp refuses Gemma 4"},
    {NULL, NULL, NULL, 0, NULL}};
#define G4_HK "(SWA_i ? DKS : DKF)"
#define G4_HV "(SWA_i ? DVS : DVF)"
#define G4_KV "SKV > NL || i < NL - SKV"
#define G4_X "blk.%d.ffn_gate_inp.weight"
static const gguf__llama_tensor tensors_gemma4[] = {
    EMBED_OUT,
    {"per_layer_token_embd.weight", {"EPL*L", "V"}, 0, .when = "EPL > 0"},
    {"per_layer_model_proj.weight", {"E", "EPL*L"}, 0, .when = "EPL > 0"},
    {"per_layer_proj_norm.weight", {"EPL"}, 0, .when = "EPL > 0"},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_q.weight", {"E", G4_HK "*H_i"}, LAYER},
    {"blk.%d.attn_k.weight", {"E", G4_HK "*HKV_i"}, LAYER, .when = G4_KV},
    {"blk.%d.attn_k.weight", {"E", G4_HK "*HKV_i"}, OPT | LAYER, .when = "!(" G4_KV ")"},
    /* absent: the keys serve as values */
    {"blk.%d.attn_v.weight", {"E", G4_HV "*HKV_i"}, OPT | LAYER},
    {"blk.%d.attn_output.weight", {G4_HK "*H_i", "E"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {G4_HK}, LAYER},
    {"blk.%d.attn_k_norm.weight", {G4_HK}, LAYER, .when = G4_KV},
    {"blk.%d.attn_k_norm.weight", {G4_HK}, OPT | LAYER, .when = "!(" G4_KV ")"},
    {"blk.%d.post_attention_norm.weight", {"E"}, LAYER},
    {"blk.%d.layer_output_scale.weight", {"1"}, OPT | LAYER},
    /* created by the first layer without a sliding window, shared by the others */
    {"rope_freqs.weight", {"DKF/2"}, 0, .when = "FULLN > 0"},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF_i"}, LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF_i"}, LAYER},
    {"blk.%d.ffn_down.weight", {"FF_i", "E"}, LAYER},
    {"blk.%d.post_ffw_norm.weight", {"E"}, LAYER},
    {G4_X, {"E", "X"}, OPT | LAYER},
    {"blk.%d.ffn_gate_inp.scale", {"E"}, LAYER, .if_present = G4_X},
    {"blk.%d.pre_ffw_norm_2.weight", {"E"}, LAYER, .if_present = G4_X},
    {"blk.%d.post_ffw_norm_1.weight", {"E"}, LAYER, .if_present = G4_X},
    {"blk.%d.post_ffw_norm_2.weight", {"E"}, LAYER, .if_present = G4_X},
    {"blk.%d.ffn_gate_up_exps.weight", {"E", "FFE*2", "X"}, OPT | LAYER, .if_present = G4_X},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, LAYER, .if_present = G4_X,
     .if_absent = "blk.%d.ffn_gate_up_exps.weight"},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, LAYER, .if_present = G4_X,
     .if_absent = "blk.%d.ffn_gate_up_exps.weight"},
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, LAYER, .if_present = G4_X},
    {"blk.%d.inp_gate.weight", {"E", "EPL"}, LAYER, .when = "EPL > 0"},
    {"blk.%d.proj.weight", {"EPL", "E"}, LAYER, .when = "EPL > 0"},
    {"blk.%d.post_norm.weight", {"E"}, LAYER, .when = "EPL > 0"},
    {NULL, {NULL}, 0}};
#undef G4_HK
#undef G4_HV
#undef G4_KV
#undef G4_X

/* ---- cogvlm: beside each layer's attention and feed-forward, the visual expert's (used for
 * image tokens) ---- */

static const gguf__llama_tensor tensors_cogvlm[] = {
    EMBED_OUT,
    {"rope_freqs.weight", {"R/2"}, OPT},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_qkv.weight", {"E", "DK*H*3"}, LAYER},
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.vis_attn_qkv.weight", {"E", "DK*H*3"}, LAYER},
    {"blk.%d.vis_attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    GATED_FFN,
    {"blk.%d.vis_gate.weight", {"E", "FF"}, LAYER},
    {"blk.%d.vis_down.weight", {"FF", "E"}, LAYER},
    {"blk.%d.vis_up.weight", {"E", "FF"}, LAYER},
    {NULL, {NULL}, 0}};

/* ---- graniteswitch: granite's layers, each projection with a stack of low-rank adapters (one
 * slot per adapter and a zero slot), which adapter tokens switch on ---- */

static const gguf__llama_key keys_graniteswitch[] = {
    RMS_EPS,
    {"logit_scale", F32, SCALAR, REQ},
    {"residual_scale", F32, SCALAR, 0},
    {"embedding_scale", F32, SCALAR, 0},
    {"attention.scale", F32, SCALAR, 0},
    {"rope.scaling.finetuned", BOOL, SCALAR, 0},
    {"expert_shared_feed_forward_length", U32, SCALAR, 0},
    {"adapters.count", U32, SCALAR, REQ, .sym = "NAD"},
    {"adapters.lora_rank", U32, SCALAR, REQ, .sym = "RANK"},
    {"adapters.router_gain", F32, SCALAR, 0},
    {"adapters.token_ids_activate", I32, GGUF__LK_ARRAY, REQ, .sym = "NACT"},
    {"adapters.token_ids_substitute", I32, GGUF__LK_ARRAY, REQ, .sym = "NSUB"},
    {NULL, 0, 0, 0}};
static const gguf__llama_rule rules_graniteswitch[] = {
    {"NAD <= 4096", NULL, "adapters.count", GGUF_LLAMA_ERROR,
     "llama.cpp refuses more than 4096 adapters"},
    {"RANK <= 4096", NULL, "adapters.lora_rank", GGUF_LLAMA_ERROR,
     "llama.cpp refuses a rank above 4096"},
    {"NACT == NAD", NULL, "adapters.token_ids_activate", GGUF_LLAMA_ERROR,
     "has not one token per adapter (adapters.count): llama.cpp refuses the model"},
    {"NSUB == NAD", NULL, "adapters.token_ids_substitute", GGUF_LLAMA_ERROR,
     "has not one token per adapter (adapters.count): llama.cpp refuses the model"},
    /* a router layer follows the last one */
    {"L < 512", NULL, "block_count", GGUF_LLAMA_ERROR,
     "llama.cpp refuses 512 layers or more (its router layer would be the 513th)"},
    {NULL, NULL, NULL, 0, NULL}};
/* an adapter stack: A (IN to the rank) and B (the rank to OUT), one slot per adapter and one */
#define SWITCH_LORA(T, IN, OUT)                                                                  \
    {"blk.%d." T ".lora_a", {IN, "RANK", "NAD+1"}, LAYER},                                     \
    {"blk.%d." T ".lora_b", {"RANK", OUT, "NAD+1"}, LAYER}
static const gguf__llama_tensor tensors_graniteswitch[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_qkv.weight", {"E", "DK*H + 2*DK*HKV"}, LAYER},
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    GATED_FFN,
    SWITCH_LORA("attn_q", "E", "DK*H"),
    SWITCH_LORA("attn_k", "E", "DK*HKV"),
    SWITCH_LORA("attn_v", "E", "DK*HKV"),
    SWITCH_LORA("attn_output", "DK*H", "E"),
    SWITCH_LORA("ffn_gate", "E", "FF"),
    SWITCH_LORA("ffn_up", "E", "FF"),
    SWITCH_LORA("ffn_down", "FF", "E"),
    {NULL, {NULL}, 0}};
#undef SWITCH_LORA

/* ---- qwen4exp: gated delta-net layers, attention (with an indexer) every
 * full_attention_interval-th layer, hyper-connections (count streams of the embedding mixed in
 * and out of each layer's attention and experts), optional n-gram embeddings (PLE) in one
 * recurrent layer ---- */

static const gguf__llama_key keys_qwen4exp[] = {
    DELTANET_EXPERT_KEYS,
    RMS_EPS,
    /* four sections (the length is not checked here) */
    {"rope.dimension_sections", I32, PER_LAYER, ANY_LENGTH | REQ},
    {"ssm.conv_kernel", U32, SCALAR, REQ, .sym = "DCONV"},
    {"ssm.inner_size", U32, SCALAR, REQ, .sym = "DINNER"},
    {"ssm.state_size", U32, SCALAR, REQ, .sym = "DSTATE"},
    {"ssm.time_step_rank", U32, SCALAR, REQ, .sym = "DTR"},
    {"ssm.group_count", U32, SCALAR, REQ, .sym = "NG"},
    {"hyper_connection.count", U32, SCALAR, REQ, .sym = "HC"},
    {"hyper_connection.low_rank", U32, SCALAR, REQ, .sym = "HCLR"},
    {"attention.indexer.head_count", U32, SCALAR, REQ, .sym = "IH"},
    {"attention.indexer.key_length", U32, SCALAR, REQ, .sym = "IK"},
    {"attention.indexer.top_k", U32, SCALAR, REQ, .sym = "ITOPK"},
    {"attention.compress_ratios", U32, PER_LAYER, 0},
    {"ple.layers", U32, GGUF__LK_ARRAY, 0, .sym = "NPLE", .dflt = "0"},
    {"ple.ngram_size", U32, SCALAR, REQ, .sym = "PLEN", .when = "NPLE > 0"},
    {"ple.heads_per_ngram", U32, SCALAR, REQ, .sym = "PLEH", .when = "NPLE > 0"},
    {"ple.conv_kernel", U32, SCALAR, REQ, .sym = "PLEK", .when = "NPLE > 0"},
    {"ple.eos_token_id", U32, SCALAR, REQ, .when = "NPLE > 0"},
    {"ple.image_token_id", U32, SCALAR, 0, .when = "NPLE > 0"},
    {"embedding_length_per_layer_input", U32, SCALAR, REQ, .sym = "EPL", .when = "NPLE > 0"},
    {"ple.layer_multipliers", GGUF_VTYPE_U64, GGUF__LK_ARRAY, REQ, .sym = "NPLEM",
     .when = "NPLE > 0"},
    {"ple.head_offsets", GGUF_VTYPE_U64, GGUF__LK_ARRAY, REQ, .sym = "NPLEO", .when = "NPLE > 0"},
    {"ple.head_vocab_sizes", GGUF_VTYPE_U64, GGUF__LK_ARRAY, REQ, .sym = "NPLEV",
     .when = "NPLE > 0"},
    {"attention.recurrent_layers", U32, PER_LAYER, 0, .sym = "RLAY"},
    {"full_attention_interval", U32, SCALAR, 0, .sym = "FAI", .dflt = "4",
     .when = "!defined(RLAY)"},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_qwen4exp[] = {
    DELTANET_SYMS,
    {"FFX", "FFE ? FFE : FF/XU", "expert_ffn_length"},
    {"HCE", "HC*E", "hyper_connection.count*embedding_length"},
    {"PLEHEADS", "(PLEN-1)*PLEH", "(ple.ngram_size-1)*ple.heads_per_ngram"},
    /* no expression: values the tables do not read (the PLE layer, and the rows the n-gram
     * embedding needs, from the head ranges or its own shape), so what depends on them is not
     * judged */
    {"PLEL", NULL, "the layer ple.layers names"},
    {"PLEROWS", NULL, "the rows of per_layer_token_embd"},
    {NULL, NULL, NULL}};
#define Q4_PLE "NPLE > 0"
static const gguf__llama_rule rules_qwen4exp[] = {
    {"DCONV > 0", NULL, "ssm.conv_kernel", GGUF_LLAMA_ERROR, "is 0: llama.cpp refuses it"},
    {"DINNER > 0", NULL, "ssm.inner_size", GGUF_LLAMA_ERROR, "is 0: llama.cpp refuses it"},
    {"DSTATE > 0", NULL, "ssm.state_size", GGUF_LLAMA_ERROR, "is 0: llama.cpp refuses it"},
    {"DTR > 0", NULL, "ssm.time_step_rank", GGUF_LLAMA_ERROR, "is 0: llama.cpp refuses it"},
    {"NG > 0", NULL, "ssm.group_count", GGUF_LLAMA_ERROR, "is 0: llama.cpp refuses it"},
    {"HC > 1", NULL, "hyper_connection.count", GGUF_LLAMA_ERROR,
     "is not above 1: llama.cpp refuses it (nothing to mix)"},
    {"HCLR > 0", NULL, "hyper_connection.low_rank", GGUF_LLAMA_ERROR,
     "is 0: llama.cpp refuses it"},
    {"IH > 0", NULL, "attention.indexer.head_count", GGUF_LLAMA_ERROR,
     "is 0: llama.cpp refuses it"},
    {"IK > 0", NULL, "attention.indexer.key_length", GGUF_LLAMA_ERROR,
     "is 0: llama.cpp refuses it"},
    {"ITOPK > 0", NULL, "attention.indexer.top_k", GGUF_LLAMA_ERROR,
     "is 0: llama.cpp refuses it"},
    {"FAI > 0", "!defined(RLAY)", "full_attention_interval", GGUF_LLAMA_ERROR,
     "is 0: llama.cpp refuses it"},
    {"NPLE <= 1", NULL, "ple.layers", GGUF_LLAMA_ERROR,
     "names more than one layer: llama.cpp supports one"},
    {"PLEK > 0", Q4_PLE, "ple.conv_kernel", GGUF_LLAMA_ERROR, "is 0: llama.cpp refuses it"},
    {"EPL > 0", Q4_PLE, "embedding_length_per_layer_input", GGUF_LLAMA_ERROR,
     "is 0: llama.cpp refuses it"},
    {"PLEN >= 2 && PLEN <= 8", Q4_PLE, "ple.ngram_size", GGUF_LLAMA_ERROR,
     "is out of llama.cpp's range 2..8: it refuses the model"},
    {"PLEHEADS > 0 && PLEHEADS <= 64", Q4_PLE, "ple.heads_per_ngram", GGUF_LLAMA_ERROR,
     "makes (ple.ngram_size-1)*ple.heads_per_ngram heads, out of llama.cpp's range 1..64: it "
     "refuses the model"},
    {"NPLEM >= PLEN && NPLEM <= 8", Q4_PLE, "ple.layer_multipliers", GGUF_LLAMA_ERROR,
     "has fewer elements than ple.ngram_size, or more than 8: llama.cpp refuses it"},
    {"NPLEO >= PLEHEADS && NPLEO <= 64", Q4_PLE, "ple.head_offsets", GGUF_LLAMA_ERROR,
     "has fewer elements than the heads, or more than 64: llama.cpp refuses it"},
    {"NPLEV >= PLEHEADS && NPLEV <= 64", Q4_PLE, "ple.head_vocab_sizes", GGUF_LLAMA_ERROR,
     "has fewer elements than the heads, or more than 64: llama.cpp refuses it"},
    {NULL, NULL, NULL, 0, NULL}};
/* a hyper-connection mixer: its norm, the low-rank down and up projections, the injection */
#define HC_MIXER(B)                                                                              \
    {"blk.%d." B "_norm.weight", {"HCE"}, LAYER},                                              \
    {"blk.%d." B "_down.weight", {"HCE", "HCLR"}, LAYER},                                      \
    {"blk.%d." B "_up.weight", {"HCLR", "HCE"}, LAYER},                                        \
    {"blk.%d." B "_inject.weight", {"HCE", "HC"}, LAYER}
#define Q4_PLE_LAYER "NPLE > 0 && i == PLEL"
static const gguf__llama_tensor tensors_qwen4exp[] = {
    {"token_embd.weight", {"E", "V"}, 0},
    /* no output_norm: the last mixer carries it */
    {"output_hc_norm.weight", {"HCE"}, 0},
    {"output_hc_down.weight", {"HCE", "HCLR"}, 0},
    {"output_hc_up.weight", {"HCLR", "HCE"}, 0},
    {"output.weight", {"E", "V"}, OPT},
    {"per_layer_token_embd.weight", {"EPL", "PLEROWS"}, 0, .when = Q4_PLE},
    HC_MIXER("hc_attn"),
    HC_MIXER("hc_ffn"),
    QKV_WHEN("DK*H*2", "DK*HKV", "DV*HKV", 0, "!RECR_i"),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER, .when = "!RECR_i"},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER, .when = "!RECR_i"},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER, .when = "!RECR_i"},
    {"blk.%d.indexer.q_proj.weight", {"E", "IH*IK"}, LAYER, .when = "!RECR_i"},
    {"blk.%d.indexer.k_proj.weight", {"E", "IK"}, LAYER, .when = "!RECR_i"},
    {"blk.%d.indexer.q_norm.weight", {"IK"}, LAYER, .when = "!RECR_i"},
    {"blk.%d.indexer.k_norm.weight", {"IK"}, LAYER, .when = "!RECR_i"},
    {QKVW, {"E", "KD*2+VD"}, LAYER, .when = "RECR_i"},
    {"blk.%d.attn_gate.weight", {"E", "VD"}, LAYER, .when = "RECR_i"},
    {"blk.%d.ssm_conv1d.weight", {"DCONV", "KD*2+VD"}, LAYER, .when = "RECR_i"},
    {"blk.%d.ssm_dt.bias", {"DTR"}, LAYER, .when = "RECR_i"},
    {"blk.%d.ssm_a", {"DTR"}, LAYER, .when = "RECR_i"},
    {"blk.%d.ssm_beta.weight", {"E", "DTR"}, LAYER, .when = "RECR_i"},
    {"blk.%d.ssm_alpha.weight", {"E", "DTR"}, LAYER, .when = "RECR_i"},
    {"blk.%d.ssm_norm.weight", {"DSTATE"}, LAYER, .when = "RECR_i"},
    {"blk.%d.ssm_out.weight", {"VD", "E"}, LAYER, .when = "RECR_i"},
    {"blk.%d.ple_key.weight", {"E", "HCE"}, LAYER, .when = Q4_PLE_LAYER},
    {"blk.%d.ple_value.weight", {"E", "E"}, LAYER, .when = Q4_PLE_LAYER},
    {"blk.%d.ple_norm_key.weight", {"HCE"}, LAYER, .when = Q4_PLE_LAYER},
    {"blk.%d.ple_norm_query.weight", {"HCE"}, LAYER, .when = Q4_PLE_LAYER},
    {"blk.%d.ple_norm_conv.weight", {"HCE"}, LAYER, .when = Q4_PLE_LAYER},
    {"blk.%d.ple_conv1d.weight", {"PLEK", "HCE"}, LAYER, .when = Q4_PLE_LAYER},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER},
    {"blk.%d.ffn_down_exps.weight", {"FFX", "E", "X"}, LAYER},
    {"blk.%d.ffn_gate_up_exps.weight", {"E", "FFX*2", "X"}, OPT | LAYER},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFX", "X"}, LAYER,
     .if_absent = "blk.%d.ffn_gate_up_exps.weight"},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFX", "X"}, LAYER,
     .if_absent = "blk.%d.ffn_gate_up_exps.weight"},
    {"blk.%d.ffn_gate_inp_shexp.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFS ? FFS : FF"}, LAYER},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFS ? FFS : FF"}, LAYER},
    {"blk.%d.ffn_down_shexp.weight", {"FFS ? FFS : FF", "E"}, LAYER},
    {NULL, {NULL}, 0}};
#undef HC_MIXER
#undef Q4_PLE
#undef Q4_PLE_LAYER

/* ---- kimi-k3: delta-net layers (no key/value heads) beside latent attention, cross-layer
 * residual scores, routed experts in a latent space beside shared ones ---- */

static const gguf__llama_key keys_kimi_k3[] = {
    RMS_EPS,
    {"attention.key_length_mla", U32, SCALAR, REQ, .sym = "KMLAK"},
    {"attention.value_length_mla", U32, SCALAR, REQ, .sym = "VMLAK"},
    {"attention.q_lora_rank", U32, SCALAR, 0, .sym = "QLR", .dflt = "0"},
    {"attention.kv_lora_rank", U32, SCALAR, REQ, .sym = "KVLR"},
    {"ssm.conv_kernel", U32, SCALAR, REQ, .sym = "DCONV"},
    {"kda.head_dim", U32, SCALAR, REQ, .sym = "KDAD"},
    {"kda.gate_lower_bound", F32, SCALAR, 0},
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"expert_shared_count", U32, SCALAR, REQ, .sym = "XS"},
    {"leading_dense_block_count", U32, SCALAR, 0, .sym = "NDL", .dflt = "0"},
    {"expert_weights_scale", F32, SCALAR, 0},
    {"expert_weights_norm", BOOL, SCALAR, 0},
    {"expert_gating_func", U32, SCALAR, REQ},
    {"expert_latent_length", U32, SCALAR, 0, .sym = "XL", .dflt = "0"},
    {"attn_res.block_size", U32, SCALAR, REQ, .sym = "RESB"},
    {"activation.situ_beta", F32, SCALAR, REQ},
    {"activation.situ_linear_beta", F32, SCALAR, REQ},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_kimi_k3[] = {
    {"MLA", "KMLAK != 0 && VMLAK != 0", NULL},
    {"KMLA", "MLA ? KMLAK : DK", "mla_key_head_size"},
    /* without latent attention the value head is the latent's rank */
    {"VMLA", "MLA ? VMLAK : KVLR", "mla_value_head_size"},
    {"NOPE", "KMLA - R", "mla_key_head_size_without_rope"},
    {"KDI", "KDAD*H", "kda_inner_size"},
    {"XE", "XL > 0 ? XL : E", "expert_latent_length"},
    {"XSW", "FFE * (XS > 0 ? XS : 1)", "shared_expert_ffn_length"},
    {NULL, NULL, NULL}};
#define K3_RECR "RECR_i"
#define K3_ATTN "!RECR_i"
static const gguf__llama_tensor tensors_kimi_k3[] = {
    EMBED_NORM_OUT,
    {"output_res_score.weight", {"E"}, 0, .when = "RESB > 0"},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_res_score.weight", {"E"}, LAYER, .when = "RESB > 0"},
    {"blk.%d.ffn_res_score.weight", {"E"}, LAYER, .when = "RESB > 0"},
    /* delta-net layers; a convolution's trailing 1 may be dropped */
    {"blk.%d.ssm_conv1d_q.weight", {"DCONV", "1", "KDI"}, LAYER, .when = K3_RECR},
    {"blk.%d.ssm_conv1d_k.weight", {"DCONV", "1", "KDI"}, LAYER, .when = K3_RECR},
    {"blk.%d.ssm_conv1d_v.weight", {"DCONV", "1", "KDI"}, LAYER, .when = K3_RECR},
    QKV_WHEN("KDI", "KDI", "KDI", 0, K3_RECR),
    {"blk.%d.ssm_f_a.weight", {"E", "KDAD"}, LAYER, .when = K3_RECR},
    {"blk.%d.ssm_f_b.weight", {"KDAD", "KDI"}, LAYER, .when = K3_RECR},
    {"blk.%d.ssm_beta.weight", {"E", "H"}, LAYER, .when = K3_RECR},
    {"blk.%d.ssm_a", {"H"}, LAYER, .when = K3_RECR},
    {"blk.%d.ssm_dt.bias", {"KDI"}, LAYER, .when = K3_RECR},
    {"blk.%d.ssm_g.weight", {"E", "KDI"}, LAYER, .when = K3_RECR},
    {"blk.%d.ssm_norm.weight", {"KDAD"}, LAYER, .when = K3_RECR},
    {"blk.%d.attn_output.weight", {"KDI", "E"}, LAYER, .when = K3_RECR},
    /* latent attention layers: queries from a rank-QLR latent when its norm is there */
    {"blk.%d.attn_q_a_norm.weight", {"QLR"}, OPT | LAYER, .when = K3_ATTN},
    {"blk.%d.attn_kv_a_norm.weight", {"KVLR"}, LAYER, .when = K3_ATTN},
    {"blk.%d.attn_q_a.weight", {"E", "QLR"}, LAYER, .when = K3_ATTN,
     .if_present = "blk.%d.attn_q_a_norm.weight"},
    {"blk.%d.attn_q_b.weight", {"QLR", "H*KMLA"}, LAYER, .when = K3_ATTN,
     .if_present = "blk.%d.attn_q_a_norm.weight"},
    {"blk.%d.attn_q.weight", {"E", "H*KMLA"}, LAYER, .when = K3_ATTN,
     .if_absent = "blk.%d.attn_q_a_norm.weight"},
    {"blk.%d.attn_kv_a_mqa.weight", {"E", "KVLR+R"}, LAYER, .when = K3_ATTN},
    {"blk.%d.attn_kv_b.weight", {"KVLR", "H*(NOPE+VMLA)"}, OPT | LAYER, .when = K3_ATTN},
    {"blk.%d.attn_k_b.weight", {"NOPE", "KVLR", "H"}, LAYER, .when = K3_ATTN,
     .if_absent = "blk.%d.attn_kv_b.weight"},
    {"blk.%d.attn_v_b.weight", {"KVLR", "VMLA", "H"}, LAYER, .when = K3_ATTN,
     .if_absent = "blk.%d.attn_kv_b.weight"},
    {"blk.%d.attn_gate.weight", {"E", "H*VMLA"}, OPT | LAYER, .when = K3_ATTN},
    {"blk.%d.attn_output.weight", {"H*VMLA", "E"}, LAYER, .when = K3_ATTN},
    /* dense first layers, then experts */
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.exp_probs_b.bias", {"X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_gate_exps.weight", {"XE", "FFE", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_down_exps.weight", {"FFE", "XE", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_up_exps.weight", {"XE", "FFE", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_routed_down.weight", {"E", "XE"}, LAYER, .when = "i >= NDL && XL > 0"},
    {"blk.%d.ffn_routed_up.weight", {"XE", "E"}, LAYER, .when = "i >= NDL && XL > 0"},
    {"blk.%d.ffn_routed_norm.weight", {"XE"}, OPT | LAYER, .when = "i >= NDL && XL > 0"},
    {"blk.%d.ffn_gate_shexp.weight", {"E", "XSW"}, OPT | LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_down_shexp.weight", {"XSW", "E"}, OPT | LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_up_shexp.weight", {"E", "XSW"}, OPT | LAYER, .when = "i >= NDL"},
    {NULL, {NULL}, 0}};
#undef K3_RECR
#undef K3_ATTN

/* ---- deepseek32 and glm-dsa: deepseek2's latent attention (queries always from a latent)
 * beside a sparse-attention indexer, dense first layers, then experts ---- */

#define DSA_KEYS                                                                                 \
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},                         \
    RMS_EPS,                                                                                   \
    {"rope.dimension_sections", I32, PER_LAYER, ANY_LENGTH},                                   \
    {"expert_shared_count", U32, SCALAR, REQ, .sym = "XS"},                                    \
    {"leading_dense_block_count", U32, SCALAR, 0, .sym = "NDL", .dflt = "0"},                  \
    {"expert_weights_scale", F32, SCALAR, 0},                                                  \
    {"expert_weights_norm", BOOL, SCALAR, 0},                                                  \
    {"attention.q_lora_rank", U32, SCALAR, REQ, .sym = "QLR"},                                 \
    {"attention.kv_lora_rank", U32, SCALAR, REQ, .sym = "KVLR"},                               \
    {"attention.key_length_mla", U32, SCALAR, 0, .sym = "KMLAK", .dflt = "0"},                 \
    {"attention.value_length_mla", U32, SCALAR, 0, .sym = "VMLAK", .dflt = "0"},               \
    {"attention.indexer.head_count", U32, SCALAR, REQ, .sym = "IH"},                           \
    {"attention.indexer.key_length", U32, SCALAR, REQ, .sym = "IHD"},                          \
    {"attention.indexer.top_k", U32, SCALAR, REQ}
static const gguf__llama_key keys_deepseek32[] = {
    DSA_KEYS,
    {"expert_gating_func", U32, SCALAR, REQ},
    {"rope.scaling.yarn_log_multiplier", F32, SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_glm_dsa[] = {
    DSA_KEYS,
    {"expert_gating_func", U32, SCALAR, 0},
    /* which layers' indexers are full: one element per layer without the nextn layers, so an
     * array of block_count elements is refused when there are nextn layers */
    {"attention.indexer.types", U32, PER_LAYER, ANY_LENGTH},
    {NULL, 0, 0, 0}};
static const gguf__llama_rule rules_dsa[] = {
    {"MLA", NULL, "attention.key_length_mla", GGUF_LLAMA_ERROR,
     "llama.cpp refuses this architecture without latent attention (key_length_mla and "
     "value_length_mla both nonzero)"},
    {"X > 0", "NDL < NL", "expert_count", GGUF_LLAMA_ERROR,
     "llama.cpp refuses expert layers (after leading_dense_block_count) without experts"},
    {"XU > 0", "NDL < NL", "expert_used_count", GGUF_LLAMA_ERROR,
     "llama.cpp refuses expert layers with no expert used"},
    {NULL, NULL, NULL, 0, NULL}};
/* the indexer's tensors have flags IF: required in deepseek32, optional in glm-dsa */
#define DSA_TENSORS(IF)                                                                          \
    EMBED_OUT,                                                                                 \
    {"blk.%d.attn_norm.weight", {"E"}, ALL_LAYERS},                                            \
    {"blk.%d.attn_q_a_norm.weight", {"QLR"}, ALL_LAYERS},                                      \
    {"blk.%d.attn_kv_a_norm.weight", {"KVLR"}, ALL_LAYERS},                                    \
    {"blk.%d.attn_q_a.weight", {"E", "QLR"}, ALL_LAYERS},                                      \
    {"blk.%d.attn_q_b.weight", {"QLR", "H*KMLA"}, ALL_LAYERS},                                 \
    {"blk.%d.attn_kv_a_mqa.weight", {"E", "KVLR+R"}, ALL_LAYERS},                              \
    {"blk.%d.attn_k_b.weight", {"NOPE", "KVLR", "H"}, ALL_LAYERS},                             \
    {"blk.%d.attn_v_b.weight", {"KVLR", "VMLA", "H"}, ALL_LAYERS},                             \
    {"blk.%d.attn_output.weight", {"H*VMLA", "E"}, ALL_LAYERS},                                \
    {"blk.%d.ffn_norm.weight", {"E"}, ALL_LAYERS},                                             \
    {"blk.%d.indexer.k_norm.weight", {"IHD"}, (IF) | ALL_LAYERS},                              \
    {"blk.%d.indexer.k_norm.bias", {"IHD"}, (IF) | ALL_LAYERS},                                \
    {"blk.%d.indexer.proj.weight", {"E", "IH"}, (IF) | ALL_LAYERS},                            \
    {"blk.%d.indexer.attn_k.weight", {"E", "IHD"}, (IF) | ALL_LAYERS},                         \
    {"blk.%d.indexer.attn_q_b.weight", {"QLR", "IH*IHD"}, (IF) | ALL_LAYERS},                  \
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, ALL_LAYERS, .when = "i < NDL"},                    \
    {"blk.%d.ffn_down.weight", {"FF", "E"}, ALL_LAYERS, .when = "i < NDL"},                    \
    {"blk.%d.ffn_up.weight", {"E", "FF"}, ALL_LAYERS, .when = "i < NDL"},                      \
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, ALL_LAYERS, .when = "i >= NDL"},                \
    {"blk.%d.exp_probs_b.bias", {"X"}, OPT | ALL_LAYERS, .when = "i >= NDL"},                  \
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, ALL_LAYERS, .when = "i >= NDL"},        \
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, ALL_LAYERS, .when = "i >= NDL"},        \
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, ALL_LAYERS, .when = "i >= NDL"},          \
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFE*XS"}, ALL_LAYERS, .when = "i >= NDL"},         \
    {"blk.%d.ffn_down_shexp.weight", {"FFE*XS", "E"}, ALL_LAYERS, .when = "i >= NDL"},         \
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFE*XS"}, ALL_LAYERS, .when = "i >= NDL"},           \
    {"blk.%d.nextn.eh_proj.weight", {"2*E", "E"}, ALL_LAYERS, .when = "i >= L"},               \
    {"blk.%d.nextn.enorm.weight", {"E"}, ALL_LAYERS, .when = "i >= L"},                        \
    {"blk.%d.nextn.hnorm.weight", {"E"}, ALL_LAYERS, .when = "i >= L"},                        \
    {"blk.%d.nextn.embed_tokens.weight", {"E", "V"}, OPT | ALL_LAYERS, .when = "i >= L"},      \
    {"blk.%d.nextn.shared_head_head.weight", {"E", "V"}, OPT | ALL_LAYERS, .when = "i >= L"},  \
    {"blk.%d.nextn.shared_head_norm.weight", {"E"}, OPT | ALL_LAYERS, .when = "i >= L"}
static const gguf__llama_tensor tensors_deepseek32[] = {DSA_TENSORS(0), {NULL, {NULL}, 0}};
static const gguf__llama_tensor tensors_glm_dsa[] = {DSA_TENSORS(OPT), {NULL, {NULL}, 0}};

/* ---- deepseek4: latent queries and one key/value head, hyper-connections (HC streams),
 * per-layer key/value compression with an indexer, hash-routed first layers, experts ---- */

static const gguf__llama_key keys_deepseek4[] = {
    RMS_EPS,
    {"attention.q_lora_rank", U32, SCALAR, REQ, .sym = "QLR"},
    {"attention.sliding_window", U32, SCALAR, REQ},
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"expert_shared_count", U32, SCALAR, REQ, .sym = "XS"},
    {"expert_weights_scale", F32, SCALAR, REQ},
    {"expert_weights_norm", BOOL, SCALAR, REQ},
    {"swiglu_clamp_exp", F32, PER_LAYER, REQ},
    {"swiglu_clamp_shexp", F32, PER_LAYER, 0},
    {"attention.indexer.head_count", U32, SCALAR, REQ, .sym = "IH"},
    {"attention.indexer.key_length", U32, SCALAR, REQ, .sym = "IHD"},
    {"attention.indexer.top_k", U32, SCALAR, REQ},
    {"attention.output_group_count", U32, SCALAR, REQ, .sym = "OG"},
    {"attention.output_lora_rank", U32, SCALAR, REQ, .sym = "OLR"},
    {"attention.compress_rope_freq_base", F32, SCALAR, REQ},
    {"hyper_connection.count", U32, SCALAR, REQ, .sym = "HC"},
    {"hyper_connection.sinkhorn_iterations", U32, SCALAR, REQ},
    {"hyper_connection.epsilon", F32, SCALAR, REQ},
    {"hash_layer_count", U32, SCALAR, REQ, .sym = "HASH"},
    /* one ratio a layer (CR_i), at least block_count of them */
    {"attention.compress_ratios", U32, GGUF__LK_ARRAY, REQ, .sym = "NCR"},
    {"expert_gating_func", U32, SCALAR, REQ, .sym = "GF"},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_deepseek4[] = {
    /* every layer is a sliding-window layer: the head size is key_length_swa's */
    {"SWA0", "1", NULL},
    {"HCMIX", "(2+HC)*HC", "hyper_connection_mix_size"},
    {NULL, NULL, NULL}};
static const gguf__llama_rule rules_deepseek4[] = {
    {"NCR >= NL", NULL, "attention.compress_ratios", GGUF_LLAMA_ERROR,
     "has fewer elements than block_count: llama.cpp refuses the model"},
    {"NCR <= 512", NULL, "attention.compress_ratios", GGUF_LLAMA_ERROR,
     "has more than 512 elements: llama.cpp aborts"},
    {"GF == 4", NULL, "expert_gating_func", GGUF_LLAMA_ERROR,
     "is not 4 (sqrt-softplus): llama.cpp refuses deepseek4 with other expert scoring"},
    {"CR_i == 0 || CR_i == 4 || CR_i == 128", NULL, "attention.compress_ratios",
     GGUF_LLAMA_ERROR, "holds a ratio other than 0, 4 or 128: llama.cpp refuses the model",
     .layers = ALL_LAYERS},
    {NULL, NULL, NULL, 0, NULL}};
#define D4 ALL_LAYERS
/* a compressor: its key/value width doubles at a ratio of 4 */
#define D4_COMP "CR_i != 0"
#define D4_IDX "CR_i == 4"
#define D4_NEXTN "blk.%d.nextn.eh_proj.weight"
static const gguf__llama_tensor tensors_deepseek4[] = {
    EMBED_NORM_OUT,
    {"output_hc_fn.weight", {"HC*E", "HC"}, 0},
    {"output_hc_base.weight", {"HC"}, 0},
    {"output_hc_scale.weight", {"1"}, 0},
    {"blk.%d.attn_norm.weight", {"E"}, D4},
    {"blk.%d.attn_sinks.weight", {"H"}, D4},
    {"blk.%d.attn_q_a.weight", {"E", "QLR"}, D4},
    {"blk.%d.attn_q_a_norm.weight", {"QLR"}, D4},
    {"blk.%d.attn_q_b.weight", {"QLR", "H*DK"}, D4},
    {"blk.%d.attn_kv.weight", {"E", "DK"}, D4},
    {"blk.%d.attn_kv_a_norm.weight", {"DK"}, D4},
    /* the file may hold it as [H*DK/OG, OLR*OG] */
    {"blk.%d.attn_output_a.weight", {"H*DK/OG", "OLR", "OG"}, D4 | RESHAPE},
    {"blk.%d.attn_output_b.weight", {"OG*OLR", "E"}, D4},
    {"blk.%d.hc_attn_fn.weight", {"HC*E", "HCMIX"}, D4},
    {"blk.%d.hc_attn_base.weight", {"HCMIX"}, D4},
    {"blk.%d.hc_attn_scale.weight", {"3"}, D4},
    {"blk.%d.hc_ffn_fn.weight", {"HC*E", "HCMIX"}, D4},
    {"blk.%d.hc_ffn_base.weight", {"HCMIX"}, D4},
    {"blk.%d.hc_ffn_scale.weight", {"3"}, D4},
    {"blk.%d.attn_compressor_kv.weight", {"E", "(CR_i == 4 ? 2 : 1)*DK"}, D4, .when = D4_COMP},
    {"blk.%d.attn_compressor_gate.weight", {"E", "(CR_i == 4 ? 2 : 1)*DK"}, D4,
     .when = D4_COMP},
    {"blk.%d.attn_compressor_ape.weight", {"(CR_i == 4 ? 2 : 1)*DK", "CR_i"}, D4,
     .when = D4_COMP},
    {"blk.%d.attn_compressor_norm.weight", {"DK"}, D4, .when = D4_COMP},
    {"blk.%d.indexer.proj.weight", {"E", "IH"}, D4, .when = D4_IDX},
    {"blk.%d.indexer.attn_q_b.weight", {"QLR", "IH*IHD"}, D4, .when = D4_IDX},
    {"blk.%d.indexer_compressor_kv.weight", {"E", "2*IHD"}, D4, .when = D4_IDX},
    {"blk.%d.indexer_compressor_gate.weight", {"E", "2*IHD"}, D4, .when = D4_IDX},
    {"blk.%d.indexer_compressor_ape.weight", {"2*IHD", "4"}, D4, .when = D4_IDX},
    {"blk.%d.indexer_compressor_norm.weight", {"IHD"}, D4, .when = D4_IDX},
    /* the first HASH layers route by token id, the others by score with a bias */
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, D4},
    {"blk.%d.ffn_gate_tid2eid.weight", {"XU", "V"}, D4, .when = "i < HASH"},
    {"blk.%d.exp_probs_b.bias", {"X"}, D4, .when = "i >= HASH"},
    {"blk.%d.exp_probs_b_vl.bias", {"X"}, OPT | D4},
    {"blk.%d.ffn_norm.weight", {"E"}, D4},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, D4},
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, D4},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, D4},
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFE*XS"}, D4},
    {"blk.%d.ffn_down_shexp.weight", {"FFE*XS", "E"}, D4},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFE*XS"}, D4},
    /* without the first next-token layer's eh_proj llama.cpp counts no nextn layers: the
     * last layers are then plain ones */
    {"blk.%d.nextn.eh_proj.weight", {"2*E", "E"}, OPT | D4, .when = "i >= L"},
    {"blk.%d.nextn.enorm.weight", {"E"}, D4, .when = "i >= L", .if_present = D4_NEXTN},
    {"blk.%d.nextn.hnorm.weight", {"E"}, D4, .when = "i >= L", .if_present = D4_NEXTN},
    {"blk.%d.nextn.embed_tokens.weight", {"E", "V"}, OPT | D4, .when = "i >= L",
     .if_present = D4_NEXTN},
    {"blk.%d.nextn.shared_head_head.weight", {"E", "V"}, OPT | D4, .when = "i >= L",
     .if_present = D4_NEXTN},
    {"blk.%d.nextn.shared_head_norm.weight", {"E"}, OPT | D4, .when = "i >= L",
     .if_present = D4_NEXTN},
    {NULL, {NULL}, 0}};
#undef D4
#undef D4_COMP
#undef D4_IDX
#undef D4_NEXTN

/* ---- grok: experts in every layer (an optional dense block beside them), a norm after
 * attention, and after the feed-forward one of two names ---- */

static const gguf__llama_key keys_grok[] = {
    RMS_EPS,
    {"expert_feed_forward_length", U32, PER_LAYER, 0, .sym = "FFE", .dflt = "0"},
    {"logit_scale", F32, SCALAR, 0},
    {"embedding_scale", F32, SCALAR, 0},
    {"attention.output_scale", F32, SCALAR, 0},
    {"attn_logit_softcapping", F32, SCALAR, 0},
    {"router_logit_softcapping", F32, SCALAR, 0},
    {"final_logit_softcapping", F32, SCALAR, 0},
    {"attention.temperature_length", U32, SCALAR, 0},
    {"rope.scaling.yarn_ext_factor", F32, SCALAR, 0},
    {"rope.scaling.yarn_attn_factor", F32, SCALAR, 0},
    {"rope.scaling.yarn_beta_fast", F32, SCALAR, 0},
    {"rope.scaling.yarn_beta_slow", F32, SCALAR, 0},
    {NULL, 0, 0, 0}};
/* the experts are as wide as the dense feed-forward unless given */
static const gguf__llama_sym syms_grok[] = {{"FFX", "FFE ? FFE : FF", "expert_ffn_length"},
                                            {NULL, NULL, NULL}};
static const gguf__llama_rule rules_grok[] = {
    {"X > 0", NULL, "expert_count", GGUF_LLAMA_ERROR, "llama.cpp refuses grok without experts"},
    {NULL, NULL, NULL, 0, NULL}};
static const gguf__llama_tensor tensors_grok[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("E", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"E", "E"}, LAYER},
    {"blk.%d.attn_output_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, OPT | LAYER},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, OPT | LAYER},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, OPT | LAYER},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFX", "X"}, OPT | LAYER},
    {"blk.%d.ffn_down_exps.weight", {"FFX", "E", "X"}, LAYER},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFX", "X"}, LAYER},
    {"blk.%d.layer_output_norm.weight", {"E"}, OPT | LAYER},
    {"blk.%d.post_ffw_norm.weight", {"E"}, LAYER, .if_absent = "blk.%d.layer_output_norm.weight"},
    {NULL, {NULL}, 0}};

/* ---- hy_v3: every layer's feed-forward blocks optional (dense, experts with a routing bias, a
 * shared expert), queries and keys normalized, next-token prediction layers at the end ---- */

static const gguf__llama_key keys_hy_v3[] = {
    RMS_EPS,
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"expert_shared_feed_forward_length", U32, SCALAR, 0, .sym = "FFS", .dflt = "0"},
    {"expert_gating_func", U32, SCALAR, 0},
    {"expert_weights_scale", F32, SCALAR, 0},
    {"expert_weights_norm", BOOL, SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_hy_v3[] = {
    {"FFX", "FFE ? FFE : FF/(XU > 0 ? XU : 1)", "expert_ffn_length"},
    {"FFSX", "FFS ? FFS : FFX", "shared_expert_ffn_length"},
    {NULL, NULL, NULL}};
/* the experts' gate and up of width W, fused (optional) or apart (flags F), in the layers C */
#define GATE_UP_EXPS(W, F, C)                                                                    \
    {"blk.%d.ffn_gate_up_exps.weight", {"E", "2*(" W ")", "X"}, OPT | ALL_LAYERS, .when = C},  \
    {"blk.%d.ffn_gate_exps.weight", {"E", W, "X"}, (F) | ALL_LAYERS, .when = C,                \
     .if_absent = "blk.%d.ffn_gate_up_exps.weight"},                                           \
    {"blk.%d.ffn_up_exps.weight", {"E", W, "X"}, (F) | ALL_LAYERS, .when = C,                  \
     .if_absent = "blk.%d.ffn_gate_up_exps.weight"}
static const gguf__llama_tensor tensors_hy_v3[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, ALL_LAYERS},
    QKV_WHEN("DK*H", "DK*HKV", "DV*HKV", 0, "i < L"),
    QKV_NEXTN("DK*H", "DK*HKV", "DV*HKV"),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, ALL_LAYERS},
    {"blk.%d.attn_q_norm.weight", {"DK"}, ALL_LAYERS},
    {"blk.%d.attn_k_norm.weight", {"DK"}, ALL_LAYERS},
    {"blk.%d.ffn_norm.weight", {"E"}, ALL_LAYERS},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, OPT | ALL_LAYERS},
    /* named without the .bias that other architectures give it */
    {"blk.%d.exp_probs_b", {"X"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_down_exps.weight", {"FFX", "E", "X"}, OPT | ALL_LAYERS},
    GATE_UP_EXPS("FFX", OPT, NULL),
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFSX"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFSX"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_down_shexp.weight", {"FFSX", "E"}, OPT | ALL_LAYERS},
    NEXTN_LAYER,
    {NULL, {NULL}, 0}};

/* ---- mimo2: sliding-window layers by a per-layer pattern, with their own key/value head size;
 * every layer's feed-forward blocks optional (dense, experts with a routing bias), attention
 * sinks, next-token prediction layers at the end ---- */

static const gguf__llama_key keys_mimo2[] = {
    RMS_EPS,
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"attention.sliding_window", U32, SCALAR, REQ},
    {"rope.freq_base_swa", F32, SCALAR, 0},
    {"attention.sliding_window_pattern", U32, PER_LAYER, ANY_LENGTH | REQ, .sym = "PAT"},
    {"attention.value_scale", F32, SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_mimo2[] = {
    {"SWA0", "PAT != 0", NULL},
    {NULL, NULL, NULL}};
/* keys and values take the head size of their layer's kind, queries layer 0's */
#define MIMO2_K "(SWA_i ? DKS : DKF)*HKV_i"
#define MIMO2_V "(SWA_i ? DVS : DVF)*HKV_i"
static const gguf__llama_tensor tensors_mimo2[] = {
    EMBED_NORM_OUT,
    QKV_WHEN("DK*H_i", MIMO2_K, MIMO2_V, 0, "i < L"),
    QKV_NEXTN("DK*H_i", MIMO2_K, MIMO2_V),
    {"blk.%d.attn_output.weight", {"DV*H_i", "E"}, ALL_LAYERS},
    {"blk.%d.attn_norm.weight", {"E"}, ALL_LAYERS},
    {"blk.%d.attn_sinks.weight", {"H_i"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_norm.weight", {"E"}, ALL_LAYERS},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, OPT | ALL_LAYERS},
    {"blk.%d.exp_probs_b.bias", {"X"}, OPT | ALL_LAYERS},
    NEXTN_LAYER,
    {"blk.%d.layer_output_norm.weight", {"E"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {NULL, {NULL}, 0}};
#undef MIMO2_K
#undef MIMO2_V

/* ---- cohere2moe: cohere2's attention (no feed-forward norm), dense first layers, then experts
 * with optional shared ones; sliding-window layers by a per-layer pattern, next-token prediction
 * layers at the end ---- */

static const gguf__llama_key keys_cohere2moe[] = {
    {"attention.layer_norm_epsilon", F32, SCALAR, 0, .sym = "LNE"},
    {"attention.layer_norm_rms_epsilon", F32, SCALAR, 0, .sym = "RMSE"},
    {"attention.sliding_window", U32, SCALAR, REQ},
    {"logit_scale", F32, SCALAR, REQ},
    {"leading_dense_block_count", U32, SCALAR, REQ, .sym = "NDL"},
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"expert_shared_feed_forward_length", U32, SCALAR, 0, .sym = "FFS", .dflt = "0"},
    {"expert_shared_count", U32, SCALAR, 0, .sym = "XS", .dflt = "0"},
    {"expert_weights_norm", BOOL, SCALAR, 0},
    {"expert_weights_scale", F32, SCALAR, 0},
    {"expert_gating_func", U32, SCALAR, 0},
    /* a period (layer 0 of each full), else one flag per layer */
    {"attention.sliding_window_pattern", U32, PER_LAYER, ANY_LENGTH | REQ, .sym = "PAT"},
    {"rope.freq_base_swa", F32, SCALAR, 0},
    {NULL, 0, 0, 0}};
/* layer 0 slides when the per-layer pattern (what the converter writes) says so; a period
 * would make it full */
static const gguf__llama_sym syms_cohere2moe[] = {
    {"SWA0", "PAT != 0", NULL},
    {"FFX", "FFE ? FFE : FF", "expert_ffn_length"},
    {"FFSX", "FFS ? FFS : FFX*XS", "shared_expert_ffn_length"},
    {NULL, NULL, NULL}};
static const gguf__llama_rule rules_cohere2moe[] = {
    {"defined(LNE) || defined(RMSE)", NULL, "attention.layer_norm_epsilon", GGUF_LLAMA_ERROR,
     "is absent, and so is attention.layer_norm_rms_epsilon: llama.cpp refuses cohere2moe "
     "without a norm epsilon"},
    {"X > 0", NULL, "expert_count", GGUF_LLAMA_ERROR, "llama.cpp refuses cohere2moe without experts"},
    {"XU > 0", NULL, "expert_used_count", GGUF_LLAMA_ERROR,
     "llama.cpp refuses cohere2moe with no expert used"},
    {NULL, NULL, NULL, 0, NULL}};
/* the next-token prediction layers have experts whatever leading_dense_block_count says */
#define C2M_DENSE "i < NDL && i < L"
#define C2M_EXPERTS "i >= NDL || i >= L"
static const gguf__llama_tensor tensors_cohere2moe[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, ALL_LAYERS},
    QKV_WHEN("DK*H", "DV*HKV", "DV*HKV", 0, "i < L"),
    QKV_NEXTN("DK*H", "DV*HKV", "DV*HKV"),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, ALL_LAYERS},
    DENSE_FFN_ALL(C2M_DENSE),
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, ALL_LAYERS, .when = C2M_EXPERTS},
    {"blk.%d.ffn_down_exps.weight", {"FFX", "E", "X"}, ALL_LAYERS, .when = C2M_EXPERTS},
    GATE_UP_EXPS("FFX", 0, C2M_EXPERTS),
    SHARED_EXPERTS("FFSX", "(" C2M_EXPERTS ") && XS > 0"),
    NEXTN_LAYER,
    {NULL, {NULL}, 0}};
#undef C2M_DENSE
#undef C2M_EXPERTS

/* ---- step35: sliding-window layers by a per-layer pattern, with their own head size and rope
 * dimension (full layers rope half of rope.dimension_count); every layer's feed-forward blocks
 * optional (dense, experts with a routing bias, a shared expert), a per-head attention gate,
 * next-token prediction layers at the end ---- */

static const gguf__llama_key keys_step35[] = {
    RMS_EPS,
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"expert_shared_feed_forward_length", U32, SCALAR, 0, .sym = "FFS", .dflt = "0"},
    {"expert_gating_func", U32, SCALAR, 0},
    {"expert_weights_scale", F32, SCALAR, 0},
    {"expert_weights_norm", BOOL, SCALAR, 0},
    {"attention.sliding_window", U32, SCALAR, REQ},
    {"rope.freq_base_swa", F32, SCALAR, 0},
    {"attention.sliding_window_pattern", U32, PER_LAYER, REQ, .sym = "PAT"},
    {"swiglu_clamp_exp", F32, PER_LAYER, 0},
    {"swiglu_clamp_shexp", F32, PER_LAYER, 0},
    {NULL, 0, 0, 0}};
/* the rope factors are as long as the widest layer's rope needs: taken here as the wider of the
 * two kinds, as in a model that has both */
static const gguf__llama_sym syms_step35[] = {
    {"SWA0", "PAT != 0", NULL},
    {"RMAX", "RS > RF/2 ? RS : RF/2", "largest_rope_dim"},
    {NULL, NULL, NULL}};
/* keys and values take the head size of their layer's kind, queries layer 0's */
#define STEP35_K "(SWA_i ? DKS : DKF)*HKV_i"
#define STEP35_V "(SWA_i ? DVS : DVF)*HKV_i"
static const gguf__llama_tensor tensors_step35[] = {
    EMBED_NORM_OUT,
    /* created at layer 0 only (duplicated for the others) */
    {"rope_freqs.weight", {"RMAX/2"}, OPT, .when = "!LONGROPE"},
    {"rope_factors_long.weight", {"RMAX/2"}, OPT, .when = "LONGROPE"},
    {"rope_factors_short.weight", {"RMAX/2"}, OPT, .when = "LONGROPE"},
    {"blk.%d.attn_norm.weight", {"E"}, ALL_LAYERS},
    {"blk.%d.attn_q_norm.weight", {"DK"}, OPT | ALL_LAYERS},
    {"blk.%d.attn_k_norm.weight", {"DK"}, OPT | ALL_LAYERS},
    QKV_WHEN("DK*H_i", STEP35_K, STEP35_V, 0, "i < L"),
    QKV_NEXTN("DK*H_i", STEP35_K, STEP35_V),
    {"blk.%d.attn_output.weight", {"DV*H_i", "E"}, ALL_LAYERS},
    {"blk.%d.attn_gate.weight", {"E", "H_i"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_norm.weight", {"E"}, ALL_LAYERS},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, OPT | ALL_LAYERS},
    {"blk.%d.exp_probs_b.bias", {"X"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFS"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFS"}, OPT | ALL_LAYERS},
    {"blk.%d.ffn_down_shexp.weight", {"FFS", "E"}, OPT | ALL_LAYERS},
    NEXTN_LAYER,
    {NULL, {NULL}, 0}};
#undef STEP35_K
#undef STEP35_V

/* ---- minimax-m3: queries and keys normalized per head, dense first layers, then experts with a
 * routing bias and shared ones, and a sparse-attention indexer beside them ---- */

static const gguf__llama_key keys_minimax_m3[] = {
    RMS_EPS,
    {"leading_dense_block_count", U32, SCALAR, 0, .sym = "NDL", .dflt = "0"},
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"expert_shared_count", U32, SCALAR, REQ, .sym = "XS"},
    {"expert_weights_scale", F32, SCALAR, 0},
    {"expert_weights_norm", BOOL, SCALAR, 0},
    {"expert_gating_func", U32, SCALAR, REQ},
    {"attention.indexer.head_count", U32, SCALAR, REQ, .sym = "IH"},
    {"attention.indexer.key_length", U32, SCALAR, REQ, .sym = "IK"},
    {"attention.indexer.top_k", U32, SCALAR, REQ},
    {"attention.indexer.block_size", U32, SCALAR, REQ, .sym = "IB"},
    {"attention.indexer.local_blocks", U32, SCALAR, REQ},
    {NULL, 0, 0, 0}};
static const gguf__llama_rule rules_minimax_m3[] = {
    {"IB > 0", NULL, "attention.indexer.block_size", GGUF_LLAMA_ERROR,
     "is 0: llama.cpp aborts (it divides by it)"},
    {NULL, NULL, NULL, 0, NULL}};
static const gguf__llama_tensor tensors_minimax_m3[] = {
    EMBED_NORM_OUT,
    QKV("DK*H", "DV*HKV", "DV*HKV", 0),
    {"blk.%d.attn_output.weight", {"DK*H", "E"}, LAYER},
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.exp_probs_b.bias", {"X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFE*XS"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_down_shexp.weight", {"FFE*XS", "E"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFE*XS"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.indexer.q_proj.weight", {"E", "IH*IK"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.indexer.k_proj.weight", {"E", "IK"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.indexer.q_norm.weight", {"IK"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.indexer.k_norm.weight", {"IK"}, LAYER, .when = "i >= NDL"},
    {NULL, {NULL}, 0}};

/* ---- bailingmoe3: kimi-delta attention layers (those without key/value heads) and latent
 * attention layers with a per-head gate; dense first layers, then experts with a routing bias
 * and shared ones; next-token prediction layers (latent attention, experts) at the end ---- */

static const gguf__llama_key keys_bailingmoe3[] = {
    RMS_EPS,
    {"attention.key_length_mla", U32, SCALAR, REQ, .sym = "KMLAK"},
    {"attention.value_length_mla", U32, SCALAR, REQ, .sym = "VMLAK"},
    {"attention.kv_lora_rank", U32, SCALAR, REQ, .sym = "KVLR"},
    {"attention.q_lora_rank", U32, SCALAR, 0, .sym = "QLR", .dflt = "0"},
    {"ssm.conv_kernel", U32, SCALAR, REQ, .sym = "CONV"},
    {"kda.head_dim", U32, SCALAR, REQ, .sym = "KDA"},
    {"kda.safe_gate", BOOL, SCALAR, 0, .sym = "SAFE", .dflt = "1"},
    /* llama.cpp also aborts unless it is negative: floats are not symbols, so not judged */
    {"kda.gate_lower_bound", F32, SCALAR, REQ},
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"expert_shared_feed_forward_length", U32, SCALAR, 0, .sym = "FFS", .dflt = "0"},
    {"expert_shared_count", U32, SCALAR, REQ, .sym = "XS"},
    {"leading_dense_block_count", U32, SCALAR, REQ, .sym = "NDL"},
    {"expert_weights_scale", F32, SCALAR, 0},
    {"expert_weights_norm", BOOL, SCALAR, 0},
    {"expert_gating_func", U32, SCALAR, REQ},
    {"swiglu_clamp_exp", F32, PER_LAYER, 0},
    {"swiglu_clamp_shexp", F32, PER_LAYER, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_bailingmoe3[] = {
    {"MLA", "KMLAK != 0 && VMLAK != 0", NULL},
    {"KMLA", "MLA ? KMLAK : DK", "mla_key_head_size"},
    {"VMLA", "MLA ? VMLAK : DV", "mla_value_head_size"},
    {"KDI", "KDA*H", "kda.head_dim*attention.head_count"},
    {"FFSX", "FFS ? FFS : FFE*(XS > 1 ? XS : 1)", "shared_expert_ffn_length"},
    {NULL, NULL, NULL}};
static const gguf__llama_rule rules_bailingmoe3[] = {
    {"SAFE", NULL, "kda.safe_gate", GGUF_LLAMA_ERROR, "is false: llama.cpp aborts"},
    {NULL, NULL, NULL, 0, NULL}};
#define BM3_ATTN "i >= L || !RECR_i"
#define BM3_DENSE "i < NDL && i < L"
#define BM3_EXPERTS "i >= NDL || i >= L"
static const gguf__llama_tensor tensors_bailingmoe3[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, ALL_LAYERS},
    {"blk.%d.ssm_conv1d_q.weight", {"CONV", "1", "KDI", "1"}, LAYER, .when = "RECR_i"},
    {"blk.%d.ssm_conv1d_k.weight", {"CONV", "1", "KDI", "1"}, LAYER, .when = "RECR_i"},
    {"blk.%d.ssm_conv1d_v.weight", {"CONV", "1", "KDI", "1"}, LAYER, .when = "RECR_i"},
    QKV_WHEN("KDI", "KDI", "KDI", 0, "RECR_i"),
    {"blk.%d.ssm_f_a.weight", {"E", "KDI"}, LAYER, .when = "RECR_i"},
    {"blk.%d.ssm_beta.weight", {"E", "H"}, LAYER, .when = "RECR_i"},
    {"blk.%d.ssm_a", {"1", "H"}, LAYER, .when = "RECR_i"},
    {"blk.%d.ssm_dt.bias", {"KDI"}, LAYER, .when = "RECR_i"},
    {"blk.%d.ssm_g_a.weight", {"E", "KDI"}, LAYER, .when = "RECR_i"},
    {"blk.%d.ssm_norm.weight", {"KDA"}, LAYER, .when = "RECR_i"},
    {"blk.%d.attn_output.weight", {"KDI", "E"}, LAYER, .when = "RECR_i"},
    {"blk.%d.attn_q_a.weight", {"E", "QLR"}, ALL_LAYERS, .when = "(" BM3_ATTN ") && QLR > 0"},
    {"blk.%d.attn_q_a_norm.weight", {"QLR"}, ALL_LAYERS, .when = "(" BM3_ATTN ") && QLR > 0"},
    {"blk.%d.attn_q_b.weight", {"QLR", "H*KMLA"}, ALL_LAYERS,
     .when = "(" BM3_ATTN ") && QLR > 0"},
    {"blk.%d.attn_q.weight", {"E", "H*KMLA"}, ALL_LAYERS, .when = "(" BM3_ATTN ") && QLR == 0"},
    {"blk.%d.attn_kv_a_mqa.weight", {"E", "KVLR+R"}, ALL_LAYERS, .when = BM3_ATTN},
    {"blk.%d.attn_kv_a_norm.weight", {"KVLR"}, ALL_LAYERS, .when = BM3_ATTN},
    {"blk.%d.attn_k_b.weight", {"KMLA-R", "KVLR", "H"}, ALL_LAYERS, .when = BM3_ATTN},
    {"blk.%d.attn_v_b.weight", {"KVLR", "VMLA", "H"}, ALL_LAYERS, .when = BM3_ATTN},
    {"blk.%d.attn_gate.weight", {"E", "H"}, ALL_LAYERS, .when = BM3_ATTN},
    {"blk.%d.attn_output.weight", {"H*VMLA", "E"}, ALL_LAYERS, .when = BM3_ATTN},
    {"blk.%d.ffn_norm.weight", {"E"}, ALL_LAYERS},
    DENSE_FFN_ALL(BM3_DENSE),
    /* the routing bias is required here */
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, ALL_LAYERS, .when = BM3_EXPERTS},
    {"blk.%d.exp_probs_b.bias", {"X"}, ALL_LAYERS, .when = BM3_EXPERTS},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, ALL_LAYERS, .when = BM3_EXPERTS},
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, ALL_LAYERS, .when = BM3_EXPERTS},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, ALL_LAYERS, .when = BM3_EXPERTS},
    SHARED_EXPERTS("FFSX", BM3_EXPERTS),
    {"blk.%d.nextn.eh_proj.weight", {"2*E", "E"}, ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.nextn.enorm.weight", {"E"}, ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.nextn.hnorm.weight", {"E"}, ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.layer_output_norm.weight", {"E"}, ALL_LAYERS, .when = "i >= L"},
    {NULL, {NULL}, 0}};
#undef BM3_ATTN
#undef BM3_DENSE
#undef BM3_EXPERTS

/* ---- laguna: gated attention (a gate per head or per element), queries and keys normalized,
 * head counts per layer, dense first layers, then experts with a routing bias and a shared
 * expert; sliding-window layers with attention.sliding_window > 0 (layer 0 of each period
 * full) ---- */

static const gguf__llama_key keys_laguna[] = {
    RMS_EPS,
    {"leading_dense_block_count", U32, SCALAR, REQ, .sym = "NDL"},
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"expert_gating_func", U32, SCALAR, 0},
    {"expert_weights_scale", F32, SCALAR, 0},
    {"expert_weights_norm", BOOL, SCALAR, 0},
    {"expert_shared_count", U32, SCALAR, 0, .sym = "XS", .dflt = "1"},
    {"expert_shared_feed_forward_length", U32, SCALAR, 0, .sym = "FFS", .dflt = "0"},
    {"attention.sliding_window", U32, SCALAR, 0, .sym = "SWIN", .dflt = "0"},
    {"attention.sliding_window_pattern", U32, GGUF__LK_SCALAR_OR_IGNORED, 0, .sym = "PAT",
     .dflt = "4", .when = "SWIN > 0"},
    {"rope.freq_base_swa", F32, SCALAR, 0, .when = "SWIN > 0"},
    {"rope.dimension_count_swa", U32, SCALAR, 0, .when = "SWIN > 0"},
    {NULL, 0, 0, 0}};
static const gguf__llama_sym syms_laguna[] = {
    {"SWA0", "SWIN > 0 && PAT == 0", NULL},
    {"FFSX", "FFS ? FFS : FFE*XS", "shared_expert_ffn_length"},
    {NULL, NULL, NULL}};
static const gguf__llama_tensor tensors_laguna[] = {
    EMBED_OUT,
    {"blk.%d.attn_norm.weight", {"E"}, LAYER},
    QKV("DK*H_i", "DK*HKV_i", "DV*HKV_i", 0),
    {"blk.%d.attn_output.weight", {"DK*H_i", "E"}, LAYER},
    {"blk.%d.attn_q_norm.weight", {"DK"}, LAYER},
    {"blk.%d.attn_k_norm.weight", {"DK"}, LAYER},
    /* one gate per head, or one per element (llama.cpp aborts on any other width) */
    {"blk.%d.attn_gate.weight", {"E", "H_i"}, LAYER, .alt_dims = {"E", "DK*H_i"}},
    {"blk.%d.ffn_norm.weight", {"E"}, LAYER},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.exp_probs_b.bias", {"X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFSX"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFSX"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_down_shexp.weight", {"FFSX", "E"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER, .when = "i < NDL"},
    {NULL, {NULL}, 0}};

/* ---- dots3note: latent attention of two geometries (sliding-window layers by a per-layer
 * pattern, full ones), a per-head gate, a sparse-attention indexer in the layers
 * attention.indexer.types names; dense first layers, then experts with a routing bias and shared
 * ones; next-token prediction layers (sliding geometry, dense, all optional) at the end ---- */

static const gguf__llama_key keys_dots3note[] = {
    RMS_EPS,
    {"expert_shared_count", U32, SCALAR, REQ, .sym = "XS"},
    {"expert_feed_forward_length", U32, PER_LAYER, REQ, .sym = "FFE"},
    {"leading_dense_block_count", U32, SCALAR, REQ, .sym = "NDL"},
    {"expert_weights_scale", F32, SCALAR, 0},
    {"expert_weights_norm", BOOL, SCALAR, 0},
    {"expert_gating_func", U32, SCALAR, REQ},
    {"attention.q_lora_rank", U32, SCALAR, REQ, .sym = "QLR"},
    {"attention.kv_lora_rank", U32, SCALAR, REQ, .sym = "KVLR"},
    {"attention.key_length_mla", U32, SCALAR, REQ, .sym = "KMLA"},
    {"attention.value_length_mla", U32, SCALAR, REQ, .sym = "VMLA"},
    {"attention.kv_lora_rank_swa", U32, SCALAR, REQ, .sym = "KVLRS"},
    {"attention.key_length_mla_swa", U32, SCALAR, REQ, .sym = "KMLAS"},
    {"attention.value_length_mla_swa", U32, SCALAR, REQ, .sym = "VMLAS"},
    {"attention.sliding_window", U32, SCALAR, REQ},
    {"rope.freq_base_swa", F32, SCALAR, REQ},
    {"attention.sliding_window_pattern", U32, GGUF__LK_ARRAY, REQ},
    {"attention.indexer.head_count", U32, SCALAR, REQ, .sym = "IH"},
    {"attention.indexer.key_length", U32, SCALAR, REQ, .sym = "IK"},
    {"attention.indexer.top_k", U32, SCALAR, REQ},
    {"attention.indexer.types", U32, GGUF__LK_ARRAY, REQ},
    {NULL, 0, 0, 0}};
/* the rope dimension is layer 0's: taken as the full layers' (the converter writes one rope
 * dimension for both kinds) */
static const gguf__llama_sym syms_dots3note[] = NO_SYMS;
static const gguf__llama_rule rules_dots3note[] = {
    {"KMLA != 0 && VMLA != 0", NULL, "attention.key_length_mla", GGUF_LLAMA_ERROR,
     "or attention.value_length_mla is 0: llama.cpp refuses dots3note without latent attention"},
    {"X > 0 && XU > 0", "NDL < L", "expert_count", GGUF_LLAMA_ERROR,
     "or expert_used_count is 0: llama.cpp refuses expert layers (after "
     "leading_dense_block_count) without experts"},
    {NULL, NULL, NULL, 0, NULL}};
/* the attention of a layer of either geometry; the next-token prediction layers take the
 * sliding one */
#define D3_SWA "(i >= L || SWA_i)"
#define D3_KVR "(" D3_SWA " ? KVLRS : KVLR)"
#define D3_KM "(" D3_SWA " ? KMLAS : KMLA)"
#define D3_VM "(" D3_SWA " ? VMLAS : VMLA)"
#define DOTS3_LAYER(F, W)                                                                        \
    {"blk.%d.attn_norm.weight", {"E"}, F, .when = W},                                          \
    {"blk.%d.attn_q_a_norm.weight", {"QLR"}, F, .when = W},                                    \
    {"blk.%d.attn_kv_a_norm.weight", {D3_KVR}, F, .when = W},                                  \
    {"blk.%d.attn_k_norm.weight", {"R"}, F, .when = W},                                        \
    {"blk.%d.attn_q_a.weight", {"E", "QLR"}, F, .when = W},                                    \
    {"blk.%d.attn_q_b.weight", {"QLR", "H_i*" D3_KM}, F, .when = W},                           \
    {"blk.%d.attn_kv_a_mqa.weight", {"E", D3_KVR "+R"}, F, .when = W},                         \
    {"blk.%d.attn_k_b.weight", {D3_KM "-R", D3_KVR, "H_i"}, F, .when = W},                     \
    {"blk.%d.attn_v_b.weight", {D3_KVR, D3_VM, "H_i"}, F, .when = W},                          \
    {"blk.%d.attn_output.weight", {"H_i*" D3_VM, "E"}, F, .when = W},                          \
    {"blk.%d.attn_gate.weight", {"E", "H_i"}, F, .when = W},                                   \
    {"blk.%d.ffn_norm.weight", {"E"}, F, .when = W}
static const gguf__llama_tensor tensors_dots3note[] = {
    EMBED_OUT,
    DOTS3_LAYER(LAYER, NULL),
    DOTS3_LAYER(OPT | ALL_LAYERS, "i >= L"),
    {"blk.%d.indexer.k_norm.weight", {"IK"}, LAYER, .when = "IDX_i"},
    {"blk.%d.indexer.k_norm.bias", {"IK"}, LAYER, .when = "IDX_i"},
    {"blk.%d.indexer.proj.weight", {"E", "IH"}, LAYER, .when = "IDX_i"},
    {"blk.%d.indexer.attn_k.weight", {"E", "IK"}, LAYER, .when = "IDX_i"},
    {"blk.%d.indexer.attn_q_b.weight", {"QLR", "IH*IK"}, LAYER, .when = "IDX_i"},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, LAYER, .when = "i < NDL"},
    {"blk.%d.ffn_gate.weight", {"E", "FF"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.ffn_down.weight", {"FF", "E"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.ffn_up.weight", {"E", "FF"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.ffn_gate_inp.weight", {"E", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.exp_probs_b.bias", {"X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_gate_exps.weight", {"E", "FFE", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_down_exps.weight", {"FFE", "E", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_up_exps.weight", {"E", "FFE", "X"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_gate_shexp.weight", {"E", "FFE*XS"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_down_shexp.weight", {"FFE*XS", "E"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.ffn_up_shexp.weight", {"E", "FFE*XS"}, LAYER, .when = "i >= NDL"},
    {"blk.%d.nextn.eh_proj.weight", {"2*E", "E"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.nextn.enorm.weight", {"E"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.nextn.hnorm.weight", {"E"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.nextn.embed_tokens.weight", {"E", "V"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {"blk.%d.nextn.shared_head_norm.weight", {"E"}, OPT | ALL_LAYERS, .when = "i >= L"},
    {NULL, {NULL}, 0}};
#undef D3_SWA
#undef D3_KVR
#undef D3_KM
#undef D3_VM

/* ---- the architectures checked for keys only ---- */

static const gguf__llama_key keys_gptneox[] = {
    {"attention.layer_norm_epsilon", GGUF_VTYPE_F32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {"use_parallel_residual", GGUF_VTYPE_BOOL, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_mpt[] = {
    {"attention.layer_norm_epsilon", GGUF_VTYPE_F32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {"attention.clamp_kqv", GGUF_VTYPE_F32, GGUF__LK_SCALAR, 0},
    {"attention.max_alibi_bias", GGUF_VTYPE_F32, GGUF__LK_SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_qwen2vl[] = {
    {"rope.dimension_sections", GGUF_VTYPE_I32, GGUF__LK_PER_LAYER, GGUF__LK_ANY_LENGTH | GGUF__LK_REQUIRED},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_gemma4_assistant[] = {
    {"attention.sliding_window_pattern", GGUF_VTYPE_U32, GGUF__LK_PER_LAYER, GGUF__LK_REQUIRED},
    {"attention.shared_kv_layers", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {"rope.freq_base_swa", GGUF_VTYPE_F32, GGUF__LK_SCALAR, 0},
    {"attention.sliding_window", GGUF_VTYPE_U32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {"attention.layer_norm_rms_epsilon", GGUF_VTYPE_F32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {"attention.key_length_swa", GGUF_VTYPE_U32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {"attention.value_length_swa", GGUF_VTYPE_U32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_command_r[] = {
    {"logit_scale", GGUF_VTYPE_F32, GGUF__LK_SCALAR, 0},
    {"attention.layer_norm_epsilon", GGUF_VTYPE_F32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_dbrx[] = {
    {"attention.layer_norm_epsilon", GGUF_VTYPE_F32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {"attention.clamp_kqv", GGUF_VTYPE_F32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_olmo[] = {
    {"attention.layer_norm_epsilon", GGUF_VTYPE_F32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {"attention.clamp_kqv", GGUF_VTYPE_F32, GGUF__LK_SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_jais[] = {
    {"attention.layer_norm_epsilon", GGUF_VTYPE_F32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {"attention.max_alibi_bias", GGUF_VTYPE_F32, GGUF__LK_SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_wavtokenizer_dec[] = {
    {"attention.layer_norm_epsilon", GGUF_VTYPE_F32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {"attention.group_norm_epsilon", GGUF_VTYPE_F32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {"attention.group_norm_groups", GGUF_VTYPE_U32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_bailingmoe[] = {
    {"attention.layer_norm_rms_epsilon", GGUF_VTYPE_F32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {"leading_dense_block_count", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {"expert_feed_forward_length", GGUF_VTYPE_U32, GGUF__LK_PER_LAYER, GGUF__LK_REQUIRED, .sym = "FFE"},
    {"expert_shared_count", GGUF_VTYPE_U32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED, .sym = "XS"},
    {"expert_weights_scale", GGUF_VTYPE_F32, GGUF__LK_SCALAR, 0},
    {"expert_weights_norm", GGUF_VTYPE_BOOL, GGUF__LK_SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_hunyuan_moe[] = {
    {"attention.layer_norm_rms_epsilon", GGUF_VTYPE_F32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {"expert_feed_forward_length", GGUF_VTYPE_U32, GGUF__LK_PER_LAYER, GGUF__LK_REQUIRED},
    {"expert_shared_feed_forward_length", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0, .sym = "FFS", .dflt = "0"},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_smallthinker[] = {
    {"attention.sliding_window", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {"attention.sliding_window_pattern", GGUF_VTYPE_U32, GGUF__LK_SCALAR_OR_IGNORED, 0},
    {"rope.freq_base_swa", GGUF_VTYPE_F32, GGUF__LK_SCALAR, 0},
    {"expert_feed_forward_length", GGUF_VTYPE_U32, GGUF__LK_PER_LAYER, 0, .sym = "FFE", .dflt = "0"},
    {"attention.layer_norm_rms_epsilon", GGUF_VTYPE_F32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {"expert_gating_func", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_apertus[] = {
    {"attention.layer_norm_rms_epsilon", GGUF_VTYPE_F32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {"xielu.alpha_n", GGUF_VTYPE_F32, GGUF__LK_PER_LAYER, GGUF__LK_ANY_LENGTH | GGUF__LK_REQUIRED | GGUF__LK_GLOBAL},
    {"xielu.alpha_p", GGUF_VTYPE_F32, GGUF__LK_PER_LAYER, GGUF__LK_ANY_LENGTH | GGUF__LK_REQUIRED | GGUF__LK_GLOBAL},
    {"xielu.beta", GGUF_VTYPE_F32, GGUF__LK_PER_LAYER, GGUF__LK_ANY_LENGTH | GGUF__LK_REQUIRED | GGUF__LK_GLOBAL},
    {"xielu.eps", GGUF_VTYPE_F32, GGUF__LK_PER_LAYER, GGUF__LK_ANY_LENGTH | GGUF__LK_REQUIRED | GGUF__LK_GLOBAL},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_minimax_m2[] = {
    {"attention.layer_norm_rms_epsilon", GGUF_VTYPE_F32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {"expert_feed_forward_length", GGUF_VTYPE_U32, GGUF__LK_PER_LAYER, GGUF__LK_REQUIRED},
    {"expert_gating_func", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_eagle3[] = {
    {"attention.layer_norm_rms_epsilon", GGUF_VTYPE_F32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {"target_hidden_size", GGUF_VTYPE_U32, GGUF__LK_SCALAR, GGUF__LK_REQUIRED},
    {"norm_before_residual", GGUF_VTYPE_BOOL, GGUF__LK_SCALAR, 0},
    {"norm_before_fc", GGUF_VTYPE_BOOL, GGUF__LK_SCALAR, 0},
    {NULL, 0, 0, 0}};
static const gguf__llama_key keys_dflash[] = {
    {"attention.layer_norm_rms_epsilon", GGUF_VTYPE_F32, GGUF__LK_SCALAR, 0},
    {"logit_scale", GGUF_VTYPE_F32, GGUF__LK_SCALAR, 0},
    {"final_logit_softcapping", GGUF_VTYPE_F32, GGUF__LK_SCALAR, 0},
    {"rope.dimension_sections", GGUF_VTYPE_I32, GGUF__LK_PER_LAYER, GGUF__LK_ANY_LENGTH},
    {"block_size", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {"conv_kernel_size", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {"conv_group_size", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {"selector_rank", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {"selector_top_k", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {"hyper_connection.count", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {"attention.q_lora_rank", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {"attention.sliding_window", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {"expert_feed_forward_length", GGUF_VTYPE_U32, GGUF__LK_PER_LAYER, 0},
    {"expert_shared_count", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {"expert_weights_scale", GGUF_VTYPE_F32, GGUF__LK_SCALAR, 0},
    {"expert_weights_norm", GGUF_VTYPE_BOOL, GGUF__LK_SCALAR, 0},
    {"expert_gating_func", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {"swiglu_clamp_exp", GGUF_VTYPE_F32, GGUF__LK_PER_LAYER, 0},
    {"swiglu_clamp_shexp", GGUF_VTYPE_F32, GGUF__LK_PER_LAYER, 0},
    {"attention.output_group_count", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {"attention.output_lora_rank", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {"hyper_connection.sinkhorn_iterations", GGUF_VTYPE_U32, GGUF__LK_SCALAR, 0},
    {"hyper_connection.epsilon", GGUF_VTYPE_F32, GGUF__LK_SCALAR, 0},
    {"attention.compress_ratios", GGUF_VTYPE_U32, GGUF__LK_ARRAY, 0},
    {"attention.sliding_window_pattern", GGUF_VTYPE_U32, GGUF__LK_ARRAY, 0},
    {NULL, 0, 0, 0}};

/* ---- every architecture llama.cpp knows, in llama-arch.cpp's order ---- */

const gguf__llama_arch gguf__llama_archs[] = {
    {.name = "clip", .refused = 1,
     .not_a_model = "a placeholder llama-quantize uses for multimodal projector (mmproj) files; "
                    "llama.cpp aborts on loading it as a model, the projector runs in its mtmd "
                    "library"},
    {.name = "llama", .keys = keys_llama, .syms = syms_llama, .rules = rules_llama, .tensors = tensors_llama},
    {.name = "llama4", .keys = keys_llama4, .syms = syms_llama4, .rules = rules_llama4, .tensors = tensors_llama4},
    {.name = "deci", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_deci},
    {.name = "falcon", .keys = keys_layer_norm, .syms = syms_llama, .rules = rules_falcon, .tensors = tensors_falcon},
    {.name = "grok", .keys = keys_grok, .syms = syms_grok, .rules = rules_grok, .tensors = tensors_grok},
    {.name = "gpt2", .keys = keys_layer_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_gpt2},
    {.name = "gptj", .refused = 1,
     .not_a_model = "named by llama.cpp but no loader creates a model for it (unsupported model "
                    "architecture)"},
    {.name = "gptneox", .keys = keys_gptneox, .syms = syms_llama, .rules = rules_none, .tensors = tensors_gptneox},
    {.name = "mpt", .keys = keys_mpt, .syms = syms_llama, .rules = rules_none, .tensors = tensors_mpt},
    {.name = "baichuan", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_baichuan},
    {.name = "starcoder", .keys = keys_layer_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_starcoder},
    {.name = "refact", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_llama},
    {.name = "bert", .keys = keys_bert, .syms = syms_bert, .rules = rules_bert, .tensors = tensors_bert},
    {.name = "modern-bert", .keys = keys_modern_bert, .syms = syms_llama, .rules = rules_none, .tensors = tensors_modern_bert},
    {.name = "nomic-bert", .keys = keys_nomic_bert, .syms = syms_nomic_bert, .rules = rules_nomic_bert, .tensors = tensors_nomic_bert},
    {.name = "nomic-bert-moe", .keys = keys_nomic_bert, .syms = syms_nomic_bert, .rules = rules_nomic_bert, .tensors = tensors_nomic_bert_moe},
    {.name = "neo-bert", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_neo_bert},
    {.name = "jina-bert-v2", .keys = keys_layer_norm, .syms = syms_bert, .rules = rules_none, .tensors = tensors_jina_bert_v2},
    {.name = "jina-bert-v3", .keys = keys_layer_norm, .syms = syms_bert, .rules = rules_bert, .tensors = tensors_jina_bert_v3},
    {.name = "eurobert", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_eurobert},
    {.name = "bloom", .keys = keys_layer_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_bloom},
    {.name = "stablelm", .keys = keys_layer_norm, .syms = syms_stablelm, .rules = rules_stablelm, .tensors = tensors_stablelm},
    {.name = "qwen", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_qwen},
    {.name = "qwen2", .keys = keys_rms_norm, .syms = syms_qwen2, .rules = rules_qwen2, .tensors = tensors_qwen2},
    {.name = "qwen2moe", .keys = keys_qwen2moe, .syms = syms_qwen2moe, .rules = rules_qwen2moe, .tensors = tensors_qwen2moe},
    {.name = "qwen2vl", .keys = keys_qwen2vl, .syms = syms_llama, .rules = rules_none, .tensors = tensors_dream},
    {.name = "qwen3", .keys = keys_rms_norm, .syms = syms_qwen3, .rules = rules_qwen3, .tensors = tensors_qwen3},
    {.name = "qwen3moe", .keys = keys_qwen3moe, .syms = syms_qwen3moe, .rules = rules_qwen3moe, .tensors = tensors_qwen3moe},
    {.name = "qwen3next", .keys = keys_qwen3next, .syms = syms_deltanet_moe, .rules = rules_deltanet_moe, .tensors = tensors_qwen3next},
    {.name = "qwen3vl", .keys = keys_rms_norm_deepstack, .syms = syms_qwen3, .rules = rules_qwen3, .tensors = tensors_qwen3},
    {.name = "qwen3vlmoe", .keys = keys_qwen3vlmoe, .syms = syms_expert_ff, .rules = rules_experts_used, .tensors = tensors_rnd1},
    {.name = "qwen35", .keys = keys_qwen35, .syms = syms_deltanet, .rules = rules_none, .tensors = tensors_qwen35},
    {.name = "qwen35moe", .keys = keys_qwen35moe, .syms = syms_deltanet_moe, .rules = rules_deltanet_moe, .tensors = tensors_qwen35moe},
    {.name = "qwen4exp", .keys = keys_qwen4exp, .syms = syms_qwen4exp, .rules = rules_qwen4exp, .tensors = tensors_qwen4exp},
    {.name = "phi2", .keys = keys_layer_norm, .syms = syms_phi2, .rules = rules_phi2, .tensors = tensors_phi2},
    {.name = "phi3", .keys = keys_phi3, .syms = syms_phi3, .rules = rules_phi3, .tensors = tensors_phi3},
    {.name = "phimoe", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_phimoe},
    {.name = "plamo", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_plamo},
    {.name = "plamo2", .keys = keys_plamo2, .syms = syms_plamo2, .rules = rules_none, .tensors = tensors_plamo2},
    {.name = "plamo3", .keys = keys_plamo3, .syms = syms_plamo3, .rules = rules_none, .tensors = tensors_plamo3},
    {.name = "codeshell", .keys = keys_layer_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_codeshell},
    {.name = "orion", .keys = keys_layer_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_orion},
    {.name = "internlm2", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_internlm2},
    {.name = "minicpm", .keys = keys_minicpm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_llama},
    {.name = "minicpm3", .keys = keys_minicpm3, .syms = syms_llama, .rules = rules_none, .tensors = tensors_minicpm3},
    {.name = "gemma", .keys = keys_rms_norm, .syms = syms_gemma, .rules = rules_gemma, .tensors = tensors_gemma},
    {.name = "gemma2", .keys = keys_gemma2, .syms = syms_gemma2, .rules = rules_gemma2, .tensors = tensors_gemma2},
    {.name = "gemma3", .keys = keys_gemma3, .syms = syms_gemma3, .rules = rules_gemma3, .tensors = tensors_gemma3},
    {.name = "gemma3n", .keys = keys_gemma3n, .syms = syms_gemma3n, .rules = rules_none, .tensors = tensors_gemma3n},
    {.name = "gemma4", .keys = keys_gemma4, .syms = syms_gemma4, .rules = rules_gemma4, .tensors = tensors_gemma4},
    {.name = "gemma4-assistant", .keys = keys_gemma4_assistant,
     .not_a_model = "a draft head for Gemma 4: its input is the target model's hidden state "
                    "(embedding_length_out carries the target's width, required to differ from "
                    "its own)"},
    {.name = "gemma-embedding", .keys = keys_gemma_embedding, .syms = syms_gemma_embedding, .rules = rules_gemma_embedding, .tensors = tensors_gemma_embedding},
    {.name = "starcoder2", .keys = keys_layer_norm, .syms = syms_starcoder2, .rules = rules_starcoder2, .tensors = tensors_starcoder2},
    {.name = "mamba", .keys = keys_mamba, .syms = syms_llama, .rules = rules_mamba, .tensors = tensors_mamba},
    {.name = "mamba2", .keys = keys_mamba2, .syms = syms_mamba2, .rules = rules_mamba2, .tensors = tensors_mamba2},
    {.name = "jamba", .keys = keys_jamba, .syms = syms_llama, .rules = rules_jamba, .tensors = tensors_jamba},
    {.name = "falcon-h1", .keys = keys_falcon_h1, .syms = syms_mamba2, .rules = rules_none, .tensors = tensors_falcon_h1},
    {.name = "xverse", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_xverse},
    {.name = "command-r", .keys = keys_command_r, .syms = syms_llama, .rules = rules_none, .tensors = tensors_command_r},
    {.name = "cohere2", .keys = keys_cohere2, .syms = syms_cohere2, .rules = rules_none, .tensors = tensors_cohere2},
    {.name = "cohere2moe", .keys = keys_cohere2moe, .syms = syms_cohere2moe, .rules = rules_cohere2moe, .tensors = tensors_cohere2moe, .mtp_probe = "blk.%d.nextn.eh_proj.weight"},
    {.name = "dbrx", .keys = keys_dbrx, .syms = syms_llama, .rules = rules_dbrx, .tensors = tensors_dbrx},
    {.name = "olmo", .keys = keys_olmo, .syms = syms_llama, .rules = rules_none, .tensors = tensors_olmo},
    {.name = "olmo2", .keys = keys_olmo2, .syms = syms_olmo2, .rules = rules_olmo2, .tensors = tensors_olmo2},
    {.name = "olmoe", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_olmoe, .tensors = tensors_olmoe},
    {.name = "muse-glimmer", .keys = keys_muse_glimmer, .syms = syms_muse_glimmer, .rules = rules_none, .tensors = tensors_muse_glimmer},
    {.name = "openelm", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_openelm},
    {.name = "arctic", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_arctic},
    {.name = "deepseek", .keys = keys_deepseek, .syms = syms_llama, .rules = rules_deepseek, .tensors = tensors_deepseek},
    {.name = "deepseek2", .keys = keys_deepseek2, .syms = syms_deepseek2, .rules = rules_deepseek2, .tensors = tensors_deepseek2, .mtp_probe = "blk.%d.nextn.eh_proj.weight"},
    {.name = "deepseek2-ocr", .keys = keys_rms_norm_dense_lead_moe, .syms = syms_llama, .rules = rules_deepseek, .tensors = tensors_deepseek2_ocr},
    {.name = "deepseek32", .keys = keys_deepseek32, .syms = syms_deepseek2, .rules = rules_dsa, .tensors = tensors_deepseek32, .mtp_probe = "blk.%d.nextn.eh_proj.weight"},
    {.name = "deepseek4", .keys = keys_deepseek4, .syms = syms_deepseek4, .rules = rules_deepseek4, .tensors = tensors_deepseek4},
    {.name = "chatglm", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_chatglm},
    {.name = "glm4", .keys = keys_rms_norm_mrope, .syms = syms_glm4, .rules = rules_glm4, .tensors = tensors_glm4},
    {.name = "glm4moe", .keys = keys_glm4moe, .syms = syms_glm4moe, .rules = rules_glm4moe, .tensors = tensors_glm4moe, .mtp_probe = "blk.%d.nextn.eh_proj.weight"},
    {.name = "glm-dsa", .keys = keys_glm_dsa, .syms = syms_deepseek2, .rules = rules_dsa, .tensors = tensors_glm_dsa, .mtp_probe = "blk.%d.nextn.eh_proj.weight"},
    {.name = "bitnet", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_bitnet},
    {.name = "t5", .keys = keys_t5, .syms = syms_llama, .rules = rules_none, .tensors = tensors_t5},
    {.name = "t5encoder", .keys = keys_t5encoder, .syms = syms_llama, .rules = rules_none, .tensors = tensors_t5encoder},
    {.name = "jais", .keys = keys_jais, .syms = syms_llama, .rules = rules_none, .tensors = tensors_jais},
    {.name = "jais2", .keys = keys_layer_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_jais2},
    {.name = "nemotron", .keys = keys_layer_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_nemotron},
    {.name = "nemotron_h", .keys = keys_nemotron_h, .syms = syms_nemotron_h, .rules = rules_none, .tensors = tensors_nemotron_h},
    {.name = "nemotron_h_moe", .keys = keys_nemotron_h, .syms = syms_nemotron_h, .rules = rules_none, .tensors = tensors_nemotron_h},
    {.name = "exaone", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_exaone},
    {.name = "exaone4", .keys = keys_exaone4, .syms = syms_exaone4, .rules = rules_exaone4, .tensors = tensors_exaone4},
    {.name = "exaone-moe", .keys = keys_exaone_moe, .syms = syms_exaone_moe, .rules = rules_deepseek, .tensors = tensors_exaone_moe},
    {.name = "rwkv6", .keys = keys_rwkv6, .syms = syms_llama, .rules = rules_none, .tensors = tensors_rwkv6},
    {.name = "rwkv6qwen2", .keys = keys_rwkv6, .syms = syms_rwkv6qwen2, .rules = rules_none, .tensors = tensors_rwkv6qwen2},
    {.name = "rwkv7", .keys = keys_rwkv7, .syms = syms_rwkv7, .rules = rules_rwkv7, .tensors = tensors_rwkv7},
    {.name = "arwkv7", .keys = keys_rwkv7, .syms = syms_rwkv7, .rules = rules_rwkv7, .tensors = tensors_arwkv7},
    {.name = "granite", .keys = keys_granite, .syms = syms_granite, .rules = rules_granite, .tensors = tensors_granite},
    {.name = "granitemoe", .keys = keys_granitemoe, .syms = syms_granitemoe, .rules = rules_granitemoe, .tensors = tensors_granitemoe},
    {.name = "granitehybrid", .keys = keys_granitehybrid, .syms = syms_llama, .rules = rules_granitehybrid, .tensors = tensors_granitehybrid},
    {.name = "graniteswitch", .keys = keys_graniteswitch, .syms = syms_llama, .rules = rules_graniteswitch, .tensors = tensors_graniteswitch},
    {.name = "granite_swa", .keys = keys_granite_swa, .syms = syms_llama, .rules = rules_none, .tensors = tensors_granite_swa},
    {.name = "chameleon", .keys = keys_chameleon, .syms = syms_llama, .rules = rules_none, .tensors = tensors_chameleon},
    {.name = "wavtokenizer-dec", .keys = keys_wavtokenizer_dec,
     .not_a_model = "a vocoder: it turns a text-to-speech model's audio codes into spectrum "
                    "features (embedding_length wide), not tokens into logits"},
    {.name = "plm", .keys = keys_plm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_plm},
    {.name = "bailingmoe", .keys = keys_bailingmoe, .syms = syms_llama, .rules = rules_experts_used, .tensors = tensors_bailingmoe},
    {.name = "bailingmoe2", .keys = keys_bailingmoe2, .syms = syms_llama, .rules = rules_experts_used, .tensors = tensors_bailingmoe2},
    {.name = "bailingmoe3", .keys = keys_bailingmoe3, .syms = syms_bailingmoe3, .rules = rules_bailingmoe3, .tensors = tensors_bailingmoe3, .mtp_probe = "blk.%d.nextn.eh_proj.weight"},
    {.name = "dots1", .keys = keys_rms_norm_dense_lead_moe, .syms = syms_llama, .rules = rules_deepseek, .tensors = tensors_dots1},
    {.name = "dots3note", .keys = keys_dots3note, .syms = syms_dots3note, .rules = rules_dots3note, .tensors = tensors_dots3note},
    {.name = "arcee", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_arcee},
    {.name = "afmoe", .keys = keys_afmoe, .syms = syms_afmoe, .rules = rules_none, .tensors = tensors_afmoe},
    {.name = "laguna", .keys = keys_laguna, .syms = syms_laguna, .rules = rules_none, .tensors = tensors_laguna},
    {.name = "ernie4_5", .keys = keys_ernie4_5, .syms = syms_ernie4_5, .rules = rules_ernie4_5, .tensors = tensors_ernie4_5},
    {.name = "ernie4_5-moe", .keys = keys_ernie4_5_moe, .syms = syms_ernie4_5_moe, .rules = rules_ernie4_5_moe, .tensors = tensors_ernie4_5_moe},
    {.name = "hunyuan-moe", .keys = keys_hunyuan_moe, .syms = syms_llama, .rules = rules_none, .tensors = tensors_hunyuan_moe},
    {.name = "hunyuan-dense", .keys = keys_rms_norm_mrope, .syms = syms_llama, .rules = rules_none, .tensors = tensors_hunyuan_vl},
    {.name = "hunyuan_vl", .keys = keys_rms_norm_mrope, .syms = syms_llama, .rules = rules_none, .tensors = tensors_hunyuan_vl},
    {.name = "hy_v3", .keys = keys_hy_v3, .syms = syms_hy_v3, .rules = rules_none, .tensors = tensors_hy_v3, .mtp_probe = "blk.%d.nextn.eh_proj.weight"},
    {.name = "smollm3", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_smollm3},
    {.name = "gpt-oss", .keys = keys_gpt_oss, .syms = syms_gpt_oss, .rules = rules_gpt_oss, .tensors = tensors_gpt_oss},
    {.name = "lfm2", .keys = keys_lfm2, .syms = syms_lfm2, .rules = rules_lfm2, .tensors = tensors_lfm2},
    {.name = "lfm2moe", .keys = keys_lfm2moe, .syms = syms_lfm2moe, .rules = rules_lfm2moe, .tensors = tensors_lfm2},
    {.name = "dream", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_dream},
    {.name = "smallthinker", .keys = keys_smallthinker, .syms = syms_llama, .rules = rules_experts_used, .tensors = tensors_smallthinker},
    {.name = "llada", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_llada},
    {.name = "llada-moe", .keys = keys_rms_norm_expert_ff, .syms = syms_expert_ff, .rules = rules_experts_used, .tensors = tensors_llada_moe},
    {.name = "seed_oss", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_seed_oss},
    {.name = "grovemoe", .keys = keys_grovemoe, .syms = syms_grovemoe, .rules = rules_grovemoe, .tensors = tensors_grovemoe},
    {.name = "apertus", .keys = keys_apertus, .syms = syms_llama, .rules = rules_none, .tensors = tensors_apertus},
    {.name = "minimax-01", .keys = keys_minimax_01, .syms = syms_llama, .rules = rules_none, .tensors = tensors_minimax_01},
    {.name = "minimax-m2", .keys = keys_minimax_m2, .syms = syms_llama, .rules = rules_none, .tensors = tensors_minimax_m2},
    {.name = "minimax-m3", .keys = keys_minimax_m3, .syms = syms_llama, .rules = rules_minimax_m3, .tensors = tensors_minimax_m3},
    {.name = "cogvlm", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_cogvlm},
    {.name = "rnd1", .keys = keys_rms_norm_expert_ff, .syms = syms_expert_ff, .rules = rules_experts_used, .tensors = tensors_rnd1},
    {.name = "pangu-embedded", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_pangu_embedded},
    {.name = "mistral3", .keys = keys_mistral3, .syms = syms_mistral3, .rules = rules_mistral3, .tensors = tensors_mistral3},
    {.name = "eagle3", .keys = keys_eagle3,
     .not_a_model = "an EAGLE-3 draft head for speculative decoding: its input is the hidden "
                    "states of three layers of the target model (extract_layers, required)"},
    {.name = "dflash", .keys = keys_dflash,
     .not_a_model = "a DFlash draft head for speculative decoding: its input is the hidden states"
                    " of the target model's target_layers (required)"},
    {.name = "mistral4", .keys = keys_deepseek2, .syms = syms_deepseek2, .rules = rules_deepseek2, .tensors = tensors_deepseek2, .mtp_probe = "blk.%d.nextn.eh_proj.weight"},
    {.name = "paddleocr", .keys = keys_ernie4_5, .syms = syms_ernie4_5, .rules = rules_ernie4_5, .tensors = tensors_ernie4_5},
    {.name = "mimo2", .keys = keys_mimo2, .syms = syms_mimo2, .rules = rules_none, .tensors = tensors_mimo2, .mtp_probe = "blk.%d.nextn.eh_proj.weight"},
    {.name = "step35", .keys = keys_step35, .syms = syms_step35, .rules = rules_none, .tensors = tensors_step35, .mtp_probe = "blk.%d.nextn.eh_proj.weight"},
    {.name = "llama-embed", .keys = keys_llama, .syms = syms_llama, .rules = rules_llama, .tensors = tensors_llama},
    {.name = "maincoder", .keys = keys_rms_norm, .syms = syms_llama, .rules = rules_none, .tensors = tensors_maincoder},
    {.name = "kimi-linear", .keys = keys_kimi_linear, .syms = syms_kimi_linear, .rules = rules_none, .tensors = tensors_kimi_linear},
    {.name = "kimi-k3", .keys = keys_kimi_k3, .syms = syms_kimi_k3, .rules = rules_none, .tensors = tensors_kimi_k3},
    {.name = "talkie", .keys = keys_talkie, .syms = syms_llama, .rules = rules_none, .tensors = tensors_talkie},
    {.name = "mellum", .keys = keys_mellum, .syms = syms_mellum, .rules = rules_experts_used, .tensors = tensors_mellum},
    {.name = "nanbeige", .keys = keys_nanbeige, .syms = syms_llama, .rules = rules_nanbeige, .tensors = tensors_nanbeige},
    {.name = "qwen3tts", .keys = keys_rms_norm_deepstack,
     .not_a_model = "the talker of Qwen3-TTS: its output is 3072 audio codes; the speaker "
                    "encoder, code predictor and code-to-wave stages run as projectors in "
                    "llama.cpp's mtmd library"},
    {.name = "pockettts", .keys = keys_layer_norm,
     .not_a_model = "the backbone of the pocket-tts pipeline: it has no output head (its logits "
                    "are unused) and the audio comes from a flow network in the mmproj"},
};
const size_t gguf__llama_n_archs = sizeof gguf__llama_archs / sizeof gguf__llama_archs[0];

const gguf__llama_arch *gguf__llama_arch_find(const char *name, size_t len) {
    for (size_t i = 0; i < gguf__llama_n_archs; i++) {
        if (strlen(gguf__llama_archs[i].name) == len &&
            memcmp(gguf__llama_archs[i].name, name, len) == 0)
            return &gguf__llama_archs[i];
    }
    return NULL;
}

const char *gguf_llama_arch_not_a_model(const char *arch) {
    const gguf__llama_arch *a = arch ? gguf__llama_arch_find(arch, strlen(arch)) : NULL;
    return a != NULL ? a->not_a_model : NULL;
}

int gguf_llama_arch_support(const char *arch) {
    const gguf__llama_arch *a = arch ? gguf__llama_arch_find(arch, strlen(arch)) : NULL;
    if (a == NULL || a->refused)
        return GGUF_LLAMA_ARCH_UNKNOWN;
    return a->tensors != NULL ? GGUF_LLAMA_ARCH_FULL : GGUF_LLAMA_ARCH_KEYS;
}

const char *gguf_llama_arch_name(size_t i) {
    return i < gguf__llama_n_archs ? gguf__llama_archs[i].name : NULL;
}
