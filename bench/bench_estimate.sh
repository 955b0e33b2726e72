#!/bin/sh
# `estimate` next to `show` on a model with a 262k-token vocabulary (gemma-4's, from llama.cpp's
# models/ beside ggml-oracle; a tiny gemma3 built on it by tests/support/make_llama_model): best of
# BENCH_RUNS (5) wall times each, output to /dev/null, and the ratio estimate / show. Both read
# the header only; estimate must take no longer. The tools are run directly (not through
# libtool's wrapper script).
set -eu
top_builddir=${top_builddir:-.}
EDIT="$top_builddir/tools/gguf-edit"
GEN="$top_builddir/tests/support/make_llama_model"
if [ -x "$top_builddir/tools/.libs/gguf-edit" ]; then
    EDIT="$top_builddir/tools/.libs/gguf-edit"
    LD_LIBRARY_PATH="$top_builddir/libgguf/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
fi
[ -x "$top_builddir/tests/support/.libs/make_llama_model" ] && GEN="$top_builddir/tests/support/.libs/make_llama_model"
ORACLE=${GGML_ORACLE:-/tmp/ggml-oracle/bin/ggml-oracle}
VOCAB="$(dirname "$ORACLE")/../src/models/ggml-vocab-gemma-4.gguf"
RUNS=${BENCH_RUNS:-5}
if [ ! -f "$VOCAB" ]; then
    echo "bench-estimate: $VOCAB absent (../shared/oracle/build.sh), skipped"
    exit 0
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' HUP INT TERM # through the EXIT trap: an interrupted run leaves nothing
"$GEN" gemma3 "$VOCAB" "$TMP/gemma3-262k.gguf" >/dev/null
. "$(dirname "$0")/bench_lib.sh"
n=$("$EDIT" get "$TMP/gemma3-262k.gguf" tokenizer.ggml.tokens --json 2>/dev/null |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)))' 2>/dev/null || echo '?')
est=$(best "$EDIT" estimate "$TMP/gemma3-262k.gguf")
show=$(best "$EDIT" show "$TMP/gemma3-262k.gguf")
echo "estimate next to show, best of $RUNS (ms), a model with a vocabulary of $n tokens:"
printf '  %-24s estimate %7.1f  show %7.1f  ratio %.2f\n' "gemma3-262k.gguf" \
    "$(echo "$est * 1000" | bc -l)" "$(echo "$show * 1000" | bc -l)" "$(echo "$est / $show" | bc -l)"
