#!/bin/sh
# Replays golden/, the fuzzers' regression inputs and (when present) the shared corpus through
# both fuzz targets: the reader/writer symmetry checks and the edit path.
. "$(dirname "$0")/cli_lib.sh"
for target in replay_read replay_edit; do
    if "$top_builddir/tests/fuzz/$target" "$GOLDEN" "$top_srcdir/tests/fuzz/regress" "$CORPUS" > "$TMP/out" 2>&1; then
        ok
    else
        fail "$target: $(tail -3 "$TMP/out")"
    fi
    echo "$target: $(tail -1 "$TMP/out")"
done
# the text-value target: its regression inputs (the first byte picks the type)
if "$top_builddir/tests/fuzz/replay_json" "$top_srcdir/tests/fuzz/regress_json" > "$TMP/out" 2>&1; then
    ok
else
    fail "replay_json: $(tail -3 "$TMP/out")"
fi
echo "replay_json: $(tail -1 "$TMP/out")"
finish
