#!/bin/sh
# Split sets against llama.cpp's own tool (llama-gguf-split, built beside ggml-oracle) and its
# loader: split and merge give the same bytes for every corpus file ggml reads and for a
# generated llama model, with each option; llama.cpp loads every set we write and every merge;
# the merge that deletes its shards gives the same bytes and stays within one shard of extra
# disk; every command reads a set through any shard; broken sets are refused, nothing changed.
. "$(dirname "$0")/../support/cli_lib.sh"
SPLIT=${LLAMA_GGUF_SPLIT:-$(dirname "$ORACLE")/llama-gguf-split}
have_corpus || skip_all "no ../shared/corpus"
[ -x "$SPLIT" ] || skip_all "no llama-gguf-split ($SPLIT; ../shared/oracle/build.sh builds it)"
have_oracle || skip "llama.cpp loads the sets and merges we write" "no ggml-oracle (GGML_ORACLE)"

# same_dirs A B: the same file names, each byte-identical
same_dirs() {
    [ "$(cd "$1" && ls)" = "$(cd "$2" && ls)" ] || return 1
    for sd_name in $(cd "$1" && ls); do cmp -s "$1/$sd_name" "$2/$sd_name" || return 1; done
}
# loads FIRST: llama.cpp loads the model (a split set through its first shard) and evaluates
loads() {
    have_oracle || return 0
    "$ORACLE" llama-load --eval "$1" >/dev/null 2>"$TMP/load.err" && ok ||
        fail "llama.cpp does not load $1: $(tail -c 300 "$TMP/load.err")"
}
# a fingerprint of a folder, to prove that nothing changed: its own entry (a file made and
# removed in it changes its time), each file's entry and checksum. Not ls's "total" (blocks
# allocated, which the kernel's writeback of a file just written changes at its own pace), nor
# the parent's entry, whose time the test's other files change.
fingerprint() {
    (cd "$1" && ls -la --time-style=+%s.%N | grep -v -e '^total ' -e ' \.\.$' && cksum * 2>/dev/null)
}

# ---- 1. byte equality over the corpus: split (4 option sets) and merge (3 ways) ----
# Known differences, on purpose: llama-gguf-split lays the first shard of a model whose
# general.alignment is not 32 out at 32 (ggml then refuses it: see 4.), copies strings through
# C strings (a NUL inside cuts them), writes a bool byte other than 0/1 as 1, and copies
# whatever a truncated file gives it; we keep the bytes, and refuse truncated files.
known_diff="synth/align_64.gguf synth/align_128.gguf v1v2/v2_align_64.gguf synth/kv_arrays.gguf
synth/kv_strings_unicode.gguf bad/bool_byte_2.gguf bad/dims_overflow_wraps_to_0.gguf
bad/truncated_16_at_data_start.gguf bad/truncated_17_in_tensor_data.gguf
bad/truncated_18_last_byte_missing.gguf"
files=$(awk -F'\t' '$4 == "accept" && $1 !~ /^be\// {print $1}' "$CORPUS/MANIFEST.tsv")
n_files=0; n_split=0; n_merge=0; n_fail=0
for f in $files; do
    case " $(echo $known_diff) " in *" $f "*) continue ;; esac
    n_files=$((n_files + 1))
    # a few shards each (a file of 2000 tensors in shards of 3 takes long to fsync)
    nt=$("$EDIT" show "$CORPUS/$f" | head -1 | sed 's/.* \([0-9]*\) tensors.*/\1/')
    per=$(( nt / 4 > 3 ? nt / 4 : 3 ))
    for opts in "--split-max-tensors $per" "--split-max-tensors $per --no-tensor-first-split" \
                "--split-max-size 1M" "--split-max-tensors 128 --no-tensor-first-split"; do
        ours=$(echo "$opts" | sed 's/--split-max-/--max-/')
        rm -rf "$TMP/r" "$TMP/o"; mkdir "$TMP/r" "$TMP/o"
        "$SPLIT" --split $opts "$CORPUS/$f" "$TMP/r/x" >/dev/null 2>&1; rs=$?
        "$EDIT" split "$CORPUS/$f" "$TMP/o/x" $ours >/dev/null 2>"$TMP/err"; os=$?
        if [ $rs -ne 0 ] || [ $os -ne 0 ]; then
            # both refuse (a tensor larger than the shard size), or a failure
            [ $rs -ne 0 ] && [ $os -ne 0 ] && ok || fail "$f [$opts]: llama-gguf-split exit $rs, ours $os: $(head -c 200 "$TMP/err")"
            n_fail=$((n_fail + 1))
            continue
        fi
        same_dirs "$TMP/r" "$TMP/o" && ok || fail "$f [$opts]: our shards differ from llama-gguf-split's"
        n_split=$((n_split + 1))
        first=$(cd "$TMP/r" && ls | head -1)
        "$SPLIT" --merge "$TMP/r/$first" "$TMP/ref.gguf" >/dev/null 2>&1 || { fail "$f: llama-gguf-split --merge"; continue; }
        last=$(cd "$TMP/r" && ls | tail -1)
        "$EDIT" merge "$TMP/r/$last" "$TMP/ours.gguf" 2>"$TMP/err" && cmp -s "$TMP/ref.gguf" "$TMP/ours.gguf" && ok ||
            fail "$f [$opts]: our merge differs: $(head -c 200 "$TMP/err")"
        "$EDIT" merge --delete-splits "$TMP/o/$first" "$TMP/o.gguf" 2>"$TMP/err" &&
            cmp -s "$TMP/ref.gguf" "$TMP/o.gguf" && [ -z "$(ls "$TMP/o")" ] && ok ||
            fail "$f [$opts]: merge --delete-splits differs or left shards: $(head -c 200 "$TMP/err")"
        n_merge=$((n_merge + 1))
        rm -f "$TMP/ref.gguf" "$TMP/ours.gguf" "$TMP/o.gguf"
    done
