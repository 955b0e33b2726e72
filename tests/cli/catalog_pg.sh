#!/bin/bash
# gguf-catalog on PostgreSQL (a real server: tests/support/pg_lib.sh), beside SQLite.
#  - the corpus indexed into SQLite and into PostgreSQL gives the same rows: every column of
#    files, models, kv, tensors, errors and runs, array_items by file and key, and the
#    catalog tests' own queries, byte for byte in csv;
#  - user SQL runs as the reader role, and PostgreSQL itself refuses writes, COPY ... TO
#    PROGRAM, pg_read_file, dblink, SET ROLE and a query past --timeout, with clear messages;
#  - four indexers at once over overlapping folders and URL lists (nginx or lighttpd:
#    tests/support/http_lib.sh), two of them stopped (SIGKILL) in a file drawn by a seed
#    (GGUF_TEST_PAUSE: they wait there on a FIFO) and started again: every file is stored
#    exactly once, every run is recorded, and the rows are those of one SQLite index;
#  - a file another machine stored is unchanged for this one when its size and mtime are
#    (device and inode numbers are each machine's own);
#  - export copies a SQLite catalog into PostgreSQL and back: row counts and a checksum of
#    every table match.
# Skips (77) without the corpus, libpq in the build, or a PostgreSQL server to start.
. "$(dirname "$0")/../support/cli_lib.sh"

CATALOG="$CATALOG_TOOL"
[ -x "$CATALOG" ] || skip_all "tools/gguf-catalog not built (no SQLite)"
have_corpus || { echo "SKIP: ../shared/corpus is absent"; exit 77; }
# URLs for the indexers, when this build reads them and an HTTP server is installed
with_urls=""
if ! "$EDIT" show http://127.0.0.1:9/none.gguf 2>&1 | grep -q "built without HTTP support" &&
    { command -v nginx || command -v lighttpd || [ -x /usr/sbin/nginx ] ||
        [ -x /usr/sbin/lighttpd ]; } >/dev/null; then
    . "$(dirname "$0")/../support/http_lib.sh"
    with_urls=1
fi
. "$(dirname "$0")/../support/pg_lib.sh"

# rows DB SQL: the query's csv
rows() { "$CATALOG" --db "$1" query --format csv "$2"; }

# ---- a password in the URL never reaches a message (a port nothing listens on) ----
for u in "postgresql://alice:SECRETPW@127.0.0.1:1/db" \
    "postgres://127.0.0.1:1/db?user=alice&password=SECRETPW&sslmode=disable"; do
    "$CATALOG" --db "$u" query "SELECT 1" >/dev/null 2>"$TMP/err"
    if grep -q "cannot connect" "$TMP/err" && grep -q '\*\*\*' "$TMP/err" &&
        ! grep -q SECRETPW "$TMP/err"; then
        ok "the password of $u is not shown"
    else
        fail "$u: $(cat "$TMP/err")"
    fi
done

# ---- libpq absent at run time: it is loaded by the first PostgreSQL catalog, so SQLite's and
# every other command work without it (root and unshare: each libpq the library would load is
# hidden under an empty file in a mount namespace of the command's own) ----
hide=""
if [ "$(id -u)" = 0 ] && unshare --mount true 2>/dev/null; then
    : >"$TMP/not-a-library.so"
    for so in libpq.so.5 libpq.so; do
        p=$(PATH="$PATH:/sbin:/usr/sbin" ldconfig -p | awk -v s="$so" '$1 == s { print $NF; exit }')
        [ -n "$p" ] && hide="$hide mount --bind '$TMP/not-a-library.so' '$(readlink -f "$p")' &&"
    done
fi
if [ -n "$hide" ]; then
    without_pq() { unshare --mount sh -c "$hide \"\$@\"" sh "$@"; }
    without_pq "$CATALOG" --db "$TMP/nopq.db" index -q "$CORPUS/v1v2" 2>"$TMP/err" && ok ||
        fail "a SQLite catalog without libpq: $(head -c 300 "$TMP/err")"
    pg_createdb nopq
    without_pq "$CATALOG" --db "$(pg_url nopq)" index -q "$CORPUS/v1v2" 2>"$TMP/err"
    st=$?
    [ $st -eq 1 ] && grep -q "libpq is not on this machine" "$TMP/err" && ok ||
        fail "a PostgreSQL catalog without libpq: status $st: $(head -c 300 "$TMP/err")"
