#!/bin/sh
# Defects an attacker found in the layers around the parser (the hardening issue), each tested
# as it was reported; every case failed before its fix.
#   4  another process writes the file while `set` rewrites it: refused, the write not lost
#   5  `show --json` of a file with a huge header that shrinks meanwhile: an error, not SIGBUS
#   6  an output that exists and is not a regular file (FIFO, device, socket): refused, kept
#   8  a FIFO named like a model: refused at once, never waited on
#  10  an edit beside a running copy: the copy's temporary file is left alone
. "$(dirname "$0")/cli_lib.sh"
GEN="$top_builddir/bench/gen_model"
M="$TMP/m.gguf"
"$GEN" "$TMP/big.gguf" 256 || { fail "generator"; finish; exit 1; }
LONG="a name long enough that the header no longer fits its padding: $(printf '%0100d' 0)"

# 4: an append, and a write in the middle, while `set` rewrites the file
refused=0
for round in 1 2 3; do
    cp "$TMP/big.gguf" "$M"
    "$EDIT" set "$M" general.name "$LONG" 2>"$TMP/err4" &
    pid=$!
    sleep 0.2
    printf 'XXXXXXXX' >> "$M"
    wait $pid
    st=$?
    if [ "$(tail -c 8 "$M")" = XXXXXXXX ]; then ok; else
        fail "4: an append during a rewrite was lost (round $round, set exited $st)"; fi
    [ $st -eq 0 ] || grep -q "changed since it was opened" "$TMP/err4" && ok ||
        fail "4: set failed without saying why: $(cat "$TMP/err4")"
    [ $st -ne 0 ] && refused=$((refused + 1))
done
# the race must really have happened: an append that always came too late proves nothing
[ $refused -gt 0 ] && ok || fail "4: the append never landed during the rewrite (make the file bigger)"
MARK=ZZZZ-a-write-that-must-not-be-lost-ZZZZ
for round in 1 2 3; do
    cp "$TMP/big.gguf" "$M"
    "$EDIT" set "$M" general.name "$LONG" 2>"$TMP/err4" &
    pid=$!
    sleep 0.2
    printf '%s' "$MARK" | dd of="$M" bs=1 seek=100000000 conv=notrunc 2>/dev/null
    wait $pid
    st=$?
    if grep -q -a "$MARK" "$M"; then ok; else
        fail "4: a write in the middle during a rewrite was lost (round $round, set exited $st)"; fi
done

# 5: a header of ~100 MB (one array of 2M strings), shrinking while show --json prints it
python3 - "$TMP/hdr.gguf" <<'PY'
import struct, sys
n = 2_000_000
with open(sys.argv[1], "wb") as f:
    f.write(b"GGUF" + struct.pack("<IQQ", 3, 0, 1))
    key = b"tokenizer.ggml.tokens"
    f.write(struct.pack("<Q", len(key)) + key + struct.pack("<IIQ", 9, 8, n))
    s = b"token-with-a-fairly-long-name-0123456789abcdefghijklmn"
    f.write((struct.pack("<Q", len(s)) + s) * n)
PY
for round in 1 2 3; do
    cp "$TMP/hdr.gguf" "$TMP/h.gguf"
    "$EDIT" show --json "$TMP/h.gguf" > /dev/null 2>"$TMP/err5" &
    pid=$!
    sleep 0.$((round * 2))
    truncate -s 4096 "$TMP/h.gguf"
    wait $pid
    st=$?
    [ $st -le 2 ] && ok || fail "5: show --json of a shrinking header died with status $st (a signal)"
done

# 6: outputs that are FIFOs, devices or sockets are refused and stay what they were
SMALL="$GOLDEN/hand/le_v3_two_tensors.gguf"
mkfifo "$TMP/fifo"
python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$TMP/sock"
targets="$TMP/fifo $TMP/sock"
if [ "$(id -u)" = 0 ] && mknod "$TMP/null" c 1 3 2>/dev/null; then targets="$targets $TMP/null"; fi
for t in $targets; do
    kind=$(stat -c %F "$t")
    for cmd in "copy $SMALL $t" "convert $SMALL -o $t --endian big" "set $SMALL k v -o $t" \
               "requant $SMALL F16 -o $t"; do
        # shellcheck disable=SC2086
        timeout 10 "$EDIT" $cmd > /dev/null 2>"$TMP/err6"
        st=$?
        [ $st -eq 1 ] && grep -q "not a regular file\|is a FIFO\|is a socket\|device" "$TMP/err6" && ok ||
            fail "6: gguf-edit $cmd exited $st: $(head -c 200 "$TMP/err6")"
        [ "$(stat -c %F "$t")" = "$kind" ] && ok || fail "6: gguf-edit $cmd replaced a $kind"
    done
done

# 8: a FIFO named like a model is refused at once (timeout: a hang fails the test)
mkfifo "$TMP/f.gguf"
for cmd in "show $TMP/f.gguf" "get $TMP/f.gguf general.name" "hash $TMP/f.gguf" \
           "verify $TMP/f.gguf" "set $TMP/f.gguf general.name x" "copy $TMP/f.gguf $TMP/o.gguf"; do
    # shellcheck disable=SC2086
    timeout 10 "$EDIT" $cmd > /dev/null 2>"$TMP/err8"
    st=$?
    [ $st -eq 1 ] && grep -q "FIFO" "$TMP/err8" && ok ||
        fail "8: gguf-edit $cmd exited $st (124: it hung): $(head -c 200 "$TMP/err8")"
done

# 10: an edit of OUT while `copy BIG OUT` writes its temporary file beside OUT
for round in 1 2; do
    cp "$SMALL" "$TMP/out.gguf"
    "$EDIT" copy "$TMP/big.gguf" "$TMP/out.gguf" 2>"$TMP/err10" &
    pid=$!
    i=0
    while [ $i -lt 200 ] && ! ls "$TMP"/.out.gguf.tmp-* >/dev/null 2>&1; do sleep 0.01; i=$((i + 1)); done
    "$EDIT" set "$TMP/out.gguf" general.architecture tent >/dev/null 2>&1
    wait $pid && ok || fail "10: the copy failed while an edit ran beside it: $(cat "$TMP/err10")"
    cmp -s "$TMP/big.gguf" "$TMP/out.gguf" && ok || fail "10: the copy's result is not the source"
done
finish