done
echo "cli_split: corpus: $n_files files, $n_split splits and $n_merge x 2 merges byte-identical to llama-gguf-split's, $n_fail refused by both"

# ---- 1b. --max-size landing exactly on a shard's sum: four F32 tensors of 1,000,000 bytes
# (a multiple of 32, no padding): with 2M two tensors fill a shard exactly and stay in it
# (llama-gguf-split cuts only past the size); with 1M each tensor fills one exactly ----
python3 - "$TMP/exact.gguf" <<'PY'
import struct, sys
n, elems = 4, 250000
head = b'GGUF' + struct.pack('<IQQ', 3, n, 0)
for i in range(n):
    name = b'exact.%d' % i
    head += struct.pack('<Q', len(name)) + name + struct.pack('<IQIQ', 1, elems, 0, i * elems * 4)
head += b'\0' * (-len(head) % 32)
data = b''.join(struct.pack('<f', float(i)) * elems for i in range(n))
open(sys.argv[1], 'wb').write(head + data)
PY
for size in 2M 1M; do
    rm -rf "$TMP/r" "$TMP/o"; mkdir "$TMP/r" "$TMP/o"
    "$SPLIT" --split --split-max-size "$size" "$TMP/exact.gguf" "$TMP/r/x" >/dev/null 2>&1 ||
        fail "llama-gguf-split --split-max-size $size"
    "$EDIT" split "$TMP/exact.gguf" "$TMP/o/x" --max-size "$size" 2>"$TMP/err" ||
        fail "split --max-size $size: $(head -c 200 "$TMP/err")"
    want=2; [ "$size" = 2M ] || want=4
    [ "$(ls "$TMP/r" | wc -l)" -eq $want ] && ok || fail "llama-gguf-split --split-max-size $size: $(ls "$TMP/r" | wc -l) shards, not $want"
    same_dirs "$TMP/r" "$TMP/o" && ok || fail "--max-size $size: our shards differ from llama-gguf-split's"
done
# ---- 2. a generated llama model: split by size and by tensors, loaded by llama.cpp ----
G="$TMP/g.gguf"
if have_oracle; then
    "$ORACLE" gen-llama --vocab "$CORPUS/real/ggml-vocab-llama-spm.gguf" --embd 256 --ff 512 \
        --layers 4 "$G" >/dev/null 2>&1 || fail "gen-llama"
else
    cp "$CORPUS/models/tiny-llama-e256-Q4_K_M.gguf" "$G"
