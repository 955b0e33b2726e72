#!/bin/sh
# The tools as a new user meets them: values from files keep their key's type (--file,
# --json, --type, edit --set-file), get -> set --file round trips are lossless, write errors on
# standard output are reported, copy takes -o, convert uses every CPU by default, --version,
# "did you mean", a short usage line per command on usage errors, one progress bar and on a
# terminal only, several files for show and hash, truncated downloads still show their header,
# show --markdown, option values read by one size parser and one count parser with limits.
. "$(dirname "$0")/../support/cli_lib.sh"

CATALOG="$CATALOG_TOOL"
M="$TMP/m.gguf"
kv_line() { "$EDIT" show --kv "$M" | grep "^$1 "; }
# a model-like file: a UINT32 context length, a string array of tokens, a chat template
cp "$GOLDEN/hand/le_v3_two_tensors.gguf" "$M" && chmod u+w "$M"
"$EDIT" edit "$M" --set llama.context_length:u32=4096 \
    --set-json 'tokenizer.ggml.tokens:str=["<s>","</s>","a","b"]' \
    --set tokenizer.chat_template=x >/dev/null 2>&1
cp "$M" "$TMP/base.gguf"
fresh() { cp "$TMP/base.gguf" "$M"; }

# ---- set --file: the file's text, typed like any other value ----
printf '8192\n' > "$TMP/ctx.txt"
expect_status 0 "$EDIT" set "$M" llama.context_length "$TMP/ctx.txt" --file
kv_line llama.context_length | grep -q '\[UINT32\] 8192$' && ok || fail "set --file changed the type: $(kv_line llama.context_length)"
fresh
expect_status 0 "$EDIT" set "$M" llama.context_length "$TMP/ctx.txt" --file --type u32
kv_line llama.context_length | grep -q '\[UINT32\] 8192$' && ok || fail "set --file --type u32: $(kv_line llama.context_length)"
fresh
printf 'hello\n' > "$TMP/hello.txt"
expect_status 1 "$EDIT" set "$M" llama.context_length "$TMP/hello.txt" --file
grep -q 'UINT32' "$TMP/err" && ok || fail "a word into a UINT32 key: $(cat "$TMP/err")"
cmp -s "$M" "$TMP/base.gguf" && ok || fail "a refused set --file changed the file"
printf '["x", "y", "z"]\n' > "$TMP/tok.json"
expect_status 0 "$EDIT" set "$M" tokenizer.ggml.tokens "$TMP/tok.json" --json --file
kv_line tokenizer.ggml.tokens | grep -q '\[STRING\[3\]\]' && ok || fail "set --json --file: $(kv_line tokenizer.ggml.tokens)"
fresh
expect_status 0 "$EDIT" set "$M" tokenizer.ggml.tokens "$TMP/tok.json" --file --json
kv_line tokenizer.ggml.tokens | grep -q '\[STRING\[3\]\]' && ok || fail "set --file --json: $(kv_line tokenizer.ggml.tokens)"
fresh
# an array key keeps its type: the file is read as JSON without --json too
expect_status 0 "$EDIT" set "$M" tokenizer.ggml.tokens "$TMP/tok.json" --file
kv_line tokenizer.ggml.tokens | grep -q '\[STRING\[3\]\]' && ok || fail "set --file of an array key: $(kv_line tokenizer.ggml.tokens)"
fresh
# a new key from a file: a string, taken as it is (less the final newline)
expect_status 0 "$EDIT" set "$M" test.note "$TMP/hello.txt" --file
kv_line test.note | grep -q '\[STRING\] "hello"$' && ok || fail "new key from a file: $(kv_line test.note)"
fresh
# conflicting or misplaced flags are usage errors that change nothing
expect_status 2 "$EDIT" set "$M" llama.context_length 5 --type u32 --type str
grep -q -- '--type' "$TMP/err" && ok || fail "two --type: $(cat "$TMP/err")"
expect_status 2 "$EDIT" rm "$M" llama.context_length --type u32
grep -q 'set' "$TMP/err" && ok || fail "rm --type: $(cat "$TMP/err")"
expect_status 2 "$EDIT" rename "$M" llama.context_length x --file
expect_status 2 "$EDIT" edit "$M" --json --set a=1
cmp -s "$M" "$TMP/base.gguf" && ok || fail "a usage error changed the file"
# edit --set-file and the edits file's set-file: the same rules
expect_status 0 "$EDIT" edit "$M" --set-file llama.context_length="$TMP/ctx.txt"
kv_line llama.context_length | grep -q '\[UINT32\] 8192$' && ok || fail "edit --set-file: $(kv_line llama.context_length)"
fresh
expect_status 0 "$EDIT" edit "$M" --set-file test.ctx:u16="$TMP/ctx.txt"
kv_line test.ctx | grep -q '\[UINT16\] 8192$' && ok || fail "edit --set-file KEY:TYPE: $(kv_line test.ctx)"
fresh
expect_status 0 "$EDIT" edit "$M" --set-file tokenizer.ggml.tokens="$TMP/tok.json"
kv_line tokenizer.ggml.tokens | grep -q '\[STRING\[3\]\]' && ok || fail "edit --set-file of an array: $(kv_line tokenizer.ggml.tokens)"
fresh
printf 'set-file llama.context_length %s\n' "$TMP/ctx.txt" > "$TMP/edits"
expect_status 0 "$EDIT" edit "$M" --edits "$TMP/edits"
kv_line llama.context_length | grep -q '\[UINT32\] 8192$' && ok || fail "edits file set-file: $(kv_line llama.context_length)"
fresh

