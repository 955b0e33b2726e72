#!/usr/bin/env python3
"""A misbehaving HTTP server for tests/cli/http.sh: it serves the files under ROOT with byte
ranges, and misbehaves on purpose by path prefix, to show how the reader copes:

  /ok/PATH           serve PATH (ranges honoured)
  /fail503/N/PATH    the first N requests for PATH answer 503, later ones serve it
  /fail503ra/N/PATH  the same, with Retry-After: 1
  /drop/N/PATH       the first request for PATH sends its headers and N body bytes, then
                     drops the connection; later requests serve it
  /hang/PATH         read the request, never answer (until the server stops)
  /drip/PATH         send the headers of the range asked for, then one body byte every
                     0.2 s, never more (a transfer far below any minimum rate)
  /onebyte/PATH      every answer sends its headers and 1 body byte, then closes the
                     connection (each retry makes progress, one byte at a time)
  /early206/PATH     answer a range with a 206 that starts one byte before the byte asked for
  /to/HOST:PORT/REST a 302 to http://HOST:PORT/REST
  /hub/ORG/REPO/resolve/REVISION/PATH   a hub's resolve URL: serve PATH (any ORG, REPO and
                     REVISION; the log shows which were asked for)
  /changing/PATH     every answer has another ETag (the file "changes" between requests)
  /short/PATH        claim ranges of the right size but send only half the body once
  /nolength/PATH     ignore Range and send the whole file without Content-Length

usage: http_server.py ROOT PORTFILE LOGFILE [ADDRESS]
Listens on ADDRESS (default 127.0.0.1), on a free port written to PORTFILE; one line per
request goes to LOGFILE: "PATH STATUS RANGE BODYBYTES", and one line per request header
other than Host, Range, Accept and User-Agent to LOGFILE.headers: "PATH NAME: VALUE"."""
import http.server
import os
import re
import socketserver
import sys
import threading
import time

ROOT, PORTFILE, LOGFILE = sys.argv[1], sys.argv[2], sys.argv[3]
ADDRESS = sys.argv[4] if len(sys.argv) > 4 else "127.0.0.1"
counts = {}
lock = threading.Lock()


def count(key):
    with lock:
        counts[key] = counts.get(key, 0) + 1
        return counts[key]


def log(path, status, rng, nbytes):
    with lock, open(LOGFILE, "a") as f:
        f.write("%s %d %s %d\n" % (path, status, rng or "-", nbytes))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def plain(self, status, text, extra=()):
        body = text.encode()
        self.send_response(status)
        for k, v in extra:
            self.send_header(k, v)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        log(self.path, status, self.headers.get("Range"), len(body))

    def log_headers(self):
        with lock, open(LOGFILE + ".headers", "a") as f:
            for k, v in self.headers.items():
                if k.lower() not in ("host", "range", "accept", "user-agent"):
                    f.write("%s %s: %s\n" % (self.path, k, v))

    def do_GET(self):
        self.log_headers()
        t = re.match(r"^/to/([^/]+)/(.*)$", self.path)
        if t:
            return self.plain(302, "moved\n", [("Location", "http://%s/%s" % t.groups())])
        h = re.match(r"^/hub/[^/]+/[^/]+/resolve/[^/]+/(.*)$", self.path)
        m = re.match(r"^/(ok|fail503|fail503ra|drop|hang|drip|onebyte|early206|changing|short|nolength)/(?:(\d+)/)?(.*)$",
                     "/ok/" + h.group(1) if h else self.path)
        if not m:
            return self.plain(404, "no such test path\n")
        mode, n, rel = m.group(1), int(m.group(2) or 0), m.group(3)
        path = os.path.join(ROOT, rel)
        if not os.path.isfile(path):
            return self.plain(404, "not found\n")
        with open(path, "rb") as f:
            data = f.read()
        if mode in ("fail503", "fail503ra") and count(self.path) <= n:
            extra = [("Retry-After", "1")] if mode == "fail503ra" else []
            return self.plain(503, "try again later\n", extra)
        if mode == "hang":
            threading.Event().wait()
        rng = self.headers.get("Range")
        if mode == "nolength":
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
            log(self.path, 200, rng, len(data))
            self.close_connection = True
            return
        first, last = 0, len(data) - 1
        status = 200
        if rng:
            r = re.match(r"^bytes=(\d+)-(\d*)$", rng)
            if not r:
                return self.plain(416, "bad range\n")
            first = int(r.group(1))
            last = min(int(r.group(2)) if r.group(2) else len(data) - 1, len(data) - 1)
            if first >= len(data):
                return self.plain(416, "unsatisfiable\n",
                                  [("Content-Range", "bytes */%d" % len(data))])
            status = 206
            if mode == "early206" and first > 0:
                first -= 1
        body = data[first:last + 1]
        etag = '"v%d"' % count("etag " + self.path) if mode == "changing" else '"fixed"'
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (first, last, len(data)))
        self.end_headers()
        if mode == "drip":
            log(self.path, status, rng, 0)
            for b in body:
                self.wfile.write(bytes([b]))
                self.wfile.flush()
                time.sleep(0.2)
            return
        if mode == "onebyte" or (mode == "drop" and count(self.path) == 1):
            if mode == "onebyte":
                n = 1
            self.wfile.write(body[:n])
            self.wfile.flush()
            log(self.path, status, rng, min(n, len(body)))
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if mode == "short" and count(self.path) == 1:
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            log(self.path, status, rng, len(body) // 2)
            self.close_connection = True
            self.connection.shutdown(2)
            return
        self.wfile.write(body)
        log(self.path, status, rng, len(body))


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass  # a client that hangs up early is part of the tests


srv = Server((ADDRESS, 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
