# Sourced by the HTTP benchmarks (bench_http.sh, bench_catalog_http.sh): nginx serving a tree
# of N corpus files on 127.0.0.1:$PORT from $W/tree, stopped (and $W removed) when the script
# exits. The caller sets W (a fresh folder), NGINX, CORPUS and N; make_tree fills the tree.
mkdir -p "$W/tree" "$W/srv/logs" "$W/srv/tmp"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
stop() { "$NGINX" -p "$W/srv" -e "$W/srv/logs/error.log" -c "$W/srv/nginx.conf" -s stop 2>/dev/null || true; rm -rf "$W"; }
trap stop EXIT INT TERM

# a tree of N files: the corpus files chosen by find's extra arguments, copied once, then hard
# links up to N
make_tree() {
    rm -rf "$W/tree" && mkdir -p "$W/tree"
    for f in $(find "$CORPUS" -name '*.gguf' "$@" | sort); do cp "$f" "$W/tree/src-$(basename "$f")"; done
    set -- "$W"/tree/src-*
    i=0
    while [ "$i" -lt "$N" ]; do
        for f in "$@"; do
            [ "$i" -lt "$N" ] || break
            ln "$f" "$W/tree/$(printf %04d $i)-${f##*/src-}"
            i=$((i + 1))
        done
    done
    rm "$W"/tree/src-*
}

cat >"$W/srv/nginx.conf" <<EOF
$([ "$(id -u)" = 0 ] && echo "user root;")
worker_processes 1;
daemon on;
pid $W/srv/nginx.pid;
error_log $W/srv/logs/error.log;
events { worker_connections 1024; }
http {
  client_body_temp_path $W/srv/tmp;
  proxy_temp_path $W/srv/tmp;
  fastcgi_temp_path $W/srv/tmp;
  uwsgi_temp_path $W/srv/tmp;
  scgi_temp_path $W/srv/tmp;
  keepalive_requests 100000;
  sendfile on;
  log_format bytes '\$uri \$status \$bytes_sent \$body_bytes_sent';
  server {
    listen 127.0.0.1:$PORT;
    access_log $W/srv/logs/access.log bytes;
    root $W/tree;
  }
}
EOF
"$NGINX" -p "$W/srv" -e "$W/srv/logs/error.log" -c "$W/srv/nginx.conf"
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/"$PORT") 2>/dev/null && break; sleep 0.1; done
