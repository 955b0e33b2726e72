#!/bin/bash
# gguf-catalog on http:// URLs, against a real HTTP server on 127.0.0.1 (nginx, else lighttpd:
# tests/support/http_lib.sh) and the misbehaving one of tests/support/http_server.py. Every corpus
# file indexed by URL (--urls FILE) and by path gives the same rows (files, models, kv, tensors,
# errors; everything but where and when); a second index run sends one conditional request per URL
# (the access log shows If-None-Match or If-Modified-Since, and 304s) and reads no header; a
# file changed on the server is read again; a 404 and a 503 are recorded naming the URL and
# the status, a 503 then 200 is indexed; --offline touches nothing. Split sets by URL (made by
# gguf-edit split and llama-gguf-split) are one model, as the same set on disk; a missing or
# replaced shard is the set's error. Skips (77) without the corpus, libcurl, SQLite or a
# server.
. "$(dirname "$0")/../support/cli_lib.sh"

CATALOG="$CATALOG_TOOL"
[ -x "$CATALOG" ] || skip_all "tools/gguf-catalog not built (no SQLite)"
have_corpus || { echo "SKIP: ../shared/corpus is absent"; exit 77; }
if "$EDIT" show http://127.0.0.1:9/none.gguf 2>&1 | grep -q "built without HTTP support"; then
    echo "SKIP: this build has no libcurl (configure --without-curl)"; exit 77
fi
. "$(dirname "$0")/../support/http_lib.sh"
mkdir -p "$TMP/o"

# q SQL: the query's single value on $DB
q() {
    "$CATALOG" --db "$DB" query --format csv "$1" | tail -n +2 | tr -d '\r' |
        sed -e '/^".*"$/{s/^"//;s/"$//;s/""/"/g;}'
}
# the log's lines (after log_settle) as: URI STATUS METHOD CONDITIONAL (1: If-None-Match or
# If-Modified-Since sent, else 0); an ETag sent back may hold quotes of its own (lighttpd logs
# them as they are)
log_requests() {
    python3 - "$LOG" <<'PYEOF'
import re, sys
line_re = re.compile(r'^(\S+) (\d+) \d+ \d+ "[^"]*" "[^"]*" "(.*)" "([^"]*)" (\S+)\s*$')
for line in open(sys.argv[1]):
    m = line_re.match(line)
    if m is None:
        print(line.split()[0], line.split()[1], '?', '?')
    else:
        print(m.group(1), m.group(2), m.group(5), int(m.group(3) != '-' or m.group(4) != '-'))
PYEOF
}
ROWS="$top_srcdir/tests/support/catalog_rows.py"
corpus=$(cd "$CORPUS" && pwd -P)
MODEL=models/tiny-llama-e256-Q4_K_M.gguf
VOCAB=real/ggml-vocab-llama-spm.gguf

# ---- every corpus file by URL and by path: the same rows ----
files=$(cd "$corpus" && find . -name '*.gguf' | sed 's|^\./||' | sort)
n_files=$(echo "$files" | wc -l)
{
    echo "# every corpus file, by URL"
    echo
    for rel in $files; do echo "  $U/files/$rel  "; done
} >"$TMP/urls.txt"
DB="$TMP/url.db"
clear_log
expect_status 0 "$CATALOG" --db "$DB" index -q --jobs 8 --urls "$TMP/urls.txt"
grep -q "^$n_files files: " "$TMP/out" && ok || fail "index --urls: $(cat "$TMP/out")"
expect_status 0 "$CATALOG" --db "$TMP/path.db" index -q "$corpus"
python3 "$ROWS" "$DB" "$U/files/" >"$TMP/o/rows.url"
python3 "$ROWS" "$TMP/path.db" "$corpus/" >"$TMP/o/rows.path"
cmp -s "$TMP/o/rows.url" "$TMP/o/rows.path" && ok ||
    fail "the rows by URL differ from the rows by path: $(diff "$TMP/o/rows.url" "$TMP/o/rows.path" | head -5)"
[ "$(grep -c '^files	' "$TMP/o/rows.url")" -gt 50 ] && [ "$(grep -c '^errors	' "$TMP/o/rows.url")" -gt 20 ] && ok ||
    fail "too few rows compared: $(grep ': .* rows$' "$TMP/o/rows.url" | tr '\n' ' ')"
# what the server said is kept: ETag, Last-Modified (as mtime_ns too), no device or inode
[ "$(q "SELECT count(*) FROM files WHERE etag IS NULL OR last_modified IS NULL OR mtime_ns <= 0 OR dev IS NOT NULL")" = 0 ] && ok ||
    fail "URL rows without validators: $(q "SELECT path, etag, last_modified, mtime_ns FROM files LIMIT 3")"