else
    skip "libpq absent at run time" "needs root, unshare and ldconfig"
fi

# ---- the corpus in SQLite and in PostgreSQL: the same rows ----
pg_createdb same
PG=$(pg_url same)
LITE="$TMP/lite.db"
"$CATALOG" --db "$LITE" index -q "$CORPUS" 2>"$TMP/err" && ok || fail "index into SQLite: $(head -c 300 "$TMP/err")"
"$CATALOG" --db "$PG" index -q "$CORPUS" 2>"$TMP/err" && ok || fail "index into PostgreSQL: $(head -c 300 "$TMP/err")"
"$CATALOG" --db "$PG" index -q "$CORPUS" 2>"$TMP/err" && ok || fail "index into PostgreSQL again: $(head -c 300 "$TMP/err")"
"$CATALOG" --db "$LITE" index -q "$CORPUS" 2>/dev/null
n=$(rows "$PG" "SELECT unchanged FROM runs ORDER BY id DESC LIMIT 1" | tail -n 1 | tr -d "\r")
m=$(rows "$LITE" "SELECT unchanged FROM runs ORDER BY id DESC LIMIT 1" | tail -n 1 | tr -d "\r")
[ "$n" = "$m" ] && [ "$n" -gt 100 ] && ok || fail "a second index run: $n unchanged on PostgreSQL, $m on SQLite"

FILES="path, dev, ino, size, mtime_ns, version, endian, alignment, data_offset, n_kv, n_tensors,
 header_crc32, open_flags, has_crc, n_params, tensor_bytes, dominant_type, split_set, split_no,
 split_count, journal, model, etag, last_modified, missing_bytes, kv_bytes_token,
 kv_bytes_token_swa, swa_window, state_bytes"
MODELS="path, architecture, name, size_label, file_type, quant, context_length, embedding_length,
 block_count, n_params, bytes, tensor_bytes, n_tensors, split_no, split_count, shards,
 split_complete, missing_bytes, partial, bits_per_weight, kv_bytes_per_token,
 kv_bytes_per_token_swa, sliding_window, state_bytes_per_sequence"
# same_csv WHAT A B: the csv files A (SQLite's) and B (PostgreSQL's) are the same but for the
# lines of bytes PostgreSQL's text cannot hold: a string that is not UTF-8 (SQLite: a BLOB,
# X'..') or holds a NUL is stored with U+FFFD in their place, and both lines must say so
same_csv() {
    if [ -s "$2" ] && python3 - "$2" "$3" >"$TMP/diff" <<'PY'
import sys
a = open(sys.argv[1], 'rb').read().split(b'\n')
b = open(sys.argv[2], 'rb').read().split(b'\n')
bad = len(a) != len(b)
for x, y in zip(a, b):
    if x != y and not ((b"X'" in x or b'\0' in x) and '\ufffd'.encode() in y):
        print(x[:200], y[:200])
        bad = True
sys.exit(1 if bad else 0)
PY
    then
        ok "same rows: $1 ($(($(wc -l <"$2") - 1)))"
    else
        fail "rows differ: $1: $(head -c 600 "$TMP/diff") $(head -c 300 "$TMP/err.pg")"
    fi
}
# same_rows WHAT SQL: the same rows from $LITE and $PG
same_rows() {
    rows "$LITE" "$2" >"$TMP/lite.csv" 2>"$TMP/err.lite"
    rows "$PG" "$2" >"$TMP/pg.csv" 2>"$TMP/err.pg"
    same_csv "$1" "$TMP/lite.csv" "$TMP/pg.csv"
}
same_rows files "SELECT $FILES FROM files ORDER BY path"
same_rows models "SELECT $MODELS FROM models ORDER BY path"
same_rows kv "SELECT f.path, kv.position, kv.key, kv.type, kv.elem_type, kv.array_len, kv.int,
 kv.real, kv.text FROM kv JOIN files f ON f.id = kv.file ORDER BY f.path, kv.position"
same_rows tensors "SELECT f.path, t.position, t.name, t.type, t.type_id, t.n_dims, t.ne0, t.ne1,
 t.ne2, t.ne3, t.\"offset\", t.nbytes, t.crc32 FROM tensors t JOIN files f ON f.id = t.file
 ORDER BY f.path, t.position"
same_rows errors "SELECT path, scope, dev, ino, size, mtime_ns, code, error, \"offset\", message,
 journal, shard, etag, last_modified FROM errors ORDER BY path, scope"
