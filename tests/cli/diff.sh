#!/bin/sh
# gguf-edit diff: what changed, shown as it changed. Arrays list the indices that differ with
# their old and new values; tensors say what changed (type, shape, bytes) and nothing else; -q
# and --json; exit 0 same, 1 different, 2 trouble. --values compares dequantized tensors: on a
# model of F32 values against llama.cpp's own Q8_0, Q4_K_M and Q6_K quantizations, its RMSE,
# max error and cosine agree with the same figures computed here from ggml's dequantizer.
. "$(dirname "$0")/../support/cli_lib.sh"
GEN="$top_builddir/bench/gen_model"

"$GEN" "$TMP/a.gguf" 2 >/dev/null || { fail "generator"; finish; exit 1; }
A="$TMP/a.gguf"
expect_status 0 "$EDIT" diff "$A" "$A"
[ -s "$TMP/out" ] && fail "diff of a file with itself prints something" || ok
expect_status 0 "$EDIT" diff -q "$A" "$A"

# keys: a scalar's value and type, an array's elements, keys added and removed
B="$TMP/b.gguf"
cp "$A" "$B"
"$EDIT" edit "$B" --set "general.name=renamed" --set "llama.block_count:str=1" \
    --set-json 'tokenizer.ggml.tokens=["<unk>", "<s>", "</s>", "HELLO", "world"]' \
    --set "added.key:u32=7" --rm general.architecture >/dev/null || fail "edit"
expect_status 1 "$EDIT" diff "$A" "$B"
grep -qx '~ general.name \[STRING\] "generated" -> "renamed"' "$TMP/out" && ok || fail "scalar change: $(cat "$TMP/out")"
grep -qx '~ llama.block_count \[UINT32\] 1 -> \[STRING\] "1"' "$TMP/out" && ok || fail "type change"
grep -qx '    \[3\] "hello" -> "HELLO"' "$TMP/out" && ok || fail "array element change"
grep -q '\[0\]\|\[1\]\|\[2\]\|\[4\]' "$TMP/out" && fail "unchanged elements shown" || ok
grep -qx '+ added.key \[UINT32\] 7' "$TMP/out" && ok || fail "added key"
grep -qx -e '- general.architecture \[STRING\] "llama"' "$TMP/out" && ok || fail "removed key"
expect_status 1 "$EDIT" diff -q "$A" "$B"
[ "$(cat "$TMP/out")" = "Files $A and $B differ" ] && ok || fail "-q: $(cat "$TMP/out")"

# an array that grows: the new elements, no repetition of the old ones
cp "$A" "$TMP/c.gguf"
"$EDIT" edit "$TMP/c.gguf" --set-json 'tokenizer.ggml.tokens=["<unk>", "<s>", "</s>", "hello", "world", "new"]' >/dev/null
expect_status 1 "$EDIT" diff "$A" "$TMP/c.gguf"
grep -qx '~ tokenizer.ggml.tokens \[STRING\[5\] -> STRING\[6\]\]' "$TMP/out" && ok || fail "grown array header: $(cat "$TMP/out")"
grep -qx '    \[5\] + "new"' "$TMP/out" && ok || fail "added element"
[ "$(wc -l <"$TMP/out")" -eq 2 ] && ok || fail "grown array: $(cat "$TMP/out")"

# tensors: retyped (type only), renamed (removed + added), other bytes (where)
"$EDIT" edit "$A" --rename-tensor blk.0.ffn_up.weight=renamed.weight -o "$TMP/t.gguf" >/dev/null
expect_status 1 "$EDIT" diff "$A" "$TMP/t.gguf"
grep -qx -e '- tensor blk.0.ffn_up.weight F16 \[4096, 2048\]' "$TMP/out" && ok || fail "removed tensor: $(cat "$TMP/out")"
grep -qx '+ tensor renamed.weight F16 \[4096, 2048\]' "$TMP/out" && ok || fail "added tensor"
"$EDIT" requant "$A" Q8_0 --pure -o "$TMP/q.gguf" >/dev/null 2>&1 ||
    "$EDIT" requant "$A" q8_0 -o "$TMP/q.gguf" >/dev/null 2>&1 || fail "requant"
expect_status 1 "$EDIT" diff "$A" "$TMP/q.gguf"
grep -q '~ tensor blk.0.ffn_up.weight: type F16 -> Q8_0$' "$TMP/out" && ok || fail "retyped tensor: $(cat "$TMP/out")"
grep -q 'shape' "$TMP/out" && fail "an unchanged shape is repeated" || ok
cp "$A" "$TMP/x.gguf"
size=$(wc -c <"$A")
printf 'Z' | dd of="$TMP/x.gguf" bs=1 seek=$((size - 1000)) conv=notrunc 2>/dev/null
expect_status 1 "$EDIT" diff "$A" "$TMP/x.gguf"
grep -q '~ tensor blk.0.ffn_up.weight: bytes differ from byte [0-9]* of 16777216 (element [0-9]*)$' "$TMP/out" && ok || fail "bytes: $(cat "$TMP/out")"

