#!/bin/sh
# gguf-edit requant: llama.cpp-compatible requantization.
#  - usage errors exit 2 and write nothing; bad inputs exit 1 with a message;
#  - the metadata llama.cpp writes (general.file_type, general.quantization_version), the types
#    a preset, a plain type, --pure, --tensor-type, --output-tensor-type, COPY give;
#  - --threads does not change a byte; --keep-order keeps the tensors' order and bytes;
#    OUT is never FILE itself; nothing on stderr when it is not a terminal;
#  - with ggml-oracle: for llama models written by ggml (F32, and F16 made by llama.cpp),
#    requant to Q4_0, Q8_0, Q4_K_M, Q5_K_M, Q6_K, Q2_K, Q3_K_M (and from Q8_0) gives the very
#    file llama_model_quantize writes; with --keep-order, the same tensors (names, types, crc32);
#    llama.cpp loads every output and evaluates a token.
. "$(dirname "$0")/../support/cli_lib.sh"

GEN="$top_builddir/tests/lib/requant/check_requant"
M="$TMP/model.gguf"
"$GEN" --write-model "$M" --embd 256 --ff 512 --layers 4 --heads 8 --kv-heads 2 --vocab 64 \
    && ok || fail "cannot generate a model with $GEN"

# types of all tensors, "name type" per line, sorted by name
types_of() { "$EDIT" show "$1" --tensors | awk 'NR > 1 { print $2, $1 }' | sort; }
type_of() { "$EDIT" show "$1" --tensors | awk -v n="$2" '$2 == n { print $1 }'; }
# crc32 per tensor, sorted by name (the header line dropped)
crcs_of() { "$EDIT" hash "$1" | grep -v '(header)' | sort -k2; }

# ---- usage ----
expect_status 0 "$EDIT" requant --help
grep -q -- "--imatrix" "$TMP/out" && grep -q "Q4_K_M" "$TMP/out" && ok || fail "requant --help"
expect_status 2 "$EDIT" requant "$M"
expect_status 2 "$EDIT" requant "$M" Q4_K_M
expect_status 2 "$EDIT" requant "$M" Q4_K_X -o "$TMP/u.gguf"
grep -q "Q4_K_X" "$TMP/err" && ok || fail "unknown preset not named: $(cat "$TMP/err")"
expect_status 2 "$EDIT" requant "$M" Q4_K_M -o "$TMP/u.gguf" --threads x
expect_status 2 "$EDIT" requant "$M" Q4_K_M -o "$TMP/u.gguf" --tensor-type attn_q
expect_status 2 "$EDIT" requant "$M" Q4_K_M -o "$TMP/u.gguf" --tensor-type attn_q=Q9_9
expect_status 2 "$EDIT" requant "$M" Q4_K_M -o "$TMP/u.gguf" --output-tensor-type nope
expect_status 2 "$EDIT" requant "$M" Q4_K_M extra -o "$TMP/u.gguf"
[ ! -e "$TMP/u.gguf" ] && ok || fail "a usage error wrote a file"

# ---- bad inputs ----
expect_status 1 "$EDIT" requant "$TMP/missing.gguf" Q4_K_M -o "$TMP/u.gguf"
expect_status 1 "$EDIT" requant "$M" Q2_K_S -o "$TMP/u.gguf"
grep -q "importance matrix" "$TMP/err" && ok || fail "Q2_K_S without imatrix: $(cat "$TMP/err")"
expect_status 1 "$EDIT" requant "$M" Q4_K_M -o "$TMP/u.gguf" --tensor-type 'attn_(q=q8_0'
expect_status 1 "$EDIT" requant "$M" Q4_K_M -o "$TMP/u.gguf" --imatrix "$TMP/missing.dat"
[ ! -e "$TMP/u.gguf" ] && ok || fail "a refused requant wrote a file"

# ---- presets and metadata ----
expect_status 0 "$EDIT" requant "$M" Q4_K_M -o "$TMP/q4km.gguf" --threads 1
[ ! -s "$TMP/err" ] && ok || fail "requant printed on a pipe: $(cat "$TMP/err")"
[ "$("$EDIT" get "$TMP/q4km.gguf" general.file_type)" = 15 ] && ok || fail "file_type not 15"
[ "$("$EDIT" get "$TMP/q4km.gguf" general.quantization_version)" = 2 ] && ok ||
    fail "quantization_version not 2"
# the two keys llama.cpp sets are the last ones
"$EDIT" show "$TMP/q4km.gguf" --kv --json >"$TMP/kv.json"
tail_keys=$(grep -o '"key":"[^"]*"' "$TMP/kv.json" | tail -2 | tr '\n' ' ')
[ "$tail_keys" = '"key":"general.quantization_version" "key":"general.file_type" ' ] && ok ||
    fail "last keys: $tail_keys"
