#!/bin/sh
# Interrupts: SIGINT, SIGTERM or SIGHUP during a write leaves no temporary file, leaves the target
# whole (its old bytes, or its new bytes when the rename came first: compared with cmp against
# both), and ends the command by that signal (exit status 128 + N). The moments are chosen by
# events, never by time: the tools' test hook GGUF_EDIT_TEST_INTERRUPT="SIGNAL N" makes the
# process send itself SIGNAL at the Nth progress report of the write and stops the writing
# thread there, so the signal lands at that point of the write every time, however loaded the
# machine. N runs over every report the write makes (up to 20; the last one is the "syncing"
# moment: every byte written, the fsync, the proof and the rename still to come).
# Commands: requant, convert, copy, split, merge, and set rewriting the whole file.
# A seeded sample of the moments runs by default; GGUF_INTERRUPT_ALL=1 runs all 20 of each.
. "$(dirname "$0")/cli_lib.sh"

GEN="$top_builddir/tests/check_requant"
MODEL="$TMP/model.gguf"
"$GEN" --write-model "$MODEL" --embd 64 --ff 128 --layers 3 --heads 2 --kv-heads 1 --vocab 32 \
    && ok || fail "cannot generate a model with $GEN"
"$EDIT" split "$MODEL" "$TMP/set" --max-tensors 8 2>/dev/null && ok || fail "cannot split the model"
SET1=$(ls "$TMP"/set-00001-of-*.gguf)
SEED=${GGUF_INTERRUPT_SEED:-$(date +%s)}
echo "# seed $SEED (GGUF_INTERRUPT_SEED=$SEED repeats this sample)"
# the moments tried: all 20, or 4 drawn by the seed (1 and the last report always among them)
moments() { # LAST
    if [ -n "${GGUF_INTERRUPT_ALL:-}" ]; then
        seq 1 "$1"
    else
        { echo 1; echo "$1"; awk -v s="$SEED$2" -v n="$1" 'BEGIN { srand(s); for (i = 0; i < 2; i++) print 1 + int(rand() * n) }'; } | sort -un
    fi
}

# reports CMD...: how many progress reports the write makes (the hook at a report past the
# last never fires, so the command ends normally: the first N that lets it finish)
reports() {
    n=1
    while [ "$n" -le 21 ]; do
        GGUF_EDIT_TEST_INTERRUPT="15 $n" "$@" >/dev/null 2>&1
        [ $? -eq 0 ] && { echo $((n - 1)); return; }
        n=$((n + 1))
    done
    echo 21
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
    last=$(reports "$@")
    $setup
    [ "$last" -ge 1 ] && ok || { fail "$what: no progress report to interrupt at"; return; }
    [ "$last" -gt 20 ] && last=20
    echo "# $what: $last moments"
    for n in $(moments "$last" "$what"); do
        for sig in 2 15 1; do
            $setup
            GGUF_EDIT_TEST_INTERRUPT="$sig $n" "$@" >/dev/null 2>"$TMP/err"
            got=$?
            [ "$got" -eq $((128 + sig)) ] && ok \
                || fail "$what: signal $sig at report $n: exit $got, not $((128 + sig)): $(head -c 300 "$TMP/err")"
            for t in $targets; do
                if [ -e "$t.old" ] && cmp -s "$t" "$t.old"; then ok
                elif [ ! -e "$t.old" ] && [ ! -e "$t" ]; then ok
                elif cmp -s "$t" "$t.new"; then ok
                else fail "$what: signal $sig at report $n: $(basename "$t") is neither the old file nor the new one"
                fi
            done
            left=$(find "$TMP" -name '.*tmp-*' | head -3)
            [ -z "$left" ] && ok || fail "$what: signal $sig at report $n: left $left"
            [ -z "$(find "$TMP" -name '*.gguf-journal')" ] && ok \
                || fail "$what: signal $sig at report $n: a journal was left"
        done
    done
}

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