same_rows runs "SELECT kind, paths, seen, indexed, unchanged, broken, skipped, walk_errors,
 removed, broken_sets FROM runs ORDER BY id"
same_rows array_items "SELECT f.path, a.position, a.key, count(*) AS n, min(a.idx) AS i0,
 max(a.idx) AS i1, min(a.int) AS s0, max(a.int) AS s1, count(a.real) AS nr, min(a.real) AS r0, max(a.real) AS r1,
 count(a.text) AS nt, min(a.text) AS t0, max(a.text) AS t1 FROM array_items a JOIN files f ON f.id = a.file GROUP BY f.path, a.position, a.key
 ORDER BY f.path, a.position"
same_rows "array_items, first rows" "SELECT a.file, a.position, a.idx, a.int, a.real, a.text
 FROM array_items a WHERE a.idx < 40 ORDER BY a.file, a.position, a.idx"
same_rows file_types "SELECT id, name FROM file_types ORDER BY id"
# the catalog tests' queries
same_rows "rows per file" "SELECT count(*) AS n FROM files f WHERE n_kv != (SELECT count(*) FROM kv
 WHERE kv.file = f.id) OR n_tensors != (SELECT count(*) FROM tensors t WHERE t.file = f.id)"
same_rows "models as text" "SELECT architecture || ' ' || file_type || ' ' || quant || ' ' ||
 n_params || ' ' || n_tensors || ' ' || tensor_bytes || ' ' || context_length AS m FROM models
 ORDER BY path"
same_rows "partial models" "SELECT path, partial, missing_bytes FROM models WHERE partial = 1
 ORDER BY path"
same_rows "eos tokens" "SELECT f.path, a.text FROM kv e JOIN kv t ON t.file = e.file AND
 t.key = 'tokenizer.ggml.tokens' JOIN array_items a ON a.file = t.file AND
 a.position = t.position AND a.idx = e.int JOIN files f ON f.id = e.file
 WHERE e.key = 'tokenizer.ggml.eos_token_id' ORDER BY f.path"
same_rows "quants" "SELECT quant, count(*) AS n, sum(bytes) AS bytes FROM models GROUP BY quant
 ORDER BY quant IS NULL, quant"
same_rows "errors by code" "SELECT code, error, count(*) AS n FROM errors GROUP BY code, error
 ORDER BY code"
same_rows "literals" "SELECT 1 AS a, 2.5 AS b, 'x,\"y\"' AS c, NULL AS d, 1e300 * 10 AS e,
 -0.1 AS f, 3.0 AS g"
for fmt in json line markdown box; do
    "$CATALOG" --db "$LITE" query --format $fmt "SELECT $MODELS FROM models ORDER BY path" >"$TMP/lite.$fmt" 2>&1
    "$CATALOG" --db "$PG" query --format $fmt "SELECT $MODELS FROM models ORDER BY path" >"$TMP/pg.$fmt" 2>&1
    cmp -s "$TMP/lite.$fmt" "$TMP/pg.$fmt" && ok || fail "query --format $fmt differs: $(diff "$TMP/lite.$fmt" "$TMP/pg.$fmt" | head -c 400)"
done

# verify, prune and schema on PostgreSQL say what they say on SQLite
for cmd in "verify $CORPUS/synth" prune schema; do
    "$CATALOG" --db "$LITE" $cmd >"$TMP/lite.out" 2>&1
    st_lite=$?
    "$CATALOG" --db "$PG" $cmd >"$TMP/pg.out" 2>&1
    st_pg=$?
    if [ "$cmd" = schema ]; then # the types are each database's own; PostgreSQL's
        # array_items is a view (of array_values, an array a row) with the table's columns
        sed -i 's/  *[A-Z][A-Z ]*$//' "$TMP/lite.out" "$TMP/pg.out"
        sed -i 's/^array_items (view)/array_items (table)/' "$TMP/pg.out"
    fi
    [ $st_lite = $st_pg ] && cmp -s "$TMP/lite.out" "$TMP/pg.out" && ok ||
        fail "$cmd: SQLite ($st_lite) and PostgreSQL ($st_pg) differ: $(diff "$TMP/lite.out" "$TMP/pg.out" | head -c 400)"
done