[ "$(type_of "$TMP/q4km.gguf" output.weight)" = Q6_K ] && ok || fail "Q4_K_M output not Q6_K"
[ "$(type_of "$TMP/q4km.gguf" blk.3.ffn_down.weight)" = Q6_K ] && ok || fail "ffn_down.3"
[ "$(type_of "$TMP/q4km.gguf" blk.1.ffn_down.weight)" = Q4_K ] && ok || fail "ffn_down.1"
[ "$(type_of "$TMP/q4km.gguf" blk.1.attn_norm.weight)" = F32 ] && ok || fail "norm changed"
# the same bytes with 3 threads, and with the default (one per CPU)
expect_status 0 "$EDIT" requant "$M" Q4_K_M -o "$TMP/q4km3.gguf" --threads 3
cmp -s "$TMP/q4km.gguf" "$TMP/q4km3.gguf" && ok || fail "--threads 3 changed the output"
expect_status 0 "$EDIT" requant "$M" q4_k_m -o "$TMP/q4km0.gguf"
cmp -s "$TMP/q4km.gguf" "$TMP/q4km0.gguf" && ok || fail "default threads changed the output"
# --dry-run: the plan, nothing written
expect_status 0 "$EDIT" requant "$M" Q4_K_M --dry-run -o "$TMP/dry.gguf"
grep -q "^\[ *[0-9]*/ *[0-9]*\] blk.3.ffn_down.weight  *- \[.*\], type =  *F32, converting to Q6_K " "$TMP/out" && ok || fail "--dry-run plan"
grep -q "output_norm.weight.*(kept)" "$TMP/out" && ok || fail "--dry-run kept tensors"
[ ! -e "$TMP/dry.gguf" ] && ok || fail "--dry-run wrote a file"
# --keep-order: the source's order, the same tensors and bytes
expect_status 0 "$EDIT" requant "$M" Q4_K_M -o "$TMP/kept.gguf" --keep-order
[ "$("$EDIT" show "$TMP/kept.gguf" --tensors | awk 'NR > 1 { print $2 }')" = \
  "$("$EDIT" show "$M" --tensors | awk 'NR > 1 { print $2 }')" ] && ok || fail "--keep-order order"
[ "$(crcs_of "$TMP/kept.gguf")" = "$(crcs_of "$TMP/q4km.gguf")" ] && ok ||
    fail "--keep-order changed tensor bytes"
# Q5_K is llama-quantize's other name of Q5_K_M: the same file as the preset's
expect_status 0 "$EDIT" requant "$M" Q5_K -o "$TMP/q5k.gguf"
expect_status 0 "$EDIT" requant "$M" Q5_K_M -o "$TMP/q5km.gguf"
cmp -s "$TMP/q5k.gguf" "$TMP/q5km.gguf" && ok || fail "Q5_K is not Q5_K_M"
[ "$("$EDIT" get "$TMP/q5k.gguf" general.file_type)" = 17 ] && ok || fail "Q5_K file_type"
# --pure: every tensor that may change gets the preset's type
expect_status 0 "$EDIT" requant "$M" Q5_K_M --pure -o "$TMP/q5kp.gguf"
[ "$(types_of "$TMP/q5kp.gguf" | awk '$2 != "F32" { print $2 }' | sort -u)" = Q5_K ] && ok ||
    fail "Q5_K_M --pure: $(types_of "$TMP/q5kp.gguf" | awk '{ print $2 }' | sort -u | tr '\n' ' ')"
# overrides: the first matching pattern wins, lower-cased as llama-quantize does
expect_status 0 "$EDIT" requant "$M" Q4_K_M -o "$TMP/ov.gguf" --tensor-type 'ATTN_Q=Q8_0' \
    --tensor-type 'attn_=q5_0' --output-tensor-type q8_0 --token-embedding-type f16
[ "$(type_of "$TMP/ov.gguf" blk.2.attn_q.weight)" = Q8_0 ] && ok || fail "override attn_q"
[ "$(type_of "$TMP/ov.gguf" blk.2.attn_k.weight)" = Q5_0 ] && ok || fail "override attn_"
[ "$(type_of "$TMP/ov.gguf" output.weight)" = Q8_0 ] && ok || fail "--output-tensor-type"
[ "$(type_of "$TMP/ov.gguf" token_embd.weight)" = F16 ] && ok || fail "--token-embedding-type"
printf 'ffn_up=q8_0\n  ffn_gate=Q6_K\n' >"$TMP/types.txt"
expect_status 0 "$EDIT" requant "$M" Q4_K_M -o "$TMP/ovf.gguf" --tensor-type-file "$TMP/types.txt"
[ "$(type_of "$TMP/ovf.gguf" blk.3.ffn_gate.weight)" = Q6_K ] && ok || fail "--tensor-type-file"
# COPY: nothing changes type, general.file_type kept
expect_status 0 "$EDIT" requant "$TMP/q4km.gguf" COPY -o "$TMP/copy.gguf"
[ "$(crcs_of "$TMP/copy.gguf")" = "$(crcs_of "$TMP/q4km.gguf")" ] && ok || fail "COPY changed data"
[ "$("$EDIT" get "$TMP/copy.gguf" general.file_type)" = 15 ] && ok || fail "COPY file_type"
# requantizing a quantized file; into itself is refused, as llama-quantize refuses it
cp "$TMP/q4km.gguf" "$TMP/self.gguf"
expect_status 1 "$EDIT" requant "$TMP/self.gguf" Q8_0 -o "$TMP/self.gguf" --allow-requantize
cmp -s "$TMP/self.gguf" "$TMP/q4km.gguf" && ok || fail "a requant onto its own input changed it"
expect_status 0 "$EDIT" requant "$TMP/self.gguf" Q8_0 -o "$TMP/q8.gguf" -v --allow-requantize
grep -q "converted" "$TMP/err" && ok || fail "-v prints no summary"
[ "$("$EDIT" get "$TMP/q8.gguf" general.file_type)" = 7 ] && ok || fail "requant of a quantized file"
expect_status 0 "$EDIT" verify --structure "$TMP/q8.gguf"

