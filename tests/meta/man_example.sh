#!/bin/sh
# libgguf(3)'s example program, taken from the page as a reader would copy it: it compiles
# against the built library with every warning on, and does what the page says (prints the
# architecture and the tensors, saves a copy with general.name set, tensors untouched).
. "$(dirname "$0")/../support/cli_lib.sh"

PAGE="$top_srcdir/doc/libgguf.3"
LIBTOOL="$top_builddir/libtool"
CC=${CC:-cc}
# the lines between the markers, roff escapes undone (\e is a backslash, \- a minus sign)
sed -n '/^\.\\" example begins/,/^\.\\" example ends/p' "$PAGE" | sed '1d;$d' |
    sed -e 's/\\e/\\/g' -e 's/\\-/-/g' -e 's/\\(aq/'"'"'/g' -e 's/^\\&//' > "$TMP/example.c"
[ "$(wc -l < "$TMP/example.c")" -gt 20 ] && ok || fail "no example found in libgguf.3"
if ! grep -q '^\.' "$TMP/example.c"; then ok; else fail "roff requests left in the example: $(grep '^\.' "$TMP/example.c")"; fi

# shellcheck disable=SC2086
if "$LIBTOOL" --mode=link --tag=CC $CC ${CFLAGS:-} -std=c11 -Wall -Wextra -Werror \
        -I"$top_srcdir" "$TMP/example.c" "$top_builddir/libgguf/libgguf.la" ${LDFLAGS:-} \
        -o "$TMP/example" > "$TMP/build.log" 2>&1; then
    ok
else
    fail "the example does not compile: $(cat "$TMP/build.log")"
    finish
    exit 1
fi
SRC="$GOLDEN/hand/le_v3_two_tensors.gguf"
expect_status 0 "$LIBTOOL" --mode=execute "$TMP/example" "$SRC" "My model" "$TMP/renamed.gguf"
printf 'architecture: test\na: F32, 16 bytes\nb: F16, 8 bytes\n' > "$TMP/want"
cmp -s "$TMP/want" "$TMP/out" && ok || fail "the example printed: $(cat "$TMP/out")"
[ "$("$EDIT" get "$TMP/renamed.gguf" general.name)" = "My model" ] && ok || fail "general.name not set"
"$EDIT" hash "$SRC" | grep -v header > "$TMP/h1"
"$EDIT" hash "$TMP/renamed.gguf" | grep -v header > "$TMP/h2"
cmp -s "$TMP/h1" "$TMP/h2" && ok || fail "the example changed tensor bytes"
expect_status 2 "$LIBTOOL" --mode=execute "$TMP/example"
expect_status 1 "$LIBTOOL" --mode=execute "$TMP/example" "$TMP/none.gguf" x "$TMP/x.gguf"
finish
