# The HTTP servers of the tests that read URLs (sourced after cli_lib.sh): nginx, else
# lighttpd (GGUF_TEST_HTTPD=nginx|lighttpd picks one), started on a free port of 127.0.0.1,
# serving the corpus under /files/ and $TMP/big under /big/ (also /moved/ (a 302 to /files/),
# /private/ (Basic auth $AUTH), /norange/ and /norangebig/ (no byte ranges)); and the
# misbehaving server of tests/support/http_server.py, twice: on 127.0.0.1 and, as another host, on
# 127.0.0.2 (PY2: a redirect target whose log shows which headers reached it). Sets U, PY and
# PY2 (their base URLs), LOG (the access log: URI status bytes-sent body-bytes "Range"
# "Authorization" "If-None-Match" "If-Modified-Since" method) and the helpers below; stops them
# at exit. Skips, saying why, without python3 or a server. Needs bash (arrays, /dev/tcp): under another
# shell the test starts again under bash.
if [ -z "${BASH_VERSION:-}" ]; then
    rm -rf "$TMP"
    exec bash "$0" "$@"
fi
command -v python3 >/dev/null || { skip_all "no python3"; }
httpd=${GGUF_TEST_HTTPD:-}
if [ -z "$httpd" ]; then
    for d in nginx lighttpd; do
        if command -v $d >/dev/null || [ -x /usr/sbin/$d ]; then httpd=$d; break; fi
    done
