#!/bin/sh
# gguf-catalog: index (incremental, errors recorded), query in every format and read-only,
# verify naming the tensor whose bytes changed, prune, concurrent indexers, and the corpus:
# every file recorded, with the keys and tensors gguf-edit show --json sees.
. "$(dirname "$0")/cli_lib.sh"

CATALOG="$CATALOG_TOOL"
[ -x "$CATALOG" ] || skip_all "tools/gguf-catalog not built (no SQLite)"
DB="$TMP/c.db"
have_python() { command -v python3 >/dev/null 2>&1; }
valid_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))' "$1"; }
# q SQL: the query's single value (csv without the header line, unquoted)
q() {
    "$CATALOG" --db "$DB" query --format csv "$1" | tail -n +2 | tr -d '\r' |
        sed -e '/^".*"$/{s/^"//;s/"$//;s/""/"/g;}'
}

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
for c in index query verify prune path; do
    expect_status 0 "$CATALOG" "$c" --help
done
expect_status 2 "$CATALOG" --db "$DB" index
expect_status 2 "$CATALOG" --db "$DB" query
expect_status 2 "$CATALOG" --db "$DB" frobnicate
expect_status 2 "$CATALOG" --db "$DB" query --format xml "SELECT 1"
expect_status 1 "$CATALOG" --db "$TMP/none.db" query "SELECT 1"
grep -q "no catalog" "$TMP/err" && ok || fail "query without a catalog: $(cat "$TMP/err")"
[ ! -e "$TMP/none.db" ] && ok || fail "query created a catalog"
expect_status 0 "$CATALOG" --db "$DB" path
[ "$(cat "$TMP/out")" = "$DB" ] && ok || fail "path: $(cat "$TMP/out")"
expect_status 0 env XDG_DATA_HOME="$TMP/xdg" "$CATALOG" path
[ "$(cat "$TMP/out")" = "$TMP/xdg/gguf/catalog.db" ] && ok || fail "default path: $(cat "$TMP/out")"

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

# ---- query formats ----
expect_status 0 "$CATALOG" --db "$DB" query "SELECT path, n_kv, n_tensors FROM files ORDER BY path"
[ "$(wc -l < "$TMP/out")" -eq $((n_ok + 3)) ] && ok || fail "table rows: $(cat "$TMP/out")"
head -1 "$TMP/out" | grep -q "^path  *n_kv  n_tensors$" && ok || fail "table header: $(head -1 "$TMP/out")"
grep -q ' $' "$TMP/out" && fail "table lines end in spaces" || ok
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
assert d == [{"a": 1, "b": 2.5, "c": "é", "d": None, "e": "ff"}], d
PY
    expect_status 0 "$CATALOG" --db "$DB" query --format json "SELECT 1 WHERE 0"
    valid_json "$TMP/out" && ok || fail "empty json result"
fi

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

# ---- prune ----
rm "$TMP/m/junk.gguf"
expect_status 0 "$CATALOG" --db "$DB" prune
grep -q "^removed $TMP/m/gaps_and_trailer.gguf$" "$TMP/out" && ok || fail "prune: $(cat "$TMP/out")"
grep -q "^2 files pruned$" "$TMP/out" && ok || fail "prune count: $(cat "$TMP/out")"
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

# ---- the corpus: every file recorded, counts as gguf-edit show sees them ----
if have_corpus; then
    DB="$TMP/corpus.db"
    expect_status 0 "$CATALOG" --db "$DB" index -q "$CORPUS"
    n=$(find "$CORPUS" -name '*.gguf' | wc -l)
    [ "$(q "SELECT (SELECT count(*) FROM files) + (SELECT count(*) FROM errors)")" = "$n" ] && ok || fail "corpus: not every file recorded"
    corpus=$(cd "$CORPUS" && pwd -P)
    for f in $(find "$corpus" -name '*.gguf' | sort); do
        if "$EDIT" show --json "$f" > "$TMP/show.json" 2> "$TMP/show.err"; then
            # show --json writes one key, and one tensor, per line
            want="$(grep -c '^{"key":' "$TMP/show.json") $(grep -c '^{"name":' "$TMP/show.json")"
            got=$(q "SELECT (SELECT count(*) FROM kv WHERE kv.file = f.id) || ' ' || (SELECT count(*) FROM tensors t WHERE t.file = f.id) FROM files f WHERE path = '$f'")
            [ "$got" = "$want" ] && ok || fail "corpus $f: catalog has $got keys/tensors, show has $want"
        else
            msg=$(q "SELECT message FROM errors WHERE path = '$f'")
            [ -n "$msg" ] && grep -qF "$msg" "$TMP/show.err" && ok || fail "corpus $f: error row '$msg' is not the reader's: $(cat "$TMP/show.err")"
        fi
    done
    [ "$(q "SELECT architecture || ' ' || file_type || ' ' || quant FROM models WHERE path LIKE '%tiny-llama-e256-Q4_K_M.gguf'")" = "llama Q4_K_M Q4_K" ] && ok || fail "models view of the tiny llama"
else
    skip "the corpus: every file recorded" "no ../shared/corpus"
fi
finish
