#!/bin/sh
# Growing edits without copying the model: `reserve` keeps room in the header
# (the libgguf.padding key); later edits consume it in place; an edit past the room inserts
# whole blocks before the data in place on ext4 and XFS, clones them into a new file on btrfs
# (a loop-mounted image, when this runs as root), and copies them elsewhere (tmpfs). Each
# result keeps every tensor's bytes, verifies, and llama.cpp loads it and computes the same
# logits as from the original.
. "$(dirname "$0")/../support/cli_lib.sh"
MODEL="$CORPUS/models/tiny-llama-e256-Q4_K_M.gguf"
if ! have_corpus || [ ! -f "$MODEL" ]; then
    skip_all "no ../shared/corpus (models/tiny-llama-e256-Q4_K_M.gguf)"
fi
python3 -c "print('{% for m in messages %}' + 'x' * 102400 + '{% endfor %}')" > "$TMP/tpl.txt"
hashes() { "$EDIT" hash "$1" | grep -v '(header)' ; }
fs_type() { stat -f -c %T "$1"; }
# logits of the original, for the comparisons below
if have_oracle; then
    "$ORACLE" llama-load --eval "$MODEL" 2>/dev/null | grep -o '"first_logits":\[[^]]*\]' > "$TMP/logits.orig"
fi

check_dir() { # check_dir DIR: the whole sequence in one folder
    d=$1
    m="$d/m.gguf"
    cp "$MODEL" "$m"; chmod 644 "$m"
    hashes "$m" > "$TMP/h.orig"
    "$EDIT" reserve "$m" 1M -v 2>"$TMP/err" && ok || fail "reserve: $(cat "$TMP/err")"
    case $(fs_type "$d") in
    ext2/ext3|xfs) grep -q "grown in place by" "$TMP/err" && ok || fail "reserve on $(fs_type "$d") copied: $(cat "$TMP/err")" ;;
    btrfs) grep -q "rewritten and renamed over the file ([1-9][0-9]* bytes cloned" "$TMP/err" && ok ||
        fail "reserve on btrfs did not clone: $(cat "$TMP/err")" ;;
    *) grep -q "rewritten and renamed over the file (0 bytes cloned" "$TMP/err" && ok || fail "reserve on $(fs_type "$d"): $(cat "$TMP/err")" ;;
    esac
    [ "$("$EDIT" get "$m" libgguf.padding --json | head -c 1)" = "[" ] && ok || fail "no padding key"
    # a 100 KiB chat template now fits in place, twice, and a smaller one too
    for round in 1 2; do
        "$EDIT" set "$m" tokenizer.chat_template "$TMP/tpl.txt" --file -v 2>"$TMP/err" && ok || fail "set: $(cat "$TMP/err")"
        grep -q "rewritten in place" "$TMP/err" && ok || fail "the template did not fit in place: $(cat "$TMP/err")"
    done
    "$EDIT" set "$m" general.name "short" -v 2>"$TMP/err" && grep -q "in place" "$TMP/err" && ok || fail "small edit: $(cat "$TMP/err")"
    # past the room: grows again (in place where blocks can be inserted)
    python3 -c "print('y' * 2000000)" > "$TMP/big.txt"
    "$EDIT" set "$m" tokenizer.chat_template "$TMP/big.txt" --file -v 2>"$TMP/err" && ok || fail "big set: $(cat "$TMP/err")"
    hashes "$m" > "$TMP/h.now"
    cmp -s "$TMP/h.orig" "$TMP/h.now" && ok || fail "tensor bytes changed"
    "$EDIT" verify "$m" >/dev/null 2>&1; st=$?
    [ $st -eq 0 ] || [ $st -eq 3 ] && ok || fail "verify of the padded file exited $st"
    "$EDIT" get "$m" tokenizer.chat_template | head -c "$(wc -c < "$TMP/big.txt")" | cmp -s - "$TMP/big.txt" &&
        ok || fail "the template read back differs"
    if have_oracle; then
        "$ORACLE" llama-load --eval "$m" 2>/dev/null | grep -o '"first_logits":\[[^]]*\]' > "$TMP/logits.now"
        [ -s "$TMP/logits.now" ] && cmp -s "$TMP/logits.orig" "$TMP/logits.now" && ok ||
            fail "llama.cpp does not load the padded file, or computes other logits"
    else
        skip "llama.cpp's loader (ggml-oracle) absent"
    fi
    ls -a "$d" | grep -q "journal\|tmp-" && fail "files left beside the model: $(ls -a "$d")" || ok
}

mkdir "$TMP/disk"
check_dir "$TMP/disk"
# a filesystem without block insertion: tmpfs
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    shm=$(mktemp -d /dev/shm/gguf-reserve.XXXXXX)
    check_dir "$shm"
    rm -rf "$shm"
else
    skip "no tmpfs at /dev/shm"
fi
# btrfs clones instead of inserting: a loop-mounted image (root only)
if [ "$(id -u)" = 0 ] && command -v mkfs.btrfs >/dev/null 2>&1; then
    truncate -s 400M "$TMP/btrfs.img"
    mkdir "$TMP/btrfs"
    if mkfs.btrfs -q -f "$TMP/btrfs.img" >/dev/null 2>&1 && mount -o loop "$TMP/btrfs.img" "$TMP/btrfs" 2>/dev/null; then
        check_dir "$TMP/btrfs"
        umount "$TMP/btrfs"
    else
        skip "cannot mount a btrfs image here"
    fi
else
    skip "btrfs: not root, or no mkfs.btrfs"
fi
finish
