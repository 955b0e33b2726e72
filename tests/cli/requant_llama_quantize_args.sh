#!/bin/sh
# gguf-edit requant takes llama-quantize's arguments:
#  - FILE OUT TYPE [NTHREADS] gives the file FILE TYPE -o OUT --threads N gives; preset numbers
#    (15 is Q4_K_M); usage errors print a short usage, --help the full text;
#  - --dry-run prints each tensor's size before and after and the totals, which are the sizes
#    of the file a real run writes;
#  - --include-weights / --exclude-weights filter the importance matrix;
#  - with ggml-oracle (llama_model_quantize): a model already quantized is refused without
#    --allow-requantize exactly when llama.cpp refuses it (same first tensor type named), and
#    with it the file is llama.cpp's; --override-kv gives llama.cpp's file with ggml's own
#    gguf_set_val_* applied (what llama_model_quantize does with overrides); --prune-layers on
#    a preset whose rules do not look at layers gives the file llama.cpp writes for the model
#    pruned by hand, with {arch}.block_count set last; llama.cpp loads and runs it.
. "$(dirname "$0")/../support/cli_lib.sh"

GEN="$top_builddir/tests/lib/requant/check_requant"
M="$TMP/model.gguf"
"$GEN" --write-model "$M" --embd 256 --ff 512 --layers 4 --heads 8 --kv-heads 2 --vocab 64 \
    && ok || fail "cannot generate a model with $GEN"
type_of() { "$EDIT" show "$1" --tensors | awk -v n="$2" '$2 == n { print $1 }'; }

# ---- llama-quantize's positional form, preset numbers ----
expect_status 0 "$EDIT" requant "$M" Q4_K_M -o "$TMP/a.gguf" --threads 2
expect_status 0 "$EDIT" requant "$M" "$TMP/b.gguf" Q4_K_M 2
cmp -s "$TMP/a.gguf" "$TMP/b.gguf" && ok || fail "FILE OUT TYPE 2 != FILE TYPE -o OUT --threads 2"
expect_status 0 "$EDIT" requant "$M" "$TMP/c.gguf" 15
cmp -s "$TMP/a.gguf" "$TMP/c.gguf" && ok || fail "preset number 15 is not Q4_K_M"
expect_status 0 "$EDIT" requant "$M" q4_k_m 1 -o "$TMP/d.gguf"
cmp -s "$TMP/a.gguf" "$TMP/d.gguf" && ok || fail "FILE TYPE NTHREADS -o OUT"
expect_status 0 "$EDIT" requant "$M" "$TMP/e.gguf" 7
[ "$("$EDIT" get "$TMP/e.gguf" general.file_type)" = 7 ] && ok || fail "preset number 7 (Q8_0)"

# ---- usage errors: a short usage; --help: all of it ----
expect_status 0 "$EDIT" requant --help
grep -q -- "--allow-requantize" "$TMP/out" && grep -q -- "--override-kv" "$TMP/out" &&
    grep -q -- "--prune-layers" "$TMP/out" && ok || fail "--help lacks the new options"
expect_status 2 "$EDIT" requant "$M" "$TMP/u.gguf" Q4_K_M -o "$TMP/v.gguf"
grep -q "given twice" "$TMP/err" && ok || fail "OUT and -o: $(cat "$TMP/err")"
[ "$(grep -c . "$TMP/err")" -le 5 ] && ! grep -q -- "--tensor-type-file" "$TMP/err" && ok ||
    fail "a usage error prints the whole help"
