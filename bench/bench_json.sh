#!/bin/sh
# `show --json` of big vocabularies (llama-bpe: 128k tokens, gemma-4: 262k) next to ggml's own
# reader with a JSON printer (`ggml-oracle dump`) and to @huggingface/gguf's gguf() with
# JSON.stringify (node; the npm package is installed under the build tree when absent) on the
# same files: best of BENCH_RUNS (5) wall times, output to /dev/null, and the ratios. The tool
# is run directly (not through libtool's wrapper script). Then callgrind's instruction count of
# ours (repeatable on a busy machine, unlike times), and a Tab press completing a key of the
# 262k file (bash, completion/gguf-edit.bash): the first of a shell and the next.
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
HF_DIR="$top_builddir/bench/npm"
HF=
if command -v node >/dev/null 2>&1; then
    if [ ! -d "$HF_DIR/node_modules/@huggingface/gguf" ] && command -v npm >/dev/null 2>&1; then
        mkdir -p "$HF_DIR"
        npm install --prefix "$HF_DIR" --no-audit --no-fund --silent @huggingface/gguf \
            >/dev/null 2>&1 || true
    fi
    [ -d "$HF_DIR/node_modules/@huggingface/gguf" ] && HF=$(cd "$HF_DIR/node_modules" && pwd)
fi
ms() { echo "$1 * 1000" | bc -l; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "show --json, best of $RUNS (ms), next to ggml's reader and printer (ggml-oracle dump)"
echo "and @huggingface/gguf's gguf() + JSON.stringify (node):"
GEMMA="$(dirname "$ORACLE")/../src/models/ggml-vocab-gemma-4.gguf"
for f in "$top_srcdir/../shared/corpus/real/ggml-vocab-llama-bpe.gguf" "$GEMMA"; do
    [ -f "$f" ] || { echo "  $(basename "$f"): absent, skipped"; continue; }
    ours=$(best "$EDIT" show --json "$f")
    theirs=$(best "$ORACLE" dump "$f")
    printf '  %-26s ours %7.1f  ggml %7.1f  ratio %.3f' "$(basename "$f")" \
        "$(ms "$ours")" "$(ms "$theirs")" "$(echo "$ours / $theirs" | bc -l)"
    if [ -n "$HF" ]; then
        hf=$(best node "$(dirname "$0")/hf_gguf_json.mjs" "$HF" "$f")
        printf '  @huggingface/gguf %7.1f  ratio %.3f' "$(ms "$hf")" "$(echo "$ours / $hf" | bc -l)"
    else
        printf '  @huggingface/gguf: node or the npm package absent'
    fi
    echo
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

if command -v valgrind >/dev/null 2>&1; then
    echo "instructions (callgrind) of show --json:"
    for f in "$top_srcdir/../shared/corpus/real/ggml-vocab-llama-bpe.gguf" "$GEMMA"; do
        [ -f "$f" ] || continue
        n=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$EDIT" show --json "$f" \
            2>&1 >/dev/null | sed -n 's/.*Collected : //p')
        printf '  %-26s %s\n' "$(basename "$f")" "$n"
    done
fi

# A Tab press after "gguf-edit get FILE tokenizer.ggml.t" in bash, as bash calls the
# completion: the first in a shell (which also asks for get's --help) and the next one.
if command -v bash >/dev/null 2>&1 && [ -f "$GEMMA" ]; then
    tmp=$(mktemp -d)
    ln -s "$(cd "$(dirname "$EDIT")" && pwd)/$(basename "$EDIT")" "$tmp/gguf-edit"
    cat > "$tmp/tab.bash" <<'TAB'
source "$1" || exit 1
COMP_WORDS=(gguf-edit get "$2" tokenizer.ggml.t)
COMP_CWORD=3
COMP_LINE="${COMP_WORDS[*]}"
COMP_POINT=${#COMP_LINE}
for press in first next; do
    s=$EPOCHREALTIME
    _gguf_edit_complete gguf-edit 2>/dev/null
    e=$EPOCHREALTIME
    [[ ${COMPREPLY[*]} == *tokenizer.ggml.tokens* ]] || { echo "no candidates" >&2; exit 1; }
    printf '%s ' "$(((${e/./} - ${s/./}) / 1000))"
done
TAB
    first=999999 next=999999 i=0
    while [ $i -lt "$RUNS" ]; do
        set -- $(PATH="$tmp:$PATH" bash "$tmp/tab.bash" \
            "$top_srcdir/completion/gguf-edit.bash" "$GEMMA")
        [ "$1" -lt "$first" ] && first=$1
        [ "$2" -lt "$next" ] && next=$2
        i=$((i + 1))
    done
    rm -rf "$tmp"
    echo "Tab completing a key of ggml-vocab-gemma-4.gguf (262k tokens), best of $RUNS:" \
        "first in a shell $first ms, next $next ms (load average $(cut -d' ' -f1-3 /proc/loadavg))"
fi
