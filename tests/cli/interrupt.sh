#!/bin/sh
# Interrupts: SIGINT, SIGTERM or SIGHUP during a write leaves no temporary file, leaves the target
# whole (its old bytes, or its new bytes when the rename came first: compared with cmp against
# both), and ends the command by that signal (exit status 128 + N). The moments are chosen by
# events, never by time: the library's test hook GGUF_TEST_INTERRUPT="SIGNAL N" makes the
# process send itself SIGNAL at the Nth step of its work (libgguf/base/test_pause.c: the input
# opened, the temporary file created, its header written, each tensor's bytes written, the
# fsync, the proof's read-back, just before and just after the rename, the folder's fsync; the
# journal's steps of an in-place edit) and stops the working thread there, so the signal lands
# at that point every time, however loaded the machine.
# Commands: requant, convert, copy, split, merge, set rewriting the whole file, and set in place.
# Each gets 20 moments (all of them when it has 20 or fewer): the last four (proven, just
# before the rename, just after it, the folder synced) and 16 spread over the rest; the signals
# take turns. A seeded sample of up to 6 of them runs by default; GGUF_INTERRUPT_ALL=1 runs all 20.
. "$(dirname "$0")/../support/cli_lib.sh"

GEN="$top_builddir/tests/lib/requant/check_requant"
MODEL="$TMP/model.gguf"
"$GEN" --write-model "$MODEL" --embd 64 --ff 128 --layers 3 --heads 2 --kv-heads 1 --vocab 32 \
    && ok || fail "cannot generate a model with $GEN"
"$EDIT" split "$MODEL" "$TMP/set" --max-tensors 8 2>/dev/null && ok || fail "cannot split the model"
SET1=$(ls "$TMP"/set-00001-of-*.gguf)
SEED=${GGUF_INTERRUPT_SEED:-$(date +%s)}
echo "# seed $SEED (GGUF_INTERRUPT_SEED=$SEED repeats this sample)"
# moments LAST WHAT: the moments tried out of 1..LAST
moments() {
    if [ "$1" -le 20 ]; then
        seq 1 "$1"
    else
        { seq $(($1 - 3)) "$1"; awk -v n="$1" 'BEGIN { for (i = 0; i < 16; i++) print 1 + int(i * (n - 5) / 15) }'; } | sort -un
    fi | if [ -n "${GGUF_INTERRUPT_ALL:-}" ] || [ "$1" -le 8 ]; then cat; else
        # 1, just before and after the rename, and 3 drawn by the seed (a few moments: all)
        awk -v s="$SEED$2" -v n="$1" 'BEGIN { srand(s) } { m[NR] = $0 } END {
            pick[1] = 1; pick[NR - 2] = 1; pick[NR - 1] = 1
            for (k = 0; k < 3 && NR > 3; k++) pick[1 + int(rand() * NR)] = 1
            for (i = 1; i <= NR; i++) if (i in pick) print m[i] }'
    fi
}

# count SETUP CMD...: how many moments the command's work has (the hook past the last never
# fires and the command ends normally: the first N that lets it finish, found by doubling then
# halving; SETUP before each run)
finishes() { # N SETUP CMD...
    at=$1; $2; shift 2
    GGUF_TEST_INTERRUPT="15 $at" "$@" >/dev/null 2>&1
}
count() {
    hi=1
    until finishes "$hi" "$@"; do
        hi=$((hi * 2))
        [ "$hi" -gt 4096 ] && { echo 4096; return; }
    done
    lo=$((hi / 2)) # interrupted at lo (or lo = 0), finished at hi
    while [ $((hi - lo)) -gt 1 ]; do
        mid=$(((lo + hi) / 2))
        if finishes "$mid" "$@"; then hi=$mid; else lo=$mid; fi
    done
    echo "$lo"
}

