#!/bin/bash
# gguf-edit estimate by URL, against a real HTTP server (nginx, else lighttpd;
# tests/support/http_lib.sh): the same estimate as the local file, and the server's access log shows
# that only the header was fetched (at most the header plus 64 KiB of body, far less than the tensor
# data). Skips, saying why, without the corpus, libcurl in this build, or a server.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../support/cli_lib.sh"

have_corpus || { skip_all "../shared/corpus is absent"; }
if "$EDIT" show http://127.0.0.1:9/none.gguf 2>&1 | grep -q "built without HTTP support"; then
    skip_all "this build has no libcurl (configure --without-curl)"
fi
. "$(dirname "$0")/../support/http_lib.sh"

rel=models/tiny-llama-e256-Q4_K_M.gguf
file="$CORPUS/$rel"
clear_log
"$EDIT" estimate --json -c 4096 "$U/files/$rel" >"$TMP/u.json" 2>"$TMP/u.err" ||
    fail "estimate URL: $(cat "$TMP/u.err")"
"$EDIT" estimate --json -c 4096 "$file" >"$TMP/l.json" 2>"$TMP/l.err" ||
    fail "estimate FILE: $(cat "$TMP/l.err")"
sed -i "s|$U/files/$rel|$file|g" "$TMP/u.json"
cmp -s "$TMP/u.json" "$TMP/l.json" && ok "by URL: the local file's estimate" ||
    fail "by URL: $(diff "$TMP/u.json" "$TMP/l.json" | head -3)"
log_settle
head_end=$("$EDIT" show --json "$file" | sed -n 's/^{"version":[0-9]*,"endian":"[a-z]*","alignment":[0-9]*,"data_offset":\([0-9]*\).*/\1/p')
read -r body sent reqs <<<"$(log_sum "/files/$rel")"
size=$(stat -c %s "$file")
limit=$((head_end + 65536))
echo "estimate by URL: header $head_end bytes, fetched $body in $reqs requests, file $size"
if [ -n "$head_end" ] && [ "$reqs" -ge 1 ] && [ "$body" -le "$limit" ] && [ "$limit" -lt "$size" ]; then
    ok "by URL: only the header fetched ($body bytes of $size)"
else
    fail "by URL: fetched $body bytes for a header of ${head_end:-?} bytes (limit $limit, file $size)"
fi
finish