# ---- user SQL: the reader role, and what PostgreSQL refuses ----
before=$(rows "$PG" "SELECT count(*) AS n FROM files" | tail -n 1 | tr -d "\r")
# refused SQL PATTERN [OPTIONS]: the query fails, its message matching PATTERN
refused() {
    sql=$1 pattern=$2
    shift 2
    "$CATALOG" --db "$PG" query "$@" "$sql" >"$TMP/out" 2>"$TMP/err"
    st=$?
    if [ $st -eq 1 ] && grep -qE "$pattern" "$TMP/err"; then
        ok "refused: $(echo "$sql" | head -c 80)"
    else
        fail "not refused ($st): $sql: $(head -c 300 "$TMP/err")"
    fi
}
by_pg="query: refused by PostgreSQL:"
refused "DELETE FROM files" "$by_pg cannot execute DELETE in a read-only transaction"
refused "BEGIN READ WRITE; DELETE FROM kv" "$by_pg permission denied for table kv"
refused "SET default_transaction_read_only = off; UPDATE files SET size = 0" "$by_pg cannot execute UPDATE in a read-only transaction"
refused "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE; SELECT 1; INSERT INTO runs (kind, started_at) VALUES ('x', 0)" "$by_pg cannot execute INSERT in a read-only transaction"
refused "BEGIN READ WRITE; CREATE TABLE x (a int)" "$by_pg permission denied for schema public"
refused "BEGIN READ WRITE; DROP TABLE runs" "$by_pg must be owner of table runs"
refused "COPY (SELECT 1) TO PROGRAM 'touch $TMP/pwned'" "$by_pg .*COPY to or from an external program"
refused "COPY (SELECT 1) TO '$TMP/pwned'" "$by_pg .*COPY to a file"
refused "SELECT pg_read_file('/etc/passwd')" "$by_pg permission denied for function pg_read_file"
refused "SELECT pg_ls_dir('.')" "$by_pg permission denied for function pg_ls_dir"
refused "SELECT lo_import('/etc/passwd')" "$by_pg permission denied for function lo_import"
refused "SET ROLE postgres" "$by_pg permission denied to set role \"postgres\""
refused "SET SESSION AUTHORIZATION postgres" "$by_pg permission denied to set session authorization"
refused "BEGIN READ WRITE; ALTER ROLE gguf_catalog_reader SUPERUSER" "$by_pg must be superuser"
refused "BEGIN READ WRITE; GRANT INSERT ON runs TO gguf_catalog_reader; COMMIT; BEGIN READ WRITE;
 INSERT INTO runs (kind, started_at) VALUES ('x', 0)" "$by_pg permission denied for table runs"
refused "BEGIN READ WRITE; CREATE EXTENSION dblink" "$by_pg permission denied"
pg_sql same "CREATE EXTENSION IF NOT EXISTS dblink" >/dev/null 2>&1 && have_dblink=1 || have_dblink=""
if [ -n "$have_dblink" ]; then
    refused "SELECT * FROM dblink('host=$PGDIR dbname=same user=postgres', 'DELETE FROM files') AS t(x text)" \
        "query: password or GSSAPI delegated credentials required|query: password is required"
else
    refused "SELECT dblink('dbname=same', 'DELETE FROM files')" "query: function dblink\\(unknown, unknown\\) does not exist"
fi
refused "SELECT count(*) FROM generate_series(1, 100000000000)" "query: stopped at the time limit of 0.5 s" --timeout 0.5
refused "SELECT pg_sleep(600)" "query: stopped at the time limit of 1 s" --timeout 1
refused "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c" \
    "query: stopped at the time limit of 0.5 s" --timeout 0.5