# ---- get -> set --file round trips, with and without a final newline ----
for t in 'no newline' 'ends in a newline
' '

two newlines

'; do
    printf '%s' "{% for m in messages %}{{ m.content }}{% endfor %}$t" > "$TMP/tmpl"
    expect_status 0 "$EDIT" set "$M" tokenizer.chat_template "$TMP/tmpl" --file
    "$EDIT" get --json "$M" tokenizer.chat_template > "$TMP/before"
    for round in 1 2 3; do
        "$EDIT" get "$M" tokenizer.chat_template > "$TMP/got"
        "$EDIT" set "$M" tokenizer.chat_template "$TMP/got" --file 2>/dev/null
    done
    "$EDIT" get --json "$M" tokenizer.chat_template > "$TMP/after"
    cmp -s "$TMP/before" "$TMP/after" && ok || fail "get -> set --file changed the template: $(cat "$TMP/before") -> $(cat "$TMP/after")"
    # what set --file stored is the file less its final newline, which get prints again
    "$EDIT" get "$M" tokenizer.chat_template > "$TMP/got"
    [ "$(tail -c 1 "$TMP/tmpl" | od -An -c | tr -d ' ')" = '\n' ] || printf '\n' >> "$TMP/tmpl"
    cmp -s "$TMP/tmpl" "$TMP/got" && ok || fail "get after set --file"
done
fresh

# ---- write errors on standard output ----
if [ -w /dev/full ]; then
    for cmd in "show $M" "show --json $M" "get $M tokenizer.chat_template" "hash $M" "diff $M $GOLDEN/hand/le_v3_two_tensors.gguf"; do
        # shellcheck disable=SC2086
        "$EDIT" $cmd > /dev/full 2> "$TMP/err"
        st=$?
        want=1; [ "${cmd%% *}" = diff ] && want=2
        [ "$st" -eq "$want" ] && ok || fail "$cmd > /dev/full exited $st"
        grep -q "gguf-edit: standard output: No space left on device" "$TMP/err" && ok || fail "$cmd > /dev/full: '$(cat "$TMP/err")'"
    done
    if [ -x "$CATALOG" ]; then
        "$CATALOG" --db "$TMP/c.db" index -q "$M" >/dev/null 2>&1
        "$CATALOG" --db "$TMP/c.db" query "SELECT path FROM files" > /dev/full 2> "$TMP/err"
        st=$?
        [ "$st" -eq 1 ] && ok || fail "catalog query > /dev/full exited $st"
        grep -q "gguf-catalog: standard output: No space left on device" "$TMP/err" && ok || fail "catalog query > /dev/full: '$(cat "$TMP/err")'"
    fi
else
    skip "/dev/full is not writable here"
fi

