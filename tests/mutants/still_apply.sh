#!/bin/sh
# Every planted bug of tests/mutants/mutants.txt still applies: its original text occurs exactly
# once in its file. A change to the code that a mutant quotes otherwise goes unseen until the next
# `make mutate` stops on it (or reports the mutant as not building). The check itself can fail:
# a copy of the list with one original text changed is reported.
. "$(dirname "$0")/../support/cli_lib.sh"
MUTATE="$top_srcdir/tests/mutants/mutate.py"
if ! command -v python3 >/dev/null 2>&1; then
    skip_all "python3 is not installed"
fi
python3 "$MUTATE" --srcdir "$top_srcdir" --check >"$TMP/out" 2>&1 && ok ||
    fail "mutants that no longer apply:
$(grep -A3 '^mutant ' "$TMP/out" | head -40)"
# the check fails on a mutant whose text is not in its file
awk 'done == 0 && /^-/ { print "-     a line no source file holds"; done = 1; next } { print }' \
    "$top_srcdir/tests/mutants/mutants.txt" >"$TMP/broken.txt"
python3 "$MUTATE" --srcdir "$top_srcdir" --list "$TMP/broken.txt" --check >"$TMP/out" 2>&1 &&
    fail "a mutant whose original text is nowhere passed the check" ||
    { grep -q "occurs 0 times" "$TMP/out" && ok || fail "the check failed without saying why: $(head -3 "$TMP/out")"; }
finish
