#!/usr/bin/env bash
# Refused at the first handshake: a program that meets a CA no program on
# the host met before leaves a hint and waits (learn_wait) for the fast
# run that the spool's watcher starts (`update --hints`, run here exactly
# as crlcache-hints.service runs it) to publish the CA's CRL, then is
# answered from the new index: a revoked server is refused at the first
# handshake (s_client -verify_return_error, curl, python), a good one is
# accepted, and the time it waited is logged once.  It waits only where a
# fetcher watches the spool (the learning marker): without the marker,
# not at all; with the marker and nobody answering, up to learn_wait, and
# then on_unknown decides.  A threaded server that verifies the client
# certificates of a new CA in 8 threads at once waits once, in one
# thread: the others answer at once, none waits in turn.  A marker past its time makes nobody wait; nor does one whose
# watcher stopped: the next full update finds a hint that waited past
# the bound in the spool and removes the marker (run under faketime, 21
# minutes on; the hint's ctime is its own).  Answers are held 50 ms
# (httpd.py --delay), as on a network.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
HTTPD_DELAY=0.05 httpd_start
# The watcher looks at the spool as often as inotify would (near enough).
HINTS_POLL=0.02

pki_root root "/CN=Learn Root/O=crlcache tests"
pki_gencrl root "$W/root.crl"
serve "$W/root.crl" root.crl
ROOT=$PKI/root/cert.pem
# new_ca NAME: a CA with a revoked leaf NAME-rev and a good leaf NAME-good,
# its CRL served at /NAME.crl.
new_ca() {
    pki_ca "$1" root "/CN=Learn $1 CA/O=crlcache tests" cdp="$BASE_URL/root.crl"
    prov_leaf "$1-rev" "$1" "$1-rev.test" cdp="$BASE_URL/$1.crl"
    prov_leaf "$1-good" "$1" "$1-good.test" cdp="$BASE_URL/$1.crl"
    pki_revoke "$1" "$PKI/$1-rev.pem"
    pki_gencrl "$1" "$W/$1.crl"
    serve "$W/$1.crl" "$1.crl"
    UNTRUSTED+=("untrusted = $PKI/$1/cert.pem")
}
UNTRUSTED=()
for ca in nomark timeout deny sclient curl python good threads expired stale stopped; do new_ca "$ca"; done
write_conf "anchor = $ROOT" "${UNTRUSTED[@]}" "allow_private_urls = yes" "url = $BASE_URL/root.crl"
assert_exit 0 cc update
MARK=$STATE/learning
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
waited() { grep -c 'waited [0-9]* ms for crlcache to learn' "$1" || :; }

# at_once CA LEARN_WAIT: the first handshake with CA's revoked server,
# timed (TOOK, ms), is accepted with no wait, well within LEARN_WAIT.
at_once() {
    srv_start "$1" "$1-rev"
    local t0; t0=$(date +%s%N)
    cl_sclient "$(srv_port "$1")" 1.3 --set learn_wait="$2"
    TOOK=$(ms "$t0")
    [ "$CLIENT_RC" = 0 ] && [ "$(waited "$W/client.out")" = 0 ] && [ "$TOOK" -lt $(( $2 * 5 / 6 )) ]
}

# 1. No learning fetcher (cron alone: no marker): no wait, as before.
[ ! -e "$MARK" ] || fail "a full update made the learning marker"
at_once nomark 3000 \
    && case_ok "no learning marker: accepted at once ($TOOK ms), no wait" \
    || { cat "$W/client.out"; case_fail no-marker "exit $CLIENT_RC, $TOOK ms"; }

