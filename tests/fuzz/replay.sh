#!/bin/sh
# Replays golden/, the fuzzers' regression inputs and (when present) the shared corpus through
# both fuzz targets of files: the reader/writer symmetry checks and the edit path; then the
# text-value and catalog query-output targets through their own regression inputs.
. "$(dirname "$0")/../support/cli_lib.sh"
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
# the text-value target (the first byte picks the type)
replay replay_json "tests/fuzz/regress_json/" "$top_srcdir/tests/fuzz/regress_json"
# the catalog's query output (the first byte picks the format, and cells or SQL); built with SQLite
if [ -x "$top_builddir/tests/fuzz/replay_catalog" ]; then
    replay replay_catalog "tests/fuzz/regress_catalog/" "$top_srcdir/tests/fuzz/regress_catalog"
else
    skip "replay_catalog" "built without SQLite"
fi
finish
