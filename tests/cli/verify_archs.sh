#!/bin/sh
# Every architecture with full tables, judged by llama.cpp's own loader (ggml-oracle llama-load).
#
# For each architecture `gguf-edit --list architectures` calls full, tests/support/make_llama_model
# builds a tiny model from the library's tables (it must have a recipe for it); llama.cpp must
# load it and verify must call it clean. Then the model is broken, and verify must exit 1
# exactly when llama.cpp refuses it (tests/support/llama_judge.sh): a tensor left out, a tensor
# misshapen, an extra tensor, a key of the architecture's table removed and retyped, a
# per-layer array one element too long, head and expert counts changed.
#
# make check builds the models of 16 architectures, and breaks those of 4 of them in a sample of
# these ways, seeded (GGUF_ARCH_SEED, printed: the day of the year unless set): one tensor left
# out, one misshapen, one key removed and retyped. GGUF_ARCH_ALL=1 (make check-architectures)
# builds and breaks every model, leaving out every tensor of a layer (and layer 0's own where the
# layers differ) in turn and removing and retyping every key. GGUF_ARCHS="a b" limits the run to
# those architectures.
. "$(dirname "$0")/../support/cli_lib.sh"

if ! have_oracle; then
    echo "cli_verify_archs: ggml-oracle not found (set GGML_ORACLE): SKIP"
    exit 77
fi
if ! have_corpus; then
    echo "cli_verify_archs: ../shared/corpus absent: SKIP"
    exit 77
fi
GEN="$top_builddir/tests/support/make_llama_model"
VOCAB="$CORPUS/real"
: >"$TMP/classes"
. "$(dirname "$0")/../support/llama_judge.sh"

# one FILE: one seeded line of FILE; some FILE: every line with GGUF_ARCH_ALL, else one
all=${GGUF_ARCH_ALL:-0}
seed=${GGUF_ARCH_SEED:-$(date -u +%j | sed 's/^0*//')}
one() { sample 1 "$1"; }
some() { if [ "$all" != 0 ]; then cat "$1"; else one "$1"; fi; }

"$EDIT" --list architectures | awk -F'\t' '$2 == "full" {print $1}' >"$TMP/full"
"$GEN" --recipes >"$TMP/recipes"
# every full architecture has a recipe: a table no model proves is not trusted
for a in $(cat "$TMP/full"); do
    grep -qx -- "$a" "$TMP/recipes" && ok || fail "$a: full tables but no recipe in make_llama_model"
done
n_full=$(wc -l <"$TMP/full")
[ "$n_full" -ge 100 ] && ok || fail "only $n_full architectures with full tables"
if [ "$all" != 0 ]; then
    built=$(cat "$TMP/full")
    broken=$built
    echo "cli_verify_archs: every case"
else
    built=$(sample 16 "$TMP/full")
    broken=$(sample 4 "$TMP/full")
    echo "cli_verify_archs: seed $seed (GGUF_ARCH_SEED=$seed reproduces the sample): built" \
        $built "; broken" $broken
fi

