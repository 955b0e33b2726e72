#!/bin/sh
# gguf-edit set/rm/rename/realign/edit/get/hash/diff on real files: results ggml reads with
# exactly the expected metadata and untouched tensor bytes, byte-identical to ggml's own edits
# where ggml keeps the order, and clear refusals that change nothing.
. "$(dirname "$0")/../support/cli_lib.sh"

M="$TMP/m.gguf"
fresh() { cp "$1" "$M" && chmod u+w "$M"; }
same_tensors() { "$EDIT" hash "$1" | grep -v '(header)' > "$TMP/h1"; "$EDIT" hash "$2" | grep -v '(header)' > "$TMP/h2"; cmp -s "$TMP/h1" "$TMP/h2"; }

SRC="$GOLDEN/hand/le_v3_two_tensors.gguf"
fresh "$SRC"
expect_status 0 "$EDIT" get "$M" general.architecture
[ "$(cat "$TMP/out")" = test ] && ok || fail "get"
expect_status 0 "$EDIT" get "$M" test.arr
[ "$(cat "$TMP/out" | tr '\n' ' ')" = "1 -2 " ] && ok || fail "get of an array: one element per line"
expect_status 0 "$EDIT" get --json "$M" test.arr
[ "$(cat "$TMP/out")" = "[1,-2]" ] && ok || fail "get --json"
expect_status 1 "$EDIT" get "$M" no.such.key

