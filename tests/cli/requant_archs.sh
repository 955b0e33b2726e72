#!/bin/sh
# requant against llama_model_quantize (ggml-oracle llama-quantize) on every architecture with
# full tables.
#
# For each architecture, tests/support/make_llama_model builds a tiny model whose widths are four
# times its recipe's (--scale 4: embedding 256, feed-forward 512, so that the K-quants apply to most
# rows and llama.cpp's fallbacks to the rest). For Q4_K_M, Q3_K_S, Q5_K_M, Q6_K, Q2_K and IQ4_XS,
# and MXFP4_MOE where the model has experts, our file must be llama.cpp's, byte for byte.
# IQ4_XS is also run with an importance matrix (make_llama_model --imatrix). ggml-oracle's
# llama-quantize takes none, so that file is held to two references: its keys and tensor table
# are llama.cpp's file without one (plus the four quantize.imatrix.* keys llama-quantize adds;
# no rule of a two-layer model looks at the matrix), and every converted tensor's bytes are
# ggml_quantize_chunk's with the matrix's row for it (ggml-oracle quant --imatrix, one call per
# expert for 3-D tensors).
#
# make check draws GGUF_REQUANT_ARCHS architectures (2 unless set) by a seed (GGUF_ARCH_SEED,
# printed; the day of the year unless set), the last with experts when none before had them;
# GGUF_ARCH_ALL=1 (make check-architectures) runs every one; GGUF_ARCHS="a b" names them.
. "$(dirname "$0")/../support/cli_lib.sh"

have_oracle || skip_all "ggml-oracle not found (set GGML_ORACLE)"
have_corpus || skip_all "../shared/corpus absent"
GEN="$top_builddir/tests/support/make_llama_model"
all=${GGUF_ARCH_ALL:-0}
n_archs=${GGUF_REQUANT_ARCHS:-2}
seed=${GGUF_ARCH_SEED:-$(date -u +%j | sed 's/^0*//')}

"$EDIT" --list architectures | awk -F'\t' '$2 == "full" {print $1}' >"$TMP/full"
if [ -n "${GGUF_ARCHS:-}" ]; then
    order=$GGUF_ARCHS
elif [ "$all" != 0 ]; then
    order=$(cat "$TMP/full")
else
    order=$(sample 1000 "$TMP/full")
fi

# model ARCH: builds $TMP/ARCH.gguf
model() {
    "$GEN" "$1" "$CORPUS/real/ggml-vocab-$(llama_vocab_of "$1").gguf" "$TMP/$1.gguf" --scale 4 \
        2>"$TMP/gen.err"
}
has_experts() { "$EDIT" --list tensors "$1" | grep -q '_exps\.'; }

# same PRESET M: ours and llama.cpp's requantization of M, byte for byte
same() {
    preset=$1 m=$2
    rm -f "$TMP/ours.gguf" "$TMP/theirs.gguf"
    "$ORACLE" llama-quantize "$m" "$TMP/theirs.gguf" "$preset" >/dev/null 2>"$TMP/theirs.err"
    theirs=$?
    "$EDIT" requant "$m" "$TMP/ours.gguf" "$preset" >/dev/null 2>"$TMP/ours.err"
    ours=$?
    if [ $theirs -ne 0 ]; then
        [ $ours -ne 0 ] && ok || fail "$a $preset: llama.cpp refuses ($(tail -1 "$TMP/theirs.err")) but we wrote a file"
    elif [ $ours -ne 0 ]; then
        fail "$a $preset: $(tail -1 "$TMP/ours.err")"
    elif cmp -s "$TMP/ours.gguf" "$TMP/theirs.gguf"; then
        ok
    else
        fail "$a $preset: our file differs from llama_model_quantize's: $(diff \
            "$(show_tensors "$TMP/ours.gguf")" "$(show_tensors "$TMP/theirs.gguf" t)" | head -4 |
            tr '\n' ' ')"
    fi
}
show_tensors() { # FILE [TAG]: its tensor table without the file's own line, in a file
    "$EDIT" show "$1" --tensors | tail -n +2 >"$TMP/tensors$2"
    echo "$TMP/tensors$2"
}