fi
for opts in "--split-max-size 40M" "--split-max-size 40M --no-tensor-first-split" \
            "--split-max-tensors 5" "--split-max-tensors 7 --no-tensor-first-split"; do
    ours=$(echo "$opts" | sed 's/--split-max-/--max-/')
    rm -rf "$TMP/r" "$TMP/o"; mkdir "$TMP/r" "$TMP/o"
    "$SPLIT" --split $opts "$G" "$TMP/r/g" >/dev/null 2>&1 || fail "llama-gguf-split $opts"
    "$EDIT" split "$G" "$TMP/o/g" $ours 2>/dev/null || fail "split $ours"
    [ "$(ls "$TMP/o" | wc -l)" -ge 2 ] && ok || fail "$opts: one shard only"
    same_dirs "$TMP/r" "$TMP/o" && ok || fail "generated model [$opts]: shards differ"
    first=$(cd "$TMP/o" && ls | head -1)
    loads "$TMP/o/$first"
    "$SPLIT" --merge "$TMP/r/$first" "$TMP/ref.gguf" >/dev/null 2>&1
    "$EDIT" merge "$TMP/o/$first" "$TMP/ours.gguf" && cmp -s "$TMP/ref.gguf" "$TMP/ours.gguf" && ok ||
        fail "generated model [$opts]: merge differs"
    loads "$TMP/ours.gguf"
    rm -f "$TMP/ref.gguf" "$TMP/ours.gguf"
done
# the dry run writes nothing and plans what the split writes
rm -rf "$TMP/o"; mkdir "$TMP/o"
"$EDIT" split "$G" "$TMP/o/g" --max-size 40M --dry-run >"$TMP/plan" && [ -z "$(ls "$TMP/o")" ] && ok ||
    fail "split --dry-run wrote files"
"$EDIT" split "$G" "$TMP/o/g" --max-size 40M 2>/dev/null
[ "$(grep -c ': .* tensors' "$TMP/plan")" -eq "$(ls "$TMP/o" | wc -l)" ] && ok || fail "dry run and split disagree"

# ---- 3. a split set read through any shard, by every reading command ----
S1="$TMP/o/$(cd "$TMP/o" && ls | head -1)"; S2="$TMP/o/$(cd "$TMP/o" && ls | sed -n 2p)"
"$EDIT" merge "$S1" "$TMP/merged.gguf" 2>/dev/null
# merge reads the whole set: --one-file (one shard alone) is refused, and nothing is written
expect_status 2 "$EDIT" merge --one-file "$S1" "$TMP/one.gguf"
[ ! -e "$TMP/one.gguf" ] && grep -q "whole split set" "$TMP/err" && ok ||
    fail "merge --one-file wrote one shard as the merged file: $(cat "$TMP/err")"
[ "$("$EDIT" show --json "$S2" | grep -c '"shard":')" -eq "$("$EDIT" show --tensors --json "$G" | grep -c '"name":')" ] && ok ||
    fail "show through shard 2 does not list every tensor with its shard"
"$EDIT" hash "$S2" | tail -n +2 >"$TMP/h1"; "$EDIT" hash "$TMP/merged.gguf" | tail -n +2 >"$TMP/h2"
cmp -s "$TMP/h1" "$TMP/h2" && ok || fail "hash of the set differs from the merged file's"
[ "$("$EDIT" get "$S2" general.architecture)" = llama ] && ok || fail "get through shard 2"
last_tensor=$("$EDIT" show --tensors "$G" | tail -1 | awk '{print $2}')
"$EDIT" tensor "$S1" "$last_tensor" -o "$TMP/t1" && "$EDIT" tensor "$G" "$last_tensor" -o "$TMP/t2" &&
    cmp -s "$TMP/t1" "$TMP/t2" && ok || fail "tensor bytes through the set differ"
"$EDIT" verify "$S2" >/dev/null && ok || fail "verify of a good set"
"$EDIT" diff "$S2" "$TMP/merged.gguf" >"$TMP/d"; [ $? -eq 1 ] && [ "$(wc -l <"$TMP/d")" -eq 1 ] &&
    grep -q "^~ split.count" "$TMP/d" && ok || fail "diff set vs merged: $(head -3 "$TMP/d")"
[ "$("$EDIT" show --one-file "$S2" | head -1 | grep -c ' 3 keys')" -eq 1 ] && ok || fail "--one-file"
# a set split again (any shard given) = llama-gguf-split's split of its merge
rm -rf "$TMP/r2" "$TMP/o2"; mkdir "$TMP/r2" "$TMP/o2"
"$SPLIT" --split --split-max-tensors 9 "$TMP/merged.gguf" "$TMP/r2/x" >/dev/null 2>&1
"$EDIT" split "$S2" "$TMP/o2/x" --max-tensors 9 2>/dev/null
same_dirs "$TMP/r2" "$TMP/o2" && ok || fail "a set split again differs from llama-gguf-split's split of its merge"

