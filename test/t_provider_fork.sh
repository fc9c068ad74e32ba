#!/usr/bin/env bash
# fork(): one python process verifies through the provider, forks, and the
# child (and a grandchild) still refuse the revoked server and accept the
# good one; a revocation published after the fork reaches the child too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
tls_pki
tls_import "$W/int2.crl" "$W/root.crl"      # int's CRL later: rev_ec good at first
srv_start good good_ec
srv_start rev rev_ec
px -- "$PY" -c '
import os, ssl, socket, subprocess, sys, time
good, rev, cafile, importer = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4:]
def ok(port):
    ctx = ssl.create_default_context(cafile=cafile)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            with ctx.wrap_socket(s, server_hostname="127.0.0.1"):
                return True
    except ssl.SSLError:
        return False
def expect(tag, port, want):
    got = ok(port)
    print(tag, port, "accepted" if got else "refused", flush=True)
    if got != want:
        print(tag, "WRONG", flush=True)
        os._exit(1)
expect("parent-before", good, True)
expect("parent-before", rev, True)          # not revoked in the index yet
pid = os.fork()
if pid == 0:
    expect("child", good, True)
    expect("child", rev, True)
    gpid = os.fork()
    if gpid == 0:
        expect("grandchild", rev, True)
        os._exit(0)
    _, st = os.waitpid(gpid, 0)
    if st != 0:
        os._exit(1)
    # the parent publishes the revocation; the child must see it within seconds
    time.sleep(4)
    deadline = time.time() + 10
    while ok(rev):
        if time.time() > deadline:
            print("child: revocation not seen after republish", flush=True)
            os._exit(1)
        time.sleep(0.2)
    expect("child-after", rev, False)
    expect("child-after", good, True)
    os._exit(0)
time.sleep(1)
if subprocess.call(importer) != 0:
    print("import failed", flush=True)
    sys.exit(1)
_, st = os.waitpid(pid, 0)
sys.exit(0 if st == 0 else 1)
' "$(srv_port good)" "$(srv_port rev)" "$ROOT" \
    "$CRLCACHE" --state-dir "$STATE" -c "$CONF" import --anchor "$ROOT" \
    --untrusted "$W/untrusted.pem" "$W/int.crl" >"$W/fork.out" 2>&1
rc=$?
sed 's/^/    /' "$W/fork.out"
[ "$rc" -eq 0 ] || fail "fork test failed (exit $rc)"
assert_grep '^child-after [0-9]+ refused' "$W/fork.out"
note "fork ok"
