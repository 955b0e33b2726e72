#!/bin/bash
# The truncation sweep: every corpus file cut at SWEEP_LENGTHS lengths (default 50: 0, 1, the
# full length, the ends of the magic, the version and the counts, the start of the data, the
# start of some keys and tensor infos, the rest drawn from a generator seeded by SWEEP_SEED) and
# each cut read by every reading command: show, show --json, get (its first key), hash, verify,
# diff against itself, tensor (its first tensor), copy and convert to a temporary file, and
# gguf-catalog index of a folder holding it. Every run must end with status 0, 1 or 3 (what the
# man pages allow a read; and 2, diff's "trouble"), never with a signal, a sanitizer's report
# or another status; a run still going after SWEEP_TIMEOUT seconds (default 300) is a hang.
# Meant for the ASan+UBSan build: the timeout only guards against a hang, it measures nothing.
#
#   GGUF_BINDIR  the folder holding gguf-edit and gguf-catalog (default: tools/ of the current
#                folder, a build tree); gguf-catalog is left out when it is not there
#   CORPUS       the corpus (default: ../shared/corpus beside the top of the tree)
#   SWEEP_JOBS   files swept at once (default 1)
#   SWEEP_DIR    where failing cuts are kept (default: a new folder under /tmp)
#
# Prints each failure with the cut that caused it, then "N runs, C crashes, H hangs" (other
# statuses counted among the crashes); exits 1 when C or H is not 0, 77 when there is no corpus.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bindir=${GGUF_BINDIR:-$PWD/tools}
corpus=${CORPUS:-$top/../shared/corpus}
n_lengths=${SWEEP_LENGTHS:-50}
seed=${SWEEP_SEED:-1}
limit=${SWEEP_TIMEOUT:-300}
jobs=${SWEEP_JOBS:-1}
EDIT=$bindir/gguf-edit
CATALOG=$bindir/gguf-catalog
[ -x "$EDIT" ] || { echo "truncation_sweep: no $EDIT (set GGUF_BINDIR)" >&2; exit 2; }
[ -d "$corpus" ] || { echo "truncation_sweep: SKIP: no corpus at $corpus"; exit 77; }
[ -x "$CATALOG" ] || CATALOG=
keep=${SWEEP_DIR:-$(mktemp -d /tmp/gguf-sweep.XXXXXX)}
mkdir -p "$keep"
# a sanitizer's report ends the run with a status of its own, never 0, 1 or 3
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=86:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-exitcode=87:print_stacktrace=1:halt_on_error=1}

