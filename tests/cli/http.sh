#!/bin/bash
# gguf-edit on http:// URLs, against a real HTTP server started here on 127.0.0.1 (nginx, else
# lighttpd; GGUF_TEST_HTTPD=nginx|lighttpd picks one), and a misbehaving one of our own
# (tests/support/http_server.py: 503s, dropped connections, a server that hangs, a file that
# changes). What a URL gives must be what the local file gives: every corpus file's show --json,
# verify, get, hash, tensor, diff. The server's access log shows what was fetched: a header-only
# command gets at most the header plus 64 KiB of body, and tensor reads get exactly the bytes
# asked for. Skips, saying why, without the corpus, without libcurl in this build, or without a
# server. Needs bash (arrays, /dev/tcp): under another shell it starts again under bash.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../support/cli_lib.sh"

have_corpus || { skip_all "../shared/corpus is absent"; }
if "$EDIT" show http://127.0.0.1:9/none.gguf 2>&1 | grep -q "built without HTTP support"; then
    skip_all "this build has no libcurl (configure --without-curl)"
fi
. "$(dirname "$0")/../support/http_lib.sh"
mkdir -p "$TMP/o"

# runs a command on a URL and on the local file; stdout, stderr (with the URL written as the
# local path) and exit status must be the same
same() { # same LABEL URL LOCAL CMD ARGS... (the word @ in ARGS stands for the file)
    label=$1 url=$2 local=$3; shift 3
    a=() b=()
    for x in "$@"; do
        if [ "$x" = @ ]; then a+=("$url"); b+=("$local"); else a+=("$x"); b+=("$x"); fi
    done
    "$EDIT" "${a[@]}" >"$TMP/u.out" 2>"$TMP/u.err"; su=$?
    "$EDIT" "${b[@]}" >"$TMP/l.out" 2>"$TMP/l.err"; sl=$?
    sed -i "s|$url|$local|g; ${SAME_SED:-}" "$TMP/u.out" "$TMP/u.err"
    if [ $su -eq $sl ] && cmp -s "$TMP/u.out" "$TMP/l.out" && cmp -s "$TMP/u.err" "$TMP/l.err"; then
        ok
    else
        fail "$label: URL gives status $su, local $sl: $(diff "$TMP/u.out" "$TMP/l.out" | head -3) $(diff "$TMP/u.err" "$TMP/l.err" | head -3)"
    fi
}

# ---- every corpus file: show --json by URL equals the local one; bytes fetched ----
echo "header bytes fetched by 'show --json URL' (body bytes <= header + 64 KiB):"
printf '%-58s %10s %10s %10s %9s\n' file header body sent requests
files=$(cd "$CORPUS" && find . -name '*.gguf' | sed 's|^\./||' | sort)
clear_log
for rel in $files; do
    same "show --json $rel" "$U/files/$rel" "$CORPUS/$rel" show --json @
    sed -n 's/^{"version":[0-9]*,"endian":"[a-z]*","alignment":[0-9]*,"data_offset":\([0-9]*\).*/\1/p' \
        "$TMP/l.out" >"$TMP/head.$(echo "$rel" | tr / _)"
done
log_settle
for rel in $files; do
    size=$(stat -c %s "$CORPUS/$rel")
    head_end=$(cat "$TMP/head.$(echo "$rel" | tr / _)")
    read -r body sent reqs <<<"$(log_sum "/files/$rel")"
    if [ -n "$head_end" ]; then
        printf '%-58s %10d %10d %10d %9d\n' "$rel" "$head_end" "$body" "$sent" "$reqs"
        limit=$((head_end + 65536)); [ $limit -gt "$size" ] && limit=$size
        # the bytes of each response's own header lines are what one request costs
        overhead=$((sent - body))
        if [ "$body" -le "$limit" ] && [ "$sent" -le $((limit + overhead)) ]; then ok; else
            fail "$rel: fetched $body body bytes for a header of $head_end bytes (limit $limit)"; fi
        # requests grow by doubling: a few per doubling of the header, never one per piece
        doublings=$(awk -v h="$head_end" 'BEGIN { d = 0; for (x = 65536; x < h; x *= 2) d++; print d }')
        if [ "$reqs" -le $((2 + 3 * doublings)) ]; then ok; else
            fail "$rel: $reqs requests for a header of $head_end bytes ($doublings doublings)"; fi
    fi
