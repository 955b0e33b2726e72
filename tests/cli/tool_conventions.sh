#!/bin/sh
# gguf-edit keeps the conventions of the tools users know:
#  - messages: the "outgrew its padding" note only when the header grew; no text said twice
#    (a path, a byte offset, llama.cpp's verdict); counts with their noun's plural right;
#  - requant prints llama-quantize's report (a line per tensor, the model's size before and
#    after), -q silences it; --help lists the presets with llama-quantize's figures; "did you
#    mean" for presets, key and tensor names; a negative number as a value points at '--';
#  - tokens by text, as gguf_new_metadata.py edits them (its output is the reference):
#    --special-token, --chat-template-config (string and list forms); a special token id
#    outside the vocabulary is refused unless --force;
#  - show cuts long strings in text (--full: whole; --json: unchanged) and names
#    general.file_type's preset; tensor refuses binary to a terminal, --values N, --npy
#    (numpy.load agrees with --f32);
#  - hash --sha256: the file's digest as sha256sum prints it, each tensor's as
#    llama-gguf-hash prints it (checked against sha256sum of the tensor's bytes).
. "$(dirname "$0")/../support/cli_lib.sh"

HAND="$GOLDEN/hand"
PY=/usr/bin/python3
GGUF_PY=${GGUF_PY:-/tmp/ggml-oracle/src/gguf-py}
have_gguf_py() { PYTHONPATH="$GGUF_PY" "$PY" -c 'import gguf, tqdm' 2>/dev/null; }
have_numpy() { "$PY" -c 'import numpy' 2>/dev/null; }
fixture() { cp "$HAND/$1.gguf" "$TMP/$1.gguf" && chmod u+w "$TMP/$1.gguf"; }

# a model: llama hyperparameters and F32 tensors, with a vocabulary whose '<|im_end|>' is there
# twice (ids 3 and 6) and a general.name
M="$TMP/model.gguf"
"$top_builddir/tests/lib/requant/check_requant" --write-model "$M" --embd 256 --ff 512 --layers 2 --heads 8 \
    --kv-heads 2 --vocab 64 >/dev/null 2>&1 &&
    "$EDIT" edit "$M" --set general.name=habits \
        --set-json 'tokenizer.ggml.tokens:str=["<unk>","<s>","</s>","<|im_end|>","a","b","<|im_end|>"]' \
        >/dev/null 2>&1 && ok || fail "cannot make the model"
cp "$M" "$TMP/model.orig"

# ==== messages ====
# a rewrite for another reason than a grown header: no note about padding
fixture be_v3_scalars
expect_status 0 "$EDIT" set "$TMP/be_v3_scalars.gguf" general.alignment 128 -v
grep -q 'outgrew' "$TMP/err" && fail "set of a UINT32 over a UINT32 (realign): $(cat "$TMP/err")" || ok
fixture le_v3_two_tensors
expect_status 0 "$EDIT" edit "$TMP/le_v3_two_tensors.gguf" --rm-tensor b -v
grep -q 'outgrew' "$TMP/err" && fail "edit --rm-tensor: $(cat "$TMP/err")" || ok
# the plural: one tensor is left
grep -q '1 tensor checked' "$TMP/err" && ok || fail "1 tensor(s): $(cat "$TMP/err")"
"$EDIT" show "$TMP/le_v3_two_tensors.gguf" | head -1 | grep -q ', 1 tensor, ' && ok ||
    fail "show: $("$EDIT" show "$TMP/le_v3_two_tensors.gguf" | head -1)"
# a header that did grow still gets the note
fixture le_v3_two_tensors
expect_status 0 "$EDIT" edit "$TMP/le_v3_two_tensors.gguf" --set test.grown:u32=1
grep -q 'outgrew its padding' "$TMP/err" && ok || fail "a grown header lost its note: $(cat "$TMP/err")"
# the path once
expect_status 1 "$EDIT" requant "$M" "$TMP/q.gguf" Q8_0 --imatrix "$TMP/nonexist.dat"
grep -q "nonexist.dat: .*nonexist.dat" "$TMP/err" && fail "path twice: $(cat "$TMP/err")" ||
    grep -q "nonexist.dat: cannot open" "$TMP/err" && ok || fail "no path: $(cat "$TMP/err")"
