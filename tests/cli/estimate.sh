#!/bin/sh
# gguf-edit estimate against llama.cpp's own memory breakdown (llama-mem, beside ggml-oracle).
#
# Models: tiny models of every architecture estimate knows (tests/support/make_llama_model, some
# also with heads wide enough for quantized caches) and the corpus's llama model. A seeded sample of
# the matrix (context sizes, cache types f16/q8_0/q4_0, flash attention on/off, 1/2/4 sequences,
# unified or not, swa-full or not, two ubatch sizes; tests/support/estimate_agree.py) must give
# weights and context bytes equal to llama.cpp's, compute within 10%, and refuse exactly what
# llama.cpp refuses. GGUF_ESTIMATE_ALL=1 (make check-estimate) runs the whole matrix;
# GGUF_ESTIMATE_SEED draws another sample. Then what needs no reference: llama-server's defaults,
# --fit, split sets, standard input, and clear refusals (an architecture it does not know, a
# vocabulary).
. "$(dirname "$0")/../support/cli_lib.sh"

MEM=${LLAMA_MEM:-$(dirname "$ORACLE")/llama-mem}
have_corpus || skip_all "../shared/corpus absent"
[ -x "$MEM" ] || skip_all "no llama-mem ($MEM; ../shared/oracle/build.sh builds it)"
GEN="$top_builddir/tests/support/make_llama_model"
VOCAB="$CORPUS/real"
M="$TMP/models"
mkdir -p "$M"

# model NAME ARCH VOCAB [make_llama_model options]
model() {
    name=$1 arch=$2 voc=$3
    shift 3
    if "$GEN" "$arch" "$VOCAB/ggml-vocab-$voc.gguf" "$M/$name.gguf" "$@" 2>"$TMP/gen.err"; then
        ok "make_llama_model $name"
    else
        fail "make_llama_model $name: $(head -c 200 "$TMP/gen.err")"
    fi
}
model llama llama llama-spm
model qwen2 qwen2 gpt-2
model qwen3 qwen3 gpt-2
model qwen3moe qwen3moe gpt-2
model gemma2 gemma2 llama-spm
model gemma3 gemma3 llama-spm
model phi3 phi3 phi-3
model deepseek2 deepseek2 deepseek-coder
model gpt-oss gpt-oss gpt-2
model bert bert bert-bge
model nomic-bert nomic-bert bert-bge
# pre-norm encoders: neo-bert's fused QKV (the roped Q and K beside its block) and its gate and up
# in one projection; eurobert's feed-forward four times as wide as the embeddings, where no
# product fits in the block the attention freed
model neo-bert neo-bert bert-bge
model eurobert-wide eurobert llama-spm --scale 4 --set eurobert.feed_forward_length=u32:1024
# modern-bert: a sliding layer then a full one, each mask freed after its last layer
model modern-bert modern-bert bert-bge
# encoder graphs beside a KV cache they never read: llama-embed's roped separate projections;
# t5encoder's relative position bias (three blocks the size of the scores), its feed-forward
# ungated (t5's) and gated (flan-t5's), twice the embeddings (as wide as the block below its
# input) and sixteen times (wider than the attention's footprint)
model llama-embed llama-embed llama-spm
# shellcheck disable=SC2046 # options without spaces
model t5encoder-wide t5encoder llama-spm --scale 4 --layers 2 $(llama_graph_opts t5encoder)
t5_gates="--opt enc.blk.0.ffn_gate.weight --opt enc.blk.1.ffn_gate.weight"
# shellcheck disable=SC2046,SC2086 # options without spaces
model t5encoder-gated t5encoder llama-spm --scale 8 --layers 2 $(llama_graph_opts t5encoder) \
    $t5_gates
# shellcheck disable=SC2046,SC2086
model t5encoder-wide-ff t5encoder llama-spm --scale 4 --layers 2 $(llama_graph_opts t5encoder) \
    $t5_gates --set t5encoder.feed_forward_length=u32:4096
