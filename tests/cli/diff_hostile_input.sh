#!/bin/sh
# gguf-edit diff (and show) against hostile input:
#  - a file truncated while diff compares it: tensor bytes are read with pread, so the result is
#    an error message (exit 2), never SIGBUS from a mapping;
#  - key and tensor names holding terminal escape sequences (OSC "\e]0;pwned\a"): no raw ESC or
#    BEL reaches stdout of show or diff;
#  - a file of 200,000 tensors diffed against a copy with one tensor changed: names are looked
#    up through the library's index, so this finishes (a nested scan would take hours).
. "$(dirname "$0")/../support/cli_lib.sh"
GEN="$top_builddir/bench/gen_model"

# ---- truncation under a running diff ----
# b is cut to a third while diff is held with both headers parsed and no tensor byte read yet
# (the library's test point file-opened, second arrival: b's), so the truncation lands during
# the comparison every time, on a loaded machine too
SIZE_MIB=${DIFF_TRUNC_MIB:-64}
"$GEN" "$TMP/a.gguf" "$SIZE_MIB" || { fail "generator"; finish; exit 1; }
cp "$TMP/a.gguf" "$TMP/b.gguf"
if held 'file-opened#2' "$EDIT" diff "$TMP/a.gguf" "$TMP/b.gguf" >"$TMP/d.out" 2>"$TMP/d.err"; then
    truncate -s $((SIZE_MIB * 1024 * 1024 / 3)) "$TMP/b.gguf"
    release
else
    fail "diff ended before it opened both files: $(cat "$TMP/d.err")"
fi
wait "$held_pid"
st=$?
if [ $st -ge 128 ]; then
    fail "diff was killed by signal $((st - 128)) after the truncation"
else
    [ $st -eq 2 ] && ok || fail "diff of a file truncated meanwhile exited $st, not 2: $(head -c 200 "$TMP/d.err")"
    grep -q "b.gguf" "$TMP/d.err" && ok || fail "no message naming the file: $(head -c 200 "$TMP/d.err")"
fi
rm -f "$TMP/a.gguf" "$TMP/b.gguf"

# ---- escape sequences in names ----
ESC=$(printf '\033')
BEL=$(printf '\007')
EVIL=$(printf 'x\033]0;pwned\007y')
"$GEN" "$TMP/s.gguf" 1 >/dev/null
cp "$TMP/s.gguf" "$TMP/e.gguf"
"$EDIT" set "$TMP/e.gguf" "$EVIL" "$EVIL" >/dev/null 2>&1 || fail "set a key with an escape"
"$EDIT" edit "$TMP/e.gguf" --rename-tensor "blk.0.ffn_up.weight=$EVIL" -o "$TMP/e2.gguf" >/dev/null 2>&1 &&
    mv "$TMP/e2.gguf" "$TMP/e.gguf" || fail "rename a tensor to a name with an escape"
"$EDIT" show "$TMP/e.gguf" >"$TMP/show.out" 2>&1
grep -q "pwned" "$TMP/show.out" && ok || fail "show does not print the evil key at all"
"$EDIT" diff "$TMP/s.gguf" "$TMP/e.gguf" >"$TMP/diff.out" 2>&1
grep -q "pwned" "$TMP/diff.out" && ok || fail "diff does not print the evil key at all"
for out in show diff; do
    if grep -q "$ESC" "$TMP/$out.out" || grep -q "$BEL" "$TMP/$out.out"; then
        fail "$out prints a raw ESC or BEL"
    else ok; fi
    grep -q 'x\\e\]0;pwned\\x07y' "$TMP/$out.out" && ok || fail "$out does not print the name escaped (x\\e]0;pwned\\x07y)"
done

# ---- 200,000 tensors ----
python3 - "$TMP/many.gguf" <<'EOF' || fail "writing the 200k-tensor file"
import struct, sys
n = 200000
out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, n, 1))
key = b"general.architecture"
out += struct.pack("<Q", len(key)) + key + struct.pack("<I", 8) + struct.pack("<Q", 4) + b"test"
for i in range(n):
    name = b"t.%d" % i
    out += struct.pack("<Q", len(name)) + name + struct.pack("<I", 1) + struct.pack("<Q", 8)
    out += struct.pack("<IQ", 0, i * 32)
out += b"\0" * ((32 - len(out) % 32) % 32)
out += b"\0" * (32 * n)
open(sys.argv[1], "wb").write(out)
EOF
cp "$TMP/many.gguf" "$TMP/many2.gguf"
printf '\001' | dd of="$TMP/many2.gguf" bs=1 seek=$(($(wc -c <"$TMP/many2.gguf") - 5)) conv=notrunc 2>/dev/null
expect_status 1 "$EDIT" diff "$TMP/many.gguf" "$TMP/many2.gguf"
grep -q "t.199999" "$TMP/out" && ok || fail "diff of 200k tensors does not name the changed one"
[ "$(wc -l <"$TMP/out")" -eq 1 ] && ok || fail "diff of 200k tensors: $(head -3 "$TMP/out")"
finish
