#!/bin/sh
# gguf-edit convert: byte order and version.
#  - golden/types/all_types.gguf (one tensor of every type) converts to all_types.be.gguf, built
#    independently by tests/support/make_golden_types.c, and back;
#  - for the files gguf_convert_endian.py converted (../shared/corpus/be/), our big-endian output
#    is its output byte for byte, and converting that back gives the original;
#  - every accepted corpus file survives LE -> BE -> LE (BE -> LE -> BE for big-endian ones);
#  - v1 files upgraded to v3 equal their *.v3equiv.gguf; v2 <-> v3 are the same bytes but the
#    version; big-endian v2 is refused; unknown tensor types are refused by name and id;
#  - --threads gives the same bytes; usage errors exit 2 and write nothing.
. "$(dirname "$0")/../support/cli_lib.sh"

# version and byte order of a file, from its first 8 bytes: "3 little", "3 big", "1 little"
format_of() {
    set -- $(od -An -tu1 -j4 -N4 "$1")
    if [ "$1" -ne 0 ]; then echo "$1 little"; else echo "$4 big"; fi
}

# (variables: cli_lib.sh's expect_status uses want and got)
# round_trip FILE: converts to the other byte order and back; the result must equal FILE (v1
# files come back as v3, compared with a plain v3 upgrade)
round_trip() {
    set -- "$1" $(format_of "$1")
    src=$1 ver=$2 order=$3
    if [ "$order" = little ]; then there=big; else there=little; fi
    expect_status 0 "$EDIT" convert "$src" -o "$TMP/there.gguf" --endian "$there" --version 3
    [ "$(format_of "$TMP/there.gguf")" = "3 $there" ] && ok || fail "$src: not converted to $there"
    back_ver=$ver expected=$src
    if [ "$ver" = 1 ]; then
        back_ver=3 expected="$TMP/v3.gguf"
        expect_status 0 "$EDIT" convert "$src" -o "$expected" --version 3
    fi
    expect_status 0 "$EDIT" convert "$TMP/there.gguf" -o "$TMP/back.gguf" --endian "$order" \
        --version "$back_ver"
    cmp -s "$expected" "$TMP/back.gguf" && ok || fail "$src: $order -> $there -> $order differs"
}

# ---- one tensor of every type ----
ALL="$GOLDEN/types/all_types.gguf"
ALL_BE="$GOLDEN/types/all_types.be.gguf"
for threads in 1 2 0; do
    expect_status 0 "$EDIT" convert "$ALL" -o "$TMP/all.be.gguf" --endian big --threads $threads
    cmp -s "$TMP/all.be.gguf" "$ALL_BE" && ok || fail "all_types to big-endian (--threads $threads) differs"
done
expect_status 0 "$EDIT" convert "$ALL_BE" -o "$TMP/all.le.gguf" --endian little
cmp -s "$TMP/all.le.gguf" "$ALL" && ok || fail "all_types.be back to little-endian differs"
# converting to the order a file already has changes nothing
expect_status 0 "$EDIT" convert "$ALL_BE" -o "$TMP/same.gguf" --endian big
cmp -s "$TMP/same.gguf" "$ALL_BE" && ok || fail "big -> big changed all_types.be"
# v2 little-endian, then back to v3
expect_status 0 "$EDIT" convert "$ALL_BE" -o "$TMP/all.v2.gguf" --endian little --version 2
[ "$(format_of "$TMP/all.v2.gguf")" = "2 little" ] && ok || fail "all_types.be to v2 little"
expect_status 0 "$EDIT" convert "$TMP/all.v2.gguf" -o "$TMP/all.v3.gguf" --version 3
cmp -s "$TMP/all.v3.gguf" "$ALL" && ok || fail "all_types v2 -> v3 differs"

