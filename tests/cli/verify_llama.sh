#!/bin/sh
# gguf-edit verify against llama.cpp's own loader (ggml-oracle llama-load) as the judge.
#
# Tiny models of eleven architectures are built from real vocabularies
# (tests/support/make_llama_model: every tensor the library's tables say llama.cpp requires);
# llama.cpp must load each one, which proves the tables. Then each model is broken by single
# ggml-written edits (ggml-oracle set/rm) or built broken: wrong key types, missing hyperparameters,
# inconsistent head counts, wrong block_count, unknown tokenizer or pre-tokenizer, removed merges,
# out-of-range special tokens, expert counts without experts, missing/extra/misshapen tensors, ...
# For every case, verify must exit 1 exactly when llama-load refuses the file (or aborts on it),
# name the key or tensor at fault, and exit 0 or 3 when llama.cpp loads it. Every corpus model and
# vocabulary file llama.cpp loads must verify with 0 or 3.
. "$(dirname "$0")/../support/cli_lib.sh"

if ! have_oracle; then
    echo "cli_verify_llama: ggml-oracle not found (set GGML_ORACLE): SKIP"
    exit 77
fi
if ! have_corpus; then
    echo "cli_verify_llama: ../shared/corpus absent: SKIP"
    exit 77
fi
GEN="$top_builddir/tests/support/make_llama_model"
VOCAB="$CORPUS/real"
M="$TMP/models"
mkdir -p "$M"
: > "$TMP/classes"

# make check judges a seeded third of the broken models (some 600 cases, each a llama.cpp load,
# in all; GGUF_LLAMA_SAMPLE=N judges one in N); GGUF_LLAMA_ALL=1 (make check-architectures)
# judges every one
if [ "${GGUF_LLAMA_ALL:-0}" != 0 ]; then JUDGE_SAMPLE=1; else JUDGE_SAMPLE=${GGUF_LLAMA_SAMPLE:-3}; fi
JUDGE_SEED=${GGUF_LLAMA_SEED:-$(date -u +%j | sed 's/^0*//')}
echo "cli_verify_llama: one case in $JUDGE_SAMPLE, seed $JUDGE_SEED (GGUF_LLAMA_SEED repeats it)"
. "$(dirname "$0")/../support/llama_judge.sh"

# the architectures and the vocabularies their models take
ARCHS="llama:llama-spm qwen2:gpt-2 qwen3:gpt-2 qwen3moe:gpt-2 gemma2:llama-spm gemma3:llama-spm
phi3:phi-3 deepseek2:deepseek-coder gpt-oss:gpt-2 bert:bert-bge nomic-bert:bert-bge"