for a in ${GGUF_ARCHS:-$built}; do
    voc=$(llama_vocab_of "$a")
    B="$TMP/$a.gguf"
    if ! "$GEN" "$a" "$VOCAB/ggml-vocab-$voc.gguf" "$B" 2>"$TMP/gen.err"; then
        fail "make_llama_model $a: $(head -c 200 "$TMP/gen.err")"
        continue
    fi
    judge base "$a: as built" "$B" ""
    [ "$(cat "$TMP/v.out")" = "$B: ok" ] && ok || fail "$a: verify is not clean: $(head -3 "$TMP/v.out")"
    [ "$load" -eq 0 ] || continue
    case " $(echo $broken) " in *" $a "*) ;; *) [ -n "${GGUF_ARCHS:-}" ] || continue ;; esac

    # tensors: left out (every one of layer 1 and outside the layers, or one), misshapen
    "$EDIT" --list tensors "$B" >"$TMP/tensors"
    grep -E '^blk\.1\.|^[^b]' "$TMP/tensors" >"$TMP/drop"
    # and layer 0's own (where the layers are of different kinds)
    sed -n 's/^blk\.0\.//p' "$TMP/tensors" | while read -r t; do
        grep -qxF "blk.1.$t" "$TMP/tensors" || echo "blk.0.$t"
    done >>"$TMP/drop"
    for t in $(some "$TMP/drop"); do
        gen tensor-drop "$a: $t left out" "$a" "$voc" "$t" --drop "$t"
    done
    for t in $(one "$TMP/tensors"); do
        gen tensor-shape "$a: $t misshapen" "$a" "$voc" "$t" --reshape "$t"
    done
    gen tensor-extra "$a: blk.0.unused.weight added" "$a" "$voc" blk.0.unused.weight --extra blk.0.unused.weight

    # the architecture's own keys: removed, and as a STRING (a required key's removal must be
    # named; an optional one's shows in the tensors' shapes)
    "$GEN" --keys "$a" >"$TMP/keys"
    : >"$TMP/present"
    while read -r key req when; do
        if "$EDIT" get "$B" "$key" >/dev/null 2>&1; then
            echo "$key $req" >>"$TMP/present"
        elif [ "$req" = required ] && [ "$when" = always ]; then
            fail "$a: the recipe lacks the required key ${key#$a.}"
        fi
    done <"$TMP/keys"
    some "$TMP/present" | while read -r key req; do
        needle=
        [ "$req" = required ] && needle="$key"
        edit key-removed "$a: ${key#$a.} removed" "$B" "$needle" rm "$key"
        edit key-type "$a: ${key#$a.} as STRING" "$B" "$key" set "$key" str 7
    done

    # per-layer arrays one element too long (2 layers), and of the right length
    for key in attention.head_count feed_forward_length expert_feed_forward_length; do
        v=$("$EDIT" get "$B" "$a.$key" 2>/dev/null) || continue
        cp "$B" "$TMP/arr.gguf"
        "$EDIT" set "$TMP/arr.gguf" "$a.$key" "[$v, $v, $v]" --type u32 >/dev/null 2>&1
        judge per-layer "$a: $key array of 3 for 2 layers" "$TMP/arr.gguf" "$a.$key"
        [ "$all" != 0 ] || break
        cp "$B" "$TMP/arr.gguf"
        "$EDIT" set "$TMP/arr.gguf" "$a.$key" "[$v, $v]" --type u32 >/dev/null 2>&1
        judge per-layer "$a: $key array of 2 for 2 layers" "$TMP/arr.gguf" ""
    done

    # key/value heads given per layer, sorted the other way (where they decide which layers are
    # recurrent and which attention, the layers change kinds)
    if [ "$("$EDIT" get "$B" "$a.attention.head_count_kv" 2>/dev/null | wc -l)" -gt 1 ]; then
        rev=$("$EDIT" get "$B" "$a.attention.head_count_kv" | sort -r | paste -sd, -)
        cp "$B" "$TMP/arr.gguf"
        "$EDIT" set "$TMP/arr.gguf" "$a.attention.head_count_kv" "[$rev]" --type u32 >/dev/null 2>&1
        judge layer-kinds "$a: head_count_kv per layer re-sorted" "$TMP/arr.gguf" ""
    fi

    # head counts: one that does not divide embedding_length, more key/value heads; experts
    [ "$all" != 0 ] || continue
    if "$EDIT" get "$B" "$a.attention.head_count" >/dev/null 2>&1; then
        edit heads "$a: head_count 5" "$B" "" set "$a.attention.head_count" u32 5
        edit heads "$a: head_count_kv 4" "$B" "" set "$a.attention.head_count_kv" u32 4
    fi
    if "$EDIT" get "$B" "$a.expert_count" >/dev/null 2>&1; then
        edit experts "$a: expert_count 8" "$B" "" set "$a.expert_count" u32 8
        edit experts "$a: expert_used_count 0" "$B" "" set "$a.expert_used_count" u32 0
    fi
done

echo "cli_verify_archs: cases per class (agree / disagree):"
sort "$TMP/classes" | uniq -c | awk '{printf "  %-14s %-9s %d\n", $2, $3, $1}'
finish
