#!/bin/sh
# gguf-catalog: index (incremental, errors recorded), query in every format and read-only,
# verify naming the tensor whose bytes changed, prune, concurrent indexers, and the corpus:
# every file recorded, with the keys and tensors gguf-edit show --json sees.
. "$(dirname "$0")/../support/cli_lib.sh"

CATALOG="$CATALOG_TOOL"
[ -x "$CATALOG" ] || skip_all "tools/gguf-catalog not built (no SQLite)"
DB="$TMP/c.db"
have_python() { command -v python3 >/dev/null 2>&1; }
valid_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))' "$1"; }
# q SQL: the query's single value (csv without the header line, unquoted); q_in DB SQL
q_in() {
    "$CATALOG" --db "$1" query --format csv "$2" | tail -n +2 | tr -d '\r' |
        sed -e '/^".*"$/{s/^"//;s/"$//;s/""/"/g;}'
}
q() { q_in "$DB" "$1"; }

# ---- a small tree ----
mkdir -p "$TMP/m/sub"
cp "$GOLDEN"/hand/*.gguf "$TMP/m/"
cp "$GOLDEN/hand/le_v3_two_tensors.gguf" "$TMP/m/sub/copy.gguf"
printf 'not a gguf file' > "$TMP/m/junk.gguf"
printf 'notes' > "$TMP/m/notes.txt"
ln -s "$TMP/m/sub/copy.gguf" "$TMP/m/link.gguf"
n_hand=$(ls "$GOLDEN"/hand/*.gguf | wc -l)
n_ok=$((n_hand + 1))

# ---- usage ----
expect_status 2 "$CATALOG"
expect_status 0 "$CATALOG" --help
for c in index query schema verify prune path; do
    expect_status 0 "$CATALOG" "$c" --help
done
expect_status 2 "$CATALOG" --db "$DB" index
expect_status 2 "$CATALOG" --db "$DB" query "SELECT 1" "SELECT 2"
expect_status 2 "$CATALOG" --db "$DB" frobnicate
expect_status 2 "$CATALOG" --db "$DB" query --format xml "SELECT 1"
expect_status 1 "$CATALOG" --db "$TMP/none.db" query "SELECT 1"
grep -q "no catalog" "$TMP/err" && ok || fail "query without a catalog: $(cat "$TMP/err")"
[ ! -e "$TMP/none.db" ] && ok || fail "query created a catalog"
expect_status 0 "$CATALOG" --db "$DB" path
[ "$(cat "$TMP/out")" = "$DB" ] && ok || fail "path: $(cat "$TMP/out")"
expect_status 0 env XDG_DATA_HOME="$TMP/xdg" "$CATALOG" path
[ "$(cat "$TMP/out")" = "$TMP/xdg/gguf/catalog.db" ] && ok || fail "default path: $(cat "$TMP/out")"

expect_status 0 "$CATALOG" --version
grep -q "^gguf-catalog (libgguf) [0-9]" "$TMP/out" && ok || fail "--version: $(cat "$TMP/out")"
expect_status 2 "$CATALOG" --db "$DB" path extra
expect_status 2 "$CATALOG" --db "$DB" schema extra

# ---- index, again, and changes ----
expect_status 0 "$CATALOG" --db "$DB" index "$TMP/m"
grep -q "^$((n_ok + 1)) files: $n_ok indexed, 0 unchanged, 1 refused" "$TMP/out" && ok || fail "first index: $(cat "$TMP/out")"
grep -q "junk.gguf" "$TMP/err" && ok || fail "the refused file is not reported: $(cat "$TMP/err")"
expect_status 0 "$CATALOG" --db "$DB" index -q "$TMP/m"
grep -q "^$((n_ok + 1)) files: 0 indexed, $((n_ok + 1)) unchanged, 0 refused" "$TMP/out" && ok || fail "second index: $(cat "$TMP/out")"
[ ! -s "$TMP/err" ] && ok || fail "quiet index wrote: $(cat "$TMP/err")"
[ "$(q "SELECT count(*) FROM files")" = "$n_ok" ] && ok || fail "files rows"
[ "$(q "SELECT count(*) FROM errors WHERE path LIKE '%/junk.gguf'")" = 1 ] && ok || fail "errors row"
[ "$(q "SELECT count(*) FROM files WHERE path LIKE '%link%' OR path LIKE '%notes%'")" = 0 ] && ok || fail "link or text file indexed"
touch "$TMP/m/sub/copy.gguf"
expect_status 0 "$CATALOG" --db "$DB" index "$TMP/m"
grep -q "1 indexed, $n_ok unchanged" "$TMP/out" && ok || fail "touched file: $(cat "$TMP/out")"
expect_status 0 "$CATALOG" --db "$DB" index --follow-symlinks "$TMP/m"
[ "$(q "SELECT count(*) FROM files WHERE path = '$TMP/m/link.gguf'")" = 1 ] && ok || fail "--follow-symlinks"
expect_status 1 "$CATALOG" --db "$DB" index "$TMP/nowhere"
expect_status 2 "$CATALOG" --db "$DB" index --array-max x "$TMP/m"
expect_status 2 "$CATALOG" --db "$DB" index --jobs 0 "$TMP/m"
grep -q "1 to 1024" "$TMP/err" && grep -q "Try 'gguf-catalog index --help'" "$TMP/err" && ok ||
    fail "--jobs 0: $(cat "$TMP/err")"
# index reads each file alone: --one-file is not its option, and a refused option creates nothing
expect_status 2 "$CATALOG" --db "$TMP/url.db" index --one-file "$TMP/m"
[ ! -e "$TMP/url.db" ] && ok || fail "a refused option created a catalog"

# ---- runs: every index run is recorded, and files keep the run that last changed them ----
[ "$(q "SELECT count(*) FROM runs WHERE kind = 'index' AND finished_at >= started_at")" = 5 ] && ok ||
    fail "runs: $(q "SELECT count(*) FROM runs")"
[ "$(q "SELECT count(*) FROM runs WHERE finished_at IS NULL")" = 0 ] && ok || fail "an unfinished run"
[ "$(q "SELECT paths FROM runs ORDER BY id LIMIT 1")" = "[\"$TMP/m\"]" ] && ok || fail "runs.paths: $(q "SELECT paths FROM runs")"
touch "$TMP/m/v1_one_tensor.gguf"
expect_status 0 "$CATALOG" --db "$DB" index -q "$TMP/m"
[ "$(q "SELECT indexed || ' ' || unchanged || ' ' || broken FROM runs ORDER BY id DESC LIMIT 1")" = "1 $n_ok 0" ] && ok ||
    fail "the last run's counts: $(q "SELECT * FROM runs ORDER BY id DESC LIMIT 1")"
changed="SELECT group_concat(f.path || ':' || t.name, ' ') FROM tensors t JOIN files f ON f.id = t.file WHERE f.changed_run = (SELECT max(id) FROM runs WHERE kind = 'index')"
[ "$(q "$changed")" = "$TMP/m/v1_one_tensor.gguf:$(q "SELECT group_concat(name) FROM tensors t JOIN files f ON f.id = t.file WHERE f.path LIKE '%v1_one_tensor.gguf'")" ] && ok ||
    fail "tensors changed in the last run: $(q "$changed")"
# read again, unchanged: the run that changed them stays
expect_status 0 "$CATALOG" --db "$DB" index -q --force "$TMP/m"
[ -z "$(q "$changed")" ] && ok || fail "--force changed files: $(q "$changed")"
[ "$(q "SELECT count(*) FROM files WHERE changed_run < indexed_run")" = "$(q "SELECT count(*) FROM files WHERE path NOT LIKE '%link%'")" ] && ok ||
    fail "changed_run of the files read again: $(q "SELECT path || changed_run || indexed_run FROM files")"

# ---- query formats ----
expect_status 0 "$CATALOG" --db "$DB" query "SELECT path, n_kv, n_tensors FROM files ORDER BY path"
[ "$(wc -l < "$TMP/out")" -eq $((n_ok + 3)) ] && ok || fail "table rows: $(cat "$TMP/out")"
head -1 "$TMP/out" | grep -q "^path  *n_kv  n_tensors$" && ok || fail "table header: $(head -1 "$TMP/out")"
grep -q ' $' "$TMP/out" && fail "table lines end in spaces" || ok
# reading leaves the catalog's folder as it found it: no -wal nor -shm file once a query, or
# an export (which opens the catalog read-only), is done
[ ! -e "$DB-wal" ] && [ ! -e "$DB-shm" ] && ok ||
    fail "a query left SQLite's files beside the catalog: $(ls "$TMP")"
expect_status 0 "$CATALOG" --db "$DB" export "$TMP/exported.db"
[ ! -e "$DB-wal" ] && [ ! -e "$DB-shm" ] && ok ||
    fail "an export left SQLite's files beside the catalog: $(ls "$TMP")"
[ "$(q_in "$TMP/exported.db" "SELECT count(*) FROM files")" = "$(q "SELECT count(*) FROM files")" ] &&
    ok || fail "export: not every file's row was copied"
rm -f "$TMP/exported.db"
expect_status 0 "$CATALOG" --db "$DB" query --format csv "SELECT 1 AS a, 'x,\"y\"' AS b, NULL AS c"
[ "$(tr -d '\r' < "$TMP/out")" = 'a,b,c
1,"x,""y""",' ] && ok || fail "csv: $(cat "$TMP/out")"
if have_python; then
    expect_status 0 "$CATALOG" --db "$DB" query --format json "SELECT * FROM models; SELECT * FROM kv"
    valid_json "$TMP/out" && ok || fail "query --format json: not valid JSON"
    expect_status 0 "$CATALOG" --db "$DB" query --format json "SELECT 1 AS a, 2.5 AS b, 'é' AS c, NULL AS d, x'ff' AS e"
    python3 - "$TMP/out" <<'PY' && ok || fail "json values: $(cat "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d == [{"a": 1, "b": 2.5, "c": "é", "d": None, "e": {"hex": "ff"}}], d
PY
    expect_status 0 "$CATALOG" --db "$DB" query --format json "SELECT 1 WHERE 0"
    valid_json "$TMP/out" && ok || fail "empty json result"
fi

# table output: cells never cut, control characters escaped, blobs whole
long="$TMP/m/$(printf 'a%.0s' $(seq 1 90)).gguf"
cp "$GOLDEN/hand/le_v3_two_tensors.gguf" "$long"
expect_status 0 "$CATALOG" --db "$TMP/long.db" index "$long"
expect_status 0 "$CATALOG" --db "$TMP/long.db" query "SELECT path, n_kv FROM files"
grep -q "^$long  " "$TMP/out" && ok || fail "table cut a path: $(cat "$TMP/out")"
rm "$long"
expect_status 0 "$CATALOG" --db "$DB" query "SELECT 'a' || char(10) || 'b' || char(9) || char(27) || '[31m' || char(155) AS t"
[ "$(tail -1 "$TMP/out")" = 'a\nb\t\x1b[31m\u009b' ] && ok || fail "table escapes: $(cat "$TMP/out")"
# a blob of 31 bytes wrote one byte past its cell (an ASan build aborts); it is printed whole
expect_status 0 "$CATALOG" --db "$DB" query "SELECT zeroblob(31) AS z"
[ "$(tail -1 "$TMP/out")" = "X'$(printf '00%.0s' $(seq 1 31))'" ] && ok || fail "zeroblob(31): $(cat "$TMP/out")"
expect_status 0 "$CATALOG" --db "$DB" query "SELECT x'$(printf 'ab%.0s' $(seq 1 200))' AS b"
[ "$(tail -1 "$TMP/out")" = "X'$(printf 'ab%.0s' $(seq 1 200))'" ] && ok || fail "long blob: $(head -c 300 "$TMP/out")"
# box and markdown tables; --max-width cuts cells, marked with an ellipsis
expect_status 0 "$CATALOG" --db "$DB" query --format box "SELECT 1 AS n, 'a|b' AS t"
[ "$(cat "$TMP/out")" = "┌───┬─────┐
│ n │ t   │
├───┼─────┤
│ 1 │ a|b │
└───┴─────┘" ] && ok || fail "box: $(cat "$TMP/out")"
expect_status 0 "$CATALOG" --db "$DB" query --format markdown "SELECT 1 AS n, 'a|b' AS t UNION ALL SELECT 22, NULL"
[ "$(cat "$TMP/out")" = "|   n | t    |
| --: | ---- |
|   1 | a\|b |
|  22 |      |" ] && ok || fail "markdown: $(cat "$TMP/out")"
expect_status 0 "$CATALOG" --db "$DB" query --max-width 5 "SELECT 'abcdefghij' AS t, 'abc' AS u"
[ "$(cat "$TMP/out")" = "t      u
-----  ---
abcd…  abc" ] && ok || fail "--max-width: $(cat "$TMP/out")"
expect_status 2 "$CATALOG" --db "$DB" query --max-width 0 "SELECT 1"
grep -q -- "--max-width takes a number of columns from 1 to 1000000, not '0'" "$TMP/err" && ok ||
    fail "--max-width 0: $(cat "$TMP/err")"
# --max-memory reads sizes as every size option does, with a fraction too (up to SQLite's int64)
for size in 1.5G 512KiB 64mb 0 0.5M; do
    expect_status 0 "$CATALOG" --db "$DB" query --max-memory $size "SELECT 1"
done
for size in 1.5X 10E -1 9000000000000000001; do
    expect_status 2 "$CATALOG" --db "$DB" query --max-memory $size "SELECT 1"
    grep -q -- "--max-memory takes a size" "$TMP/err" && ok || fail "--max-memory $size: $(cat "$TMP/err")"
done
# the commands' option tables, for scripts and completion; --version ends the options
expect_status 0 "$CATALOG" --list commands
[ "$(tr '\n' ' ' < "$TMP/out")" = "index query schema verify prune export path " ] && ok ||
    fail "--list commands: $(cat "$TMP/out")"
expect_status 0 "$CATALOG" --list options query
grep -qx -- "--max-memory SIZE" "$TMP/out" && grep -qx -- "--db PATH" "$TMP/out" && ok ||
    fail "--list options query: $(cat "$TMP/out")"
expect_status 0 "$CATALOG" --list options index
grep -qx -- "--endian little|big" "$TMP/out" && grep -qx -- "-q, --quiet" "$TMP/out" && ok ||
    fail "--list options index: $(cat "$TMP/out")"
expect_status 2 "$CATALOG" --list options nosuch
expect_status 2 "$CATALOG" --list things
expect_status 0 "$CATALOG" --version --nosuch
# table output holds at most --max-memory of rows: 1,200 rows of 100 KB (120 MB) print in pages
# within an address space of 100 MB (ulimit -v, which a sanitizer build cannot run under)
big="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1200) SELECT x, printf('%.*c', 100000, 'a') AS t FROM c"
if (ulimit -v 100000 && "$CATALOG" --db "$DB" query "SELECT 1") > /dev/null 2>&1; then
    for fmt in table box; do
        rows=$( (ulimit -v 100000; "$CATALOG" --db "$DB" query --timeout 0 --format $fmt --max-memory 8M "$big" 2> "$TMP/err"; echo $? > "$TMP/rc") | grep -c aaaaaaaaaa)
        [ "$(cat "$TMP/rc")" = 0 ] && [ "$rows" = 1200 ] && ok || fail "$fmt of 120 MB under --max-memory 8M: $rows rows, $(cat "$TMP/err")"
    done
else
    skip_sanitized "table output within --max-memory" "the tools do not start under ulimit -v"
fi
# what a terminal would act on is escaped in every text mode: in csv it is quoted (data kept)
# and, on a terminal, escaped; a right-to-left override is escaped too; a blob is an object in
# JSON (a key that is not UTF-8 would otherwise read as a string)
osc="char(27) || ']52;c;aGk=' || char(7) || 'a' || char(0x202e) || 'b'"
expect_status 0 "$CATALOG" --db "$DB" query --format csv "SELECT $osc AS t"
[ "$(tail -1 "$TMP/out" | tr -d '\r' | cut -c1)" = '"' ] && grep -q "$(printf '\033]52')" "$TMP/out" && ok || fail "csv of a control: not quoted, or not kept: $(od -c "$TMP/out")"
if command -v script > /dev/null 2>&1; then
    for fmt in csv table line box markdown json; do
        script -qc "'$CATALOG' --db '$DB' query --format $fmt \"SELECT $osc AS t\"" /dev/null > "$TMP/tty" 2>&1 < /dev/null
        grep -q 'a' "$TMP/tty" && ! tr -d '\r\n' < "$TMP/tty" | grep -q '[[:cntrl:]]' && ! grep -q "$(printf '\342\200\256')" "$TMP/tty" &&
            ok || fail "$fmt on a terminal: $(od -c "$TMP/tty" | head)"
    done
    grep -q '"t":"\\u001b\]52;c;aGk=\\u0007a\\u202eb"' "$TMP/tty" && ok || fail "json escapes: $(cat "$TMP/tty")"
else
    skip "escapes on a terminal" "no script(1)"
fi
expect_status 0 "$CATALOG" --db "$DB" query "SELECT 'a' || char(0x202e) || 'b' || char(0x2066) AS t"
[ "$(tail -1 "$TMP/out")" = 'a\u202eb\u2066' ] && ok || fail "table: bidi controls: $(cat "$TMP/out")"
cp "$GOLDEN/hand/le_v3_two_tensors.gguf" "$TMP/bidi.gguf" && chmod u+w "$TMP/bidi.gguf"
"$EDIT" set "$TMP/bidi.gguf" general.name "$(printf 'evil\342\200\256txt.exe')" > /dev/null 2>&1 &&
    expect_status 0 "$EDIT" show "$TMP/bidi.gguf"
grep -q 'evil\\xe2\\x80\\xaetxt.exe' "$TMP/out" && ! grep -q "$(printf '\342\200\256')" "$TMP/out" && ok || fail "show: bidi control: $(grep name "$TMP/out")"
if have_python; then
    python3 - "$TMP/blobkey.gguf" <<'PY'
import struct, sys
def s(b):
    return struct.pack('<Q', len(b)) + b
kv = s(b'general.architecture') + struct.pack('<I', 8) + s(b'llama') + s(b'bad\xffkey') + struct.pack('<I', 4) + struct.pack('<I', 7)
h = b'GGUF' + struct.pack('<IQQ', 3, 0, 2) + kv
open(sys.argv[1], 'wb').write(h + bytes(-len(h) % 32))
PY
    expect_status 0 "$CATALOG" --db "$TMP/blobkey.db" index --lenient "$TMP/blobkey.gguf"
    expect_status 0 "$CATALOG" --db "$TMP/blobkey.db" query --format json "SELECT key, int FROM kv WHERE typeof(key) = 'blob'"
    python3 - "$TMP/out" <<'PY' && ok || fail "json of a blob key: $(cat "$TMP/out")"
import json, sys
assert json.load(open(sys.argv[1])) == [{"key": {"hex": "626164ff6b6579"}, "int": 7}]
PY
fi
# line output, like sqlite3's .mode line
expect_status 0 "$CATALOG" --db "$DB" query --format line "SELECT 1 AS a, 'x' AS long_name UNION ALL SELECT 2, NULL"
[ "$(cat "$TMP/out")" = "        a = 1
long_name = x

        a = 2
long_name = " ] && ok || fail "line output: $(cat "$TMP/out")"
# SQL from standard input: '-', or no SQL when standard input is not a terminal
echo "SELECT 40 + 2 AS answer" > "$TMP/q.sql"
expect_status 0 "$CATALOG" --db "$DB" query --format csv - < "$TMP/q.sql"
[ "$(tr -d '\r' < "$TMP/out")" = "answer
42" ] && ok || fail "query -: $(cat "$TMP/out")"
"$CATALOG" --db "$DB" query --format csv < "$TMP/q.sql" > "$TMP/out" 2> "$TMP/err" && ok || fail "query from a pipe: $(cat "$TMP/err")"
[ "$(tr -d '\r' < "$TMP/out")" = "answer
42" ] && ok || fail "query from stdin: $(cat "$TMP/out")"
# write errors on standard output are reported
if [ -w /dev/full ]; then
    "$CATALOG" --db "$DB" query "SELECT 1" > /dev/full 2> "$TMP/err"
    [ $? -eq 1 ] && grep -q "^gguf-catalog: standard output: No space left on device$" "$TMP/err" && ok ||
        fail "query > /dev/full: $(cat "$TMP/err")"
    "$CATALOG" --db "$DB" query "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 200000) SELECT x FROM c" > /dev/full 2> "$TMP/err"
    [ $? -eq 1 ] && grep -q "standard output: No space left on device" "$TMP/err" && ok ||
        fail "a long query > /dev/full: $(cat "$TMP/err")"
    "$CATALOG" --db "$DB" schema > /dev/full 2> "$TMP/err"
    [ $? -eq 1 ] && grep -q "standard output: No space left on device" "$TMP/err" && ok ||
        fail "schema > /dev/full: $(cat "$TMP/err")"
fi
# schema: every table and the models view, with their columns
expect_status 0 "$CATALOG" --db "$DB" schema
for t in "files (table)" "kv (table)" "tensors (table)" "errors (table)" "runs (table)" "file_types (table)" "models (view)"; do
    grep -q "^$t" "$TMP/out" && ok || fail "schema lacks $t: $(cat "$TMP/out")"
done
grep -q "^  changed_run  *INTEGER$" "$TMP/out" && ok || fail "schema: files.changed_run"
grep -q "^  context_length" "$TMP/out" && ok || fail "schema: models.context_length"
grep -q "^  missing_bytes  *INTEGER$" "$TMP/out" && ok || fail "schema: files.missing_bytes"
grep -q "^  partial$" "$TMP/out" && ok || fail "schema: models.partial: $(grep -A40 '^models' "$TMP/out")"
grep -q "^models (view): one row per model: a file, or a split set as one row" "$TMP/out" && ok || fail "schema: what a models row is: $(grep models "$TMP/out")"
grep -q ' $' "$TMP/out" && fail "schema lines end in spaces" || ok
# reading PRAGMAs, also as table-valued functions
expect_status 0 "$CATALOG" --db "$DB" query --format csv "SELECT name FROM pragma_table_info('models') WHERE name = 'quant'"
[ "$(tr -d '\r' < "$TMP/out")" = "name
quant" ] && ok || fail "pragma_table_info: $(cat "$TMP/out") $(cat "$TMP/err")"
expect_status 0 "$CATALOG" --db "$DB" query "SELECT * FROM pragma_index_list('kv')"
expect_status 0 "$CATALOG" --db "$DB" query "PRAGMA table_info(files)"
expect_status 0 "$CATALOG" --db "$DB" query "SELECT value FROM json_each('[1,2]')"

# ---- queries cannot reach outside the catalog, nor run without end ----
for sql in "SELECT fts3_tokenizer('simple')" "SELECT fts3_tokenizer('simple', x'4141414141414141')" \
    "SELECT load_extension('libm')"; do
    expect_status 1 "$CATALOG" --db "$DB" query "$sql"
    grep -q "refused: function" "$TMP/err" && ok || fail "$sql: $(cat "$TMP/err") $(cat "$TMP/out")"
done
for sql in "PRAGMA query_only = 0" "PRAGMA writable_schema = 1" "PRAGMA temp_store = MEMORY" \
    "PRAGMA query_only = 0; DELETE FROM kv" "PRAGMA journal_mode = DELETE" "PRAGMA journal_mode = OFF"; do
    expect_status 1 "$CATALOG" --db "$DB" query "$sql"
    grep -q "refused: PRAGMA" "$TMP/err" && ok || fail "$sql: $(cat "$TMP/err")"
done
forever="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
expect_status 1 timeout 60 "$CATALOG" --db "$DB" query --timeout 0.5 "$forever"
grep -q "query: stopped at the time limit of 0.5 s" "$TMP/err" && ok || fail "--timeout: $(cat "$TMP/err")"
grep -q -- "--timeout" "$TMP/err" && ok || fail "--timeout not named: $(cat "$TMP/err")"
# no value passes the length limit: printf() stops short of it (NULL), replace() is refused
expect_status 0 timeout 200 "$CATALOG" --db "$DB" query --timeout 0 --format csv "SELECT instr(printf('%.*c', 20000000, 'a'), 'b') IS NULL AS n"
[ "$(tail -1 "$TMP/out" | tr -d '\r')" = 1 ] && ok || fail "printf() past the length limit: $(cat "$TMP/out")"
expect_status 1 timeout 200 "$CATALOG" --db "$DB" query --timeout 0 "SELECT length(replace(printf('%.*c', 8000000, 'a'), 'a', 'aaa'))"
grep -q "stopped at a value longer than 16 MiB, the length limit" "$TMP/err" && ok || fail "length limit: $(cat "$TMP/err")"
# and one within the limit (instr() of two long strings, hours in one step) ends at its deadline
stuck="SELECT instr(printf('%.*c', 16000000, 'a'), printf('%.*c', 8000000, 'a') || 'b')"
expect_status 1 timeout 100 "$CATALOG" --db "$DB" query --timeout 1 "$stuck"
grep -q "query: stopped at the time limit of 1 s" "$TMP/err" && ok || fail "--timeout inside one step: $(cat "$TMP/err")"
# a sort of an endless recursion: memory grows until the limit
sorted="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c ORDER BY x DESC"
expect_status 1 timeout 60 "$CATALOG" --db "$DB" query --max-memory 32M "$sorted"
grep -q "query: stopped at the memory limit of 32 MiB" "$TMP/err" && ok || fail "--max-memory: $(cat "$TMP/err")"
expect_status 1 timeout 60 "$CATALOG" --db "$DB" query --max-memory 8M "SELECT length(randomblob(12000000))"
grep -q "memory limit of 8 MiB" "$TMP/err" && ok || fail "--max-memory, one value: $(cat "$TMP/err")"
expect_status 2 "$CATALOG" --db "$DB" query --timeout x "SELECT 1"
expect_status 2 "$CATALOG" --db "$DB" query --max-memory 12Q "SELECT 1"

# ---- queries cannot change the catalog ----
before=$(q "SELECT count(*) || '/' || (SELECT count(*) FROM kv) FROM files")
for sql in "DELETE FROM kv" "DROP TABLE files" "INSERT INTO errors (path, code, message, indexed_at) VALUES ('x', 1, 'x', 1)" \
    "UPDATE files SET size = 0" "PRAGMA user_version = 9" "ATTACH '$TMP/x.db' AS x" "VACUUM INTO '$TMP/v.db'" \
    "CREATE TABLE t (x)" "SELECT 1; DELETE FROM kv"; do
    expect_status 1 "$CATALOG" --db "$DB" query "$sql"
    grep -q "cannot change the catalog" "$TMP/err" && ok || fail "$sql: $(cat "$TMP/err")"
done
[ ! -e "$TMP/v.db" ] && [ ! -e "$TMP/x.db" ] && ok || fail "a query wrote a file"
[ "$(q "SELECT count(*) || '/' || (SELECT count(*) FROM kv) FROM files")" = "$before" ] && ok || fail "a query changed the catalog"
expect_status 1 "$CATALOG" --db "$DB" query "SELEKT 1"
grep -q "syntax error" "$TMP/err" && ok || fail "syntax error message: $(cat "$TMP/err")"

# ---- verify: a changed byte inside a tensor is reported with the tensor's name ----
expect_status 0 "$CATALOG" --db "$DB" index --crc "$TMP/m"
expect_status 0 "$CATALOG" --db "$DB" verify
grep -q " 0 missing, 0 unreadable, 0 changed, 0 corrupt" "$TMP/out" && ok || fail "clean verify: $(cat "$TMP/out")"
f="$TMP/m/sub/copy.gguf"
name=$(q "SELECT t.name FROM tensors t JOIN files f ON f.id = t.file WHERE f.path = '$f' AND t.nbytes > 0 ORDER BY t.position DESC LIMIT 1")
off=$(q "SELECT f.data_offset + t.offset + t.nbytes / 2 FROM tensors t JOIN files f ON f.id = t.file WHERE f.path = '$f' AND t.name = '$name'")
[ -n "$name" ] && [ -n "$off" ] && ok || fail "no tensor to damage"
# flip one byte, and put the mtime back: bit rot
touch -r "$f" "$TMP/stamp"
old=$(od -An -tu1 -j "$off" -N1 "$f" | tr -d ' ')
if [ "$old" = 0 ]; then new='\001'; else new='\000'; fi
printf "$new" | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
touch -r "$TMP/stamp" "$f"
expect_status 1 "$CATALOG" --db "$DB" verify
grep -q "^$f: corrupt: tensor '$name': crc32 is 0x" "$TMP/out" && ok || fail "verify does not name tensor $name: $(cat "$TMP/out")"
grep -q " 1 corrupt$" "$TMP/out" && ok || fail "verify summary: $(cat "$TMP/out")"
expect_status 0 "$CATALOG" --db "$DB" verify "$TMP/m/le_v3_two_tensors.gguf"
expect_status 1 "$CATALOG" --db "$DB" verify "$TMP/elsewhere"
grep -q "no catalogued file" "$TMP/err" && ok || fail "verify of an unknown path: $(cat "$TMP/err")"
# an edit that moves the mtime: changed, still naming the tensor
touch -d '2001-01-01' "$f"
expect_status 1 "$CATALOG" --db "$DB" verify "$TMP/m/sub"
grep -q "^$f: changed: modified since it was indexed" "$TMP/out" && ok || fail "changed: $(cat "$TMP/out")"
grep -q "^$f: changed: tensor '$name'" "$TMP/out" && ok || fail "changed, tensor: $(cat "$TMP/out")"
rm "$TMP/m/gaps_and_trailer.gguf"
expect_status 1 "$CATALOG" --db "$DB" verify
grep -q "gaps_and_trailer.gguf: missing" "$TMP/out" && ok || fail "missing: $(cat "$TMP/out")"

# ---- FIFOs are never opened: a hang fails these (timeout) ----
mkfifo "$TMP/fifo.gguf" "$TMP/m/sub/pipe.gguf" 2>/dev/null
if [ -p "$TMP/fifo.gguf" ]; then
    expect_status 0 timeout 20 "$CATALOG" --db "$DB" index "$TMP/m/sub"
    grep -q "1 link or special file skipped" "$TMP/out" && ok || fail "a FIFO in a folder: $(cat "$TMP/out")"
    expect_status 1 timeout 20 "$CATALOG" --db "$DB" index "$TMP/fifo.gguf"
    grep -q "not a regular file or folder" "$TMP/err" && ok || fail "a FIFO named: $(cat "$TMP/err")"
    # a catalogued file replaced by a FIFO
    mv "$TMP/m/v1_one_tensor.gguf" "$TMP/v1.keep"
    mkfifo "$TMP/m/v1_one_tensor.gguf"
    expect_status 1 timeout 20 "$CATALOG" --db "$DB" verify "$TMP/m/v1_one_tensor.gguf"
    grep -q "v1_one_tensor.gguf: changed: a FIFO now, not a regular file" "$TMP/out" && ok ||
        fail "verify of a FIFO: $(cat "$TMP/out") $(cat "$TMP/err")"
    rm "$TMP/m/v1_one_tensor.gguf"
    mv "$TMP/v1.keep" "$TMP/m/v1_one_tensor.gguf"
    # a FIFO where a journal would be
    mkfifo "$TMP/m/.le_v3_two_tensors.gguf.gguf-journal"
    expect_status 0 timeout 20 "$CATALOG" --db "$DB" index "$TMP/m/le_v3_two_tensors.gguf"
    [ "$(q "SELECT journal FROM files WHERE path = '$TMP/m/le_v3_two_tensors.gguf'")" = refused ] && ok ||
        fail "a FIFO journal: $(q "SELECT journal FROM files WHERE path LIKE '%le_v3_two%'")"
    [ -p "$TMP/m/.le_v3_two_tensors.gguf.gguf-journal" ] && ok || fail "index touched the FIFO journal"
    rm "$TMP/m/.le_v3_two_tensors.gguf.gguf-journal" "$TMP/fifo.gguf" "$TMP/m/sub/pipe.gguf"
    expect_status 0 "$CATALOG" --db "$DB" index "$TMP/m/le_v3_two_tensors.gguf"
    [ "$(q "SELECT coalesce(journal, 'none') FROM files WHERE path = '$TMP/m/le_v3_two_tensors.gguf'")" = none ] && ok ||
        fail "the journal column stayed"
    # a catalog that is a FIFO
    mkfifo "$TMP/fifo.db"
    expect_status 1 timeout 20 "$CATALOG" --db "$TMP/fifo.db" query "SELECT 1"
    grep -q "a FIFO, not a regular file" "$TMP/err" && ok || fail "a FIFO catalog: $(cat "$TMP/err")"
    rm "$TMP/fifo.db"
fi

# ---- a Hugging Face cache: snapshots/REV/FILE are links to ../../blobs/SHA ----
hf="$TMP/hf/models--org--name"
mkdir -p "$hf/blobs" "$hf/snapshots/0123abc"
cp "$GOLDEN/hand/le_v3_two_tensors.gguf" "$hf/blobs/5f3e0c2a9d"
ln -s ../../blobs/5f3e0c2a9d "$hf/snapshots/0123abc/model-Q4_K_M.gguf"
expect_status 0 "$CATALOG" --db "$TMP/hf.db" index "$TMP/hf"
grep -q "^0 files: .*, 1 link or special file skipped (--follow-symlinks follows links)$" "$TMP/out" && ok || fail "a link skipped silently: $(cat "$TMP/out")"
expect_status 0 "$CATALOG" --db "$TMP/hf.db" index --follow-symlinks "$TMP/hf"
grep -q "^1 file: 1 indexed, 0 unchanged, 0 refused (in the errors table)$" "$TMP/out" && ok || fail "a linked cache: $(cat "$TMP/out")"
[ "$("$CATALOG" --db "$TMP/hf.db" query --format csv "SELECT path FROM models" | tail -1 | tr -d '\r')" = "$hf/snapshots/0123abc/model-Q4_K_M.gguf" ] && ok || fail "a linked cache: the model is not named by its link"

# ---- prune ----
rm "$TMP/m/junk.gguf"
expect_status 0 "$CATALOG" --db "$DB" prune
grep -q "^removed $TMP/m/gaps_and_trailer.gguf$" "$TMP/out" && ok || fail "prune: $(cat "$TMP/out")"
grep -q "^2 files pruned$" "$TMP/out" && ok || fail "prune count: $(cat "$TMP/out")"
# counts of one in the singular
expect_status 0 "$CATALOG" --db "$TMP/one.db" index "$GOLDEN/hand/le_v3_two_tensors.gguf"
grep -q "^1 file: 1 indexed" "$TMP/out" && ok || fail "index of one file: $(cat "$TMP/out")"
cp "$GOLDEN/hand/le_v3_two_tensors.gguf" "$TMP/gone.gguf"
expect_status 0 "$CATALOG" --db "$TMP/one.db" index "$TMP/gone.gguf"
rm "$TMP/gone.gguf"
expect_status 0 "$CATALOG" --db "$TMP/one.db" prune
grep -q "^1 file pruned$" "$TMP/out" && ok || fail "prune of one file: $(cat "$TMP/out")"
[ "$(q "SELECT removed FROM runs WHERE kind = 'prune' ORDER BY id DESC LIMIT 1")" = 2 ] && ok || fail "prune run not recorded"
[ "$(q "SELECT count(*) FROM errors")" = 0 ] && ok || fail "prune left the error row"

# ---- concurrent indexers on overlapping folders ----
mkdir -p "$TMP/p/a" "$TMP/p/b/c"
i=0
for n in $(seq 1 60); do
    for g in "$GOLDEN"/hand/*.gguf; do
        i=$((i + 1))
        case $((i % 3)) in 0) d=a ;; 1) d=b ;; *) d=b/c ;; esac
        ln "$g" "$TMP/p/$d/f$i.gguf" 2>/dev/null || cp "$g" "$TMP/p/$d/f$i.gguf"
    done
done
printf 'GGUF' > "$TMP/p/b/broken.gguf"
PDB="$TMP/p.db"
"$CATALOG" --db "$PDB" index -q --force "$TMP/p" > "$TMP/o1" 2>&1 & p1=$!
"$CATALOG" --db "$PDB" index -q --crc "$TMP/p/b" "$TMP/p/a" > "$TMP/o2" 2>&1 & p2=$!
"$CATALOG" --db "$PDB" index -q --force "$TMP/p/b/c" "$TMP/p" > "$TMP/o3" 2>&1 & p3=$!
"$CATALOG" --db "$PDB" index -q "$TMP/p/a" > "$TMP/o4" 2>&1 & p4=$!
for p in $p1 $p2 $p3 $p4; do
    wait $p && ok || fail "concurrent index $p failed: $(cat "$TMP"/o?)"
done
DB=$PDB
[ "$(q "PRAGMA integrity_check")" = ok ] && ok || fail "integrity_check"
[ "$(q "SELECT count(*) FROM files")" = "$i" ] && ok || fail "concurrent: $(q "SELECT count(*) FROM files") files, want $i"
[ "$(q "SELECT count(*) FROM errors")" = 1 ] && ok || fail "concurrent: errors"
[ "$(q "SELECT count(*) FROM files f WHERE n_kv != (SELECT count(*) FROM kv WHERE kv.file = f.id) OR n_tensors != (SELECT count(*) FROM tensors t WHERE t.file = f.id)")" = 0 ] && ok || fail "concurrent: rows do not match their files"
[ "$(q "SELECT (SELECT count(*) FROM kv WHERE file NOT IN (SELECT id FROM files)) + (SELECT count(*) FROM tensors WHERE file NOT IN (SELECT id FROM files))")" = 0 ] && ok || fail "concurrent: orphan rows"

# ---- the reading options reach the reader, and are kept per file: --lenient takes a file
# with a duplicate key that is refused without it ----
DB="$TMP/lenient.db"
expect_status 0 "$CATALOG" --db "$DB" index -q "$GOLDEN/refuse/dup_key.gguf"
[ "$(q "SELECT count(*) FROM errors WHERE message LIKE '%duplicates key%'")" = 1 ] && ok || fail "dup_key.gguf without --lenient: $(q "SELECT message FROM errors")"
DB="$TMP/lenient2.db"
expect_status 0 "$CATALOG" --db "$DB" index -q --lenient "$GOLDEN/refuse/dup_key.gguf"
[ "$(q "SELECT count(*) || ' ' || (SELECT count(*) FROM errors) FROM files WHERE open_flags = 1")" = "1 0" ] && ok ||
    fail "index --lenient: $(q "SELECT path, open_flags FROM files") $(q "SELECT message FROM errors")"

# ---- split sets of a real model (gguf-edit split, llama-gguf-split): one model each, with the
# totals of the model they were split from; verify checks every shard; a missing shard and a
# shard replaced after indexing are the set's error, naming the shard ----
MODEL_FILE="$CORPUS/models/tiny-llama-e256-Q4_K_M.gguf"
LLAMA_SPLIT=${LLAMA_GGUF_SPLIT:-$(dirname "$ORACLE")/llama-gguf-split}
if have_corpus; then
    mkdir -p "$TMP/sets"
    "$EDIT" split "$MODEL_FILE" "$TMP/sets/edit" --max-tensors 8 >/dev/null
    sets="edit-00001-of-00003.gguf"
    if [ -x "$LLAMA_SPLIT" ]; then
        "$LLAMA_SPLIT" --split --split-max-tensors 5 "$MODEL_FILE" "$TMP/sets/llama" >/dev/null 2>&1
        sets="$sets llama-00001-of-00005.gguf"
    else
        skip "split sets made by llama-gguf-split" "no llama-gguf-split beside the oracle"
    fi
    DB="$TMP/whole.db"
    expect_status 0 "$CATALOG" --db "$DB" index -q "$MODEL_FILE"
    whole=$(q "SELECT architecture || ' ' || file_type || ' ' || quant || ' ' || n_params || ' ' || n_tensors || ' ' || tensor_bytes || ' ' || context_length FROM models")
    DB="$TMP/sets.db"
    expect_status 0 "$CATALOG" --db "$DB" index "$TMP/sets"
    n_shards=$(ls "$TMP/sets" | wc -l)
    grep -q "^$n_shards files: $n_shards indexed" "$TMP/out" && ok || fail "split sets: $(cat "$TMP/out")"
    [ "$(q "SELECT count(*) FROM models")" = "$(echo $sets | wc -w)" ] && ok || fail "split sets: one model each: $(q "SELECT path FROM models")"
    [ "$(q "SELECT count(*) FROM files")" = "$n_shards" ] && ok || fail "split sets: a files row per shard"
    for first in $sets; do
        prefix=${first%-00001-of-*}
        got=$(q "SELECT architecture || ' ' || file_type || ' ' || quant || ' ' || n_params || ' ' || n_tensors || ' ' || tensor_bytes || ' ' || context_length FROM models WHERE path = '$TMP/sets/$first'")
        [ "$got" = "$whole" ] && ok || fail "$first: '$got', the model it was split from: '$whole'"
        bytes=$(cat "$TMP/sets/$prefix"-* | wc -c)
        count=$(ls "$TMP/sets/$prefix"-* | wc -l)
        [ "$(q "SELECT bytes || ' ' || shards || ' ' || split_count || ' ' || split_complete FROM models WHERE path = '$TMP/sets/$first'")" = "$bytes $count $count 1" ] && ok ||
            fail "$first: $(q "SELECT bytes, shards, split_count, split_complete FROM models WHERE path = '$TMP/sets/$first'"), want $bytes bytes in $count shards"
    done
    # verify with crc32s: a byte of the second shard rots, and is found there
    expect_status 0 "$CATALOG" --db "$DB" index -q --crc "$TMP/sets"
    expect_status 0 "$CATALOG" --db "$DB" verify "$TMP/sets/edit-00001-of-00003.gguf"
    grep -q "^3 files verified (3 with tensor crc32s" "$TMP/out" && ok || fail "verify of a set by its first shard: $(cat "$TMP/out")"
    shard2="$TMP/sets/edit-00002-of-00003.gguf"
    t2=$("$EDIT" show --json --one-file "$shard2" | grep -m1 '^{"name":' | sed 's/^{"name":"\([^"]*\)".*/\1/')
    off=$("$EDIT" show --json --one-file "$shard2" | sed -n 's/.*"data_offset":\([0-9]*\).*/\1/p')
    mtime=$(stat -c %y "$shard2")
    printf '\377' | dd of="$shard2" bs=1 seek=$((off + 7)) conv=notrunc status=none
    touch -d "$mtime" "$shard2"
    expect_status 1 "$CATALOG" --db "$DB" verify "$TMP/sets/edit-00001-of-00003.gguf"
    grep -q "^$shard2: corrupt: tensor '$t2': crc32 is" "$TMP/out" && ok || fail "verify of a rotten shard: $(cat "$TMP/out")"
    # a missing shard: the set's error names it; verify says it is missing
    mv "$shard2" "$TMP/shard2.gguf"
    expect_status 0 "$CATALOG" --db "$DB" index "$TMP/sets"
    grep -q "1 split set broken" "$TMP/out" && grep -q "^gguf-catalog: $TMP/sets/edit-00001-of-00003.gguf: split set of 3 shards: 1 missing: edit-00002-of-00003.gguf" "$TMP/err" && ok ||
        fail "a missing shard: $(cat "$TMP/out" "$TMP/err")"
    [ "$(q "SELECT scope || ' ' || shard FROM errors WHERE path = '$TMP/sets/edit-00001-of-00003.gguf'")" = "set 2" ] && ok || fail "a missing shard's row: $(q "SELECT * FROM errors")"
    [ "$(q "SELECT split_complete || ' ' || shards FROM models WHERE path = '$TMP/sets/edit-00001-of-00003.gguf'")" = "0 2" ] && ok || fail "a set with a missing shard"
    expect_status 1 "$CATALOG" --db "$DB" verify "$TMP/sets"
    grep -q "^$shard2: missing: shard 2 of 3 of its split set is missing" "$TMP/out" && ok || fail "verify of a missing shard: $(cat "$TMP/out")"
    # a shard replaced after indexing by another set's shard 2
    mv "$TMP/shard2.gguf" "$shard2"
    expect_status 0 "$CATALOG" --db "$DB" index -q "$TMP/sets"
    [ "$(q "SELECT count(*) FROM errors")" = 0 ] && ok || fail "the shard back: $(q "SELECT * FROM errors")"
    "$EDIT" split "$MODEL_FILE" "$TMP/other" --max-tensors 10 >/dev/null
    cp "$TMP/other-00002-of-00003.gguf" "$shard2"
    expect_status 1 "$CATALOG" --db "$DB" verify "$TMP/sets/edit-00001-of-00003.gguf"
    grep -q "^$shard2: changed: size " "$TMP/out" && ok || fail "verify of a replaced shard: $(cat "$TMP/out")"
    expect_status 0 "$CATALOG" --db "$DB" index "$TMP/sets"
    grep -q "1 indexed, $((n_shards - 1)) unchanged" "$TMP/out" && ok || fail "a replaced shard: $(cat "$TMP/out")"
    "$EDIT" show "$TMP/sets/edit-00001-of-00003.gguf" > /dev/null 2> "$TMP/show.err"
    msg=$(q "SELECT message FROM errors WHERE path = '$TMP/sets/edit-00001-of-00003.gguf' AND scope = 'set'")
    case "$msg" in
    "shard "*" of 3 (edit-0000"*"-of-00003.gguf): "*) ok ;;
    *) fail "a replaced shard's row: '$msg'" ;;
    esac
    # the library's own reading of the set agrees that it is broken, and why
    grep -qF "${msg#*: }" "$TMP/show.err" && ok || fail "gguf-edit show says: $(cat "$TMP/show.err"); the catalog: $msg"
