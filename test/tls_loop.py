#!/usr/bin/env python3
"""Fresh TLS handshakes (no session reuse) to 127.0.0.1:PORT every 0.2 s
for SECS seconds, verifying against ROOT; one line per try on stdout:
"TIME ok", "TIME refused VERIFY_MESSAGE" or "TIME error TYPE: TEXT".
Used by the provider tests that switch an index under a running process.

    tls_loop.py PORT ROOT SECS
"""
import socket, ssl, sys, time
port, root, secs = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
end = time.time() + secs
while time.time() < end:
    ctx = ssl.create_default_context(cafile=root)    # fresh: no session reuse
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
                s.sendall(b"GET / HTTP/1.0\r\n\r\n"); s.recv(64)
        print(f"{time.time():.2f} ok", flush=True)
    except ssl.SSLCertVerificationError as e:
        print(f"{time.time():.2f} refused {e.verify_message}", flush=True)
    except Exception as e:
        print(f"{time.time():.2f} error {type(e).__name__}: {e}", flush=True)
    time.sleep(0.2)