# a closed standard output: an error for what writes to it, none for what does not
"$EDIT" show "$M" >&- 2> "$TMP/err"
[ $? -eq 1 ] && grep -q "standard output: Bad file descriptor" "$TMP/err" && ok || fail "show >&-: $(cat "$TMP/err")"
cp "$M" "$TMP/closed.gguf"
"$EDIT" set "$TMP/closed.gguf" general.name closed >&- 2> "$TMP/err" && ok || fail "set >&- failed: $(cat "$TMP/err")"

# ---- copy -o, convert's threads ----
expect_status 0 "$EDIT" copy "$M" -o "$TMP/copy.gguf"
cmp -s "$M" "$TMP/copy.gguf" && ok || fail "copy -o"
expect_status 0 "$EDIT" copy --output "$TMP/copy2.gguf" "$M"
cmp -s "$M" "$TMP/copy2.gguf" && ok || fail "copy --output"
expect_status 0 "$EDIT" copy "$M" "$TMP/copy3.gguf"
expect_status 2 "$EDIT" copy "$M" "$TMP/copy4.gguf" -o "$TMP/copy5.gguf"
cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)
expect_status 0 "$EDIT" convert -v "$M" --endian big -o "$TMP/be.gguf"
grep -q " $cpus thread" "$TMP/err" && ok || fail "convert's default threads (want $cpus): $(cat "$TMP/err")"
expect_status 0 "$EDIT" convert -v "$M" --endian big --threads 1 -o "$TMP/be.gguf"
grep -q " 1 thread" "$TMP/err" && ok || fail "convert --threads 1: $(cat "$TMP/err")"

# ---- one progress bar: on a terminal only ----
expect_status 0 "$EDIT" convert "$M" --endian big -o "$TMP/be.gguf"
[ ! -s "$TMP/err" ] && ok || fail "convert piped: stderr not quiet: $(od -c "$TMP/err" | head -3)"
expect_status 0 "$EDIT" copy "$M" -o "$TMP/copy.gguf"
[ ! -s "$TMP/err" ] && ok || fail "copy piped: stderr not quiet"
if command -v python3 >/dev/null 2>&1; then
    for cmd in "convert $M --endian big -o $TMP/be2.gguf|converting" "copy $M -o $TMP/copy6.gguf|copying"; do
        python3 - "$EDIT" "${cmd%|*}" "${cmd#*|}" <<'PY' && ok || fail "no progress bar on a terminal: $cmd"
import os, pty, subprocess, sys
master, slave = pty.openpty()
p = subprocess.run([sys.argv[1]] + sys.argv[2].split(), stderr=slave, stdout=subprocess.DEVNULL)
os.close(slave)
out = b''
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
text = out.decode(errors='replace')
assert p.returncode == 0, p.returncode
assert sys.argv[3] + ' [' in text and ('syncing' in text or '100%' in text) and text.endswith('\r\x1b[K'), repr(text)
PY
    done
fi

# ---- --version, did you mean, short usage ----
expect_status 0 "$EDIT" --version
grep -q '^gguf-edit (libgguf) [0-9]' "$TMP/out" && ok || fail "--version: $(cat "$TMP/out")"
if [ -x "$CATALOG" ]; then
    expect_status 0 "$CATALOG" --version
    grep -q '^gguf-catalog (libgguf) [0-9]' "$TMP/out" && ok || fail "catalog --version: $(cat "$TMP/out")"
    expect_status 2 "$CATALOG" qeury "SELECT 1"
    grep -q "did you mean 'query'" "$TMP/err" && ok || fail "catalog qeury: $(cat "$TMP/err")"