expect_status 2 "$EDIT" requant "$M" "$TMP/u.gguf" Q4_K_M 2 --threads 2
expect_status 2 "$EDIT" requant "$M" "$TMP/u.gguf" Q4_K_M 2 extra
expect_status 2 "$EDIT" requant "$M" "$TMP/u.gguf" 4
grep -q "not the number of a preset" "$TMP/err" && ok || fail "preset 4: $(cat "$TMP/err")"
expect_status 2 "$EDIT" requant "$M" "$TMP/u.gguf" Q4_K_M --bogus
grep -q "^usage:" "$TMP/err" && ok || fail "unknown option: no usage line"
expect_status 2 "$EDIT" requant "$M" "$TMP/u.gguf" Q4_K_M --override-kv general.name=string:x
expect_status 2 "$EDIT" requant "$M" "$TMP/u.gguf" Q4_K_M --override-kv general.name
expect_status 2 "$EDIT" requant "$M" "$TMP/u.gguf" Q4_K_M --override-kv a=bool:yes
expect_status 2 "$EDIT" requant "$M" "$TMP/u.gguf" Q4_K_M --override-kv a=int:12x
expect_status 2 "$EDIT" requant "$M" "$TMP/u.gguf" Q4_K_M --prune-layers 1,x
expect_status 2 "$EDIT" requant "$M" "$TMP/u.gguf" Q4_K_M --prune-layers -1
expect_status 2 "$EDIT" requant "$M" "$TMP/u.gguf" Q4_K_M --max-buffer-size 0
expect_status 2 "$EDIT" requant "$M" "$TMP/u.gguf" Q4_K_M --include-weights a --exclude-weights b
[ ! -e "$TMP/u.gguf" ] && [ ! -e "$TMP/v.gguf" ] && ok || fail "a usage error wrote a file"
expect_status 0 "$EDIT" requant "$M" "$TMP/f.gguf" Q4_K_M --max-buffer-size 64
cmp -s "$TMP/a.gguf" "$TMP/f.gguf" && ok || fail "--max-buffer-size changed the output"

# ---- --allow-requantize ----
expect_status 1 "$EDIT" requant "$TMP/a.gguf" "$TMP/u.gguf" Q8_0
grep -q "quantized already" "$TMP/err" && grep -q -- "--allow-requantize" "$TMP/err" && ok ||
    fail "requantizing a Q4_K_M file: $(cat "$TMP/err")"
[ ! -e "$TMP/u.gguf" ] && ok || fail "a refused requantization wrote a file"
expect_status 0 "$EDIT" requant "$TMP/a.gguf" "$TMP/g.gguf" Q8_0 --allow-requantize
expect_status 0 "$EDIT" requant "$TMP/a.gguf" "$TMP/h.gguf" Q4_K_M
cmp -s "$TMP/a.gguf" "$TMP/h.gguf" && ok || fail "Q4_K_M -> Q4_K_M (nothing converted) changed bytes"
expect_status 0 "$EDIT" requant "$TMP/a.gguf" "$TMP/i.gguf" COPY
expect_status 0 "$EDIT" requant "$TMP/a.gguf" Q8_0 --dry-run
grep -q "without --allow-requantize" "$TMP/err" && ok || fail "--dry-run: no note about requantizing"

# ---- --dry-run: sizes before and after, totals equal to the file written ----
expect_status 0 "$EDIT" requant "$M" Q4_K_M --dry-run
grep -q "^\[ *[0-9]*/ *[0-9]*\] blk.3.ffn_down.weight .*type =  *F32, converting to Q6_K .. size =  *[0-9.]* MiB ->  *[0-9.]* MiB" "$TMP/out" && ok ||
    fail "--dry-run: no sizes: $(head -3 "$TMP/out")"
tensor_mib() { "$EDIT" show "$1" --tensors --json | grep -o '"size":[0-9]*' |
    awk -F: '{ s += $2 } END { printf "%.2f", s / 1048576 }'; }
[ "$(awk '/^model size:/ { print $3 }' "$TMP/out")" = "$(tensor_mib "$M")" ] && ok ||
    fail "--dry-run model size: $(grep size: "$TMP/out") vs $(tensor_mib "$M")"
[ "$(awk '/^quant size:/ { print $3 }' "$TMP/out")" = "$(tensor_mib "$TMP/a.gguf")" ] && ok ||
    fail "--dry-run quant size: $(grep size: "$TMP/out") vs $(tensor_mib "$TMP/a.gguf")"

# ---- --include-weights / --exclude-weights ----
if command -v python3 >/dev/null 2>&1; then
    python3 - "$TMP/im.dat" <<'EOF'
import struct, sys
data = struct.pack("<i", 2)
for name in (b"blk.0.attn_q.weight", b"blk.1.attn_k.weight"):
    vals = [1.0 + (i % 5) for i in range(256)]
    data += struct.pack("<i", len(name)) + name + struct.pack("<ii", 1, len(vals))
    data += struct.pack("<%df" % len(vals), *vals)