done

MODEL=models/tiny-llama-e256-Q4_K_M.gguf
VOCAB=real/ggml-vocab-llama-spm.gguf

# ---- other header-only commands, and tensor data ----
for rel in $MODEL $VOCAB synth/tiny_llama.gguf be/ggml-vocab-llama-spm.be.gguf v1v2/v2_ggml-vocab-bert-bge.gguf; do
    same "verify $rel" "$U/files/$rel" "$CORPUS/$rel" verify @
    same "show $rel" "$U/files/$rel" "$CORPUS/$rel" show @
    same "get $rel" "$U/files/$rel" "$CORPUS/$rel" get @ general.architecture
    same "get --json $rel" "$U/files/$rel" "$CORPUS/$rel" get --json @ tokenizer.ggml.tokens
    clear_log
    same "hash $rel" "$U/files/$rel" "$CORPUS/$rel" hash --json @
done
"$EDIT" diff "$U/files/$VOCAB" "$CORPUS/real/ggml-vocab-llama-bpe.gguf" >"$TMP/o/d.url" 2>"$TMP/o/d.err"; su=$?
"$EDIT" diff "$CORPUS/$VOCAB" "$CORPUS/real/ggml-vocab-llama-bpe.gguf" >"$TMP/o/d.local"; sl=$?
sed -i "s|$U/files/|$CORPUS/|g" "$TMP/o/d.url"
[ $su -eq $sl ] && cmp -s "$TMP/o/d.url" "$TMP/o/d.local" && grep -q "tensor bytes are not compared with a URL" "$TMP/o/d.err" \
    && ok || fail "diff URL FILE: status $su/$sl, $(diff "$TMP/o/d.url" "$TMP/o/d.local" | head -3)"
"$EDIT" diff "$U/files/$MODEL" "$U/files/$MODEL" >"$TMP/o/d" 2>/dev/null
[ $? -eq 0 ] && [ ! -s "$TMP/o/d" ] && ok || fail "diff of a URL with itself: $(head -3 "$TMP/o/d")"