fi
expect_status 2 "$EDIT" shwo "$M"
grep -q "did you mean 'show'" "$TMP/err" && ok || fail "shwo: $(cat "$TMP/err")"
expect_status 2 "$EDIT" show --jsn "$M"
grep -q "did you mean '--json'" "$TMP/err" && ok || fail "--jsn: $(cat "$TMP/err")"
expect_status 2 "$EDIT" set "$M" k v --tpye u8
grep -q "did you mean '--type'" "$TMP/err" && ok || fail "--tpye: $(cat "$TMP/err")"
expect_status 2 "$EDIT" convert "$M" --endain big -o "$TMP/x.gguf"
grep -q "did you mean '--endian'" "$TMP/err" && ok || fail "--endain: $(cat "$TMP/err")"
for cmd in show get set rm rename realign edit reserve copy hash convert tensor diff verify recover requant split merge; do
    "$EDIT" $cmd > "$TMP/out" 2> "$TMP/err"
    st=$?
    [ "$st" -eq 2 ] && ok || fail "$cmd without operands exited $st"
    [ "$(wc -l < "$TMP/err")" -le 4 ] && ok || fail "$cmd: usage error of $(wc -l < "$TMP/err") lines"
    grep -q "^usage: gguf-edit $cmd " "$TMP/err" && ok || fail "$cmd: no usage line: $(head -3 "$TMP/err")"
    grep -q "gguf-edit $cmd --help" "$TMP/err" && ok || fail "$cmd: does not point to --help"
    expect_status 0 "$EDIT" $cmd --help
    grep -q "^usage: gguf-edit $cmd " "$TMP/out" && ok || fail "$cmd --help: $(head -1 "$TMP/out")"
done

# the same for a bad option value and for too many operands
for cmd in "requant $M Q4_K_M -o $TMP/x.gguf --threads x" "requant $M Q4_K_X -o $TMP/x.gguf" \
    "requant $M $TMP/x.gguf Q4_K_M 2 extra" "verify --bogus $M" "diff $M $M $M" \
    "diff $M $M --threads 0" "split $M $TMP/x --max-tensors 0" "split $M $TMP/x --max-size 5K" \
    "split $M $TMP/x --max-tensors 2 --max-size 5M"; do
    # shellcheck disable=SC2086
    "$EDIT" $cmd > "$TMP/out" 2> "$TMP/err"
    st=$?
    verb=${cmd%% *}
    [ "$st" -eq 2 ] && ok || fail "$cmd exited $st"
    [ "$(wc -l < "$TMP/err")" -le 5 ] && ok || fail "$cmd: usage error of $(wc -l < "$TMP/err") lines"
    grep -q "^usage: gguf-edit $verb " "$TMP/err" && ok || fail "$cmd: no usage line: $(head -3 "$TMP/err")"
    grep -q "^Try 'gguf-edit $verb --help' for more information" "$TMP/err" && ok || fail "$cmd: does not point to --help: $(cat "$TMP/err")"
done
# gguf-catalog: the same rule, per command, and without a command
if [ -x "$CATALOG" ]; then
    for cmd in "|" "index|index" "query|query SELECT\ 1 SELECT\ 2" "query|query --format xml SELECT\ 1" \
        "query|query --timeout x SELECT\ 1" "index|index --array-max x $M" "schema|schema extra" \
        "prune|prune extra" "path|path extra"; do
        verb=${cmd%%|*}
        eval "set -- ${cmd#*|}"
        "$CATALOG" --db "$TMP/ux.db" "$@" > "$TMP/out" 2> "$TMP/err"
        st=$?
        [ "$st" -eq 2 ] && ok || fail "catalog $*: exited $st"
        [ "$(wc -l < "$TMP/err")" -le 4 ] && ok || fail "catalog $*: usage error of $(wc -l < "$TMP/err") lines"
        grep -q "^usage: gguf-catalog .*${verb:-COMMAND}" "$TMP/err" && ok || fail "catalog $*: no usage line: $(head -3 "$TMP/err")"
        grep -q "^Try 'gguf-catalog ${verb:+$verb }--help' for more information" "$TMP/err" && ok ||
            fail "catalog $*: does not point to --help: $(cat "$TMP/err")"
    done
    [ ! -e "$TMP/ux.db" ] && ok || fail "a usage error created a catalog"
fi

