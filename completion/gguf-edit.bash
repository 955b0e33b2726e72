# bash completion for gguf-edit and gguf-catalog                          -*- shell-script -*-
#
# Everything is asked of the tool itself, so that completion follows the tool as it grows:
#   commands            TOOL --list commands
#   a command's options its --help: the lines "  --opt", "  -o, --opt ARG" (ARG: it takes one)
#   its operands        the usage lines of its --help: FILE, A, B, OUT, PATH... are files,
#                       KEY and OLD the keys of the file on the line, NAME its tensors, TYPE
#                       requant's presets and tensor types. A command with several usage lines
#                       ("FILE OUT TYPE", "FILE TYPE -o OUT") is completed by each line that
#                       fits the operands typed so far: a TYPE operand is a type (a preset or
#                       tensor type name, or a number), an operand in another place is not
#                       (as llama-quantize tells its forms apart), and -o rules out OUT.
#   option values       --opt a|b|c in the --help text (else in the tool's own --help);
#                       --type: gguf-edit --list value-types; tensor types: gguf-edit --list
#                       types; keys: gguf-edit --list keys FILE
# Needs no bash-completion helpers (uses them when loaded). A Tab press starts the tool at most
# once, for a file's names, and the next press on the same file only stat(1) (each program costs
# milliseconds on a busy machine): the text it is given is cut with bash's own matching, and
# --help texts, type lists and the last file's names are kept.

# The --help text of "TOOL CMD" into _gguf_text, kept per command line word.
_gguf_help() {
    local tool=$1 cmd=$2 var
    var="_gguf_help_cache_${tool//[^a-z]/_}_${cmd//[^a-z]/_}"
    if [[ -z ${!var+set} ]]; then
        printf -v "$var" '%s' "$("$tool" "$cmd" --help 2>/dev/null)"
    fi
    _gguf_text=${!var}
}

# Appends to COMPREPLY the words of $2 (one per line) that start with $1: compgen -W without
# the subshell that $(compgen ...) costs. Like every helper here it splits a text into lines
# by expansion (IFS a newline; _gguf_edit turns pattern matching off), where a loop of
# `read <<<` would read a pipe a byte per call: milliseconds for a --help text.
_gguf_filter() {
    local w IFS=$'\n'
    for w in $2; do
        [[ $w == "$1"* ]] && COMPREPLY+=("$w")
    done
}

# Appends to COMPREPLY the long options a --help text ($2) defines ("  --json",
# "  -o, --output OUT") that start with $1.
_gguf_options() {
    local line IFS=$'\n'
    for line in $2; do
        [[ $line =~ ^\ \ (-[A-Za-z0-9],\ )?(--[a-z0-9][a-z0-9-]*) &&
            ${BASH_REMATCH[2]} == "$1"* ]] && COMPREPLY+=("${BASH_REMATCH[2]}")
    done
}

# The first "OPT a|b|c" of a text ($2) for option $1, into _gguf_text ("" when none).
_gguf_choices() {
    local re="(^|[^a-z0-9-])$1 ([a-z0-9]+(\|[a-z0-9]+)+)"
    _gguf_text=
    [[ $2 =~ $re ]] && _gguf_text=${BASH_REMATCH[2]}
}

# Whether option $2 of a --help text ($1) takes an argument: "  --opt ARG".
_gguf_takes_arg() {
    local line IFS=$'\n'
    for line in $1; do
        [[ $line =~ ^\ \ (-[A-Za-z0-9],\ )?([^ =]+)[\ =][^\ ] && ${BASH_REMATCH[2]} == "$2" ]] &&
            return 0
        [[ $2 == -? && $line =~ ^\ \ ([^ ,]+),\ --[a-z0-9-]+[\ =][^\ ] &&
            ${BASH_REMATCH[1]} == "$2" ]] && return 0
    done
    return 1
}

# The placeholders of a command's usage line, in order: "FILE KEY VALUE", "FILE...";
# optional ones ("[PATH...]") too, options and their arguments not; into the array
# _gguf_ops.
_gguf_operands() {
    local line=$1 verb=$2 word skip=0 depth=0
    _gguf_ops=()
    line=${line#*" $verb"}
    for word in $line; do
        if ((depth)); then [[ $word == *\] ]] && depth=0; continue; fi
        if [[ $word == \[* && $word != *\] ]]; then depth=1; continue; fi
        if ((skip)); then skip=0; continue; fi
        case $word in
            -?) skip=1; continue ;; # "-o OUT"
            -* | *\|*) continue ;;
        esac
        word=${word#[}; word=${word%]}
        case $word in OPTIONS | EDITS | ARGS) continue ;; esac
        [[ $word =~ ^[A-Z][A-Z0-9_]*(\.\.\.)?$ ]] && _gguf_ops+=("$word")
    done
}