# the offset once: the message says "at byte 90", no "offset 0x5a" before it
head -c 92 "$HAND/le_v3_two_tensors.gguf" >"$TMP/cut.gguf"
expect_status 1 "$EDIT" show "$TMP/cut.gguf"
grep -q 'at byte 90' "$TMP/err" && ! grep -q 'offset 0x' "$TMP/err" && ok ||
    fail "offset twice: $(cat "$TMP/err")"
# one that names no byte keeps its offset
head -c 60 "$HAND/le_v3_two_tensors.gguf" >"$TMP/cut.gguf"
expect_status 1 "$EDIT" show "$TMP/cut.gguf"
grep -q 'offset 0x10: ' "$TMP/err" && ok || fail "offset lost: $(cat "$TMP/err")"
# llama.cpp's verdict once
fixture be_v3_scalars
"$EDIT" verify "$TMP/be_v3_scalars.gguf" >"$TMP/out" 2>&1
grep 'big-endian' "$TMP/out" | grep -q 'refuse.*refuse' && fail "verdict twice: $(grep big-endian "$TMP/out")" ||
    grep -q 'big-endian.*refuse' "$TMP/out" && ok || fail "no verdict: $(cat "$TMP/out")"

# ==== requant: llama-quantize's report ====
expect_status 0 "$EDIT" requant "$M" "$TMP/q.gguf" Q4_K_M
n=$("$EDIT" show "$TMP/q.gguf" --tensors | tail -n +2 | wc -l)
[ "$(grep -c "^\[ *[0-9]*/ *$n\] " "$TMP/out")" -eq "$n" ] && ok || fail "not a line per tensor: $(head -3 "$TMP/out")"
# each line's name and new type are the written file's
"$EDIT" show "$TMP/q.gguf" --tensors | awk 'NR > 1 { print $2, $1 }' | sort >"$TMP/written"
awk '/^\[/ { t = $0; sub(/^\[[^]]*\] */, "", t); split(t, n, " "); name = n[1]; t = $0
             if (sub(/.*converting to /, "", t)) { split(t, a, " "); print name, a[1] }
             else { sub(/.*type = */, "", t); split(t, a, ","); print name, a[1] } }' "$TMP/out" |
    sort >"$TMP/reported"
cmp -s "$TMP/written" "$TMP/reported" && ok || fail "report and file differ: $(diff "$TMP/written" "$TMP/reported" | head -5)"
grep -q "converting to Q6_K .. size = .* MiB -> .* MiB" "$TMP/out" && ok || fail "no sizes: $(head -3 "$TMP/out")"
# the totals: the quant size is the written tensors' size
mib=$("$EDIT" show "$TMP/q.gguf" --json | "$PY" -c 'import json,sys; print("%.2f" % (sum(t["size"] for t in json.load(sys.stdin)["tensors"]) / 1048576))')
[ "$(awk '/^quant size:/ { print $3 }' "$TMP/out")" = "$mib" ] && ok || fail "quant size: $(grep size: "$TMP/out") vs $mib"
grep -q '^model size: .* MiB (32.00 bpw)$' "$TMP/out" && ok || fail "model size: $(grep 'model size' "$TMP/out")"
expect_status 0 "$EDIT" requant -q "$M" "$TMP/q2.gguf" Q4_K_M
[ ! -s "$TMP/out" ] && cmp -s "$TMP/q.gguf" "$TMP/q2.gguf" && ok || fail "-q: $(head -2 "$TMP/out")"
expect_status 0 "$EDIT" requant --help
grep -q '^  15  Q4_K_M  *4.58G, +0.1754 ppl' "$TMP/out" && grep -q '^  19  IQ2_XXS  *2.06 bpw' "$TMP/out" &&
    ok || fail "requant --help: $(grep Q4_K_M "$TMP/out")"