for spec in $ARCHS; do
    a=${spec%%:*} voc=${spec#*:}
    "$GEN" "$a" "$VOCAB/ggml-vocab-$voc.gguf" "$M/$a.gguf" 2>"$TMP/gen.err" ||
        fail "make_llama_model $a: $(head -c 200 "$TMP/gen.err")"
    judge base "$a: as built" "$M/$a.gguf" ""
    [ "$(cat "$TMP/v.out")" = "$M/$a.gguf: ok" ] && ok || fail "$a: verify is not clean: $(head -3 "$TMP/v.out")"
done

for spec in $ARCHS; do
    a=${spec%%:*} voc=${spec#*:}
    B="$M/$a.gguf"
    case $a in
    bert | nomic-bert) eps=attention.layer_norm_epsilon ;;
    *) eps=attention.layer_norm_rms_epsilon ;;
    esac
    n_vocab=$("$EDIT" get "$B" tokenizer.ggml.tokens 2>/dev/null | wc -l)

    # key types llama.cpp reads strictly
    edit key-type "$a: context_length as STRING" "$B" "$a.context_length" set "$a.context_length" str 128
    edit key-type "$a: embedding_length as FLOAT32" "$B" "$a.embedding_length" set "$a.embedding_length" f32 64
    edit key-type "$a: block_count as INT32" "$B" "$a.block_count" set "$a.block_count" i32 2
    edit key-type "$a: head_count as UINT64" "$B" "$a.attention.head_count" set "$a.attention.head_count" u64 4
    edit key-type "$a: epsilon as UINT32" "$B" "$a.$eps" set "$a.$eps" u32 0
    edit key-type "$a: eos_token_id as INT32" "$B" tokenizer.ggml.eos_token_id set tokenizer.ggml.eos_token_id i32 2
    edit key-type "$a: general.file_type as STRING" "$B" general.file_type set general.file_type str 1
    edit key-type "$a: general.name as UINT32" "$B" general.name set general.name u32 3
    edit key-type "$a: add_bos_token as UINT8" "$B" tokenizer.ggml.add_bos_token set tokenizer.ggml.add_bos_token u8 1
    edit key-type "$a: general.architecture as UINT32" "$B" general.architecture set general.architecture u32 1

    # missing hyperparameters and keys
    edit missing-key "$a: no embedding_length" "$B" "$a.embedding_length" rm "$a.embedding_length"
    edit missing-key "$a: no context_length" "$B" "$a.context_length" rm "$a.context_length"
    edit missing-key "$a: no block_count" "$B" "$a.block_count" rm "$a.block_count"
    edit missing-key "$a: no $eps" "$B" "$a.$eps" rm "$a.$eps"
    edit missing-key "$a: no general.architecture" "$B" general.architecture rm general.architecture
    edit missing-key "$a: no head_count" "$B" "" rm "$a.attention.head_count"
    edit missing-key "$a: no feed_forward_length" "$B" "" rm "$a.feed_forward_length"

    # head counts and the embedding
    edit heads "$a: head_count 5" "$B" "$a.attention.head_count" set "$a.attention.head_count" u32 5
    edit heads "$a: head_count 8" "$B" "" set "$a.attention.head_count" u32 8
    edit heads "$a: head_count_kv 4" "$B" "" set "$a.attention.head_count_kv" u32 4
    edit heads "$a: head_count_kv 3" "$B" "" set "$a.attention.head_count_kv" u32 3
    gen heads "$a: built with head_count_kv 3" "$a" "$voc" "" --set ".attention.head_count_kv=u32:3"

    # block_count against the tensors
    edit block-count "$a: block_count 3" "$B" "$a.block_count" set "$a.block_count" u32 3
    edit block-count "$a: block_count 1" "$B" "$a.block_count" set "$a.block_count" u32 1
    edit block-count "$a: block_count 0" "$B" "$a.block_count" set "$a.block_count" u32 0
    edit block-count "$a: block_count 600" "$B" "$a.block_count" set "$a.block_count" u32 600

    # the tokenizer
    edit tokenizer "$a: unknown tokenizer model" "$B" tokenizer.ggml.model set tokenizer.ggml.model str llamax
    edit tokenizer "$a: unknown pre-tokenizer" "$B" tokenizer.ggml.pre set tokenizer.ggml.pre str no-such-pre
    edit tokenizer "$a: no pre-tokenizer" "$B" "" rm tokenizer.ggml.pre
    edit tokenizer "$a: no tokenizer model" "$B" tokenizer.ggml.model rm tokenizer.ggml.model
    edit tokenizer "$a: no tokens" "$B" tokenizer.ggml.tokens rm tokenizer.ggml.tokens
    edit tokenizer "$a: chat template UINT32" "$B" "" set tokenizer.chat_template u32 7
    if "$EDIT" get "$B" tokenizer.ggml.merges >/dev/null 2>&1; then
        edit merges "$a: merges removed" "$B" tokenizer.ggml.merges rm tokenizer.ggml.merges
    fi
    edit special "$a: eos_token_id = n_vocab" "$B" "" set tokenizer.ggml.eos_token_id u32 "$n_vocab"
    edit special "$a: bos_token_id far out" "$B" "" set tokenizer.ggml.bos_token_id u32 4000000
    edit special "$a: padding_token_id = n_vocab+1" "$B" "" set tokenizer.ggml.padding_token_id u32 $((n_vocab + 1))

    # experts
    edit experts "$a: expert_count 4" "$B" "$a.expert_count" set "$a.expert_count" u32 4
    edit experts "$a: expert_used_count 2" "$B" "$a.expert_used_count" set "$a.expert_used_count" u32 2
    edit experts "$a: expert_count 8" "$B" "" set "$a.expert_count" u32 8
    edit experts "$a: expert_used_count 0" "$B" "" set "$a.expert_used_count" u32 0
    edit experts "$a: expert_used_count 16" "$B" "$a.expert_used_count" set "$a.expert_used_count" u32 16

    # tensors
    gen tensors "$a: blk.0.attn_norm.weight dropped" "$a" "$voc" "blk.0.attn_norm.weight" --drop blk.0.attn_norm.weight
    gen tensors "$a: token_embd.weight dropped" "$a" "$voc" "token_embd.weight" --drop token_embd.weight
    gen tensors "$a: extra blk.0.unused.weight" "$a" "$voc" "blk.0.unused.weight" --extra blk.0.unused.weight
    gen tensors "$a: blk.1.attn_output.weight misshapen" "$a" "$voc" "blk.1.attn_output.weight" --reshape blk.1.attn_output.weight
    gen tensors "$a: with output.weight" "$a" "$voc" "" --opt output.weight

    # rope and file type
    edit rope "$a: rope.dimension_count 8" "$B" "" set "$a.rope.dimension_count" u32 8
    edit rope "$a: rope.scaling.type unknown" "$B" "$a.rope.scaling.type" set "$a.rope.scaling.type" str sideways
    edit rope "$a: rope.scaling.type yarn" "$B" "" set "$a.rope.scaling.type" str yarn
    edit file-type "$a: general.file_type 15 on F16" "$B" "" set general.file_type u32 15
    edit file-type "$a: general.file_type 99" "$B" "" set general.file_type u32 99
