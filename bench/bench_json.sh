#!/bin/sh
# `show --json` of big vocabularies (llama-bpe: 128k tokens, gemma-4: 262k) next to ggml's own
# reader with a JSON printer (`ggml-oracle dump`) on the same file: best of BENCH_RUNS (5) wall
# times, output to /dev/null, and the ratio ours / ggml's. The tool is run directly (not through
# libtool's wrapper script).
set -eu
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
EDIT="$top_builddir/tools/gguf-edit"
if [ -x "$top_builddir/tools/.libs/gguf-edit" ]; then
    EDIT="$top_builddir/tools/.libs/gguf-edit"
    LD_LIBRARY_PATH="$top_builddir/libgguf/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
fi
ORACLE=${GGML_ORACLE:-/tmp/ggml-oracle/bin/ggml-oracle}
RUNS=${BENCH_RUNS:-5}
if [ ! -x "$ORACLE" ]; then
    echo "bench-json: ggml-oracle absent (../shared/oracle/build.sh), skipped"
    exit 0
fi
. "$(dirname "$0")/bench_lib.sh"
echo "show --json, best of $RUNS (ms), next to ggml's reader and printer (ggml-oracle dump):"
for f in "$top_srcdir/../shared/corpus/real/ggml-vocab-llama-bpe.gguf" \
         "$(dirname "$ORACLE")/../src/models/ggml-vocab-gemma-4.gguf"; do
    [ -f "$f" ] || { echo "  $(basename "$f"): absent, skipped"; continue; }
    ours=$(best "$EDIT" show --json "$f")
    theirs=$(best "$ORACLE" dump "$f")
    printf '  %-32s ours %7.1f  ggml %7.1f  ratio %.2f\n' "$(basename "$f")" \
        "$(echo "$ours * 1000" | bc -l)" "$(echo "$theirs * 1000" | bc -l)" "$(echo "$ours / $theirs" | bc -l)"
done
