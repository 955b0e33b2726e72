#!/bin/sh
# Edits of a large generated file (default 2 GiB), next to cp of the same file in the same run:
#  - an edit that fits the header's padding (in place through the journal: milliseconds);
#  - an edit that grows the header past its padding, without reserved room: a rewrite (copy in
#    the kernel, the proof comparing each piece alongside the copy, fsync, rename), as a ratio
#    to cp and to cp + fsync (the like-for-like baseline: an edit is on disk when it returns);
#  - `reserve 1M` and edits with a 100 KiB chat template afterwards (in place), and an edit past
#    the reserved room (blocks inserted in place where the filesystem can, else a rewrite).
# Each timed command starts after a sync, best of BENCH_RUNS (3). The tool is run directly (not
# through libtool's wrapper script, which would add its own start-up to every figure).
set -eu
top_builddir=${top_builddir:-.}
EDIT="$top_builddir/tools/gguf-edit"
if [ -x "$top_builddir/tools/.libs/gguf-edit" ]; then
    EDIT="$top_builddir/tools/.libs/gguf-edit"
    LD_LIBRARY_PATH="$top_builddir/libgguf/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
fi
GEN="$top_builddir/bench/gen_model"
SIZE_MIB=${BENCH_EDIT_MIB:-2048}
RUNS=${BENCH_RUNS:-3}
DIR=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/gguf-bench-edit.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
M="$DIR/model.gguf"
"$GEN" "$M" "$SIZE_MIB"
secs() { sync; start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N); echo "$end - $start" | bc -l; }
min() { [ "$(echo "$2 < $1" | bc)" = 1 ] && echo "$2" || echo "$1"; }
ms() { echo "$1 * 1000" | bc -l; }
cp_sync() { cp "$M" "$DIR/copy.gguf" && sync "$DIR/copy.gguf"; }
LONG="a name long enough to grow the header past its padding $(printf '%0200d' 0)"
python3 -c "print('{% for m in messages %}' + 'x' * 102400 + '{% endfor %}')" > "$DIR/tpl.txt"
python3 -c "print('y' * 3000000)" > "$DIR/big.txt"
best_cp=999999; best_cps=999999; best_grow=999999; best_inplace=999999
best_reserve=999999; best_tpl=999999; best_past=999999
i=0
while [ $i -lt "$RUNS" ]; do
    i=$((i + 1))
    best_cp=$(min "$best_cp" "$(secs cp "$M" "$DIR/copy.gguf")"); rm -f "$DIR/copy.gguf"
    best_cps=$(min "$best_cps" "$(secs cp_sync)"); rm -f "$DIR/copy.gguf"
    best_inplace=$(min "$best_inplace" "$(secs "$EDIT" set "$M" general.name "in place $i")")
    best_grow=$(min "$best_grow" "$(secs "$EDIT" set "$M" general.name "$LONG $i")")
    "$EDIT" set "$M" general.name "generated" >/dev/null  # back to the short header
    # room, then a 100 KiB template in it, then past it; a fresh copy of the model each round
    cp "$M" "$DIR/r.gguf"
    best_reserve=$(min "$best_reserve" "$(secs "$EDIT" reserve "$DIR/r.gguf" 1M)")
    best_tpl=$(min "$best_tpl" "$(secs "$EDIT" set "$DIR/r.gguf" tokenizer.chat_template "$DIR/tpl.txt" --file)")
    best_past=$(min "$best_past" "$(secs "$EDIT" set "$DIR/r.gguf" tokenizer.chat_template "$DIR/big.txt" --file)")
    rm -f "$DIR/r.gguf"
done
fs=$(stat -f -c %T "$DIR")
printf 'edit %s MiB file on %s, best of %s:\n' "$SIZE_MIB" "$fs" "$RUNS"
printf '  cp                              %8.3f s   (baseline)\n' "$best_cp"
printf '  cp + fsync                      %8.3f s   (baseline)\n' "$best_cps"
printf '  edit that fits (in place)       %8.1f ms  (journal; fdatasync of the journal, folder, file)\n' "$(ms "$best_inplace")"
printf '  growing edit, no room (rewrite) %8.3f s   %.2fx cp, %.2fx cp+fsync  (proof alongside the copy)\n' \
    "$best_grow" "$(echo "$best_grow / $best_cp" | bc -l)" "$(echo "$best_grow / $best_cps" | bc -l)"
printf '  reserve 1M                      %8.1f ms  %.3fx cp+fsync\n' "$(ms "$best_reserve")" "$(echo "$best_reserve / $best_cps" | bc -l)"
printf '  100 KiB chat template, in room  %8.1f ms  (aim: under 50 ms)\n' "$(ms "$best_tpl")"
printf '  3 MB template, past the room    %8.1f ms  %.3fx cp+fsync  (blocks inserted in place on ext4/XFS, else a rewrite)\n' \
    "$(ms "$best_past")" "$(echo "$best_past / $best_cps" | bc -l)"