# ==== did you mean ====
expect_status 2 "$EDIT" requant "$M" "$TMP/q3.gguf" Q4_KM
grep -q "did you mean 'Q4_K_M'" "$TMP/err" && ok || fail "preset: $(cat "$TMP/err")"
expect_status 2 "$EDIT" requant "$M" "$TMP/q3.gguf" q4_km
grep -q "did you mean 'Q4_K_M'" "$TMP/err" && ok || fail "preset in lower case: $(cat "$TMP/err")"
expect_status 1 "$EDIT" get "$M" general.nme
grep -q "no key 'general.nme' (did you mean 'general.name'?)" "$TMP/err" && ok || fail "get: $(cat "$TMP/err")"
expect_status 1 "$EDIT" rm "$M" general.nmae
grep -q "did you mean 'general.name'" "$TMP/err" && ok || fail "rm: $(cat "$TMP/err")"
expect_status 1 "$EDIT" tensor "$M" blk.0.attn_q.weigth -o "$TMP/t.bin"
grep -q "did you mean 'blk.0.attn_q.weight'" "$TMP/err" && ok || fail "tensor: $(cat "$TMP/err")"
expect_status 1 "$EDIT" edit "$M" --rm-tensor blk.0.attn_k.weigt
grep -q "did you mean 'blk.0.attn_k.weight'" "$TMP/err" && ok || fail "--rm-tensor: $(cat "$TMP/err")"
expect_status 1 "$EDIT" get "$M" zzzzzz.qqqq
grep -q "did you mean" "$TMP/err" && fail "a suggestion for nothing like it: $(cat "$TMP/err")" || ok
expect_status 2 "$EDIT" set "$M" test.neg -5
grep -q "'--'" "$TMP/err" && ok || fail "set -5: $(cat "$TMP/err")"
expect_status 0 "$EDIT" set "$M" test.neg -- -5
"$EDIT" get "$M" test.neg | grep -qx -- -5 && ok || fail "set -- -5"
cmp -s "$M" "$TMP/model.orig" || cp "$TMP/model.orig" "$M"

# ==== tokens by text ====
expect_status 0 "$EDIT" edit "$M" -o "$TMP/tok.gguf" --special-token eos '<|im_end|>' --special-token pad '</s>'
grep -q "more tokens are '<|im_end|>'" "$TMP/err" && ok || fail "no note about the second '<|im_end|>': $(cat "$TMP/err")"
[ "$("$EDIT" get "$TMP/tok.gguf" tokenizer.ggml.eos_token_id)" = 3 ] && ok || fail "eos by text"
"$EDIT" show --kv "$TMP/tok.gguf" | grep -q '^tokenizer.ggml.padding_token_id \[UINT32\] 2$' && ok || fail "pad by text"
expect_status 1 "$EDIT" edit "$M" --special-token eos '<nope>'
grep -q "no token '<nope>'" "$TMP/err" && ok || fail "a missing token: $(cat "$TMP/err")"
expect_status 2 "$EDIT" edit "$M" --special-token eoss '</s>'
# ids outside the vocabulary (7 tokens) are refused, unless --force
expect_status 1 "$EDIT" set "$M" tokenizer.ggml.bos_token_id 7
grep -q "outside the vocabulary of 7 tokens" "$TMP/err" && cmp -s "$M" "$TMP/model.orig" && ok ||
    fail "id 7 of 7: $(cat "$TMP/err")"
expect_status 1 "$EDIT" edit "$M" --set tokenizer.ggml.eos_token_id:u32=100
expect_status 0 "$EDIT" set "$M" tokenizer.ggml.bos_token_id 6
expect_status 0 "$EDIT" set "$M" tokenizer.ggml.bos_token_id 7 --force
[ "$("$EDIT" get "$M" tokenizer.ggml.bos_token_id)" = 7 ] && ok || fail "--force"
cp "$TMP/model.orig" "$M"
# chat templates from a tokenizer_config.json: one string, or a list of named ones
long='{% for message in messages %}{{ "<|im_start|>" + message["role"] + "\n" + message["content"] + "<|im_end|>\n" }}{% endfor %}'
printf '{"add_bos_token": false, "added_tokens_decoder": {"3": {"content": "<|im_end|>", "special": true}},\n "chat_template": "%s", "eos_token": "<|im_end|>"}\n' \
    "$(printf '%s' "$long" | sed 's/\\/\\\\/g; s/"/\\"/g')" >"$TMP/config1.json"
cat >"$TMP/config2.json" <<'EOF'
{"chat_template": [{"name": "default", "template": "{{ bos_token }}d\u00e9faut \ud83d\ude00"},
                   {"name": "tool use", "template": "tools: {{ tools }}"},
                   {"name": "rag", "template": "rag"}], "model_max_length": 1e30, "x": [null, true]}
EOF
expect_status 0 "$EDIT" edit "$M" -o "$TMP/ct1.gguf" --chat-template-config "$TMP/config1.json"
[ "$("$EDIT" get "$TMP/ct1.gguf" tokenizer.chat_template)" = "$long" ] && ok ||
    fail "string template: $("$EDIT" get "$TMP/ct1.gguf" tokenizer.chat_template | head -c 200)"
