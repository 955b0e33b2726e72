#!/bin/sh
# tests/cli/split.sh's byte equality with llama-gguf-split, on a generated llama model of more than
# 1 GiB (ggml-oracle gen-llama, F32): split by size and by tensors, with and without tensors in
# the first shard, and the three merges; llama.cpp loads and evaluates every set we write and
# the merged file. It writes about 6 GiB and takes minutes: it runs when GGUF_BIG_TESTS=1
# (`make check GGUF_BIG_TESTS=1 TESTS=tests/cli/split_big.sh`), and reports SKIP otherwise.
. "$(dirname "$0")/../support/cli_lib.sh"
SPLIT=${LLAMA_GGUF_SPLIT:-$(dirname "$ORACLE")/llama-gguf-split}
if [ "${GGUF_BIG_TESTS:-0}" != 1 ]; then
    skip_all_optional "set GGUF_BIG_TESTS=1 to run it (about 6 GiB of disk, minutes)"
fi
if ! have_corpus || ! have_oracle || [ ! -x "$SPLIT" ]; then
    skip_all "needs ../shared/corpus, ggml-oracle and llama-gguf-split"
fi
G="$TMP/big.gguf"
"$ORACLE" gen-llama --vocab "$CORPUS/real/ggml-vocab-llama-spm.gguf" --embd 1024 --ff 2816 \
    --layers 20 "$G" >/dev/null 2>&1 || { fail "gen-llama"; finish; exit 1; }
size=$(wc -c <"$G")
[ "$size" -ge 1073741824 ] && ok || fail "the model is only $size bytes"
echo "cli_split_big: a generated llama of $size bytes"
for opts in "--split-max-size 300M" "--split-max-size 300M --no-tensor-first-split" \
            "--split-max-tensors 40" "--split-max-tensors 40 --no-tensor-first-split"; do
    ours=$(echo "$opts" | sed 's/--split-max-/--max-/')
    rm -rf "$TMP/r" "$TMP/o"; mkdir "$TMP/r" "$TMP/o"
    "$SPLIT" --split $opts "$G" "$TMP/r/b" >/dev/null 2>&1 || fail "llama-gguf-split $opts"
    "$EDIT" split "$G" "$TMP/o/b" $ours 2>/dev/null || fail "split $ours"
    n=$(ls "$TMP/o" | wc -l)
    same=yes
    [ "$(cd "$TMP/r" && ls)" = "$(cd "$TMP/o" && ls)" ] || same=no
    for f in $(cd "$TMP/r" && ls); do cmp -s "$TMP/r/$f" "$TMP/o/$f" || same=no; done
    [ $same = yes ] && ok || fail "[$opts]: shards differ from llama-gguf-split's"
    first=$(cd "$TMP/o" && ls | head -1)
    "$ORACLE" llama-load --eval "$TMP/o/$first" >/dev/null 2>"$TMP/err" && ok ||
        fail "[$opts]: llama.cpp does not load our set: $(tail -c 300 "$TMP/err")"
    "$SPLIT" --merge "$TMP/r/$first" "$TMP/ref.gguf" >/dev/null 2>&1 || fail "llama-gguf-split --merge"
    rm -rf "$TMP/r"
    "$EDIT" merge "$TMP/o/$first" "$TMP/m.gguf" 2>/dev/null && cmp -s "$TMP/m.gguf" "$TMP/ref.gguf" &&
        ok || fail "[$opts]: merge differs"
    rm -f "$TMP/m.gguf"
    "$EDIT" merge --delete-splits "$TMP/o/$first" "$TMP/m.gguf" 2>/dev/null &&
        cmp -s "$TMP/m.gguf" "$TMP/ref.gguf" && [ -z "$(ls "$TMP/o")" ] && ok ||
        fail "[$opts]: merge --delete-splits differs"
    "$ORACLE" llama-load --eval "$TMP/m.gguf" >/dev/null 2>"$TMP/err" && ok ||
        fail "[$opts]: llama.cpp does not load the merge: $(tail -c 300 "$TMP/err")"
    rm -f "$TMP/m.gguf" "$TMP/ref.gguf"
    echo "cli_split_big: [$opts] $n shards: split, merge and merge --delete-splits = llama-gguf-split's, loaded by llama.cpp"
done
finish