# lengths FILE: the cut lengths, one a line. The header's boundaries come from a walk of the
# GGUF layout here (independent of the tools under test) that stops where the bytes stop
# making sense; a file it cannot walk gets the fixed and the drawn lengths only.
lengths() {
    python3 - "$1" "$n_lengths" "$seed" "${2:-0}" <<'EOF'
import random, struct, sys, zlib
path, n, seed, data_offset = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
b = open(path, 'rb').read()
size = len(b)
marks = []
def walk():
    if b[:4] != b'GGUF' or size < 8:
        return
    v = struct.unpack('<I', b[4:8])[0]
    e = '<' if v < 0x10000 else '>'
    if e == '>':
        v = struct.unpack('>I', b[4:8])[0]
    w = 'I' if v == 1 else 'Q'
    ws = struct.calcsize(w)
    p = 8
    def num(fmt):
        nonlocal p
        x = struct.unpack_from(e + fmt, b, p)[0]
        p += struct.calcsize(fmt)
        return x
    n_t = num(w); n_kv = num(w)
    marks.extend([4, 8, 8 + ws, 8 + 2 * ws])
    fixed = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
    def value(t, depth=0):
        nonlocal p
        if t in fixed:
            p += fixed[t]
        elif t == 8:
            skip = num(w)  # read before p is: p += num(w) would add to the old p
            p += skip
        elif t == 9 and depth < 4:
            et = num('I'); cnt = num(w)
            if et in fixed:
                p += fixed[et] * cnt
            else:
                for _ in range(min(cnt, 1 << 20)):
                    value(et, depth + 1)
                    if p > size:
                        raise ValueError
        else:
            raise ValueError
    for _ in range(min(n_kv, 1 << 16)):
        marks.append(p)
        skip = num(w)
        p += skip
        value(num('I'))
        if p > size:
            return
    for _ in range(min(n_t, 1 << 16)):
        marks.append(p)
        skip = num(w)
        p += skip
        nd = num('I')
        if nd > 8:
            return
        p += nd * 8 + 4 + 8
        if p > size:
            return
    marks.append(p)
    marks.append((p + 31) // 32 * 32)  # the data, at the default alignment
if data_offset:
    marks.append(data_offset)
try:
    walk()
except (struct.error, ValueError, OverflowError):
    pass
rng = random.Random('%s:%d' % (seed, zlib.crc32(path.encode())))
want = {0, min(1, size), size, max(size - 1, 0)}
head = sorted({m for m in marks if 0 <= m <= size})
for m in head[:8] + head[-4:]:
    want.update({m, max(m - 1, 0), min(m + 1, size)})
rest = [m for m in head if m not in want]
rng.shuffle(rest)
for m in rest:
    if len(want) >= n:
        break
    want.add(m)
tries = 0
while len(want) < min(n, size + 1) and tries < 100 * n:
    tries += 1
    want.add(rng.randint(0, size) if rng.random() < 0.5 else rng.randint(0, min(size, 1 << 16)))
if len(want) > n:
    want = {0, min(1, size), size} | set(rng.sample(sorted(want - {0, 1, size}), n - 3))
print('\n'.join(str(m) for m in sorted(want)))
EOF
}

# first FILE: the first key and the first tensor of the whole file (what get and tensor ask),
# and where its data starts (0 when the tools cannot read it)
first() {
    "$EDIT" show --json --one-file "$1" 2>/dev/null | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except Exception:
    d = {}
kv = d.get("kv") or d.get("metadata") or []
t = d.get("tensors") or []
k = kv[0].get("key") if isinstance(kv, list) and kv and isinstance(kv[0], dict) else None
if isinstance(kv, dict) and kv:
    k = next(iter(kv))
n = t[0].get("name") if t and isinstance(t[0], dict) else None
print(k or "general.architecture")
print(n or "token_embd.weight")
print(d.get("data_offset") or 0)'
}

# sweep_file FILE: every cut of FILE through every command; prints "runs crashes hangs" last
sweep_file() {
    local f=$1 rel=${1#"$corpus"/} work runs=0 crashes=0 hangs=0
    work=$(mktemp -d /tmp/gguf-sweep-run.XXXXXX)
    local names key tensor data
    names=$(first "$f")
    key=$(echo "$names" | sed -n 1p)
    tensor=$(echo "$names" | sed -n 2p)
    data=$(echo "$names" | sed -n 3p)
    mkdir "$work/in"
    local T=$work/in/t.gguf O=$work/out
    for len in $(lengths "$f" "$data"); do
        head -c "$len" "$f" > "$T"
        local i=0
        while :; do
            local -a cmd
            local allowed=" 0 1 3 "
            case $i in
            0) cmd=("$EDIT" show "$T") ;;
            1) cmd=("$EDIT" show --json "$T") ;;
            2) cmd=("$EDIT" get "$T" "$key") ;;
            3) cmd=("$EDIT" hash "$T") ;;
            4) cmd=("$EDIT" verify "$T") ;;
            5) cmd=("$EDIT" diff "$T" "$T"); allowed=" 0 1 2 3 " ;;
            6) cmd=("$EDIT" tensor "$T" "$tensor" -o "$O") ;;
            7) cmd=("$EDIT" copy "$T" "$O") ;;
            8) cmd=("$EDIT" convert "$T" --endian big -o "$O") ;;
            9) [ -n "$CATALOG" ] || break
               cmd=("$CATALOG" --db "$work/db" index "$work/in") ;;
            *) break ;;
            esac
            i=$((i + 1))
            rm -rf "$O" "$work/db" "$work/db-journal" "$work/db-wal" "$work/db-shm"
            timeout -k 10 "$limit" "${cmd[@]}" >/dev/null 2>"$work/err" </dev/null
            local st=$?
            runs=$((runs + 1))
            local what=
            if [ $st -eq 124 ] || [ $st -eq 137 ]; then
                hangs=$((hangs + 1)); what=hang
            elif grep -qE 'Sanitizer|runtime error:' "$work/err" ||
                 [ "${allowed#* $st }" = "$allowed" ]; then
                crashes=$((crashes + 1)); what="status $st"
            fi
            if [ -n "$what" ]; then
                local saved
                saved="$keep/$(echo "$rel" | tr / _).$len"
                cp "$T" "$saved"
                echo "FAIL: $rel cut at $len: ${cmd[*]##*/}: $what: $(grep -m3 -E 'ERROR|runtime error|SUMMARY|gguf' "$work/err" | tr '\n' ' ' | head -c 400) (kept as $saved)"
            fi
        done
    done
    rm -rf "$work"
    echo "$runs $crashes $hangs"
}

export -f sweep_file lengths first
export EDIT CATALOG corpus n_lengths seed limit keep
files=$(find "$corpus" -name '*.gguf' -type f | sort)
n_files=$(echo "$files" | wc -l)
# failures as they come; the per-file counts summed at the end
read -r runs crashes hangs < <(echo "$files" | xargs -d '\n' -P "$jobs" -I{} bash -c 'sweep_file "$1"' _ {} |
    awk 'NF == 3 && $1 ~ /^[0-9]+$/ {r += $1; c += $2; h += $3; next} {print > "/dev/stderr"}
         END {print r + 0, c + 0, h + 0}')
echo "truncation_sweep: $n_files files, up to $n_lengths cuts each"
echo "$runs runs, $crashes crashes, $hangs hangs"
# the folder of kept inputs goes when nothing was kept in it
[ -n "${SWEEP_DIR:-}" ] || rmdir "$keep" 2>/dev/null || true
[ "$crashes" -eq 0 ] && [ "$hangs" -eq 0 ] && [ "$runs" -gt 0 ]
