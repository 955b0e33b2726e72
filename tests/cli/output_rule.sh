#!/bin/sh
# Outputs: every command that writes a file treats its output by one rule (README, "Outputs"):
# an output is never a file the command reads (the same path, another spelling, a symbolic link
# or a hard link to it, a shard of its set: compared by device and inode), never a special file
# (a FIFO would block the writer, a device would be written to), and an existing regular file
# is replaced atomically (a temporary file beside it, fsync, rename; nothing left behind).
# Commands: tensor -o, copy, convert, requant, split, merge, and set/rm/rename/realign/edit -o
# (for these, -o naming FILE itself is the in-place edit of FILE, which never truncates it).
. "$(dirname "$0")/../support/cli_lib.sh"

LE="$GOLDEN/hand/le_v3_two_tensors.gguf"
M="$TMP/m.gguf"
GEN="$top_builddir/tests/lib/requant/check_requant"
MODEL="$TMP/model.gguf"
"$GEN" --write-model "$MODEL" --embd 64 --ff 128 --layers 1 --heads 2 --kv-heads 1 --vocab 32 \
    && ok || fail "cannot generate a model with $GEN"

# no temporary file left beside the outputs
no_litter() {
    left=$(find "$TMP" -name '.*.tmp-*' | head -3)
    [ -z "$left" ] && ok || fail "$1: temporary files left: $left"
}
# refused WHAT FILE CMD...: CMD exits 1 with a message saying it refused, FILE keeps its bytes
# (compared with a copy taken before), within a bound that only a hang reaches
refused() {
    what=$1 file=$2; shift 2
    [ "$file" = "$M" ] && cp "$LE" "$M" # whole again, whatever an earlier check did to it
    cp "$file" "$TMP/before"
    timeout 60 "$@" >"$TMP/out" 2>"$TMP/err"
    got=$?
    [ "$got" -eq 1 ] && ok || fail "$what: exited $got, expected 1 (124: it hung): $(head -c 300 "$TMP/err")"
    cmp -s "$file" "$TMP/before" && ok || fail "$what: the input changed ($(wc -c <"$file") bytes)"
    grep -q "refused" "$TMP/err" && ok || fail "$what: no reason given: $(head -c 300 "$TMP/err")"
}

# ---- the output is the input: tensor (writing it would empty m.gguf before reading it) ----
cp "$LE" "$M"
refused "tensor -o onto its input" "$M" "$EDIT" tensor "$M" a -o "$M"
refused "tensor --f32 -o onto its input" "$M" "$EDIT" tensor "$M" a --f32 -o "$M"
ln -s m.gguf "$TMP/link.gguf"
refused "tensor -o a symbolic link to its input" "$M" "$EDIT" tensor "$M" a -o "$TMP/link.gguf"
ln "$M" "$TMP/hard.gguf"
refused "tensor -o a hard link to its input" "$M" "$EDIT" tensor "$M" a -o "$TMP/hard.gguf"
refused "tensor -o the input by another spelling" "$M" "$EDIT" tensor "$M" a -o "$TMP/./m.gguf"
[ -L "$TMP/link.gguf" ] && ok || fail "the symbolic link was replaced"

# ---- the same for every other writer ----
refused "copy onto its input" "$M" "$EDIT" copy "$M" "$M"
refused "copy onto a link to its input" "$M" "$EDIT" copy "$M" "$TMP/link.gguf"
refused "convert onto its input" "$M" "$EDIT" convert "$M" -o "$M" --endian big
refused "convert onto a hard link to its input" "$M" "$EDIT" convert "$M" "$TMP/hard.gguf" --version 2
cp "$MODEL" "$TMP/q.gguf"
refused "requant onto its input" "$TMP/q.gguf" "$EDIT" requant "$TMP/q.gguf" Q8_0 -o "$TMP/q.gguf"
ln -s q.gguf "$TMP/qlink.gguf"
refused "requant onto a link to its input (llama-quantize's form)" "$TMP/q.gguf" \
    "$EDIT" requant "$TMP/q.gguf" "$TMP/qlink.gguf" Q8_0
ln -s q.gguf "$TMP/s-00001-of-00001.gguf"
refused "split onto a link to its input" "$TMP/q.gguf" "$EDIT" split "$TMP/q.gguf" "$TMP/s" --max-tensors 1000
rm -f "$TMP/s-00001-of-00001.gguf"
# a set: merge onto one of its shards, convert of a set onto a shard of it
"$EDIT" split "$MODEL" "$TMP/set" --max-tensors 4 2>/dev/null
SET1="$TMP/set-00001-of-00003.gguf"
[ -f "$SET1" ] && [ -f "$TMP/set-00003-of-00003.gguf" ] && ok || fail "no 3-shard set to test with"
refused "merge onto a shard of its set" "$TMP/set-00002-of-00003.gguf" \
    "$EDIT" merge "$SET1" "$TMP/set-00002-of-00003.gguf"
ln -s set-00003-of-00003.gguf "$TMP/other-00002-of-00003.gguf"
refused "convert of a set onto a link to one of its shards" "$TMP/set-00003-of-00003.gguf" \
    "$EDIT" convert "$SET1" "$TMP/other" --version 2
[ ! -e "$TMP/other-00001-of-00003.gguf" ] && ok || fail "convert wrote a shard before refusing the set"
rm -f "$TMP/other-00002-of-00003.gguf"
refused "tensor of a set -o one of its shards" "$TMP/set-00003-of-00003.gguf" \
    "$EDIT" tensor "$SET1" output.weight -o "$TMP/set-00003-of-00003.gguf"
