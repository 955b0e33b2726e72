#!/bin/bash
# make bench-catalog-http: gguf-catalog index of 1,000 URLs served by nginx on 127.0.0.1, in
# files per second, next to indexing the same files from disk in the same run: a first index
# (every header read) and an unchanged one (by URL: one conditional request per file, answered
# 304; from disk: one stat per file), at 1, 16 and 64 transfers at a time. The rows of the two
# catalogs must be equal (tests/support/catalog_rows.py: every column but where and when); the bytes
# the server sent are shown against the files' header bytes. Prints figures; asserts only that
# the rows are equal.
#   BENCH_HTTP_FILES=N   number of files (1000)
set -eu
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
CORPUS="$top_srcdir/../shared/corpus"
N=${BENCH_HTTP_FILES:-1000}
CATALOG="$top_builddir/tools/gguf-catalog"
ROWS="$top_srcdir/tests/support/catalog_rows.py"
[ -x "$CATALOG" ] || { echo "bench_catalog_http: tools/gguf-catalog not built (no SQLite), skipped"; exit 0; }
if [ -x "$top_builddir/tools/.libs/gguf-catalog" ] && head -c 2 "$CATALOG" | grep -q '#!'; then
    CATALOG="$top_builddir/tools/.libs/gguf-catalog" # the program, not libtool's wrapper
    LD_LIBRARY_PATH="$top_builddir/libgguf/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || { echo "bench_catalog_http: nginx not installed, skipped"; exit 0; }
[ -f "$CORPUS/MANIFEST.tsv" ] || { echo "bench_catalog_http: ../shared/corpus absent, skipped"; exit 0; }
command -v python3 >/dev/null || { echo "bench_catalog_http: no python3, skipped"; exit 0; }
W=$(mktemp -d "${TMPDIR:-/tmp}/gguf-bench-catalog-http.XXXXXX")
if "$CATALOG" --db "$W/probe.db" index -q http://127.0.0.1:9/x.gguf 2>&1 | grep -q "built without HTTP support"; then
    rm -rf "$W"
    echo "bench_catalog_http: built without libcurl, skipped"; exit 0
fi
. "$top_srcdir/bench/nginx_tree.sh"
. "$top_srcdir/bench/bench_lib.sh" # best

# fresh: a first index needs an empty catalog (best's BEST_BEFORE)
fresh() { rm -f "$FRESH" "$FRESH-wal" "$FRESH-shm"; }
rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%7.0f files/s  (%.3f s)", n / t, t }'; }
sent() { awk '{ s += $3; b += $4; n++ } END { printf "%d requests, %.1f MiB sent (%.1f MiB of body)", n, s / 1048576, b / 1048576 }' "$W/srv/logs/access.log"; }

measure() {
    : >"$W/urls.txt"
    for f in "$W"/tree/*.gguf; do echo "http://127.0.0.1:$PORT/${f##*/}" >>"$W/urls.txt"; done
    echo "bench_catalog_http: $N files, $1 ($(du -sh "$W/tree" | cut -f1) on disk, corpus files repeated); load average $(cut -d" " -f1-3 /proc/loadavg)"
    t=$(RUNS=3 BEST_BEFORE=fresh FRESH="$W/disk.db" BEST_OUT="$W/out.txt" best "$CATALOG" --db "$W/disk.db" index -q "$W/tree")
    printf '  from disk, first index                      %s  %s\n' "$(rate "$N" "$t")" "$(cat "$W/out.txt")"
    t=$(RUNS=3 best "$CATALOG" --db "$W/disk.db" index -q "$W/tree")
    printf '  from disk, unchanged                        %s\n' "$(rate "$N" "$t")"
    python3 "$ROWS" "$W/disk.db" "$W/tree/" >"$W/rows.disk"
    for j in 1 16 64; do
        : >"$W/srv/logs/access.log"
        t=$(RUNS=1 BEST_BEFORE=fresh FRESH="$W/url.db" best "$CATALOG" --db "$W/url.db" index -q --jobs "$j" --urls "$W/urls.txt")
        printf '  by URL, first index, --jobs %-3d            %s  %s\n' "$j" "$(rate "$N" "$t")" "$(sent)"
        python3 "$ROWS" "$W/url.db" "http://127.0.0.1:$PORT/" >"$W/rows.url"
        if ! cmp -s "$W/rows.url" "$W/rows.disk"; then
            echo "bench_catalog_http: the rows by URL differ from the rows from disk:"
            diff "$W/rows.url" "$W/rows.disk" | head -5
            exit 1
        fi
        : >"$W/srv/logs/access.log"
        t=$(RUNS=1 best "$CATALOG" --db "$W/url.db" index -q --jobs "$j" --urls "$W/urls.txt")
        printf '  by URL, unchanged (conditional), --jobs %-3d %s  %s\n' "$j" "$(rate "$N" "$t")" "$(sent)"
    done
    heads=$(python3 - "$W/disk.db" <<'PYEOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print("%.1f" % ((c.execute("SELECT total(data_offset) FROM files").fetchone()[0]) / 1048576))
PYEOF
)
    echo "  header bytes of the files read: $heads MiB; rows by URL equal the rows from disk ($(grep -c . "$W/rows.disk") rows)"
}

make_tree
measure "the corpus (vocabularies: large headers)"
make_tree -size -64k
measure "the corpus files under 64 KiB (one request each)"
