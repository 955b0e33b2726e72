#!/bin/sh
# Byte-order conversion of a large file against cp of the same file.
#
# Generates a GGUF file of $BENCH_CONVERT_MIB MiB (default 2048) holding three large tensors
# (F16, Q8_0, Q4_K) in a temporary directory, warms the page cache, then times, best of
# $BENCH_RUNS (default 3), each after a `sync`:
#   cp          cp FILE COPY                          (the data may stay in the page cache)
#   cp+fsync    cp FILE COPY && sync COPY             (on disk: what convert guarantees)
#   convert -t1 gguf-edit convert FILE -o OUT --endian big --threads 1
#   convert -tN the same with --threads <number of CPUs>
# and prints each time relative to cp and to cp+fsync (the aim: convert / cp <= 1.2;
# convert fsyncs its output before renaming it, so cp+fsync is the like-for-like baseline).
# Everything is deleted afterwards. Needs about 3 x the size in free space in $TMPDIR.
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
EDIT="$top_builddir/tools/gguf-edit"
GEN="$top_builddir/bench/gen_convert"
MIB=${BENCH_CONVERT_MIB:-2048}
RUNS=${BENCH_RUNS:-3}
CPUS=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

for p in "$EDIT" "$GEN"; do
    [ -x "$p" ] || { echo "bench_convert: $p not built (make bench builds it)" >&2; exit 1; }
done
DIR=$(mktemp -d "${TMPDIR:-/tmp}/gguf-bench-convert.XXXXXX") || exit 1
trap 'rm -rf "$DIR"' EXIT INT TERM
free_kib=$(df -Pk "$DIR" | awk 'NR == 2 { print $4 }')
if [ "$free_kib" -lt $((MIB * 1024 * 3 + 65536)) ]; then
    echo "bench_convert: $((free_kib / 1024)) MiB free in $DIR, need $((MIB * 3)) MiB: skipped"
    exit 0
fi

"$GEN" "$DIR/in.gguf" "$MIB" || exit 1
cat "$DIR/in.gguf" > /dev/null

cp_sync() { cp "$DIR/in.gguf" "$DIR/out.gguf" && sync "$DIR/out.gguf"; }

# each run after a sync, its output removed after it
. "$(dirname "$0")/bench_lib.sh" # best
BEST_BEFORE=sync BEST_AFTER='rm -f "$DIR/out.gguf"'
best_cp=$(best cp "$DIR/in.gguf" "$DIR/out.gguf") || exit 1
best_cpsync=$(best cp_sync) || exit 1
best_conv1=$(best "$EDIT" convert "$DIR/in.gguf" -o "$DIR/out.gguf" --endian big --threads 1) ||
    exit 1
best_convn=$(best "$EDIT" convert "$DIR/in.gguf" -o "$DIR/out.gguf" --endian big \
    --threads "$CPUS") || exit 1

report() {
    awk -v name="$1" -v t="$2" -v cp="$best_cp" -v cps="$best_cpsync" -v mib="$MIB" 'BEGIN {
        printf "%-22s %7.3f s %8.0f MiB/s   x%.2f cp   x%.2f cp+fsync\n",
               name, t, mib / t, t / cp, t / cps }'
}
echo "bench_convert: $MIB MiB (F16, Q8_0, Q4_K), best of $RUNS, $CPUS CPUs"
report "cp" "$best_cp"
report "cp + fsync" "$best_cpsync"
report "convert --threads 1" "$best_conv1"
report "convert --threads $CPUS" "$best_convn"
