#!/bin/sh
# The man pages: they render without a warning (groff -ww, man -l), every command has its
# section and each section lists exactly the options of the command's table (TOOL --list
# options COMMAND), gguf-edit's synopses the options of its usage lines (and the check fails
# when an option is added to one side only: man_sync.py selftest), and gguf-catalog(1)'s
# SCHEMA section names exactly the tables, views and columns of a catalog the tool builds.
. "$(dirname "$0")/../support/cli_lib.sh"

CATALOG="$CATALOG_TOOL"
DOC="$top_srcdir/doc"
SYNC="$top_srcdir/tests/meta/man_sync.py"
if ! command -v python3 >/dev/null 2>&1; then
    echo "man_sync: python3 is required" >&2
    exit 1
fi

# ---- rendering ----
if command -v groff >/dev/null 2>&1; then
    for page in gguf-edit.1 gguf-catalog.1 libgguf.3; do
        for width in 60 80 132; do
            groff -ww -man -Tutf8 -rLL=${width}n "$DOC/$page" > "$TMP/out" 2> "$TMP/err"
            [ ! -s "$TMP/err" ] && ok || fail "$page at $width columns: $(head -3 "$TMP/err")"
        done
        [ "$(wc -l < "$TMP/out")" -gt 50 ] && ok || fail "$page did not render"
    done
else
    skip "groff is not installed: the pages were not rendered"
fi
if command -v man >/dev/null 2>&1 && man -l "$DOC/gguf-edit.1" >/dev/null 2>&1; then
    for page in gguf-edit.1 gguf-catalog.1 libgguf.3; do
        MANWIDTH=80 man -l "$DOC/$page" > "$TMP/out" 2> "$TMP/err"
        [ ! -s "$TMP/err" ] && ok || fail "man -l $page: $(head -3 "$TMP/err")"
    done
else
    skip "man -l is not available here"
fi

# ---- installed pages (GGUF_BINDIR: the tests run against an installation) ----
if [ -n "${GGUF_BINDIR:-}" ]; then
    for page in man1/gguf-edit.1 man3/libgguf.3; do
        inst="$GGUF_BINDIR/../share/man/$page"
        cmp -s "$inst" "$DOC/${page#*/}" && ok || fail "$inst is not doc/${page#*/}"
        if command -v man >/dev/null 2>&1; then
            MANWIDTH=80 man -l "$inst" > "$TMP/out" 2> "$TMP/err"
            [ ! -s "$TMP/err" ] && [ -s "$TMP/out" ] && ok || fail "man -l $inst: $(head -3 "$TMP/err")"
        fi
    done
fi

# ---- the version in each page's title is the tools' ----
version=$("$EDIT" --version | sed 's/.* //')
for page in gguf-edit.1 gguf-catalog.1 libgguf.3; do
    grep -q "^\.TH .* \"libgguf $version\"" "$DOC/$page" && ok || fail "$page: not for libgguf $version: $(grep '^\.TH' "$DOC/$page")"
done

# ---- options: --help against the man page ----
python3 "$SYNC" edit "$EDIT" "$DOC/gguf-edit.1" > "$TMP/out" 2>&1 && ok || fail "gguf-edit(1) and the option tables disagree:
$(cat "$TMP/out")"
python3 "$SYNC" selftest "$EDIT" "$DOC/gguf-edit.1" > "$TMP/out" 2>&1 && ok || fail "the check cannot fail:
$(cat "$TMP/out")"
# each option --help and --list options show is one the command takes (not refused as
# unknown), and the two show the same options
for c in $("$EDIT" --list commands); do
    "$EDIT" "$c" --help | sed -n 's/^  \(-[A-Za-z0-9], \)\{0,1\}--\([a-z0-9][a-z0-9-]*\).*/\2/p' | sort > "$TMP/help"
    "$EDIT" --list options "$c" | sed -n 's/^\(-[A-Za-z0-9], \)\{0,1\}--\([a-z0-9][a-z0-9-]*\).*/\2/p' | sort > "$TMP/list"
    cmp -s "$TMP/help" "$TMP/list" && ok || fail "$c: --help and --list options differ: $(diff "$TMP/help" "$TMP/list" | tr '\n' ' ')"
    for o in $(cat "$TMP/list"); do
        "$EDIT" "$c" "--$o" > /dev/null 2> "$TMP/err" < /dev/null
        grep -q "unknown option\|unrecognized option" "$TMP/err" && fail "$c lists --$o, which $c refuses" || ok
    done
done
if [ -x "$CATALOG" ]; then
    python3 "$SYNC" catalog "$CATALOG" "$DOC/gguf-catalog.1" > "$TMP/out" 2>&1 && ok || fail "gguf-catalog(1) and the option tables disagree:
$(cat "$TMP/out")"
    # as for gguf-edit; the options given to a catalog of its own (prune -q would prune one)
    for c in $("$CATALOG" --list commands); do
        "$CATALOG" "$c" --help | sed -n 's/^  \(-[A-Za-z0-9], \)\{0,1\}--\([a-z0-9][a-z0-9-]*\).*/\2/p' | sort > "$TMP/help"
        "$CATALOG" --list options "$c" | sed -n 's/^\(-[A-Za-z0-9], \)\{0,1\}--\([a-z0-9][a-z0-9-]*\).*/\2/p' | sort > "$TMP/list"
        cmp -s "$TMP/help" "$TMP/list" && ok || fail "catalog $c: --help and --list options differ: $(diff "$TMP/help" "$TMP/list" | tr '\n' ' ')"
        for o in $(cat "$TMP/list"); do
            "$CATALOG" --db "$TMP/lists.db" "$c" "--$o" > /dev/null 2> "$TMP/err" < /dev/null
            grep -q "unknown option\|unrecognized option" "$TMP/err" && fail "catalog $c lists --$o, which $c refuses" || ok
        done
    done
    "$CATALOG" --db "$TMP/c.db" index -q "$GOLDEN/hand/le_v3_two_tensors.gguf" > /dev/null 2>&1
    python3 "$SYNC" schema "$CATALOG" "$DOC/gguf-catalog.1" "$TMP/c.db" > "$TMP/out" 2>&1 && ok || fail "gguf-catalog(1)'s SCHEMA and the catalog disagree:
$(cat "$TMP/out")"
else
    skip "gguf-catalog is not built (no SQLite): its page was not compared"
fi

finish