else
    skip "split sets of a real model" "no ../shared/corpus"
fi

# ---- the corpus: every file recorded, counts as gguf-edit show sees them ----
if have_corpus; then
    DB="$TMP/corpus.db"
    expect_status 0 "$CATALOG" --db "$DB" index -q "$CORPUS"
    n=$(find "$CORPUS" -name '*.gguf' | wc -l)
    [ "$(q "SELECT (SELECT count(*) FROM files) + (SELECT count(*) FROM errors)")" = "$n" ] && ok || fail "corpus: not every file recorded"
    corpus=$(cd "$CORPUS" && pwd -P)
    for f in $(find "$corpus" -name '*.gguf' | sort); do
        # (show shows the header of a file cut inside its tensor data too, marked "partial":
        # index catalogues it as partial, with the bytes show says it lacks)
        if "$EDIT" show --json "$f" > "$TMP/show.json" 2> "$TMP/show.err"; then
            # show --json writes one key, and one tensor, per line
            want="$(grep -c '^{"key":' "$TMP/show.json") $(grep -c '^{"name":' "$TMP/show.json")"
            cut=$(sed -n 's/.*"partial":{"file_size":\([0-9]*\),"data_end":\([0-9]*\)}.*/\1 \2/p' "$TMP/show.json")
            [ -n "$cut" ] && want="$want $((${cut#* } - ${cut% *}))" || want="$want 0"
            got=$(q "SELECT (SELECT count(*) FROM kv WHERE kv.file = f.id) || ' ' || (SELECT count(*) FROM tensors t WHERE t.file = f.id) || ' ' || missing_bytes FROM files f WHERE path = '$f'")
            [ "$got" = "$want" ] && ok || fail "corpus $f: catalog has $got keys/tensors/missing bytes, show has $want"
        else
            msg=$(q "SELECT message FROM errors WHERE path = '$f'")
            [ -n "$msg" ] && grep -qF "$msg" "$TMP/show.err" && ok || fail "corpus $f: error row '$msg' is not the reader's: $(cat "$TMP/show.err")"
        fi
    done
    [ "$(q "SELECT architecture || ' ' || file_type || ' ' || quant FROM models WHERE path LIKE '%tiny-llama-e256-Q4_K_M.gguf'")" = "llama Q4_K_M Q4_K" ] && ok || fail "models view of the tiny llama"
