#!/bin/sh
# Shell completion: completion/gguf-edit.bash sourced in bash, its function called for a few
# command lines (as bash would call it on TAB), the candidates compared; the zsh function is
# parsed by zsh when zsh is installed.
. "$(dirname "$0")/../support/cli_lib.sh"

if ! command -v bash >/dev/null 2>&1; then
    echo "completion: bash is not installed" >&2
    exit 77
fi
SCRIPT="$top_srcdir/completion/gguf-edit.bash"
ZSH_DIR="$top_srcdir/completion"
BINDIR="${GGUF_BINDIR:-$top_builddir/tools}"
if [ -n "${GGUF_BINDIR:-}" ]; then # an installation: its files, where they belong
    SCRIPT="$GGUF_BINDIR/../share/bash-completion/completions/gguf-edit"
    ZSH_DIR="$GGUF_BINDIR/../share/zsh/site-functions"
    [ -f "$SCRIPT" ] && ok || fail "no $SCRIPT"
    [ -f "$ZSH_DIR/_gguf-edit" ] && ok || fail "no $ZSH_DIR/_gguf-edit"
    if [ -x "$CATALOG_TOOL" ]; then
        cmp -s "$SCRIPT" "$GGUF_BINDIR/../share/bash-completion/completions/gguf-catalog" && ok ||
            fail "the bash completion of gguf-catalog is not gguf-edit's"
    fi
