#!/bin/sh
# Edits of a large generated file (default 2 GiB), next to cp of the same file in the same run:
# an in-place header edit (milliseconds), and an edit that grows the header past its padding
# (a rewrite: copy, fsync, read both files back for the crc32 check, rename), as a ratio to cp
# and to cp + fsync (the like-for-like baseline: an edit is on disk when it returns). Each timed
# command starts after a sync, best of BENCH_RUNS (3).
set -eu
top_builddir=${top_builddir:-.}
EDIT="$top_builddir/tools/gguf-edit"
GEN="$top_builddir/bench/gen_model"
SIZE_MIB=${BENCH_EDIT_MIB:-2048}
RUNS=${BENCH_RUNS:-3}
DIR=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/gguf-bench-edit.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
M="$DIR/model.gguf"
"$GEN" "$M" "$SIZE_MIB"
secs() { sync; start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N); echo "$end - $start" | bc -l; }
min() { [ "$(echo "$2 < $1" | bc)" = 1 ] && echo "$2" || echo "$1"; }
cp_sync() { cp "$M" "$DIR/copy.gguf" && sync "$DIR/copy.gguf"; }
LONG="a name long enough to grow the header past its padding $(printf '%0200d' 0)"
best_cp=999999; best_cps=999999; best_grow=999999; best_inplace=999999
i=0
while [ $i -lt "$RUNS" ]; do
    i=$((i + 1))
    best_cp=$(min "$best_cp" "$(secs cp "$M" "$DIR/copy.gguf")"); rm -f "$DIR/copy.gguf"
    best_cps=$(min "$best_cps" "$(secs cp_sync)"); rm -f "$DIR/copy.gguf"
    best_inplace=$(min "$best_inplace" "$(secs "$EDIT" set "$M" general.name "in place $i")")
    best_grow=$(min "$best_grow" "$(secs "$EDIT" set "$M" general.name "$LONG $i")")
    "$EDIT" set "$M" general.name "generated" >/dev/null  # back to the short header
done
printf 'edit %s MiB file, best of %s:\n' "$SIZE_MIB" "$RUNS"
printf '  cp                         %8.3f s   (baseline)\n' "$best_cp"
printf '  cp + fsync                 %8.3f s   (baseline)\n' "$best_cps"
printf '  in-place header edit       %8.1f ms  (journal, two fsyncs)\n' "$(echo "$best_inplace * 1000" | bc -l)"
printf '  growing edit (rewrite)     %8.3f s   %.2fx cp, %.2fx cp+fsync  (with the crc32 check of every tensor)\n' \
    "$best_grow" "$(echo "$best_grow / $best_cp" | bc -l)" "$(echo "$best_grow / $best_cps" | bc -l)"
