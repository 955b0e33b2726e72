# Shared by the CLI tests: paths, a temp dir, and pass/fail counting with a closing line.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
# the tools: the build's, or installed ones (GGUF_BINDIR: CI runs these tests against the
# installed tools and shared library too)
EDIT="${GGUF_BINDIR:-$top_builddir/tools}/gguf-edit"
CATALOG_TOOL="${GGUF_BINDIR:-$top_builddir/tools}/gguf-catalog"
GOLDEN="$top_srcdir/golden"
CORPUS="$top_srcdir/../shared/corpus"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gguf-cli.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
skip() { echo "SKIP: $*" >&2; }
# expect_status WANT CMD...: runs CMD, checks its exit status
expect_status() {
    want=$1; shift
    "$@" >"$TMP/out" 2>"$TMP/err"
    got=$?
    if [ "$got" -eq "$want" ]; then ok; else fail "$* exited $got, expected $want: $(head -c 300 "$TMP/err")"; fi
}
have_corpus() { [ -f "$CORPUS/MANIFEST.tsv" ]; }
finish() {
    echo "$(basename "$0"): $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
# ggml-oracle (../shared/oracle, built by .ci/run): ggml's own reader and writer, when present
ORACLE=${GGML_ORACLE:-/tmp/ggml-oracle/bin/ggml-oracle}
have_oracle() { [ -x "$ORACLE" ]; }
