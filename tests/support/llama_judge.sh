# Sourced by the tests whose judge is llama.cpp's loader (tests/cli/verify_llama.sh,
# tests/cli/verify_archs.sh), after cli_lib.sh: judge a file, an edit of a file, or a built model.
# Needs ORACLE, EDIT, GEN (tests/support/make_llama_model), VOCAB (the real vocabularies) and
# $TMP/classes (one "CLASS VERDICT" line per case is appended).
#
# JUDGE_SAMPLE=N (set by the caller) runs one in N of the edit and gen cases, chosen by a hash
# of JUDGE_SEED and the case's name, so that a seed repeats its sample; 1 (the default) runs all.
# GGUF_JUDGE_ONLY=PATTERN (a shell pattern) runs exactly the edit and gen cases whose names match
# it, sampled or not: a mutant's env: line names the cases that guard it.
JUDGE_SAMPLE=${JUDGE_SAMPLE:-1}
JUDGE_SEED=${JUDGE_SEED:-0}
sampled() { # NAME: whether the case NAME is in the sample
    if [ -n "${GGUF_JUDGE_ONLY:-}" ]; then
        case $1 in $GGUF_JUDGE_ONLY) return 0 ;; *) return 1 ;; esac
    fi
    [ "$JUDGE_SAMPLE" -le 1 ] && return 0
    [ $(($(printf '%s:%s' "$JUDGE_SEED" "$1" | cksum | cut -d' ' -f1) % JUDGE_SAMPLE)) -eq 0 ]
}

# judge CLASS NAME FILE NEEDLE: llama-load decides; verify must agree, and name NEEDLE when it
# refuses (NEEDLE empty: nothing to name). Prints one line per case.
judge() {
    class=$1 name=$2 file=$3 needle=$4
    "$ORACLE" llama-load "$file" >/dev/null 2>"$TMP/load.err"
    load=$?
    "$EDIT" verify "$file" >"$TMP/v.out" 2>&1
    v=$?
    verdict=agree
    case $load in
    0) [ $v -eq 0 ] || [ $v -eq 3 ] || verdict=DISAGREE ;;
    1 | 3 | 134) [ $v -eq 1 ] || verdict=DISAGREE ;; # 134: llama.cpp aborted (GGML_ASSERT)
    *) verdict="DISAGREE (llama-load exit $load)" ;;
    esac
    # a sanitizer build reports there, whatever the status
    if grep -q "Sanitizer\|runtime error: " "$TMP/v.out"; then verdict="DISAGREE (sanitizer)"; fi
    if [ "$verdict" = agree ] && [ $v -eq 1 ] && [ -n "$needle" ] &&
        ! grep -q -F -- "$needle" "$TMP/v.out"; then
        verdict="DISAGREE (does not name $needle)"
    fi
    printf '%-14s %-52s llama-load %s verify %s %s\n' "$class" "$name" "$load" "$v" "$verdict"
    echo "$class $verdict" | cut -d' ' -f1-2 >>"$TMP/classes"
    if [ "$verdict" = agree ]; then ok; else
        fail "$name: llama-load $load, verify $v: $(grep -v ': ok$' "$TMP/v.out" | head -3)"
        grep -i "error\|abort\|assert" "$TMP/load.err" | head -2 >&2
    fi
}

# edit CLASS NAME BASE NEEDLE set|rm ARGS...: one ggml-written edit of BASE, then judge
edit() {
    class=$1 name=$2 base=$3 needle=$4 op=$5
    shift 5
    sampled "$name" || return 0
    out="$TMP/edit.gguf"
    if ! "$ORACLE" "$op" "$base" "$out" "$@" >/dev/null 2>"$TMP/edit.err"; then
        fail "$name: ggml-oracle $op failed: $(head -c 200 "$TMP/edit.err")"
        return
    fi
    judge "$class" "$name" "$out" "$needle"
}

# gen CLASS NAME ARCH VOCAB NEEDLE [make_llama_model options]: a model built so, then judge
gen() {
    class=$1 name=$2 arch=$3 vocab=$4 needle=$5
    shift 5
    sampled "$name" || return 0
    out="$TMP/gen.gguf"
    if ! "$GEN" "$arch" "$VOCAB/ggml-vocab-$vocab.gguf" "$out" "$@" 2>"$TMP/gen.err"; then
        fail "$name: make_llama_model failed: $(head -c 200 "$TMP/gen.err")"
        return
    fi
    judge "$class" "$name" "$out" "$needle"
}
