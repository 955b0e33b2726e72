#!/bin/sh
# The Python package (python/libgguf) under pytest (tests/python): Tensor.numpy() against
# gguf-py's dequantize and ggml, libgguf.compat.GGUFReader under gguf-py's own gguf_dump.py,
# reading, editing and whole-file writes against gguf-edit. One TAP line per pytest test; a test
# that skips (no corpus, gguf-py or oracle) is a TAP skip, a failure under GGUF_TEST_NO_SKIP.
# Runs $GGUF_PYTHON (default /usr/bin/python3: Debian's, with python3-numpy and python3-pytest);
# without numpy or pytest the whole script is skipped (exit 77).
. "$(dirname "$0")/../support/cli_lib.sh"

PY=${GGUF_PYTHON:-/usr/bin/python3}
if ! "$PY" -c 'import numpy, pytest' 2>/dev/null; then
    echo "$PY lacks numpy or pytest (apt-get install python3-numpy python3-pytest)" >&2
    exit 77
fi
if [ -z "${GGUF_BINDIR:-}" ]; then # the build's package and library, else the installed ones
    [ -f "$top_builddir/libgguf/.libs/libgguf.so" ] ||
        skip_all "no shared library built (configure --disable-shared): ctypes needs one"
    PYTHONPATH="$top_srcdir/python${PYTHONPATH:+:$PYTHONPATH}"
    LIBGGUF_LIBRARY="$top_builddir/libgguf/.libs/libgguf.so"
    export PYTHONPATH LIBGGUF_LIBRARY
fi
GGUF_PYTEST_RESULTS="$TMP/results"
PYTHONDONTWRITEBYTECODE=1 # nothing written into the source tree
export GGUF_PYTEST_RESULTS PYTHONDONTWRITEBYTECODE
: >"$GGUF_PYTEST_RESULTS"
cd "$TMP" || exit 1
"$PY" -m pytest -p no:cacheprovider -q -rfE --rootdir "$top_srcdir/tests/python" \
    "$top_srcdir/tests/python" ${GGUF_PYTEST_ARGS:-}
rc=$?
tab=$(printf '\t')
while IFS="$tab" read -r status name why; do
    case $status in
    pass) ok "$name" ;;
    skip) skip "$name" "$why" ;;
    *) fail "$name" ;;
    esac
done <"$GGUF_PYTEST_RESULTS"
# a test module that does not import, or pytest itself failing, leaves no result line
case $rc in
0 | 1) grep -q . "$GGUF_PYTEST_RESULTS" || fail "pytest ran no test (exit status $rc)" ;;
*) fail "pytest exited with status $rc (collection errors above)" ;;
esac
[ $rc -eq 1 ] && ! grep -q "^fail" "$GGUF_PYTEST_RESULTS" && fail "pytest failed (see the log)"
finish