# in place: same length; -v says so
expect_status 0 "$EDIT" set -v "$M" general.architecture tent
grep -q "in place" "$TMP/err" && ok || fail "set of an equal-length value was not done in place"
[ "$("$EDIT" get "$M" general.architecture)" = tent ] && ok || fail "value not set"
same_tensors "$SRC" "$M" && ok || fail "tensor bytes changed"
# type kept: test.u16 stays UINT16
expect_status 0 "$EDIT" set "$M" test.u16 65535
"$EDIT" show --kv "$M" | grep -q '^test.u16 \[UINT16\] 65535$' && ok || fail "type not kept"
expect_status 1 "$EDIT" set "$M" test.u16 65536
grep -q "does not fit UINT16" "$TMP/err" && ok || fail "range message"
expect_status 1 "$EDIT" set "$M" k 300 --type u8
# arrays from JSON keep their element type
expect_status 0 "$EDIT" set "$M" test.arr '[5, 6, 7]' --json
"$EDIT" show --kv "$M" | grep -q '^test.arr \[INT32\[3\]\] \[5, 6, 7\]$' && ok || fail "JSON array"
# a string from a file (chat templates)
printf '{%% for m in messages %%}\n{{ m.content }}{%% endfor %%}' > "$TMP/tmpl"
expect_status 0 "$EDIT" set "$M" tokenizer.chat_template "$TMP/tmpl" --file
"$EDIT" get "$M" tokenizer.chat_template > "$TMP/got"
printf '\n' >> "$TMP/tmpl"
cmp -s "$TMP/tmpl" "$TMP/got" && ok || fail "--file string"
# several edits in one run, and an edits file
cat > "$TMP/edits" <<'EDITS'
# a comment
set general.name Edited model
set llama.context_length:u32 4096
rename test.u16 test.renamed
rm test.arr
EDITS
expect_status 0 "$EDIT" edit "$M" --edits "$TMP/edits" --set general.version=2 --rm tokenizer.chat_template
"$EDIT" show --kv "$M" | tail -n +2 | cut -d" " -f1,2 > "$TMP/keys"
printf 'general.architecture [STRING]\ntest.renamed [UINT16]\ngeneral.name [STRING]\nllama.context_length [UINT32]\ngeneral.version [INT32]\n' > "$TMP/want"
cmp -s "$TMP/keys" "$TMP/want" && ok || fail "edit run: $(cat "$TMP/keys")"
[ "$("$EDIT" get "$M" general.name)" = "Edited model" ] && ok || fail "edits file value with spaces"
same_tensors "$SRC" "$M" && ok || fail "tensor bytes changed by edits"
# refusals change nothing
cp "$M" "$TMP/before.gguf"
expect_status 1 "$EDIT" rm "$M" no.such.key
expect_status 1 "$EDIT" rename "$M" no.such.key x
expect_status 1 "$EDIT" rename "$M" general.name general.architecture
grep -q "exists" "$TMP/err" && ok || fail "rename onto an existing key"
expect_status 1 "$EDIT" realign "$M" 48
grep -q "force" "$TMP/err" && ok || fail "alignment 48 without --force"
expect_status 1 "$EDIT" realign "$M" 7
expect_status 1 "$EDIT" edit "$M" --set a=1 --rm no.such.key
cmp -s "$M" "$TMP/before.gguf" && ok || fail "a refused edit changed the file"
chmod 444 "$M"
expect_status 1 "$EDIT" set "$M" general.name x
grep -q "read-only" "$TMP/err" && ok || fail "read-only file"
chmod 644 "$M"
cmp -s "$M" "$TMP/before.gguf" && ok || fail "read-only file changed"
# a full disk (a file size limit): clean error, nothing changed, nothing left behind
(ulimit -f 1; trap '' XFSZ; "$EDIT" set --no-in-place "$M" general.name "$(printf '%04000d' 0)") 2>"$TMP/err"
[ $? -eq 1 ] && ok || fail "write past the file size limit did not fail cleanly"
cmp -s "$M" "$TMP/before.gguf" && ok || fail "failed rewrite changed the file"
[ "$(ls -A "$TMP" | grep -c '\.tmp-')" -eq 0 ] && ok || fail "temporary file left behind"
# --force writes alignment 48; realign 64 lays data out again and the tensors keep their bytes
expect_status 0 "$EDIT" realign --force "$M" 48 -o "$TMP/a48.gguf"
[ "$("$EDIT" get "$TMP/a48.gguf" general.alignment)" = 48 ] && ok || fail "realign 48 --force"
expect_status 0 "$EDIT" realign -v "$M" 64
grep -q "bytes equal to the original" "$TMP/err" && ok || fail "realign did not report its check"
expect_status 0 "$EDIT" verify --structure "$M"
same_tensors "$SRC" "$M" && ok || fail "realign changed tensor bytes"
# a symbolic link: the file it points to is edited, the link stays
ln -s "$M" "$TMP/link.gguf"
expect_status 0 "$EDIT" set "$TMP/link.gguf" general.name "through a link that is long enough to force a rewrite"
[ -L "$TMP/link.gguf" ] && ok || fail "the link was replaced"
[ "$("$EDIT" get "$M" general.name)" = "through a link that is long enough to force a rewrite" ] && ok || fail "the target was not edited"
# a hard link: an in-place edit shows through both names; a rewrite replaces one name and says so
ln "$M" "$TMP/hard.gguf"
expect_status 0 "$EDIT" set "$M" general.name "through a link that is long enough to force a rewritX"
[ "$("$EDIT" get "$TMP/hard.gguf" general.name)" = "through a link that is long enough to force a rewritX" ] && ok || fail "in-place edit not seen through the hard link"
expect_status 0 "$EDIT" set "$M" general.name "$(printf '%0300d' 0)"
grep -q "hard links" "$TMP/err" && ok || fail "no note about hard links"
cmp -s "$M" "$TMP/hard.gguf" && fail "the other link changed" || ok
rm -f "$TMP/hard.gguf"
# mode and owner survive a rewrite
chmod 640 "$M"; chown 12345:54321 "$M" 2>/dev/null && owned=1 || owned=0
expect_status 0 "$EDIT" set "$M" general.name "$(printf '%0400d' 0)"
[ "$(stat -c %a "$M")" = 640 ] && ok || fail "mode not kept"
[ $owned = 0 ] || { [ "$(stat -c %u:%g "$M")" = 12345:54321 ] && ok || fail "owner not kept"; }
chmod 644 "$M"
# diff
expect_status 1 "$EDIT" diff "$SRC" "$M"
grep -q '^~ general.architecture' "$TMP/out" && grep -q '^+ general.alignment' "$TMP/out" && grep -q '^- test.arr' "$TMP/out" && ok || fail "diff output: $(cat "$TMP/out")"
expect_status 0 "$EDIT" diff "$SRC" "$SRC"
expect_status 0 "$EDIT" hash --json "$SRC"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["tensors"]) == 2' "$TMP/out" && ok || fail "hash --json"