else
    skip "the corpus: every file recorded" "no ../shared/corpus"
fi
# ---- arrays' elements are rows: the eos token's text, and which models have a token ----
if have_python; then
    for m in chat base; do
        python3 - "$TMP/tok-$m.gguf" "$m" <<'PY'
import struct, sys
def s(x):
    b = x.encode()
    return struct.pack('<Q', len(b)) + b
toks = ['<unk>', '<s>', '</s>', 'hello'] + (['<|im_start|>', '<|im_end|>'] if sys.argv[2] == 'chat' else [])
eos = len(toks) - 1 if sys.argv[2] == 'chat' else 2
kv = (s('general.architecture') + struct.pack('<I', 8) + s('llama') +
      s('tokenizer.ggml.tokens') + struct.pack('<IIQ', 9, 8, len(toks)) + b''.join(s(t) for t in toks) +
      s('tokenizer.ggml.scores') + struct.pack('<IIQ', 9, 6, len(toks)) + struct.pack('<%df' % len(toks), *[0.5] * len(toks)) +
      s('tokenizer.ggml.eos_token_id') + struct.pack('<II', 4, eos))
h = b'GGUF' + struct.pack('<IQQ', 3, 0, 4) + kv
open(sys.argv[1], 'wb').write(h + bytes(-len(h) % 32))
PY
    done
    expect_status 0 "$CATALOG" --db "$TMP/tok.db" index "$TMP/tok-chat.gguf" "$TMP/tok-base.gguf"
    eos_sql="SELECT a.text FROM kv e JOIN kv t ON t.file = e.file AND t.key = 'tokenizer.ggml.tokens' JOIN array_items a ON a.file = t.file AND a.position = t.position AND a.idx = e.int JOIN files f ON f.id = e.file WHERE e.key = 'tokenizer.ggml.eos_token_id' AND f.path LIKE '%/tok-chat.gguf'"
    [ "$("$CATALOG" --db "$TMP/tok.db" query --format csv "$eos_sql" | tail -1 | tr -d '\r')" = "<|im_end|>" ] && ok || fail "the eos token's text: $(cat "$TMP/err")"
    has_sql="SELECT m.path FROM models m WHERE EXISTS (SELECT 1 FROM array_items a WHERE a.file = m.file AND a.key = 'tokenizer.ggml.tokens' AND a.text = '<|im_end|>')"
    expect_status 0 "$CATALOG" --db "$TMP/tok.db" query --format csv "$has_sql"
    [ "$(tr -d '\r' < "$TMP/out")" = "path
$TMP/tok-chat.gguf" ] && ok || fail "which models have <|im_end|>: $(cat "$TMP/out")"
    [ "$(q_in "$TMP/tok.db" "SELECT count(*) || ' ' || sum(real) FROM array_items WHERE key = 'tokenizer.ggml.scores'")" = "10 5.0" ] && ok || fail "float elements"
    # re-reading a file replaces its elements; pruning it drops them
    expect_status 0 "$CATALOG" --db "$TMP/tok.db" index --force "$TMP/tok-chat.gguf"
    [ "$(q_in "$TMP/tok.db" "SELECT count(*) FROM array_items")" = 20 ] && ok || fail "elements after a re-read"
    rm "$TMP/tok-base.gguf"
    expect_status 0 "$CATALOG" --db "$TMP/tok.db" prune
    [ "$(q_in "$TMP/tok.db" "SELECT count(*) FROM array_items")" = 12 ] && ok || fail "elements after a prune"
else
    skip "arrays' elements" "no python3"
fi

# ---- the reading options reach the reader: --lenient catalogues a file with a duplicate key ----
if have_python; then
    python3 - "$TMP/dup.gguf" <<'PY'
import struct, sys
def s(x):
    b = x.encode()
    return struct.pack('<Q', len(b)) + b
kv = b''.join(s(k) + struct.pack('<I', 8) + s(v) for k, v in
              [('general.architecture', 'llama'), ('general.name', 'a'), ('general.name', 'b')])
h = b'GGUF' + struct.pack('<IQQ', 3, 0, 3) + kv
open(sys.argv[1], 'wb').write(h + bytes(-len(h) % 32))
PY
    expect_status 0 "$CATALOG" --db "$TMP/lenient.db" index "$TMP/dup.gguf"
    grep -q "0 indexed, 0 unchanged, 1 refused" "$TMP/out" && ok || fail "a duplicate key indexed without --lenient: $(cat "$TMP/out")"
    expect_status 0 "$CATALOG" --db "$TMP/lenient2.db" index --lenient "$TMP/dup.gguf"
    grep -q "1 indexed" "$TMP/out" && ok || fail "index --lenient: $(cat "$TMP/out") $(cat "$TMP/err")"
else
    skip "index --lenient" "no python3"
fi
# ---- a download cut short: a file cut inside its tensor data is catalogued as partial (its
# header, with the bytes it lacks, as ggml's reader lays the file out: the oracle's JSON), a file
# cut inside its header is an errors row ----
REAL="$CORPUS/models/tiny-llama-e256-Q4_K_M.gguf"
if [ -f "$REAL" ] && have_python; then
    # the end of the tensor data, by ggml: data_offset + the end of the tensor that ends last
    ends=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["data_offset"], d["data_offset"] + max(t["offset"] + t["size"] for t in d["tensors"]))' "$REAL.ggml.json")
    data_offset=${ends% *} data_end=${ends#* }
    [ "$data_end" -eq "$(wc -c <"$REAL")" ] && ok || fail "the model has bytes past its tensors"
    mkdir -p "$TMP/cut"
    cuts="100 $((data_offset / 2)) $data_offset $((data_offset + 4096)) $((data_end / 2)) $((data_end - 1))"
    for n in $cuts; do head -c "$n" "$REAL" >"$TMP/cut/at-$n.gguf"; done
    cp "$REAL" "$TMP/cut/whole.gguf"
    expect_status 0 "$CATALOG" --db "$TMP/cut.db" index "$TMP/cut"
    grep -q "7 files: 5 indexed (4 partial: cut short), 0 unchanged, 2 refused" "$TMP/out" && ok \
        || fail "index of cut files: $(cat "$TMP/out")"
    for n in $cuts; do
        f="$TMP/cut/at-$n.gguf"
        if [ "$n" -lt "$data_offset" ]; then
            [ "$(q_in "$TMP/cut.db" "SELECT count(*) FROM errors WHERE path = '$f'")" = 1 ] \
                && [ "$(q_in "$TMP/cut.db" "SELECT count(*) FROM files WHERE path = '$f'")" = 0 ] \
                && ok || fail "a file cut inside its header ($n bytes) is not an errors row"
        else
            got=$(q_in "$TMP/cut.db" "SELECT partial || '|' || missing_bytes || '|' || n_tensors || '|' || architecture FROM models WHERE path = '$f'")
            [ "$got" = "1|$((data_end - n))|21|llama" ] && ok \
                || fail "cut at $n of $data_end bytes: models says '$got', not 1|$((data_end - n))|21|llama"
            grep -q "at-$n.gguf: cut short: $((data_end - n)) of its $data_end bytes are missing" "$TMP/err" \
                && ok || fail "no note for the cut at $n: $(cat "$TMP/err")"
        fi
    done
    [ "$(q_in "$TMP/cut.db" "SELECT partial || '|' || missing_bytes FROM models WHERE path = '$TMP/cut/whole.gguf'")" = "0|0" ] \
        && ok || fail "the whole file is partial"
    # the download completes: read again (changed), whole; the files still cut are unchanged
    cp "$REAL" "$TMP/cut/at-$((data_end - 1)).gguf"
    expect_status 0 "$CATALOG" --db "$TMP/cut.db" index "$TMP/cut"
    grep -q "1 indexed, 6 unchanged" "$TMP/out" && ok || fail "index after the download: $(cat "$TMP/out")"
    [ "$(q_in "$TMP/cut.db" "SELECT count(*) FROM models WHERE partial")" = 3 ] && ok \
        || fail "partial models after the download: $(q_in "$TMP/cut.db" "SELECT path FROM models WHERE partial")"
else
    skip "files cut short" "no corpus model or no python3"
fi
finish
