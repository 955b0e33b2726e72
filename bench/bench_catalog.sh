#!/bin/sh
# make bench-catalog: gguf-catalog on 10,000 files (hard links of the corpus files, spread over
# folders): files per second for a first index and for a second, unchanged one, against a plain
# stat loop over the same files (find -printf, which stats every entry), and the time of a few
# typical queries on that catalog. Prints figures; asserts nothing.
#   BENCH_CATALOG_FILES=N   number of files (10000)
set -eu
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
CATALOG="$top_builddir/tools/gguf-catalog"
CORPUS="$top_srcdir/../shared/corpus"
N=${BENCH_CATALOG_FILES:-10000}

if [ ! -x "$CATALOG" ]; then
    echo "bench_catalog: tools/gguf-catalog not built (no SQLite), skipped"
    exit 0
fi
# run the program itself, not libtool's wrapper script (a shell and a sed per run)
if [ -x "$top_builddir/tools/.libs/gguf-catalog" ] && head -c 2 "$CATALOG" | grep -q '#!'; then
    CATALOG="$top_builddir/tools/.libs/gguf-catalog"
    LD_LIBRARY_PATH="$top_builddir/libgguf/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
fi
if [ ! -f "$CORPUS/MANIFEST.tsv" ]; then
    echo "bench_catalog: ../shared/corpus absent, skipped"
    exit 0
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/gguf-bench-catalog.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
. "$top_srcdir/bench/bench_lib.sh" # best, corpus_tree

# rate N SECONDS
rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }'; }
ms() { awk -v t="$1" 'BEGIN { printf "%.1f", t * 1000 }'; }

# shellcheck disable=SC2046 # two numbers
set -- $(corpus_tree "$W/src" "$W/tree" "$N")
per=$1 k=$2
files=$(find "$W/tree" -type f | wc -l)
bytes=$(du -sbL "$W/src" | cut -f1)
echo "bench_catalog: $files files ($per corpus files, $((bytes / 1024)) KiB, hard-linked $k times), headers in the page cache"

DB="$W/catalog.db"
# warm the directory and inode caches, and time the baseline: one stat per file
find "$W/tree" -type f -printf '%s %T@\n' > /dev/null
stat_s=$(RUNS=5 best find "$W/tree" -type f -printf "%s %T@\n")
first_s=$(RUNS=1 BEST_OUT="$W/first.txt" best "$CATALOG" --db "$DB" index -q "$W/tree")
second_s=$(RUNS=5 BEST_OUT="$W/second.txt" best "$CATALOG" --db "$DB" index -q "$W/tree")

echo "  first index:        $(rate "$files" "$first_s") files/s, $(ms "$first_s") ms: $(cat "$W/first.txt")"
echo "  unchanged re-index: $(rate "$files" "$second_s") files/s, $(ms "$second_s") ms (best of 5): $(cat "$W/second.txt")"
echo "  stat loop (find):   $(rate "$files" "$stat_s") files/s, $(ms "$stat_s") ms (best of 5)"
awk -v a="$second_s" -v b="$stat_s" -v c="$first_s" \
    'BEGIN { printf "  ratios: unchanged re-index / stat loop = %.2f, first index / unchanged = %.1f\n", a / b, c / a }'
echo "  catalog: $(du -k "$DB" | cut -f1) KiB, $("$CATALOG" --db "$DB" query --format csv \
    "SELECT (SELECT count(*) FROM files) || ' files, ' || (SELECT count(*) FROM errors) || ' errors, ' || (SELECT count(*) FROM kv) || ' kv rows, ' || (SELECT count(*) FROM tensors) || ' tensor rows'" | tail -n 1 | tr -d '\r')"

# typical questions
query() {
    label=$1
    sql=$2
    q_s=$(RUNS=3 BEST_OUT="$W/q.txt" best "$CATALOG" --db "$DB" query --format csv "$sql")
    printf '  query %-34s %7s ms  (%s rows)\n' "$label:" "$(ms "$q_s")" "$(($(wc -l < "$W/q.txt") - 1))"
}
echo "  queries (best of 3, each starting the tool and opening the catalog):"
query "SELECT 1 (start-up)" "SELECT 1"
query "context >= 32k" "SELECT path, context_length FROM models WHERE context_length >= 32768"
query "Q4_K_M files" "SELECT path FROM models WHERE file_type = 'Q4_K_M'"
query "models by architecture" "SELECT architecture, count(*), sum(bytes) FROM models GROUP BY architecture"
query "incomplete split sets" "SELECT path FROM models WHERE split_complete = 0"
query "same token embedding (shape)" "SELECT type, ne0, ne1, count(*) FROM tensors WHERE name = 'token_embd.weight' GROUP BY type, ne0, ne1 HAVING count(*) > 1"
query "same header (crc32)" "SELECT header_crc32, count(*) FROM files GROUP BY header_crc32 HAVING count(*) > 1"
query "key lookup (tokenizer model)" "SELECT f.path FROM kv JOIN files f ON f.id = kv.file WHERE kv.key = 'tokenizer.ggml.model' AND kv.text = 'gpt2'"
query "errors by kind" "SELECT error, count(*) FROM errors GROUP BY error"