# with_imatrix M: IQ4_XS with an importance matrix, held to llama.cpp's plan and ggml's quantizer
with_imatrix() {
    m=$1
    "$GEN" --imatrix "$m" "$TMP/im.gguf" || { fail "$a: make_llama_model --imatrix"; return; }
    "$ORACLE" llama-quantize "$m" "$TMP/theirs.gguf" IQ4_XS >/dev/null 2>&1 ||
        { fail "$a: llama-quantize IQ4_XS"; return; }
    if ! "$EDIT" requant "$m" "$TMP/ours.gguf" IQ4_XS --imatrix "$TMP/im.gguf" >/dev/null \
        2>"$TMP/ours.err"; then
        fail "$a IQ4_XS --imatrix: $(tail -1 "$TMP/ours.err")"
        return
    fi
    "$EDIT" show "$TMP/ours.gguf" | tail -n +2 | grep -v '^quantize\.imatrix\.' >"$TMP/keys.ours"
    "$EDIT" show "$TMP/theirs.gguf" | tail -n +2 >"$TMP/keys.theirs"
    cmp -s "$TMP/keys.ours" "$TMP/keys.theirs" && ok ||
        fail "$a IQ4_XS --imatrix: keys or tensors differ from llama.cpp's file: $(diff \
            "$TMP/keys.ours" "$TMP/keys.theirs" | head -4 | tr '\n' ' ')"
    [ "$("$EDIT" show "$TMP/ours.gguf" | grep -c '^quantize\.imatrix\.')" -eq 4 ] && ok ||
        fail "$a IQ4_XS --imatrix: not the four quantize.imatrix.* keys"
    "$EDIT" show "$m" --tensors | tail -n +2 | awk '{print $1, $2}' >"$TMP/src.types"
    "$EDIT" --list tensors "$TMP/im.gguf" | sed -n 's/\.in_sum2$//p' >"$TMP/im.names"
    bad=
    n=0
    while read -r type name dims; do
        src_type=$(awk -v n="$name" '$2 == n { print $1 }' "$TMP/src.types")
        "$EDIT" tensor "$TMP/ours.gguf" "$name" -o "$TMP/got.bin" || { bad="$name: unreadable"; break; }
        if [ "$type" = "$src_type" ] || [ "$type" = F32 ] || [ "$type" = F16 ] ||
            ! grep -qxF "$name" "$TMP/im.names"; then
            # copied, or converted without a matrix: llama.cpp's own bytes
            "$EDIT" tensor "$TMP/theirs.gguf" "$name" -o "$TMP/want.bin"
        else
            expect_quant "$type" "$name" "$dims" || { bad="$name: ggml-oracle quant failed"; break; }
            n=$((n + 1))
        fi
        cmp -s "$TMP/got.bin" "$TMP/want.bin" || { bad="$name ($type) differs from ggml's"; break; }
    done <<EOF
$("$EDIT" show "$TMP/ours.gguf" --tensors | tail -n +2 | sed 's/^\([^ ]*\) *\([^ ]*\) \[\([0-9, ]*\)\].*/\1 \2 \3/')
EOF
    [ -z "$bad" ] && [ "$n" -gt 0 ] && ok ||
        fail "$a IQ4_XS --imatrix: ${bad:-no tensor was quantized with the matrix}"
}

# expect_quant TYPE NAME DIMS: $TMP/want.bin from ggml's quantizer, one call per expert, each
# with that expert's row of the matrix
expect_quant() {
    type=$1 name=$2
    set -- $(echo "$3" | tr ',' ' ')
    ne0=$1 rows=${2:-1} experts=${3:-1}
    "$EDIT" tensor "$m" "$name" --f32 -o "$TMP/src.f32" || return 1
    "$EDIT" tensor "$TMP/im.gguf" "$name.in_sum2" -o "$TMP/im.f32" || return 1
    : >"$TMP/want.bin"
    e=0
    while [ $e -lt "$experts" ]; do
        dd if="$TMP/src.f32" of="$TMP/e.f32" bs=$((ne0 * rows * 4)) skip=$e count=1 2>/dev/null
        dd if="$TMP/im.f32" of="$TMP/ei.f32" bs=$((ne0 * 4)) skip=$e count=1 2>/dev/null
        "$ORACLE" quant "$type" "$TMP/e.f32" "$TMP/e.bin" "$ne0" --imatrix "$TMP/ei.f32" \
            >/dev/null 2>&1 || return 1
        cat "$TMP/e.bin" >>"$TMP/want.bin"
        e=$((e + 1))
    done
}

ran=0
moe=0
for a in $order; do
    if [ "$all" = 0 ] && [ -z "${GGUF_ARCHS:-}" ] && [ $ran -ge "$n_archs" ]; then break; fi
    if ! model "$a"; then
        fail "make_llama_model $a --scale 4: $(head -c 200 "$TMP/gen.err")"
        continue
    fi
    m="$TMP/$a.gguf"
    experts=0
    has_experts "$m" && experts=1
    # the sample's last place goes to a model with experts when none has come yet
    if [ "$all" = 0 ] && [ -z "${GGUF_ARCHS:-}" ] && [ $ran -eq $((n_archs - 1)) ] && [ $moe -eq 0 ] &&
        [ $experts -eq 0 ]; then
        rm -f "$m"
        continue
    fi
    ran=$((ran + 1))
    moe=$((moe + experts))
    echo "cli_requant_archs: $a$([ $experts = 1 ] && echo ' (experts)')"
    for preset in Q4_K_M Q3_K_S Q5_K_M Q6_K Q2_K IQ4_XS; do
        same "$preset" "$m"
    done
    [ $experts = 0 ] || same MXFP4_MOE "$m"
    with_imatrix "$m"
    rm -f "$m"
done
[ -n "${GGUF_ARCHS:-}" ] || echo "cli_requant_archs: seed $seed (GGUF_ARCH_SEED=$seed reproduces the sample)"
[ $ran -gt 0 ] && ok || fail "no architecture was run"
finish