fi
[ -n "$httpd" ] || { skip_all "neither nginx nor lighttpd is installed"; }
HTTPD=$(command -v $httpd || echo /usr/sbin/$httpd)

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# waits until something answers on ${2:-127.0.0.1}:$1 (a bounded poll: a server that has not
# started after 60 s on a loaded machine is not going to)
wait_port() {
    for _ in $(seq 600); do
        (exec 3<>"/dev/tcp/${2:-127.0.0.1}/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}
# waits (as wait_port) for the file a server writes its port to, and prints the port
wait_port_file() {
    for _ in $(seq 600); do
        [ -s "$1" ] && { cat "$1"; return 0; }
        sleep 0.1
    done
    return 1
}

mkdir -p "$TMP/srv/logs" "$TMP/srv/tmp" "$TMP/big"
LOG="$TMP/srv/logs/access.log"
AUTH='Basic dGVzdDpzZXNhbWU=' # test:sesame
run_as_root=""
[ "$(id -u)" = 0 ] && run_as_root=1

start_nginx() {
    cat >"$TMP/srv/nginx.conf" <<EOF
${run_as_root:+user root;}
worker_processes 1;
daemon on;
pid $TMP/srv/httpd.pid;
error_log $TMP/srv/logs/error.log;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $TMP/srv/tmp;
  proxy_temp_path $TMP/srv/tmp;
  fastcgi_temp_path $TMP/srv/tmp;
  uwsgi_temp_path $TMP/srv/tmp;
  scgi_temp_path $TMP/srv/tmp;
  log_format bytes '\$uri \$status \$bytes_sent \$body_bytes_sent "\$http_range" "\$http_authorization" "\$http_if_none_match" "\$http_if_modified_since" \$request_method';
  server {
    listen 127.0.0.1:$PORT;
    access_log $LOG bytes;
    location /files/ { alias $CORPUS/; }
    location /big/ { alias $TMP/big/; }
    location /moved/ { rewrite ^/moved/(.*)\$ /files/\$1 redirect; }
    location /private/ {
      if (\$http_authorization != "$AUTH") { return 401; }
      alias $CORPUS/;
    }
    location /norange/ { max_ranges 0; alias $CORPUS/; }
    location /norangebig/ { max_ranges 0; alias $TMP/big/; }
  }
}
EOF
    "$HTTPD" -p "$TMP/srv" -e "$TMP/srv/logs/error.log" -c "$TMP/srv/nginx.conf" 2>"$TMP/srv/start.err"
}
stop_nginx() { "$HTTPD" -p "$TMP/srv" -e "$TMP/srv/logs/error.log" -c "$TMP/srv/nginx.conf" -s stop 2>/dev/null; }

start_lighttpd() {
    printf 'test:sesame\n' >"$TMP/srv/users"
    cat >"$TMP/srv/lighttpd.conf" <<EOF
server.modules = ("mod_access", "mod_alias", "mod_redirect", "mod_auth", "mod_authn_file", "mod_accesslog")
server.document-root = "$TMP/srv"
server.bind = "127.0.0.1"
server.port = $PORT
server.pid-file = "$TMP/srv/httpd.pid"
server.errorlog = "$TMP/srv/logs/error.log"
accesslog.filename = "$LOG"
accesslog.format = "%U %s %O %b \"%{Range}i\" \"%{Authorization}i\" \"%{If-None-Match}i\" \"%{If-Modified-Since}i\" %m"
alias.url = ("/files/" => "$CORPUS/", "/big/" => "$TMP/big/", "/private/" => "$CORPUS/",
             "/norange/" => "$CORPUS/", "/norangebig/" => "$TMP/big/")
url.redirect = ("^/moved/(.*)\$" => "/files/\$1")
# a type for every file: without one lighttpd sends no ETag or Last-Modified
mimetype.assign = ("" => "application/octet-stream")
url.redirect-code = 302
auth.backend = "plain"
auth.backend.plain.userfile = "$TMP/srv/users"
\$HTTP["url"] =~ "^/private/" {
  auth.require = ("" => ("method" => "basic", "realm" => "test", "require" => "valid-user"))
}
\$HTTP["url"] =~ "^/norange" { server.range-requests = "disable" }
EOF
    "$HTTPD" -f "$TMP/srv/lighttpd.conf" 2>"$TMP/srv/start.err"
}
stop_lighttpd() {
    [ -f "$TMP/srv/httpd.pid" ] || return 0
    pid=$(cat "$TMP/srv/httpd.pid")
    kill "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$TMP/srv/httpd.pid"
}

started=""
for _ in 1 2 3; do
    PORT=$(free_port)
    if start_$httpd && wait_port "$PORT"; then started=1; break; fi
done
[ -n "$started" ] || { skip_all "$httpd would not start: $(head -c 300 "$TMP/srv/start.err")"; }
http_cleanup() {
    status=$?
    stop_$httpd
    for f in "$TMP"/srv/py*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
    (exit $status)
    tap_exit
}
trap http_cleanup EXIT
# start_py NAME ADDRESS: tests/support/http_server.py on ADDRESS, its log $TMP/srv/NAME.log; prints
# its base URL
start_py() {
    python3 "$top_srcdir/tests/support/http_server.py" "$CORPUS" "$TMP/srv/$1.port" "$TMP/srv/$1.log" "$2" \
        >/dev/null 2>&1 &
    echo $! >"$TMP/srv/$1.pid"
    port=$(wait_port_file "$TMP/srv/$1.port") && wait_port "$port" "$2" && echo "http://$2:$port"
}
: >"$TMP/srv/py.log"
: >"$TMP/srv/py2.log"
PY=$(start_py py 127.0.0.1) || { fail "tests/support/http_server.py did not start"; finish; exit; }
PY2=$(start_py py2 127.0.0.2) || { fail "tests/support/http_server.py did not start on 127.0.0.2"; finish; exit; }
U="http://127.0.0.1:$PORT"
echo "server: $httpd on $U, misbehaving server on $PY and $PY2"

# lighttpd writes its access log when it stops (nginx at once): before the log is read, it is
# stopped and started again
log_settle() {
    [ "$httpd" = lighttpd ] || return 0
    stop_lighttpd
    start_lighttpd && wait_port "$PORT" || fail "lighttpd would not start again"
}
# body bytes, bytes sent and requests in the access log (lines of one URI path when given)
log_sum() { awk -v p="${1:-}" 'p == "" || $1 == p { b += $4; s += $3; n++ } END { printf "%d %d %d\n", b, s, n }' "$LOG"; }
clear_log() { log_settle; : >"$LOG"; }