done

# arrays of the wrong length: 2 scores next to 32,000 tokens, a per-layer array of 3 for 2 layers
cp "$M/llama.gguf" "$TMP/scores.gguf"
"$EDIT" set "$TMP/scores.gguf" tokenizer.ggml.scores '[0.5, 1.5]' >/dev/null 2>&1
judge tokenizer "llama: 2 scores for 32000 tokens" "$TMP/scores.gguf" tokenizer.ggml.scores
cp "$M/llama.gguf" "$TMP/heads.gguf"
"$EDIT" set "$TMP/heads.gguf" llama.attention.head_count '[4, 4, 4]' --type u32 >/dev/null 2>&1
judge key-type "llama: head_count array of 3 for 2 layers" "$TMP/heads.gguf" llama.attention.head_count
cp "$M/llama.gguf" "$TMP/heads2.gguf"
"$EDIT" set "$TMP/heads2.gguf" llama.attention.head_count '[4, 4]' --type u32 >/dev/null 2>&1
judge key-type "llama: head_count array of 2 for 2 layers" "$TMP/heads2.gguf" ""
edit arch "llama: unknown architecture" "$M/llama.gguf" general.architecture set general.architecture str lama
edit arch "llama: architecture clip" "$M/llama.gguf" general.architecture set general.architecture str clip
gen experts "llama: expert_count and expert_used_count" llama llama-spm ffn_gate_inp --set .expert_count=u32:4 --set .expert_used_count=u32:2 --drop blk.0.ffn_gate_inp.weight
gen experts "llama: experts, all tensors" llama llama-spm "" --set .expert_count=u32:4 --set .expert_used_count=u32:2
gen tensors "llama: tied output (no output.weight)" llama llama-spm ""
gen tensors "llama: with output.weight" llama llama-spm "" --opt output.weight
gen tensors "llama: three layers" llama llama-spm "" --layers 3
# one dimension more than llama.cpp's table, 1-D and 2-D: refused, even though the element
# count of the table's dimensions is all there
gen tensors "llama: blk.0.attn_norm.weight with a dimension more" llama llama-spm blk.0.attn_norm.weight --add-dim blk.0.attn_norm.weight
gen tensors "llama: blk.1.attn_q.weight with a dimension more" llama llama-spm blk.1.attn_q.weight --add-dim blk.1.attn_q.weight
# a per-layer UINT32 key as an array of BOOL (llama.cpp converts it) or of UINT8 (refused)
"$GEN" llama "$VOCAB/ggml-vocab-llama-spm.gguf" "$TMP/kv1.gguf" --set .attention.head_count_kv=u32:1 2>/dev/null
cp "$TMP/kv1.gguf" "$TMP/kvb.gguf"
"$EDIT" set "$TMP/kvb.gguf" llama.attention.head_count_kv '[true, true]' --json --type bool >/dev/null 2>&1
judge key-type "llama: head_count_kv a BOOL array of 1s" "$TMP/kvb.gguf" ""
"$EDIT" get "$TMP/kvb.gguf" llama.attention.head_count_kv --json | grep -q true && ok ||
    fail "head_count_kv is not a BOOL array: $("$EDIT" get "$TMP/kvb.gguf" llama.attention.head_count_kv --json)"
