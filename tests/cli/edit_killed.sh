#!/bin/sh
# Edits never lose data: kill -9 the tool at seeded random moments while it rewrites a large
# generated file (a header that grows past its padding) or rewrites a header in place, then run
# `gguf-edit recover`, and check every time that the file is the old one or the new one, byte
# for byte. Every round's verdict counts; the seed and each kill moment are printed; both
# outcomes must occur. (check_faults kills the library before each of its I/O calls in turn;
# this test kills the real tool at arbitrary moments, in the middle of long copies too, and
# an in-place edit on purpose between the two writes of its header.)
. "$(dirname "$0")/../support/cli_lib.sh"
GEN="$top_builddir/bench/gen_model"
SIZE_MIB=${CRASH_SIZE_MIB:-256}
ROUNDS=${CRASH_ROUNDS:-12}
seed=${CRASH_SEED:-$(date +%s)}
echo "edit_killed: CRASH_SEED=$seed, $SIZE_MIB MiB, $ROUNDS rounds per path"
M="$TMP/m.gguf"
"$GEN" "$TMP/old.gguf" "$SIZE_MIB" || { fail "generator"; finish; exit 1; }
LONG="a name long enough that the header no longer fits its padding: $(printf '%0100d' 0)"

# the two possible results of each edit, made without interruption and timed: kills land at
# random moments up to 1.5 times as long as the edit takes on this machine (a sanitizer build
# or a loaded machine is slower)
ms_now() { echo $(( $(date +%s%N) / 1000000 )); }
# window EDITED FROM KEY VALUE: the median of three runs of the edit of FROM into EDITED, in ms,
# times 1.5 (a first, cold run can take twice as long as the others, and kills past the end of
# the edit prove nothing); sets $window
window() {
    times=
    for run in 1 2 3; do
        cp "$2" "$1"
        t0=$(ms_now)
        case $4 in
        @*) "$EDIT" set "$1" "$3" "${4#@}" --file || fail "reference edit of $3" ;;
        *) "$EDIT" set "$1" "$3" "$4" || fail "reference edit of $3" ;;
        esac
        times="$times $(( $(ms_now) - t0 ))"
    done
    window=$(( $(echo $times | tr ' ' '\n' | sort -n | sed -n 2p) * 3 / 2 + 1 ))
}
window "$TMP/grown.gguf" "$TMP/old.gguf" general.name "$LONG"; rewrite_ms=$window
window "$TMP/inplace.gguf" "$TMP/old.gguf" general.name "renamed!!"; inplace_ms=$window
cmp -s "$TMP/old.gguf" "$TMP/grown.gguf" && fail "the reference edit changed nothing"
cmp -s "$TMP/old.gguf" "$TMP/inplace.gguf" && fail "the reference in-place edit changed nothing"
# a header that outgrows its reserved room: blocks inserted in place (ext4, XFS) or a rewrite
cp "$TMP/old.gguf" "$TMP/padded.gguf"
"$EDIT" reserve "$TMP/padded.gguf" 4K || fail "reserve"
python3 -c "print('z' * 20000)" > "$TMP/template.txt"
window "$TMP/inserted.gguf" "$TMP/padded.gguf" tokenizer.chat_template "@$TMP/template.txt"
insert_ms=$window
echo "edit_killed: kills within $rewrite_ms ms (rewrite), $inplace_ms ms (in place), $insert_ms ms (growing past the room)"

# a linear congruential generator in this shell (never in a subshell: the seed must advance)
rand() { seed=$(( (seed * 1103515245 + 12345) % 2147483648 )); r=$(( seed % $1 )); }

olds=0; news=0
# round NEW VALUE MAXMS PATH [OLD]: one edit killed after a random moment; counts the outcome
# or fails (a VALUE starting with @ is a file, set with --file)
round() {
    new=$1; value=$2; old=${5:-$TMP/old.gguf}
    rand "$3"
    ms=$r
    cp "$old" "$M"
    case $value in
    @*) "$EDIT" set "$M" tokenizer.chat_template "${value#@}" --file 2>/dev/null & ;;
    *) "$EDIT" set "$M" general.name "$value" 2>/dev/null & ;;
    esac
    pid=$!
    sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    # an editor finishes an interrupted in-place edit (its journal); reading never does
    "$EDIT" recover "$M" >/dev/null 2>"$TMP/err" || fail "recover after a kill at $ms ms: $(cat "$TMP/err")"
    if cmp -s "$M" "$old"; then
        olds=$((olds + 1)); ok; verdict=old
        eval "olds_$4=\$((olds_$4 + 1))"
    elif cmp -s "$M" "$new"; then
        news=$((news + 1)); ok; verdict=new
        eval "news_$4=\$((news_$4 + 1))"
    else
        fail "after a kill at $ms ms the file is neither the old nor the new one"; verdict=BAD
    fi
    echo "edit_killed: $(basename "$new" .gguf), kill at $ms ms: $verdict"
}

olds_rewrite=0; news_rewrite=0; olds_inplace=0; news_inplace=0; olds_insert=0; news_insert=0
i=0
while [ $i -lt "$ROUNDS" ]; do
    round "$TMP/grown.gguf" "$LONG" "$rewrite_ms" rewrite
    round "$TMP/inplace.gguf" "renamed!!" "$inplace_ms" inplace
    round "$TMP/inserted.gguf" "@$TMP/template.txt" "$insert_ms" insert "$TMP/padded.gguf"
    i=$((i + 1))
