#!/bin/bash
# make bench-http: opening 1,000 GGUF files by URL from nginx on 127.0.0.1 with
# gguf_file_open_many (tests/support/open_many), in files per second, next to opening the same files
# from disk in the same run; the readings must be equal (data offset, key and tensor counts,
# header crc32 of every file). Also the bytes the server sent against the files' header
# bytes. Prints figures; asserts only that the readings are equal.
#   BENCH_HTTP_FILES=N   number of files (1000)
set -eu
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
CORPUS="$top_srcdir/../shared/corpus"
N=${BENCH_HTTP_FILES:-1000}
OPEN_MANY="$top_builddir/tests/support/open_many"
if [ -x "$top_builddir/tests/support/.libs/open_many" ] && head -c 2 "$OPEN_MANY" | grep -q '#!'; then
    OPEN_MANY="$top_builddir/tests/support/.libs/open_many" # the program, not libtool's wrapper
    LD_LIBRARY_PATH="$top_builddir/libgguf/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || { echo "bench_http: nginx not installed, skipped"; exit 0; }
[ -f "$CORPUS/MANIFEST.tsv" ] || { echo "bench_http: ../shared/corpus absent, skipped"; exit 0; }
if "$OPEN_MANY" http://127.0.0.1:9/x.gguf | grep -q "built without HTTP support"; then
    echo "bench_http: built without libcurl, skipped"; exit 0
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/gguf-bench-http.XXXXXX")
. "$top_srcdir/bench/nginx_tree.sh"

measure() {
    locals=() urls=()
    for f in "$W"/tree/*.gguf; do locals+=("$f"); urls+=("http://127.0.0.1:$PORT/${f##*/}"); done
    now() { date +%s.%N; }
    rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%7.0f files/s  (%.3f s)", n / (b - a), b - a }'; }

    # from disk: three runs, the fastest counts (a shared machine)
    best_local=
    for _ in 1 2 3; do
        t0=$(now); "$OPEN_MANY" "${locals[@]}" >"$W/local.txt"; t1=$(now)
        t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
        if [ -z "$best_local" ] || awk -v a="$t" -v b="$best_local" 'BEGIN { exit !(a < b) }'; then best_local=$t; fi
    done
    echo "bench_http: $N files, $1 ($(du -sh "$W/tree" | cut -f1) on disk, corpus files repeated); load average $(cut -d" " -f1-3 /proc/loadavg)"
    printf '  from disk (open one by one)          %s\n' "$(rate "$N" 0 "$best_local")"
    for p in 1 4 16 64; do
        : >"$W/srv/logs/access.log"
        t0=$(now); "$OPEN_MANY" --parallel "$p" "${urls[@]}" >"$W/url.txt"; t1=$(now)
        sed "s|http://127.0.0.1:$PORT/|$W/tree/|" "$W/url.txt" >"$W/url.mapped"
        if ! cmp -s "$W/url.mapped" "$W/local.txt"; then
            echo "bench_http: the readings by URL differ from the ones from disk:"; diff "$W/url.mapped" "$W/local.txt" | head -5
            exit 1
        fi
        sent=$(awk '{ s += $3; b += $4; n++ } END { printf "%d requests, %.1f MiB sent (%.1f MiB of body)", n, s / 1048576, b / 1048576 }' "$W/srv/logs/access.log")
        printf '  by URL, %2d transfers at a time       %s  %s\n' "$p" "$(rate "$N" "$t0" "$t1")" "$sent"
    done
    heads=$(awk '$2 !~ /error/ { h += $2 } END { printf "%.1f", h / 1048576 }' "$W/local.txt")
    echo "  header bytes of the files read: $heads MiB; readings by URL equal the ones from disk"
}

make_tree
measure "the corpus (vocabularies: large headers)"
make_tree -size -64k
measure "the corpus files under 64 KiB (one request each)"