# t5, an encoder-decoder: the decoder's self-attention over the cache with its bias, its
# cross-attention over the encoder's output (the training context's rows, 512 as t5's)
# shellcheck disable=SC2046,SC2086
model t5-wide t5 llama-spm --scale 4 --layers 2 $(llama_graph_opts t5) $t5_gates \
    --opt dec.blk.0.ffn_gate.weight --opt dec.blk.1.ffn_gate.weight --set t5.context_length=u32:512
# gemma-embedding: Q normed per head into a block of its own; sliding layers; a batch not
# clamped to the context (llama.cpp makes it non-causal whatever the file says)
model gemma-embedding-wide gemma-embedding llama-spm --scale 4 --layers 6
# nomic-bert-moe: experts in every second layer, eight of them, two chosen
model nomic-bert-moe-wide nomic-bert-moe bert-bge --scale 4 --layers 4 \
    --set nomic-bert-moe.expert_count=u32:8
# heads of 64 (quantized caches need whole blocks) and more layers (sliding-window patterns)
model gemma2-wide gemma2 llama-spm --layers 4 --set gemma2.attention.key_length=u32:64 \
    --set gemma2.attention.value_length=u32:64
model gemma3-wide gemma3 llama-spm --layers 7 --set gemma3.attention.key_length=u32:64 \
    --set gemma3.attention.value_length=u32:64 --set gemma3.attention.sliding_window=u32:256
model qwen3-wide qwen3 gpt-2 --set qwen3.attention.key_length=u32:64 \
    --set qwen3.attention.value_length=u32:64
model deepseek2-wide deepseek2 deepseek-coder --set deepseek2.attention.kv_lora_rank=u32:64 \
    --set deepseek2.rope.dimension_count=u32:32 --set deepseek2.attention.key_length=u32:96 \
    --set deepseek2.attention.value_length=u32:64
# recurrent models (a state per sequence), and with wider states
model mamba2 mamba2 llama-spm
model rwkv7 rwkv7 llama-spm
# a hybrid: a KV cache for its attention layers, a state for its short-convolution layers
model lfm2 lfm2 llama-spm
# hybrids whose recurrent layers are gated delta-nets (qwen35) and mamba2 layers
# (granitehybrid), heads wide enough for quantized caches
# shellcheck disable=SC2046 # options without spaces
model qwen35-wide qwen35 gpt-2 --scale 4 $(llama_graph_opts qwen35)
# shellcheck disable=SC2046
model granitehybrid-wide granitehybrid llama-spm --scale 4 $(llama_graph_opts granitehybrid)
model mamba2-wide mamba2 llama-spm --set mamba2.embedding_length=u32:256 \
    --set mamba2.ssm.inner_size=u32:512 --set mamba2.ssm.state_size=u32:64 \
    --set mamba2.ssm.time_step_rank=u32:8 --set mamba2.ssm.group_count=u32:2
model rwkv7-wide rwkv7 llama-spm --set rwkv7.embedding_length=u32:256 \
    --set rwkv7.wkv.head_size=u32:64 --set rwkv7.feed_forward_length=u32:512
# llama.cpp turns flash attention off for grok; hy_v3's next-token prediction layer keeps no
# cache; nemotron_h's feed-forward layers keep nothing, and without flash attention its logits
# sit above the inputs; minimax-01's linear attention keeps a head x head state per head
model grok grok llama-spm
model hy_v3 hy_v3 llama-spm
# shellcheck disable=SC2046
model nemotron_h nemotron_h llama-spm $(llama_graph_opts nemotron_h)
model minimax-01 minimax-01 llama-spm
# falcon-h1's layers keep a KV cache and a recurrent state each; kimi-linear's delta attention
# keeps convolution and head x head states; gemma3n's layers from the 20th read earlier layers'
# caches
# shellcheck disable=SC2046
model falcon-h1 falcon-h1 llama-spm $(llama_graph_opts falcon-h1)
# shellcheck disable=SC2046
model kimi-linear kimi-linear llama-spm $(llama_graph_opts kimi-linear)
model gemma3n-shared gemma3n llama-spm --layers 22
# a diffusion model: no cache, logits for the whole batch, and a batch llama.cpp does not clamp
# to the context (it is not causal, whatever attention.causal says)
model dream-wide dream llama-spm --scale 4
# sparse-attention indexers: a key cache of their own beside the latent one, and top-k masks
# that outweigh the logits at the training context (65536); glm-dsa's indexer in some layers only
# shellcheck disable=SC2046
model deepseek32-wide deepseek32 deepseek-coder $(llama_graph_opts deepseek32) \
    --set deepseek32.attention.kv_lora_rank=u32:64 --set deepseek32.rope.dimension_count=u32:32 \
    --set deepseek32.attention.key_length=u32:96 --set deepseek32.attention.value_length=u32:64 \
    --set deepseek32.context_length=u32:65536