# interrupted WHAT TARGETS SETUP CMD...: for each chosen moment and signal, SETUP restores the
# old targets, CMD runs with the hook, and the checks follow. TARGETS: the files the command
# writes (space-separated); their old and new bytes are taken first (old: after SETUP; new:
# from an uninterrupted run).
interrupted() {
    what=$1 targets=$2 setup=$3; shift 3
    $setup
    for t in $targets; do
        if [ -e "$t" ]; then cp "$t" "$t.old"; else rm -f "$t.old"; fi
    done
    "$@" >/dev/null 2>"$TMP/err" || fail "$what: the uninterrupted run failed: $(head -c 300 "$TMP/err")"
    for t in $targets; do cp "$t" "$t.new"; done
    $setup
    last=$(count "$setup" "$@")
    [ "$last" -ge "$NEED" ] && ok || fail "$what: $last moments to interrupt at, not $NEED or more"
    [ "$last" -ge 1 ] || return
    tried=0 runs=0 olds=0 news=0
    for n in $(moments "$last" "$what"); do
        # the signals in turn; a write of a few moments gets all three at each
        if [ "$last" -le 8 ]; then sigs="2 15 1"; else
            case $((n % 3)) in 0) sigs=2 ;; 1) sigs=15 ;; *) sigs=1 ;; esac
        fi
        tried=$((tried + 1))
        for sig in $sigs; do
            runs=$((runs + 1))
            $setup
            GGUF_TEST_INTERRUPT="$sig $n" "$@" >/dev/null 2>"$TMP/err"
            got=$?
            [ "$got" -eq $((128 + sig)) ] && ok \
                || fail "$what: signal $sig at moment $n: exit $got, not $((128 + sig)): $(head -c 300 "$TMP/err")"
            for t in $targets; do
                if [ -e "$t.old" ] && cmp -s "$t" "$t.old"; then ok; olds=$((olds + 1))
                elif [ ! -e "$t.old" ] && [ ! -e "$t" ]; then ok; olds=$((olds + 1))
                elif cmp -s "$t" "$t.new"; then ok; news=$((news + 1))
                else fail "$what: signal $sig at moment $n: $(basename "$t") is neither the old file nor the new one"
                fi
            done
            left=$(find "$TMP" -name '.*tmp-*' | head -3)
            [ -z "$left" ] && ok || fail "$what: signal $sig at moment $n: left $left"
            [ -z "$(find "$TMP" -name '*.gguf-journal')" ] && ok \
                || fail "$what: signal $sig at moment $n: a journal was left"
        done
    done
    echo "# $what: $tried of $last moments interrupted, $runs runs; targets left old $olds times, new $news times"
}

# a write of every command has 20 moments or more; an in-place edit, the journal's few
NEED=20
# the targets exist before (replaced: old bytes or new) or not (created: absent or new)
old_out() { printf 'the old output\n' >"$TMP/out.gguf"; }
no_out() { rm -f "$TMP/out.gguf"; }
interrupted "requant" "$TMP/out.gguf" old_out "$EDIT" requant "$MODEL" "$TMP/out.gguf" Q8_0
interrupted "requant, a new output" "$TMP/out.gguf" no_out "$EDIT" requant "$MODEL" "$TMP/out.gguf" Q4_0
interrupted "convert" "$TMP/out.gguf" old_out "$EDIT" convert "$MODEL" "$TMP/out.gguf" --endian big
interrupted "copy" "$TMP/out.gguf" old_out "$EDIT" copy "$MODEL" "$TMP/out.gguf"
interrupted "merge" "$TMP/out.gguf" no_out "$EDIT" merge "$SET1" "$TMP/out.gguf"
"$EDIT" split "$MODEL" "$TMP/probe" --max-tensors 8 2>/dev/null
SPLIT_OUT=$(ls "$TMP"/probe-*.gguf | sed 's|/probe-|/sp-|' | tr '\n' ' ')
rm -f "$TMP"/probe-*.gguf
[ "$(echo $SPLIT_OUT | wc -w)" -ge 3 ] && ok || fail "the split makes fewer than 3 shards: $SPLIT_OUT"
no_split() { rm -f "$TMP"/sp-0000*.gguf; } # not their .old and .new copies
interrupted "split" "$SPLIT_OUT" no_split "$EDIT" split "$MODEL" "$TMP/sp" --max-tensors 8
# set rewriting the whole file: the new value does not fit the header's padding
edited() { cp "$MODEL" "$TMP/edit.gguf"; }
interrupted "set (a rewrite)" "$TMP/edit.gguf" edited \
    "$EDIT" set "$TMP/edit.gguf" general.name "$(printf '%0300d' 0)" --no-in-place