"$EDIT" set "$TMP/kv1.gguf" llama.attention.head_count_kv '[1, 1]' --json --type u8 >/dev/null 2>&1
judge key-type "llama: head_count_kv a UINT8 array" "$TMP/kv1.gguf" llama.attention.head_count_kv
gen tensors "gemma2: output.weight llama.cpp does not use" gemma2 llama-spm output.weight --extra output.weight

# split sets: llama.cpp's own splitter, then a shard missing
SPLIT=$(dirname "$ORACLE")/llama-gguf-split
if [ -x "$SPLIT" ]; then
    "$SPLIT" --split --split-max-tensors 8 "$M/qwen2.gguf" "$TMP/qs" >/dev/null 2>&1
    judge split "qwen2: 3 shards" "$TMP/qs-00001-of-00003.gguf" ""
    expect_status 0 "$EDIT" verify "$TMP/qs-00002-of-00003.gguf"
    grep -q "qs-00001-of-00003.gguf (3 shards): ok" "$TMP/out" && ok || fail "shard 2 does not verify its set"
    rm "$TMP/qs-00003-of-00003.gguf"
    expect_status 1 "$EDIT" verify "$TMP/qs-00001-of-00003.gguf"
    "$ORACLE" llama-load "$TMP/qs-00001-of-00003.gguf" >/dev/null 2>&1
    [ $? -ne 0 ] && ok || fail "llama.cpp loads a set with a missing shard"
else
    echo "cli_verify_llama: llama-gguf-split not found, split part skipped"
fi

# several files in one run: the worst status wins
expect_status 3 "$EDIT" verify "$M/llama.gguf" "$VOCAB/ggml-vocab-llama-spm.gguf"
expect_status 1 "$EDIT" verify "$M/llama.gguf" "$TMP/scores.gguf" "$M/qwen2.gguf"
[ "$(grep -c ': ok$' "$TMP/out")" -eq 2 ] && ok || fail "verify of 3 files did not report each"

# --json: every finding with severity, key, tensor, message
expect_status 1 "$EDIT" verify --json "$TMP/scores.gguf" "$M/llama.gguf"
python3 - "$TMP/out" <<'EOF' && ok || fail "verify --json"
import json, sys
d = json.load(open(sys.argv[1]))
a, b = d["files"]
assert a["status"] == "error" and b["status"] == "ok", (a["status"], b["status"])
f = [x for x in a["findings"] if x["severity"] == "error"]
assert f and f[0]["key"] == "tokenizer.ggml.scores", f
assert set(f[0]) == {"severity", "key", "tensor", "message", "shard", "offset"}
EOF

# every corpus model and vocabulary llama.cpp loads verifies with 0 or 3
for f in "$CORPUS"/models/*.gguf "$CORPUS"/synth/tiny_llama.gguf; do
    judge corpus "$(basename "$f")" "$f" ""
done
for f in "$CORPUS"/real/*.gguf "$CORPUS"/v1v2/v2_ggml-vocab-bert-bge.gguf; do
    "$ORACLE" llama-load --vocab-only "$f" >/dev/null 2>&1
    load=$?
    "$EDIT" verify --vocab-only "$f" >"$TMP/v.out" 2>&1
    v=$?
    if [ $load -eq 0 ] && { [ $v -eq 0 ] || [ $v -eq 3 ]; }; then ok; else
        fail "vocab $f: llama-load --vocab-only $load, verify --vocab-only $v"; fi
    expect_status 3 "$EDIT" verify "$f"
done

echo "cli_verify_llama: cases per class (agree / disagree):"
sort "$TMP/classes" | uniq -c | awk '{printf "  %-14s %-9s %d\n", $2, $3, $1}'
finish