for f in "$GOLDEN"/hand/*.gguf "$GOLDEN"/derived/*.gguf; do
    round_trip "$f"
done

# ---- refusals ----
# big-endian exists only from v3 on
expect_status 1 "$EDIT" convert "$ALL" -o "$TMP/r1.gguf" --endian big --version 2
grep -q "v3" "$TMP/err" && ok || fail "big-endian v2: message does not name v3: $(cat "$TMP/err")"
expect_status 1 "$EDIT" convert "$ALL_BE" -o "$TMP/r2.gguf" --version 2
[ ! -e "$TMP/r1.gguf" ] && [ ! -e "$TMP/r2.gguf" ] && ok || fail "refused conversion wrote a file"
# usage
expect_status 2 "$EDIT" convert "$ALL" --endian big
expect_status 2 "$EDIT" convert "$ALL" -o "$TMP/u.gguf"
expect_status 2 "$EDIT" convert "$ALL" -o "$TMP/u.gguf" --endian middle
expect_status 2 "$EDIT" convert "$ALL" -o "$TMP/u.gguf" --version 1
expect_status 2 "$EDIT" convert "$ALL" -o "$TMP/u.gguf" --version 4
expect_status 2 "$EDIT" convert "$ALL" -o "$TMP/u.gguf" --endian big --threads -1
expect_status 2 "$EDIT" convert "$ALL" -o "$TMP/u.gguf" --endian big --threads x
expect_status 2 "$EDIT" convert "$ALL" "$ALL" -o "$TMP/u.gguf" --endian big
expect_status 2 "$EDIT" convert -o "$TMP/u.gguf" --endian big
[ ! -e "$TMP/u.gguf" ] && ok || fail "a usage error wrote a file"
expect_status 0 "$EDIT" convert --help
grep -q -- "--endian" "$TMP/out" && ok || fail "convert --help does not describe --endian"
# I/O
expect_status 1 "$EDIT" convert "$TMP/missing.gguf" -o "$TMP/m.gguf" --endian big
expect_status 1 "$EDIT" convert "$ALL" -o "$TMP/no/such/dir/x.gguf" --endian big
# converting a file onto itself is refused: an output is never the input (tests/cli/output_rule.sh)
cp "$ALL" "$TMP/self.gguf"
expect_status 1 "$EDIT" convert "$TMP/self.gguf" -o "$TMP/self.gguf" --endian big
cmp -s "$TMP/self.gguf" "$ALL" && ok || fail "a conversion onto its own input changed it"

if have_corpus; then
    # ---- gguf_convert_endian.py's results ----
    n=0
    for be in "$CORPUS"/be/*.gguf; do
        base=$(basename "$be")
        base=${base%.be.gguf}
        base=${base%.writer-be.gguf}
        src="$CORPUS/synth/$base.gguf"
        [ -f "$src" ] || src="$CORPUS/real/$base.gguf"
        expect_status 0 "$EDIT" convert "$src" -o "$TMP/be.gguf" --endian big
        cmp -s "$TMP/be.gguf" "$be" && ok || fail "$(basename "$be"): our big-endian output differs"
        expect_status 0 "$EDIT" convert "$be" -o "$TMP/le.gguf" --endian little
        cmp -s "$TMP/le.gguf" "$src" && ok || fail "$(basename "$be") back to little-endian differs"
        n=$((n + 1))
    done
    echo "be/: $n files equal gguf_convert_endian.py's"
    [ "$n" -ge 20 ] && ok || fail "only $n be/ files compared"

    # ---- v1 -> v3, v2 <-> v3 ----
    for v1 in "$CORPUS"/v1v2/v1_*.gguf; do
        case "$v1" in *.v3equiv.gguf) continue ;; esac
        expected="${v1%.gguf}.v3equiv.gguf"
        expect_status 0 "$EDIT" convert "$v1" -o "$TMP/v3.gguf" --version 3
        cmp -s "$TMP/v3.gguf" "$expected" && ok || fail "$(basename "$v1") to v3 differs from v3equiv"
        expect_status 0 "$EDIT" convert "$v1" -o "$TMP/v2.gguf" --version 2
        expect_status 0 "$EDIT" convert "$TMP/v2.gguf" -o "$TMP/v3b.gguf" --version 3
        cmp -s "$TMP/v3b.gguf" "$expected" && ok || fail "$(basename "$v1") via v2 to v3 differs"
        expect_status 0 "$EDIT" convert "$v1" -o "$TMP/v3be.gguf" --version 3 --endian big
        expect_status 0 "$EDIT" convert "$expected" -o "$TMP/v3be2.gguf" --endian big
        cmp -s "$TMP/v3be.gguf" "$TMP/v3be2.gguf" && ok || fail "$(basename "$v1") to big-endian v3"
    done
    for v2 in "$CORPUS"/v1v2/v2_*.gguf; do
        base=$(basename "$v2" .gguf)
        base=${base#v2_}
        orig="$CORPUS/synth/$base.gguf"
        [ -f "$orig" ] || orig="$CORPUS/real/$base.gguf"
        expect_status 0 "$EDIT" convert "$v2" -o "$TMP/v3.gguf" --version 3
        cmp -s "$TMP/v3.gguf" "$orig" && ok || fail "$(basename "$v2") to v3 differs from $base"
        expect_status 0 "$EDIT" convert "$orig" -o "$TMP/v2.gguf" --version 2
        cmp -s "$TMP/v2.gguf" "$v2" && ok || fail "$base to v2 differs from $(basename "$v2")"
    done

    # ---- every accepted corpus file goes there and back ----
    n=0
    for f in $(find "$CORPUS" -name '*.gguf' ! -path '*/bad/*' | sort); do
        round_trip "$f"
        n=$((n + 1))
    done
    while IFS="$(printf '\t')" read -r file verdict why; do
        [ "$verdict" = accept ] || continue
        round_trip "$CORPUS/bad/$file"
        n=$((n + 1))
    done < "$CORPUS/bad/EXPECTED.tsv"
    echo "round trips: $n corpus files"
    [ "$n" -ge 70 ] && ok || fail "only $n corpus files went round"

    # ---- threads: same bytes (a model whose tensors span many chunks' worth of blocks) ----
    model="$CORPUS/models/tiny-llama-e256-Q4_K_M.gguf"
    expect_status 0 "$EDIT" convert "$model" -o "$TMP/m1.gguf" --endian big --threads 1
    expect_status 0 "$EDIT" convert "$model" -o "$TMP/m2.gguf" --endian big --threads 2
    expect_status 0 "$EDIT" convert "$model" -o "$TMP/m7.gguf" --endian big --threads 7
    cmp -s "$TMP/m1.gguf" "$TMP/m2.gguf" && cmp -s "$TMP/m1.gguf" "$TMP/m7.gguf" && ok ||
        fail "--threads changes the output"

    # ---- unknown and removed tensor types: refused, by tensor name and type id ----
    expect_status 1 "$EDIT" convert --unknown-types "$CORPUS/bad/ggml_type_1000.gguf" \
        -o "$TMP/unk.gguf" --endian big
    grep -q "'t'" "$TMP/err" && grep -q "1000" "$TMP/err" && ok ||
        fail "unknown type: message names no tensor or id: $(cat "$TMP/err")"
    [ ! -e "$TMP/unk.gguf" ] && ok || fail "unknown type: an output was written"
    # a version change alone passes such a tensor through untouched
    expect_status 0 "$EDIT" convert --unknown-types "$CORPUS/bad/ggml_type_1000.gguf" \
        -o "$TMP/unk.v2.gguf" --version 2
    expect_status 1 "$EDIT" convert "$CORPUS/bad/ggml_type_4_removed_q4_2.gguf" \
        -o "$TMP/rm.gguf" --endian big
    grep -q "'t'" "$TMP/err" && grep -q "type 4" "$TMP/err" && ok ||
        fail "removed type: message names no tensor or id: $(cat "$TMP/err")"
else
    skip "the corpus: gguf_convert_endian.py's files, v1/v2, round trips, threads, refusals" \
        "no ../shared/corpus"
fi
finish
