# Shared by the CLI tests: paths, a temp dir, and results in TAP (automake's tap-driver.sh).
#
#   ok [WHAT]        one passed check             "ok - WHAT"
#   fail WHAT        one failed check             "not ok - WHAT" (and WHAT on stderr)
#   skip WHAT WHY    a part that could not run    "ok - WHAT # SKIP WHY" (or skip WHY)
#   skip_all WHY     the whole script cannot run  "1..0 # SKIP WHY", exit 0 (so does `exit 77`)
#   skip_all_optional WHY   a test run only when asked for (GGUF_BIG_TESTS) was not asked for
#   skip_sanitized WHAT WHY  a memory bound that a sanitizer build cannot show (it reserves
#                    terabytes of address space and keeps freed blocks): a skip there, a
#                    failure under GGUF_TEST_NO_SKIP anywhere else
#   finish           the plan "1..N"; returns non-zero when a check failed
#
# A missing corpus or oracle is a skip, never a pass; with GGUF_TEST_NO_SKIP=1 (CI, which has
# both) every skip but skip_all_optional's is a failure. The TAP lines go to the script's
# original stdout (fd 7); the script's own stdout goes to stderr, the log, so nothing it prints
# is read as a result. Every result is also counted in a file, so that ok and fail count inside
# $(...) and pipelines too.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
# the tools: the build's, or installed ones (GGUF_BINDIR: CI runs these tests against the
# installed tools and shared library too)
EDIT="${GGUF_BINDIR:-$top_builddir/tools}/gguf-edit"
CATALOG_TOOL="${GGUF_BINDIR:-$top_builddir/tools}/gguf-catalog"
# In a shared build tools/ holds libtool's wrapper scripts, which cost a shell each call (four
# times the tool's own start): the tests run the programs behind them, with the build's library
if [ -z "${GGUF_BINDIR:-}" ] && [ -x "$top_builddir/tools/.libs/gguf-edit" ] &&
    [ -d "$top_builddir/libgguf/.libs" ]; then
    EDIT="$top_builddir/tools/.libs/gguf-edit"
    [ -x "$top_builddir/tools/.libs/gguf-catalog" ] &&
        CATALOG_TOOL="$top_builddir/tools/.libs/gguf-catalog"
    LD_LIBRARY_PATH="$(cd "$top_builddir/libgguf/.libs" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
fi
GOLDEN="$top_srcdir/golden"
CORPUS="$top_srcdir/../shared/corpus"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gguf-cli.XXXXXX")
TAP_COUNT="$TMP/.tap-results"
: >"$TAP_COUNT"
tap_planned=0
exec 7>&1 1>&2
passed=0
failed=0

# tap_text TEXT: one line, '#' escaped (a bare '#' would start a TAP directive)
tap_text() {
    case $1 in
    *'
'* | *'#'*) printf '%s' "$1" | tr '\n' ' ' | sed 's/#/\\#/g' ;;
    *) printf '%s' "$1" ;;
    esac
}
no_skip() { [ -n "${GGUF_TEST_NO_SKIP:-}" ] && [ "$GGUF_TEST_NO_SKIP" != 0 ]; }

