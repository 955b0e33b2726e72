#!/bin/sh
# The tools beside other processes and special files:
#  - write during set: another process writes the file while `set` rewrites it: refused, the
#    write not lost
#  - shrinking header: `show --json` of a file with a large header that shrinks meanwhile: an
#    error, not SIGBUS
#  - special output: an output that exists and is not a regular file (FIFO, device, socket):
#    refused, kept
#  - FIFO input: a FIFO named like a model: refused at once, never waited on
#  - edit beside copy: an edit beside a running copy: the copy's temporary file is left alone
. "$(dirname "$0")/../support/cli_lib.sh"
GEN="$top_builddir/bench/gen_model"
M="$TMP/m.gguf"
"$GEN" "$TMP/big.gguf" 32 || { fail "generator"; finish; exit 1; }
MARK=ZZZZ-a-write-that-must-not-be-lost-ZZZZ
MIDDLE=16000000
LONG="a name long enough that the header no longer fits its padding: $(printf '%0100d' 0)"

# write during set: an append, and a write in the middle, while `set` rewrites the file: the other
# write lands while `set` is held with its output written and proven, before it checks the file and
# renames (the library's test point save-proven), so the race happens every time, loaded machine or
# not
for what in append middle; do
    cp "$TMP/big.gguf" "$M"
    if held save-proven "$EDIT" set "$M" general.name "$LONG" 2>"$TMP/err4"; then
        case $what in
        append) printf 'XXXXXXXX' >> "$M" ;;
        middle) printf '%s' "$MARK" | dd of="$M" bs=1 seek=$MIDDLE conv=notrunc 2>/dev/null ;;
        esac
        release
    else
        fail "write during set: set ended before its output was proven: $(cat "$TMP/err4")"
    fi
    wait $held_pid
    st=$?
    case $what in
    append) [ "$(tail -c 8 "$M")" = XXXXXXXX ] ;;
    middle) grep -q -a "$MARK" "$M" ;;
    esac && ok || fail "write during set: a write ($what) during a rewrite was lost (set exited $st)"
    [ $st -eq 1 ] && grep -q "changed since it was opened" "$TMP/err4" && ok ||
        fail "write during set: set of a file written meanwhile ($what) exited $st: $(cat "$TMP/err4")"
done

# shrinking header: a header of ~10 MB (one array of 200k strings) that shrinks while a reader
# reads it: the file is truncated while the reader is held with it open and mapped, before it
# has read a byte (test point source-opened). show, get, estimate and --list parse the header
# where it is mapped: the read of the bytes cut off raises SIGBUS, which ends the command as a
# bad file does, saying so.
make_vocab_header() {
    python3 - "$1" <<'PY'
import struct, sys
n = 200_000
with open(sys.argv[1], "wb") as f:
    f.write(b"GGUF" + struct.pack("<IQQ", 3, 0, 1))
    key = b"tokenizer.ggml.tokens"
    f.write(struct.pack("<Q", len(key)) + key + struct.pack("<IIQ", 9, 8, n))
    s = b"token-with-a-fairly-long-name-0123456789abcdefghijklmn"
    f.write((struct.pack("<Q", len(s)) + s) * n)
PY
}
for cmd in "show --json @" "get @ general.name" "estimate @" "--list keys @"; do
    make_vocab_header "$TMP/h.gguf"
    # shellcheck disable=SC2046 # the command's words, the file in place of @
    if held source-opened "$EDIT" $(echo "$cmd" | sed "s|@|$TMP/h.gguf|") 2>"$TMP/err5" \
        >/dev/null; then
        truncate -s 4096 "$TMP/h.gguf"
        release
    else
        fail "shrinking header: $cmd ended before it opened the file: $(cat "$TMP/err5")"
    fi
    wait $held_pid
    st=$?
    [ $st -eq 1 ] && grep -q "cut short while it was read" "$TMP/err5" && ok ||
        fail "shrinking header: $cmd of a shrinking header exited $st (above 128: a signal): $(head -c 200 "$TMP/err5")"
done

# special output: outputs that are FIFOs, devices or sockets are refused and stay what they were
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
            fail "special output: gguf-edit $cmd exited $st: $(head -c 200 "$TMP/err6")"
        [ "$(stat -c %F "$t")" = "$kind" ] && ok || fail "special output: gguf-edit $cmd replaced a $kind"
    done
done

# FIFO input: a FIFO named like a model is refused at once (timeout: a hang fails the test)
mkfifo "$TMP/f.gguf"
for cmd in "show $TMP/f.gguf" "get $TMP/f.gguf general.name" "hash $TMP/f.gguf" \
           "verify $TMP/f.gguf" "set $TMP/f.gguf general.name x" "copy $TMP/f.gguf $TMP/o.gguf"; do
    # shellcheck disable=SC2086
    timeout 10 "$EDIT" $cmd > /dev/null 2>"$TMP/err8"
    st=$?
    [ $st -eq 1 ] && grep -q "FIFO" "$TMP/err8" && ok ||
        fail "FIFO input: gguf-edit $cmd exited $st (124: it hung): $(head -c 200 "$TMP/err8")"
done

# edit beside copy: an edit of OUT while `copy BIG OUT` is held with its temporary file written
# beside OUT (test point save-proven): the edit's sweep of stale temporary files must leave it alone
cp "$SMALL" "$TMP/out.gguf" && chmod u+w "$TMP/out.gguf"
if held save-proven "$EDIT" copy "$TMP/big.gguf" "$TMP/out.gguf" 2>"$TMP/err10"; then
    ls "$TMP"/.out.gguf.tmp-* >/dev/null 2>&1 && ok || fail "edit beside copy: no temporary file beside OUT"
    "$EDIT" set "$TMP/out.gguf" general.architecture tent >/dev/null 2>&1 ||
        fail "edit beside copy: the edit beside a running copy failed"
    release
else
    fail "edit beside copy: copy ended before its output was proven: $(cat "$TMP/err10")"
fi
wait $held_pid && ok || fail "edit beside copy: the copy failed while an edit ran beside it: $(cat "$TMP/err10")"
cmp -s "$TMP/big.gguf" "$TMP/out.gguf" && ok || fail "edit beside copy: the copy's result is not the source"
finish