[ "$(q "SELECT count(*) FROM files WHERE path NOT LIKE '$U/files/%'")" = 0 ] && ok || fail "a URL row's path is not its URL"
log_settle
[ "$(log_requests | awk '$4 == 1' | wc -l)" = 0 ] && ok || fail "the first index sent conditional requests"

# ---- again: one conditional request per URL, every answer 304, nothing read ----
clear_log
expect_status 0 "$CATALOG" --db "$DB" index -q --urls "$TMP/urls.txt"
grep -q "^$n_files files: 0 indexed, $n_files unchanged, 0 refused" "$TMP/out" && ok || fail "re-index: $(cat "$TMP/out")"
log_settle
log_requests >"$TMP/o/requests"
[ "$(wc -l <"$TMP/o/requests")" = "$n_files" ] && ok || fail "re-index: $(wc -l <"$TMP/o/requests") requests for $n_files URLs"
[ "$(awk '$2 != 304 || $4 != 1' "$TMP/o/requests" | wc -l)" = 0 ] && ok ||
    fail "re-index sent other requests than conditional ones answered 304: $(awk '$2 != 304 || $4 != 1' "$TMP/o/requests" | head -3)"
read -r body _ _ <<<"$(log_sum)"
[ "$body" = 0 ] && ok || fail "re-index read $body body bytes"
python3 "$ROWS" "$DB" "$U/files/" | cmp -s - "$TMP/o/rows.url" && ok || fail "re-index changed rows"
[ "$(q "SELECT unchanged FROM runs ORDER BY id DESC LIMIT 1")" = "$n_files" ] && ok || fail "runs: $(q "SELECT * FROM runs ORDER BY id DESC LIMIT 1")"
# --force: every URL read again, unconditionally
clear_log
expect_status 0 "$CATALOG" --db "$DB" index -q --force "$U/files/$MODEL" "$U/files/$VOCAB"
grep -q "^2 files: 2 indexed" "$TMP/out" && ok || fail "--force: $(cat "$TMP/out")"
log_settle
[ "$(log_requests | awk '$4 == 1' | wc -l)" = 0 ] && ok || fail "--force sent conditional requests"

# ---- a file that changes on the server is read again; verify sees the change first ----
cp "$CORPUS/$VOCAB" "$TMP/big/changing.gguf"
DB="$TMP/change.db"
expect_status 0 "$CATALOG" --db "$DB" index -q "$U/big/changing.gguf"
expect_status 0 "$CATALOG" --db "$DB" verify
cp "$CORPUS/real/ggml-vocab-bert-bge.gguf" "$TMP/big/changing.gguf"
# another Last-Modified (whole seconds) and so another ETag, whatever the clock says
touch -d '2001-02-03 04:05:06' "$TMP/big/changing.gguf"
expect_status 1 "$CATALOG" --db "$DB" verify
grep -q "^$U/big/changing.gguf: changed: size " "$TMP/out" && ok || fail "verify of a changed URL: $(cat "$TMP/out")"
clear_log
expect_status 0 "$CATALOG" --db "$DB" index -q "$U/big/changing.gguf"
grep -q "^1 file: 1 indexed" "$TMP/out" && ok || fail "a changed URL: $(cat "$TMP/out")"
log_settle
[ "$(log_requests | awk 'NR == 1 { print $2, $4 }')" = "206 1" ] && ok || fail "a changed URL: $(log_requests | head -2)"
[ "$(q "SELECT size FROM files")" = "$(stat -c %s "$TMP/big/changing.gguf")" ] && [ "$(q "SELECT architecture FROM models")" = bert ] && ok ||
    fail "a changed URL's rows: $(q "SELECT path, size FROM files")"
expect_status 0 "$CATALOG" --db "$DB" verify "$U/big"
grep -q "^1 file verified" "$TMP/out" && ok || fail "verify URL: $(cat "$TMP/out")"
# prune leaves URLs alone
expect_status 0 "$CATALOG" --db "$DB" prune
[ "$(q "SELECT count(*) FROM files")" = 1 ] && ok || fail "prune dropped a URL"

