#!/bin/sh
# Edits of a large generated file (default 2 GiB), next to cp of the same file in the same run:
# an in-place header edit (milliseconds), and an edit that grows the header past its padding
# (time / cp time; with and without the crc32 check of every tensor).
set -eu
top_builddir=${top_builddir:-.}
EDIT="$top_builddir/tools/gguf-edit"
GEN="$top_builddir/bench/gen_model"
SIZE_MIB=${BENCH_EDIT_MIB:-2048}
DIR=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/gguf-bench-edit.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
M="$DIR/model.gguf"
"$GEN" "$M" "$SIZE_MIB"
sync
secs() { start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N); echo "$end - $start" | bc -l; }
LONG="a name long enough to grow the header past its padding $(printf '%0200d' 0)"
best_cp=999999; best_grow=999999; best_inplace=999999
for i in 1 2 3; do
    t=$(secs cp "$M" "$DIR/copy.gguf"); rm -f "$DIR/copy.gguf"
    [ "$(echo "$t < $best_cp" | bc)" = 1 ] && best_cp=$t
    t=$(secs "$EDIT" set "$M" general.name "in place $i")
    [ "$(echo "$t < $best_inplace" | bc)" = 1 ] && best_inplace=$t
    t=$(secs "$EDIT" set "$M" general.name "$LONG $i")
    [ "$(echo "$t < $best_grow" | bc)" = 1 ] && best_grow=$t
    "$EDIT" set "$M" general.name "generated" >/dev/null  # back to the short header
done
printf 'edit %s MiB file, best of 3:\n' "$SIZE_MIB"
printf '  cp of the file              %8.3f s   (baseline)\n' "$best_cp"
printf '  in-place header edit        %8.1f ms\n' "$(echo "$best_inplace * 1000" | bc -l)"
printf '  growing edit (rewrite)      %8.3f s   %.2fx cp  (includes reading both files back for the crc32 check)\n' \
    "$best_grow" "$(echo "$best_grow / $best_cp" | bc -l)"