# ---- 4. known differences, shown ----
rm -rf "$TMP/r" "$TMP/o"; mkdir "$TMP/r" "$TMP/o"
"$SPLIT" --split --split-max-tensors 3 "$CORPUS/synth/align_64.gguf" "$TMP/r/a" >/dev/null 2>&1
"$EDIT" split "$CORPUS/synth/align_64.gguf" "$TMP/o/a" --max-tensors 3 2>/dev/null
if have_oracle; then
    "$ORACLE" dump "$TMP/r/a-00001-of-00002.gguf" >/dev/null 2>&1 && fail "ggml reads llama-gguf-split's misaligned shard?" || ok
    "$ORACLE" dump "$TMP/o/a-00001-of-00002.gguf" >/dev/null 2>&1 && ok || fail "ggml refuses our alignment-64 shard"
fi
"$EDIT" split "$CORPUS/synth/kv_strings_unicode.gguf" "$TMP/o/u" 2>/dev/null
"$EDIT" diff "$CORPUS/synth/kv_strings_unicode.gguf" "$TMP/o/u-00001-of-00001.gguf" | grep -v "split\." | grep -q . &&
    fail "a string with a NUL inside changed" || ok
expect_status 1 "$EDIT" split "$CORPUS/bad/truncated_17_in_tensor_data.gguf" "$TMP/o/t"

# ---- 5. broken sets are refused, nothing changed ----
B="$TMP/b"
mk_set() { rm -rf "$B"; mkdir "$B"; "$EDIT" split "$G" "$B/m" --max-tensors 10 2>/dev/null; }
refused() { # WHAT PATTERN SHARD [PATTERN4]: every command refuses, naming the problem; nothing changes
    before=$(fingerprint "$B")
    for cmd in "show" "verify" "hash" "get:general.name" "merge:$B/out.gguf" "merge --delete-splits:$B/out.gguf" \
               "split:$B/again" "set:general.name:x" "convert --endian big -o:$B/be.gguf"; do
        verb=${cmd%%:*}; rest=$(echo "$cmd" | sed 's/^[^:]*:\{0,1\}//' | tr ':' ' ')
        case "$verb" in
        convert*) "$EDIT" $verb $rest "$3" >/dev/null 2>"$TMP/err"; st=$? ;;
        *) "$EDIT" $verb "$3" $rest >/dev/null 2>"$TMP/err"; st=$? ;;
        esac
        pattern=$2
        # merge --delete-splits takes a first shard that says it is one file for its own
        # interrupted merge, and judges it as that (PATTERN4)
        [ "$verb" = "merge --delete-splits" ] && [ -n "${4:-}" ] && pattern=$4
        [ $st -ne 0 ] && grep -q "$pattern" "$TMP/err" && ok || fail "$1: '$verb' exited $st: $(head -c 300 "$TMP/err")"
    done
    after=$(fingerprint "$B")
    [ "$after" = "$before" ] && ok ||
        fail "$1: the files changed: $(echo "$before" | grep -vxF -- "$after" | head -3 | tr '\n' ' ')"
}
mk_set; rm "$B/m-00003-of-00004.gguf"
refused "missing shard" "1 missing: m-00003-of-00004.gguf" "$B/m-00002-of-00004.gguf"
mk_set; cp "$B/m-00002-of-00004.gguf" "$B/m-00004-of-00004.gguf"
refused "duplicated shard" "copy of shard 2" "$B/m-00001-of-00004.gguf"
mk_set; "$EDIT" split "$CORPUS/models/tiny-llama-e256-Q4_K_M.gguf" "$TMP/other" --max-tensors 6 2>/dev/null
cp "$TMP/other-00003-of-00004.gguf" "$B/m-00003-of-00004.gguf"
refused "shards of two sets" "two different sets" "$B/m-00004-of-00004.gguf"
mk_set; mv "$B/m-00001-of-00004.gguf" "$B/m-00001-of-00005.gguf"
refused "split.count against the name" "disagrees with the name" "$B/m-00001-of-00005.gguf"
# a first shard that says split.count 0 (what a merged file says) under a shard's name: the
# set's error for every command, as for llama-gguf-split, not one file of 4 of the tensors
set_u16() { # FILE KEY VALUE: the UINT16 value of KEY rewritten in place
    python3 - "$@" <<'PY'
import struct, sys
path, key, value = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3])
b = bytearray(open(path, 'rb').read())
at = b.index(struct.pack('<Q', len(key)) + key) + 8 + len(key)
assert struct.unpack_from('<I', b, at)[0] == 2  # UINT16
struct.pack_into('<H', b, at + 4, value)
open(path, 'wb').write(b)
PY
}
mk_set; set_u16 "$B/m-00001-of-00004.gguf" split.count 0
"$SPLIT" --merge "$B/m-00001-of-00004.gguf" "$TMP/zero.gguf" >"$TMP/out" 2>&1 &&
    fail "llama-gguf-split merges a set whose first shard says split.count 0" ||
    { grep -q "split count 0" "$TMP/out" && ok || fail "llama-gguf-split: $(tail -c 200 "$TMP/out")"; }