done
# a path that showed one outcome only: more rounds with the window moved towards the missing
# one (the machine's pace changes while the test runs), up to 24
for path in rewrite inplace insert; do
    extra=0
    eval "o=\$olds_$path n=\$news_$path w=\$${path}_ms"
    while { [ "$o" -eq 0 ] || [ "$n" -eq 0 ]; } && [ $extra -lt 24 ]; do
        if [ "$n" -eq 0 ]; then w=$(( w * 3 / 2 + 1 )); else w=$(( w * 2 / 3 + 1 )); fi
        case $path in
        rewrite) round "$TMP/grown.gguf" "$LONG" "$w" rewrite ;;
        inplace) round "$TMP/inplace.gguf" "renamed!!" "$w" inplace ;;
        insert) round "$TMP/inserted.gguf" "@$TMP/template.txt" "$w" insert "$TMP/padded.gguf" ;;
        esac
        extra=$((extra + 1))
        eval "o=\$olds_$path n=\$news_$path"
    done
done
echo "edit_killed: rewrite: $olds_rewrite old, $news_rewrite new; in place: $olds_inplace old, $news_inplace new; growing past the room: $olds_insert old, $news_insert new"
# both outcomes on each path, or the kills did not land during the edits and proved nothing
for path in rewrite inplace insert; do
    eval "o=\$olds_$path n=\$news_$path"
    [ "$o" -gt 0 ] && [ "$n" -gt 0 ] && ok ||
        fail "$path: only one outcome in $ROUNDS rounds and 24 more (seed $seed): the kills missed the edit"
done

# in place, killed on purpose between the two writes of the header (the library's test point
# journal-half-written, reached by events, no timing): the file is torn at that moment, neither
# old nor new, and recover must give the new one. An in-place write that skipped the journal,
# or a recover that did not finish it, fails here every time, not only when a random kill
# happens to land inside the write.
cp "$TMP/old.gguf" "$M"
if held journal-half-written "$EDIT" set "$M" general.name "renamed!!"; then
    if cmp -s "$M" "$TMP/old.gguf" || cmp -s "$M" "$TMP/inplace.gguf"; then
        fail "in place: held between the two writes, yet the header is not torn"
    else
        ok
    fi
    kill -9 "$held_tool"
    wait "$held_pid" 2>/dev/null
    "$EDIT" recover "$M" >/dev/null 2>"$TMP/err" || fail "recover after a kill between the writes: $(cat "$TMP/err")"
    cmp -s "$M" "$TMP/inplace.gguf" && ok || fail "a kill between the header's two writes, then recover: not the new file"
    echo "edit_killed: in place, killed between the header's two writes, then recover: $(cmp -s "$M" "$TMP/inplace.gguf" && echo new || echo BAD)"
else
    fail "in place: the edit never reached the header's second write"
    wait "$held_pid" 2>/dev/null
fi

# two editors at once: the second fails clearly (or, if the first is done, refuses a file that
# changed since it opened it); never a lost or mixed edit; and contention must really be seen
seen_lock=0
attempt=1
while [ $attempt -le 5 ] && [ $seen_lock = 0 ]; do
    cp "$TMP/old.gguf" "$M"
    "$EDIT" set "$M" general.name "$LONG" 2>"$TMP/err1" &
    pid=$!
    sleep 0.05
    "$EDIT" set "$M" general.name "second editor" 2>"$TMP/err2" && second=ok || second=failed
    wait "$pid" && first=ok || first=failed
    # one of them may lose the race, saying so; the winner's edit is the file; never both lost
    case $first/$second in
    ok/failed)
        grep -q "another process\|changed since" "$TMP/err2" && ok || fail "second editor: $(cat "$TMP/err2")"
        grep -q "being edited by another process" "$TMP/err2" && seen_lock=1
        cmp -s "$M" "$TMP/grown.gguf" && ok || fail "the first edit was lost" ;;
    failed/ok)
        grep -q "another process\|changed since" "$TMP/err1" && ok || fail "first editor: $(cat "$TMP/err1")"
        grep -q "being edited by another process" "$TMP/err1" && seen_lock=1
        [ "$("$EDIT" get "$M" general.name)" = "second editor" ] && ok || fail "the second edit was lost" ;;
    ok/ok) # one after the other: the second edited the first's result
        [ "$("$EDIT" get "$M" general.name)" = "second editor" ] && ok || fail "mixed edits" ;;
    *) fail "both editors failed: $(cat "$TMP/err1" "$TMP/err2")" ;;
    esac
    attempt=$((attempt + 1))
done
[ $seen_lock = 1 ] && ok || fail "the second editor never met the first one's lock in 5 tries"

# a later edit removes what a killed rewrite left beside the file (its writer is gone)
cp "$TMP/old.gguf" "$M"
touch "$TMP/.m.gguf.tmp-AbC123"
"$EDIT" set "$M" general.name x >/dev/null 2>&1 || fail "edit after a crash"
[ ! -e "$TMP/.m.gguf.tmp-AbC123" ] && ok || fail "stale temporary file not removed"
finish