after=$(rows "$PG" "SELECT count(*) AS n FROM files" | tail -n 1 | tr -d "\r")
[ "$before" = "$after" ] && [ ! -e "$TMP/pwned" ] && ok || fail "the attacks changed something: $before files, then $after"
# the limits reach the server
v=$("$CATALOG" --db "$PG" query --format csv --timeout 2.5 --max-memory 8M \
    "SELECT current_setting('statement_timeout') AS t, current_setting('work_mem') AS m,
     current_user AS u, current_setting('transaction_read_only') AS r" | tail -n 1 | tr -d '\r')
[ "$v" = "2500ms,8MB,gguf_catalog_reader,on" ] && ok || fail "the query's settings: $v"
# a writer that is not the owner cannot make the reader's grants
"$CATALOG" --db "$(pg_url same gguf_catalog_reader)" index "$CORPUS/synth" >"$TMP/out" 2>"$TMP/err"
[ $? -eq 1 ] && grep -qE "permission denied|read-only transaction" "$TMP/err" && ok || fail "index as the reader: $(head -c 300 "$TMP/err")"

# ---- four indexers at once over overlapping folders, two of them killed and started again ----
pg_createdb par
PAR=$(pg_url par)
C=$CORPUS
mkfifo "$TMP/pa" "$TMP/pa.go" "$TMP/pb" "$TMP/pb.go"
# every folder of the corpus but real/ (its tokenizers' million rows are the first part's)
NOT_REAL="path NOT LIKE '%/corpus/real/%'"
# URL lists (the same corpus files, named by URL: rows of their own): A's, B's, C's and D's
# overlap, and SQLite's reference indexes them all
: >"$TMP/ua" >"$TMP/ub" >"$TMP/uc" >"$TMP/ud"
if [ -n "$with_urls" ]; then
    for f in "$C"/be/*.gguf; do echo "$U/files/be/${f##*/}"; done >"$TMP/url.be"
    for f in "$C"/v1v2/*.gguf; do echo "$U/files/v1v2/${f##*/}"; done >"$TMP/url.v1v2"
    cp "$TMP/url.be" "$TMP/ua"
    cat "$TMP/url.v1v2" "$TMP/url.be" >"$TMP/ub"
    cp "$TMP/url.v1v2" "$TMP/uc"
    cat "$TMP/url.be" "$TMP/url.v1v2" >"$TMP/ud"
    "$CATALOG" --db "$LITE" index -q --urls "$TMP/ud" 2>"$TMP/err" && ok || fail "index the URLs into SQLite: $(head -c 300 "$TMP/err")"
else
    skip "URL lists" "this build reads no URLs, or no nginx or lighttpd is installed"
fi
# A and B stop inside the transaction of a file drawn by the seed (the schema made by one of
# them, the other waiting for it), and are killed there; C and D run meanwhile, and wait for
# the rows A and B hold. GGUF_TEST_SEED replays a run: the log names its seed.
seed=${GGUF_TEST_SEED:-$(date +%s)}
kill_a=$((seed % 7 + 1))
kill_b=$((seed / 7 % 9 + 1))
echo "seed $seed: A is killed in its file $kill_a, B in its file $kill_b"
GGUF_TEST_PAUSE_AT=catalog-file-stored#$kill_a GGUF_TEST_PAUSE_FIFO="$TMP/pa" \
    "$CATALOG" --db "$PAR" index -q --urls "$TMP/ua" "$C/synth" "$C/models" >/dev/null 2>"$TMP/a.err" &
pid_a=$!
GGUF_TEST_PAUSE_AT=catalog-file-stored#$kill_b GGUF_TEST_PAUSE_FIFO="$TMP/pb" \
    "$CATALOG" --db "$PAR" index -q --urls "$TMP/ub" "$C/models" "$C/be" "$C/bad" >/dev/null 2>"$TMP/b.err" &
