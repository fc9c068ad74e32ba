#!/usr/bin/env python3
"""Tiny HTTP/1.1 test server for the crlcache integration tests.

Standard library only.  Binds 127.0.0.1 (port 0 = ephemeral unless --port),
writes the port number to --port-file once listening, serves --root, and logs
every request to --log, one line per request:

    METHOD PATH STATUS\tinm=<If-None-Match or ->\tims=<If-Modified-Since or ->\t
        ae=<Accept-Encoding or ->\tbytes=<body bytes sent or ->

Cacheable like a CA's CRL server: with --max-age N, 200 and 304 answers
for files carry Cache-Control: max-age=N (RFC 9111 5.2.2.1) for caches;
if ROOT/<path>.headers exists, each of its "Name: value" lines is a field
of those answers too (Cache-Control, Age, Expires as a test wants them).

Conditional GET: ETag is "<size hex>-<mtime_ns hex>"; Last-Modified is the
file mtime.  If-None-Match takes precedence over If-Modified-Since (RFC 9110).
304 responses carry ETag and Last-Modified and no body.

Failure injection by path prefix:
    /status/CODE/...      answer CODE with a short body
    /stall/...            read the request, send nothing for 60 s, close
    /slow/...             serve the rest of the path, 1 byte every 0.5 s
    /hold/...             serve the rest of the path, its last byte held
                          back 0.5 s (the body is in flight a while)
    /close/...            close the connection without any response
    /redirect/N/rest      302 to /redirect/N-1/rest ... /redirect/0/rest -> /rest
    /redirect-to/HOST:PORT/rest
                          302 to http://HOST:PORT/rest (HOST: a 127.x address)
A path ending in "/" serves the file "index" of that directory (an API's
root document, such as Remote Settings' /v1/).
--bind ADDR listens on another loopback address (127.0.0.0/8 only).
--vhosts serves ROOT/HOST/<path> to a request whose Host is HOST (a test
that maps real host names to loopback in a network namespace of its own),
a path naming a directory its file "index", and logs the URL as
http://HOST<path>.
--delay SECONDS holds every answer that long after its request arrived, as
a network round trip would (benchmarks at Internet latency): each
connection has its own thread, so delays overlap and do not serialise;
connections are kept alive across requests (HTTP/1.1, RFC 9112 9.3).
--connections FILE gets a line per connection accepted.
--log-times ends each log line with \tt=<seconds since the epoch> of the
request's arrival (a benchmark's time to a first request).
--tls-cert CERT --tls-key KEY: HTTPS with that certificate (PEM).
--no-304 never answers 304: an origin (or a CDN) that ignores
If-None-Match and If-Modified-Since sends every file whole.
Remote Settings: a GET of /v1/buckets/.../changeset is answered by
test/remotesettings.py's answer() (the changeset endpoint, _since and
monitor/changes as the real server answers them).
Content coding (RFC 9110 8.4): if ROOT/<path>.gz exists and the request's
Accept-Encoding names gzip, its bytes are the body, sent as they are with
Content-Encoding: gzip (a test may plant any gzip stream there, a bomb
included); its ETag is that of ROOT/<path> with "-gz" (RFC 9110 8.8.3),
Last-Modified that of ROOT/<path>.
Basic authentication for a fixed URL: if ROOT/<path>.auth exists, its first
line is USER:PASSWORD, and a request without exactly those credentials gets 401.
Failure injection for a fixed URL: if ROOT/<path>.status exists, its first word
decides: a number (answer that status), "stall", "slow" or "close"; an
optional second word N limits it to the next N requests.
"""
import argparse
import base64
import email.utils
import os
import socket
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STALL_SECONDS = 60
HOLD_SECONDS = 0.5
_log_lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "crlcache-testhttpd/1"

    def log_message(self, fmt, *args):  # silence default stderr logging
        pass

    def _log(self, status, sent="-"):
        inm = self.headers.get("If-None-Match") or "-"
        ims = self.headers.get("If-Modified-Since") or "-"
        ae = self.headers.get("Accept-Encoding") or "-"
        path = self.path
        if self.server.vhosts:
            path = "http://%s%s" % (self._vhost() or "-", path)
        line = "%s %s %s\tinm=%s\tims=%s\tae=%s\tbytes=%s" % (
            self.command, path, status, inm, ims, ae, sent)
        if self.server.log_times:
            line += "\tt=%.6f" % self.request_time
        line += "\n"
        with _log_lock:
            with open(self.server.logfile, "a") as f:
                f.write(line)
                f.flush()

    def _simple(self, code, body=b"", headers=()):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        if body:
            self.send_header("Content-Type", "text/plain")
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)
        self._log(code)

    def _stall(self):
        self._log("stall")
        # Accept the request and send nothing; the client must time out.
        deadline = time.monotonic() + STALL_SECONDS
        while time.monotonic() < deadline:
            time.sleep(0.2)
        self.close_connection = True

    def _close(self):
        self._log("close")
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _vhost(self):
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0].lower()
        if not host or "/" in host or host.startswith("."):
            return None
        return host

    def _fs_path(self, urlpath):
        rel = urlpath.split("?", 1)[0].lstrip("/")
        if self.server.vhosts:
            host = self._vhost()
            if host is None:
                return None
            rel = os.path.join(host, rel)
        if rel.endswith("/"):
            rel += "index"
        full = os.path.realpath(os.path.join(self.server.root, rel))
        if not (full == self.server.root or full.startswith(self.server.root + os.sep)):
            return None
        if self.server.vhosts and os.path.isdir(full):
            full = os.path.join(full, "index")
        return full

    def _override(self, urlpath):
        p = self._fs_path(urlpath)
        if p is None:
            return None
        try:
            with open(p + ".status") as f:
                words = f.read().split()
        except OSError:
            return None
        if not words:
            return None
        # "WHAT N": inject WHAT for the next N requests only, then serve
        if len(words) > 1 and words[1].isdigit():
            left = int(words[1]) - 1
            try:
                if left <= 0:
                    os.unlink(p + ".status")
                else:
                    with open(p + ".status", "w") as f:
                        f.write("%s %d\n" % (words[0], left))
            except OSError:
                pass
        return words[0]

    def _cache_control(self, p):
        if self.server.max_age is not None:
            self.send_header("Cache-Control", "max-age=%d" % self.server.max_age)
        try:
            with open(p + ".headers") as f:
                lines = f.read().splitlines()
        except OSError:
            lines = []
        for line in lines:
            name, _, value = line.partition(":")
            if name and value:
                self.send_header(name.strip(), value.strip())

    def _serve_file(self, urlpath, slow=False, hold=False):
        p = self._fs_path(urlpath)
        if p is None or not os.path.isfile(p):
            return self._simple(404, b"not found\n")
        try:
            with open(p + ".auth") as f:
                creds = f.readline().strip()
        except OSError:
            creds = None
        if creds is not None:
            want = "Basic " + base64.b64encode(creds.encode()).decode()
            if self.headers.get("Authorization") != want:
                return self._simple(401, b"unauthorized\n",
                                    [("WWW-Authenticate", 'Basic realm="crl"')])
        st = os.stat(p)
        coded = self._gzip_wanted() and os.path.isfile(p + ".gz")
        # a strong validator names one representation (RFC 9110 8.8.3)
        etag = '"%x-%x%s"' % (st.st_size, st.st_mtime_ns, "-gz" if coded else "")
        lastmod = email.utils.formatdate(st.st_mtime, usegmt=True)
        inm = self.headers.get("If-None-Match")
        ims = self.headers.get("If-Modified-Since")
        not_modified = False
        if self.server.no_304:
            pass
        elif inm is not None:
            tags = [t.strip() for t in inm.split(",")]
            not_modified = "*" in tags or etag in tags or ("W/" + etag) in tags
        elif ims is not None:
            try:
                t = email.utils.parsedate_to_datetime(ims).timestamp()
                not_modified = int(st.st_mtime) <= t
            except (TypeError, ValueError, IndexError, OverflowError):
                not_modified = False
        if not_modified:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", lastmod)
            self._cache_control(p)
            self.end_headers()
            self._log(304)
            return
        with open(p + ".gz" if coded else p, "rb") as f:
            body = f.read()
        self.send_response(200)
        self.send_header("Content-Type", "application/pkix-crl")
        if coded:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", lastmod)
        self._cache_control(p)
        self.end_headers()
        if self.command == "HEAD":
            self._log(200)
            return
        if slow:
            self._log("200-slow")
            try:
                for i in range(len(body)):
                    self.wfile.write(body[i:i + 1])
                    self.wfile.flush()
                    time.sleep(0.5)
            except OSError:
                pass
            self.close_connection = True
            return
        sent = len(body)
        if hold and len(body) > 1:
            self.wfile.write(body[:-1])
            self.wfile.flush()
            time.sleep(HOLD_SECONDS)
            body = body[-1:]
        self.wfile.write(body)
        self._log(200, sent)

    def _gzip_wanted(self):
        """Does Accept-Encoding (RFC 9110 12.5.3) take gzip (q > 0)?"""
        for item in (self.headers.get("Accept-Encoding") or "").split(","):
            parts = [x.strip() for x in item.split(";")]
            if parts[0].lower() not in ("gzip", "x-gzip"):
                continue
            q = [x[2:] for x in parts[1:] if x.lower().startswith("q=")]
            try:
                return not q or float(q[0]) > 0
            except ValueError:
                return False
        return False

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        self.request_time = time.time()
        if self.server.delay > 0:
            time.sleep(self.server.delay)
        path = self.path
        parts = path.split("?", 1)[0].split("/")
        # parts[0] == "" because the path starts with "/"
        if len(parts) >= 3 and parts[1] == "status":
            try:
                code = int(parts[2])
            except ValueError:
                return self._simple(400, b"bad status\n")
            return self._simple(code, b"injected status %d\n" % code)
        if len(parts) >= 2 and parts[1] == "stall":
            return self._stall()
        if len(parts) >= 2 and parts[1] == "close":
            return self._close()
        if len(parts) >= 2 and parts[1] == "slow":
            return self._serve_file("/" + "/".join(parts[2:]), slow=True)
        if len(parts) >= 2 and parts[1] == "hold":
            return self._serve_file("/" + "/".join(parts[2:]), hold=True)
        if len(parts) >= 3 and parts[1] == "redirect":
            try:
                n = int(parts[2])
            except ValueError:
                return self._simple(400, b"bad redirect\n")
            rest = "/".join(parts[3:])
            loc = "/redirect/%d/%s" % (n - 1, rest) if n > 0 else "/" + rest
            host = "127.0.0.1:%d" % self.server.server_address[1]
            return self._simple(302, b"", [("Location", "http://%s%s" % (host, loc))])
        if len(parts) >= 3 and parts[1] == "redirect-to":
            # tests talk to loopback only: never point a client elsewhere
            if not parts[2].startswith("127."):
                return self._simple(400, b"redirect-to: loopback only\n")
            loc = "http://%s/%s" % (parts[2], "/".join(parts[3:]))
            return self._simple(302, b"", [("Location", loc)])
        ov = self._override(path)
        if ov is not None:
            if ov.isdigit():
                code = int(ov)
                return self._simple(code, b"injected status %d\n" % code)
            if ov == "stall":
                return self._stall()
            if ov == "close":
                return self._close()
            if ov == "slow":
                return self._serve_file(path, slow=True)
        if path.startswith("/v1/buckets/") and \
                path.split("?", 1)[0].endswith("/changeset"):
            import remotesettings  # test/remotesettings.py, beside this
            return remotesettings.answer(self)
        return self._serve_file(path)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # socketserver's default backlog of 5 drops the SYNs of a client that
    # opens dozens of connections at once (each retried after 1 s).
    request_queue_size = 128
    delay = 0.0
    connections = None
    vhosts = False
    log_times = False
    tls = None          # an ssl.SSLContext: HTTPS (--tls-cert, --tls-key)
    no_304 = False      # --no-304

    def get_request(self):
        sock, addr = super().get_request()
        if self.tls is not None:
            # the handshake happens in the request's thread, on first read
            sock = self.tls.wrap_socket(sock, server_side=True,
                                        do_handshake_on_connect=False)
        return sock, addr

    def process_request(self, request, client_address):
        if self.connections is not None:
            with _log_lock:
                with open(self.connections, "a") as f:
                    f.write("%s:%d\n" % client_address[:2])
        super().process_request(request, client_address)


