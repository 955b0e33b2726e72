#!/bin/sh
# gguf-edit copy: byte-identical for every accepted file; the verdict of bad/EXPECTED.tsv for
# every malformed one (exit 1 with a message naming the offset); usage errors exit 2.
. "$(dirname "$0")/../support/cli_lib.sh"

for f in "$GOLDEN"/hand/*.gguf "$GOLDEN"/derived/*.gguf; do
    expect_status 0 "$EDIT" copy "$f" "$TMP/out.gguf"
    cmp -s "$f" "$TMP/out.gguf" && ok || fail "copy of $f differs"
done

if have_corpus; then
    n=0
    for f in $(find "$CORPUS" -name '*.gguf' ! -path '*/bad/*' | sort); do
        expect_status 0 "$EDIT" copy "$f" "$TMP/out.gguf"
        cmp -s "$f" "$TMP/out.gguf" && ok || fail "copy of $f differs"
        n=$((n + 1))
    done
    while IFS="$(printf '\t')" read -r file verdict why; do
        [ "$file" = file ] && continue
        if [ "$verdict" = accept ]; then
            expect_status 0 "$EDIT" copy "$CORPUS/bad/$file" "$TMP/out.gguf"
            cmp -s "$CORPUS/bad/$file" "$TMP/out.gguf" && ok || fail "copy of bad/$file differs"
        else
            expect_status 1 "$EDIT" copy "$CORPUS/bad/$file" "$TMP/refused.gguf"
            # the offset, as "offset 0x..." or, where the message names it already, "at byte N"
            grep -Eq "offset 0x|at byte [0-9]" "$TMP/err" && ok || fail "bad/$file: message names no offset"
            [ ! -e "$TMP/refused.gguf" ] && ok || fail "bad/$file: an output was written"
        fi
        n=$((n + 1))
    done < "$CORPUS/bad/EXPECTED.tsv"
    echo "corpus: $n files checked"
    [ "$n" -ge 127 ] && ok || fail "only $n corpus files checked"
else
    skip "the corpus: copies and verdicts" "no ../shared/corpus"
fi

# no partial output and a clear error when the target directory does not exist
expect_status 1 "$EDIT" copy "$GOLDEN/hand/le_v3_two_tensors.gguf" "$TMP/no/such/dir/out.gguf"
expect_status 1 "$EDIT" copy "$TMP/missing.gguf" "$TMP/out2.gguf"
expect_status 2 "$EDIT" copy "$GOLDEN/hand/le_v3_two_tensors.gguf"
expect_status 2 "$EDIT" frobnicate
expect_status 0 "$EDIT" copy --help
finish
