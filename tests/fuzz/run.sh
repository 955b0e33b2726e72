#!/bin/bash
# Builds the libFuzzer targets with ASan+UBSan and runs each for FUZZ_SECONDS (default 120), as
# many at once as there are CPUs: the reader and the edits with golden/ and the shared corpus
# as seeds, text values and JSON with regress_json/, gguf-catalog's query output (crafted
# cells, or SQL on a small catalog when SQLite is there) with regress_catalog/ and a few SQL
# statements. Prints executions per second, total executions and coverage; exits non-zero on a
# crash, leaving the crashing input in $FUZZ_DIR, or in a /tmp/gguf-fuzz.* folder it lists
# (copy it into tests/fuzz/regress*/ with a note, fix the bug, and the replay test keeps it
# fixed). A folder of its own is removed when the run finds nothing.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${FUZZ_SECONDS:-120}
dir=${FUZZ_DIR:-$(mktemp -d /tmp/gguf-fuzz.XXXXXX)}
targets="read edit json catalog"
for t in $targets; do mkdir -p "$dir/seed_$t" "$dir/corpus_$t"; done
# every library source file Makefile.am lists (its per-layer lists LIB_BASE, LIB_SOURCE, ...)
sources=$(sed -n '/^LIB_[A-Z]* = /,/[^\\]$/p' "$top/Makefile.am" | grep -o 'libgguf/[a-z_0-9/]*\.c')
sqlite_flags= sqlite_libs=
if pkg-config --exists sqlite3; then
    sqlite_flags="-DGGUF_HAVE_CATALOG $(pkg-config --cflags sqlite3)"
    sqlite_libs=$(pkg-config --libs sqlite3)
fi
# the library and the shared sources compiled once, in parallel (a single clang call would
# compile them one after another, for each target), then linked into each target
flags="-std=c11 -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
flags="$flags -I$top/libgguf -I$top $sqlite_flags"
mkdir -p "$dir/obj"
# (objects named by their path in the tree: libgguf/base/io.c -> obj/libgguf_base_io.o)
# shellcheck disable=SC2086
printf '%s\n' $sources tools/query_output.c tools/json_emit.c $(printf 'tests/fuzz/fuzz_%s.c ' $targets) |
    (cd "$top" && FLAGS=$flags OBJ="$dir/obj" xargs -P "$(nproc)" -n 1 sh -c \
        'o=$(echo "${1%.c}" | tr / _); clang $FLAGS -c "$1" -o "$OBJ/$o.o"' compile)
for t in $targets; do
    extra=
    [ $t = catalog ] && extra="$dir/obj/tools_query_output.o $dir/obj/tools_json_emit.o"
    # shellcheck disable=SC2086
    clang -fsanitize=fuzzer,address,undefined "$dir"/obj/libgguf_*.o $extra \
        "$dir/obj/tests_fuzz_fuzz_$t.o" -lz $sqlite_libs -lpthread -lm -o "$dir/fuzz_$t"
done
# seeds: every small GGUF we have; the edit target reads 16 bytes of operations first
for f in $(find "$top/golden" "$top/tests/fuzz/regress" "$top/../shared/corpus" -name '*.gguf' -size -256k 2>/dev/null); do
    cp "$f" "$dir/seed_read/"
    { head -c 16 /dev/urandom; cat "$f"; } > "$dir/seed_edit/$(basename "$f")"
done
cp "$top"/tests/fuzz/regress_json/* "$dir/seed_json/"
# the catalog target: its regression inputs, and SQL in every format (first byte: 4 + format)
cp "$top"/tests/fuzz/regress_catalog/* "$dir/seed_catalog/"
i=0
for sql in "SELECT * FROM models" "SELECT key, type, text FROM kv LIMIT 3" \
    "SELECT name FROM pragma_table_info('files')" "SELECT x'00ff', 1.5, NULL, char(10, 27, 155)" \
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c LIMIT 20"; do
    for f in 0 1 2 3; do
        printf "\\$(printf %03o $((4 + f)))%s" "$sql" > "$dir/seed_catalog/sql-$i-$f"
    done
    i=$((i + 1))
done
# the targets run side by side, one per CPU, each for $seconds
status=0
run_target() {
    (cd "$dir" && ./fuzz_$1 -max_total_time="$seconds" -max_len=262144 -print_final_stats=1 \
        -artifact_prefix="$dir/$1-" "corpus_$1" "seed_$1" > "fuzz_$1.log" 2>&1)
}
set -- $targets
while [ $# -gt 0 ]; do
    batch= pids=
    for _ in $(seq "$(nproc)"); do
        [ $# -gt 0 ] || break
        run_target "$1" & pids="$pids $!" batch="$batch $1"
        shift
    done
    for p in $pids; do wait "$p" || status=1; done
    for t in $batch; do
        grep -E '^#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::average_exec_per_sec' "$dir/fuzz_$t.log" |
            sed "s/^/fuzz_$t: /"
    done
    if [ $status -ne 0 ]; then
        # grep -m, not | head: under pipefail a grep cut off by head (or one that finds
        # nothing) would end the script here, before the crash files are listed
        for t in $batch; do grep -m 5 -E 'ERROR|check failed|SUMMARY' "$dir/fuzz_$t.log" || true; done
        ls "$dir"/*crash-* "$dir"/*leak-* "$dir"/*timeout-* 2>/dev/null || true
        break
    fi
done
[ $status -ne 0 ] || [ -n "${FUZZ_DIR:-}" ] || rm -rf "$dir"
exit $status