no_litter "refusals"

# ---- special files: refused at once, never opened (a FIFO would block the writer) ----
mkfifo "$TMP/fifo"
refused "tensor -o a FIFO" "$M" "$EDIT" tensor "$M" a -o "$TMP/fifo"
refused "tensor --f32 -o a FIFO" "$M" "$EDIT" tensor "$M" a --f32 -o "$TMP/fifo"
refused "copy to a FIFO" "$M" "$EDIT" copy "$M" "$TMP/fifo"
refused "convert to a FIFO" "$M" "$EDIT" convert "$M" "$TMP/fifo" --version 2
refused "requant to a FIFO" "$MODEL" "$EDIT" requant "$MODEL" "$TMP/fifo" Q8_0
refused "merge to a FIFO" "$SET1" "$EDIT" merge "$SET1" "$TMP/fifo"
refused "set -o a FIFO" "$M" "$EDIT" set "$M" general.name x -o "$TMP/fifo"
refused "rm -o a FIFO" "$M" "$EDIT" rm "$M" test.u16 -o "$TMP/fifo"
refused "realign -o a FIFO" "$M" "$EDIT" realign "$M" 64 -o "$TMP/fifo"
mkfifo "$TMP/f-00001-of-00001.gguf"
refused "split to a FIFO" "$M" "$EDIT" split "$M" "$TMP/f" --max-tensors 1000
refused "copy to a folder" "$M" "$EDIT" copy "$M" "$TMP"
# the device through a link in the scratch folder: were the check ever lost (a planted bug of
# make mutate does just that), the output's rename would replace the link, never /dev/null
ln -s /dev/null "$TMP/device"
refused "tensor -o a character device" "$M" "$EDIT" tensor "$M" a -o "$TMP/device"
[ -p "$TMP/fifo" ] && ok || fail "the FIFO was replaced"

# ---- -o naming FILE itself is the in-place edit: FILE is edited, never emptied ----
cp "$LE" "$M" && chmod u+w "$M" # (a copy of a read-only source tree's file, as in distcheck)
expect_status 0 "$EDIT" set "$M" general.name x -o "$TMP/link.gguf"
[ "$("$EDIT" get "$M" general.name 2>/dev/null)" = x ] && ok || fail "set -o a link to FILE did not edit FILE"
[ -L "$TMP/link.gguf" ] && ok || fail "set -o a link to FILE replaced the link"
"$EDIT" tensor "$LE" a -o "$TMP/a.want"
"$EDIT" tensor "$M" a -o "$TMP/a.got" && cmp -s "$TMP/a.want" "$TMP/a.got" && ok \
    || fail "set -o FILE changed the tensor data"

# ---- an existing output is replaced atomically, the same way by every writer ----
replaced() {
    what=$1 out=$2; shift 2
    printf 'old contents\n' >"$out"
    ln -f "$out" "$TMP/old-link"
    expect_status 0 "$@"
    cmp -s "$out" "$TMP/old-link" && fail "$what: the existing output was not replaced" || ok
    [ "$(cat "$TMP/old-link")" = "old contents" ] && ok \
        || fail "$what: written through the existing file's inode, not beside it"
    rm -f "$TMP/old-link"
}
replaced "copy" "$TMP/o.gguf" "$EDIT" copy "$LE" "$TMP/o.gguf"
cmp -s "$LE" "$TMP/o.gguf" && ok || fail "copy over an existing file: not the input's bytes"
replaced "convert" "$TMP/o.gguf" "$EDIT" convert "$LE" "$TMP/o.gguf" --endian big
replaced "requant" "$TMP/o.gguf" "$EDIT" requant "$MODEL" "$TMP/o.gguf" Q8_0
replaced "tensor -o" "$TMP/o.raw" "$EDIT" tensor "$LE" a -o "$TMP/o.raw"
cmp -s "$TMP/a.want" "$TMP/o.raw" && ok || fail "tensor -o over an existing file: not the tensor's bytes"
replaced "split" "$TMP/sp-00001-of-00001.gguf" "$EDIT" split "$LE" "$TMP/sp" --max-tensors 1000
replaced "merge" "$TMP/merged.gguf" "$EDIT" merge "$SET1" "$TMP/merged.gguf"
"$EDIT" merge "$SET1" "$TMP/merged2.gguf" 2>/dev/null
cmp -s "$TMP/merged.gguf" "$TMP/merged2.gguf" && ok || fail "merge over an existing file differs from a merge to a new name"
replaced "set -o" "$TMP/o.gguf" "$EDIT" set "$LE" general.name y -o "$TMP/o.gguf"
no_litter "replacements"

# ---- convert IN OUT, as copy IN OUT and requant IN OUT TYPE ----
expect_status 0 "$EDIT" convert "$LE" "$TMP/c1.gguf" --endian big
expect_status 0 "$EDIT" convert "$LE" -o "$TMP/c2.gguf" --endian big
cmp -s "$TMP/c1.gguf" "$TMP/c2.gguf" && ok || fail "convert IN OUT and convert IN -o OUT differ"
expect_status 2 "$EDIT" convert "$LE" "$TMP/c3.gguf" -o "$TMP/c4.gguf" --endian big
grep -q "given twice" "$TMP/err" && ok || fail "convert with OUT and -o: $(cat "$TMP/err")"
expect_status 2 "$EDIT" convert "$LE" --endian big
finish
