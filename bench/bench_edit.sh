#!/bin/sh
# Edits of a large generated file (default 2 GiB), next to cp of the same file in the same run:
#  - an edit that fits the header's padding (in place through the journal: milliseconds);
#  - an edit that grows the header past its padding, without reserved room: a rewrite (the copy
#    engine with its checksums and writeback, fsync, the proof's sampled read-back from the
#    disk, rename), as a ratio to cp and to cp + fsync (the baseline: an edit is on disk when it
#    returns), and to cp + fsync + mv over the model (a rewrite also frees the old file's
#    blocks, which cp to a new name does not); and the same edit timed up to the moment it is
#    on disk (its folder's fsync after the rename), before the old file is freed;
#  - `reserve 1M` and edits with a 100 KiB chat template afterwards (in place), and an edit past
#    the reserved room (blocks inserted in place where the filesystem can, else a rewrite);
#  - in place on files with real vocabularies and `reserve 1M` (llama-spm's 32k tokens from the
#    corpus, gemma-4's 262k from ggml-oracle's llama.cpp tree): `set general.name` and a 100 KiB
#    chat template, next to a dd of the header region's size with conv=fdatasync in the same
#    run (aim: at most 2x), and the bytes each edit reads and writes as io.c's hooks count them
#    (tests/lib/commit/check_faults, its "io" case: the same vocabularies, deterministic).
# Each timed command starts after a sync, best of BENCH_RUNS (5); the load average is printed.
# On ext4 (the filesystem the rewrite figure is about): when the folder is on another one, or
# with BENCH_EDIT_IMAGE=1, an ext4 image with mkfs.ext4's defaults (a journal, no discard: the
# usual configuration; its tables initialised before the runs, not during them) is made and
# mounted for the run where the machine allows it, on a loop device with direct I/O (no second
# page cache under it); the header names the mount and its options. The tool is run directly
# (not through libtool's wrapper script, which would add its own start-up to every figure).
set -eu
top_builddir=${top_builddir:-.}
EDIT="$top_builddir/tools/gguf-edit"
if [ -x "$top_builddir/tools/.libs/gguf-edit" ]; then
    EDIT="$top_builddir/tools/.libs/gguf-edit"
    LD_LIBRARY_PATH="$top_builddir/libgguf/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
fi
GEN="$top_builddir/bench/gen_model"
SIZE_MIB=${BENCH_EDIT_MIB:-2048}
RUNS=${BENCH_RUNS:-5}
DIR=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/gguf-bench-edit.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
trap 'exit 130' HUP INT TERM # through the EXIT trap: an interrupted run leaves nothing
if [ "$(stat -f -c %T "$DIR")" != "ext2/ext3" ] || [ "${BENCH_EDIT_IMAGE:-0}" != 0 ]; then
    # an image of its own, when mkfs.ext4 and loop devices are allowed here
    IMG="$DIR.img"
    # written whole, with bytes that are not zeros: neither sparse nor fallocated, so that no
    # figure pays for allocating blocks of the file under the image (a hole, or an unwritten
    # extent to convert), and not zeros, which a virtual disk may keep unallocated below it
    if yes 'gguf bench image' | head -c $(((SIZE_MIB * 4 + 512) << 20)) |
        dd of="$IMG" bs=64M iflag=fullblock oflag=direct status=none 2>/dev/null &&
        LOOP=$(losetup --direct-io=on -f --show "$IMG" 2>/dev/null); then
        # nodiscard: mkfs.ext4 would discard the device, which on a loop device punches the
        # written file full of holes again. No lazy initialisation: the kernel would write the
        # inode tables and the journal in the background, through the timed runs.
        if mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "$LOOP" \
            2>/dev/null && mount "$LOOP" "$DIR" 2>/dev/null; then
            trap 'umount "$DIR"; losetup -d "$LOOP"; rm -rf "$DIR" "$IMG"' EXIT
        else
            losetup -d "$LOOP"
            rm -f "$IMG"
        fi
    else
        rm -f "$IMG"
    fi
    [ "$(stat -f -c %T "$DIR")" = "ext2/ext3" ] ||
        echo "bench_edit: no ext4 image could be mounted: figures are for $(stat -f -c %T "$DIR")"
