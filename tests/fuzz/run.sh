#!/bin/bash
# Builds the three libFuzzer targets (reader, edits, text values and JSON) with ASan+UBSan and runs each for FUZZ_SECONDS (default 120)
# with golden/ and the shared corpus as seeds. Prints executions per second, total executions and
# coverage; exits non-zero on a crash, leaving the crashing input in $FUZZ_DIR (copy it into
# tests/fuzz/regress/ with a note, fix the bug, and the replay test keeps it fixed).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${FUZZ_SECONDS:-120}
dir=${FUZZ_DIR:-$(mktemp -d /tmp/gguf-fuzz.XXXXXX)}
mkdir -p "$dir/seed_read" "$dir/seed_edit" "$dir/seed_json" "$dir/corpus_read" "$dir/corpus_edit" "$dir/corpus_json"
sources=$(sed -n '/^LIBGGUF_SOURCES = /,/^$/p' "$top/Makefile.am" | grep -o 'libgguf/[a-z_0-9/]*\.c' | sed "s#^#$top/#")
for t in read edit json; do
    clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
        -I"$top/libgguf" -I"$top" $sources "$top/tests/fuzz/fuzz_$t.c" -lz -lpthread -lm \
        -o "$dir/fuzz_$t"
done
# seeds: every small GGUF we have; the edit target reads 16 bytes of operations first
for f in $(find "$top/golden" "$top/tests/fuzz/regress" "$top/../shared/corpus" -name '*.gguf' -size -256k 2>/dev/null); do
    cp "$f" "$dir/seed_read/"
    { head -c 16 /dev/urandom; cat "$f"; } > "$dir/seed_edit/$(basename "$f")"
done
cp "$top"/tests/fuzz/regress_json/* "$dir/seed_json/"
status=0
for t in read edit json; do
    (cd "$dir" && ./fuzz_$t -max_total_time="$seconds" -max_len=262144 -print_final_stats=1 \
        "corpus_$t" "seed_$t" > "fuzz_$t.log" 2>&1) || status=1
    grep -E '^#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::average_exec_per_sec' "$dir/fuzz_$t.log" |
        sed "s/^/fuzz_$t: /"
    if [ $status -ne 0 ]; then
        grep -E 'ERROR|check failed|SUMMARY' "$dir/fuzz_$t.log" | head -5
        ls "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* 2>/dev/null || true
        break
    fi
done
exit $status