pid_b=$!
read -r what_a at_a <"$TMP/pa"
read -r what_b at_b <"$TMP/pb"
[ "$at_a" = "$pid_a" ] && [ "$at_b" = "$pid_b" ] && ok || fail "the indexers did not stop where asked: $what_a $at_a, $what_b $at_b"
"$CATALOG" --db "$PAR" index -q --urls "$TMP/uc" "$C/bad" "$C/v1v2" "$C/be" "$C/synth" >/dev/null 2>"$TMP/c.err" &
pid_c=$!
"$CATALOG" --db "$PAR" index -q --urls "$TMP/ud" "$C/synth" "$C/v1v2" "$C/models" "$C/be" "$C/bad" >/dev/null 2>"$TMP/d.err" &
pid_d=$!
kill -9 "$pid_a" "$pid_b"
wait "$pid_a"
wait "$pid_b"
wait "$pid_c" && ok || fail "indexer C: $(head -c 300 "$TMP/c.err")"
wait "$pid_d" && ok || fail "indexer D: $(head -c 300 "$TMP/d.err")"
"$CATALOG" --db "$PAR" index -q --urls "$TMP/ua" "$C/synth" "$C/models" >/dev/null 2>"$TMP/a.err" &
pid_a=$!
"$CATALOG" --db "$PAR" index -q --urls "$TMP/ub" "$C/models" "$C/be" "$C/bad" >/dev/null 2>"$TMP/b.err"
st_b=$?
wait "$pid_a" && [ $st_b -eq 0 ] && ok || fail "indexers A and B again: $(head -c 300 "$TMP/a.err") $(head -c 300 "$TMP/b.err")"
v=$(rows "$PAR" "SELECT (SELECT count(*) FROM files) || ' ' || (SELECT count(DISTINCT path) FROM files)
 || ' ' || (SELECT count(*) FROM errors) || ' ' || (SELECT count(*) FROM runs) || ' ' ||
 (SELECT count(finished_at) FROM runs) AS v" | tail -n 1 | tr -d '\r')
w=$(rows "$LITE" "SELECT (SELECT count(*) FROM files WHERE $NOT_REAL) || ' ' || (SELECT count(*) FROM
 files WHERE $NOT_REAL) || ' ' || (SELECT count(*) FROM errors WHERE $NOT_REAL) AS v" | tail -n 1 | tr -d '\r')
[ "$v" = "$w 6 4" ] && ok || fail "four indexers: files, paths, errors, runs, finished runs: $v (SQLite: $w, 6 runs, 4 finished)"
v=$(rows "$PAR" "SELECT count(*) AS n FROM files f WHERE n_kv != (SELECT count(*) FROM kv WHERE kv.file = f.id)
 OR n_tensors != (SELECT count(*) FROM tensors t WHERE t.file = f.id)
 OR (SELECT count(*) FROM array_items a WHERE a.file = f.id) != (SELECT coalesce(sum(array_len), 0)
 FROM kv WHERE kv.file = f.id AND elem_type IS NOT NULL AND elem_type != 'ARRAY' AND array_len <= 1048576)" | tail -n 1 | tr -d '\r')
[ "$v" = 0 ] && ok || fail "four indexers: $v files whose kv, tensors or array_items rows are not theirs exactly once"
v=$(rows "$PAR" "SELECT count(*) AS n FROM kv WHERE file NOT IN (SELECT id FROM files)" | tail -n 1 | tr -d '\r')
[ "$v" = 0 ] && ok || fail "four indexers: $v kv rows of no file"
PG_SAVED=$PG
PG=$PAR
same_rows "four indexers: files" "SELECT $FILES FROM files WHERE $NOT_REAL ORDER BY path"
same_rows "four indexers: models" "SELECT $MODELS FROM models WHERE $NOT_REAL ORDER BY path"
same_rows "four indexers: kv" "SELECT path, kv.position, kv.key, kv.type, kv.int, kv.real, kv.text
 FROM kv JOIN files f ON f.id = kv.file WHERE $NOT_REAL ORDER BY path, kv.position"
same_rows "four indexers: tensors" "SELECT path, t.position, t.name, t.type, t.\"offset\", t.nbytes
 FROM tensors t JOIN files f ON f.id = t.file WHERE $NOT_REAL ORDER BY path, t.position"
same_rows "four indexers: errors" "SELECT path, scope, code, message FROM errors WHERE $NOT_REAL
 ORDER BY path, scope"
PG=$PG_SAVED

# ---- another machine sees the files another machine stored as unchanged ----
# Machine B is this one in a mount namespace, where a tmpfs over the share holds copies with
# the same sizes and mtimes (other device and inode numbers, as another machine's mount of a
# share has), and a UTS namespace with another hostname. In the mount namespace alone (this
# machine, a file replaced by a copy) every file is read again.
if [ "$(id -u)" != 0 ] || ! unshare --mount --uts true 2>/dev/null; then
    skip "another machine" "needs root and unshare (mount and UTS namespaces)"
else
    pg_createdb hosts
    H=$(pg_url hosts)
    mkdir "$TMP/share"
    cp -a "$C/be/." "$C/v1v2/." "$TMP/share/"
    cp -a "$TMP/share" "$TMP/share.b"
    n=$(find "$TMP/share" -name "*.gguf" | wc -l)
    "$CATALOG" --db "$H" index -q "$TMP/share" 2>"$TMP/err" && ok || fail "index on machine A: $(head -c 300 "$TMP/err")"
    # on_b HOSTNAME|"" COMMAND...: run gguf-catalog COMMAND on the share as machine B
    # (HOSTNAME given) or as this machine (none)
    on_b() {
        host=$1
        shift
        unshare --mount ${host:+--uts} sh -c 'mount -t tmpfs gguf-test "$1" && cp -a "$2/." "$1/" &&
            { [ -z "$3" ] || hostname "$3"; } && shift 3 && exec "$@"' sh \
            "$TMP/share" "$TMP/share.b" "$host" "$CATALOG" --db "$H" "$@" "$TMP/share" >"$TMP/out" 2>"$TMP/err"
    }
    on_b gguf-test-machine-b index -q && ok || fail "index on machine B: $(head -c 300 "$TMP/err")"
    v=$(rows "$H" "SELECT indexed || ' ' || unchanged || ' ' || host FROM runs ORDER BY id DESC LIMIT 1" | tail -n 1 | tr -d '\r')
    [ "$v" = "0 $n gguf-test-machine-b" ] && ok || fail "machine B: indexed, unchanged, host: $v (want 0 $n gguf-test-machine-b)"
    on_b gguf-test-machine-b verify && ! grep -q "replaced\|modified" "$TMP/out" && ok ||
        fail "verify on machine B: $(head -c 300 "$TMP/out") $(head -c 300 "$TMP/err")"
    on_b "" verify
    [ $? -eq 1 ] && grep -q "replaced (another inode)" "$TMP/out" && ok ||
        fail "verify from another mount on machine A: $(head -c 300 "$TMP/out") $(head -c 300 "$TMP/err")"
    on_b "" index -q && ok || fail "index from another mount on machine A: $(head -c 300 "$TMP/err")"
    v=$(rows "$H" "SELECT indexed || ' ' || unchanged || ' ' || host FROM runs ORDER BY id DESC LIMIT 1" | tail -n 1 | tr -d '\r')
    [ "$v" = "$n 0 $(hostname)" ] && ok || fail "another mount on machine A: indexed, unchanged, host: $v (want $n 0 $(hostname))"
    v=$(rows "$H" "SELECT count(*) || ' ' || count(DISTINCT pid) FROM runs WHERE pid > 0" | tail -n 1 | tr -d '\r')
    [ "$v" = "3 3" ] && ok || fail "runs with their processes: $v (want 3 3)"
fi

# two indexers meet on a new file: B finds no row (A's is not committed) and waits on A's
# insert; A commits; B's insert becomes an update of A's row, whose kv and tensors rows B
# replaces (none doubled)
pg_createdb race
R=$(pg_url race)
F="$C/synth/align_128.gguf"
mkfifo "$TMP/pr" "$TMP/pr.go"
GGUF_TEST_PAUSE_AT=catalog-file-stored GGUF_TEST_PAUSE_FIFO="$TMP/pr" \
    "$CATALOG" --db "$R" index -q "$F" >/dev/null 2>"$TMP/a.err" &
pid_a=$!
read -r _ at_a <"$TMP/pr"
"$CATALOG" --db "$R" index -q "$F" >/dev/null 2>"$TMP/b.err" &
pid_b=$!
# until B waits for A's row (a bounded poll of the server's own state)
waiting=0
for _ in $(seq 600); do
    waiting=$(pg_sql race "SELECT count(*) FROM pg_stat_activity WHERE datname = 'race' AND wait_event_type = 'Lock'")
    [ "$waiting" -gt 0 ] && break
    sleep 0.1
done
[ "$waiting" -gt 0 ] && ok || fail "the second indexer never waited for the first's row"
: >"$TMP/pr.go" # A goes on
wait "$pid_a" && ok || fail "indexer A: $(head -c 300 "$TMP/a.err")"
wait "$pid_b" && ok || fail "indexer B, which met A's row: $(head -c 300 "$TMP/b.err")"
v=$(pg_sql race "SELECT count(*) || ' ' || sum(n_kv) || ' ' || (SELECT count(*) FROM kv) || ' ' ||
 sum(n_tensors) || ' ' || (SELECT count(*) FROM tensors) FROM files")
set -- $v
[ "$1" = 1 ] && [ "$2" = "$3" ] && [ "$4" = "$5" ] && ok || fail "a file stored by two indexers at once: files, n_kv, kv rows, n_tensors, tensor rows: $v"

# ---- a version 8 catalog (an array's elements a row each, runs without machines) migrates ----
pg_createdb old8
O=$(pg_url old8)
"$CATALOG" --db "$O" index -q "$C/synth" "$C/be" 2>"$TMP/err" && ok || fail "index into old8: $(head -c 300 "$TMP/err")"
ITEMS="SELECT f.path, a.position, a.key, a.idx, a.int, a.real, a.text FROM array_items a
 JOIN files f ON f.id = a.file ORDER BY f.path, a.position, a.idx"
rows "$O" "$ITEMS" >"$TMP/items.9" 2>&1
pg_sql old8 "BEGIN;
 ALTER TABLE runs DROP COLUMN host, DROP COLUMN pid;
 CREATE TABLE items8 (file BIGINT NOT NULL, position BIGINT NOT NULL, key TEXT NOT NULL,
  idx BIGINT NOT NULL, int BIGINT, real DOUBLE PRECISION, text TEXT,
  PRIMARY KEY (file, position, idx));
 INSERT INTO items8 SELECT * FROM array_items;
 DROP VIEW array_items; DROP TABLE array_values;
 ALTER TABLE items8 RENAME TO array_items;
 GRANT SELECT ON array_items TO gguf_catalog_reader;
 UPDATE gguf_catalog SET version = 8;
 COMMIT" >/dev/null 2>"$TMP/err" || fail "making a version 8 catalog: $(head -c 300 "$TMP/err")"
v=$(pg_sql old8 "SELECT version || ' ' || (SELECT count(*) FROM array_items) FROM gguf_catalog")
n=$(($(wc -l <"$TMP/items.9") - 1))
[ "$v" = "8 $n" ] && [ "$n" -gt 1000 ] && ok || fail "the version 8 catalog: $v (want 8 $n)"
"$CATALOG" --db "$O" index -q "$C/be" 2>"$TMP/err" && ok || fail "index into version 8: $(head -c 300 "$TMP/err")"
rows "$O" "$ITEMS" >"$TMP/items.8" 2>&1
v=$(pg_sql old8 "SELECT version || ' ' || to_regclass('array_values') FROM gguf_catalog")
[ "$v" = "9 array_values" ] && cmp -s "$TMP/items.9" "$TMP/items.8" && ok ||
    fail "migrated from version 8: $v, $(diff "$TMP/items.9" "$TMP/items.8" | head -c 300)"

# ---- export: a SQLite catalog into PostgreSQL and back ----
LITE2="$TMP/lite2.db"
"$CATALOG" --db "$LITE2" index -q "$C/synth" "$C/v1v2" "$C/models" "$C/be" "$C/bad" 2>/dev/null
pg_createdb exp
EXP=$(pg_url exp)
"$CATALOG" --db "$EXP" index -q "$C/v1v2" 2>/dev/null # rows the export replaces
expect_status 0 "$CATALOG" --db "$LITE2" export "$EXP"
expect_status 0 "$CATALOG" --db "$EXP" export "$TMP/back.db"
grep -q "rows copied into $TMP/back.db" "$TMP/out" && ok || fail "export: $(cat "$TMP/out")"
for t in "files:id" "kv:file, position" "array_items:file, position, idx" "tensors:file, position" \
    "errors:path, scope" "runs:id"; do
    table=${t%%:*} order=${t#*:}
    cols=$(rows "$LITE2" "SELECT group_concat(name, ', ') FROM pragma_table_info('$table')" |
        tail -n 1 | tr -d '\r"' | sed -E 's/(^|, )offset(,|$)/\1"offset"\2/')
    sql="SELECT $cols FROM $table ORDER BY $order"
    rows "$LITE2" "$sql" >"$TMP/e1.csv"
    rows "$EXP" "$sql" >"$TMP/e2.csv" 2>"$TMP/err.pg"
    rows "$TMP/back.db" "$sql" >"$TMP/e3.csv"
    n=$(($(wc -l <"$TMP/e1.csv") - 1))
    [ "$n" -gt 0 ] && [ "$(wc -l <"$TMP/e2.csv")" = "$(wc -l <"$TMP/e3.csv")" ] && ok ||
        fail "export $table: $n rows, in PostgreSQL and back $(wc -l <"$TMP/e2.csv") $(wc -l <"$TMP/e3.csv") lines"
    [ "$(sha256sum <"$TMP/e2.csv")" = "$(sha256sum <"$TMP/e3.csv")" ] && ok ||
        fail "export $table: PostgreSQL's checksum differs from the copy back's"
    same_csv "export $table" "$TMP/e1.csv" "$TMP/e2.csv"
done
# the ids go on after the copied ones
"$CATALOG" --db "$EXP" index -q "$C/real/ggml-vocab-gpt-2.gguf" 2>/dev/null
v=$(rows "$EXP" "SELECT (SELECT max(id) FROM files) - (SELECT count(*) FROM files) || ' ' ||
 (SELECT max(id) FROM runs) - (SELECT count(*) FROM runs) AS v" | tail -n 1 | tr -d '\r')
[ "$v" = "0 0" ] && ok || fail "ids after an export: $v"

finish
