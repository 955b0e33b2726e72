#!/bin/sh
# merge --delete-splits never loses the model: kill -9 it at seeded random moments while it
# merges a generated llama model of 8 shards, and check every time, before anything else runs,
# that the model is whole: merged (OUT, or the first shard's name, equal byte for byte to
# llama-gguf-split's merge of the original shards), or in shards (every tensor's crc32 equal
# to the original's, and llama.cpp loads the set), or in the window between a header rewrite
# and the emptying of a shard, where one shard's tensors are in two files (every tensor still
# there, its bytes equal; the rerun empties the shard), or with the first shard's header torn
# by a kill inside its in-place rewrite, its journal beside it (reading refuses the set and
# says to recover; where recover runs first, it gives one of the states above). Then the same
# command runs again and must finish: OUT equal to llama-gguf-split's merge, no shard, journal
# or temporary file left. Four kills are staged by events (merge held at the library's test
# points, then killed): two inside header rewrites (journal-half-written, recover run before
# the rerun once, left to the rerun once) must leave "journal", merge-shard-emptied "shards"
# and merge-renamed "merged". Every random round's verdict counts; the seed and each kill
# moment are printed.
. "$(dirname "$0")/../support/cli_lib.sh"
SPLIT=${LLAMA_GGUF_SPLIT:-$(dirname "$ORACLE")/llama-gguf-split}
if ! have_corpus || ! have_oracle || [ ! -x "$SPLIT" ]; then
    skip_all "needs ../shared/corpus, ggml-oracle and llama-gguf-split"
fi
ROUNDS=${CRASH_ROUNDS:-16}
seed=${CRASH_SEED:-$(date +%s)}
echo "merge_killed: CRASH_SEED=$seed, $ROUNDS rounds"
"$ORACLE" gen-llama --vocab "$CORPUS/real/ggml-vocab-llama-spm.gguf" --embd 256 --ff 512 \
    --layers 4 "$TMP/g.gguf" >/dev/null 2>&1 || { fail "gen-llama"; finish; exit 1; }
mkdir "$TMP/set" "$TMP/d"
"$EDIT" split "$TMP/g.gguf" "$TMP/set/m" --max-tensors 5 2>/dev/null || fail "split"
FIRST=m-00001-of-00008.gguf
"$SPLIT" --merge "$TMP/set/$FIRST" "$TMP/ref.gguf" >/dev/null 2>&1 || fail "llama-gguf-split --merge"
"$EDIT" hash "$TMP/ref.gguf" | tail -n +2 | sort >"$TMP/ref.crc"