def run(srv, port_file, log):
    """Serve srv (bound) until killed: its port goes to port_file (written
    atomically, so that a test waiting for it never reads half), its
    requests to log."""
    srv.logfile = log
    open(log, "a").close()
    tmp = port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, port_file)
    try:
        srv.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--max-age", type=int, default=None)
    ap.add_argument("--bind", default="127.0.0.1")
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--connections", default=None)
    ap.add_argument("--vhosts", action="store_true")
    ap.add_argument("--log-times", action="store_true")
    ap.add_argument("--tls-cert", default=None)
    ap.add_argument("--tls-key", default=None)
    ap.add_argument("--no-304", action="store_true")
    a = ap.parse_args()
    if not a.bind.startswith("127."):
        ap.error("--bind: loopback (127.0.0.0/8) only")
    srv = Server((a.bind, a.port), Handler)
    srv.root = os.path.realpath(a.root)
    srv.max_age = a.max_age
    srv.delay = a.delay
    srv.connections = a.connections
    srv.vhosts = a.vhosts
    srv.log_times = a.log_times
    srv.no_304 = a.no_304
    if a.tls_cert:
        srv.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        srv.tls.load_cert_chain(a.tls_cert, a.tls_key)
    return run(srv, a.port_file, a.log)


if __name__ == "__main__":
    sys.exit(main())
