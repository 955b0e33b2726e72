#!/bin/sh
# gguf-edit verify: exit 0 clean, 1 errors, 3 warnings only, with the warnings llama.cpp cares about.
. "$(dirname "$0")/cli_lib.sh"

expect_status 0 "$EDIT" verify "$GOLDEN/hand/le_v3_two_tensors.gguf"
expect_status 3 "$EDIT" verify "$GOLDEN/hand/be_v3_scalars.gguf"
grep -q "big-endian file" "$TMP/err" && ok || fail "no big-endian warning"
expect_status 3 "$EDIT" verify "$GOLDEN/hand/v1_one_tensor.gguf"
grep -q "v1 file" "$TMP/err" && ok || fail "no v1 warning"
expect_status 3 "$EDIT" verify "$GOLDEN/hand/gaps_and_trailer.gguf"
grep -q "packed" "$TMP/err" && ok || fail "no layout warning"
grep -q "name of 64 bytes" "$TMP/err" && ok || fail "no tensor name warning"
expect_status 0 "$EDIT" verify "$GOLDEN/derived/v1_one_tensor.v3.gguf"

if have_corpus; then
    expect_status 3 "$EDIT" verify "$CORPUS/bad/alignment_48.gguf"
    grep -q "not a power of two" "$TMP/err" && ok || fail "no alignment warning"
    expect_status 3 "$EDIT" verify "$CORPUS/bad/bool_byte_2.gguf"
    grep -q "bool byte" "$TMP/err" && ok || fail "no bool warning"
    expect_status 3 "$EDIT" verify "$CORPUS/bad/key_70000_bytes.gguf"
    grep -q "70000 bytes long" "$TMP/err" && ok || fail "no long key warning"
    expect_status 3 "$EDIT" verify "$CORPUS/bad/key_non_utf8.gguf"
    grep -q "not ASCII" "$TMP/err" && ok || fail "no ASCII warning"
    expect_status 3 "$EDIT" verify "$CORPUS/synth/kv_nested_arrays.gguf"
    grep -q "nested arrays" "$TMP/err" && ok || fail "no nested array warning"
    expect_status 1 "$EDIT" verify "$CORPUS/bad/truncated_17_in_tensor_data.gguf"
    expect_status 1 "$EDIT" verify "$CORPUS/bad/overlapping_tensors.gguf"
    # every file ggml reads cleanly verifies clean (tensors_edge has a 64-byte tensor name)
    for f in "$CORPUS"/real/*.gguf "$CORPUS"/models/*.gguf "$CORPUS"/synth/tensors_[!e]*.gguf; do
        expect_status 0 "$EDIT" verify "$f"
    done
    expect_status 3 "$EDIT" verify "$CORPUS/synth/tensors_edge.gguf"
    grep -q "name of 64 bytes" "$TMP/err" && ok || fail "no 64-byte name warning"
else
    skip "the corpus: warnings and errors of real and malformed files" "no ../shared/corpus"
fi
expect_status 2 "$EDIT" verify
finish