expect_status 0 "$EDIT" edit "$TMP/ct1.gguf" -o "$TMP/ct2.gguf" --chat-template-config "$TMP/config2.json"
echo '{"model_max_length": 5}' >"$TMP/config3.json"
expect_status 1 "$EDIT" edit "$M" --chat-template-config "$TMP/config3.json"
grep -q 'no chat_template' "$TMP/err" && ok || fail "no template: $(cat "$TMP/err")"
echo '{"chat_template": "x",' >"$TMP/config4.json"
expect_status 1 "$EDIT" edit "$M" --chat-template-config "$TMP/config4.json"
cmp -s "$M" "$TMP/model.orig" && ok || fail "a refused edit changed the file"
# gguf_new_metadata.py's files: the same keys, types and values
templates() { # FILE: the template keys and values, sorted, as JSON lines
    "$EDIT" show --json "$1" | "$PY" -c '
import json, sys
for kv in json.load(sys.stdin)["kv"]:
    if kv["key"].startswith("tokenizer.chat_template") or kv["key"].endswith("_token_id"):
        v = sorted(kv["value"]) if kv["type"] == "ARRAY" else kv["value"]
        print(json.dumps([kv["key"], kv["type"], v]))' | sort
}
if have_gguf_py; then
    script_new() { # OUT ARGS...: gguf_new_metadata.py on the model
        out=$1; shift
        PYTHONPATH="$GGUF_PY" "$PY" "$GGUF_PY/gguf/scripts/gguf_new_metadata.py" --force "$M" "$out" "$@" >/dev/null 2>&1
    }
    script_new "$TMP/ref_tok.gguf" --special-token eos '<|im_end|>' --special-token padding '</s>' &&
        [ "$(templates "$TMP/ref_tok.gguf")" = "$(templates "$TMP/tok.gguf")" ] && ok ||
        fail "--special-token against gguf_new_metadata.py: $(templates "$TMP/ref_tok.gguf") vs $(templates "$TMP/tok.gguf")"
    script_new "$TMP/ref_ct1.gguf" --chat-template-config "$TMP/config1.json" &&
        [ "$(templates "$TMP/ref_ct1.gguf")" = "$(templates "$TMP/ct1.gguf")" ] && ok ||
        fail "string template against gguf_new_metadata.py"
    cp "$M" "$TMP/m_saved" && cp "$TMP/ct1.gguf" "$M"
    script_new "$TMP/ref_ct2.gguf" --chat-template-config "$TMP/config2.json" &&
        [ "$(templates "$TMP/ref_ct2.gguf")" = "$(templates "$TMP/ct2.gguf")" ] && ok ||
        fail "named templates against gguf_new_metadata.py: $(templates "$TMP/ref_ct2.gguf") vs $(templates "$TMP/ct2.gguf")"
    cp "$TMP/m_saved" "$M"
else
    skip "tokens against gguf_new_metadata.py" "gguf-py is not at $GGUF_PY"
fi

# ==== show ====
"$EDIT" show "$TMP/ct1.gguf" >"$TMP/out"
len=$(printf '%s' "$long" | wc -c)
grep -q "^tokenizer.chat_template \[STRING\] \"{% for message in messages %}.*\"\.\.\. ($len bytes; --full)$" "$TMP/out" && ok ||
    fail "long string: $(grep chat_template "$TMP/out")"
[ "$(grep '^tokenizer.chat_template ' "$TMP/out" | wc -c)" -le 140 ] && ok || fail "the cut line is long"
"$EDIT" show --full "$TMP/ct1.gguf" | grep -q 'endfor %}"$' && ok || fail "--full"
"$EDIT" show --json "$TMP/ct1.gguf" | "$PY" -c '
import json, sys
kv = {k["key"]: k["value"] for k in json.load(sys.stdin)["kv"]}
sys.exit(0 if kv["tokenizer.chat_template"].endswith("{% endfor %}") else 1)' && ok || fail "--json cut the string"
"$EDIT" show --kv "$TMP/q.gguf" | grep -q '^general.file_type \[UINT32\] 15 (Q4_K_M)$' && ok ||
    fail "file_type: $("$EDIT" show --kv "$TMP/q.gguf" | grep file_type)"

