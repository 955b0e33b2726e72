#!/bin/sh
# make bench-catalog-pg: gguf-catalog into SQLite and into PostgreSQL side by side, on 3,000
# files (hard links of the corpus files but real/, whose tokenizers' million rows per copy
# would make this a bench of array_items alone; spread over folders): files per second for a
# first index and for a second, unchanged one, with each backend (best of 3 rounds), and
# PostgreSQL's time over SQLite's. The server is started as the tests start it
# (tests/support/pg_lib.sh): a Unix socket, no fsync, synchronous_commit off for the indexer (pg.c).
# Prints figures; asserts nothing.
#   BENCH_CATALOG_PG_FILES=N   number of files (3000)
#   BENCH_CATALOG_PG_ROUNDS=N  rounds, each a first index and a re-index with each backend;
#                              the best time of each is printed (3)
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
CATALOG_TOOL="$top_builddir/tools/gguf-catalog"
CORPUS="$top_srcdir/../shared/corpus"
N=${BENCH_CATALOG_PG_FILES:-3000}
ROUNDS=${BENCH_CATALOG_PG_ROUNDS:-3}
[ -x "$CATALOG_TOOL" ] || { echo "bench_catalog_pg: tools/gguf-catalog not built (no SQLite), skipped"; exit 0; }
[ -f "$CORPUS/MANIFEST.tsv" ] || { echo "bench_catalog_pg: ../shared/corpus absent, skipped"; exit 0; }
if [ -x "$top_builddir/tools/.libs/gguf-catalog" ] && head -c 2 "$CATALOG_TOOL" | grep -q '#!'; then
    CATALOG_TOOL="$top_builddir/tools/.libs/gguf-catalog"
    LD_LIBRARY_PATH="$top_builddir/libgguf/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gguf-bench-catalog-pg.XXXXXX")
# what tests/support/pg_lib.sh asks of tests/support/cli_lib.sh
skip_all() { echo "bench_catalog_pg: $1, skipped"; exit 0; }
tap_exit() { rm -rf "$TMP"; }
trap tap_exit EXIT
. "$top_srcdir/tests/support/pg_lib.sh"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", b - a }'; }
# timed NAME CMD...: NAME_s is CMD's wall time in seconds
timed() {
    name=$1
    shift
    t0=$(now)
    "$@"
    eval "${name}_s=$(elapsed "$t0" "$(now)")"
}
rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }'; }
ms() { awk -v t="$1" 'BEGIN { printf "%.0f", t * 1000 }'; }

. "$top_srcdir/bench/bench_lib.sh"
# shellcheck disable=SC2046 # two numbers
set -- $(corpus_tree "$TMP/src" "$TMP/tree" "$N" ! -path '*/real/*')
i=$1 k=$2
files=$(find "$TMP/tree" -type f | wc -l)
find "$TMP/tree" -type f -exec cat {} + >/dev/null # headers in the page cache
echo "bench_catalog_pg: $files files ($i corpus files but real/, hard-linked $k times), load $(cut -d' ' -f1-3 /proc/loadavg)"
# keep_min NAME SECONDS: NAME_s becomes the smaller of itself and SECONDS
keep_min() { eval "${1}_s=\$(awk -v a=\"\${${1}_s:-1e9}\" -v b=\"$2\" 'BEGIN { print (b < a ? b : a) }')"; }
# rounds alternate the backends, so that a change of the machine's load falls on both
for r in $(seq "$ROUNDS"); do
    pg_createdb "bench$r"
    PG=$(pg_url "bench$r")
    LITE="$TMP/catalog$r.db"
    timed l1 "$CATALOG_TOOL" --db "$LITE" index -q "$TMP/tree" >"$TMP/l1" 2>&1
    timed p1 "$CATALOG_TOOL" --db "$PG" index -q "$TMP/tree" >"$TMP/p1" 2>&1
    timed l2 "$CATALOG_TOOL" --db "$LITE" index -q "$TMP/tree" >"$TMP/l2" 2>&1
    timed p2 "$CATALOG_TOOL" --db "$PG" index -q "$TMP/tree" >"$TMP/p2" 2>&1
    keep_min lite1 "$l1_s"
    keep_min pg1 "$p1_s"
    keep_min lite2 "$l2_s"
    keep_min pg2 "$p2_s"
    rm -f "$LITE" "$LITE-wal" "$LITE-shm"
done
echo "  best of $ROUNDS rounds, load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
rows=$("$CATALOG_TOOL" --db "$PG" query --format csv "SELECT (SELECT count(*) FROM kv) + (SELECT count(*)
 FROM array_items) + (SELECT count(*) FROM tensors) AS n" | tail -n 1 | tr -d '\r')
printf '  %-20s %12s %12s %8s\n' "" SQLite PostgreSQL "PG/SQLite"
line() {
    printf '  %-20s %6s files/s %6s files/s %8s   (%s ms, %s ms)\n' "$1" "$(rate "$files" "$2")" \
        "$(rate "$files" "$3")" "$(awk -v a="$3" -v b="$2" 'BEGIN { printf "%.2f", a / b }')" \
        "$(ms "$2")" "$(ms "$3")"
}
line "first index" "$lite1_s" "$pg1_s"
line "unchanged re-index" "$lite2_s" "$pg2_s"
arrays=$("$CATALOG_TOOL" --db "$PG" query --format csv "SELECT count(*) AS n FROM array_values" | tail -n 1 | tr -d '\r')
echo "  rows per first index: $rows (kv, array_items, tensors); PostgreSQL holds the arrays in $arrays array_values rows"
echo "  SQLite:     $(tail -n 1 "$TMP/l1")"
echo "  PostgreSQL: $(tail -n 1 "$TMP/p1")"