fi
M="$DIR/model.gguf"
"$GEN" "$M" "$SIZE_MIB"
secs() { sync; start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N); echo "$end - $start" | bc -l; }
min() { [ "$(echo "$2 < $1" | bc)" = 1 ] && echo "$2" || echo "$1"; }
ms() { echo "$1 * 1000" | bc -l; }
cp_sync() { cp "$M" "$DIR/copy.gguf" && sync "$DIR/copy.gguf"; }
cp_sync_mv() { cp "$M" "$DIR/copy.gguf" && sync "$DIR/copy.gguf" && mv "$DIR/copy.gguf" "$DIR/old.gguf"; }
# rewrite_secs CMD...: "DURABLE WHOLE", the seconds from the start of CMD (a rewrite) to its
# folder's fsync after the rename, the moment the edit is on disk, told by the library's test
# pause point folder-synced (two FIFOs; the reply lets it run on), and to its end, which adds
# the freeing of the replaced file that cp + fsync has no part of. Both from one run.
mkfifo "$DIR/pause" "$DIR/pause.go"
rewrite_secs() {
    sync
    exec 3<>"$DIR/pause" # read and written here: a read never meets the end of the FIFO
    start=$(date +%s.%N)
    (GGUF_TEST_PAUSE_AT=folder-synced GGUF_TEST_PAUSE_FIFO="$DIR/pause" "$@" >/dev/null 2>&1
        echo exited >&3) &
    read -r what _ <&3
    mid=$(date +%s.%N)
    if [ "$what" = folder-synced ]; then
        : > "$DIR/pause.go"
        read -r _ <&3
    fi
    end=$(date +%s.%N)
    wait $!
    exec 3<&-
    [ "$what" = folder-synced ] || mid=$start+999999
    echo "$(echo "$mid - $start" | bc -l) $(echo "$end - $start" | bc -l)"
}
LONG="a name long enough to grow the header past its padding $(printf '%0200d' 0)"
python3 -c "print('{% for m in messages %}' + 'x' * 102400 + '{% endfor %}')" > "$DIR/tpl.txt"
python3 -c "print('y' * 3000000)" > "$DIR/big.txt"
best_cp=999999; best_cps=999999; best_cpsmv=999999; best_grow=999999; best_inplace=999999
best_durable=999999
best_reserve=999999; best_tpl=999999; best_past=999999
i=0
while [ $i -lt "$RUNS" ]; do
    i=$((i + 1))
    best_cp=$(min "$best_cp" "$(secs cp "$M" "$DIR/copy.gguf")"); rm -f "$DIR/copy.gguf"
    t_cps=$(secs cp_sync); rm -f "$DIR/copy.gguf"
    best_cps=$(min "$best_cps" "$t_cps")
    cp "$M" "$DIR/old.gguf"
    best_cpsmv=$(min "$best_cpsmv" "$(secs cp_sync_mv)"); rm -f "$DIR/old.gguf"
    best_inplace=$(min "$best_inplace" "$(secs "$EDIT" set "$M" general.name "in place $i")")
    # the rewrite after what cp + fsync came after (a cp of the model, removed): on a virtual
    # machine that hands freed memory back to its host, the state a command starts in moves
    # its time by half (a cp + fsync took 1.0 s after a cp and rm, 1.8 s after a rewrite)
    cp "$M" "$DIR/copy.gguf" && rm -f "$DIR/copy.gguf"
    # shellcheck disable=SC2046 # two numbers
    set -- $(rewrite_secs "$EDIT" set "$M" general.name "$LONG $i")
    best_durable=$(min "$best_durable" "$1")
    best_grow=$(min "$best_grow" "$2")
    # each round's pair, on stderr: the device's speed drifts between rounds on a shared VM
    printf 'round %s: cp + fsync %.3f s, rewrite %.3f s (until durable %.3f s)\n' \
        "$i" "$t_cps" "$2" "$1" >&2
    "$EDIT" set "$M" general.name "generated" >/dev/null  # back to the short header
    # room, then a 100 KiB template in it, then past it; a fresh copy of the model each round
    cp "$M" "$DIR/r.gguf"
    best_reserve=$(min "$best_reserve" "$(secs "$EDIT" reserve "$DIR/r.gguf" 1M)")
    best_tpl=$(min "$best_tpl" "$(secs "$EDIT" set "$DIR/r.gguf" tokenizer.chat_template "$DIR/tpl.txt" --file)")
    best_past=$(min "$best_past" "$(secs "$EDIT" set "$DIR/r.gguf" tokenizer.chat_template "$DIR/big.txt" --file)")
    rm -f "$DIR/r.gguf"
done
fs=$(findmnt -n -o FSTYPE,SOURCE,OPTIONS -T "$DIR" 2>/dev/null || stat -f -c %T "$DIR")
printf 'edit %s MiB file on %s, best of %s, load average %s:\n' "$SIZE_MIB" "$fs" "$RUNS" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '  cp                              %8.3f s   (baseline)\n' "$best_cp"
printf '  cp + fsync                      %8.3f s   (baseline)\n' "$best_cps"
printf '  cp + fsync + mv over a copy     %8.3f s   (baseline: the old file freed too)\n' "$best_cpsmv"
printf '  edit that fits (in place)       %8.1f ms  (journal; fdatasync of the journal, folder, file)\n' "$(ms "$best_inplace")"
printf '  growing edit, no room (rewrite) %8.3f s   %.2fx cp, %.2fx cp+fsync, %.2fx cp+fsync+mv  (checksummed copy, sampled read-back)\n' \
    "$best_grow" "$(echo "$best_grow / $best_cp" | bc -l)" "$(echo "$best_grow / $best_cps" | bc -l)" "$(echo "$best_grow / $best_cpsmv" | bc -l)"