# shellcheck disable=SC2046
model glm-dsa glm-dsa llama-spm $(llama_graph_opts glm-dsa) --set glm-dsa.context_length=u32:16384
# qwen4exp's indexer scores blocks of compress_ratios cells by their pooled keys: its cache (one
# head, keys and values) beside the attention's in every attention layer, and in the graph the
# blocks' keys gathered (which decide the peak at a ubatch of 128 with four sequences), their
# scores per query head (at a ubatch of 512) and the scores spread over the cells; two ratios, two
# sets of inputs
model qwen4exp-long qwen4exp gpt-2 --scale 4 --layers 4 \
    --set "qwen4exp.attention.compress_ratios=u32:[0,4,0,16]" \
    --set qwen4exp.attention.indexer.head_count=u32:4 \
    --set qwen4exp.attention.indexer.key_length=u32:128 --set qwen4exp.context_length=u32:65536
# minimax-m3's block-sparse attention: past its leading dense layer, an indexer cache of one
# head (keys and values), and in the graph, per stream, the picked blocks spread over the cells,
# which outweigh the logits at the training context (65536); two sparse layers, the second
# beside the mask's f32 copy
model minimax-m3-long minimax-m3 llama-spm --scale 4 --layers 3 \
    --set minimax-m3.attention.indexer.key_length=u32:64 --set minimax-m3.context_length=u32:65536
# dots3note: a sliding layer, then the one indexed layer
# shellcheck disable=SC2046
model dots3note-long dots3note llama-spm $(llama_graph_opts dots3note) \
    --set dots3note.context_length=u32:65536
# deepseek4: every layer's keys in a sliding-window cache kept per sequence even when unified,
# two layers compressing 4 to 1 (with the indexer's keys and picks) and one 128 to 1, their
# compressor states; sixteen heads of 64 (quantized caches apply), the indexer's 512 picks
# shellcheck disable=SC2046
model deepseek4-long deepseek4 deepseek-coder --scale 4 $(llama_graph_opts deepseek4 4) \
    --set deepseek4.block_count=u32:4 --set "deepseek4.attention.compress_ratios=u32:[4,128,4,0]" \
    --set deepseek4.attention.head_count=u32:16 --set deepseek4.attention.key_length=u32:64 \
    --set deepseek4.attention.value_length=u32:64 --set deepseek4.attention.sliding_window=u32:128 \
    --set deepseek4.attention.indexer.top_k=u32:512 --set deepseek4.context_length=u32:65536
# a training context of 65536: at -c 0 the masks' freed block holds the logits, at 16384 it
# does not (plamo's last layer keeps a tensor above the inputs)
model plamo-long plamo llama-spm --scale 4 --set plamo.context_length=u32:65536
# chameleon: its logits copied whole once more (the image tokens' suppressed), the first above
# the inputs
model chameleon-wide chameleon llama-spm --scale 4
# phimoe: a compute buffer from the model of the graph and of ggml-alloc's placement (the final
# hidden states land above the masks or in the block they leave by the sizes of every tensor
# freed before); heads of 64, so that quantized caches are rotated; and one with biases on Q, K
# and V, rope factors and one expert used (its sum made contiguous)
model phimoe-wide phimoe llama-spm --scale 4
phimoe_bias="--opt rope_factors_long.weight --opt rope_factors_short.weight"
for l in 0 1 2; do
    phimoe_bias="$phimoe_bias --opt blk.$l.attn_q.bias --opt blk.$l.attn_k.bias --opt blk.$l.attn_v.bias"