# ---- several files: show and hash ----
A="$GOLDEN/hand/le_v3_two_tensors.gguf" B="$GOLDEN/hand/be_v3_scalars.gguf"
expect_status 0 "$EDIT" show "$A" "$B"
grep -q "^$A: GGUF v3" "$TMP/out" && grep -q "^$B: GGUF v3" "$TMP/out" && ok || fail "show A B: $(cat "$TMP/out")"
expect_status 0 "$EDIT" show --json "$A" "$B"
python3 - "$TMP/out" "$A" "$B" <<'PY' && ok || fail "show --json A B: $(head -c 300 "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert [x["file"] for x in d] == sys.argv[2:4], d
assert d[1]["endian"] == "big"
PY
expect_status 0 "$EDIT" hash "$A" "$B"
"$EDIT" hash "$A" | sed "s|^|$A: |" > "$TMP/ha"
"$EDIT" hash "$B" | sed "s|^|$B: |" > "$TMP/hb"
cat "$TMP/ha" "$TMP/hb" | cmp -s - "$TMP/out" && ok || fail "hash A B: $(cat "$TMP/out")"
expect_status 0 "$EDIT" hash --json "$A" "$B"
python3 - "$TMP/out" "$A" "$B" <<'PY' && ok || fail "hash --json A B: $(head -c 300 "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert [x["file"] for x in d] == sys.argv[2:4], d
assert all(len(x["header"]) == 8 for x in d)
PY
# a bad file among good ones: the others are still shown, exit 1
expect_status 1 "$EDIT" show "$A" "$TMP/none.gguf" "$B"
grep -q "^$B: GGUF v3" "$TMP/out" && ok || fail "show went on after a bad file"
grep -q "none.gguf" "$TMP/err" && ok || fail "the bad file was not named"

# ---- a truncated download: the header still shows, with a warning ----
size=$(wc -c < "$A")
head -c $((size - 5)) "$A" > "$TMP/cut.gguf"
expect_status 0 "$EDIT" show "$TMP/cut.gguf"
grep -q "GGUF v3" "$TMP/out" && ok || fail "show of a cut file: $(cat "$TMP/out")"
grep -q "warning:.*cut" "$TMP/err" && ok || fail "no warning for a cut file: $(cat "$TMP/err")"
expect_status 0 "$EDIT" show --json "$TMP/cut.gguf"
python3 - "$TMP/out" "$size" <<'PY' && ok || fail "show --json of a cut file: $(cat "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["partial"]["file_size"] == int(sys.argv[2]) - 5 and d["partial"]["data_end"] == int(sys.argv[2]), d
t = d["tensors"]
assert "present" not in t[0] and t[1]["present"] == t[1]["size"] - 5, t
PY
expect_status 0 "$EDIT" get "$TMP/cut.gguf" general.architecture
grep -q "warning" "$TMP/err" && ok || fail "get of a cut file gave no warning"
first=$("$EDIT" show --tensors "$A" | sed -n 2p | awk '{print $2}')
last=$("$EDIT" show --tensors "$A" | sed -n 3p | awk '{print $2}')
expect_status 0 "$EDIT" tensor "$TMP/cut.gguf" "$first" -o "$TMP/t0"
"$EDIT" tensor "$A" "$first" | cmp -s - "$TMP/t0" && ok || fail "a whole tensor of a cut file"
expect_status 1 "$EDIT" tensor "$TMP/cut.gguf" "$last" -o "$TMP/t1"
grep -q "cut\|past the end" "$TMP/err" && ok || fail "a cut tensor: $(cat "$TMP/err")"
expect_status 1 "$EDIT" hash "$TMP/cut.gguf"
expect_status 1 "$EDIT" copy "$TMP/cut.gguf" "$TMP/cut2.gguf"
[ ! -e "$TMP/cut2.gguf" ] && ok || fail "a cut file was copied"

# ---- show --markdown ----
expect_status 0 "$EDIT" show --markdown "$M"
grep -q '^# ' "$TMP/out" && ok || fail "markdown title"
grep -q '^| [0-9]* | `llama.context_length` | UINT32 | 1 | 4096 |$' "$TMP/out" && ok || fail "markdown key row: $(grep context "$TMP/out")"
grep -q '^| [0-9]* | `tokenizer.ggml.tokens` | \[STRING\] | 4 | `<s>`, `</s>`, `a`, `b` |$' "$TMP/out" && ok || fail "markdown array row: $(grep tokens "$TMP/out")"
grep -q '^## Tensors' "$TMP/out" && ok || fail "markdown tensors"
printf 'a `b` | c\n' > "$TMP/odd.txt"
"$EDIT" set "$M" test.odd "$TMP/odd.txt" --file
"$EDIT" show --markdown "$M" | grep 'test.odd' > "$TMP/row"
grep -q '``a `b` \\| c``' "$TMP/row" && ok || fail "markdown escaping: $(cat "$TMP/row")"