printf '    ... of it, until durable      %8.3f s   %.2fx cp+fsync  (to the folder'"'"'s fsync after the rename; the rest frees the old file)\n' \
    "$best_durable" "$(echo "$best_durable / $best_cps" | bc -l)"
printf '  reserve 1M                      %8.1f ms  %.3fx cp+fsync\n' "$(ms "$best_reserve")" "$(echo "$best_reserve / $best_cps" | bc -l)"
printf '  100 KiB chat template, in room  %8.1f ms  (aim: under 50 ms)\n' "$(ms "$best_tpl")"
printf '  3 MB template, past the room    %8.1f ms  %.3fx cp+fsync  (blocks inserted in place on ext4/XFS, else a rewrite)\n' \
    "$(ms "$best_past")" "$(echo "$best_past / $best_cps" | bc -l)"

# ---- in place, on real vocabularies ----
ORACLE=${GGML_ORACLE:-/tmp/ggml-oracle/bin/ggml-oracle}
CORPUS=${top_srcdir:-.}/../shared/corpus
printf 'in place on %s MiB files with real vocabularies and reserve 1M, best of %s:\n' "$SIZE_MIB" "$RUNS"
# the tool's own start (its libraries loaded and bound), part of every edit's time
best_start=999999
i=0
while [ $i -lt "$RUNS" ]; do
    i=$((i + 1))
    best_start=$(min "$best_start" "$(secs "$EDIT" --version)")
done
printf '  %-26s %7.1f ms  (gguf-edit --version: in each figure below)\n' "tool start" "$(ms "$best_start")"
for vocab in "$CORPUS/real/ggml-vocab-llama-spm.gguf" "$(dirname "$ORACLE")/../src/models/ggml-vocab-gemma-4.gguf"; do
    name=$(basename "$vocab" .gguf)
    if [ ! -f "$vocab" ]; then
        echo "  $name: absent, skipped"
        continue
    fi
    V="$DIR/vocab.gguf"
    "$GEN" "$V" "$SIZE_MIB" 32 "$vocab"
    "$EDIT" reserve "$V" 1M >/dev/null
    d=$("$EDIT" show "$V" 2>/dev/null | sed -n 's/.*data at byte \([0-9]*\).*/\1/p')
    python3 -c "print('{% for m in messages %}' + 'y' * 102400 + '{% endfor %}')" > "$DIR/tpl2.txt"
    best_dd=999999; best_name=999999; best_t=999999
    i=0
    while [ $i -lt "$RUNS" ]; do
        i=$((i + 1))
        best_dd=$(min "$best_dd" "$(secs dd if="$V" of="$DIR/dd.out" bs="$d" count=1 conv=fdatasync status=none)")
        rm -f "$DIR/dd.out"
        best_name=$(min "$best_name" "$(secs "$EDIT" set "$V" general.name "abcde$i")")
        # each run changes the template: a 100 KiB one, then another
        if [ $((i % 2)) = 1 ]; then t="$DIR/tpl2.txt"; else t="$DIR/tpl.txt"; fi
        [ $i = 1 ] && "$EDIT" set "$V" tokenizer.chat_template "$DIR/tpl.txt" --file >/dev/null
        best_t=$(min "$best_t" "$(secs "$EDIT" set "$V" tokenizer.chat_template "$t" --file)")
    done
    printf '  %-26s header region %d bytes: dd + fdatasync %7.1f ms\n' "$name" "$d" "$(ms "$best_dd")"
    for what in name t; do
        eval "b=\$best_$what"
        [ $what = name ] && label="set general.name" || label="100 KiB chat template"
        printf '  %-26s   %-22s %7.1f ms  %.2fx dd; without the tool start %.2fx dd\n' "" "$label" \
            "$(ms "$b")" "$(echo "$b / $best_dd" | bc -l)" "$(echo "($b - $best_start) / $best_dd" | bc -l)"
    done
    rm -f "$V"
done
CHECK="$top_builddir/tests/lib/commit/check_faults"
if [ -x "$CHECK" ]; then
    echo "bytes per in-place edit, counted by io.c's hooks (tests/lib/commit/check_faults):"
    CK_RUN_CASE=io CK_VERBOSITY=silent "$CHECK" 2>&1 | sed -n 's/^# /  /p'
else
    echo "bytes per in-place edit: tests/lib/commit/check_faults not built (make check builds it)"
fi