done
# shellcheck disable=SC2086 # options without spaces
model phimoe-bias phimoe llama-spm --scale 4 --layers 3 $phimoe_bias \
    --set phimoe.expert_used_count=u32:1
# gemma4, its placement replayed too: sliding and full layers with heads of their own sizes,
# the last two reading the first two's caches, per-layer inputs; and with experts beside the
# dense feed-forward (their own router: split and fused gate and up products, one used), without
# per-layer inputs
# shellcheck disable=SC2046 # options without spaces
model gemma4-wide gemma4 llama-spm --scale 4 $(llama_graph_opts gemma4)
g4_moe="--set gemma4.expert_count=u32:4 --set gemma4.expert_feed_forward_length=u32:96"
g4_fused="--drop per_layer_token_embd.weight --drop per_layer_model_proj.weight"
g4_fused="$g4_fused --drop per_layer_proj_norm.weight --set gemma4.embedding_length_per_layer_input=u32:0"
for l in 0 1 2 3; do
    g4_moe="$g4_moe --opt blk.$l.ffn_gate_inp.weight"
    g4_fused="$g4_fused --opt blk.$l.ffn_gate_up_exps.weight --drop blk.$l.ffn_gate_exps.weight"
    g4_fused="$g4_fused --drop blk.$l.ffn_up_exps.weight --drop blk.$l.inp_gate.weight"
    g4_fused="$g4_fused --drop blk.$l.proj.weight --drop blk.$l.post_norm.weight"
done
# shellcheck disable=SC2046,SC2086 # options without spaces
model gemma4-moe gemma4 llama-spm --scale 4 $(llama_graph_opts gemma4) $g4_moe \
    --set gemma4.expert_used_count=u32:2
# shellcheck disable=SC2046,SC2086
model gemma4-moe-fused gemma4 llama-spm --scale 4 $(llama_graph_opts gemma4) $g4_moe $g4_fused \
    --set gemma4.expert_used_count=u32:1
# plamo2, its placement replayed: mamba layers (their states' rows read, the convolution over the
# last inputs and the batch, the selective scan) between attention layers with a fused projection
model plamo2-wide plamo2 llama-spm --scale 4 --layers 4 --set plamo2.ssm.group_count=u32:0 \
    --set "plamo2.attention.head_count_kv=u32:[0,2,0,2]"
# bailingmoe3, its placement replayed: delta-attention layers (short convolutions of Q, K and V,
# a gated delta net over the state) and latent attention over a K cache alone, experts beside a
# shared one; heads wide enough for quantized caches, and a second with wider delta heads, two
# dense leading layers and the experts' weights normalized
# shellcheck disable=SC2046 # options without spaces
model bailingmoe3-wide bailingmoe3 llama-spm --scale 4 --layers 3 $(llama_graph_opts bailingmoe3 4) \
    --set "bailingmoe3.attention.head_count_kv=u32:[0,1,0]"
# shellcheck disable=SC2046
model bailingmoe3-norm bailingmoe3 llama-spm --scale 4 --layers 4 $(llama_graph_opts bailingmoe3 4) \
    --set "bailingmoe3.attention.head_count_kv=u32:[0,0,1,1]" \
    --set bailingmoe3.expert_weights_norm=bool:true --set bailingmoe3.kda.head_dim=u32:32 \
    --set bailingmoe3.leading_dense_block_count=u32:2
# a long training context, for --fit
model llama-long llama llama-spm --layers 4 --set llama.context_length=u32:131072
LLAMA="$CORPUS/models/tiny-llama-e256-Q4_K_M.gguf"