# ---- failures: named with the URL and the HTTP status; a 503 then 200 is indexed ----
DB="$TMP/fail.db"
expect_status 0 "$CATALOG" --db "$DB" index -q "$U/files/no-such.gguf" "$PY/fail503/2/$MODEL"
grep -q "^2 files: 1 indexed, 0 unchanged, 1 refused" "$TMP/out" && ok || fail "404 and 503-then-200: $(cat "$TMP/out")"
[ "$(q "SELECT error || '|' || message FROM errors WHERE path = '$U/files/no-such.gguf'")" = "not found|HTTP 404 Not Found for bytes 0..65536" ] && ok ||
    fail "404: $(q "SELECT * FROM errors")"
[ "$(grep -c "^/fail503/2/$MODEL 503 " "$TMP/srv/py.log")" = 2 ] && ok || fail "503 then 200: $(grep fail503 "$TMP/srv/py.log" | head -3)"
[ "$(q "SELECT architecture FROM models WHERE path = '$PY/fail503/2/$MODEL'")" = llama ] && ok || fail "503 then 200: not indexed"
expect_status 0 "$CATALOG" --db "$DB" index --retries 1 "$PY/fail503/2/$VOCAB"
grep -q "$PY/fail503/2/$VOCAB: HTTP 503 Service Unavailable .*(after 2 attempts)" "$TMP/err" && ok || fail "503 for good: $(cat "$TMP/err")"
[ "$(q "SELECT code || '|' || (message LIKE 'HTTP 503 Service Unavailable%') FROM errors WHERE path = '$PY/fail503/2/$VOCAB'")" = "-3|1" ] && ok ||
    fail "503 row: $(q "SELECT * FROM errors WHERE path LIKE '%fail503%'")"
expect_status 0 "$CATALOG" --db "$DB" index "$PY/fail503/2/$VOCAB" # the server answers 200 now
grep -q "^1 file: 1 indexed" "$TMP/out" && ok || fail "after the 503: $(cat "$TMP/out")"
[ "$(q "SELECT count(*) FROM errors WHERE path LIKE '%fail503%'")" = 0 ] && ok || fail "the 503's row stayed"

# ---- --offline touches nothing: no request, rows kept ----
DB="$TMP/url.db"
clear_log
expect_status 0 "$CATALOG" --db "$DB" index --offline "$U/files/$MODEL" "$U/files/no-such.gguf"
grep -q "^0 files: 0 indexed, 0 unchanged, 0 refused (in the errors table), 2 URLs not checked (--offline)" "$TMP/out" && ok || fail "--offline: $(cat "$TMP/out")"
expect_status 0 "$CATALOG" --db "$DB" verify --offline
log_settle
[ ! -s "$LOG" ] && ok || fail "--offline sent requests: $(head -3 "$LOG")"
python3 "$ROWS" "$DB" "$U/files/" | cmp -s - "$TMP/o/rows.url" && ok || fail "--offline changed rows"

# ---- split sets by URL: one model, the same as on disk ----
mkdir -p "$TMP/big/sets"
"$EDIT" split "$CORPUS/$MODEL" "$TMP/big/sets/edit" --max-tensors 8 >/dev/null
sets="edit-00001-of-00003.gguf"
LLAMA_SPLIT=${LLAMA_GGUF_SPLIT:-$(dirname "$ORACLE")/llama-gguf-split}
if [ -x "$LLAMA_SPLIT" ]; then
    "$LLAMA_SPLIT" --split --split-max-tensors 6 "$CORPUS/$MODEL" "$TMP/big/sets/llama" >/dev/null 2>&1
    sets="$sets llama-00001-of-00004.gguf"
    [ -f "$TMP/big/sets/llama-00004-of-00004.gguf" ] && ok || fail "llama-gguf-split made no 4 shards: $(ls "$TMP/big/sets")"
else
    skip "split sets made by llama-gguf-split" "no llama-gguf-split beside the oracle"
fi
DB="$TMP/sets-url.db"
for first in $sets; do # named by a later shard: the whole set comes
    expect_status 0 "$CATALOG" --db "$DB" index -q "$U/big/sets/${first/00001-of/00002-of}"