# ---- an importance matrix (legacy format, written byte by byte) ----
if command -v python3 >/dev/null 2>&1; then
    python3 - "$TMP/im.dat" <<'EOF'
import struct, sys
name = b"blk.0.attn_q.weight"
vals = [1.0 + (i % 7) for i in range(256)]
data = struct.pack("<i", 1) + struct.pack("<i", len(name)) + name
data += struct.pack("<ii", 2, len(vals)) + struct.pack("<%df" % len(vals), *vals)
data += struct.pack("<i", 5) + struct.pack("<i", 4) + b"wiki"
open(sys.argv[1], "wb").write(data)
EOF
    expect_status 0 "$EDIT" requant "$M" Q4_K_M -o "$TMP/im.gguf" --imatrix "$TMP/im.dat" --dry-run
    grep -q "blk.0.attn_q.weight.*(imatrix)" "$TMP/out" && ok || fail "imatrix not used"
    expect_status 0 "$EDIT" requant "$M" Q4_K_M -o "$TMP/im.gguf" --imatrix "$TMP/im.dat"
    [ "$("$EDIT" get "$TMP/im.gguf" quantize.imatrix.entries_count)" = 1 ] && ok ||
        fail "quantize.imatrix.entries_count"
    [ "$("$EDIT" get "$TMP/im.gguf" quantize.imatrix.dataset)" = wiki ] && ok ||
        fail "quantize.imatrix.dataset"
    [ "$(crcs_of "$TMP/im.gguf" | grep -c -v attn_q.weight)" -gt 0 ] && ok || fail "im crcs"
    ! cmp -s "$TMP/im.gguf" "$TMP/q4km.gguf" && ok || fail "the imatrix changed nothing"
fi

# ---- against llama.cpp ----
if have_oracle; then
    VOCAB="$CORPUS/real/ggml-vocab-llama-spm.gguf"
    if [ -f "$VOCAB" ]; then
        "$ORACLE" gen-llama --vocab "$VOCAB" --embd 256 --ff 512 --layers 4 --heads 8 \
            --kv-heads 2 "$TMP/f32.gguf" 2>/dev/null && ok || fail "oracle gen-llama"
        "$ORACLE" llama-quantize "$TMP/f32.gguf" "$TMP/f16.gguf" F16 2 >/dev/null 2>&1 && ok ||
            fail "oracle F16"
        "$ORACLE" llama-quantize "$TMP/f32.gguf" "$TMP/q8.gguf" Q8_0 2 >/dev/null 2>&1 && ok ||
            fail "oracle Q8_0"
        for src in f32 f16 q8; do
            if [ $src = q8 ]; then presets="Q4_K_M Q2_K"; else
                presets="Q4_0 Q8_0 Q4_K_M Q5_K_M Q6_K Q2_K Q3_K_M"; fi
            for p in $presets; do
                "$ORACLE" llama-quantize --allow-requantize "$TMP/$src.gguf" "$TMP/theirs.gguf" \
                    "$p" 2 >/dev/null 2>&1 || { fail "oracle llama-quantize $src $p"; continue; }
                expect_status 0 "$EDIT" requant "$TMP/$src.gguf" "$p" -o "$TMP/ours.gguf" \
                    --allow-requantize
                cmp -s "$TMP/ours.gguf" "$TMP/theirs.gguf" && ok ||
                    fail "$src -> $p: not llama_model_quantize's file"
                expect_status 0 "$EDIT" requant "$TMP/$src.gguf" "$p" -o "$TMP/kept.gguf" --keep-order \
                    --allow-requantize
                [ "$(crcs_of "$TMP/kept.gguf")" = "$(crcs_of "$TMP/theirs.gguf")" ] &&
                    [ "$(types_of "$TMP/kept.gguf")" = "$(types_of "$TMP/theirs.gguf")" ] && ok ||
                    fail "$src -> $p --keep-order: tensors differ from llama.cpp's"
                "$ORACLE" llama-load --eval "$TMP/kept.gguf" >"$TMP/load.json" 2>/dev/null &&
                    grep -q '"eval":{' "$TMP/load.json" && ok ||
                    fail "$src -> $p: llama.cpp cannot load and evaluate our output"
            done
        done
    else
        skip "requant against llama_model_quantize" "no ../shared/corpus (real/ggml-vocab-llama-spm.gguf)"
    fi
else
    skip "requant against llama_model_quantize" "no ggml-oracle (GGML_ORACLE)"
fi

finish