# the byte ranges the log shows were fetched: each byte at most once (their sum is the size of
# their union), and none outside the header fetch and the ranges asked for
ranges_check() { # ranges_check LABEL HEADER_FETCH_END START:END...
    python3 - "$LOG" "$@" <<'PYEOF'
import re, sys
log, label, head = sys.argv[1], sys.argv[2], int(sys.argv[3])
wanted = [tuple(map(int, a.split(":"))) for a in sys.argv[4:]]
got = []
for line in open(log):
    f = line.split()
    m = re.match(r'^"bytes=(\d+)-(\d+)"$', f[4])
    if m and int(f[3]) > 0:
        got.append((int(m.group(1)), int(m.group(1)) + int(f[3])))
got.sort()
total = sum(b - a for a, b in got)
union, end = 0, 0
for a, b in got:
    if b > end:
        union += b - max(a, end)
        end = b
allowed = [(0, head)] + wanted
stray = [r for r in got if not any(a <= r[0] and r[1] <= b for a, b in allowed)]
missing = [w for w in wanted if not any(a <= w[0] and w[1] <= b for a, b in
           [(x, y) for x, y in got] + [(0, head)])]
# a wanted range may come in several pieces: check its bytes are covered
def covered(w):
    at = w[0]
    for a, b in sorted(got + [(0, head)]):
        if a <= at < b:
            at = b
    return at >= w[1]
bad = [w for w in wanted if not covered(w)]
if total != union or stray or bad:
    print("%s: fetched %d bytes in ranges whose union is %d; outside what was asked: %s; "
          "not fetched: %s" % (label, total, union, stray[:3], bad[:3]))
    sys.exit(1)
PYEOF
}
show_json=$("$EDIT" show --json "$CORPUS/$MODEL")
head_end=$(echo "$show_json" | sed -n 's/.*"data_offset":\([0-9]*\).*/\1/p' | head -1)
clear_log
"$EDIT" show "$U/files/$MODEL" >/dev/null
log_settle
head_fetch=$(python3 -c 'import re,sys; print(max(int(m.group(1)) + 1 for m in re.finditer(r"bytes=\d+-(\d+)", open(sys.argv[1]).read())))' "$LOG")
tensor_range() { # tensor_range NAME: START:END in the file
    echo "$show_json" | python3 -c 'import json,sys; d=json.load(sys.stdin); t=[t for t in d["tensors"] if t["name"]==sys.argv[1]][0]; print("%d:%d" % (d["data_offset"]+t["offset"], d["data_offset"]+t["offset"]+t["size"]))' "$1"
}
all_tensors=$(echo "$show_json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join("%d:%d" % (d["data_offset"]+t["offset"], d["data_offset"]+t["offset"]+t["size"]) for t in d["tensors"]))')
clear_log
"$EDIT" hash "$U/files/$MODEL" >/dev/null
log_settle
ranges_check "hash" "$head_fetch" $all_tensors && ok || fail "hash fetched other bytes than the header and the tensors"

# tensor NAME fetches that tensor's bytes and no other
for name in output.weight blk.0.attn_norm.weight token_embd.weight; do
    clear_log
    "$EDIT" tensor "$U/files/$MODEL" "$name" -o "$TMP/o/t.url" 2>"$TMP/err"
    "$EDIT" tensor "$CORPUS/$MODEL" "$name" -o "$TMP/o/t.local"
    cmp -s "$TMP/o/t.url" "$TMP/o/t.local" && ok || fail "tensor $name by URL differs: $(head -c 300 "$TMP/err")"
    log_settle
    ranges_check "tensor $name" "$head_fetch" "$(tensor_range "$name")" && ok || fail "tensor $name fetched other bytes"
    "$EDIT" tensor --f32 "$U/files/$MODEL" "$name" | cmp -s - <("$EDIT" tensor --f32 "$CORPUS/$MODEL" "$name") \
        && ok || fail "tensor --f32 $name by URL differs"
done

# ---- a split set by the URL of any shard: its siblings are the same URL with the shard number
# changed; a shard the server has not is a missing shard ----
SAME_SED="s|$U/big/|$TMP/big/|g"
mkdir -p "$TMP/big/split" "$TMP/big/gap"
"$EDIT" split "$CORPUS/$MODEL" "$TMP/big/split/tiny" --max-tensors 8 >/dev/null
cp "$TMP/big/split/tiny-00001-of-00003.gguf" "$TMP/big/split/tiny-00002-of-00003.gguf" "$TMP/big/gap/"
for k in 1 2 3; do
    shard="tiny-0000$k-of-00003.gguf"
    same "split set by shard $k" "$U/big/split/$shard" "$TMP/big/split/$shard" show --json @
done
same "split set, hash" "$U/big/split/tiny-00002-of-00003.gguf" "$TMP/big/split/tiny-00002-of-00003.gguf" hash @
same "split set, tensor" "$U/big/split/tiny-00003-of-00003.gguf" "$TMP/big/split/tiny-00003-of-00003.gguf" tensor @ output.weight
same "split set, one file" "$U/big/split/tiny-00002-of-00003.gguf" "$TMP/big/split/tiny-00002-of-00003.gguf" show --one-file --json @
same "split set, a shard missing" "$U/big/gap/tiny-00002-of-00003.gguf" "$TMP/big/gap/tiny-00002-of-00003.gguf" show @
grep -q "split set of 3 shards: 1 missing: tiny-00003-of-00003.gguf" "$TMP/u.err" && ok || fail "missing shard by URL: $(cat "$TMP/u.err")"
SAME_SED=""

# ---- a redirect (302): followed; later requests go where it led ----
clear_log
same "redirect" "$U/moved/$MODEL" "$CORPUS/$MODEL" show --json @
log_settle
grep -q "^/moved/$MODEL 302" "$LOG" && ok || fail "no 302 in the log"
[ "$(grep -c "^/moved/" "$LOG")" -eq 1 ] && ok || fail "each request went through the redirect: $(grep -c "^/moved/" "$LOG")"

# ---- authorization: 401 without the header, 200 with it (--header or $GGUF_HTTP_HEADER);
# $HF_TOKEN goes to huggingface.co only, never to this server ----
expect_status 1 "$EDIT" show "$U/private/$MODEL"
grep -q "HTTP 401" "$TMP/err" && grep -q "no Authorization header was sent" "$TMP/err" && grep -q "$U/private/$MODEL" "$TMP/err" \
    && ok || fail "401 message: $(cat "$TMP/err")"
same "auth --header" "$U/private/$MODEL" "$CORPUS/$MODEL" show --json --header "Authorization: $AUTH" @
GGUF_HTTP_HEADER="Authorization: $AUTH" same "auth GGUF_HTTP_HEADER" "$U/private/$MODEL" "$CORPUS/$MODEL" show --json @
clear_log
HF_TOKEN=secret-token expect_status 1 "$EDIT" show "$U/private/$MODEL"
log_settle
grep -q "secret-token" "$LOG" && fail "HF_TOKEN was sent to a host that is not huggingface.co" || ok
expect_status 1 "$EDIT" show --header "Authorization: Basic d3Jvbmc6d3Jvbmc=" "$U/private/$MODEL"
grep -q "HTTP 401.*the Authorization header sent was refused" "$TMP/err" && ok || fail "refused header: $(cat "$TMP/err")"

# ---- a server that ignores Range: read whole up to --whole-limit, else refused, never the
# whole file silently ----
same "no ranges, small file" "$U/norange/$VOCAB" "$CORPUS/$VOCAB" show --json @
cp "$CORPUS/$MODEL" "$TMP/big/padded.gguf"
truncate -s 256M "$TMP/big/padded.gguf" # tensor data lies inside; 240 MiB of zeros after it
clear_log
expect_status 1 "$EDIT" show "$U/norangebig/padded.gguf"
grep -q "ignores Range requests" "$TMP/err" && grep -q "refused rather than download" "$TMP/err" \
    && ok || fail "ignoring Range: $(cat "$TMP/err")"
log_settle
read -r body sent reqs <<<"$(log_sum)"
[ "$sent" -lt $((128 << 20)) ] && ok || fail "a server ignoring Range sent $sent bytes before the refusal"
expect_status 1 "$EDIT" show --whole-limit 1M "$U/norange/$MODEL"
grep -q "the limit is 1048576 bytes" "$TMP/err" && ok || fail "--whole-limit: $(cat "$TMP/err")"
same "padded file with ranges" "$U/big/padded.gguf" "$TMP/big/padded.gguf" show --json @

# guarded CMD...: CMD, ended (status 124) if it is still running after 300 s: a guard against
# a hang, not a verdict (the checks read the message and the status)
guarded() { timeout 300 "$@"; }

# ---- 503 then 200; 503 for good; a dropped connection; a server that hangs; a file that
# changes while it is read; an answer cut short ----
pylog() { grep -c "^$1 $2 " "$TMP/srv/py.log"; }
same "503 then 200" "$PY/fail503/2/$MODEL" "$CORPUS/$MODEL" show --json @
[ "$(pylog "/fail503/2/$MODEL" 503)" -eq 2 ] && ok || fail "503 then 200: $(pylog "/fail503/2/$MODEL" 503) 503s"
same "503 with Retry-After" "$PY/fail503ra/1/$VOCAB" "$CORPUS/$VOCAB" show --json @
expect_status 1 "$EDIT" show --retries 1 "$PY/fail503/9/$MODEL"
grep -q "HTTP 503 Service Unavailable.*(after 2 attempts)" "$TMP/err" && grep -q "$PY/fail503/9/$MODEL" "$TMP/err" \
    && ok || fail "503 for good: $(cat "$TMP/err")"
same "dropped mid-header" "$PY/drop/1000/$MODEL" "$CORPUS/$MODEL" show --json @
grep -q "^/drop/1000/$MODEL 206 bytes=0-65535 1000$" "$TMP/srv/py.log" && grep -q "^/drop/1000/$MODEL 206 bytes=1000-65535 " "$TMP/srv/py.log" \
    && ok || fail "the dropped transfer did not resume at byte 1000: $(grep drop "$TMP/srv/py.log" | head -3)"
same "dropped mid-tensor" "$PY/drop/300000/$MODEL" "$CORPUS/$MODEL" hash @
same "cut short" "$PY/short/$MODEL" "$CORPUS/$MODEL" show --json @
expect_status 1 guarded "$EDIT" show --timeout 1 --retries 0 "$PY/hang/$MODEL"
grep -q "timed out" "$TMP/err" && ok || fail "hang: $(cat "$TMP/err")"
expect_status 1 "$EDIT" show "$PY/changing/$MODEL"
grep -q 'changed on the server while it was read: ETag' "$TMP/err" && ok || fail "changing file: $(cat "$TMP/err")"
expect_status 1 "$EDIT" show "$U/files/no-such-file.gguf"
grep -q "HTTP 404 Not Found" "$TMP/err" && ok || fail "404: $(cat "$TMP/err")"

# ---- every request is bounded: retries are counted per request, not reset by the bytes a
# failed attempt brought (a server that sends one byte per answer and closes); a transfer
# slower than the minimum rate for --timeout seconds ends; --deadline ends a read whatever
# the server does. The verdict is the message and the number of requests the server saw ----
expect_status 1 guarded "$EDIT" show --retries 2 "$PY/onebyte/$MODEL"
grep -q "after 1 of bytes .*(after 3 attempts)" "$TMP/err" && ok || fail "one byte per answer: $(cat "$TMP/err")"
[ "$(pylog "/onebyte/$MODEL" 206)" -eq 3 ] && ok || fail "one byte per answer, --retries 2: $(pylog "/onebyte/$MODEL" 206) requests"
expect_status 1 guarded "$EDIT" show --timeout 1 --retries 0 "$PY/drip/$MODEL"
grep -q "timed out.*too slow" "$TMP/err" && ok || fail "a transfer below the minimum rate: $(cat "$TMP/err")"
expect_status 1 guarded "$EDIT" show --timeout 60 --retries 100 --deadline 2 "$PY/hang/$MODEL"
grep -q "$PY/hang/$MODEL: .*not received within the deadline of 2 s (--deadline)" "$TMP/err" && ok || fail "--deadline: $(cat "$TMP/err")"
expect_status 2 "$EDIT" show --deadline 0 "$U/files/$MODEL"
grep -q -- "--deadline takes seconds from 1 to 86400, not '0'" "$TMP/err" && ok || fail "--deadline 0: $(cat "$TMP/err")"
# one such URL in a catalog run: an error row; the others are indexed. The deadline is the
# same for every URL of the run and must end only the stalled one: the others take a few
# milliseconds on an idle machine, and 10 s leaves them room at any load (at load 15, 2 s did not)
printf '%s\n' "$U/files/$MODEL" "$PY/hang/$MODEL" "$PY/onebyte/$VOCAB" "$U/files/$VOCAB" >"$TMP/o/urls"
expect_status 0 guarded "$CATALOG_TOOL" --db "$TMP/o/stall.db" index -q --deadline 10 --retries 0 --urls "$TMP/o/urls"
grep -q "^4 files: 2 indexed, 0 unchanged, 2 refused" "$TMP/out" && ok || fail "a catalog run with a stalled URL: $(cat "$TMP/out" "$TMP/err")"
"$CATALOG_TOOL" --db "$TMP/o/stall.db" query --format csv "SELECT path, message FROM errors ORDER BY path" >"$TMP/o/stall.csv"
grep -q "^$PY/hang/$MODEL,.*not received within the deadline of 10 s" "$TMP/o/stall.csv" && grep -q "^$PY/onebyte/$VOCAB,.*(after 1 attempt)" "$TMP/o/stall.csv" \
    && ok || fail "a catalog run with a stalled URL: $(cat "$TMP/o/stall.csv")"

# ---- a 206 that does not start at the byte asked for is refused, never read as if it did ----
expect_status 1 "$EDIT" show "$PY/early206/$VOCAB"
grep -q "asked for bytes from 65536, got bytes from 65535" "$TMP/err" && ok || fail "a 206 from an earlier byte: $(cat "$TMP/err")"

# ---- the caller's headers (--header, $GGUF_HTTP_HEADER) go to the URL's own origin (scheme,
# host, port) only: a redirect to another host or port gets none of them, as curl does without
# --location-trusted; a redirect within the origin keeps them ----
PY3=$(start_py py3 127.0.0.1) || fail "a third tests/support/http_server.py did not start"
hostport() { echo "${1#http://}"; }
sent() { # sent LOG PATH VALUE: how many requests for PATH in LOG's header log carried VALUE
    grep -c "^$2 .*$3" "$TMP/srv/$1.log.headers" 2>/dev/null
}
same "redirect in the origin, --header" "$PY/to/$(hostport "$PY")/ok/$MODEL" "$CORPUS/$MODEL" show --json --header "X-Api-Key: SAME-ORIGIN" @
[ "$(sent py "/ok/$MODEL" SAME-ORIGIN)" -ge 1 ] && ok || fail "a redirect within the origin dropped the caller's header"
for target in "$PY2" "$PY3"; do
    log=py2; [ "$target" = "$PY3" ] && log=py3
    same "redirect to $target, --header" "$PY/to/$(hostport "$target")/ok/$MODEL" "$CORPUS/$MODEL" hash --header "X-Api-Key: SECRET-H" --header "Authorization: Bearer SECRET-A" @
    GGUF_HTTP_HEADER="X-Api-Key: SECRET-E" same "redirect to $target, \$GGUF_HTTP_HEADER" "$PY/to/$(hostport "$target")/ok/$MODEL" "$CORPUS/$MODEL" show --json @
    [ "$(sent py "/to/$(hostport "$target")/ok/$MODEL" SECRET-H)" -ge 1 ] && [ "$(sent py "/to/$(hostport "$target")/ok/$MODEL" SECRET-E)" -ge 1 ] \
        && ok || fail "the URL's own host did not get the caller's headers"
    grep -q "SECRET" "$TMP/srv/$log.log.headers" && fail "a redirect to $target received the caller's headers: $(grep SECRET "$TMP/srv/$log.log.headers" | head -3)" || ok
    [ "$(grep -c "^/ok/$MODEL " "$TMP/srv/$log.log")" -ge 2 ] && ok || fail "the redirect to $target was not followed: $(head -3 "$TMP/srv/$log.log")"
done

# ---- hf://ORG/REPO/FILE[@REVISION] is the Hub's resolve URL, REVISION main by default
# ($GGUF_HF_ENDPOINT puts the Hub on the test server); $HF_TOKEN goes with it as a Bearer
# token, to the Hub's origin only: a redirect to a CDN on another host gets none ----
GGUF_HF_ENDPOINT="$PY/hub" HF_TOKEN=hf-secret same "hf:// name" "hf://org/repo/$MODEL" "$CORPUS/$MODEL" show --json @
[ "$(pylog "/hub/org/repo/resolve/main/$MODEL" 206)" -ge 1 ] && ok || fail "hf://org/repo/FILE did not ask for /org/repo/resolve/main/FILE: $(grep hub "$TMP/srv/py.log" | head -3)"
[ "$(sent py "/hub/org/repo/resolve/main/$MODEL" "Authorization: Bearer hf-secret")" -ge 1 ] && ok || fail "hf:// without \$HF_TOKEN's Bearer token"
GGUF_HF_ENDPOINT="$PY/hub/" same "hf:// name at a revision" "hf://org/repo/$MODEL@refs/pr/1" "$CORPUS/$MODEL" get @ general.architecture
[ "$(pylog "/hub/org/repo/resolve/refs%2Fpr%2F1/$MODEL" 206)" -ge 1 ] && ok || fail "hf://...@refs/pr/1: $(grep hub "$TMP/srv/py.log" | tail -3)"
GGUF_HF_ENDPOINT="$PY/to/$(hostport "$PY2")/hub" HF_TOKEN=hf-secret same "hf:// through a CDN" "hf://org/repo/$MODEL" "$CORPUS/$MODEL" hash @
[ "$(sent py "/to/$(hostport "$PY2")/hub/org/repo/resolve/main/$MODEL" "Authorization: Bearer hf-secret")" -ge 1 ] && ok || fail "hf:// through a CDN: the Hub did not get the token"
[ "$(grep -c "^/hub/org/repo/resolve/main/$MODEL " "$TMP/srv/py2.log")" -ge 2 ] && ok || fail "hf:// through a CDN: not followed"
grep -q "hf-secret" "$TMP/srv/py2.log.headers" && fail "\$HF_TOKEN reached the CDN on another host" || ok
expect_status 1 "$EDIT" show "hf://org/repo"
grep -q "hf://org/repo: a Hugging Face name is hf://ORG/REPO/FILE or hf://ORG/REPO/FILE@REVISION" "$TMP/err" && ok || fail "hf://org/repo: $(cat "$TMP/err")"
GGUF_HF_ENDPOINT="$PY/hub" expect_status 1 "$EDIT" set "hf://org/repo/$MODEL" general.name x
grep -q "a URL cannot be edited in place" "$TMP/err" && ok || fail "set hf://: $(cat "$TMP/err")"

# ---- many at once (gguf_file_open_many): every corpus file by URL, in parallel, reads as it
# does locally; retries and failures stay with their own URL ----
OPEN_MANY="$top_builddir/tests/support/open_many"
urls=() locals=()
for rel in $files; do urls+=("$U/files/$rel"); locals+=("$CORPUS/$rel"); done
"$OPEN_MANY" --parallel 8 "${urls[@]}" | sed "s|$U/files/|$CORPUS/|" >"$TMP/o/many.url"
"$OPEN_MANY" "${locals[@]}" >"$TMP/o/many.local"
cmp -s "$TMP/o/many.url" "$TMP/o/many.local" && ok || fail "open_many of the corpus by URL: $(diff "$TMP/o/many.url" "$TMP/o/many.local" | head -5)"
"$OPEN_MANY" --parallel 3 "$PY/fail503/3/$MODEL" "$PY/drop/5000/$VOCAB" "$PY/changing/$MODEL" "$CORPUS/$VOCAB" \
    "$U/files/no-such.gguf" "$U/moved/$VOCAB" >"$TMP/o/many.mixed"
"$OPEN_MANY" "$CORPUS/$MODEL" "$CORPUS/$VOCAB" >"$TMP/o/many.ref"
ref_model=$(sed -n 1p "$TMP/o/many.ref" | cut -d' ' -f2-) ref_vocab=$(sed -n 2p "$TMP/o/many.ref" | cut -d' ' -f2-)
[ "$(sed -n 1p "$TMP/o/many.mixed" | cut -d' ' -f2-)" = "$ref_model" ] && ok || fail "open_many after two 503s: $(sed -n 1p "$TMP/o/many.mixed")"
[ "$(sed -n 2p "$TMP/o/many.mixed" | cut -d' ' -f2-)" = "$ref_vocab" ] && ok || fail "open_many after a dropped connection: $(sed -n 2p "$TMP/o/many.mixed")"
sed -n 3p "$TMP/o/many.mixed" | grep -q "error: the file changed on the server" && ok || fail "open_many of a changing file: $(sed -n 3p "$TMP/o/many.mixed")"
[ "$(sed -n 4p "$TMP/o/many.mixed" | cut -d' ' -f2-)" = "$ref_vocab" ] && ok || fail "open_many of a local path: $(sed -n 4p "$TMP/o/many.mixed")"
sed -n 5p "$TMP/o/many.mixed" | grep -q "error: HTTP 404" && ok || fail "open_many of a missing URL: $(sed -n 5p "$TMP/o/many.mixed")"
[ "$(sed -n 6p "$TMP/o/many.mixed" | cut -d' ' -f2-)" = "$ref_vocab" ] && ok || fail "open_many through a redirect: $(sed -n 6p "$TMP/o/many.mixed")"

# ---- --offline never touches the network ----
clear_log
expect_status 1 "$EDIT" show --offline "$U/files/$MODEL"
log_settle
grep -q "offline" "$TMP/err" && [ ! -s "$LOG" ] && ok || fail "--offline: $(cat "$TMP/err"); log: $(head -2 "$LOG")"

# ---- edits: a URL is never edited; -o to a local file is a download with the edit ----
expect_status 1 "$EDIT" set "$U/files/$MODEL" general.name x
grep -q "a URL cannot be edited in place" "$TMP/err" && ok || fail "set URL: $(cat "$TMP/err")"
expect_status 1 "$EDIT" realign "$U/files/$MODEL" 64
expect_status 1 "$EDIT" recover "$U/files/$MODEL"
expect_status 1 "$EDIT" convert "$CORPUS/$MODEL" --endian big -o "$U/files/x.gguf"
grep -q "a URL cannot be written" "$TMP/err" && ok || fail "convert -o URL: $(cat "$TMP/err")"
expect_status 1 "$EDIT" tensor "$CORPUS/$MODEL" output.weight -o "$U/files/x.bin"
expect_status 1 "$EDIT" copy "$CORPUS/$MODEL" "$U/files/x.gguf"
expect_status 0 "$EDIT" set "$U/files/$MODEL" general.name remote -o "$TMP/o/edited.gguf"
expect_status 0 "$EDIT" set "$CORPUS/$MODEL" general.name remote -o "$TMP/o/edited.local.gguf"
cmp -s "$TMP/o/edited.gguf" "$TMP/o/edited.local.gguf" && ok || fail "set URL -o OUT differs from the local edit"
expect_status 0 "$EDIT" copy "$U/files/$MODEL" "$TMP/o/copy.gguf"
cmp -s "$TMP/o/copy.gguf" "$CORPUS/$MODEL" && ok || fail "copy URL OUT is not the file"

# ---- standard input: '-' ----
"$EDIT" show --json - <"$CORPUS/$MODEL" >"$TMP/o/a" && "$EDIT" show --json "$CORPUS/$MODEL" >"$TMP/o/b"
cmp -s "$TMP/o/a" "$TMP/o/b" && ok || fail "show --json - < file"
cat "$CORPUS/$MODEL" | "$EDIT" show --json - >"$TMP/o/a"
cmp -s "$TMP/o/a" "$TMP/o/b" && ok || fail "show --json - from a pipe"
cat "$CORPUS/$MODEL" | "$EDIT" hash - >"$TMP/o/a" && "$EDIT" hash "$CORPUS/$MODEL" >"$TMP/o/b"
cmp -s "$TMP/o/a" "$TMP/o/b" && ok || fail "hash - from a pipe"
cat "$CORPUS/$MODEL" | "$EDIT" tensor - output.weight | cmp -s - <("$EDIT" tensor "$CORPUS/$MODEL" output.weight) \
    && ok || fail "tensor - from a pipe"
: | "$EDIT" show - >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "standard input: .*empty file" "$TMP/err" && ok || fail "empty pipe: $(cat "$TMP/err")"
cat "$CORPUS/$MODEL" | "$EDIT" set - general.name x >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "standard input cannot be edited in place" "$TMP/err" && ok || fail "set -: $(cat "$TMP/err")"

# ---- libcurl absent at run time: it is loaded by the first URL, so the rest works without it ----
# (root and unshare: each libcurl the library would load is hidden under an empty file in a
# mount namespace of the command's own)
hide=""
if [ "$(id -u)" = 0 ] && unshare --mount true 2>/dev/null; then
    : >"$TMP/not-a-library.so"
    for so in libcurl.so.4 libcurl-gnutls.so.4 libcurl.so; do
        p=$(PATH="$PATH:/sbin:/usr/sbin" ldconfig -p | awk -v s="$so" '$1 == s { print $NF; exit }')
        [ -n "$p" ] && hide="$hide mount --bind '$TMP/not-a-library.so' '$(readlink -f "$p")' &&"
    done
fi
if [ -n "$hide" ]; then
    without_curl() { unshare --mount sh -c "$hide \"\$@\"" sh "$@"; }
    without_curl "$EDIT" show "$CORPUS/$MODEL" >"$TMP/o/a" 2>"$TMP/err"
    st=$?
    "$EDIT" show "$CORPUS/$MODEL" >"$TMP/o/b"
    [ $st -eq 0 ] && cmp -s "$TMP/o/a" "$TMP/o/b" && ok || fail "show FILE without libcurl: status $st: $(head -2 "$TMP/err")"
    without_curl "$EDIT" show "$U/files/$MODEL" >/dev/null 2>"$TMP/err"
    st=$?
    [ $st -eq 1 ] && grep -q "libcurl is not on this machine" "$TMP/err" && ok ||
        fail "show URL without libcurl: status $st: $(head -2 "$TMP/err")"
else
    echo "# libcurl absent at run time: not tried (needs root, unshare and ldconfig)"
fi

finish