done
expect_status 0 "$CATALOG" --db "$TMP/sets-path.db" index -q "$TMP/big/sets"
python3 "$ROWS" "$DB" "$U/big/sets/" >"$TMP/o/sets.url"
python3 "$ROWS" "$TMP/sets-path.db" "$TMP/big/sets/" >"$TMP/o/sets.path"
cmp -s "$TMP/o/sets.url" "$TMP/o/sets.path" && ok || fail "split sets by URL and by path differ: $(diff "$TMP/o/sets.url" "$TMP/o/sets.path" | head -5)"
n_sets=$(echo $sets | wc -w)
[ "$(q "SELECT count(*) FROM models")" = "$n_sets" ] && ok || fail "split sets by URL: $(q "SELECT path FROM models")"
DB="$TMP/whole.db"
expect_status 0 "$CATALOG" --db "$DB" index -q "$CORPUS/$MODEL"
want=$(q "SELECT n_params || ' ' || n_tensors || ' ' || tensor_bytes || ' ' || quant || ' ' || file_type FROM models")
DB="$TMP/sets-url.db"
for first in $sets; do
    got=$(q "SELECT n_params || ' ' || n_tensors || ' ' || tensor_bytes || ' ' || quant || ' ' || file_type || ' ' || split_complete || ' ' || shards FROM models WHERE path = '$U/big/sets/$first'")
    [ "$got" = "$want 1 $(q "SELECT split_count FROM models WHERE path = '$U/big/sets/$first'")" ] && ok ||
        fail "$first by URL: '$got', the model itself: '$want'"
done
# again: conditional requests only
clear_log
expect_status 0 "$CATALOG" --db "$DB" index -q "$U/big/sets/edit-00003-of-00003.gguf"
grep -q "^3 files: 0 indexed, 3 unchanged" "$TMP/out" && ok || fail "a set again: $(cat "$TMP/out")"
log_settle
[ "$(log_requests | awk '$2 == 304 && $4 == 1' | wc -l)" = 3 ] && [ "$(wc -l <"$LOG")" = 3 ] && ok || fail "a set again: $(log_requests)"
# a shard missing on the server: the set's error names it; a missing shard stays missing
mv "$TMP/big/sets/edit-00002-of-00003.gguf" "$TMP/edit-2.gguf"
expect_status 0 "$CATALOG" --db "$DB" index "$U/big/sets/edit-00001-of-00003.gguf"
grep -q "1 split set broken" "$TMP/out" && grep -q "$U/big/sets/edit-00001-of-00003.gguf: split set of 3 shards: 1 missing: edit-00002-of-00003.gguf" "$TMP/err" && ok ||
    fail "a missing shard by URL: $(cat "$TMP/out" "$TMP/err")"
[ "$(q "SELECT scope || ' ' || shard FROM errors WHERE path = '$U/big/sets/edit-00001-of-00003.gguf'")" = "set 2" ] && ok || fail "missing shard row: $(q "SELECT * FROM errors")"
[ "$(q "SELECT split_complete || ' ' || shards FROM models WHERE path = '$U/big/sets/edit-00001-of-00003.gguf'")" = "0 2" ] && ok || fail "a set with a missing shard: $(q "SELECT * FROM models")"
expect_status 0 "$CATALOG" --db "$DB" index "$U/big/sets/edit-00001-of-00003.gguf"
grep -q "split set" "$TMP/out" && fail "an unchanged broken set reported again: $(cat "$TMP/out")" || ok
mv "$TMP/edit-2.gguf" "$TMP/big/sets/edit-00002-of-00003.gguf"
expect_status 0 "$CATALOG" --db "$DB" index "$U/big/sets/edit-00001-of-00003.gguf"
[ "$(q "SELECT split_complete || ' ' || shards FROM models WHERE path = '$U/big/sets/edit-00001-of-00003.gguf'")" = "1 3" ] &&
    [ "$(q "SELECT count(*) FROM errors")" = 0 ] && ok || fail "the shard back: $(q "SELECT * FROM errors")"
# a shard replaced by another set's: the set's error names it
if [ -f "$TMP/big/sets/llama-00002-of-00004.gguf" ]; then
    "$EDIT" split "$CORPUS/$MODEL" "$TMP/o/other" --max-tensors 5 >/dev/null
    cp "$TMP/o/other-00002-of-00005.gguf" "$TMP/big/sets/llama-00002-of-00004.gguf"
    touch -d '2001-02-03 04:05:06' "$TMP/big/sets/llama-00002-of-00004.gguf" # another Last-Modified
    expect_status 0 "$CATALOG" --db "$DB" index "$U/big/sets/llama-00004-of-00004.gguf"
    grep -q "^4 files: 1 indexed, 3 unchanged, 0 refused (in the errors table), 1 split set broken" "$TMP/out" && ok || fail "a replaced shard: $(cat "$TMP/out")"
    [ "$(q "SELECT shard || ' ' || (message LIKE 'shard 2 of 4 (llama-00002-of-00004.gguf): split.count 5, but the set has 4 shards%') FROM errors WHERE path = '$U/big/sets/llama-00001-of-00004.gguf'")" = "2 1" ] && ok ||
        fail "a replaced shard's row: $(q "SELECT shard, message FROM errors")"
fi

finish