# ---- option values: one size parser and one count parser, each with limits ----
# every spelling of a size means the same bytes; a fraction is rounded to the nearest byte
cp "$TMP/base.gguf" "$TMP/r4096.gguf"
"$EDIT" reserve "$TMP/r4096.gguf" 4096 2>/dev/null
for size in 4K 4k 4KiB 4kib 4KB 4Ki +4K 4.0K 0.00390625M 4096.4 4.096e3; do
    cp "$TMP/base.gguf" "$TMP/r.gguf"
    expect_status 0 "$EDIT" reserve "$TMP/r.gguf" "$size"
    cmp -s "$TMP/r.gguf" "$TMP/r4096.gguf" && ok || fail "reserve $size is not reserve 4096"
done
# a bad value or one out of range: status 2, the option and the limit named
for args in "reserve $M 4Q:SIZE takes a size" "split $M $TMP/x --max-size 5K:--max-size takes N followed by M" \
    "split $M $TMP/x --max-size 1.5G:--max-size takes N followed by M" "reserve $M 1.5Q:SIZE takes a size" \
    "split $M $TMP/x --max-size 0M:--max-size takes a size in bytes of at least 1" \
    "diff $M $M --threads 0:--threads takes a number from 1 to 256" \
    "diff $M $M --threads 99999999999999999999999:--threads takes a number from 1 to 256" \
    "tensor $M t --values -3:--values takes a count" "get $M k --whole-limit 0:--whole-limit takes a size in bytes of at least 1" \
    "get $M k --retries 101:--retries takes a number from 0 to 100" \
    "estimate $M -fa maybe:--flash-attn takes 'on', 'off' or 'auto'"; do
    # shellcheck disable=SC2086 # the words of the command line
    expect_status 2 "$EDIT" ${args%%:*}
    grep -q -- "${args#*:}" "$TMP/err" && ok || fail "${args%%:*}: $(head -1 "$TMP/err")"
done
# --list options: the options --help shows, a choice with its values
expect_status 0 "$EDIT" --list options show
grep -qx -- "--json" "$TMP/out" && grep -qx -- "--endian little|big" "$TMP/out" && ok || fail "--list options show: $(tr '\n' ' ' < "$TMP/out")"
expect_status 0 "$EDIT" --list options copy
grep -qx -- "-o, --output OUT" "$TMP/out" && ok || fail "--list options copy: $(head -1 "$TMP/out")"
expect_status 2 "$EDIT" --list options nosuch
# --list keys|tensors FILE --stat: first the file as stat(1) names it (device, inode,
# modification time to the nanosecond, size), then the names; anything else after FILE is
# a usage error
touch -d '2001-02-03 04:05:06.123456789' "$M"
for what in keys tensors; do
    "$EDIT" --list "$what" "$M" >"$TMP/names" 2>"$TMP/err" || fail "--list $what: $(cat "$TMP/err")"
    expect_status 0 "$EDIT" --list "$what" "$M" --stat
    [ "$(head -n 1 "$TMP/out")" = "$(stat -L -c '%d %i %.9Y %s' -- "$M")" ] && ok ||
        fail "--list $what --stat named the file '$(head -n 1 "$TMP/out")', stat(1) '$(stat -L -c '%d %i %.9Y %s' -- "$M")'"
    tail -n +2 "$TMP/out" | cmp -s - "$TMP/names" && [ -s "$TMP/names" ] && ok ||
        fail "--list $what --stat: the names after the first line are not --list $what's"
done
expect_status 2 "$EDIT" --list keys "$M" --json
grep -q -- "takes only --stat after it, not '--json'" "$TMP/err" && ok || fail "--list keys FILE --json: $(head -1 "$TMP/err")"
# a file that is not there: status 1 and no line at all, as without --stat
expect_status 1 "$EDIT" --list keys "$TMP/absent.gguf" --stat
[ ! -s "$TMP/out" ] && ok || fail "--list keys of an absent file --stat printed: $(head -1 "$TMP/out")"

finish