ms_now() { echo $(( $(date +%s%N) / 1000000 )); }
D="$TMP/d"
fresh() { rm -rf "$D"; mkdir "$D"; cp "$TMP/set"/* "$D/"; }
fresh
t0=$(ms_now)
"$EDIT" merge --delete-splits "$D/$FIRST" "$D/out.gguf" 2>/dev/null || fail "an uninterrupted merge"
window=$(( ($(ms_now) - t0) * 3 / 2 + 1 ))
cmp -s "$D/out.gguf" "$TMP/ref.gguf" && ok || fail "an uninterrupted merge differs from llama-gguf-split's"
echo "merge_killed: kills within $window ms"

rand() { seed=$(( (seed * 1103515245 + 12345) % 2147483648 )); r=$(( seed % $1 )); }

shards=0; transit=0; merged=0; journal=0
# state DIR: sets verdict to what the files in DIR hold now, read only
state() {
    if [ -e "$1/out.gguf" ]; then
        cmp -s "$1/out.gguf" "$TMP/ref.gguf" && verdict=merged || verdict="BAD (OUT differs)"
    elif [ "$("$EDIT" get --one-file "$1/$FIRST" split.count 2>/dev/null)" = 0 ]; then
        cmp -s "$1/$FIRST" "$TMP/ref.gguf" && verdict=merged || verdict="BAD (merged under the first shard's name differs)"
    elif "$EDIT" hash "$1/$FIRST" >"$TMP/h" 2>"$TMP/err"; then
        tail -n +2 "$TMP/h" | sort >"$TMP/now.crc"
        if ! cmp -s "$TMP/now.crc" "$TMP/ref.crc"; then
            verdict="BAD (a tensor differs)"
        elif "$ORACLE" llama-load "$1/$FIRST" >/dev/null 2>"$TMP/load"; then
            verdict=shards
        else
            verdict="BAD (llama.cpp refuses the set: $(tail -c 200 "$TMP/load"))"
        fi
    elif "$EDIT" hash --lenient "$1/$FIRST" >"$TMP/h" 2>/dev/null; then
        tail -n +2 "$TMP/h" | sort -u >"$TMP/now.crc"
        cmp -s "$TMP/now.crc" "$TMP/ref.crc" && verdict=transit || verdict="BAD (a tensor differs)"
    else
        verdict="BAD (the set cannot be read: $(head -c 200 "$TMP/err"))"
    fi
}

# judge WHAT [recover]: what the files hold now, before anything else touches them, counted
# (or a failure); then the same command must finish the job
judge() {
    # the header torn in place, its journal beside it (kept until the rename after the header
    # is durable too, so a journal alone proves nothing): reading says to recover; recover
    # (asked for) leaves a state above, else the rerun finishes the journal itself. A torn
    # header that reading does not explain is judged below: the set cannot be read.
    if [ -e "$D/.$FIRST.gguf-journal" ] && ! "$EDIT" hash "$D/$FIRST" >/dev/null 2>"$TMP/err" &&
        grep -q "edit of its header was interrupted.*gguf-edit recover" "$TMP/err"; then
        if [ -z "$2" ]; then
            verdict=journal
        elif ! "$EDIT" recover "$D/$FIRST" >/dev/null 2>"$TMP/err"; then
            verdict="BAD (recover fails: $(head -c 300 "$TMP/err"))"
        else
            state "$D"
            case "$verdict" in shards|transit) verdict=journal ;; *) verdict="$verdict after recover" ;; esac
        fi
    else
        state "$D"
    fi
    case "$verdict" in
    journal) journal=$((journal + 1)); ok ;;
    shards) shards=$((shards + 1)); ok ;;
    transit) transit=$((transit + 1)); ok ;;
    merged) merged=$((merged + 1)); ok ;;
    *) fail "$1: $verdict" ;;
    esac
    if "$EDIT" merge --delete-splits "$D/$FIRST" "$D/out.gguf" >/dev/null 2>"$TMP/err" &&
        cmp -s "$D/out.gguf" "$TMP/ref.gguf" && [ "$(ls -A "$D")" = out.gguf ]; then
        ok; rerun=finished
    else
        fail "$1: the rerun did not finish: $(head -c 300 "$TMP/err") $(ls -A "$D")"
        rerun=FAILED
    fi
    echo "merge_killed: $1: $verdict; rerun $rerun"
}

# the two states a kill must be able to leave, each staged on purpose: merge is held at the
# library's test point and killed there (events, not timing, decide where the kill lands)
for point in journal-half-written#2:recover journal-half-written#5 merge-shard-emptied merge-renamed; do
    fresh
    if held ${point%:*} "$EDIT" merge --delete-splits "$D/$FIRST" "$D/out.gguf" >/dev/null 2>&1; then
        kill -9 "$held_tool"
    else
        fail "merge ended before $point"
    fi
    wait "$held_pid" 2>/dev/null
    judge "a kill at $point" "$([ "${point#*:}" = recover ] && echo recover)"
done
[ "$journal" = 2 ] && [ "$shards" = 1 ] && [ "$merged" = 1 ] && ok ||
    fail "the staged kills left $journal torn with a journal, $shards in shards, $merged merged (2, 1 and 1 wanted)"

# then kills at seeded random moments: whatever the moment, the model is whole (how many land
# in each state depends on the machine's pace, so the counts are printed, not judged)
i=0
while [ $i -lt "$ROUNDS" ]; do
    i=$((i + 1))
    rand "$window"; ms=$r
    fresh
    "$EDIT" merge --delete-splits "$D/$FIRST" "$D/out.gguf" >/dev/null 2>&1 &
    pid=$!
    sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    judge "round $i, kill at $ms ms"
done
echo "merge_killed: $shards in shards, $transit in the window of a shard in two files, $journal torn with a journal, $merged merged, of $ROUNDS random rounds and 4 staged"
finish
