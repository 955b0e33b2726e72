#!/bin/sh
# merge --delete-splits never loses the model: kill -9 it at seeded random moments while it
# merges a generated llama model of 8 shards, and check every time, before anything else runs,
# that the model is whole: merged (OUT, or the first shard's name, equal byte for byte to
# llama-gguf-split's merge of the original shards), or in shards (every tensor's crc32 equal
# to the original's, and llama.cpp loads the set), or in the window between a header rewrite
# and the emptying of a shard, where one shard's tensors are in two files (every tensor still
# there, its bytes equal; the rerun empties the shard). Then the same command runs again and
# must finish: OUT equal to llama-gguf-split's merge, no shard, journal or temporary file left.
# Two kills are staged by events (merge held at the library's test points merge-shard-emptied
# and merge-renamed, then killed): they must leave "shards" and "merged". Every random round's
# verdict counts; the seed and each kill moment are printed.
. "$(dirname "$0")/cli_lib.sh"
SPLIT=${LLAMA_GGUF_SPLIT:-$(dirname "$ORACLE")/llama-gguf-split}
if ! have_corpus || ! have_oracle || [ ! -x "$SPLIT" ]; then
    skip_all "needs ../shared/corpus, ggml-oracle and llama-gguf-split"
fi
ROUNDS=${CRASH_ROUNDS:-16}
seed=${CRASH_SEED:-$(date +%s)}
echo "crash_split: CRASH_SEED=$seed, $ROUNDS rounds"
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
echo "crash_split: kills within $window ms"

rand() { seed=$(( (seed * 1103515245 + 12345) % 2147483648 )); r=$(( seed % $1 )); }

shards=0; transit=0; merged=0
# judge WHAT: what the files hold now, before anything else touches them, counted (or a
# failure); then the same command must finish the job
judge() {
    if [ -e "$D/out.gguf" ]; then
        cmp -s "$D/out.gguf" "$TMP/ref.gguf" && verdict=merged || verdict="BAD (OUT differs)"
    elif [ "$("$EDIT" get --one-file "$D/$FIRST" split.count 2>/dev/null)" = 0 ]; then
        cmp -s "$D/$FIRST" "$TMP/ref.gguf" && verdict=merged || verdict="BAD (merged under the first shard's name differs)"
    elif "$EDIT" hash "$D/$FIRST" >"$TMP/h" 2>"$TMP/err"; then
        tail -n +2 "$TMP/h" | sort >"$TMP/now.crc"
        if ! cmp -s "$TMP/now.crc" "$TMP/ref.crc"; then
            verdict="BAD (a tensor differs)"
        elif "$ORACLE" llama-load "$D/$FIRST" >/dev/null 2>"$TMP/load"; then
            verdict=shards
        else
            verdict="BAD (llama.cpp refuses the set: $(tail -c 200 "$TMP/load"))"
        fi
    elif "$EDIT" hash --lenient "$D/$FIRST" >"$TMP/h" 2>/dev/null; then
        tail -n +2 "$TMP/h" | sort -u >"$TMP/now.crc"
        cmp -s "$TMP/now.crc" "$TMP/ref.crc" && verdict=transit || verdict="BAD (a tensor differs)"
    else
        verdict="BAD (the set cannot be read: $(head -c 200 "$TMP/err"))"
    fi
    case "$verdict" in
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
    echo "crash_split: $1: $verdict; rerun $rerun"
}

# the two states a kill must be able to leave, each staged on purpose: merge is held at the
# library's test point and killed there (events, not timing, decide where the kill lands)
for point in merge-shard-emptied merge-renamed; do
    fresh
    if held $point "$EDIT" merge --delete-splits "$D/$FIRST" "$D/out.gguf" >/dev/null 2>&1; then
        kill -9 "$held_tool"
    else
        fail "merge ended before $point"
    fi
    wait "$held_pid" 2>/dev/null
    judge "a kill at $point"
done
[ "$shards" = 1 ] && [ "$merged" = 1 ] && ok ||
    fail "the kills at merge-shard-emptied and merge-renamed left $shards in shards, $merged merged (1 and 1 wanted)"

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
echo "crash_split: $shards in shards, $transit in the window of a shard in two files, $merged merged, of $ROUNDS random rounds and 2 staged"
finish