rm -f "$TMP/zero.gguf"
refused "split.count 0 in shard 1 of 4" "split.count 0 (one file) disagrees with the name" "$B/m-00001-of-00004.gguf" \
    "the merged file holds 10 tensors, split.tensors.count says 39"
refused "split.count 0 in shard 1 of 4, read through shard 3" "split.count 0, but the set has 4 shards" "$B/m-00003-of-00004.gguf" \
    "the merged file holds 10 tensors, split.tensors.count says 39"
mk_set; set_u16 "$B/m-00001-of-00004.gguf" split.count 1
refused "split.count 1 in shard 1 of 4" "split.count 1 (one file) disagrees with the name" "$B/m-00001-of-00004.gguf"
# one file named as the only shard of a set, merged (split.count 0): one file, as it says
mk_set; "$EDIT" merge "$B/m-00002-of-00004.gguf" "$TMP/x-00001-of-00001.gguf" 2>"$TMP/err" &&
    "$EDIT" verify "$TMP/x-00001-of-00001.gguf" >/dev/null && ok ||
    fail "a merged file named x-00001-of-00001.gguf: $(head -c 300 "$TMP/err")"
rm -f "$TMP/x-00001-of-00001.gguf"
mk_set; "$EDIT" verify "$B/m-00001-of-00004.gguf" >/dev/null && ok || fail "verify of the remade set"
cp "$B/m-00001-of-00004.gguf" "$B/m-00001-of-00002.gguf"
expect_status 3 "$EDIT" verify "$B/m-00001-of-00004.gguf"
grep -q "m-00001-of-00002.gguf lies beside the set" "$TMP/out" && ok || fail "verify does not name a stray shard"

# ---- 6. edits of a set go to its first shard and keep the split keys right ----
mk_set
"$EDIT" set "$B/m-00003-of-00004.gguf" general.name "split and edited" 2>/dev/null && ok || fail "set through shard 3"
[ "$("$EDIT" get --one-file "$B/m-00001-of-00004.gguf" general.name)" = "split and edited" ] && ok || fail "the first shard was not edited"
"$EDIT" verify "$B/m-00002-of-00004.gguf" >/dev/null && ok || fail "the set after an edit"
loads "$B/m-00001-of-00004.gguf"
before=$(fingerprint "$B")
expect_status 1 "$EDIT" rm "$B/m-00002-of-00004.gguf" split.count
expect_status 1 "$EDIT" set "$B/m-00002-of-00004.gguf" split.no 3
expect_status 1 "$EDIT" edit "$B/m-00002-of-00004.gguf" --rm-tensor output.weight
expect_status 1 "$EDIT" edit "$B/m-00002-of-00004.gguf" --rename-tensor token_embd.weight=output.weight
expect_status 1 "$EDIT" set "$B/m-00002-of-00004.gguf" general.name y -o "$TMP/lone.gguf"
[ "$(fingerprint "$B")" = "$before" ] && ok || fail "a refused edit changed the set"

# ---- 7. convert converts the whole set, shard by shard ----
"$EDIT" convert "$B/m-00002-of-00004.gguf" --endian big -o "$TMP/be.gguf" 2>/dev/null && ok || fail "convert a set"
"$EDIT" convert "$TMP/be-00004-of-00004.gguf" --endian little -o "$TMP/le" 2>/dev/null && ok || fail "convert it back"
for k in 1 2 3 4; do cmp -s "$B/m-0000$k-of-00004.gguf" "$TMP/le-0000$k-of-00004.gguf" && ok || fail "shard $k changed by two conversions"; done