# set in place (a name of the same length), through the journal: an interrupt there waits for
# the journal to finish
edited
"$EDIT" set "$TMP/edit.gguf" general.name requant-tes2 --verbose >"$TMP/msg" 2>&1
grep -q "in place" "$TMP/msg" && ok || fail "set (in place) rewrote the file: $(head -c 300 "$TMP/msg")"
NEED=4
interrupted "set (in place)" "$TMP/edit.gguf" edited "$EDIT" set "$TMP/edit.gguf" general.name requant-tes2

# ---- gguf-catalog export: a new SQLite catalog appears whole or not at all (no file of its
# own or of SQLite's left beside it); an existing one keeps its rows ----
CATALOG="$top_builddir/tools/gguf-catalog"
if [ -x "$CATALOG" ]; then
    "$CATALOG" --db "$TMP/src.db" index "$MODEL" "$TMP"/set-*.gguf >/dev/null 2>&1 && ok ||
        fail "cannot index the models"
    files_in() { "$CATALOG" --db "$1" query --format csv "SELECT count(*) FROM files" 2>&1 | tail -n 1 | tr -d "\r"; }
    want=$(files_in "$TMP/src.db")
    no_db() { rm -f "$TMP/dst.db" "$TMP"/dst.db-*; }
    old_db() { no_db; "$CATALOG" --db "$TMP/dst.db" index "$MODEL" >/dev/null 2>&1; }
    # the output is never the input, by another name neither
    "$CATALOG" --db "$TMP/src.db" export "$TMP/./src.db" >/dev/null 2>"$TMP/err"; got=$?
    [ "$got" -ne 0 ] && grep -q "being copied: refused" "$TMP/err" && ok ||
        fail "export into the catalog itself: exit $got: $(head -c 300 "$TMP/err")"
    for setup in no_db old_db; do
        last=$(count $setup "$CATALOG" --db "$TMP/src.db" export "$TMP/dst.db")
        # a moment after each of the six tables, at least
        [ "$last" -ge 6 ] && ok || fail "export ($setup): $last moments to interrupt at, not 6 or more"
        n=1
        while [ "$n" -le "$last" ]; do
            sig=$(( n % 3 == 0 ? 2 : n % 3 == 1 ? 15 : 1 ))
            $setup
            GGUF_TEST_INTERRUPT="$sig $n" "$CATALOG" --db "$TMP/src.db" export "$TMP/dst.db" >/dev/null 2>"$TMP/err"
            got=$?
            [ "$got" -eq $((128 + sig)) ] && ok ||
                fail "export ($setup): signal $sig at moment $n: exit $got: $(head -c 300 "$TMP/err")"
            if [ $setup = no_db ]; then
                left=$(cd "$TMP" && ls -A | grep dst)
                [ -z "$left" ] && ok || fail "export into a new catalog: signal $sig at moment $n: left $left"
            else
                [ "$(files_in "$TMP/dst.db")" = 1 ] && ok ||
                    fail "export over a catalog: signal $sig at moment $n: its rows changed: $(files_in "$TMP/dst.db")"
                left=$(find "$TMP" -name '.*tmp-*' | head -3)
                [ -z "$left" ] && ok || fail "export over a catalog: signal $sig at moment $n: left $left"
            fi
            n=$((n + 1))
        done
        $setup
        "$CATALOG" --db "$TMP/src.db" export "$TMP/dst.db" >/dev/null 2>&1 &&
            [ "$(files_in "$TMP/dst.db")" = "$want" ] && ok ||
            fail "export ($setup): the uninterrupted export does not hold the catalog's $want files"
        echo "# export ($setup): interrupted at each of $last moments"
    done
fi

# ---- the progress bar on a terminal: "syncing" once every byte is written, never 100% ----
if command -v script >/dev/null 2>&1; then
    rm -f "$TMP/out.gguf"
    script -qec "'$EDIT' copy '$MODEL' '$TMP/out.gguf'" /dev/null >"$TMP/tty" 2>&1 </dev/null
    grep -q "copying .*syncing" "$TMP/tty" && ok || fail "no 'syncing' on the terminal: $(tr '\r' '\n' <"$TMP/tty" | tail -3)"
    grep -q "100%" "$TMP/tty" && fail "the bar showed 100% before the work was done" || ok
    cmp -s "$MODEL" "$TMP/out.gguf" && ok || fail "copy on a terminal: not the input's bytes"
else
    skip "the progress bar on a terminal" "no script(1) to give the command a terminal"
fi
finish
