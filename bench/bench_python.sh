#!/bin/sh
# The Python package (python/libgguf) next to gguf-py (llama.cpp's gguf package), in one run:
#   dequantize a 4096 x 14336 Q4_K and Q6_K tensor to float32 on 1 thread (Tensor.numpy()
#   against gguf.quants.dequantize), and open a model with a 262k-token vocabulary and read
#   every key's value (libgguf.open + .kv against GGUFReader + contents()).
# Each figure is the best of BENCH_RUNS (3) fresh processes, two ways: the work inside the
# process (bench_python.py's own timer; a dequantization is done twice in each process, and
# the faster counts), and the whole process with bench_lib.sh's best() (interpreter start,
# imports and both conversions included). The load average is printed before and after: the
# ratios side by side in one run are what count on a busy machine.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
PY=${GGUF_PYTHON:-/usr/bin/python3}
GGUF_PY_DIR=${GGUF_PY_DIR:-/tmp/ggml-oracle/src/gguf-py}
ORACLE=${GGML_ORACLE:-/tmp/ggml-oracle/bin/ggml-oracle}
VOCAB="$(dirname "$ORACLE")/../src/models/ggml-vocab-gemma-4.gguf"
RUNS=${BENCH_RUNS:-3}
if ! "$PY" -c 'import numpy' 2>/dev/null || [ ! -d "$GGUF_PY_DIR/gguf" ]; then
    echo "bench-python: $PY without numpy, or gguf-py absent ($GGUF_PY_DIR): skipped"
    exit 0
fi
PYTHONPATH="$top_srcdir/python"
LIBGGUF_LIBRARY="$top_builddir/libgguf/.libs/libgguf.so"
export PYTHONPATH LIBGGUF_LIBRARY GGUF_PY_DIR
B="$top_srcdir/bench/bench_python.py"
. "$(dirname "$0")/bench_lib.sh"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/gguf-bench-python.XXXXXX") || exit 1
trap 'rm -rf "$DIR"' EXIT INT TERM

# inner ARGS...: the best of RUNS in-process times bench_python.py prints
inner() {
    b=999
    i=0
    while [ $i -lt "$RUNS" ]; do
        t=$("$PY" "$B" "$@") || { echo "bench-python: $* failed" >&2; exit 1; }
        b=$(echo "if ($t < $b) $t else $b" | bc -l)
        i=$((i + 1))
    done
    echo "$b"
}
row() { # WHAT ARGS-AFTER-IMPL...
    what=$1
    shift
    mode=$1
    shift
    a=$(inner "$mode" libgguf "$@")
    b=$(inner "$mode" gguf-py "$@")
    pa=$(best "$PY" "$B" "$mode" libgguf "$@")
    pb=$(best "$PY" "$B" "$mode" gguf-py "$@")
    printf '  %-34s libgguf %8.3f s  gguf-py %8.3f s  %6.1fx   (processes: %.3f s, %.3f s, %.1fx)\n' \
        "$what" "$a" "$b" "$(echo "$b / $a" | bc -l)" "$pa" "$pb" "$(echo "$pb / $pa" | bc -l)"
}

echo "python: libgguf's package next to gguf-py, best of $RUNS; load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$PY" "$B" gen "$DIR/big.gguf" || exit 1
row "dequantize Q4_K 4096x14336, 1 thr" dequant "$DIR/big.gguf" q4_k
row "dequantize Q6_K 4096x14336, 1 thr" dequant "$DIR/big.gguf" q6_k
if [ -f "$VOCAB" ]; then
    n=$("$PY" -c 'import sys, libgguf; print(len(libgguf.open(sys.argv[1]).kv["tokenizer.ggml.tokens"]))' "$VOCAB")
    row "open + every key ($n tokens)" kv "$VOCAB"
else
    echo "  open + every key: $VOCAB absent (../shared/oracle/build.sh), skipped"
fi
echo "  load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