# ---- 8. requant of a split set: into one file, or with --keep-split into a set, the bytes of
# llama_model_quantize (through ggml-oracle) for the same set ----
if have_oracle; then
    for shape in "--max-tensors 8" "--max-tensors 10 --no-tensor-first-split"; do
        rm -rf "$TMP/q"; mkdir -p "$TMP/q/in" "$TMP/q/ref" "$TMP/q/ours"
        "$EDIT" split "$G" "$TMP/q/in/s" $shape 2>/dev/null
        ns=$(ls "$TMP/q/in" | wc -l)
        QF="$TMP/q/in/s-00001-of-0000$ns.gguf"
        for preset in Q4_K_M Q8_0; do
            rm -f "$TMP/q/ref"/* "$TMP/q/ours"/*
            "$ORACLE" llama-quantize "$QF" "$TMP/q/ref/one.gguf" "$preset" 2 >/dev/null 2>&1 ||
                fail "llama-quantize $preset"
            "$EDIT" requant "$TMP/q/in/s-0000$ns-of-0000$ns.gguf" "$preset" -o "$TMP/q/ours/one.gguf" \
                --threads 2 2>/dev/null && cmp -s "$TMP/q/ref/one.gguf" "$TMP/q/ours/one.gguf" && ok ||
                fail "[$shape] requant $preset of the set into one file differs from llama_model_quantize's"
            rm -f "$TMP/q/ref"/* "$TMP/q/ours"/*
            "$ORACLE" llama-quantize --keep-split "$QF" "$TMP/q/ref/o" "$preset" 2 >/dev/null 2>&1 ||
                fail "llama-quantize --keep-split $preset"
            "$EDIT" requant "$TMP/q/in/s-00002-of-0000$ns.gguf" "$preset" -o "$TMP/q/ours/o" \
                --keep-split --threads 2 2>/dev/null || fail "requant --keep-split"
            [ "$(ls "$TMP/q/ref" | wc -l)" -eq "$ns" ] && same_dirs "$TMP/q/ref" "$TMP/q/ours" && ok ||
                fail "[$shape] requant --keep-split $preset differs from llama_model_quantize's keep_split"
        done
        loads "$TMP/q/ours/o-00001-of-0000$ns.gguf"
    done
    echo "cli_split: requant of split sets (one file, --keep-split) = llama_model_quantize's"
fi

# ---- 9. merge --delete-splits with the disk of one shard ----
# In a filesystem with room for the set, its largest shard and two headers (the journal) but
# not for a second copy: the plain merge fails for want of space, the deleting one succeeds.
mk_set
largest=$(ls -l "$B" | awk 'NR > 1 && $5 > m {m = $5} END {print m}')
total=$(cat "$B"/* | wc -c)
header=$("$EDIT" show "$TMP/merged.gguf" | head -1 | sed 's/.*data at byte \([0-9]*\).*/\1/')
"$SPLIT" --merge "$B/m-00001-of-00004.gguf" "$TMP/ref.gguf" >/dev/null 2>&1
MNT="$TMP/mnt"; mkdir "$MNT"
# tmpfs counts whole pages: a few per file of slack
room_kib=$(( (total + largest + 2 * header) / 1024 + 4 * 12 + 64 ))
if mount -t tmpfs -o size=${room_kib}k tmpfs "$MNT" 2>/dev/null; then
    cp "$B"/* "$MNT/"
    "$EDIT" merge "$MNT/m-00001-of-00004.gguf" "$MNT/plain.gguf" >/dev/null 2>&1 &&
        fail "the plain merge fitted in $room_kib KiB: the test proves nothing" || ok
    "$EDIT" merge --delete-splits "$MNT/m-00001-of-00004.gguf" "$MNT/out.gguf" 2>"$TMP/err" &&
        cmp -s "$MNT/out.gguf" "$TMP/ref.gguf" && ok || fail "merge --delete-splits in $room_kib KiB: $(cat "$TMP/err")"
    echo "cli_split: merge --delete-splits of $total bytes (largest shard $largest, header $header) fits in $room_kib KiB"
    umount "$MNT"
else
    echo "cli_split: cannot mount a small tmpfs here (not root?): the disk bound is not measured"
fi
finish
