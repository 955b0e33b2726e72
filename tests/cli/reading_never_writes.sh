#!/bin/sh
# Reading never writes: beside copies of a model lie a complete journal, a cut one, a foreign one
# (another file's) and a symbolic link to a journal, plus a stale temporary file each. Every
# read-only command of gguf-edit and gguf-catalog's index and verify run on them, and afterwards
# the models, the journals and the temporary files have the same bytes and mtimes. A pending
# journal is reported on stderr, and the catalog records each journal's state. Then `recover`
# applies only the complete journal.
. "$(dirname "$0")/../support/cli_lib.sh"
PLANT="$top_builddir/tests/support/plant_journal"
CAT="$CATALOG_TOOL"
SRC="$GOLDEN/hand/le_v3_two_tensors.gguf"
KEY=general.architecture

# state FILE: bytes and mtime (nanoseconds) of a file, or of the link itself for a link
state() { if [ -L "$1" ]; then stat -c '%N %Y' "$1"; else printf '%s %s\n' "$(cksum < "$1")" "$(stat -c %y "$1")"; fi; }
snapshot() { for f in "$TMP"/d/* "$TMP"/d/.[!.]*; do [ -e "$f" ] || [ -L "$f" ] && echo "$f $(state "$f")"; done; }

mkdir "$TMP/d"
for kind in valid cut foreign symlink; do
    m="$TMP/d/$kind.gguf"
    cp "$SRC" "$m"
    "$PLANT" "$m" "$KEY" "$kind" || fail "planting a $kind journal"
    printf 'half a copy' > "$TMP/d/.$kind.gguf.tmp-AbCdEf"
done
[ -e "$TMP/d/.valid.gguf.gguf-journal" ] && [ -L "$TMP/d/.symlink.gguf.gguf-journal" ] && ok ||
    fail "journals not planted"
# every file (and link) dated in the past: a write by a read-only command changes its mtime
touch -h -d '2001-02-03 04:05:06' "$TMP"/d/* "$TMP"/d/.[!.]*
snapshot > "$TMP/before"

for kind in valid cut foreign symlink; do
    m="$TMP/d/$kind.gguf"
    for cmd in "show $m" "show --json $m" "show --kv $m" "get $m $KEY" "hash $m" "hash --json $m" \
               "verify $m" "diff $m $m" "tensor $m a -o $TMP/t.bin" "tensor $m a --f32 -o $TMP/t.f32" \
               "copy $m $TMP/copy.gguf" "convert $m -o $TMP/conv.gguf --endian big"; do
        # shellcheck disable=SC2086
        "$EDIT" $cmd >"$TMP/out" 2>"$TMP/err"
        st=$?
        case "$cmd" in verify*) [ $st -le 3 ] ;; *) [ $st -eq 0 ] ;; esac && ok ||
            fail "gguf-edit $cmd exited $st: $(head -c 200 "$TMP/err")"
        if [ $kind = valid ]; then
            grep -q "interrupted edit is pending" "$TMP/err" && ok ||
                fail "gguf-edit $cmd did not say that an edit is pending"
        fi
    done
done
if [ -x "$CAT" ]; then
    "$CAT" --db "$TMP/cat.db" index "$TMP/d" >"$TMP/out" 2>"$TMP/err" && ok ||
        fail "gguf-catalog index: $(head -c 200 "$TMP/err")"
    "$CAT" --db "$TMP/cat.db" verify >"$TMP/out" 2>"$TMP/err" && ok ||
        fail "gguf-catalog verify: $(head -c 200 "$TMP/err")"
    # the catalog records each journal's state: the one recover would apply, and the others
    "$CAT" --db "$TMP/cat.db" query --format csv \
        "SELECT replace(path, '$TMP/d/', '') || '=' || coalesce(journal, 'none') FROM files ORDER BY path" \
        >"$TMP/out" 2>"$TMP/err"
    [ "$(tail -n +2 "$TMP/out" | tr -d '\r' | tr '\n' ' ')" = "cut.gguf=refused foreign.gguf=refused symlink.gguf=refused valid.gguf=pending " ] && ok ||
        fail "files.journal: $(cat "$TMP/out" "$TMP/err")"
else
    skip "gguf-catalog index and verify read nothing they must not" "gguf-catalog not built (no SQLite)"
fi
snapshot > "$TMP/after"
if cmp -s "$TMP/before" "$TMP/after"; then ok; else
    fail "reading changed files beside the models:"; diff "$TMP/before" "$TMP/after" >&2
fi

# a journal extended to 3 GiB with a hole is judged from its head: show and the catalog read a
# few bytes of it and say so, within 400 MB of address space (they once read it all: 41 s and
# 3 GB for a 264-byte model)
mkdir "$TMP/s"
sparse="$TMP/s/sparse.gguf"
cp "$SRC" "$sparse"
"$PLANT" "$sparse" "$KEY" valid && truncate -s 3G "$TMP/s/.sparse.gguf.gguf-journal" ||
    fail "planting a sparse journal"
limit=$((400 << 10))
if (ulimit -v $limit && "$EDIT" show "$SRC") >/dev/null 2>&1; then
    (ulimit -v $limit && "$EDIT" show "$sparse") >"$TMP/out" 2>"$TMP/err"
    st=$?
    [ $st -eq 0 ] && grep -q "journal lies beside it that recover would refuse.*size" "$TMP/err" &&
        ok || fail "show beside a 3 GiB sparse journal: exit $st: $(head -c 300 "$TMP/err")"
    if [ -x "$CAT" ]; then
        (ulimit -v $limit && "$CAT" --db "$TMP/sparse.db" index "$TMP/s") >"$TMP/out" 2>"$TMP/err"
        st=$?
        [ $st -eq 0 ] && [ "$("$CAT" --db "$TMP/sparse.db" query --format csv \
            "SELECT journal FROM files" | tail -n +2 | tr -d '\r')" = refused ] && ok ||
            fail "catalog index beside a 3 GiB sparse journal: exit $st: $(head -c 300 "$TMP/err")"
    fi
else
    skip_sanitized "show and index beside a sparse 3 GiB journal" "the tools do not start under ulimit -v"
fi

# recover applies the complete journal only; the others are refused and left in place
"$EDIT" recover "$TMP/d/valid.gguf" >"$TMP/out" 2>"$TMP/err" && ok || fail "recover: $(cat "$TMP/err")"
[ ! -e "$TMP/d/.valid.gguf.gguf-journal" ] && ok || fail "recover left the journal"
cmp -s "$SRC" "$TMP/d/valid.gguf" && fail "recover did not change the model" || ok
[ "$("$EDIT" get "$TMP/d/valid.gguf" $KEY)" = "Jest" ] && ok || fail "recover applied something else"
for kind in cut foreign symlink; do
    expect_status 1 "$EDIT" recover "$TMP/d/$kind.gguf"
    grep -q "refused" "$TMP/err" && ok || fail "recover of a $kind journal: $(cat "$TMP/err")"
    cmp -s "$SRC" "$TMP/d/$kind.gguf" && ok || fail "recover changed the model with a $kind journal"
    [ -e "$TMP/d/.$kind.gguf.gguf-journal" ] || [ -L "$TMP/d/.$kind.gguf.gguf-journal" ] && ok ||
        fail "recover removed a $kind journal"
    # an edit refuses to start while such a journal lies there
    expect_status 1 "$EDIT" set "$TMP/d/$kind.gguf" $KEY abcd
    cmp -s "$SRC" "$TMP/d/$kind.gguf" && ok || fail "an edit went ahead over a $kind journal"
done
finish
