#!/bin/sh
# gguf-edit verify: exit 0 clean, 1 errors, 3 warnings only. --structure checks the container
# alone (what ggml's reader and the spec ask); by default the llama.cpp loader rules apply too,
# and what ggml's reader refuses is an error (tests/cli/verify_llama.sh has those rules against
# llama.cpp itself).
. "$(dirname "$0")/../support/cli_lib.sh"

S="--structure"
expect_status 0 "$EDIT" verify $S "$GOLDEN/hand/le_v3_two_tensors.gguf"
expect_status 3 "$EDIT" verify $S "$GOLDEN/hand/be_v3_scalars.gguf"
grep -q "big-endian file" "$TMP/out" && ok || fail "no big-endian warning"
expect_status 3 "$EDIT" verify $S "$GOLDEN/hand/v1_one_tensor.gguf"
grep -q "v1 file" "$TMP/out" && ok || fail "no v1 warning"
expect_status 3 "$EDIT" verify $S "$GOLDEN/hand/gaps_and_trailer.gguf"
grep -q "packed" "$TMP/out" && ok || fail "no layout warning"
grep -q "name of 64 bytes" "$TMP/out" && ok || fail "no tensor name warning"
expect_status 0 "$EDIT" verify $S "$GOLDEN/derived/v1_one_tensor.v3.gguf"

# as llama.cpp sees them: no architecture, and what ggml refuses, are errors
expect_status 1 "$EDIT" verify "$GOLDEN/hand/le_v3_two_tensors.gguf"
grep -q "architecture llama.cpp does not know" "$TMP/out" && ok || fail "no architecture error"
expect_status 1 "$EDIT" verify "$GOLDEN/hand/v1_one_tensor.gguf"
grep -q "error: .*v1 file" "$TMP/out" && ok || fail "v1 is not an error"

if have_corpus; then
    expect_status 3 "$EDIT" verify $S "$CORPUS/bad/alignment_48.gguf"
    grep -q "not a power of two" "$TMP/out" && ok || fail "no alignment warning"
    expect_status 3 "$EDIT" verify $S "$CORPUS/bad/bool_byte_2.gguf"
    grep -q "bool byte" "$TMP/out" && ok || fail "no bool warning"
    expect_status 3 "$EDIT" verify $S "$CORPUS/bad/key_70000_bytes.gguf"
    grep -q "70000 bytes long" "$TMP/out" && ok || fail "no long key warning"
    expect_status 3 "$EDIT" verify $S "$CORPUS/bad/key_non_utf8.gguf"
    grep -q "not ASCII" "$TMP/out" && ok || fail "no ASCII warning"
    expect_status 3 "$EDIT" verify $S "$CORPUS/synth/kv_nested_arrays.gguf"
    grep -q "nested arrays" "$TMP/out" && ok || fail "no nested array warning"
    expect_status 1 "$EDIT" verify "$CORPUS/bad/truncated_17_in_tensor_data.gguf"
    expect_status 1 "$EDIT" verify "$CORPUS/bad/overlapping_tensors.gguf"
    # every file ggml reads cleanly is structurally clean (tensors_edge has a 64-byte tensor name)
    for f in "$CORPUS"/real/*.gguf "$CORPUS"/models/*.gguf "$CORPUS"/synth/tensors_[!e]*.gguf; do
        expect_status 0 "$EDIT" verify $S "$f"
    done
    expect_status 3 "$EDIT" verify $S "$CORPUS/synth/tensors_edge.gguf"
    grep -q "name of 64 bytes" "$TMP/out" && ok || fail "no 64-byte name warning"
    # models llama.cpp loads verify clean; vocabularies with a warning (no tensors)
    for f in "$CORPUS"/models/*.gguf "$CORPUS"/synth/tiny_llama.gguf; do
        expect_status 0 "$EDIT" verify "$f"
    done
    for f in "$CORPUS"/real/*.gguf; do
        expect_status 3 "$EDIT" verify "$f"
        expect_status 0 "$EDIT" verify --vocab-only "$f"
    done
    # a test file that is not a model: llama.cpp refuses it
    expect_status 1 "$EDIT" verify "$CORPUS/synth/tensors_f32.gguf"
else
    skip "the corpus: warnings and errors of real and malformed files" "no ../shared/corpus"
fi
# --list architectures: every name llama.cpp's llama-arch.cpp gives an architecture, with how
# far verify checks it, and a third field with the reason for those that are no model on their
# own; clip and gptj, which llama.cpp cannot load as a model, left out
"$EDIT" --list architectures > "$TMP/archs" 2> "$TMP/err" && ok || fail "--list architectures: $(cat "$TMP/err")"
awk -F '\t' '(NF != 2 && NF != 3) || ($2 != "full" && $2 != "keys") ||
              (NF == 3 && $3 !~ /^not a model on its own: ./) { bad = 1 } END { exit bad }' \
    "$TMP/archs" && ok ||
    fail "--list architectures: a line is not NAME<TAB>full|keys[<TAB>reason]: $(head -3 "$TMP/archs")"
[ "$(awk -F '\t' 'NF == 3 { print $1 }' "$TMP/archs" | sort | paste -sd' ' -)" = \
    "dflash eagle3 gemma4-assistant pockettts qwen3tts wavtokenizer-dec" ] \
    && ok || fail "--list architectures: the ones with a reason: $(awk -F '\t' 'NF == 3' "$TMP/archs")"
[ "$(grep -c "$(printf '\t')full$" "$TMP/archs")" -eq "$(grep -c . "$TMP/archs")" ] \
    && fail "--list architectures: every architecture full" || ok
grep -qx "$(printf 'llama\tfull')" "$TMP/archs" && grep -q "^$(printf 'eagle3\tkeys\t')" "$TMP/archs" \
    && ok || fail "--list architectures: llama full, eagle3 keys"
ARCH_SRC="$(dirname "$(dirname "${GGML_ORACLE:-/tmp/ggml-oracle/bin/ggml-oracle}")")/src/src/llama-arch.cpp"
if [ -f "$ARCH_SRC" ]; then
    sed -n '/LLM_ARCH_NAMES = {/,/^};/p' "$ARCH_SRC" | sed -n 's/.*{ *LLM_ARCH_[A-Z0-9_]*, *"\([^"]*\)".*/\1/p' \
        | grep -vx -e '(unknown)' -e clip -e gptj | sort > "$TMP/want"
    cut -f1 "$TMP/archs" | sort > "$TMP/got"
    [ "$(grep -c . "$TMP/want")" -ge 140 ] && diff "$TMP/want" "$TMP/got" > "$TMP/diff" \
        && ok || fail "--list architectures against llama-arch.cpp: $(head -5 "$TMP/diff")"
else
    skip "--list architectures against llama.cpp's names" "no $ARCH_SRC"
fi
expect_status 2 "$EDIT" verify
expect_status 1 "$EDIT" verify "$TMP/missing.gguf"
finish
