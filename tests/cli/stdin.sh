#!/bin/sh
# Standard input from a pipe is checked as its bytes arrive. A stream that is not GGUF (a bad
# magic, a version no reader knows) is refused after its first bytes, not at its end: a writer
# offers 96 MiB through a FIFO and counts what the pipe took before the reader closed it. A
# header-only command holds no more than its documented 256 MiB of a longer stream: it runs
# under an address-space limit (ulimit -v) that the kept bytes fit in once, not twice.
. "$(dirname "$0")/../support/cli_lib.sh"

# fed START CMD...: runs CMD with standard input from a FIFO whose writer offers the bytes of
# START then zeros, 96 MiB in all; sets st (CMD's status) and took (the bytes the pipe took)
fed() {
    start=$1; shift
    rm -f "$TMP/fifo"; mkfifo "$TMP/fifo"
    python3 - "$TMP/fifo" "$start" >"$TMP/took" <<'EOF' &
import sys
total, chunk = 96 << 20, b'\0' * 65536
took = 0
try:
    with open(sys.argv[1], 'wb', buffering=0) as p:
        head = open(sys.argv[2], 'rb').read()
        p.write(head)
        took = len(head)
        while took < total:
            took += p.write(chunk[:total - took])
except BrokenPipeError:
    pass
print(took)
EOF
    writer=$!
    "$@" <"$TMP/fifo" >"$TMP/out" 2>"$TMP/err"
    st=$?
    wait $writer
    took=$(cat "$TMP/took")
}

printf 'ABCD\003\000\000\000' >"$TMP/magic"
printf 'GGUF\007\000\000\000' >"$TMP/version"
: >"$TMP/zeros"
for cmd in hash show "show --json" verify; do
    for start in zeros magic version; do
        # shellcheck disable=SC2086
        fed "$TMP/$start" "$EDIT" $cmd -
        [ "$st" -eq 1 ] && grep -q "standard input: .*\(bad magic\|unsupported GGUF version\)" "$TMP/err" &&
            [ "$took" -lt $((4 << 20)) ] && ok ||
            fail "$cmd - of $start then zeros: exit $st after the pipe took $took bytes: $(head -c 300 "$TMP/err")"
    done
done
# a stream that ends before its magic is whole is a short file, not a bad one
printf 'GG' | "$EDIT" show - >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "ends inside the magic" "$TMP/err" && ok || fail "2 bytes: $(cat "$TMP/err")"

# a header of one key and no tensors, then 300 MiB: show keeps 256 MiB of it, once
python3 - "$TMP/small.gguf" <<'EOF'
import struct, sys
key, val = b'general.name', b'kept once'
h = b'GGUF' + struct.pack('<IQQ', 3, 0, 1) + struct.pack('<Q', len(key)) + key
h += struct.pack('<IQ', 8, len(val)) + val
open(sys.argv[1], 'wb').write(h + b'\0' * (-len(h) % 32))
EOF
limit=$((450 << 10)) # KiB: 256 MiB kept, the program and its libraries, not a second copy
if (ulimit -v $limit && "$EDIT" show "$TMP/small.gguf") >/dev/null 2>&1; then
    { cat "$TMP/small.gguf"; head -c $((300 << 20)) /dev/zero; } |
        (ulimit -v $limit && "$EDIT" show -) >"$TMP/out" 2>"$TMP/err"
    [ $? -eq 0 ] && grep -q "kept once" "$TMP/out" && ok ||
        fail "show - of a 300 MiB stream in $limit KiB: $(head -c 300 "$TMP/err")"
else
    skip_sanitized "show - within 256 MiB" "the tools do not start under ulimit -v"
fi
finish