ok() {
    passed=$((passed + 1))
    echo ok >>"$TAP_COUNT"
    if [ $# -gt 0 ]; then echo "ok - $(tap_text "$*")" >&7; else echo ok >&7; fi
}
fail() {
    failed=$((failed + 1))
    echo "not ok" >>"$TAP_COUNT"
    echo "not ok - $(tap_text "$*")" >&7
    echo "FAIL: $*" >&2
}
skip() { # WHAT WHY, or just WHY
    if [ $# -ge 2 ]; then tap_what=$1 tap_why=$2; else tap_what="a part of $(basename "$0")" tap_why=$1; fi
    if no_skip; then
        fail "$tap_what: skipped ($tap_why), and GGUF_TEST_NO_SKIP is set"
        return
    fi
    echo ok >>"$TAP_COUNT"
    echo "ok - $(tap_text "$tap_what") # SKIP $(tap_text "$tap_why")" >&7
    echo "SKIP: $tap_what: $tap_why" >&2
}
skip_all() {
    if no_skip; then
        fail "$(basename "$0"): skipped ($1), and GGUF_TEST_NO_SKIP is set"
        finish
        exit 1
    fi
    if [ -s "$TAP_COUNT" ]; then
        skip "the rest of $(basename "$0")" "$1"
        finish
        exit $?
    fi
    echo "1..0 # SKIP $(tap_text "$1")" >&7
    echo "SKIP: $(basename "$0"): $1" >&2
    tap_planned=1
    exit 0
}
skip_all_optional() { # (.ci/run tells these from the others by "optional: ")
    GGUF_TEST_NO_SKIP=
    skip_all "optional: $1"
}
skip_sanitized() { # (the plain build's run of the same check is the one that counts)
    if grep -q __asan_init "$EDIT" 2>/dev/null; then
        (GGUF_TEST_NO_SKIP= skip "$1" "optional: a sanitizer build: $2")
    else
        skip "$1" "$2"
    fi
}
# expect_status WANT CMD...: runs CMD, checks its exit status
expect_status() {
    want=$1; shift
    "$@" >"$TMP/out" 2>"$TMP/err"
    got=$?
    if [ "$got" -eq "$want" ]; then ok; else fail "$* exited $got, expected $want: $(head -c 300 "$TMP/err")"; fi
}
have_corpus() { [ -f "$CORPUS/MANIFEST.tsv" ]; }
# llama_vocab_of ARCH: the corpus vocabulary (real/ggml-vocab-NAME.gguf) a tiny model of ARCH
# takes (tests/support/make_llama_model; any loads, these are the ones its real models use)
llama_vocab_of() {
    case $1 in
    bert | modern-bert | nomic-bert | nomic-bert-moe | jina-bert-v2 | jina-bert-v3) echo bert-bge ;;
    deepseek2 | deepseek2-ocr | deepseek32 | deepseek4) echo deepseek-coder ;;
    phi3) echo phi-3 ;;
    qwen2 | qwen3 | qwen3moe | qwen2moe | qwen4exp | gpt-oss | starcoder2 | olmo2 | rwkv6qwen2 | \
        arwkv7) echo gpt-2 ;;
    *) echo llama-spm ;;
    esac
}
# llama_graph_opts ARCH: make_llama_model options for the tensors llama.cpp's graph uses where
# its loader lets them be absent, and the keys whose defaults its graph cannot take, for tests
# that build a context (llama-mem): without them the graph dereferences a null tensor or fails
# an assertion. The recurrent layers of the tiny hybrids are among 0-3. SCALE: the model's
# --scale, which widths set here follow.
llama_graph_opts() {
    gscale=${2:-1}
    case $1 in
    qwen35 | qwen35moe) echo --opt blk.0.attn_qkv.weight --opt blk.0.attn_gate.weight ;;
    # the fused interpolations (the graph reads the five separate ones unchecked)
    rwkv6) echo --opt blk.0.time_mix_lerp_fused.weight --opt blk.1.time_mix_lerp_fused.weight ;;
    # one token shift: the graph takes the shift state as one embedding wide
    rwkv6qwen2) echo --set rwkv6qwen2.token_shift_count=u32:1 ;;
    # and the gate, which the six fused interpolations the plan gives imply
    arwkv7)
        echo --set arwkv7.token_shift_count=u32:1 --set arwkv7.attention.gate_lora_rank=u32:32
        for l in 0 1; do
            echo --opt "blk.$l.time_mix_g1.weight" --opt "blk.$l.time_mix_g2.weight"
        done
        ;;
    qwen3next | granitehybrid | nemotron_h | nemotron_h_moe)
        for l in 0 1 2 3; do
            echo --opt "blk.$l.ssm_conv1d.bias" --opt "blk.$l.ssm_in.weight"
        done
        ;;
    falcon-h1) echo --opt blk.0.ssm_conv1d.bias --opt blk.1.ssm_conv1d.bias ;;
    # sliding layers' heads as wide as the others: the graph shapes every layer's with the latter
    mimo2 | step35)
        echo --set "$1.attention.key_length_swa=u32:$((16 * gscale))" \
            --set "$1.attention.value_length_swa=u32:$((16 * gscale))"
        ;;
    # the latent cache's one head: keys the rank and the rope part wide, values the rank
    kimi-linear | kimi-k3 | bailingmoe3)
        echo --set "$1.attention.head_count_kv=u32:[0,1]" \
            --set "$1.attention.key_length=u32:$((48 * gscale))" \
            --set "$1.attention.value_length=u32:$((32 * gscale))"
        ;;
    # the indexer's Hadamard rotation takes heads of 64 or more
    deepseek32) echo --set "deepseek32.attention.indexer.key_length=u32:$((64 * gscale))" ;;
    # and glm-dsa's optional indexer tensors, which its graph reads in every layer; full
    # indexers in layers 0, 2 and 3, the others reusing the last one's picks
    glm-dsa)
        echo --layers 5 --set "glm-dsa.attention.indexer.key_length=u32:$((64 * gscale))" \
            --set "glm-dsa.attention.indexer.types=u32:[1,0,1,1,0]"
        indexer_opts 0 4
        ;;
    # and one latent head, the sliding layers' key and value sizes those of their own latent
    dots3note)
        echo --set "dots3note.attention.indexer.key_length=u32:$((64 * gscale))" \
            --set "dots3note.attention.key_length=u32:$((48 * gscale))" \
            --set "dots3note.attention.value_length=u32:$((32 * gscale))" \
            --set "dots3note.attention.key_length_swa=u32:$((32 * gscale))" \
            --set "dots3note.attention.value_length_swa=u32:$((16 * gscale))" \
            --set dots3note.attention.head_count_kv=u32:1
        ;;
    # four hyper-connection streams (its graph's mixing takes no other count), one key/value head
    # (the cache's rows are one head wide), no hash-routed layer (its token-to-expert table is
    # I32, which the generator does not write), and the indexer's Hadamard rotation takes heads
    # of 64 or more; heads of 64, so that quantized caches apply and a key row compressed 128 to
    # 1 is a whole byte per token
    deepseek4)
        echo --set deepseek4.hyper_connection.count=u32:4 \
            --set deepseek4.attention.head_count_kv=u32:1 --set deepseek4.hash_layer_count=u32:0 \
            --set "deepseek4.attention.indexer.key_length=u32:$((64 * gscale))" \
            --set "deepseek4.attention.key_length=u32:$((64 * gscale))" \
            --set "deepseek4.attention.value_length=u32:$((64 * gscale))"
        ;;
    # layer 0's relative position biases, which the graphs read in every layer
    t5encoder) echo --opt enc.blk.0.attn_rel_b.weight ;;
    t5) echo --opt enc.blk.0.attn_rel_b.weight --opt dec.blk.0.attn_rel_b.weight ;;
    # no groups: the graph's convolution takes none
    plamo2) echo --set plamo2.ssm.group_count=u32:0 ;;
    # layers 2 and 3 read the caches of layers 0 and 1 (sliding, full): the graph needs two
    # layers with a cache of their own before the sharing ones
    gemma4)
        echo --layers 4 --set "gemma4.attention.sliding_window_pattern=bool:[true,false,true,false]" \
            --set gemma4.attention.shared_kv_layers=u32:2
        ;;
    esac
}
# indexer_opts FIRST LAST: make_llama_model options for the optional sparse-attention indexer
# tensors of layers FIRST to LAST (glm-dsa's)
indexer_opts() {
    for l in $(seq "$1" "$2"); do
        for t in k_norm.weight k_norm.bias proj.weight attn_k.weight attn_q_b.weight; do
            echo --opt "blk.$l.indexer.$t"
        done
    done
}
# sample N FILE: N lines of FILE drawn by $seed (the same seed draws the same lines)
sample() {
    awk -v s="$seed" 'BEGIN { srand(s) } { print rand() "\t" $0 }' "$2" | sort -k1,1 |
        head -"$1" | cut -f2
}
finish() {
    n=$(wc -l <"$TAP_COUNT")
    n=$((n + 0))
    nf=$(grep -c '^not' "$TAP_COUNT")
    echo "$(basename "$0"): $((n - nf)) passed or skipped, $nf failed" >&2
    echo "1..$n" >&7
    tap_planned=1
    [ "$nf" -eq 0 ]
}
# On exit: `exit 77` (automake's SKIP) becomes a TAP skip; the temp dir goes.
tap_exit() {
    status=$?
    if [ "$status" -eq 77 ] && [ "$tap_planned" -eq 0 ]; then
        (skip_all "exit 77")
        status=$?
    fi
    rm -rf "$TMP"
    exit "$status"
}
trap tap_exit EXIT
# ggml-oracle (../shared/oracle, built by .ci/run): ggml's own reader and writer, when present.
# GGML_ORACLE names it; unset, the usual place is tried; set but empty (or to a path that is not
# there), there is none: comparisons are reported as skipped.
ORACLE=${GGML_ORACLE-/tmp/ggml-oracle/bin/ggml-oracle}
have_oracle() { [ -n "$ORACLE" ] && [ -x "$ORACLE" ]; }
# held POINT CMD...: starts CMD in the background and returns once it is held at the library's
# test point POINT (libgguf/base/test_pause.c), so that a race is staged by events, never by
# sleeps: the test acts, then `release` lets CMD go on (or kills $held_tool, CMD's own pid).
# $held_pid is the background job to `wait` for; held fails if CMD ended without reaching POINT.
held() {
    held_point=$1; shift
    rm -f "$TMP/.pause" "$TMP/.pause.go"; mkfifo "$TMP/.pause" "$TMP/.pause.go"
    # open for reading and writing (which never blocks): CMD's line, or the line saying that
    # CMD ended without reaching POINT, waits in the FIFO whenever it comes
    exec 8<>"$TMP/.pause"
    ( exec 8>&-
      GGUF_TEST_PAUSE_AT=$held_point GGUF_TEST_PAUSE_FIFO="$TMP/.pause" "$@"; st=$?
      exec 9<>"$TMP/.pause"; echo ended >&9; exit $st ) &
    held_pid=$!
    held_tool=
    read -r reached held_tool <&8
    exec 8>&-
    [ "$reached" = "${held_point%%#*}" ]
}
release() { echo go >"$TMP/.pause.go"; }