# ==== tensor ====
T=blk.0.attn_q.weight
script -qec "'$EDIT' tensor '$M' $T" /dev/null >"$TMP/tty" 2>&1
st=$?
[ "$st" -eq 1 ] && grep -q 'terminal' "$TMP/tty" && ok || fail "binary to a terminal (exit $st): $(head -c 200 "$TMP/tty" | od -c | head -3)"
script -qec "'$EDIT' tensor '$M' $T --values 3" /dev/null >"$TMP/tty" 2>&1 && [ "$(grep -c . "$TMP/tty")" -eq 3 ] &&
    ok || fail "--values to a terminal: $(head -c 200 "$TMP/tty")"
"$EDIT" tensor "$M" $T --f32 -o "$TMP/t.f32" && ok || fail "--f32"
"$EDIT" tensor "$M" $T --values 5 >"$TMP/vals" && ok || fail "--values"
"$PY" -c '
import struct, sys
v = struct.unpack("<5f", open(sys.argv[1], "rb").read(20))
sys.exit(0 if open(sys.argv[2]).read() == "".join("%.9g\n" % x for x in v) else 1)' "$TMP/t.f32" "$TMP/vals" &&
    ok || fail "--values 5: $(cat "$TMP/vals")"
expect_status 2 "$EDIT" tensor "$M" $T --values x
expect_status 2 "$EDIT" tensor "$M" $T --values 3 --npy
if have_numpy; then
    U=blk.0.ffn_up.weight # not square: numpy's shape is the dims reversed
    "$EDIT" tensor "$M" $U --f32 -o "$TMP/t.f32" &&
    "$EDIT" tensor "$M" $U --npy -o "$TMP/t.npy" && "$PY" -c '
import numpy, sys
a = numpy.load(sys.argv[1])
b = numpy.fromfile(sys.argv[2], dtype="<f4")
dims = [int(d) for d in sys.argv[3:]]
sys.exit(0 if a.dtype == numpy.dtype("<f4") and list(a.shape) == dims[::-1] and (a.ravel() == b).all() else 1)' \
        "$TMP/t.npy" "$TMP/t.f32" $("$EDIT" show --json "$M" | "$PY" -c '
import json, sys
print(*[t["dims"] for t in json.load(sys.stdin)["tensors"] if t["name"] == sys.argv[1]][0])' $U) &&
        ok || fail "--npy against numpy.load"
    "$EDIT" tensor "$M" output_norm.weight --npy | "$PY" -c '
import io, numpy, sys
a = numpy.load(io.BytesIO(sys.stdin.buffer.read()))
sys.exit(0 if a.shape == (256,) else 1)' && ok || fail "--npy of a 1-D tensor to a pipe"
else
    skip "--npy" "no numpy"
fi

# ==== hash --sha256 ====
expect_status 0 "$EDIT" hash --sha256 "$M"
[ "$(tail -1 "$TMP/out")" = "$(sha256sum "$M")" ] && ok || fail "file sha256: $(tail -1 "$TMP/out") vs $(sha256sum "$M")"
n=$("$EDIT" show --json "$M" | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)["tensors"]))')
[ "$(grep -c "^sha256    [0-9a-f]\{64\}  $M:" "$TMP/out")" -eq "$n" ] && ok || fail "a line per tensor: $(head -2 "$TMP/out")"
bad=0
for t in output_norm.weight blk.1.ffn_down.weight token_embd.weight; do
    want=$("$EDIT" tensor "$M" "$t" | sha256sum | cut -d' ' -f1)
    grep -qx "sha256    $want  $M:$t" "$TMP/out" || bad=1
done
[ $bad -eq 0 ] && ok || fail "tensor sha256s differ from sha256sum of their bytes"
expect_status 0 "$EDIT" hash --sha256 --json "$M"
"$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["files"][0]["sha256"] == sys.argv[2] and len(d["tensors"]) == int(sys.argv[3]) else 1)' \
    "$TMP/out" "$(sha256sum "$M" | cut -d' ' -f1)" "$n" && ok || fail "--sha256 --json"
# a split set: each shard's digest
mkdir -p "$TMP/split"
"$EDIT" split "$M" "$TMP/split/m" --max-tensors 8 >/dev/null 2>&1 && ok || fail "split"
first=$(ls "$TMP/split"/*.gguf | head -1)
expect_status 0 "$EDIT" hash --sha256 "$first"
(cd / && for s in "$TMP/split"/*.gguf; do sha256sum "$s"; done) >"$TMP/want"
grep -v '^sha256 ' "$TMP/out" >"$TMP/got"
cmp -s "$TMP/want" "$TMP/got" && ok || fail "shards: $(cat "$TMP/got") vs $(cat "$TMP/want")"

finish