# The fast run writes the marker (what the path unit starts at boot).
rm -rf "$STATE/hints"/*
assert_exit 0 cc update --hints
[ -f "$MARK" ] && [ "$(stat -c %Y "$MARK")" -gt "$(now_epoch)" ] \
    || fail "update --hints wrote no learning marker ahead of now"
# A full update pushes it ahead again, never back.
touch -d "@$(( $(now_epoch) + 60 ))" "$MARK"
assert_exit 0 cc update
[ "$(stat -c %Y "$MARK")" -gt $(( $(now_epoch) + 3600 )) ] || fail "a full update did not push the marker ahead"

# 2. A marker but nobody answering: the wait times out, on_unknown decides.
rm -rf "$STATE/hints"/*
srv_start timeout timeout-rev
t0=$(date +%s%N)
cl_sclient "$(srv_port timeout)" 1.3 --set learn_wait=600
took=$(ms "$t0")
[ "$CLIENT_RC" = 0 ] && [ "$(waited "$W/client.out")" = 1 ] && [ "$took" -ge 600 ] \
    && grep -q 'not covered in time' "$W/client.out" \
    && case_ok "marker, no answer: waited ($took ms), then allowed (on_unknown = allow)" \
    || { cat "$W/client.out"; case_fail timeout-allow "exit $CLIENT_RC, $took ms"; }
srv_start deny deny-rev
cl_sclient "$(srv_port deny)" 1.3 --set learn_wait=600 --set on_unknown=deny
[ "$CLIENT_RC" != 0 ] && [ "$(waited "$W/client.out")" = 1 ] && grep -qi 'unknown' "$W/client.out" \
    && case_ok "marker, no answer, on_unknown = deny: waited, then refused as unknown" \
    || { cat "$W/client.out"; case_fail timeout-deny "exit $CLIENT_RC"; }

# 3. One wait per issuer in a threaded server: of 8 client certificates
#    of a new CA verified at once in 8 threads, one waits and the others
#    do not, nor does a 9th.  Nobody answers (no watcher yet): the one
#    wait runs to its end.
sed -i 's/^extendedKeyUsage = serverAuth$/extendedKeyUsage = serverAuth, clientAuth/' "$PKI/threads-good.ext"
_issue threads "$PKI/threads-good.csr" "$PKI/threads-good.pem" "$PKI/threads-good.ext"
port=$(closed_port)
px --set learn_wait=1500 -- "$PY" -c '
import socket, ssl, sys, threading, time
port, cert, key, ca, n = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
ctx.load_verify_locations(ca)
ctx.verify_mode = ssl.CERT_REQUIRED
ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", port)); ls.listen(16)
ls.settimeout(60)   # a client that never came fails the run, not holds it
print("ready", flush=True)
def serve(c):
    c.settimeout(30)
    t = time.monotonic()
    try:
        s = ctx.wrap_socket(c, server_side=True)
        r = "ok"
        s.close()
    except Exception as e:
        r = type(e).__name__
    print("handshake %s %d ms" % (r, (time.monotonic() - t) * 1000), flush=True)
for batch in (n, 1):
    conns = [ls.accept()[0] for _ in range(batch)]
    t = time.monotonic()
    ts = [threading.Thread(target=serve, args=(c,)) for c in conns]
    for th in ts: th.start()
    for th in ts: th.join()
    print("batch of %d: %d ms" % (batch, (time.monotonic() - t) * 1000), flush=True)
' "$port" "$PKI/timeout-good.pem" "$PKI/timeout-good.key" "$ROOT" 8 >"$W/threads.out" 2>&1 &
srv=$!; bg_register "$srv"
for _ in $(seq 1 600); do grep -q ready "$W/threads.out" && break; sleep 0.05; done
grep -q ready "$W/threads.out" || { cat "$W/threads.out"; fail "the threaded server not ready in 30 s"; }
client() {
    timeout 30 openssl s_client -connect "127.0.0.1:$port" -CAfile "$ROOT" -cert "$PKI/threads-good.pem" \
        -key "$PKI/threads-good.key" -cert_chain "$PKI/threads/cert.pem" -tls1_2 </dev/null >/dev/null 2>&1
}
pids=(); for _ in $(seq 1 8); do client & pids+=($!); done
wait "${pids[@]}"; client
wait "$srv"
batch8=$(sed -n 's/^batch of 8: \([0-9]*\) ms$/\1/p' "$W/threads.out")
batch1=$(sed -n 's/^batch of 1: \([0-9]*\) ms$/\1/p' "$W/threads.out")
quick=$(awk '/^handshake ok/ && $3 < 1000' "$W/threads.out" | wc -l)
[ "$(grep -c '^handshake ok' "$W/threads.out")" = 9 ] && [ "$(waited "$W/threads.out")" = 1 ] \
    && [ -n "$batch8" ] && [ "$batch8" -ge 1400 ] && [ "$batch8" -lt 3000 ] && [ "$batch1" -lt 1000 ] \
    && [ "$quick" = 8 ] \
    && case_ok "8 threads verifying a new CA at once: one waits ($batch8 ms), 7 answer at once; the next handshake $batch1 ms" \
    || { cat "$W/threads.out"; case_fail threads "8 at once: '$batch8' ms, then '$batch1' ms"; }

# 4. A learning fetcher (the watcher): refused at the first handshake.
rm -rf "$STATE/hints"/*
hints_watch_start
first_contact() {  # first_contact CLIENT CA LEAF: one first handshake, timed
    srv_start "$2" "$3"
    # The service holds the watch after each run: start from an idle one.
    sleep "$HINTS_PAUSE"; sleep 0.5
    local t0; t0=$(date +%s%N)
    "$1" "$(srv_port "$2")" 1.3
    TOOK=$(ms "$t0")
}
for client in sclient curl python; do
    first_contact "cl_$client" "$client" "$client-rev"
    [ "$CLIENT_RC" != 0 ] && grep -qi 'revoked' "$W/client.out" && [ "$(waited "$W/client.out")" = 1 ] \
        && case_ok "$client: the first handshake with a new CA's revoked server is refused ($TOOK ms)" \
        || { cat "$W/client.out" "$W/fast.log"; case_fail "first-$client" "exit $CLIENT_RC"; }
done
first_contact cl_curl good good-good
cp "$W/client.out" "$W/good.out"
srv_start good2 good-good
t0=$(date +%s%N); cl_curl "$(srv_port good2)" 1.3; again=$(ms "$t0")
[ "$CLIENT_RC" = 0 ] && [ "$(waited "$W/good.out")" = 1 ] \
    && case_ok "curl: the first handshake with a new CA's good server succeeds ($TOOK ms; the next one $again ms)" \
    || { cat "$W/good.out" "$W/fast.log"; case_fail first-good "exit $CLIENT_RC"; }
note "$(grep -h 'waited' "$W/good.out" | sed 's/.*waited/waited/')"

# 5. The watcher stops (the path unit stopped or failed).  A marker whose
#    time has passed makes nobody wait.
hints_watch_stop
touch -d "@$(( $(now_epoch) - 1 ))" "$MARK"
at_once expired 600 \
    && case_ok "a marker past its time: accepted at once ($TOOK ms), no wait" \
    || { cat "$W/client.out"; case_fail expired-marker "exit $CLIENT_RC, $TOOK ms"; }
# Still ahead when the watcher stopped: the full update pushes it on
# while the spool's hints are recent (it takes them itself)...
touch -d "@$(( $(now_epoch) + 600 ))" "$MARK"
assert_exit 0 cc update
[ "$(stat -c %Y "$MARK" 2>/dev/null || echo 0)" -gt $(( $(now_epoch) + 3600 )) ] \
    || fail "a full update after a recent hint did not push the marker ahead"
srv_start stale stale-rev
cl_sclient "$(srv_port stale)" 1.3 --set learn_wait=600
[ "$(waited "$W/client.out")" = 1 ] || { cat "$W/client.out"; fail "no wait with the marker ahead"; }
# ...and removes it once a hint waited unanswered past the bound.
if command -v faketime >/dev/null; then
    NO_FAKE_STAT=1 DONT_FAKE_MONOTONIC=1 faketime -f +21m \
        "$CRLCACHE" --state-dir "$STATE" -c "$CONF" update >"$W/late.out" 2>&1
    rc=$?
    [ "$rc" = 0 ] && [ ! -e "$MARK" ] && grep -q 'learning: a hint waited over 20 minutes' "$W/late.out" \
        && at_once stopped 600 \
        && case_ok "the watcher stopped: a hint unanswered for 21 minutes ends the marker, no wait ($TOOK ms)" \
        || { cat "$W/late.out" "$W/client.out"; case_fail stopped-watcher "update exit $rc, client exit ${CLIENT_RC:-}, ${TOOK:-} ms"; }
else
    note "faketime not installed: the stopped watcher not tested"
fi
finish
