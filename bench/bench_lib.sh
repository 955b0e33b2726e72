# Sourced by the benchmarks that time one command at a time.

# best CMD...: the best wall time of RUNS runs of CMD, in seconds (the machine may be busy: the
# shortest run is the least disturbed); a run that fails is reported and ends it with status 1
# (its time would mean nothing). CMD's output goes to BEST_OUT (default: dropped, with its
# errors); BEST_BEFORE and BEST_AFTER, when set, are shell commands run before and after each
# run, outside its time (a sync, removing an output). Read from bash's clock when there is one
# (EPOCHREALTIME: no process of its own), else from date(1), whose start-up (a few ms) then
# counts in every time.
best() {
    b=999999
    i=0
    while [ $i -lt "$RUNS" ]; do
        [ -z "${BEST_BEFORE:-}" ] || eval "$BEST_BEFORE"
        if [ -n "${EPOCHREALTIME:-}" ]; then
            s=$EPOCHREALTIME; "$@" >"${BEST_OUT:-/dev/null}" 2>&1; rc=$?; e=$EPOCHREALTIME
        else
            s=$(date +%s.%N); "$@" >"${BEST_OUT:-/dev/null}" 2>&1; rc=$?; e=$(date +%s.%N)
        fi
        [ "$rc" = 0 ] || { echo "bench: $* failed (status $rc)" >&2; return 1; }
        [ -z "${BEST_AFTER:-}" ] || eval "$BEST_AFTER"
        b=$(echo "t = $e - $s; if (t < $b) t else $b" | bc -l)
        i=$((i + 1))
    done
    echo "$b"
}

# corpus_tree SRC TREE N FIND-ARGS...: the corpus's .gguf files that match FIND-ARGS copied
# into SRC, numbered in order (hard links must stay on one file system), then TREE filled with
# N files: sets of hard links to all of them, spread over 20 folders, the last set cut to N.
# Prints the number of files copied and of sets linked. Needs CORPUS.
corpus_tree() {
    ct_src=$1 ct_tree=$2 ct_n=$3
    shift 3
    mkdir -p "$ct_src" "$ct_tree"
    ct_i=0
    for f in $(find "$CORPUS" -name '*.gguf' "$@" | sort); do
        ct_i=$((ct_i + 1))
        cp "$f" "$ct_src/$(printf %03d $ct_i)-$(basename "$f")"
    done
    ct_k=0 ct_made=0
    while [ "$ct_made" -lt "$ct_n" ]; do
        ct_k=$((ct_k + 1))
        ct_d="$ct_tree/$(printf %02d $((ct_k % 20)))/set$ct_k"
        mkdir -p "$(dirname "$ct_d")"
        cp -al "$ct_src" "$ct_d"
        ct_made=$((ct_made + ct_i))
    done
    ct_surplus=$((ct_made - ct_n))
    if [ "$ct_surplus" -gt 0 ]; then
        ls "$ct_d" | tail -n "$ct_surplus" | while read -r f; do rm "$ct_d/$f"; done
    fi
    echo "$ct_i $ct_k"
}