open(sys.argv[1], "wb").write(data)
EOF
    expect_status 0 "$EDIT" requant "$M" "$TMP/im1.gguf" Q4_K_M --imatrix "$TMP/im.dat" \
        --include-weights attn_q
    [ "$("$EDIT" get "$TMP/im1.gguf" quantize.imatrix.entries_count)" = 1 ] && ok ||
        fail "--include-weights: entries_count"
    expect_status 0 "$EDIT" requant "$M" "$TMP/im2.gguf" Q4_K_M --imatrix "$TMP/im.dat" \
        --exclude-weights attn_q --dry-run
    grep -q "blk.1.attn_k.weight.*(imatrix)" "$TMP/out" &&
        ! grep -q "blk.0.attn_q.weight.*(imatrix)" "$TMP/out" && ok || fail "--exclude-weights"
    expect_status 0 "$EDIT" requant "$M" "$TMP/im3.gguf" Q4_K_M --imatrix "$TMP/im.dat" \
        --exclude-weights blk
    cmp -s "$TMP/im3.gguf" "$TMP/a.gguf" && ok || fail "an imatrix with every entry excluded is used"
fi

# ---- against llama.cpp ----
VOCAB="$CORPUS/real/ggml-vocab-llama-spm.gguf"
if ! have_oracle || [ ! -f "$VOCAB" ]; then
    echo "cli_requant_compat: ggml-oracle or $VOCAB absent, comparisons with llama.cpp skipped"
    finish
    exit $?
fi
"$ORACLE" gen-llama --vocab "$VOCAB" --embd 256 --ff 512 --layers 4 --heads 8 --kv-heads 2 \
    "$TMP/f32.gguf" 2>/dev/null && ok || fail "oracle gen-llama"
"$ORACLE" llama-quantize "$TMP/f32.gguf" "$TMP/f16.gguf" F16 2 >/dev/null 2>&1 && ok || fail "F16"
"$ORACLE" llama-quantize "$TMP/f32.gguf" "$TMP/q8.gguf" Q8_0 2 >/dev/null 2>&1 && ok || fail "Q8_0"
"$ORACLE" llama-quantize "$TMP/f32.gguf" "$TMP/q4km.gguf" Q4_K_M 2 >/dev/null 2>&1 && ok ||
    fail "Q4_K_M"

# refused exactly when llama.cpp refuses, naming the same type; identical files otherwise
for src in f16 q8 q4km; do
    for p in Q4_K_M Q8_0 Q6_K Q4_0 F16 COPY; do
        GGML_ORACLE_VERBOSE=1 "$ORACLE" llama-quantize "$TMP/$src.gguf" "$TMP/theirs.gguf" "$p" 2 \
            >/dev/null 2>"$TMP/their_err"
        theirs=$?
        "$EDIT" requant "$TMP/$src.gguf" "$TMP/ours.gguf" "$p" 2 >/dev/null 2>"$TMP/our_err"
        ours=$?
        if [ $theirs -eq 0 ]; then
            [ $ours -eq 0 ] && cmp -s "$TMP/ours.gguf" "$TMP/theirs.gguf" && ok ||
                fail "$src -> $p: llama.cpp writes it, we: $ours $(cat "$TMP/our_err")"
        else
            want=$(sed -n 's/.*requantizing from type \([A-Za-z0-9_]*\) is disabled.*/\1/p' \
                "$TMP/their_err" | head -1)
            got=$(sed -n 's/.*quantized already (\([A-Za-z0-9_]*\)).*/\1/p' "$TMP/our_err")
            [ $ours -eq 1 ] && [ -n "$want" ] &&
                [ "$(echo "$got" | tr a-z A-Z)" = "$(echo "$want" | tr a-z A-Z)" ] && ok ||
                fail "$src -> $p: llama.cpp refuses ($want), we: $ours $(cat "$TMP/our_err")"
            "$ORACLE" llama-quantize --allow-requantize "$TMP/$src.gguf" "$TMP/theirs.gguf" \
                "$p" 2 >/dev/null 2>&1 || fail "oracle --allow-requantize $src -> $p"
            expect_status 0 "$EDIT" requant --allow-requantize "$TMP/$src.gguf" "$TMP/ours.gguf" "$p"
            cmp -s "$TMP/ours.gguf" "$TMP/theirs.gguf" && ok ||
                fail "$src -> $p --allow-requantize: not llama.cpp's file"
        fi
    done
