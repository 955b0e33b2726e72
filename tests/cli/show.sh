#!/bin/sh
# gguf-edit show: text for people, and --json that agrees with ggml's own reading of every file
# ggml accepts (*.ggml.json in the corpus); big-endian files show the values of their
# little-endian originals; JSON output is valid UTF-8 even for non-UTF-8 strings.
. "$(dirname "$0")/../support/cli_lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
    echo "cli_show: python3 is required to check JSON output" >&2
    exit 1
fi
valid_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))' "$1"; }

for f in "$GOLDEN"/hand/*.gguf "$GOLDEN"/derived/*.gguf; do
    expect_status 0 "$EDIT" show "$f"
    expect_status 0 "$EDIT" show --json "$f"
    valid_json "$TMP/out" && ok || fail "show --json $f: not valid JSON"
done

# the hand fixture's values, as its byte map spells them
"$EDIT" show --json "$GOLDEN/hand/be_v3_scalars.gguf" > "$TMP/be.json"
python3 - "$TMP/be.json" <<'PY' && ok || fail "be_v3_scalars values"
import json, sys
d = json.load(open(sys.argv[1]))
kv = {e["key"]: e["value"] for e in d["kv"]}
assert d["endian"] == "big" and d["alignment"] == 64 and d["data_offset"] == 256, d
assert kv == {"general.alignment": 64, "test.i64": -2, "test.f64": 1.5, "test.strs": ["hi", ""]}, kv
assert d["tensors"] == [{"name": "w", "type": "F32", "type_id": 0, "dims": [2], "offset": 0, "size": 8}]
PY

if have_corpus; then
    n=0
    for j in $(find "$CORPUS" -name '*.ggml.json' | sort); do
        g=${j%.ggml.json}
        expect_status 0 "$EDIT" show --json "$g"
        python3 "$top_srcdir/tests/support/json_agree.py" "$TMP/out" "$j" && ok || fail "$g disagrees with ggml"
        expect_status 0 "$EDIT" show "$g"
        n=$((n + 1))
    done
    echo "cli_show: $n files agree with ggml's reading"
    [ "$n" -ge 36 ] && ok || fail "only $n files compared with ggml"
    m=0
    for b in "$CORPUS"/be/*.gguf; do
        base=$(basename "$b"); base=${base%.be.gguf}; base=${base%.writer-be.gguf}
        le=$(ls "$CORPUS"/synth/"$base".gguf "$CORPUS"/real/"$base".gguf 2>/dev/null | head -n 1)
        [ -n "$le" ] || { fail "no little-endian original for $b"; continue; }
        "$EDIT" show --json "$b" | sed 's/"endian":"big"/"endian":"little"/' > "$TMP/be.json"
        "$EDIT" show --json "$le" > "$TMP/le.json"
        cmp -s "$TMP/be.json" "$TMP/le.json" && ok || fail "$b shows other values than $le"
        m=$((m + 1))
    done
    echo "cli_show: $m big-endian files show their little-endian originals' values"
    expect_status 0 "$EDIT" show --json "$CORPUS/bad/string_value_non_utf8.gguf"
    valid_json "$TMP/out" && ok || fail "non-UTF-8 string: JSON not valid UTF-8"
    expect_status 0 "$EDIT" show --json "$CORPUS/bad/key_non_utf8.gguf"
    valid_json "$TMP/out" && ok || fail "non-UTF-8 key: JSON not valid UTF-8"
    expect_status 0 "$EDIT" show --json "$CORPUS/bad/tensor_name_non_utf8.gguf"
    valid_json "$TMP/out" && ok || fail "non-UTF-8 tensor name: JSON not valid UTF-8"
    # long arrays are elided in text
    "$EDIT" show --kv "$CORPUS/real/ggml-vocab-llama-bpe.gguf" > "$TMP/bpe.txt"
    grep -q 'tokenizer.ggml.tokens \[STRING\[128256\]\] \[.*\.\.\. 128248 more\]' "$TMP/bpe.txt" && ok || fail "long array not elided"
    [ "$(wc -l < "$TMP/bpe.txt")" -le 40 ] && ok || fail "text show too long"
else
    skip "the corpus: agreement with ggml's reading, big-endian twins, non-UTF-8" "no ../shared/corpus"
fi
expect_status 1 "$EDIT" show "$TMP/missing.gguf"
expect_status 2 "$EDIT" show
expect_status 2 "$EDIT" show --endian middle "$GOLDEN/hand/le_v3_two_tensors.gguf"
finish
