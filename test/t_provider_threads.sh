#!/usr/bin/env bash
# Provider under concurrency: ONE python3 process (system libssl, under
# `crlcache exec`) runs a threaded TLS server presenting a good and a revoked
# leaf (its handshake signatures go through the same library context), and 8
# client threads that each do 250 handshakes alternating between the two.
# Every good handshake must succeed and every revoked one fail with
# "certificate signature failure"; meanwhile the index is republished twice
# (the threads swap snapshots under load).  Then the first verifications
# of new processes: 8 server threads meet a revoked client certificate at
# once, while one of them opens the index; every one must be refused (a
# thread that went on meanwhile found no index and passed unchecked).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"

tls_ready

cat >"$W/threads.py" <<'PY'
import socket, socketserver, ssl, sys, threading, time
pki, root, nthreads, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

# The server must send the intermediate: build a chain file (leaf + CA).
for n in ("good_ec", "rev_rsa"):
    with open(f"{pki}/{n}.pem") as a, open(f"{pki}/{n}.ca.pem") as b, open(f"{pki}/{n}.full.pem", "w") as o:
        o.write(a.read() + b.read())
def server_full(name):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(certfile=f"{pki}/{name}.full.pem", keyfile=f"{pki}/{name}.key")
    class H(socketserver.BaseRequestHandler):
        def handle(self):
            try:
                with ctx.wrap_socket(self.request, server_side=True) as s:
                    s.sendall(b"hello\n")
            except (ssl.SSLError, OSError):
                pass
    class S(socketserver.ThreadingMixIn, socketserver.TCPServer):
        daemon_threads = True; allow_reuse_address = True; request_queue_size = 64
    srv = S(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv.server_address[1]

ports = {"good": server_full("good_ec"), "rev": server_full("rev_rsa")}
results = {"good_ok": 0, "good_bad": 0, "rev_refused": 0, "rev_bad": 0}
lock = threading.Lock()
errors = []

def client(tid):
    for i in range(rounds):
        which = "good" if (i + tid) % 2 == 0 else "rev"
        ctx = ssl.create_default_context(cafile=root)   # fresh: no session reuse
        try:
            with socket.create_connection(("127.0.0.1", ports[which]), timeout=20) as raw:
                with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
                    s.recv(16)
            key = "good_ok" if which == "good" else "rev_bad"
            msg = None if which == "good" else "revoked chain accepted"
        except ssl.SSLCertVerificationError as e:
            ok = which == "rev" and "certificate signature failure" in str(e)
            key = "rev_refused" if ok else (which + "_bad")
            msg = None if ok else f"{which}: {e}"
        except Exception as e:
            key, msg = which + "_bad", f"{which}: {type(e).__name__}: {e}"
        with lock:
            results[key] += 1
            if msg and len(errors) < 10: errors.append(f"thread {tid} round {i}: {msg}")

t0 = time.time()
ts = [threading.Thread(target=client, args=(t,)) for t in range(nthreads)]
for t in ts: t.start()
open(sys.argv[5], "w").write("started\n")
for t in ts: t.join()
print(f"threads={nthreads} rounds={rounds} seconds={time.time()-t0:.1f} {results}")
for e in errors: print("error:", e)
want = nthreads * rounds // 2
sys.exit(0 if results["good_ok"] == want and results["rev_refused"] == want else 1)
PY

px --set log=none -- "$PY" "$W/threads.py" "$PKI" "$ROOT" 8 250 "$W/started" >"$W/threads.out" 2>&1 &
pid=$!; bg_register "$pid"
# Republish twice while the threads run (new CRL numbers: new generations).
for i in $(seq 1 100); do [ -f "$W/started" ] && break; sleep 0.05; done
gen0=$(generation)
for n in 1 2; do
    pki_gencrl int "$W/int-$n.crl"
    cc import --anchor "$ROOT" --untrusted "$W/untrusted.pem" "$W/int-$n.crl" >/dev/null 2>&1 \
        || fail "re-import $n failed"
    sleep 0.5
done
note "generations during the run: $gen0 -> $(generation)"
kill -0 "$pid" 2>/dev/null && case_ok "republished twice while the threads ran" \
    || note "warning: the threads finished before both republishes"
wait "$pid"; rc=$?
sed 's/^/    | /' "$W/threads.out"
[ "$rc" -eq 0 ] && case_ok "8 threads x 250 handshakes: good all accepted, revoked all refused" \
    || case_fail threads "python exit $rc"

# A revoked client certificate (int's CRL, imported anew), presented by
# 8 s_client processes at once to a new server process's 8 threads.
sed 's/^extendedKeyUsage = serverAuth$/extendedKeyUsage = clientAuth/' "$PKI/rev_rsa.ext" >"$PKI/rev_client.ext"
_newkey rsa "$PKI/rev_client.key"
openssl req -new -key "$PKI/rev_client.key" -subj "/CN=rev-client.test" -out "$PKI/rev_client.csr" 2>/dev/null \
    || fail "rev_client: req failed"
_issue int "$PKI/rev_client.csr" "$PKI/rev_client.pem" "$PKI/rev_client.ext"
pki_revoke int "$PKI/rev_client.pem" reason=keyCompromise
pki_gencrl int "$W/int-3.crl"
assert_exit 0 cc import --anchor "$ROOT" --untrusted "$W/untrusted.pem" "$W/int-3.crl"
cat >"$W/first.py" <<'PY'
import socket, ssl, sys, threading
port, pki, root, n = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(certfile=f"{pki}/good_ec.full.pem", keyfile=f"{pki}/good_ec.key")
ctx.load_verify_locations(root)
ctx.verify_mode = ssl.CERT_REQUIRED
ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", port)); ls.listen(16)
# A client that never came, or a handshake that never ends, fails the
# run instead of holding it.
ls.settimeout(60)
print("ready", flush=True)
conns = [ls.accept()[0] for _ in range(n)]
accepted = []
def serve(c):
    c.settimeout(30)
    try:
        with ctx.wrap_socket(c, server_side=True): accepted.append(1)
    except (ssl.SSLError, OSError): pass
ts = [threading.Thread(target=serve, args=(c,)) for c in conns]
for t in ts: t.start()
for t in ts: t.join()
print("accepted %d" % len(accepted), flush=True)
PY
client() {
    timeout 30 openssl s_client -connect "127.0.0.1:$1" -CAfile "$ROOT" -cert "$PKI/rev_client.pem" \
        -key "$PKI/rev_client.key" -cert_chain "$PKI/int/cert.pem" -tls1_2 </dev/null >/dev/null 2>&1
}
bad=0; runs=30
for i in $(seq 1 $runs); do
    port=$(closed_port)
    px -- "$PY" "$W/first.py" "$port" "$PKI" "$ROOT" 8 >"$W/first.out" 2>&1 &
    srv=$!; bg_register "$srv"
    for _ in $(seq 1 600); do grep -q ready "$W/first.out" && break; sleep 0.05; done
    grep -q ready "$W/first.out" || { cat "$W/first.out"; fail "server process $i not ready in 30 s"; }
    pids=(); for _ in $(seq 1 8); do client "$port" & pids+=($!); done
    wait "${pids[@]}"; wait "$srv"
    grep -q '^accepted 0$' "$W/first.out" \
        || { bad=$((bad + 1)); note "process $i: $(grep accepted "$W/first.out")"; }
done
[ "$bad" = 0 ] && case_ok "$runs new server processes, 8 threads each meeting a revoked client at once: all refused" \
    || case_fail first-open "$bad of $runs server processes accepted the revoked client in some thread"
finish
