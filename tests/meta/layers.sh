#!/bin/sh
# The library's layers only point down and its files form no circle (tests/layers.py).
. "$(dirname "$0")/cli_lib.sh"
python3 "$top_srcdir/tests/layers.py" "$top_builddir" && ok || fail "layering"
finish
