/* Builds a tiny model of a llama.cpp architecture, for tests whose judge is llama.cpp's own
 * loader (ggml-oracle llama-load): the tokenizer keys of a real vocabulary file, small
 * hyperparameters of the architecture (a recipe below), and every tensor the loader requires
 * for them (the library's plan, gguf__llama_plan), filled with small pseudo-random values. A
 * model llama.cpp loads proves the tensor table right for that architecture.
 *
 *   make_llama_model ARCH VOCAB.gguf OUT.gguf [options]
 *     --set KEY=TYPE:VALUE   set a key after the recipe (TYPE: u32 i32 f32 bool str)
 *     --drop NAME            leave a tensor out
 *     --extra NAME           add a tensor the loader does not create ([E] F32)
 *     --opt NAME             add an optional tensor of the plan
 *     --reshape NAME         give a tensor one more row than it should have
 *     --add-dim NAME         give a tensor one dimension more than it should have (of 2)
 *     --dtype T              type of 2-D+ tensors (default F16; f32, q8_0, ...)
 *     --layers N             block_count (default 2)
 *     --scale N              the recipe's widths N times over (embedding, feed-forward, head,
 *                            rank and state sizes); 4 makes most rows a multiple of 256, so
 *                            that K-quants apply to them (requant's comparisons)
 *   make_llama_model --keys ARCH
 *     prints the architecture's own keys from the library's table, one a line, as
 *     "KEY required|optional always|conditional" (KEY in full: "ARCH.NAME", or a global
 *     key's NAME), for tests that remove or retype each one
 *   make_llama_model --recipes
 *     prints the architectures that have a recipe, one a line
 *   make_llama_model --imatrix MODEL.gguf OUT.gguf
 *     writes an importance matrix in llama-imatrix's GGUF format for every matrix of MODEL
 *     but token_embd: positive pseudo-random sums over one token (counts of 1, so each weight
 *     is its sum exactly), one row of them per expert of a 3-D tensor */
#include "libgguf/llama/llama.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kv {
    const char *key; /* without "{arch}." when it starts with '.' */
    const char *type;
    const char *value;
} kv;

/* Small hyperparameters per architecture ('.' = "{arch}."; a value in [] is an array of the
 * type, one element per layer). SMALL: the sizes most recipes share, with HKV key/value heads. */
#define SMALL(HKV)                                                                               \
    {".context_length", "u32", "128"}, {".embedding_length", "u32", "64"},                     \
    {".feed_forward_length", "u32", "128"}, {".attention.head_count", "u32", "4"},             \
    {".attention.head_count_kv", "u32", HKV}
/* SMALL with an RMS norm's or a layer norm's epsilon */
#define RMS(HKV) SMALL(HKV), {".attention.layer_norm_rms_epsilon", "f32", "1e-5"}
#define LN(HKV) SMALL(HKV), {".attention.layer_norm_epsilon", "f32", "1e-5"}
/* four experts, two used a token (of width 32) */
#define EXPERTS {".expert_count", "u32", "4"}, {".expert_used_count", "u32", "2"}
#define EXPERTS_FF EXPERTS, {".expert_feed_forward_length", "u32", "32"}
/* a state-space block: a convolution of 4, the inner width, a state of 16, 4 time-step ranks,
 * the groups */
#define SSM(INNER, GROUPS)                                                                       \
    {".ssm.conv_kernel", "u32", "4"}, {".ssm.inner_size", "u32", INNER},                       \
    {".ssm.state_size", "u32", "16"}, {".ssm.time_step_rank", "u32", "4"},                     \
    {".ssm.group_count", "u32", GROUPS}
/* nemotron_h's three layers: a mamba2 layer, an attention layer, a feed-forward layer */
#define NEMOTRON_H                                                                               \
    {".block_count", "u32", "3"}, {".context_length", "u32", "128"},                           \
    {".embedding_length", "u32", "64"}, {".feed_forward_length", "u32", "[0, 0, 128]"},        \
    {".attention.head_count", "u32", "4"}, {".attention.head_count_kv", "u32", "[0, 2, 0]"},   \
    {".attention.layer_norm_rms_epsilon", "f32", "1e-5"},                                      \
    {".attention.layer_norm_epsilon", "f32", "1e-5"}, SSM("128", "1")
/* llama's, and llama-embed's */
#define LLAMA                                                                                    \
    SMALL("2"), {".rope.dimension_count", "u32", "16"},                                        \
    {".attention.layer_norm_rms_epsilon", "f32", "1e-5"}
/* deepseek2's, and mistral4's: latent attention (heads of 48 for keys, 16 of them rope, and 32
 * for values), a dense first layer, then experts with a shared one */
#define DEEPSEEK2                                                                                \
    SMALL("1"), {".attention.key_length", "u32", "48"},                                        \
    {".attention.value_length", "u32", "32"}, {".attention.key_length_mla", "u32", "48"},      \
    {".attention.value_length_mla", "u32", "32"}, {".attention.q_lora_rank", "u32", "32"},     \
    {".attention.kv_lora_rank", "u32", "32"}, {".rope.dimension_count", "u32", "16"},          \
    {".leading_dense_block_count", "u32", "1"}, EXPERTS,                                       \
    {".expert_shared_count", "u32", "1"}, {".expert_feed_forward_length", "u32", "32"},        \
    {".expert_weights_scale", "f32", "1.0"},                                                   \
    {".attention.layer_norm_rms_epsilon", "f32", "1e-6"}
