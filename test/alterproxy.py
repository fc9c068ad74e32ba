#!/usr/bin/env python3
"""A hostile HTTP proxy for the crlcache integration tests.

Standard library only.  Binds 127.0.0.1 (ephemeral port, written to
--port-file), accepts proxy requests ("GET http://127.0.0.1:PORT/path"),
forwards them to the origin -- loopback origins (127.0.0.0/8, localhost,
::1) only, anything else is answered 403 -- and alters every 200 body in
transit: its last byte (in a CRL, the end of the signature) is flipped.
With --faithful it alters nothing: a plain forwarding proxy.  Headers are passed through.
Every request is logged to --log, one line each:

    METHOD URL STATUS\tcc=<Cache-Control or ->\tpragma=<Pragma or ->
"""
import argparse
import http.client
import ipaddress
import os
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import httpd  # noqa: E402  (test/httpd.py: its server and run loop)

# A CRL is at most crlcache's max_size (64 MiB by default).
MAX_BODY = 64 << 20
TIMEOUT_SECONDS = 10
HOP_BY_HOP = ("connection", "proxy-connection", "keep-alive", "te",
              "transfer-encoding", "upgrade", "content-length")
_log_lock = threading.Lock()


def loopback(host):
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host or "").is_loopback
    except ValueError:
        return False


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def _log(self, status):
        line = "%s %s %s\tcc=%s\tpragma=%s\n" % (
            self.command, self.path, status,
            self.headers.get("Cache-Control") or "-",
            self.headers.get("Pragma") or "-")
        with _log_lock:
            with open(self.server.logfile, "a") as f:
                f.write(line)

    def _answer(self, code, headers, body):
        self.send_response(code)
        for k, v in headers:
            if k.lower() not in HOP_BY_HOP:
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self._log(code)

    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        if u.scheme != "http" or not loopback(u.hostname):
            return self._answer(403, [], b"loopback origins only\n")
        conn = http.client.HTTPConnection(u.hostname, u.port or 80,
                                          timeout=TIMEOUT_SECONDS)
        path = u.path + ("?" + u.query if u.query else "")
        fwd = {k: v for k, v in self.headers.items()
               if k.lower() not in HOP_BY_HOP and k.lower() != "host"}
        try:
            conn.request(self.command, path, headers=fwd)
            r = conn.getresponse()
            body = r.read(MAX_BODY + 1)
            headers = r.getheaders()
            status = r.status
        except OSError:
            return self._answer(502, [], b"origin unreachable\n")
        finally:
            conn.close()
        if len(body) > MAX_BODY:
            return self._answer(502, [], b"origin body too large\n")
        if status == 200 and body and not self.server.faithful:
            body = body[:-1] + bytes([body[-1] ^ 0x01])
        self._answer(status, headers, body)

    def do_HEAD(self):
        self.do_GET()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--faithful", action="store_true",
                    help="forward bodies unaltered")
    a = ap.parse_args()
    srv = httpd.Server(("127.0.0.1", 0), Handler)
    srv.faithful = a.faithful
    return httpd.run(srv, a.port_file, a.log)


if __name__ == "__main__":
    sys.exit(main())