# Whether word $2 names a requant type: a preset or tensor type name (any case), or a
# preset's number. $1 is gguf-edit.
_gguf_is_type() {
    [[ $2 =~ ^[0-9]+$ ]] && return 0
    local t
    _gguf_types "$1"
    for t in $_gguf_types_cache; do
        [[ ${t^^} == "${2^^}" ]] && return 0
    done
    return 1
}

# requant's presets and the tensor types, one per line, into _gguf_types_cache: asked of
# gguf-edit ($1) once.
_gguf_types() {
    [[ -n ${_gguf_types_cache+set} ]] ||
        _gguf_types_cache=$(printf '%s\n' $("$1" --list presets 2>/dev/null) \
            $("$1" --list types 2>/dev/null) | sort -u)
}

# The places (FILE, OUT, TYPE, ...) the next operand can fill, each once, into the array
# _gguf_next: for each usage line of command $2 that fits the operands typed so far ($5...,
# with -o given when $4 is 1), its place after them. $1 is gguf-edit, $3 the usage lines.
_gguf_places() {
    local edit=$1 cmd=$2 usages=$3 has_o=$4 usage i p fit next
    shift 4
    local -a ops=("$@") places
    _gguf_next=()
    local IFS=$'\n'
    for usage in $usages; do
        IFS=$' \t\n'
        _gguf_operands "$usage" "$cmd"
        places=("${_gguf_ops[@]}")
        fit=1
        if ((has_o)) && [[ " ${places[*]} " == *" OUT "* ]]; then fit=0; fi
        for ((i = 0; fit && i < ${#ops[@]}; i++)); do
            p=${places[i]-}
            [[ -z $p ]] && p=${places[${#places[@]}-1]-}
            [[ $p == *... || $i -lt ${#places[@]} ]] || { fit=0; break; }
            if [[ " ${places[*]} " == *" TYPE "* ]]; then
                if [[ ${p%...} == TYPE ]]; then
                    _gguf_is_type "$edit" "${ops[i]}" || fit=0
                elif [[ ${p%...} != FILE ]]; then
                    _gguf_is_type "$edit" "${ops[i]}" && fit=0
                fi
            fi
        done
        ((fit)) || continue
        next=
        if ((${#ops[@]} < ${#places[@]})); then
            next=${places[${#ops[@]}]}
        elif ((${#places[@]} > 0)) && [[ ${places[${#places[@]}-1]} == *... ]]; then
            next=${places[${#places[@]}-1]}
        fi
        [[ -n $next && " ${_gguf_next[*]} " != *" $next "* ]] && _gguf_next+=("$next")
    done
}

_gguf_files() {
    local cur=$1 only_gguf=$2 IFS=$'\n'
    compopt -o filenames 2>/dev/null
    if [[ $only_gguf == 1 ]]; then
        COMPREPLY+=($(compgen -f -X '!*.gguf' -- "$cur") $(compgen -d -- "$cur"))
    else
        COMPREPLY+=($(compgen -f -- "$cur"))
    fi
}

# The keys or tensors of a file are kept for the next Tab press while the file stays the same:
# same device, inode, modification time (to the nanosecond) and size. The tool names the file
# so on the first line of the names it lists (--stat), and the next press on the file asks
# stat(1), which costs a few milliseconds where the tool reads the whole header (17 MB for a
# 262k-token vocabulary). Without GNU stat every press asks the tool.
_gguf_names() { # tool, keys|tensors, file, cur
    local file=$3 id list IFS=$'\n'
    [[ $file == "~/"* ]] && file=$HOME/${file#"~/"}
    [[ -f $file && -r $file ]] || return # a readable regular file
    if [[ $_gguf_names_of == "$1 $2 $file" ]]; then
        id=$(stat -L -c '%d %i %.9Y %s' -- "$file" 2>/dev/null) || id=
        [[ -n $id && $id == "$_gguf_names_id" ]] || _gguf_names_of=
    fi
    if [[ $_gguf_names_of != "$1 $2 $file" ]]; then
        list=$("$1" --list "$2" "$file" --stat 2>/dev/null)
        _gguf_names_id=${list%%$'\n'*}
        _gguf_names_list=
        [[ $list == *$'\n'* ]] && _gguf_names_list=${list#*$'\n'}
        _gguf_names_of="$1 $2 $file"
    fi
    _gguf_filter "$4" "$_gguf_names_list"
}

# words[] and cword: COMP_WORDS with the pieces bash cut at '=' and ':' (COMP_WORDBREAKS)
# joined again, so that "--tensor-type attn_v=Q4" and "KEY:u32" are one word each.
_gguf_join_words() {
    local line=$COMP_LINE i w pos=0 lead rest
    words=()
    cword=0
    for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
        w=${COMP_WORDS[i]}
        rest=${line:pos}
        if [[ -z $w ]]; then
            lead=$rest
        else
            lead=${rest%%"$w"*}
        fi
        if ((i > 0)) && [[ -z $lead ]] &&
            [[ $w == [=:]* || ${words[${#words[@]}-1]} == *[=:] ]]; then
            words[${#words[@]}-1]+=$w
        else
            words+=("$w")
        fi
        pos=$((pos + ${#lead} + ${#w}))
        ((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
    done
}

# Candidates for a word that holds '=' or ':': bash replaces only what follows the last one.
_gguf_trim() {
    local cur=$1 pre
    [[ $cur == *[=:]* && ${COMP_WORDBREAKS-} == *[=:]* ]] || return
    pre=${cur%"${cur##*[=:]}"}
    COMPREPLY=("${COMPREPLY[@]#"$pre"}")
}

# KEY[:TYPE]=VALUE style arguments: keys (or tensors) before '=', after ':' value types,
# after '=' files when `after` is "files".
_gguf_pair() { # edit, keys|tensors, file, cur, after
    local edit=$1 what=$2 file=$3 cur=$4 after=$5 IFS=$'\n'
    if [[ $cur == *=* ]]; then
        if [[ $after == files ]]; then
            local pre=${cur%%=*}= f
            compopt -o filenames 2>/dev/null
            for f in $(compgen -f -- "${cur#*=}"); do COMPREPLY+=("$pre$f"); done
        fi
    elif [[ $cur == *:* && $what == keys ]]; then
        COMPREPLY=($(compgen -P "${cur%%:*}:" -W "$("$edit" --list value-types 2>/dev/null)" -- "${cur#*:}"))
        compopt -o nospace 2>/dev/null # '=' comes next
    else
        _gguf_names "$edit" "$what" "$file" "$cur"
        compopt -o nospace 2>/dev/null
    fi
}

_gguf_edit() {
    # words split from texts are never file patterns (set -f, undone on return by local -)
    local tool=$1 words cword -
    set -f
    _gguf_join_words
    local cur=${words[cword]} prev=${words[cword-1]}
    local cmd= cmd_at=0 i w IFS=$' \t\n'
    COMPREPLY=()
    local catalog=0
    [[ ${tool##*/} == gguf-catalog* ]] && catalog=1

    # the command: the first word that is not an option (gguf-catalog: after --db PATH)
    for ((i = 1; i < cword; i++)); do
        w=${words[i]}
        if ((catalog)) && [[ $w == --db ]]; then ((i++)); continue; fi
        if [[ $w == --list ]]; then ((i++)); continue; fi
        [[ $w == -* ]] && continue
        cmd=$w cmd_at=$i
        break
    done
    if [[ -z $cmd ]]; then
        if ((catalog)) && [[ $prev == --db ]]; then _gguf_files "$cur" 0; return; fi
        if [[ $prev == --list ]]; then
            if ((catalog)); then
                COMPREPLY=($(compgen -W "commands options" -- "$cur"))
            else
                COMPREPLY=($(compgen -W "architectures commands types presets value-types keys tensors options" -- "$cur"))
            fi
            return
        fi
        if ((cword >= 2)) && [[ ${words[cword-2]} == --list ]]; then
            [[ $prev == keys || $prev == tensors ]] && _gguf_files "$cur" 1
            [[ $prev == options ]] && COMPREPLY=($(compgen -W "$("$tool" --list commands 2>/dev/null)" -- "$cur"))
            return
        fi
        local commands
        commands=$("$tool" --list commands 2>/dev/null)
        if ((catalog)); then
            COMPREPLY=($(compgen -W "$commands --db --help --version --list" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$commands help --help --version --list" -- "$cur"))
        fi
        return
    fi
    if [[ $cmd == help ]]; then
        ((cword == cmd_at + 1)) &&
            COMPREPLY=($(compgen -W "$("$tool" --list commands 2>/dev/null)" -- "$cur"))
        return
    fi

    local help
    _gguf_help "$tool" "$cmd"
    help=$_gguf_text
    local edit="$tool"
    ((catalog)) && edit=${tool%gguf-catalog}gguf-edit
    [[ $edit == gguf-edit || -x $edit ]] || edit=gguf-edit

    # the operands before the cursor, and the first one (the file, for keys and tensors);
    # whether an output was given with -o
    local operands=() first= has_o=0
    for ((i = cmd_at + 1; i < cword; i++)); do
        w=${words[i]}
        if [[ $w == -* ]]; then
            [[ $w == -o || $w == --output || $w == --output=* || $w == -o?* ]] && has_o=1
            [[ $w != *=* ]] && _gguf_takes_arg "$help" "$w" && ((i++))
            continue
        fi
        operands+=("$w")
    done
    first=${operands[0]}

    # the value of an option
    if [[ $prev == -* && $prev != *=* ]] && _gguf_takes_arg "$help" "$prev"; then
        _gguf_choices "$prev" "$help"
        # else the tool's own --help, whose summary of the commands may list them
        [[ -n $_gguf_text ]] || _gguf_choices "$prev" "$("$tool" --help 2>/dev/null)"
        if [[ -n $_gguf_text ]]; then
            _gguf_filter "$cur" "${_gguf_text//|/$'\n'}"
            return
        fi
        case $prev in
            --type) COMPREPLY=($(compgen -W "$("$edit" --list value-types 2>/dev/null)" -- "$cur")) ;;
            --endian | --input-endian) COMPREPLY=($(compgen -W "little big" -- "$cur")) ;;
            --output-tensor-type | --token-embedding-type)
                COMPREPLY=($(compgen -W "$("$edit" --list types 2>/dev/null)" -- "$cur")) ;;
            --rm) _gguf_names "$edit" keys "$first" "$cur" ;;
            --set | --set-json | --rename) _gguf_pair "$edit" keys "$first" "$cur" none ;;
            --set-file | --set-json-file) _gguf_pair "$edit" keys "$first" "$cur" files ;;
            --rm-tensor) _gguf_names "$edit" tensors "$first" "$cur" ;;
            --special-token) # NAME, then the token's text
                COMPREPLY=($(compgen -W "bos eos eot eom unk sep pad mask fim_pre fim_suf fim_mid fim_pad fim_rep fim_sep prefix suffix middle" -- "$cur")) ;;
            --rename-tensor) _gguf_pair "$edit" tensors "$first" "$cur" none ;;
            --tensor-type)
                if [[ $cur == *=* ]]; then
                    COMPREPLY=($(compgen -P "${cur%%=*}=" -W "$("$edit" --list types 2>/dev/null)" -- "${cur#*=}"))
                fi ;;
            --include-weights | --exclude-weights) _gguf_names "$edit" tensors "$first" "$cur" ;;
            --override-kv) # KEY=TYPE:VALUE
                if [[ $cur == *=*:* ]]; then
                    :
                elif [[ $cur == *=* ]]; then
                    COMPREPLY=($(compgen -P "${cur%%=*}=" -S : -W "int float bool str" -- "${cur#*=}"))
                    compopt -o nospace 2>/dev/null
                else
                    _gguf_names "$edit" keys "$first" "$cur"
                    compopt -o nospace 2>/dev/null
                fi ;;
            --threads | --reserve | --realign | --array-max | --timeout | --retries | --deadline | \
                --max-tensors | --max-size | --header | --whole-limit | --max-elems | \
                --max-buffer-size | --prune-layers | --max-memory | --max-width | --jobs | --values) ;;
            *) _gguf_files "$cur" 0 ;;
        esac
        _gguf_trim "$cur"
        return
    fi
    if [[ $cur == -* ]]; then
        _gguf_options "$cur" "$help"
        [[ --help == "$cur"* ]] && COMPREPLY+=(--help)
        return
    fi

    # an operand: what the usage lines call it (one place, or several when they differ)
    local usages place
    local line
    usages=
    IFS=$'\n'
    for line in $help; do
        [[ $line =~ ^(usage:\ |\ \ \ \ \ \ \ )[^\ ]+\ .*$cmd(\ |$) ]] && usages+=$line$'\n'
    done
    IFS=$' \t\n'
    _gguf_places "$edit" "$cmd" "$usages" "$has_o" "${operands[@]}"
    for place in "${_gguf_next[@]}"; do
        case ${place%...} in
            FILE | A | B | IN | FIRST | SHARD) _gguf_files "$cur" 1 ;;
            OUT | PATH | PREFIX | OUTPREFIX | DIR) _gguf_files "$cur" 0 ;;
            KEY | OLD) _gguf_names "$edit" keys "$first" "$cur" ;;
            NAME) _gguf_names "$edit" tensors "$first" "$cur" ;;
            TYPE)
                _gguf_types "$edit"
                _gguf_filter "$cur" "$_gguf_types_cache" ;;
        esac
    done
    _gguf_trim "$cur"
}

_gguf_edit_complete() { _gguf_edit "$1"; }
complete -F _gguf_edit_complete gguf-edit gguf-catalog
