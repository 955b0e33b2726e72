#!/bin/sh
# Split and merge of a large model (default 2 GiB) next to llama.cpp's llama-gguf-split and cp
# of the same bytes, in the same run:
#   split           gguf-edit split IN P --max-size 500M     vs  llama-gguf-split --split
#   merge           gguf-edit merge FIRST OUT                vs  llama-gguf-split --merge
#   merge --delete-splits (the shards copied first, outside the timing)
#   cp, cp + fsync  of the model (split and merge write every byte once; ours fsync each file
#                   before renaming it, llama-gguf-split does not: llama-gguf-split followed
#                   by `sync`, and cp + fsync, are the like-for-like baselines for ours)
# Each timed command starts after a sync; best of BENCH_RUNS (5); the load average is printed. The outputs are compared with
# llama-gguf-split's (they must be the same bytes). The model is ggml-oracle's random llama
# (F32) when ggml-oracle is built, else bench/gen_model's. Needs about 5 x the size free.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
EDIT="$top_builddir/tools/gguf-edit"
GEN="$top_builddir/bench/gen_model"
ORACLE=${GGML_ORACLE:-/tmp/ggml-oracle/bin/ggml-oracle}
SPLIT=${LLAMA_GGUF_SPLIT:-$(dirname "$ORACLE")/llama-gguf-split}
VOCAB="$top_srcdir/../shared/corpus/real/ggml-vocab-llama-spm.gguf"
MIB=${BENCH_SPLIT_MIB:-2048}
RUNS=${BENCH_RUNS:-5}
if [ ! -x "$SPLIT" ]; then
    echo "bench_split: llama-gguf-split absent ($SPLIT): skipped"
    exit 0
fi
DIR=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/gguf-bench-split.XXXXXX") || exit 1
trap 'rm -rf "$DIR"' EXIT INT TERM
free_kib=$(df -Pk "$DIR" | awk 'NR == 2 { print $4 }')
if [ "$free_kib" -lt $((MIB * 1024 * 5 + 65536)) ]; then
    echo "bench_split: $((free_kib / 1024)) MiB free in $DIR, need $((MIB * 5)) MiB: skipped"
    exit 0
fi
M="$DIR/model.gguf"
if [ -x "$ORACLE" ] && [ -f "$VOCAB" ]; then
    # embd 1024, ff 2816: about 47 MiB a layer plus 250 MiB of embeddings
    layers=$(( (MIB - 250) / 45 ))
    [ "$layers" -lt 1 ] && layers=1
    "$ORACLE" gen-llama --vocab "$VOCAB" --embd 1024 --ff 2816 --layers "$layers" "$M" >/dev/null 2>&1 ||
        { echo "bench_split: gen-llama failed"; exit 1; }
    what="a random llama (F32, $layers layers)"
else
    "$GEN" "$M" "$MIB" >/dev/null || exit 1
    what="gen_model's F16 model"
fi
size=$(wc -c <"$M")
cat "$M" >/dev/null

now_ns() { date +%s%N; }
# best NAME PREP CMD...: runs PREP (untimed), then CMD after a sync, $RUNS times; best_NAME
best() {
    name=$1; prep=$2; shift 2
    b=
    i=0
    while [ $i -lt "$RUNS" ]; do
        $prep
        sync
        t0=$(now_ns)
        "$@" >/dev/null 2>&1 || { echo "bench_split: $* failed" >&2; exit 1; }
        t1=$(now_ns)
        t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
        if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN { exit !(t < b) }'; then b=$t; fi
        i=$((i + 1))
    done
    eval "best_$name=$b"
}
clean_out() { rm -rf "$DIR/o" "$DIR/out.gguf"; mkdir "$DIR/o"; }
cp_sync() { cp "$M" "$DIR/out.gguf" && sync "$DIR/out.gguf"; }
copy_shards() { clean_out; cp "$DIR/ref"/* "$DIR/o/"; }
lsplit_sync() { "$SPLIT" --split --split-max-size 500M "$M" "$DIR/o/m" && sync; }
lmerge_sync() { "$SPLIT" --merge "$DIR/ref/$FIRST" "$DIR/out.gguf" && sync; }

best cp clean_out cp "$M" "$DIR/out.gguf"
best cpsync clean_out cp_sync
best lsplitsync clean_out lsplit_sync
best lsplit clean_out "$SPLIT" --split --split-max-size 500M "$M" "$DIR/o/m"
mkdir "$DIR/ref"; mv "$DIR/o"/* "$DIR/ref/"
best split clean_out "$EDIT" split "$M" "$DIR/o/m" --max-size 500M
same=yes
for f in "$DIR/ref"/*; do cmp -s "$f" "$DIR/o/$(basename "$f")" || same=NO; done
n=$(ls "$DIR/ref" | wc -l)
FIRST="$(ls "$DIR/ref" | head -1)"
best lmergesync clean_out lmerge_sync
best lmerge clean_out "$SPLIT" --merge "$DIR/ref/$FIRST" "$DIR/out.gguf"
mv "$DIR/out.gguf" "$DIR/ref.gguf"
best merge clean_out "$EDIT" merge "$DIR/ref/$FIRST" "$DIR/out.gguf"
cmp -s "$DIR/out.gguf" "$DIR/ref.gguf" || same=NO
best mdelete copy_shards "$EDIT" merge --delete-splits "$DIR/o/$FIRST" "$DIR/out.gguf"
cmp -s "$DIR/out.gguf" "$DIR/ref.gguf" || same=NO

report() {
    awk -v name="$1" -v t="$2" -v base="$3" -v based="${4-}" -v cp="$best_cp" -v cps="$best_cpsync" -v mib="$((size / 1048576))" 'BEGIN {
        printf "%-34s %7.3f s %6.0f MiB/s", name, t, mib / t
        if (based != "") printf "   x%.2f llama-gguf-split + sync", t / based
        if (base != "") printf "   x%.2f llama-gguf-split", t / base
        printf "   x%.2f cp   x%.2f cp+fsync\n", t / cp, t / cps }'
}
echo "bench_split: $((size / 1048576)) MiB ($what), $n shards of at most 500M, best of $RUNS, load average $(cut -d' ' -f1-3 /proc/loadavg)"
report "cp" "$best_cp" ""
report "cp + fsync" "$best_cpsync" ""
report "llama-gguf-split --split" "$best_lsplit" ""
report "llama-gguf-split --split; sync" "$best_lsplitsync" ""
report "gguf-edit split" "$best_split" "$best_lsplit" "$best_lsplitsync"
report "llama-gguf-split --merge" "$best_lmerge" ""
report "llama-gguf-split --merge; sync" "$best_lmergesync" ""
report "gguf-edit merge" "$best_merge" "$best_lmerge" "$best_lmergesync"
report "gguf-edit merge --delete-splits" "$best_mdelete" "$best_lmerge" "$best_lmergesync"
echo "bench_split: outputs byte-identical to llama-gguf-split's: $same"
