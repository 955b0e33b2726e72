#!/bin/sh
# The library's layers only point down and its files form no circle (tests/meta/layers.py).
. "$(dirname "$0")/../support/cli_lib.sh"
python3 "$top_srcdir/tests/meta/layers.py" "$top_builddir" && ok || fail "layering"
finish