static const struct recipe {
    const char *arch;
    kv keys[32];
} recipes[] = {
    {"llama", {LLAMA}},
    {"qwen2", {SMALL("2"), {".attention.layer_norm_rms_epsilon", "f32", "1e-6"}}},
    {"qwen3", {SMALL("2"), {".attention.key_length", "u32", "32"},
               {".attention.value_length", "u32", "32"},
               {".attention.layer_norm_rms_epsilon", "f32", "1e-6"}}},
    {"qwen3moe", {SMALL("2"), EXPERTS_FF,
                  {".attention.layer_norm_rms_epsilon", "f32", "1e-6"}}},
    {"gemma2", {SMALL("2"), {".attention.key_length", "u32", "16"},
                {".attention.value_length", "u32", "16"},
                {".attention.sliding_window", "u32", "32"},
                {".attention.layer_norm_rms_epsilon", "f32", "1e-6"},
                {".attn_logit_softcapping", "f32", "50"}, {".final_logit_softcapping", "f32", "30"}}},
    {"gemma3", {SMALL("1"), {".attention.key_length", "u32", "32"},
                {".attention.value_length", "u32", "32"},
                {".attention.sliding_window", "u32", "32"},
                {".attention.layer_norm_rms_epsilon", "f32", "1e-6"}}},
    {"phi3", {SMALL("4"), {".rope.dimension_count", "u32", "16"},
              {".attention.layer_norm_rms_epsilon", "f32", "1e-5"}}},
    {"deepseek2", {DEEPSEEK2}},
    /* layer 0 dense, layer 1 experts with a shared one */
    {"deepseek2-ocr",
     {RMS("4"), {".leading_dense_block_count", "u32", "1"}, EXPERTS_FF,
      {".expert_shared_count", "u32", "1"}}},
    {"gpt-oss", {SMALL("2"), {".attention.key_length", "u32", "16"},
                 {".attention.value_length", "u32", "16"}, {".rope.dimension_count", "u32", "16"},
                 {".attention.sliding_window", "u32", "32"}, EXPERTS_FF,
                 {".attention.layer_norm_rms_epsilon", "f32", "1e-5"}}},
    {"bert", {{".context_length", "u32", "64"}, {".embedding_length", "u32", "64"},
              {".feed_forward_length", "u32", "128"}, {".attention.head_count", "u32", "4"},
              {".attention.layer_norm_epsilon", "f32", "1e-12"}, {".attention.causal", "bool", "false"},
              {".pooling_type", "u32", "1"}}},
    {"nomic-bert", {{".context_length", "u32", "64"}, {".embedding_length", "u32", "64"},
                    {".feed_forward_length", "u32", "128"}, {".attention.head_count", "u32", "4"},
                    {".attention.layer_norm_epsilon", "f32", "1e-12"},
                    {".attention.causal", "bool", "false"}, {".pooling_type", "u32", "1"},
                    {".rope.freq_base", "f32", "1000"}}},
    {"mistral3", {RMS("2")}},
    {"granite", {RMS("2"), {".logit_scale", "f32", "8"}}},
    {"granitemoe",
     {RMS("2"), {".logit_scale", "f32", "8"},
      EXPERTS,
      {".expert_shared_feed_forward_length", "u32", "32"}}},
    /* layer 1 sliding-window; experts with a shared one */
    {"granite_swa",
     {RMS("2"), {".logit_scale", "f32", "8"}, {".attention.sliding_window", "u32", "32"},
      {".attention.sliding_window_pattern", "u32", "[0, 1]"}, EXPERTS,
      {".expert_shared_feed_forward_length", "u32", "32"}}},
    {"nanbeige", {RMS("2"), {".num_loops", "u32", "2"}}},
    /* layer 0 sliding-window, layer 1 not */
    {"mellum",
     {RMS("2"), EXPERTS_FF, {".attention.sliding_window", "u32", "32"},
      {".attention.sliding_window_pattern", "u32", "2"}}},
    /* layer 0 sliding-window, layer 1 not */
    {"plamo3",
     {RMS("2"), {".attention.sliding_window", "u32", "32"},
      {".attention.sliding_window_pattern", "u32", "2"}}},
    /* layer 0 sliding-window, layer 1 not */
    {"muse-glimmer",
     {RMS("2"), {".attention.sliding_window", "u32", "32"}, {".logit_scale", "f32", "1"},
      {".attention.sliding_window_pattern", "u32", "[1, 0]"}}},
    /* layer 0 sliding-window, layer 1 not */
    {"gemma3n",
     {RMS("2"), {".attention.sliding_window", "u32", "32"},
      {".attention.sliding_window_pattern", "u32", "2"}}},
    /* layer 0 sliding-window (heads of 16), layer 1 full (heads of 32) sharing layer 0's keys
     * and values */
    {"gemma4",
     {RMS("2"), {".attention.key_length", "u32", "32"}, {".attention.value_length", "u32", "32"},
      {".attention.key_length_swa", "u32", "16"}, {".attention.value_length_swa", "u32", "16"},
      {".attention.sliding_window", "u32", "32"},
      {".attention.sliding_window_pattern", "bool", "[true, false]"},
      {".attention.shared_kv_layers", "u32", "1"},
      {".embedding_length_per_layer_input", "u32", "8"}}},
    {"cogvlm", {RMS("4")}},
    /* two adapters of rank 4 */
    {"graniteswitch",
     {RMS("2"), {".logit_scale", "f32", "8"}, {".adapters.count", "u32", "2"},
      {".adapters.lora_rank", "u32", "4"}, {".adapters.token_ids_activate", "i32", "[5, 6]"},
      {".adapters.token_ids_substitute", "i32", "[7, 8]"}}},
    /* layer 0 a delta-net layer, layer 1 attention; two hyper-connection streams */
    {"qwen4exp",
     {RMS("2"), EXPERTS_FF, {".rope.dimension_sections", "i32", "[4, 2, 2, 0]"},
      SSM("64", "2"), {".full_attention_interval", "u32", "2"},
      {".hyper_connection.count", "u32", "2"}, {".hyper_connection.low_rank", "u32", "8"},
      {".attention.indexer.head_count", "u32", "2"}, {".attention.indexer.key_length", "u32", "16"},
      {".attention.indexer.top_k", "u32", "8"}}},
    {"gemma", {RMS("2")}},
    {"olmo2", {RMS("2"), {".attention.sliding_window", "u32", "32"}}},
    {"exaone4",
     {RMS("2"), {".attention.key_length", "u32", "16"},
      {".attention.value_length", "u32", "16"}}},
    {"ernie4_5", {RMS("2")}},
    {"ernie4_5-moe",
     {RMS("2"), EXPERTS_FF,
      {".expert_shared_feed_forward_length", "u32", "64"},
      {".interleave_moe_layer_step", "u32", "1"},
      {".leading_dense_block_count", "u32", "1"}}},
    {"paddleocr", {RMS("2")}},
    {"phi2", {LN("2")}},
    {"starcoder2", {LN("2")}},
    {"stablelm", {LN("2")}},
    {"qwen2moe",
     {RMS("2"), EXPERTS_FF,
      {".expert_shared_feed_forward_length", "u32", "64"}}},
    {"glm4moe",
     {RMS("2"), EXPERTS_FF, {".expert_shared_count", "u32", "1"},
      {".leading_dense_block_count", "u32", "1"}}},
    {"mamba2",
     {{".context_length", "u32", "128"}, {".embedding_length", "u32", "64"},
      {".feed_forward_length", "u32", "0"}, {".attention.head_count", "u32", "0"},
      SSM("128", "1"), {".attention.layer_norm_rms_epsilon", "f32", "1e-5"}}},
    {"rwkv7",
     {{".context_length", "u32", "128"}, {".embedding_length", "u32", "64"},
      {".feed_forward_length", "u32", "128"}, {".attention.head_count", "u32", "0"},
      {".wkv.head_size", "u32", "16"}, {".attention.decay_lora_rank", "u32", "8"},
      {".attention.iclr_lora_rank", "u32", "8"},
      {".attention.value_residual_mix_lora_rank", "u32", "16"},
      {".attention.gate_lora_rank", "u32", "32"}, {".attention.layer_norm_epsilon", "f32", "1e-5"}}},
    {"rwkv6",
     {{".context_length", "u32", "128"}, {".embedding_length", "u32", "64"},
      {".feed_forward_length", "u32", "128"}, {".attention.head_count", "u32", "0"},
      {".wkv.head_size", "u32", "16"}, {".time_mix_extra_dim", "u32", "8"},
      {".time_decay_extra_dim", "u32", "16"}, {".attention.layer_norm_epsilon", "f32", "1e-5"}}},
    /* keys and values of 2 heads of 16, narrower than the embedding */
    {"rwkv6qwen2",
     {SMALL("2"), {".wkv.head_size", "u32", "16"}, {".time_mix_extra_dim", "u32", "8"},
      {".time_decay_extra_dim", "u32", "16"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-6"}}},
    /* no gate: five fused interpolations would do too */
    {"arwkv7",
     {SMALL("2"), {".wkv.head_size", "u32", "16"}, {".attention.decay_lora_rank", "u32", "8"},
      {".attention.iclr_lora_rank", "u32", "8"},
      {".attention.value_residual_mix_lora_rank", "u32", "16"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-6"}}},
    {"glm4", {RMS("2")}},
    {"gpt2", {LN("2")}},
    {"starcoder", {LN("2")}},
    {"bloom", {LN("2")}},
    {"falcon", {LN("2")}},
    {"mpt", {LN("2")}},
    {"codeshell", {LN("2")}},
    {"orion", {LN("2")}},
    {"internlm2", {RMS("2")}},
    {"baichuan", {RMS("2")}},
    {"xverse", {RMS("2")}},
    {"refact", {RMS("2")}},
    {"smollm3", {RMS("2")}},
    {"seed_oss", {RMS("2")}},
    {"lfm2",
     {{".context_length", "u32", "128"}, {".embedding_length", "u32", "64"},
      {".feed_forward_length", "u32", "128"}, {".attention.head_count", "u32", "4"},
      /* layer 0 a short convolution, layer 1 attention */
      {".attention.head_count_kv", "u32", "[0, 2]"}, {".shortconv.l_cache", "u32", "3"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-5"}}},
    {"command-r", {LN("2")}},
    {"cohere2",
     {LN("2"), {".attention.sliding_window", "u32", "32"}, {".logit_scale", "f32", "0.125"}}},
    /* its q and k norms are as wide as the embedding: no grouped-query attention */
    {"olmoe", {RMS("4"), EXPERTS}},
    {"chatglm", {RMS("2")}},
    {"bitnet", {RMS("2")}},
    {"exaone", {RMS("2")}},
    {"arcee", {RMS("2")}},
    {"gptneox", {LN("2"), {".use_parallel_residual", "bool", "true"}}},
    {"minicpm", {RMS("2")}},
    {"deepseek",
     {RMS("2"), EXPERTS_FF, {".expert_shared_count", "u32", "1"},
      {".leading_dense_block_count", "u32", "1"}}},
    {"dbrx", {LN("2"), EXPERTS, {".attention.clamp_kqv", "f32", "8"}}},
    {"arctic", {RMS("2"), EXPERTS}},
    {"dream", {RMS("2")}},
    {"llada", {RMS("2")}},
    {"maincoder", {RMS("2")}},
    {"plamo", {RMS("2")}},
    {"qwen", {RMS("2")}},
    {"pangu-embedded", {RMS("2")}},
    {"phimoe", {RMS("2"), EXPERTS}},
    {"olmo", {LN("2")}},
    {"jais", {LN("2")}},
    {"nemotron", {LN("2")}},
    {"jais2", {LN("4")}},
    {"minimax-m2", {RMS("2"), EXPERTS_FF, {".expert_gating_func", "u32", "2"}}},
    {"hunyuan-moe", {RMS("2"), EXPERTS_FF}},
    {"apertus",
     {RMS("2"), {"xielu.alpha_n", "f32", "0.8"}, {"xielu.alpha_p", "f32", "0.8"},
      {"xielu.beta", "f32", "0.5"}, {"xielu.eps", "f32", "1e-6"}}},
    {"openelm",
     {{".context_length", "u32", "128"}, {".embedding_length", "u32", "64"},
      /* heads and feed-forward widths per layer */
      {".feed_forward_length", "u32", "[128, 192]"}, {".attention.head_count", "u32", "[4, 6]"},
      {".attention.head_count_kv", "u32", "[2, 3]"}, {".attention.key_length", "u32", "16"},
      {".attention.value_length", "u32", "16"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-5"}}},
    /* layer 0 a delta-net layer, layer 1 attention */
    {"qwen3next",
     {SMALL("2"), {".attention.key_length", "u32", "16"},
      {".attention.value_length", "u32", "16"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-6"},
      EXPERTS_FF,
      SSM("64", "2"), {".full_attention_interval", "u32", "2"}}},
    {"qwen35",
     {SMALL("2"), {".attention.key_length", "u32", "16"},
      {".attention.value_length", "u32", "16"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-6"},
      {".rope.dimension_sections", "i32", "[4, 2, 2, 0]"},
      SSM("64", "2"), {".full_attention_interval", "u32", "2"}}},
    {"qwen35moe",
     {SMALL("2"), {".attention.key_length", "u32", "16"},
      {".attention.value_length", "u32", "16"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-6"},
      EXPERTS_FF,
      {".rope.dimension_sections", "i32", "[4, 2, 2, 0]"},
      SSM("64", "2"), {".full_attention_interval", "u32", "2"}}},
    /* layer 0 a mamba2 layer, layer 1 attention */
    {"granitehybrid",
     {{".context_length", "u32", "128"}, {".embedding_length", "u32", "64"},
      {".feed_forward_length", "u32", "128"}, {".attention.head_count", "u32", "4"},
      {".attention.head_count_kv", "u32", "[0, 2]"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-5"},
      SSM("128", "1")}},
    {"nemotron_h", {NEMOTRON_H}},
    /* with experts in the feed-forward layer */
    {"nemotron_h_moe", {NEMOTRON_H, EXPERTS_FF, {".expert_shared_feed_forward_length", "u32", "64"}}},
    {"mamba",
     {{".context_length", "u32", "128"}, {".embedding_length", "u32", "64"},
      {".feed_forward_length", "u32", "0"}, {".attention.head_count", "u32", "0"},
      {".ssm.conv_kernel", "u32", "4"}, {".ssm.inner_size", "u32", "128"},
      {".ssm.state_size", "u32", "16"}, {".ssm.time_step_rank", "u32", "4"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-5"}}},
    /* layer 0 a mamba layer, layer 1 attention */
    {"jamba",
     {{".context_length", "u32", "128"}, {".embedding_length", "u32", "64"},
      {".feed_forward_length", "u32", "128"}, {".attention.head_count", "u32", "4"},
      {".attention.head_count_kv", "u32", "[0, 2]"},
      {".ssm.conv_kernel", "u32", "4"}, {".ssm.inner_size", "u32", "128"},
      {".ssm.state_size", "u32", "16"}, {".ssm.time_step_rank", "u32", "4"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-6"}}},
    {"falcon-h1", {RMS("2"), SSM("128", "1")}},
    /* layer 0 a mamba layer, layer 1 attention (keys wider than values) */
    {"plamo2",
     {{".context_length", "u32", "128"}, {".embedding_length", "u32", "64"},
      {".feed_forward_length", "u32", "128"}, {".attention.head_count", "u32", "4"},
      {".attention.head_count_kv", "u32", "[0, 2]"}, {".attention.key_length", "u32", "32"},
      {".attention.value_length", "u32", "16"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-6"}, SSM("128", "1")}},
    /* layer 0 a delta-attention layer with a dense feed-forward, layer 1 latent attention (heads
     * of 48 for keys, 16 of them rope, and 32 for values) with experts and a shared one */
    {"kimi-linear",
     {{".context_length", "u32", "128"}, {".embedding_length", "u32", "64"},
      {".feed_forward_length", "u32", "128"}, {".attention.head_count", "u32", "4"},
      {".attention.head_count_kv", "u32", "[0, 4]"}, {".rope.dimension_count", "u32", "16"},
      {".attention.key_length_mla", "u32", "48"}, {".attention.value_length_mla", "u32", "32"},
      {".attention.kv_lora_rank", "u32", "32"}, {".ssm.conv_kernel", "u32", "4"},
      {".kda.head_dim", "u32", "16"}, {".leading_dense_block_count", "u32", "1"}, EXPERTS_FF,
      {".expert_shared_count", "u32", "1"}, {".expert_gating_func", "u32", "2"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-5"}}},
    /* layer 0 linear attention, layer 1 softmax attention */
    {"minimax-01",
     {RMS("2"), EXPERTS, {".residual_scale", "f32", "1"},
      {".full_attention_interval", "u32", "2"}}},
    {"hunyuan-dense", {RMS("2")}},
    {"hunyuan_vl", {RMS("2")}},
    {"t5", {RMS("4"), {".attention.relative_buckets_count", "u32", "32"}}},
    {"t5encoder", {RMS("4"), {".attention.relative_buckets_count", "u32", "32"}}},
    /* deepseek2's loader and llama's */
    {"mistral4", {DEEPSEEK2}},
    {"llama-embed", {LLAMA}},
    {"gemma-embedding",
     {SMALL("1"), {".attention.key_length", "u32", "32"},
      {".attention.value_length", "u32", "32"}, {".attention.sliding_window", "u32", "32"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-6"}}},
    {"qwen2vl", {RMS("2"), {".rope.dimension_sections", "i32", "[4, 2, 2, 0]"}}},
    {"llada-moe", {RMS("2"), EXPERTS}},
    {"rnd1", {RMS("2"), EXPERTS_FF}},
    {"bailingmoe", {RMS("2"), EXPERTS_FF, {".expert_shared_count", "u32", "1"}}},
    {"eurobert", {RMS("2"), {".attention.causal", "bool", "false"}, {".pooling_type", "u32", "1"}}},
    {"neo-bert", {RMS("2"), {".attention.causal", "bool", "false"}, {".pooling_type", "u32", "1"}}},
    {"smallthinker", {RMS("2"), EXPERTS_FF, {".expert_gating_func", "u32", "1"}}},
    {"jina-bert-v3",
     {SMALL("4"), {".attention.layer_norm_epsilon", "f32", "1e-12"},
      {".attention.causal", "bool", "false"}, {".pooling_type", "u32", "1"}}},
    {"jina-bert-v2",
     {SMALL("4"), {".attention.layer_norm_epsilon", "f32", "1e-12"},
      {".attention.causal", "bool", "false"}, {".pooling_type", "u32", "1"}}},
    /* sliding-window attention in layer 1 */
    {"modern-bert",
     {SMALL("4"), {".attention.layer_norm_epsilon", "f32", "1e-5"},
      {".attention.causal", "bool", "false"}, {".pooling_type", "u32", "2"},
      {".attention.sliding_window", "u32", "32"}, {".attention.sliding_window_pattern", "u32", "2"}}},
    /* layer 1 has experts */
    {"nomic-bert-moe",
     {SMALL("4"), {".attention.layer_norm_epsilon", "f32", "1e-12"},
      {".attention.causal", "bool", "false"}, {".pooling_type", "u32", "1"},
      {".moe_every_n_layers", "u32", "2"}, EXPERTS}},
    {"qwen3vl",
     {SMALL("2"), {".attention.key_length", "u32", "32"}, {".attention.value_length", "u32", "32"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-6"},
      {".rope.dimension_sections", "i32", "[8, 4, 4, 0]"}}},
    {"qwen3vlmoe",
     {SMALL("2"), {".attention.layer_norm_rms_epsilon", "f32", "1e-6"},
      EXPERTS_FF,
      {".rope.dimension_sections", "i32", "[4, 2, 2, 0]"}}},
    {"talkie", {RMS("2"), {".logit_scale", "f32", "1"}}},
    {"chameleon", {RMS("2")}},
    /* latent attention: heads of 48 for keys (16 of them rope) and 32 for values */
    {"minicpm3",
     {SMALL("4"), {".attention.key_length", "u32", "48"}, {".attention.value_length", "u32", "32"},
      {".rope.dimension_count", "u32", "16"}, {".attention.q_lora_rank", "u32", "32"},
      {".attention.kv_lora_rank", "u32", "32"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-5"}}},
    {"plm",
     {SMALL("4"), {".attention.key_length", "u32", "48"}, {".attention.value_length", "u32", "32"},
      {".rope.dimension_count", "u32", "16"}, {".attention.kv_lora_rank", "u32", "32"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-5"}}},
    /* layer 0 dense, layer 1 experts */
    /* its loader gives K and V every head: no grouped-query attention */
    {"dots1",
     {RMS("4"), {".leading_dense_block_count", "u32", "1"}, EXPERTS_FF,
      {".expert_shared_count", "u32", "1"}, {".expert_gating_func", "u32", "2"}}},
    {"bailingmoe2",
     {RMS("2"), {".leading_dense_block_count", "u32", "1"}, EXPERTS_FF,
      {".expert_shared_count", "u32", "1"}, {".expert_gating_func", "u32", "2"}}},
    {"exaone-moe",
     {RMS("2"), {".attention.sliding_window", "u32", "32"},
      {".leading_dense_block_count", "u32", "1"}, EXPERTS_FF,
      {".expert_gating_func", "u32", "2"}}},
    /* layer 0 a short convolution with a dense feed-forward, layer 1 attention with experts */
    {"lfm2moe",
     {{".context_length", "u32", "128"}, {".embedding_length", "u32", "64"},
      {".feed_forward_length", "u32", "128"}, {".attention.head_count", "u32", "4"},
      {".attention.head_count_kv", "u32", "[0, 2]"}, {".shortconv.l_cache", "u32", "3"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-5"},
      {".leading_dense_block_count", "u32", "1"}, EXPERTS_FF,
      {".expert_gating_func", "u32", "2"}}},
    {"grovemoe",
     {RMS("2"), EXPERTS_FF, {".experts_per_group", "u32", "2"},
      {".expert_group_scale", "f32", "0.05"}}},
    /* layer 0 a linear layer in attention's place with a feed-forward block, layer 1
     * attention alone */
    {"deci",
     {{".context_length", "u32", "128"}, {".embedding_length", "u32", "64"},
      {".feed_forward_length", "u32", "[128, 0]"}, {".attention.head_count", "u32", "4"},
      {".attention.head_count_kv", "u32", "[0, 2]"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-5"}}},
    /* layer 0 dense, layer 1 experts; layer 0 chunked attention */
    {"llama4",
     {RMS("2"), EXPERTS_FF, {".interleave_moe_layer_step", "u32", "2"}}},
    /* deepseek2's with a sparse-attention indexer (2 heads of 32) */
    {"deepseek32",
     {DEEPSEEK2, {".attention.indexer.head_count", "u32", "2"},
      {".attention.indexer.key_length", "u32", "32"}, {".attention.indexer.top_k", "u32", "64"},
      {".expert_gating_func", "u32", "2"}}},
    {"glm-dsa",
     {DEEPSEEK2, {".attention.indexer.head_count", "u32", "2"},
      {".attention.indexer.key_length", "u32", "32"}, {".attention.indexer.top_k", "u32", "64"},
      {".expert_gating_func", "u32", "2"}}},
    /* three layers: layer 0 uncompressed and routed by token id, layer 1 compressed by 4 with
     * an indexer, layer 2 compressed by 128 */
    {"deepseek4",
     {{".block_count", "u32", "3"}, {".context_length", "u32", "128"},
      {".embedding_length", "u32", "64"}, {".attention.head_count", "u32", "4"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-6"},
      {".attention.q_lora_rank", "u32", "32"}, {".attention.sliding_window", "u32", "32"},
      EXPERTS_FF, {".expert_shared_count", "u32", "1"},
      {".expert_weights_scale", "f32", "1.5"}, {".expert_weights_norm", "bool", "true"},
      {".swiglu_clamp_exp", "f32", "10"}, {".attention.indexer.head_count", "u32", "2"},
      {".attention.indexer.key_length", "u32", "32"}, {".attention.indexer.top_k", "u32", "64"},
      {".attention.output_group_count", "u32", "2"},
      {".attention.output_lora_rank", "u32", "16"},
      {".attention.compress_rope_freq_base", "f32", "160000"},
      {".hyper_connection.count", "u32", "2"},
      {".hyper_connection.sinkhorn_iterations", "u32", "3"},
      {".hyper_connection.epsilon", "f32", "1e-6"}, {".hash_layer_count", "u32", "1"},
      {".attention.compress_ratios", "u32", "[0, 4, 128]"},
      {".expert_gating_func", "u32", "4"}}},
    /* layer 0 a delta-net layer with a dense feed-forward, layer 1 latent attention (heads of
     * 48 for keys, 16 of them rope, and 32 for values) with experts in a latent of 32 */
    {"kimi-k3",
     {{".context_length", "u32", "128"}, {".embedding_length", "u32", "64"},
      {".feed_forward_length", "u32", "128"}, {".attention.head_count", "u32", "4"},
      {".attention.head_count_kv", "u32", "[0, 4]"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-5"},
      {".attention.key_length_mla", "u32", "48"}, {".attention.value_length_mla", "u32", "32"},
      {".attention.q_lora_rank", "u32", "32"}, {".attention.kv_lora_rank", "u32", "32"},
      {".rope.dimension_count", "u32", "16"}, {".ssm.conv_kernel", "u32", "4"},
      {".kda.head_dim", "u32", "16"}, EXPERTS_FF, {".expert_shared_count", "u32", "1"},
      {".leading_dense_block_count", "u32", "1"}, {".expert_gating_func", "u32", "2"},
      {".expert_latent_length", "u32", "32"}, {".attn_res.block_size", "u32", "2"},
      {".activation.situ_beta", "f32", "1.0"}, {".activation.situ_linear_beta", "f32", "1.0"}}},
    /* layer 0 dense, layer 1 experts; sliding-window attention in layer 0 */
    {"afmoe",
     {RMS("2"), EXPERTS_FF, {".expert_shared_count", "u32", "1"},
      {".leading_dense_block_count", "u32", "1"}, {".attention.sliding_window", "u32", "32"}}},
    {"grok", {RMS("2"), EXPERTS}},
    /* layer 0 with experts and a shared expert, layer 1 a next-token prediction layer */
    {"hy_v3", {RMS("2"), EXPERTS_FF, {".nextn_predict_layers", "u32", "1"}}},
    /* layer 0 sliding-window attention with heads of 32, layer 1 full attention with heads of 16
     * (queries of 32 in both) */
    {"mimo2",
     {RMS("2"), {".attention.key_length", "u32", "16"}, {".attention.value_length", "u32", "16"},
      {".attention.key_length_swa", "u32", "32"}, {".attention.value_length_swa", "u32", "32"},
      {".attention.sliding_window", "u32", "32"},
      {".attention.sliding_window_pattern", "u32", "[1, 0]"}, EXPERTS_FF}},
    /* layer 0 dense with sliding-window attention, layer 1 experts with a shared one */
    {"cohere2moe",
     {LN("2"), {".attention.sliding_window", "u32", "32"}, {".logit_scale", "f32", "0.125"},
      {".attention.sliding_window_pattern", "u32", "[1, 0]"},
      {".leading_dense_block_count", "u32", "1"}, EXPERTS_FF,
      {".expert_shared_count", "u32", "1"}}},
    /* layer 0 sliding-window attention with heads of 32, layer 1 full attention with heads of 16
     * (queries of 32 in both) */
    {"step35",
     {RMS("2"), {".attention.key_length", "u32", "16"}, {".attention.value_length", "u32", "16"},
      {".attention.key_length_swa", "u32", "32"}, {".attention.value_length_swa", "u32", "32"},
      {".rope.dimension_count", "u32", "16"}, {".attention.sliding_window", "u32", "32"},
      {".attention.sliding_window_pattern", "u32", "[1, 0]"}, EXPERTS_FF,
      {".expert_shared_feed_forward_length", "u32", "32"}}},
    /* layer 0 dense, layer 1 experts with the indexer */
    {"minimax-m3",
     {RMS("2"), {".leading_dense_block_count", "u32", "1"}, EXPERTS_FF,
      {".expert_shared_count", "u32", "1"}, {".expert_gating_func", "u32", "2"},
      {".attention.indexer.head_count", "u32", "2"}, {".attention.indexer.key_length", "u32", "16"},
      {".attention.indexer.top_k", "u32", "4"}, {".attention.indexer.block_size", "u32", "16"},
      {".attention.indexer.local_blocks", "u32", "1"}}},
    /* layer 0 a kimi-delta layer with a dense feed-forward, layer 1 latent attention (keys of 48,
     * 16 of them rope, values of 32) with experts */
    {"bailingmoe3",
     {{".context_length", "u32", "128"}, {".embedding_length", "u32", "64"},
      {".feed_forward_length", "u32", "128"}, {".attention.head_count", "u32", "4"},
      {".attention.head_count_kv", "u32", "[0, 2]"},
      {".attention.layer_norm_rms_epsilon", "f32", "1e-5"},
      {".attention.key_length_mla", "u32", "48"}, {".attention.value_length_mla", "u32", "32"},
      {".attention.kv_lora_rank", "u32", "32"}, {".attention.q_lora_rank", "u32", "32"},
      {".rope.dimension_count", "u32", "16"}, {".ssm.conv_kernel", "u32", "4"},
      {".kda.head_dim", "u32", "16"}, {".kda.gate_lower_bound", "f32", "-5"},
      {".leading_dense_block_count", "u32", "1"}, EXPERTS_FF,
      {".expert_shared_count", "u32", "1"}, {".expert_gating_func", "u32", "2"}}},
    /* layer 0 full attention with a dense feed-forward, layer 1 sliding-window attention with
     * experts */
    {"laguna",
     {RMS("2"), {".leading_dense_block_count", "u32", "1"}, EXPERTS_FF,
      {".attention.sliding_window", "u32", "32"}}},
    /* layer 0 sliding-window latent attention (keys of 32, values of 16, a rank of 16) with a
     * dense feed-forward, layer 1 full latent attention (keys of 48, values of 32, a rank of 32)
     * with the indexer and experts */
    {"dots3note",
     {SMALL("4"), {".attention.layer_norm_rms_epsilon", "f32", "1e-5"},
      {".leading_dense_block_count", "u32", "1"}, EXPERTS_FF,
      {".expert_shared_count", "u32", "1"}, {".expert_gating_func", "u32", "2"},
      {".attention.q_lora_rank", "u32", "32"}, {".attention.kv_lora_rank", "u32", "32"},
      {".attention.key_length_mla", "u32", "48"}, {".attention.value_length_mla", "u32", "32"},
      {".attention.kv_lora_rank_swa", "u32", "16"},
      {".attention.key_length_mla_swa", "u32", "32"},
      {".attention.value_length_mla_swa", "u32", "16"}, {".rope.dimension_count", "u32", "16"},
      {".attention.sliding_window", "u32", "32"}, {".rope.freq_base_swa", "f32", "10000"},
      {".attention.sliding_window_pattern", "u32", "[1, 0]"},
      {".attention.indexer.head_count", "u32", "2"}, {".attention.indexer.key_length", "u32", "16"},
      {".attention.indexer.top_k", "u32", "4"}, {".attention.indexer.types", "u32", "[0, 1]"}}},
};

/* The recipe keys --scale scales: widths whose ratios the loader's rules hold (head size times
 * heads, inner size against embedding), so scaling them all alike keeps a model loadable. */
static const char *const wide_keys[] = {
    ".embedding_length", ".feed_forward_length", ".expert_feed_forward_length",
    ".expert_shared_feed_forward_length", ".attention.key_length", ".attention.value_length",
    ".attention.key_length_swa", ".attention.value_length_swa", ".attention.key_length_mla",
    ".attention.value_length_mla", ".attention.q_lora_rank", ".attention.kv_lora_rank",
    ".attention.key_length_mla_swa", ".attention.value_length_mla_swa",
    ".attention.kv_lora_rank_swa",
    ".rope.dimension_count", ".rope.dimension_count_swa", ".ssm.inner_size", ".ssm.state_size",
    ".wkv.head_size", NULL};

/* value with every number in it times `scale` (a scalar or "[a, b, ...]") */
static const char *scaled(char *buf, size_t size, const char *value, unsigned scale) {
    size_t o = 0;
    for (const char *p = value; *p != '\0' && o + 24 < size;) {
        if (*p >= '0' && *p <= '9') {
            char *end;
            unsigned long v = strtoul(p, &end, 10);
            o += (size_t)snprintf(buf + o, size - o, "%lu", v * scale);
            p = end;
        } else {
            buf[o++] = *p++;
        }
    }
    buf[o] = '\0';
    return buf;
}

static unsigned wide_scale = 1; /* --scale, for the recipe's keys only */

/* Optional tensors of the plan a recipe's model has too (names after "blk.N.", in every layer
 * the plan has them), where the loader requires none of a block: llama.cpp then judges their
 * shapes as well. */
static const struct {
    const char *arch;
    const char *tensors;
} recipe_opt[] = {
    {"hy_v3", "ffn_gate_inp.weight exp_probs_b ffn_gate_exps.weight ffn_down_exps.weight "
              "ffn_up_exps.weight ffn_gate_shexp.weight ffn_down_shexp.weight "
              "ffn_up_shexp.weight"},
    {"mimo2", "attn_sinks.weight ffn_gate_inp.weight ffn_gate_exps.weight ffn_down_exps.weight "
              "ffn_up_exps.weight exp_probs_b.bias"},
    {"step35", "attn_q_norm.weight attn_k_norm.weight attn_gate.weight ffn_gate_inp.weight "
               "ffn_gate_exps.weight ffn_down_exps.weight ffn_up_exps.weight exp_probs_b.bias "
               "ffn_gate_shexp.weight ffn_down_shexp.weight ffn_up_shexp.weight"},
};

/* 1 when the recipe of arch has the layer tensor `name` among its optional ones */
static int recipe_wants(const char *arch, const char *name) {
    if (strncmp(name, "blk.", 4) != 0)
        return 0;
    const char *tail = strchr(name + 4, '.');
    if (tail == NULL)
        return 0;
    tail++;
    size_t n = strlen(tail);
    for (size_t i = 0; i < sizeof recipe_opt / sizeof recipe_opt[0]; i++) {
        if (strcmp(recipe_opt[i].arch, arch) != 0)
            continue;
        for (const char *p = recipe_opt[i].tensors; (p = strstr(p, tail)) != NULL; p += n) {
            int starts = p == recipe_opt[i].tensors || p[-1] == ' ';
            if (starts && (p[n] == ' ' || p[n] == '\0'))
                return 1;
        }
    }
    return 0;
}

static int set_text(gguf_file *f, const char *arch, const char *key, const char *type,
                    const char *value, gguf_error *err) {
    char full[256], wide[256];
    for (size_t i = 0; wide_scale > 1 && strcmp(type, "u32") == 0 && wide_keys[i] != NULL; i++) {
        if (strcmp(key, wide_keys[i]) == 0)
            value = scaled(wide, sizeof wide, value, wide_scale);
    }
    if (key[0] == '.')
        snprintf(full, sizeof full, "%s%s", arch, key);
    else
        snprintf(full, sizeof full, "%s", key);
    int t = gguf_vtype_parse(type);
    if (t < 0) {
        fprintf(stderr, "make_llama_model: bad type '%s'\n", type);
        return -1;
    }
    if (value[0] == '[')
        return gguf_kv_set_text(f, full, GGUF_VTYPE_ARRAY, (uint32_t)t, value, strlen(value), err);
    return gguf_kv_set_text(f, full, (uint32_t)t, GGUF_VTYPE_COUNT, value, strlen(value), err);
}

#define MAX_T 4096
typedef struct plan {
    char *names[MAX_T];
    int64_t dims[MAX_T][4];
    int nd[MAX_T];
    int required[MAX_T];
    size_t n;
} plan;

static void on_plan(void *user, const char *name, const int64_t *dims, int nd, int required) {
    plan *p = user;
    if (p->n >= MAX_T)
        return;
    size_t n = strlen(name) + 1;
    p->names[p->n] = malloc(n);
    if (p->names[p->n] == NULL)
        return;
    memcpy(p->names[p->n], name, n);
    memcpy(p->dims[p->n], dims, (size_t)nd * sizeof *dims);
    p->nd[p->n] = nd;
    p->required[p->n] = required;
    p->n++;
}

typedef struct fill_ctx {
    gguf_file *f;
} fill_ctx;

/* Values ~ N(0, 0.02), the same for any chunking (seeded by tensor and element). */
static float value_at(size_t tensor, uint64_t i) {
    uint64_t x = (tensor + 1) * 0x9e3779b97f4a7c15ull ^ (i * 0xbf58476d1ce4e5b9ull);
    x ^= x >> 31;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 29;
    double u = ((x >> 11) + 0.5) / 9007199254740992.0;
    return (float)(0.04 * (u - 0.5) * 1.7320508);
}

static int fill(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                gguf_error *err) {
    fill_ctx *c = user;
    gguf_tensor_info t;
    gguf_tensor_get(&t, c->f, tensor);
    size_t row_bytes = gguf_quant_row_size(t.type, (int64_t)t.dims[0]);
    int64_t rows = (int64_t)(len / row_bytes);
    int64_t first_row = (int64_t)(offset / row_bytes);
    float *src = malloc((size_t)t.dims[0] * (size_t)rows * sizeof(float));
    if (src == NULL)
        return GGUF_ENOMEM;
    for (int64_t r = 0; r < rows; r++) {
        for (uint64_t k = 0; k < t.dims[0]; k++)
            src[(size_t)r * t.dims[0] + k] = value_at(tensor, (uint64_t)(first_row + r) * t.dims[0] + k);
    }
    int rc = gguf_quant_quantize(buf, len, t.type, src, rows, (int64_t)t.dims[0], NULL, err);
    free(src);
    return rc;
}

/* --keys ARCH: the table's keys of ARCH (after the generic ones) */
static int print_keys(const char *arch) {
    const gguf__llama_arch *a = gguf__llama_arch_find(arch, strlen(arch));
    if (a == NULL) {
        fprintf(stderr, "make_llama_model: unknown architecture '%s'\n", arch);
        return 2;
    }
    for (const gguf__llama_key *k = a->keys; k != NULL && k->name != NULL; k++)
        printf("%s%s%s %s %s\n", k->flags & GGUF__LK_GLOBAL ? "" : a->name,
               k->flags & GGUF__LK_GLOBAL ? "" : ".", k->name,
               k->flags & GGUF__LK_REQUIRED ? "required" : "optional",
               k->when != NULL ? "conditional" : "always");
    return 0;
}

/* The imatrix's sums: positive, varied, over tensors that differ by index; counts are 1. */
static int fill_imatrix(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                        gguf_error *err) {
    (void)user;
    (void)err;
    float *out = buf;
    for (size_t k = 0; k < len / 4; k++) {
        float v = value_at(tensor, offset / 4 + k);
        out[k] = tensor % 2 ? 1.0f : 0.05f + 50.0f * v * v;
    }
    return 0;
}

/* --imatrix MODEL OUT */
static int write_imatrix(const char *model, const char *out) {
    gguf_error err;
    gguf_error_clear(&err);
    gguf_file *m = NULL, *f = NULL;
    if (gguf_file_open(&m, model, 0, &err) != 0 ||
        gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, &err) != 0) {
        fprintf(stderr, "make_llama_model: %s\n", err.message);
        gguf_file_free(m);
        return 1;
    }
    const char *ds = "make_llama_model";
    size_t ds_len = strlen(ds);
    uint32_t one = 1, chunk = 512;
    int rc = gguf_kv_set_str_array(f, "imatrix.datasets", &ds, &ds_len, 1, &err);
    if (rc == 0)
        rc = gguf_kv_set_scalar(f, "imatrix.chunk_count", GGUF_VTYPE_U32, &one, &err);
    if (rc == 0)
        rc = gguf_kv_set_scalar(f, "imatrix.chunk_size", GGUF_VTYPE_U32, &chunk, &err);
    /* in_sum2 at even indexes, counts at odd ones (fill_imatrix tells them apart so) */
    for (size_t i = 0; rc == 0 && i < gguf_tensor_count(m); i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, m, i);
        /* token_embd is looked up, not multiplied: llama-imatrix collects nothing for it */
        if (t.n_dims < 2 || (t.name_len == 17 && memcmp(t.name, "token_embd.weight", 17) == 0))
            continue;
        char name[128];
        uint64_t sums[2] = {t.dims[0], t.n_dims >= 3 ? t.dims[2] : 1},
                 counts[2] = {1, sums[1]};
        snprintf(name, sizeof name, "%.*s.in_sum2", (int)t.name_len, t.name);
        rc = gguf_tensor_add(f, name, GGUF_DTYPE_F32, sums, 2, &err);
        snprintf(name, sizeof name, "%.*s.counts", (int)t.name_len, t.name);
        if (rc == 0)
            rc = gguf_tensor_add(f, name, GGUF_DTYPE_F32, counts, 2, &err);
    }
    if (rc == 0) {
        gguf_write_options w = GGUF_WRITE_OPTIONS_INIT;
        w.fill = fill_imatrix;
        rc = gguf_file_save(f, out, &w, &err);
    }
    if (rc != 0)
        fprintf(stderr, "make_llama_model: %s\n", err.message);
    gguf_file_free(f);
    gguf_file_free(m);
    return rc == 0 ? 0 : 1;
}

/* One pass of the plan: adds to f the tensors the plan calls for that it lacks (the required
 * ones, separate attention weights, the recipe's, --opt; not --drop), shaped by --reshape and
 * --add-dim; *added counts them. Frees the previous pass's names first. */
static int add_planned(size_t *added, gguf_file *f, plan *p, const char *arch, int dtype,
                       int argc, char **argv, gguf_error *err) {
    for (size_t i = 0; i < p->n; i++)
        free(p->names[i]);
    p->n = 0;
    *added = 0;
    int rc = gguf__llama_plan(f, on_plan, p, err);
    for (size_t i = 0; rc == 0 && i < p->n; i++) {
        if (gguf_tensor_find(f, p->names[i]) >= 0)
            continue;
        /* separate attention weights, even where llama.cpp lets them all be absent (phi3) */
        int want = p->required[i] || strstr(p->names[i], ".attn_q.weight") != NULL ||
                   strstr(p->names[i], ".attn_k.weight") != NULL ||
                   strstr(p->names[i], ".attn_v.weight") != NULL ||
                   recipe_wants(arch, p->names[i]);
        for (int a = 4; a + 1 < argc; a += 2) {
            if (strcmp(argv[a], "--drop") == 0 && strcmp(argv[a + 1], p->names[i]) == 0)
                want = 0;
            if (strcmp(argv[a], "--opt") == 0 && strcmp(argv[a + 1], p->names[i]) == 0)
                want = 1;
        }
        if (!want)
            continue;
        uint64_t dims[4];
        int nd = p->nd[i];
        for (int d = 0; d < nd; d++)
            dims[d] = (uint64_t)p->dims[i][d];
        for (int a = 4; a + 1 < argc; a += 2) {
            if (strcmp(argv[a], "--reshape") == 0 && strcmp(argv[a + 1], p->names[i]) == 0)
                dims[nd > 1 ? 1 : 0] += nd > 1 ? 1 : 32;
            if (strcmp(argv[a], "--add-dim") == 0 && strcmp(argv[a + 1], p->names[i]) == 0 &&
                nd < 4)
                dims[nd++] = 2;
        }
        int t = nd >= 2 && dims[0] % gguf_dtype_block_elems((uint32_t)dtype) == 0 ? dtype
                                                                                  : GGUF_DTYPE_F32;
        rc = gguf_tensor_add(f, p->names[i], (uint32_t)t, dims, (uint32_t)nd, err);
        (*added)++;
    }
    return rc;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--imatrix") == 0)
        return write_imatrix(argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "--keys") == 0)
        return print_keys(argv[2]);
    if (argc == 2 && strcmp(argv[1], "--recipes") == 0) {
        for (size_t i = 0; i < sizeof recipes / sizeof recipes[0]; i++)
            printf("%s\n", recipes[i].arch);
        return 0;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: make_llama_model ARCH VOCAB OUT [--set K=T:V] [--drop N] "
                        "[--extra N] [--opt N] [--reshape N] [--add-dim N] [--dtype T] "
                        "[--layers N] [--scale N]\n");
        return 2;
    }
    const char *arch = argv[1], *vocab = argv[2], *out = argv[3];
    const struct recipe *rc_arch = NULL;
    for (size_t i = 0; i < sizeof recipes / sizeof recipes[0]; i++) {
        if (strcmp(recipes[i].arch, arch) == 0)
            rc_arch = &recipes[i];
    }
    if (rc_arch == NULL) {
        fprintf(stderr, "make_llama_model: no recipe for '%s'\n", arch);
        return 2;
    }
    gguf_error err;
    gguf_error_clear(&err);
    gguf_file *v = NULL, *f = NULL;
    if (gguf_file_open(&v, vocab, 0, &err) != 0 || gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, &err) != 0) {
        fprintf(stderr, "make_llama_model: %s\n", err.message);
        return 1;
    }
    int rc = gguf_kv_set_str(f, "general.architecture", arch, strlen(arch), &err);
    if (rc == 0)
        rc = gguf_kv_set_str(f, "general.name", "tiny", 4, &err);
    const char *layers = "2";
    int dtype = GGUF_DTYPE_F16;
    for (int a = 4; a + 1 < argc; a += 2) {
        if (strcmp(argv[a], "--layers") == 0)
            layers = argv[a + 1];
        if (strcmp(argv[a], "--dtype") == 0)
            dtype = gguf_dtype_parse(argv[a + 1]);
        if (strcmp(argv[a], "--scale") == 0)
            wide_scale = (unsigned)strtoul(argv[a + 1], NULL, 10);
    }
    if (wide_scale < 1 || wide_scale > 64) {
        fprintf(stderr, "make_llama_model: --scale takes 1 to 64\n");
        return 2;
    }
    uint32_t ftype = dtype == GGUF_DTYPE_F32 ? 0 : dtype == GGUF_DTYPE_F16 ? 1 : 7;
    if (rc == 0)
        rc = gguf_kv_set_scalar(f, "general.file_type", GGUF_VTYPE_U32, &ftype, &err);
    if (rc == 0)
        rc = set_text(f, arch, ".block_count", "u32", layers, &err);
    for (size_t k = 0; rc == 0 && k < sizeof rc_arch->keys / sizeof rc_arch->keys[0] &&
        rc_arch->keys[k].key != NULL; k++)
        rc = set_text(f, arch, rc_arch->keys[k].key, rc_arch->keys[k].type, rc_arch->keys[k].value, &err);
    /* the tokenizer, copied from the vocabulary file */
    for (size_t i = 0; rc == 0 && i < gguf_kv_count(v); i++) {
        size_t len;
        const char *k = gguf_kv_key(v, i, &len);
        if (len > 10 && strncmp(k, "tokenizer.", 10) == 0) {
            char key[256];
            snprintf(key, sizeof key, "%.*s", (int)len, k);
            rc = gguf_kv_set_value(f, key, gguf_kv_value(v, i), &err);
        }
    }
    /* --set after the recipe, as given */
    wide_scale = 1;
    for (int a = 4; rc == 0 && a + 1 < argc; a += 2) {
        if (strcmp(argv[a], "--set") != 0)
            continue;
        char buf[512];
        snprintf(buf, sizeof buf, "%s", argv[a + 1]);
        char *eq = strchr(buf, '='), *colon = eq ? strchr(eq, ':') : NULL;
        if (colon == NULL) {
            fprintf(stderr, "make_llama_model: --set KEY=TYPE:VALUE\n");
            return 2;
        }
        *eq = *colon = '\0';
        rc = set_text(f, arch, buf, eq + 1, colon + 1, &err);
    }
    /* the plan again after each pass that added tensors: tensors the plan requires once
     * another is present (gemma4's experts beside its router) join the next */
    static plan p;
    size_t added = 1;
    for (int pass = 0; rc == 0 && added > 0 && pass < 4; pass++)
        rc = add_planned(&added, f, &p, arch, dtype, argc, argv, &err);
    for (int a = 4; rc == 0 && a + 1 < argc; a += 2) {
        if (strcmp(argv[a], "--extra") == 0) {
            uint64_t d = 64;
            rc = gguf_tensor_add(f, argv[a + 1], GGUF_DTYPE_F32, &d, 1, &err);
        }
    }
    if (rc == 0) {
        fill_ctx c = {f};
        gguf_write_options w = GGUF_WRITE_OPTIONS_INIT;
        w.layout = GGUF_LAYOUT_PACKED;
        w.fill = fill;
        w.fill_user = &c;
        rc = gguf_file_save(f, out, &w, &err);
    }
    if (rc != 0)
        fprintf(stderr, "make_llama_model: %s\n", err.message);
    for (size_t i = 0; i < p.n; i++)
        free(p.names[i]);
    gguf_file_free(f);
    gguf_file_free(v);
    return rc == 0 ? 0 : 1;
}