fi
cat > "$TMP/complete.bash" <<'EOF'
# complete.bash SCRIPT LINE: the candidates for LINE (the cursor at its end), one per line;
# the words cut as readline cuts them: at blanks, and around '=' and ':' (COMP_WORDBREAKS)
source "$1" || exit 1
line=$2
COMP_WORDBREAKS=$' \t\n"\'><=;|&(:'
COMP_WORDS=()
read -ra toks <<<"$line"
for tok in "${toks[@]}"; do
    while [[ $tok == *[=:]* ]]; do
        pre=${tok%%[=:]*}
        [[ -n $pre ]] && COMP_WORDS+=("$pre")
        COMP_WORDS+=("${tok:${#pre}:1}")
        tok=${tok:${#pre}+1}
    done
    [[ -n $tok ]] && COMP_WORDS+=("$tok")
done
[[ $line == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE=$line
COMP_POINT=${#line}
_gguf_edit_complete "${COMP_WORDS[0]}" 2>/dev/null
printf '%s\n' "${COMPREPLY[@]}" | sort -u
EOF
cp "$GOLDEN/hand/le_v3_two_tensors.gguf" "$TMP/model.gguf" && chmod u+w "$TMP/model.gguf"
"$EDIT" edit "$TMP/model.gguf" --set general.name=x --set llama.context_length:u32=8 > /dev/null 2>&1
mkdir -p "$TMP/dir"
: > "$TMP/dir/notes.txt"
cp "$TMP/model.gguf" "$TMP/dir/other.gguf"

# candidates LINE: prints them on one line
candidates() {
    (cd "$TMP" && PATH="$BINDIR:$PATH" bash "$TMP/complete.bash" "$SCRIPT" "$1") | tr '\n' ' ' | sed 's/ $//'
}
# is LINE WANT: exactly these candidates
is() {
    got=$(candidates "$1")
    [ "$got" = "$2" ] && ok || fail "'$1<TAB>': '$got', expected '$2'"
}
# has LINE WANT...: these among the candidates
has() {
    line=$1
    shift
    got=" $(candidates "$line") "
    for w in "$@"; do
        case $got in *" $w "*) ok ;; *) fail "'$line<TAB>': no '$w' in '$got'" ;; esac
    done
}

# commands, and the tools' own options
is "gguf-edit sh" "show"
is "gguf-edit re" "realign recover rename requant reserve"
has "gguf-edit " show get set edit convert requant verify help --version --list
is "gguf-edit --li" "--list"
is "gguf-edit --list " "architectures commands keys options presets tensors types value-types"
is "gguf-edit --list options sh" "show"
is "gguf-edit help sh" "show"
# a command's options, from its --help
is "gguf-edit show --js" "--json"
has "gguf-edit show --" --json --markdown --kv --tensors --lenient --no-mmap --help
is "gguf-edit set model.gguf k v --ty" "--type"
is "gguf-edit copy model.gguf -o x --out" "--output"
# option values
is "gguf-edit set model.gguf k v --type u" "u16 u32 u64 u8"
is "gguf-edit convert model.gguf --endian " "big little"
is "gguf-edit convert model.gguf --version " "2 3"
has "gguf-edit requant model.gguf Q8_0 --output-tensor-type Q" Q4_K Q6_K Q8_0
# keys and tensors of the file on the line
is "gguf-edit get model.gguf gen" "general.architecture general.name"
is "gguf-edit get model.gguf llama." "llama.context_length"
is "gguf-edit set model.gguf test." "test.arr test.u16"
is "gguf-edit rm model.gguf test.u16 test." "test.arr test.u16"
is "gguf-edit rename model.gguf gen" "general.architecture general.name"
is "gguf-edit edit model.gguf --rm gen" "general.architecture general.name"
is "gguf-edit edit model.gguf --rm-tensor " "a b"
is "gguf-edit tensor model.gguf " "a b"
is "gguf-edit tensor --f32 model.gguf " "a b"
is "gguf-edit get dir/none.gguf gen" ""
is "gguf-edit --list keys model.gguf" "model.gguf"
# the next press on the same file asks stat, not the tool; once the file changes (an in-place
# edit: same inode and size), the tool again, and the new key is offered
mkdir -p "$TMP/logbin"
cat > "$TMP/logbin/gguf-edit" <<EOF
#!/bin/sh
[ "\$1" = --list ] && echo "\$*" >> "$TMP/tool.log"
exec "$BINDIR/gguf-edit" "\$@"
EOF
chmod +x "$TMP/logbin/gguf-edit"
cp "$TMP/model.gguf" "$TMP/cached.gguf"
"$EDIT" reserve "$TMP/cached.gguf" 4096 >/dev/null 2>&1 || fail "reserve for the cache test"
cat > "$TMP/presses.bash" <<'EOF'
source "$1" || exit 1
press() {
    COMP_WORDS=(gguf-edit get cached.gguf test.)
    COMP_CWORD=3 COMP_LINE="${COMP_WORDS[*]}" COMP_POINT=${#COMP_LINE}
    _gguf_edit_complete gguf-edit 2>/dev/null
    echo "${COMPREPLY[*]}"
}
press
press
gguf-edit set cached.gguf test.added 1 >/dev/null 2>&1 || echo "set failed"
press
EOF
size=$(wc -c <"$TMP/cached.gguf")
got=$(cd "$TMP" && PATH="$TMP/logbin:$PATH" bash "$TMP/presses.bash" "$SCRIPT" | tr '\n' '|')
[ "$got" = "test.u16 test.arr|test.u16 test.arr|test.u16 test.arr test.added|" ] && ok ||
    fail "three presses around an edit offered: $got"
[ "$(wc -c <"$TMP/cached.gguf")" = "$size" ] && ok || fail "the edit between presses moved the file"
[ "$(grep -c -- '--list keys' "$TMP/tool.log")" = 2 ] && ok ||
    fail "the tool was asked for keys $(grep -c -- '--list keys' "$TMP/tool.log") times in three presses, not 2"
# files: GGUF files and folders for FILE, any file for OUT
is "gguf-edit show dir/" "dir/other.gguf"
is "gguf-edit show mod" "model.gguf"
is "gguf-edit copy model.gguf dir/" "dir/notes.txt dir/other.gguf"
is "gguf-edit set model.gguf k v --edits dir/n" "dir/notes.txt"
# KEY=VALUE and KEY:TYPE arguments, cut by bash at '=' and ':' (candidates after the cut)
is "gguf-edit edit model.gguf --set llama.c" "llama.context_length"
is "gguf-edit edit model.gguf --set llama.context_length:u3" "u32"
is "gguf-edit edit model.gguf --set-file general.name=dir/n" "dir/notes.txt"
is "gguf-edit edit model.gguf --rename-tensor " "a b"
is "gguf-edit requant model.gguf Q8_0 --tensor-type attn_v=IQ4_" "IQ4_NL IQ4_XS"
# requant's TYPE: presets and tensor types
has "gguf-edit requant model.gguf Q4_K" Q4_K Q4_K_M Q4_K_S
is "gguf-edit requant model.gguf IQ4_" "IQ4_NL IQ4_XS"
# ... or OUT (FILE OUT TYPE [NTHREADS]), told apart as llama-quantize does: is it a type?
has "gguf-edit requant model.gguf dir/" dir/notes.txt dir/other.gguf
has "gguf-edit requant model.gguf out.gguf Q4_K" Q4_K Q4_K_M Q4_K_S
is "gguf-edit requant model.gguf out.gguf IQ4_" "IQ4_NL IQ4_XS"
is "gguf-edit requant model.gguf q4_k_m " ""
is "gguf-edit requant model.gguf 15 " ""
is "gguf-edit requant model.gguf out.gguf Q4_K_M " ""
is "gguf-edit requant -o x.gguf model.gguf mod" ""
is "gguf-edit requant model.gguf --output x.gguf IQ4_" "IQ4_NL IQ4_XS"
is "gguf-edit requant model.gguf Q8_0 --include-weights " "a b"
is "gguf-edit requant model.gguf Q8_0 --override-kv general.n" "general.name"
is "gguf-edit requant model.gguf Q8_0 --override-kv general.name=" "bool: float: int: str:"
is "gguf-edit requant model.gguf Q8_0 --max-buffer-size " ""
# split and merge; verify's and diff's options; the reading options
is "gguf-edit split model.gguf dir/" "dir/notes.txt dir/other.gguf"
is "gguf-edit merge dir/" "dir/other.gguf"
is "gguf-edit merge dir/other.gguf dir/" "dir/notes.txt dir/other.gguf"
is "gguf-edit merge dir/other.gguf x --del" "--delete-splits"
is "gguf-edit verify --st" "--structure"
is "gguf-edit diff model.gguf model.gguf --va" "--values"
is "gguf-edit diff model.gguf model.gguf --max-elems " ""
is "gguf-edit show --one" "--one-file"
is "gguf-edit show --whole-limit " ""
# gguf-catalog
if [ -x "$CATALOG_TOOL" ]; then
    is "gguf-catalog qu" "query"
    has "gguf-catalog " index query verify prune path --db --version
    is "gguf-catalog query x --format " "box csv json line markdown table"
    is "gguf-catalog --db x.db query x --format j" "json"
    is "gguf-catalog query x --max-width " ""
    has "gguf-catalog index --" --crc --follow-symlinks --quiet --lenient
    is "gguf-catalog index --one" ""
    is "gguf-catalog query x --max-memory " ""
    is "gguf-catalog sc" "schema"
    is "gguf-catalog index dir/" "dir/notes.txt dir/other.gguf"
    has "gguf-catalog index --" --urls --jobs --header --offline
    is "gguf-catalog index --urls dir/" "dir/notes.txt dir/other.gguf"
    is "gguf-catalog index --jobs " ""
    has "gguf-catalog verify --" --header --offline --timeout --retries
    is "gguf-catalog verify dir/" "dir/notes.txt dir/other.gguf"
    has "gguf-catalog " schema export --list
    is "gguf-catalog --list " "commands options"
    is "gguf-catalog --list options qu" "query"
    is "gguf-catalog --db x.db --list options " "export index path prune query schema verify"
else
    skip "gguf-catalog is not built: its completion was not tried"
fi

# zsh: the function parses, and an interactive zsh completes a few lines with it
if command -v zsh >/dev/null 2>&1; then
    zsh -n "$ZSH_DIR/_gguf-edit" && ok || fail "_gguf-edit does not parse"
    zsh_has() {
        PATH="$BINDIR:$PATH" python3 "$top_srcdir/tests/meta/complete_zsh.py" \
            "$ZSH_DIR" "$TMP" "$@" > "$TMP/zsh.out" 2>&1 && ok ||
            fail "zsh: $(cat "$TMP/zsh.out")"
    }
    zsh_has "gguf-edit get model.gguf gen" general.architecture general.name
    zsh_has "gguf-edit show --js" "--json"
    zsh_has "gguf-edit requant model.gguf IQ4_" IQ4_NL IQ4_XS
    zsh_has "gguf-edit requant model.gguf out.gguf IQ4_" IQ4_NL IQ4_XS
    zsh_has "gguf-edit requant model.gguf di" dir/
    zsh_has "gguf-edit split model.gguf dir/" notes.txt other.gguf
    zsh_has "gguf-edit requant model.gguf Q8_0 --include-weights " "a" "b"
    [ -x "$CATALOG_TOOL" ] && zsh_has "gguf-catalog query x --format " csv json line table
    zsh_has "gguf-edit tensor model.gguf " "a" "b"
    zsh_has "gguf-edit set model.gguf k v --type u" u8 u16 u32 u64
    if [ -x "$CATALOG_TOOL" ]; then
        zsh_has "gguf-catalog index --u" --urls
        zsh_has "gguf-catalog verify --off" --offline
    fi
else
    skip "zsh is not installed: _gguf-edit was not tried"
fi
finish