if have_corpus; then
    # every ggml-written model in the corpus: set, rm and rename read back by ggml (when the
    # oracle is here) with the expected metadata, and the tensor bytes untouched
    models=0 compared=0
    for src in "$CORPUS"/models/*.gguf "$CORPUS"/synth/tiny_llama.gguf "$CORPUS"/synth/tensors_mixed.gguf; do
        fresh "$src"
        expect_status 0 "$EDIT" set "$M" general.name "A new name for this model, long enough to grow the header past its padding"
        expect_status 0 "$EDIT" rm "$M" general.architecture
        expect_status 0 "$EDIT" rename "$M" general.name general.title
        same_tensors "$src" "$M" && ok || fail "$src: tensor bytes changed"
        if have_oracle; then
            "$ORACLE" dump "$M" > "$TMP/ggml.json" 2>/dev/null && ok || fail "ggml refuses the edited $src"
            "$EDIT" show --json "$M" > "$TMP/ours.json"
            python3 "$top_srcdir/tests/support/json_agree.py" "$TMP/ours.json" "$TMP/ggml.json" && ok || fail "$src: ggml reads other metadata"
            python3 - "$TMP/ggml.json" <<'PY' && ok || fail "$src: ggml sees the wrong metadata"
import json, sys
kv = {e["key"]: e["value"] for e in json.load(open(sys.argv[1]))["kv"]}
assert "general.architecture" not in kv and "general.name" not in kv
assert kv["general.title"].startswith("A new name"), kv
PY
            # rm and set (keeping the order) are byte-identical to ggml's own; every key the
            # model has is compared (a key it lacks: both refuse)
            for key in general.name general.architecture tokenizer.ggml.tokens; do
                rm -f "$TMP/g.gguf" "$TMP/o.gguf"
                if "$EDIT" get "$src" "$key" >/dev/null 2>&1; then
                    "$ORACLE" rm "$src" "$TMP/g.gguf" "$key" 2>"$TMP/oracle.err" ||
                        { fail "$src: ggml-oracle rm $key: $(head -c 200 "$TMP/oracle.err")"; continue; }
                    expect_status 0 "$EDIT" rm "$src" "$key" -o "$TMP/o.gguf"
                    cmp -s "$TMP/g.gguf" "$TMP/o.gguf" && ok || fail "$src: rm $key differs from ggml's gguf_remove_key"
                    compared=$((compared + 1))
                else
                    expect_status 1 "$EDIT" rm "$src" "$key" -o "$TMP/o.gguf"
                    [ ! -e "$TMP/o.gguf" ] && ok || fail "$src: rm of a missing $key wrote a file"
                fi
            done
            rm -f "$TMP/g.gguf" "$TMP/o.gguf"
            "$ORACLE" set --keep-order "$src" "$TMP/g.gguf" general.name str "Renamed" 2>"$TMP/oracle.err" &&
                ok || fail "$src: ggml-oracle set: $(head -c 200 "$TMP/oracle.err")"
            expect_status 0 "$EDIT" set "$src" general.name Renamed -o "$TMP/o.gguf"
            cmp -s "$TMP/g.gguf" "$TMP/o.gguf" && ok || fail "$src: set differs from ggml's"
            compared=$((compared + 1))
        fi
        models=$((models + 1))
    done
    [ "$models" -ge 3 ] && ok || fail "only $models corpus models edited"
    if have_oracle; then
        # every model has general.name and general.architecture to remove, and a name to set
        [ "$compared" -ge $((3 * models)) ] && ok || fail "only $compared edits compared with ggml's"
    else
        skip "edits compared with ggml's own, read back by ggml" "no ggml-oracle (GGML_ORACLE)"
    fi
else
    skip "edits of the corpus models" "no ../shared/corpus"
fi
expect_status 2 "$EDIT" set "$M" only-a-key
expect_status 2 "$EDIT" rm "$M"
finish
