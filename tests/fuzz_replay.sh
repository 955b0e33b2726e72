#!/bin/sh
# Replays golden/, the fuzzers' regression inputs and (when present) the shared corpus through
# the fuzz targets: the reader/writer symmetry checks and the edit path (and the text-value
# target over its own regression inputs).
. "$(dirname "$0")/cli_lib.sh"
replay() { # TARGET WHAT INPUTS...
    target=$1 what=$2; shift 2
    if "$top_builddir/tests/fuzz/$target" "$@" >"$TMP/out" 2>&1; then
        ok "$target: $what"
    else
        fail "$target: $what: $(tail -3 "$TMP/out")"
    fi
    echo "$target, $what: $(tail -1 "$TMP/out")"
}
for target in replay_read replay_edit; do
    replay $target "golden/ and tests/fuzz/regress/" "$GOLDEN" "$top_srcdir/tests/fuzz/regress"
    if have_corpus; then
        replay $target "../shared/corpus" "$CORPUS"
    else
        skip "$target: ../shared/corpus" "no ../shared/corpus"
    fi
done
# the text-value target: its regression inputs (the first byte picks the type)
replay replay_json "tests/fuzz/regress_json/" "$top_srcdir/tests/fuzz/regress_json"
finish