# Every full architecture: estimate knows how llama.cpp keeps its context and lays out its
# compute. Those not in the matrix above join it: a seeded sample of them here (a cell each),
# all of them with GGUF_ESTIMATE_ALL=1.
seed=${GGUF_ESTIMATE_SEED:-1}
"$EDIT" --list architectures | awk -F'\t' '$2 == "full" {print $1}' >"$TMP/full"
A="$TMP/archs"
mkdir -p "$A"
: >"$TMP/known"
n_known=0
for a in $(cat "$TMP/full"); do
    [ -f "$M/$a.gguf" ] && { n_known=$((n_known + 1)); continue; } # in the matrix above
    # shellcheck disable=SC2046 # options without spaces
    if ! "$GEN" "$a" "$VOCAB/ggml-vocab-$(llama_vocab_of "$a").gguf" "$A/$a.gguf" \
        $(llama_graph_opts "$a") 2>"$TMP/gen.err"; then
        fail "make_llama_model $a: $(head -c 200 "$TMP/gen.err")"
        continue
    fi
    if "$EDIT" estimate "$A/$a.gguf" -c 256 >/dev/null 2>"$TMP/err"; then
        n_known=$((n_known + 1))
        echo "$A/$a.gguf" >>"$TMP/known"
    else
        fail "$a: not estimated: $(head -c 300 "$TMP/err")"
    fi
done
n_full=$(wc -l <"$TMP/full")
[ "$n_known" -eq "$n_full" ] && ok "estimate knows all $n_known full architectures" ||
    fail "estimate knows $n_known of the $n_full full architectures"
if [ "${GGUF_ESTIMATE_ALL:-0}" != 0 ]; then
    cat "$TMP/known" >"$TMP/drawn"
else
    awk -v s="$seed" 'BEGIN { srand(s) } { print rand() "\t" $0 }' "$TMP/known" | sort -k1,1 |
        head -"${GGUF_ESTIMATE_ARCHS:-12}" | cut -f2 >"$TMP/drawn"
fi

