#!/bin/sh
# gguf-edit tensor: raw bytes as stored, and values as little-endian f32 (dequantized, big-endian
# files converted first), checked against the hand fixtures' byte maps and, with the oracle,
# against ggml's own dequantizer on every tensor type of the llama.cpp-quantized model.
. "$(dirname "$0")/../support/cli_lib.sh"
f32() { python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); print(" ".join("%g" % v for v in struct.unpack("<%df" % (len(d)//4), d)))' "$1"; }

LE="$GOLDEN/hand/le_v3_two_tensors.gguf"
expect_status 0 "$EDIT" tensor "$LE" a -o "$TMP/a.raw"
tail -c +225 "$LE" | head -c 16 | cmp -s - "$TMP/a.raw" && ok || fail "raw bytes of a differ from the file's"
expect_status 0 "$EDIT" tensor "$LE" a --f32 -o "$TMP/a.f32"
[ "$(f32 "$TMP/a.f32")" = "1 2 -0.5 0" ] && ok || fail "a as f32: $(f32 "$TMP/a.f32")"
"$EDIT" tensor "$LE" b --f32 > "$TMP/b.f32"
[ "$(f32 "$TMP/b.f32")" = "1 -2 0.5 65504" ] && ok || fail "b (F16) as f32: $(f32 "$TMP/b.f32")"
"$EDIT" tensor "$GOLDEN/hand/be_v3_scalars.gguf" w --f32 > "$TMP/w.f32"
[ "$(f32 "$TMP/w.f32")" = "1 -1" ] && ok || fail "big-endian w as f32: $(f32 "$TMP/w.f32")"
expect_status 1 "$EDIT" tensor "$LE" nope
expect_status 2 "$EDIT" tensor "$LE"

if ! have_corpus; then
    skip "ggml's dequantizer on the corpus model" "no ../shared/corpus"
elif ! have_oracle; then
    skip "ggml's dequantizer on the corpus model" "no ggml-oracle (GGML_ORACLE)"
else
    MODEL="$CORPUS/models/tiny-llama-e256-Q4_K_M.gguf"
    n=0
    for name in token_embd.weight blk.0.attn_v.weight blk.0.ffn_down.weight blk.0.attn_q.weight output_norm.weight; do
        type=$("$EDIT" show --json "$MODEL" | python3 -c 'import json,sys; t=[t for t in json.load(sys.stdin)["tensors"] if t["name"]==sys.argv[1]][0]; print(t["type"].lower())' "$name")
        "$EDIT" tensor "$MODEL" "$name" -o "$TMP/t.raw"
        "$EDIT" tensor "$MODEL" "$name" --f32 -o "$TMP/ours.f32"
        "$ORACLE" dequant "$type" "$TMP/t.raw" auto "$TMP/ggml.f32" >/dev/null 2>&1 || { fail "oracle dequant $type"; continue; }
        cmp -s "$TMP/ours.f32" "$TMP/ggml.f32" && ok || fail "$name ($type): floats differ from ggml's"
        n=$((n + 1))
    done
    echo "cli_tensor: $n tensors dequantized exactly as ggml does"
    [ "$n" -eq 5 ] && ok || fail "only $n tensors compared with ggml's dequantizer"
fi
finish