# --json: one document, with the changed elements
expect_status 1 "$EDIT" diff --json "$A" "$B"
python3 - "$TMP/out" <<'EOF' && ok || fail "diff --json: $(head -c 300 "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
kv = {k["key"]: k for k in d["kv"]}
t = kv["tokenizer.ggml.tokens"]
assert t["change"] == "changed" and t["elements"] == [{"index": 3, "a": "hello", "b": "HELLO"}], t
assert kv["general.architecture"]["change"] == "removed"
assert kv["added.key"]["b"] == {"type": "UINT32", "value": 7}
assert kv["llama.block_count"]["b"]["type"] == "STRING"
assert d["summary"]["differences"] == len(d["kv"]) + len(d["tensors"]) + len(d["header"])
EOF

# trouble: exit 2
expect_status 2 "$EDIT" diff "$A" "$TMP/missing.gguf"
expect_status 2 "$EDIT" diff "$A"
expect_status 2 "$EDIT" diff --threads 0 "$A" "$A"

# ---- --values against ggml's own dequantizer and llama.cpp's quantizer ----
if ! have_oracle || ! have_corpus; then
    echo "cli_diff: ggml-oracle or the corpus absent, --values part skipped"
    finish
    exit $?
fi
Q="$TMP/q"
mkdir -p "$Q"
# Debian's interpreter, which has python3-numpy (the first python3 on PATH may not)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$ORACLE" gen-llama --vocab "$CORPUS/real/ggml-vocab-llama-spm.gguf" --embd 256 --ff 512 "$Q/f32.gguf" 2>/dev/null ||
    fail "gen-llama"
for t in Q8_0 Q4_K_M Q6_K; do
    "$ORACLE" llama-quantize "$Q/f32.gguf" "$Q/$t.gguf" "$t" >/dev/null 2>&1 || fail "llama-quantize $t"
    expect_status 1 "$EDIT" diff --values --json "$Q/f32.gguf" "$Q/$t.gguf"
    cp "$TMP/out" "$Q/$t.json"
    expect_status 1 "$EDIT" diff --values --json --threads 1 "$Q/f32.gguf" "$Q/$t.gguf"
    cmp -s "$TMP/out" "$Q/$t.json" && ok || fail "$t: --threads 1 gives other figures than 2"
    # every quantized tensor: its bytes through ggml's to_float, against the F32 original
    python3 - "$Q/$t.json" <<'EOF' >"$Q/$t.list" || fail "$t: reading diff --json"
import json, sys
d = json.load(open(sys.argv[1]))
for t in d["tensors"]:
    if t["change"] == "changed" and t["b"]["type"] in ("Q8_0", "Q4_K", "Q6_K"):
        print(t["name"], t["b"]["type"])
EOF
    while read -r name type; do
        "$EDIT" tensor "$Q/f32.gguf" "$name" -o "$Q/a.f32" &&
            "$EDIT" tensor "$Q/$t.gguf" "$name" -o "$Q/b.bin" &&
            "$ORACLE" dequant "$type" "$Q/b.bin" auto "$Q/b.f32" >/dev/null 2>&1 ||
            { fail "$t $name: extracting"; continue; }
        "$PY" - "$Q/a.f32" "$Q/b.f32" "$Q/$t.json" "$name" <<'EOF' && ok || fail "$t $name: figures differ"
import array, json, math, sys
try:  # numpy where the interpreter has it (Debian's python3-numpy): the same sums, in C
    import numpy
    a = numpy.fromfile(sys.argv[1], dtype="<f4").astype(numpy.float64)
    b = numpy.fromfile(sys.argv[2], dtype="<f4").astype(numpy.float64)
    assert len(a) == len(b) and len(a) > 0
    d = a - b
    d2, a2, b2, ab = (float(numpy.dot(x, y)) for x, y in ((d, d), (a, a), (b, b), (a, b)))
    mx = float(numpy.abs(d).max())
except ImportError:
    a = array.array("f"); a.frombytes(open(sys.argv[1], "rb").read())
    b = array.array("f"); b.frombytes(open(sys.argv[2], "rb").read())
    assert len(a) == len(b) and len(a) > 0
    d2 = a2 = b2 = ab = mx = 0.0
    for x, y in zip(a, b):
        d2 += (x - y) ** 2; a2 += x * x; b2 += y * y; ab += x * y; mx = max(mx, abs(x - y))
want = {"rmse": math.sqrt(d2 / len(a)), "max_abs": mx, "rel": math.sqrt(d2 / a2),
        "cos": ab / math.sqrt(a2 * b2)}
got = next(t for t in json.load(open(sys.argv[3]))["tensors"] if t["name"] == sys.argv[4])["values"]
assert got["elements"] == len(a), got
for k, w in want.items():
    if abs(got[k] - w) > 1e-6 * abs(w) + 1e-12:
        sys.exit("%s %s: diff says %r, ggml's values give %r" % (sys.argv[4], k, got[k], w))
print("%s %s rmse %.6g (diff) %.6g (ggml)" % (sys.argv[4], "ok", got["rmse"], want["rmse"]), file=sys.stderr)
EOF
    done <"$Q/$t.list"
    n=$(wc -l <"$Q/$t.list")
    [ "$n" -gt 0 ] && ok || fail "$t: no quantized tensor compared"
    echo "cli_diff: $t: $n tensors agree with ggml's dequantized values"
done
# the text summary
expect_status 1 "$EDIT" diff --values "$Q/f32.gguf" "$Q/Q4_K_M.gguf"
grep -q '^= values: 21 tensors in both files, 16 with other values; over all 17564928 elements: rmse ' "$TMP/out" && ok ||
    fail "--values summary: $(tail -1 "$TMP/out")"
finish
