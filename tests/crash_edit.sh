#!/bin/sh
# Edits never lose data: kill -9 the tool at random points while it rewrites a large generated
# file (a header that grows past its padding) or rewrites a header in place, and check each time
# that the file is either the old one or the new one, byte for byte. Seeded; the seed is printed.
. "$(dirname "$0")/cli_lib.sh"
GEN="$top_builddir/bench/gen_model"
SIZE_MIB=${CRASH_SIZE_MIB:-256}
ROUNDS=${CRASH_ROUNDS:-12}
seed=${CRASH_SEED:-$(date +%s)}
echo "crash_edit: seed $seed, $SIZE_MIB MiB, $ROUNDS rounds per path"
M="$TMP/m.gguf"
"$GEN" "$TMP/old.gguf" "$SIZE_MIB" || { fail "generator"; finish; exit 1; }
LONG="a name long enough that the header no longer fits its padding: $(printf '%0100d' 0)"

# the two possible results of each edit, made without interruption
cp "$TMP/old.gguf" "$TMP/grown.gguf"
"$EDIT" set "$TMP/grown.gguf" general.name "$LONG" || fail "reference edit"
cp "$TMP/old.gguf" "$TMP/inplace.gguf"
"$EDIT" set "$TMP/inplace.gguf" general.name "renamed!!" || fail "reference in-place edit"
cmp -s "$TMP/old.gguf" "$TMP/grown.gguf" && fail "the reference edit changed nothing"

rand() { seed=$(( (seed * 1103515245 + 12345) % 2147483648 )); echo $(( seed % $1 )); }

round() { # round NEW VALUE OPTIONS...
    new=$1; value=$2; shift 2
    cp "$TMP/old.gguf" "$M"
    "$EDIT" set "$@" "$M" general.name "$value" 2>/dev/null &
    pid=$!
    ms=$(rand 400)
    sleep "$(printf '0.%03d' "$ms")"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    # an editor finishes an interrupted in-place edit (its journal)
    "$EDIT" recover "$M" >/dev/null 2>&1
    if cmp -s "$M" "$TMP/old.gguf"; then echo old; elif cmp -s "$M" "$new"; then echo new
    else fail "after a kill at ${ms} ms the file is neither the old nor the new one"; echo bad; fi
}

olds=0; news=0
i=0
while [ $i -lt "$ROUNDS" ]; do
    case $(round "$TMP/grown.gguf" "$LONG") in old) olds=$((olds+1)); ok ;; new) news=$((news+1)); ok ;; esac
    case $(round "$TMP/inplace.gguf" "renamed!!") in old) olds=$((olds+1)); ok ;; new) news=$((news+1)); ok ;; esac
    i=$((i + 1))
done
echo "crash_edit: $olds times the old file, $news times the new one"
# two editors at once: the second fails clearly (or, if the first is done, refuses a file that
# changed since it opened it); never a lost or mixed edit
seen_lock=0
for attempt in 1 2 3; do
    cp "$TMP/old.gguf" "$M"
    "$EDIT" set "$M" general.name "$LONG" 2>/dev/null &
    pid=$!
    sleep 0.05
    if "$EDIT" set "$M" general.name "second editor" 2>"$TMP/err2"; then
        second=ok
    else
        second=failed
        grep -q "another process\|changed since" "$TMP/err2" && ok || fail "second editor: $(cat "$TMP/err2")"
        grep -q "another process" "$TMP/err2" && seen_lock=1
    fi
    wait "$pid" || fail "first editor failed"
    if [ $second = ok ]; then
        [ "$("$EDIT" get "$M" general.name)" = "second editor" ] && ok || fail "mixed edits"
    else
        cmp -s "$M" "$TMP/grown.gguf" && ok || fail "the first edit was lost"
    fi
done
[ $seen_lock = 1 ] && ok || echo "crash_edit: the first editor was always done before the second started"

# a later edit removes what a killed rewrite left beside the file
cp "$TMP/old.gguf" "$M"
touch "$TMP/.m.gguf.tmp-AbC123"
"$EDIT" set "$M" general.name x >/dev/null 2>&1 || fail "edit after a crash"
[ ! -e "$TMP/.m.gguf.tmp-AbC123" ] && ok || fail "stale temporary file not removed"
finish
