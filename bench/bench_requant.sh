#!/bin/sh
# Requantizing a generated llama model of at least 1 GiB (F32) to Q4_K_M with 2 threads, next to
# llama_model_quantize (ggml-oracle's llama-quantize) on the same input in the same run:
# wall time relative to llama.cpp's (aim: at most 1.0) and peak resident memory relative to the
# model's size (aim: under 10%). The two outputs must be the same bytes.
#
#   BENCH_REQUANT_EMBD / _FF / _LAYERS   model shape (default 2048 / 5632 / 4: 1.16 GiB)
#   BENCH_REQUANT_TYPE                   preset (default Q4_K_M)
#   BENCH_REQUANT_THREADS                threads, both tools (default 2)
#   BENCH_DIR                            where the model goes (default $TMPDIR or /tmp)
# Without ggml-oracle the model comes from tests/lib/requant/check_requant --write-model and only
# our own figures are printed.
set -eu
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
EDIT="$top_builddir/tools/gguf-edit"
GEN="$top_builddir/tests/lib/requant/check_requant"
ORACLE=${GGML_ORACLE:-/tmp/ggml-oracle/bin/ggml-oracle}
VOCAB="$top_srcdir/../shared/corpus/real/ggml-vocab-llama-spm.gguf"
EMBD=${BENCH_REQUANT_EMBD:-2048}
FF=${BENCH_REQUANT_FF:-5632}
LAYERS=${BENCH_REQUANT_LAYERS:-4}
TYPE=${BENCH_REQUANT_TYPE:-Q4_K_M}
THREADS=${BENCH_REQUANT_THREADS:-2}
DIR=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/gguf-bench-requant.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
trap 'exit 130' HUP INT TERM # through the EXIT trap: an interrupted run leaves nothing
M="$DIR/model.gguf"

have_oracle=0
[ -x "$ORACLE" ] && [ -f "$VOCAB" ] && have_oracle=1
if [ $have_oracle = 1 ]; then
    "$ORACLE" gen-llama --vocab "$VOCAB" --embd "$EMBD" --ff "$FF" --layers "$LAYERS" \
        --heads 16 --kv-heads 4 "$M" 2>/dev/null
else
    "$GEN" --write-model "$M" --embd "$EMBD" --ff "$FF" --layers "$LAYERS" --heads 16 \
        --kv-heads 4 --vocab 32000
fi
size=$(wc -c <"$M")
cat "$M" >/dev/null # the same warm page cache for both

# measure OUT CMD...: "seconds peak_kib" of CMD into OUT
measure() {
    out=$1
    shift
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f '%e %M' -o "$out" "$@" >/dev/null 2>&1
    elif command -v python3 >/dev/null 2>&1; then
        python3 - "$out" "$@" <<'EOF'
import resource, subprocess, sys, time
t = time.time()
rc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
dt = time.time() - t
open(sys.argv[1], "w").write("%.2f %d\n" % (dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(rc)
EOF
    else
        start=$(date +%s.%N)
        "$@" >/dev/null 2>&1
        end=$(date +%s.%N)
        echo "$(echo "$end - $start" | bc -l) 0" >"$out"
    fi
}

mib=$(echo "$size / 1048576" | bc -l)
printf 'requant of a %.0f MiB F32 llama model (embd %s, ff %s, %s layers) to %s, %s threads:\n' \
    "$mib" "$EMBD" "$FF" "$LAYERS" "$TYPE" "$THREADS"
measure "$DIR/ours.t" "$EDIT" requant "$M" "$TYPE" -o "$DIR/ours.gguf" --threads "$THREADS"
read -r ours_s ours_kib <"$DIR/ours.t"
if [ $have_oracle = 1 ]; then
    measure "$DIR/theirs.t" "$ORACLE" llama-quantize "$M" "$DIR/theirs.gguf" "$TYPE" "$THREADS"
    read -r theirs_s theirs_kib <"$DIR/theirs.t"
    printf '  llama_model_quantize  %8.2f s   peak %7.1f MiB (%4.1f%% of the model)\n' \
        "$theirs_s" "$(echo "$theirs_kib / 1024" | bc -l)" \
        "$(echo "$theirs_kib * 1024 * 100 / $size" | bc -l)"
fi
printf '  gguf-edit requant     %8.2f s   peak %7.1f MiB (%4.1f%% of the model)\n' \
    "$ours_s" "$(echo "$ours_kib / 1024" | bc -l)" "$(echo "$ours_kib * 1024 * 100 / $size" | bc -l)"
if [ $have_oracle = 1 ]; then
    printf '  time ratio (ours / llama.cpp): %.2f   (aim: at most 1.0)\n' \
        "$(echo "$ours_s / $theirs_s" | bc -l)"
    if cmp -s "$DIR/ours.gguf" "$DIR/theirs.gguf"; then
        echo "  outputs: identical"
    else
        echo "  outputs: DIFFERENT"
        exit 1
    fi
else
    echo "  (ggml-oracle or the llama vocab absent: no comparison with llama.cpp)"
fi
printf '  peak memory / model size: %.3f   (aim: under 0.10)\n' \
    "$(echo "$ours_kib * 1024 / $size" | bc -l)"