done

# --override-kv: llama_model_quantize applies each override with gguf_set_val_* (an existing
# key moves to the end), int as UINT32 of the absolute value; ggml-oracle set does the same
"$ORACLE" llama-quantize "$TMP/f32.gguf" "$TMP/t0.gguf" Q4_K_M 2 >/dev/null 2>&1 && ok ||
    fail "oracle Q4_K_M"
"$ORACLE" set "$TMP/t0.gguf" "$TMP/t1.gguf" general.name str "Renamed model" >/dev/null &&
    "$ORACLE" set "$TMP/t1.gguf" "$TMP/t2.gguf" my.count u32 7 >/dev/null &&
    "$ORACLE" set "$TMP/t2.gguf" "$TMP/t3.gguf" my.scale f32 0.25 >/dev/null &&
    "$ORACLE" set "$TMP/t3.gguf" "$TMP/t4.gguf" my.flag bool true >/dev/null &&
    "$ORACLE" set "$TMP/t4.gguf" "$TMP/theirs.gguf" my.count u32 9 >/dev/null && ok ||
    fail "oracle set"
expect_status 0 "$EDIT" requant "$TMP/f32.gguf" "$TMP/ours.gguf" Q4_K_M 2 \
    --override-kv "general.name=str:Renamed model" --override-kv my.count=int:-7 \
    --override-kv my.scale=float:0.25 --override-kv my.flag=bool:true \
    --override-kv my.count=int:9
cmp -s "$TMP/ours.gguf" "$TMP/theirs.gguf" && ok ||
    fail "--override-kv: not llama.cpp's file with ggml's gguf_set_val_*"
"$ORACLE" dump "$TMP/ours.gguf" >"$TMP/dump.json" 2>/dev/null && ok || fail "ggml cannot read it"
grep -q '"my.scale"' "$TMP/dump.json" && grep -q 'Renamed model' "$TMP/dump.json" && ok ||
    fail "ggml's reading lacks the overrides"

# --prune-layers 1 (Q8_0's types do not depend on the layer): the model pruned by hand, then
# quantized by llama.cpp, then {arch}.block_count set (last), is our file
"$EDIT" show "$TMP/f32.gguf" --tensors | awk 'NR > 1 { print $2 }' >"$TMP/names"
{
    awk '/^blk\.1\./ { print "rm-tensor " $0 }' "$TMP/names"
    for l in 2 3; do
        awk -v l=$l '$0 ~ "^blk\\." l "\\." { n = $0; sub("^blk\\." l "\\.", "blk." (l - 1) ".", n);
            print "rename-tensor " $0 " " n }' "$TMP/names"
    done
} >"$TMP/prune.edits"
expect_status 0 "$EDIT" edit "$TMP/f32.gguf" -o "$TMP/pruned.gguf" --edits "$TMP/prune.edits"
"$ORACLE" llama-quantize "$TMP/pruned.gguf" "$TMP/p0.gguf" Q8_0 2 >/dev/null 2>&1 &&
    "$ORACLE" set "$TMP/p0.gguf" "$TMP/theirs.gguf" llama.block_count u32 3 >/dev/null && ok ||
    fail "oracle on the model pruned by hand"
expect_status 0 "$EDIT" requant "$TMP/f32.gguf" "$TMP/ours.gguf" Q8_0 2 --prune-layers 1
cmp -s "$TMP/ours.gguf" "$TMP/theirs.gguf" && ok || fail "--prune-layers 1: not llama.cpp's file"
expect_status 0 "$EDIT" requant "$TMP/f32.gguf" "$TMP/ours.gguf" Q4_K_M 2 --prune-layers 3,1,1
[ "$("$EDIT" get "$TMP/ours.gguf" llama.block_count)" = 2 ] && ok || fail "pruned block_count"
[ -z "$(type_of "$TMP/ours.gguf" blk.2.attn_q.weight)" ] &&
    [ -n "$(type_of "$TMP/ours.gguf" blk.1.attn_q.weight)" ] && ok || fail "layers 1 and 3 pruned"
"$ORACLE" llama-load --eval "$TMP/ours.gguf" >"$TMP/load.json" 2>/dev/null &&
    grep -q '"eval":{' "$TMP/load.json" && ok || fail "llama.cpp cannot run the pruned model"

finish