if [ "${GGUF_ESTIMATE_ALL:-0}" != 0 ]; then sample=0; else sample=${GGUF_ESTIMATE_SAMPLE:-24}; fi
# shellcheck disable=SC2046 # one model a line, no spaces in the temporary paths
python3 "$top_srcdir/tests/support/estimate_agree.py" "$EDIT" "$MEM" "$sample" "$seed" \
    "$M"/*.gguf $(cat "$TMP/drawn") "$LLAMA" >"$TMP/agree.out" 2>"$TMP/agree.err" ||
    fail "estimate_agree.py: $(tail -3 "$TMP/agree.err")"
while IFS= read -r line; do
    case $line in
    "ok "*) ok "${line#ok }" ;;
    "fail "*) fail "${line#fail }" ;;
    "#"*) echo "$line" ;;
    esac
done <"$TMP/agree.out"
grep -q '^#' "$TMP/agree.out" && ok "the matrix ran" || fail "estimate_agree.py printed no summary"

# mem FILE ARGS...: llama-mem's JSON field FIELD of its run with ARGS
mem_field() {
    field=$1
    shift
    "$MEM" "$@" 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['$field'])"
}
est_field() {
    field=$1
    shift
    "$EDIT" estimate --json "$@" 2>"$TMP/est.err" |
        python3 -c "import json,sys
v = json.load(sys.stdin)
for k in '$field'.split('.'): v = v[k]
print(v)"
}

# no options: llama-server's defaults (training context, 4 sequences in a unified cache, f16,
# batch 2048/512, flash attention auto, no swa-full)
for f in "$M/gemma3-wide.gguf" "$LLAMA"; do
    want=$(mem_field context "$f" --ctx 0 --seqs 4 --kv-unified on --swa-full off \
        --flash-attn auto --type-k f16 --type-v f16 --batch 2048 --ubatch 512)
    got=$(est_field context "$f")
    [ -n "$want" ] && [ "$want" = "$got" ] && ok "defaults are llama-server's: $(basename "$f")" ||
        fail "defaults: $(basename "$f"): context $got, llama-server's $want"
done
# an encoder's graph is modelled tensor for tensor (the K cast for flash attention, V made
# contiguous without it; neo-bert's roped copies beside its fused QKV, its feed-forward above the
# input and its norm's hole; modern-bert's sliding mask freed after layer 0; t5encoder's bias
# gathered into Q and K's block or above it, its feed-forward above its input; gemma's Q normed
# into a block of its own, which decides the peak at a ubatch of 512; eurobert's products above
# the attention's footprint, with flash attention: without it, within 6.1%): compute is
# llama.cpp's to the byte, where 10% would hide a part
while read -r enc fa ub; do
    want=$(mem_field compute "$M/$enc.gguf" --ctx 1000 --seqs 1 --kv-unified on \
        --flash-attn "$fa" --type-k f16 --type-v f16 --batch 2048 --ubatch "$ub" --swa-full off \
        </dev/null) # the loop reads its cases from standard input
    got=$(est_field compute "$M/$enc.gguf" -c 1000 -np 1 -kvu -fa "$fa" -ub "$ub" </dev/null)
    [ -n "$want" ] && [ "$want" = "$got" ] &&
        ok "$enc, flash attention $fa, ubatch $ub: compute to the byte" ||
        fail "$enc, flash attention $fa, ubatch $ub: compute $got, llama.cpp $want"
done <<EOF
bert on 128
bert off 128
neo-bert on 128
neo-bert off 128
modern-bert on 128
modern-bert off 128
t5encoder-wide-ff on 128
t5encoder-wide-ff off 128
gemma-embedding-wide on 512
gemma-embedding-wide off 512
eurobert-wide on 128
EOF
# -np N alone has a cache per sequence (llama-server's unified cache is for its automatic -np)
want=$(mem_field context "$LLAMA" --ctx 1000 --seqs 3 --kv-unified off)
got=$(est_field context "$LLAMA" -c 1000 -np 3)
[ -n "$want" ] && [ "$want" = "$got" ] && ok "-np 3: a cache per sequence" ||
    fail "-np 3: context $got, llama.cpp $want"

# glm-dsa without attention.indexer.types: GLM 5.2 (a training context of 2^20 or more) keeps
# an indexer cache in layers 0 and 1 and every fourth from 2, GLM 5 and 5.1 in every layer
for train in 16384 1048576; do
    f="$TMP/glm-dsa-$train.gguf"
    # shellcheck disable=SC2046 # options without spaces
    "$GEN" glm-dsa "$VOCAB/ggml-vocab-llama-spm.gguf" "$f" $(llama_graph_opts glm-dsa) \
        --layers 7 $(indexer_opts 5 6) --set glm-dsa.context_length=u32:$train 2>"$TMP/gen.err" &&
        "$EDIT" rm "$f" glm-dsa.attention.indexer.types >/dev/null ||
        fail "glm-dsa, training context $train: $(head -c 200 "$TMP/gen.err")"
    want=$(mem_field context "$f" --ctx 4096 --seqs 1 --kv-unified on --flash-attn on \
        --type-k f16 --type-v f16 --batch 2048 --ubatch 512 --swa-full off)
    got=$(est_field context "$f" -c 4096 -np 1 -kvu -fa on)
    [ -n "$want" ] && [ "$want" = "$got" ] &&
        ok "glm-dsa without indexer types, training context $train: context $got as llama.cpp's" ||
        fail "glm-dsa without indexer types, training context $train: context $got, llama.cpp $want"
done

# qwen4exp's n-gram embeddings (PLE) keep their convolution's history beside the recurrent state
# of their layer: (conv_kernel-1)*ngram_size inputs of every hyper-connection stream, f32, per
# sequence, here 3*2*2*64*4*2 = 6144 bytes more than the same model without them (llama.cpp's
# difference, measured with the PLE tensors, which make_llama_model cannot plan: their layer and
# rows are not in its tables, and llama-mem refuses the model without them)
"$GEN" qwen4exp "$VOCAB/ggml-vocab-gpt-2.gguf" "$TMP/qwen4exp-ple.gguf" \
    --set "qwen4exp.ple.layers=u32:[0]" --set qwen4exp.ple.ngram_size=u32:2 \
    --set qwen4exp.ple.heads_per_ngram=u32:1 --set qwen4exp.ple.conv_kernel=u32:4 \
    --set qwen4exp.ple.eos_token_id=u32:50256 \
    --set qwen4exp.embedding_length_per_layer_input=u32:64 \
    --set "qwen4exp.ple.layer_multipliers=u64:[1,2]" --set "qwen4exp.ple.head_offsets=u64:[0]" \
    --set "qwen4exp.ple.head_vocab_sizes=u64:[100]" 2>"$TMP/gen.err" ||
    fail "make_llama_model qwen4exp with PLE keys: $(head -c 200 "$TMP/gen.err")"
want=$(mem_field context "$A/qwen4exp.gguf" --ctx 4096 --seqs 2 --kv-unified off --flash-attn on \
    --type-k f16 --type-v f16 --batch 2048 --ubatch 512 --swa-full off)
got=$(est_field context "$TMP/qwen4exp-ple.gguf" -c 4096 -np 2 --no-kv-unified -fa on)
[ -n "$want" ] && [ "$((want + 6144))" = "$got" ] &&
    ok "qwen4exp's n-gram embeddings: their convolution's history in the context" ||
    fail "qwen4exp with n-gram embeddings: context $got, llama.cpp's without them $want + 6144"

# --fit: the context found fits, 256 more do not; it stops at the training context
LONG="$M/llama-long.gguf"
total=$(est_field total "$LONG" -c 65536)
size=$((total - 1))
"$EDIT" estimate "$LONG" --fit "$size" --json >"$TMP/fit.json" 2>"$TMP/err" ||
    fail "--fit $size: $(cat "$TMP/err")"
ctx=$(python3 -c "import json; d=json.load(open('$TMP/fit.json')); print(d['params']['ctx'])")
fit_total=$(python3 -c "import json; print(json.load(open('$TMP/fit.json'))['total'])")
next=$(est_field total "$LONG" -c $((ctx + 256)))
if [ "$ctx" -gt 0 ] && [ $((ctx % 256)) -eq 0 ] && [ "$fit_total" -le "$size" ] &&
    [ "$next" -gt "$size" ]; then
    ok "--fit $size: -c $ctx fits ($fit_total bytes), -c $((ctx + 256)) does not ($next)"
else
    fail "--fit $size: -c $ctx with $fit_total bytes; -c $((ctx + 256)) $next"
fi
ctx=$(est_field params.ctx "$LONG" --fit 1T)
[ "$ctx" = 131072 ] && ok "--fit 1T: the training context" || fail "--fit 1T: -c $ctx"
"$EDIT" estimate "$LLAMA" --fit 1M >"$TMP/out" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "no context fits" "$TMP/err" && ok "--fit 1M: nothing fits, said so" ||
    fail "--fit 1M: $(cat "$TMP/err")"

# a split set (through its first shard) and standard input give the same estimate
"$EDIT" split "$M/qwen3.gguf" "$TMP/set" --max-tensors 8 >/dev/null 2>"$TMP/err" ||
    fail "split: $(cat "$TMP/err")"
one=$(est_field total "$M/qwen3.gguf" -c 2048)
set=$(est_field total "$TMP/set-00001-of-"*.gguf -c 2048)
[ -n "$one" ] && [ "$one" = "$set" ] && ok "a split set: the whole set's weights" ||
    fail "split set: total $set, the model's $one"
stdin=$("$EDIT" estimate --json - -c 2048 <"$M/qwen3.gguf" |
    python3 -c "import json,sys; print(json.load(sys.stdin)['total'])")
[ "$one" = "$stdin" ] && ok "standard input" || fail "standard input: total $stdin, the file's $one"

# the text names what the context holds: a recurrent state is not a KV cache
"$EDIT" estimate "$M/mamba2.gguf" -c 1024 -np 2 >"$TMP/out" 2>"$TMP/err"
grep -q "^  context .*(recurrent state: 2 sequences, 2 layers)$" "$TMP/out" &&
    ok "a recurrent state is called one" || fail "mamba2's context: $(grep context "$TMP/out")"

# refused clearly: an architecture estimate does not know, a vocabulary without tensors,
# parameters llama.cpp refuses, bad option values
"$EDIT" set "$M/llama.gguf" general.architecture no-such-arch -o "$TMP/unknown.gguf" \
    2>"$TMP/err" || fail "set architecture: $(cat "$TMP/err")"
expect_status 1 "$EDIT" estimate "$TMP/unknown.gguf"
grep -q "architecture 'no-such-arch'" "$TMP/err" && ok "an unknown architecture is named" ||
    fail "no-such-arch: $(cat "$TMP/err")"
# t5's layers are enc.blk.N and dec.blk.N: each index's weights are both, as show lists them
"$EDIT" show --json "$M/t5-wide.gguf" >"$TMP/t5.json" 2>"$TMP/err" ||
    fail "show t5: $(cat "$TMP/err")"
"$EDIT" estimate --json "$M/t5-wide.gguf" >"$TMP/t5-est.json" 2>"$TMP/err" ||
    fail "estimate t5: $(cat "$TMP/err")"
python3 -c "import json, re, sys
tensors = json.load(open(sys.argv[1]))['tensors']
layers = json.load(open(sys.argv[2]))['layers']
for il, layer in enumerate(layers):
    want = sum(t['size'] for t in tensors if re.match(r'(enc|dec)\.blk\.%d\.' % il, t['name']))
    if want == 0 or layer['weights'] != want:
        sys.exit('layer %d: %d bytes, show lists %d' % (il, layer['weights'], want))
" "$TMP/t5.json" "$TMP/t5-est.json" 2>"$TMP/err" &&
    ok "t5: each layer's encoder and decoder weights" || fail "t5 layer weights: $(cat "$TMP/err")"
# t5's bias spans one stream: llama.cpp fails an assertion with a cache per sequence
expect_status 1 "$EDIT" estimate "$M/t5-wide.gguf" -np 2 --no-kv-unified
grep -q "relative position bias spans one stream" "$TMP/err" &&
    ok "t5 with a cache per sequence is refused" || fail "t5 -np 2: $(cat "$TMP/err")"
expect_status 1 "$EDIT" estimate "$VOCAB/ggml-vocab-llama-spm.gguf"
grep -q "no tensors" "$TMP/err" && ok "a vocabulary is refused" || fail "vocab: $(cat "$TMP/err")"
expect_status 1 "$EDIT" estimate "$LLAMA" -ctv q8_0 -fa off
grep -q "flash attention" "$TMP/err" && ok "quantized V without flash attention" ||
    fail "-ctv q8_0 -fa off: $(cat "$TMP/err")"
# hostile hyperparameters whose products pass 64 bits are refused, not wrapped
"$EDIT" set "$M/llama.gguf" llama.attention.head_count 4000000000 -o "$TMP/heads.gguf" \
    2>"$TMP/err" || fail "set head_count: $(cat "$TMP/err")"
expect_status 1 "$EDIT" estimate "$TMP/heads.gguf" -c 4000000000 -fa off
grep -q "2^64" "$TMP/err" && ok "an estimate past 64 bits is refused" || fail "heads: $(cat "$TMP/err")"
# a replayed graph refuses what llama.cpp could not build: more experts than it takes, and
# hyperparameters that contradict each other into a negative shape (a convolution of no taps)
"$EDIT" set "$M/phimoe-wide.gguf" phimoe.expert_used_count 2000000000 -o "$TMP/experts.gguf" \
    2>"$TMP/err" || fail "set expert_used_count: $(cat "$TMP/err")"
expect_status 1 "$EDIT" estimate "$TMP/experts.gguf"
grep -q "more experts than it takes" "$TMP/err" && ok "too many experts are refused" ||
    fail "experts: $(cat "$TMP/err")"
"$EDIT" set "$M/bailingmoe3-wide.gguf" bailingmoe3.ssm.conv_kernel 0 -o "$TMP/conv.gguf" \
    2>"$TMP/err" || fail "set conv_kernel: $(cat "$TMP/err")"
expect_status 1 "$EDIT" estimate "$TMP/conv.gguf"
grep -q "negative" "$TMP/err" && ok "a negative shape is refused" || fail "conv: $(cat "$TMP/err")"
expect_status 2 "$EDIT" estimate "$LLAMA" -ctk q3_k
expect_status 2 "$EDIT" estimate "$LLAMA" -fa maybe
expect_status 2 "$EDIT" estimate "$LLAMA" --fit lots
expect_status 2 "$EDIT" estimate "$LLAMA" -np 0
finish
