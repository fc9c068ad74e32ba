#!/usr/bin/env bash
# A never-met private chain is refused at the first handshake: root (an
# anchor of the fetcher) -> intermediate (its CRL distribution point the
# root's CRL) -> revoked leaf (the intermediate's CRL), with no CRL of
# either in the index and no intermediate in the configuration, the
# spool's watcher running (`update --hints` as crlcache-hints.service
# runs it, held two seconds after each run).  The intermediate's
# verification waits for the root's CRL; the leaf's, below a link that
# waited and was proven, waits for the rest of that one wait, and the
# fast run that answered the intermediate takes the leaf's hint too: it
# looks at the spool again after publishing, and proves the leaf under
# the intermediate it has just proven.  So:
#   1. s_client, curl and python each refuse a fresh root -> intermediate
#      -> revoked leaf at the first handshake, the chain's waits together
#      within learn_wait;
#   2. a chain of two intermediates likewise;
#   3. the leaf's CRL unreachable: the chain waits learn_wait in all and
#      no more, then on_unknown decides;
#   4. a peer's self-made chain (three CAs, no anchor) still waits for
#      nothing and leaves no hint.
# Answers are held 50 ms (httpd.py --delay), as on a network.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
HTTPD_DELAY=0.05 httpd_start
HINTS_POLL=0.02
LW=3000		# learn_wait, ms

# chain NAME DEPTH: a fresh root NAME-root (its CRL at /NAME-root.crl),
# DEPTH intermediates under it (each one's distribution point its
# parent's CRL), a revoked leaf NAME-rev under the last (its CRL at
# /NAME-iDEPTH.crl); every CRL served, none imported.  The server sends
# the intermediates.
chain() {
    local name=$1 depth=$2 i parent=$1-root
    pki_root "$parent" "/CN=$name Root/O=crlcache tests"
    for i in $(seq 1 "$depth"); do
        pki_ca "$name-i$i" "$parent" "/CN=$name Intermediate $i/O=crlcache tests" \
            cdp="$BASE_URL/$parent.crl"
        parent=$name-i$i
    done
    prov_leaf "$name-rev" "$parent" "$name.test" cdp="$BASE_URL/$parent.crl"
    pki_revoke "$parent" "$PKI/$name-rev.pem"
    for i in $(seq "$depth" -1 1); do cat "$PKI/$name-i$i/cert.pem"; done >"$PKI/$name-rev.ca.pem"
    pki_gencrl "$name-root" "$W/$name-root.crl"; serve "$W/$name-root.crl" "$name-root.crl"
    for i in $(seq 1 "$depth"); do
        pki_gencrl "$name-i$i" "$W/$name-i$i.crl"; serve "$W/$name-i$i.crl" "$name-i$i.crl"
    done
    cat "$PKI/$name-root/cert.pem" >>"$W/anchors.pem"
}
: >"$W/anchors.pem"
for c in sclient curl python; do chain "$c" 1; done
chain deep 2
chain lost 1
inject lost-i1.crl 404
write_conf "anchor = $W/anchors.pem" "allow_private_urls = yes"
assert_exit 0 cc update
# The run the path unit starts when the watch starts: the learning marker.
assert_exit 0 cc update --hints
[ -f "$STATE/learning" ] || fail "update --hints wrote no learning marker"
# No CRL of any of them is held: every verification below meets new CAs.
[ "$(cc status 2>&1 | grep -c 'Root\|Intermediate')" = 0 ] || { cc status; fail "CRLs held before the first handshake"; }

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
waits() { grep -c 'waited [0-9]* ms for crlcache to learn' "$1" || :; }
# total_wait FILE: the sum of the waits the provider logged
total_wait() { sed -n 's/.*waited \([0-9]*\) ms for crlcache to learn.*/\1/p' "$1" | awk '{ s += $1 } END { print s + 0 }'; }
hints() { find "$STATE/hints" -type f | wc -l; }
# The log's word for one wait: the chain's waits end together at its
# deadline, each measured from its own start; a tick of the coarse clock
# (4 ms) each, and the last look at the index, may fall past it.
SLACK=40

rm -rf "$STATE/hints"/*
hints_watch_start
# first NAME CLIENT [exec args]: the first handshake with NAME's server, timed
first() {
    local name=$1 client=$2; shift 2
    srv_start "$name" "$name-rev"
    ROOT=$PKI/$name-root/cert.pem
    # The service holds the watch after each run: start from an idle one.
    sleep "$HINTS_PAUSE"; sleep 0.5
    local t0; t0=$(date +%s%N)
    "$client" "$(srv_port "$name")" 1.3 --set learn_wait=$LW "$@"
    TOOK=$(ms "$t0")
    TOTAL=$(total_wait "$W/client.out")
    cp "$W/client.out" "$W/$name.out"
}

# 1. One intermediate, three clients.
for c in sclient curl python; do
    first "$c" "cl_$c"
    [ "$CLIENT_RC" != 0 ] && grep -qi 'revoked' "$W/client.out" && [ "$(waits "$W/client.out")" = 2 ] \
        && [ "$TOTAL" -le $((LW + SLACK)) ] \
        && case_ok "$c: root -> intermediate -> revoked leaf, none held: refused at the first handshake ($TOOK ms; waits $TOTAL ms in all)" \
        || { cat "$W/client.out" "$W/fast.log"; case_fail "first-$c" "exit $CLIENT_RC, $(waits "$W/client.out") waits, $TOTAL ms waited"; }
done

# 2. Two intermediates.
first deep cl_sclient
[ "$CLIENT_RC" != 0 ] && grep -qi 'revoked' "$W/client.out" && [ "$(waits "$W/client.out")" = 3 ] \
    && [ "$TOTAL" -le $((LW + SLACK)) ] \
    && case_ok "s_client: root -> two intermediates -> revoked leaf, none held: refused at the first handshake ($TOOK ms; waits $TOTAL ms in all)" \
    || { cat "$W/client.out" "$W/fast.log"; case_fail first-deep "exit $CLIENT_RC, $(waits "$W/client.out") waits, $TOTAL ms waited"; }

# 3. The leaf's CRL cannot be had: the intermediate's wait is answered,
#    the leaf's runs to the chain's one deadline, then on_unknown decides.
first lost cl_sclient --set on_unknown=deny
[ "$CLIENT_RC" != 0 ] && grep -qi 'unknown' "$W/client.out" && [ "$(waits "$W/client.out")" = 2 ] \
    && grep -q 'not covered in time' "$W/client.out" \
    && [ "$TOTAL" -le $((LW + SLACK)) ] && [ "$TOTAL" -ge $((LW - 500)) ] && [ "$TOOK" -lt $((LW + 1500)) ] \
    && case_ok "the leaf's CRL unreachable: the chain waits $TOTAL ms in all (learn_wait $LW), then on_unknown = deny refuses ($TOOK ms)" \
    || { cat "$W/client.out" "$W/fast.log"; case_fail lost "exit $CLIENT_RC, $(waits "$W/client.out") waits, $TOTAL ms waited, $TOOK ms"; }
hints_watch_stop

# 4. A peer's self-made chain: three CAs under one key, the first
#    self-signed, none under an anchor.  s_client without
#    -verify_return_error goes on after the chain error, so every
#    signature of the chain is checked (and seen by the provider).
_newkey ec "$PKI/mint.key"
printf '[ ext ]\nbasicConstraints = critical,CA:TRUE\nkeyUsage = critical,keyCertSign,cRLSign\n' >"$PKI/mint-ca.ext"
openssl req -x509 -new -key "$PKI/mint.key" -subj "/CN=Minted CA 1/O=Minted" -days 30 \
    -addext "basicConstraints=critical,CA:TRUE" -out "$PKI/mint-ca1.pem" 2>/dev/null || fail "mint"
for i in 2 3; do
    openssl req -new -key "$PKI/mint.key" -subj "/CN=Minted CA $i/O=Minted" 2>/dev/null |
        openssl x509 -req -CA "$PKI/mint-ca$((i - 1)).pem" -CAkey "$PKI/mint.key" -set_serial "$i" -days 30 \
            -extfile "$PKI/mint-ca.ext" -extensions ext -out "$PKI/mint-ca$i.pem" 2>/dev/null || fail "mint $i"
done
printf '[ ext ]\nbasicConstraints = critical,CA:FALSE\nkeyUsage = critical,digitalSignature\nextendedKeyUsage = serverAuth\nsubjectAltName = DNS:mint.test, IP:127.0.0.1\ncrlDistributionPoints = URI:%s/mint.crl\n' \
    "$BASE_URL" >"$PKI/mint.ext"
_newkey ec "$PKI/mint-leaf.key"
openssl req -new -key "$PKI/mint-leaf.key" -subj "/CN=mint.test" 2>/dev/null |
    openssl x509 -req -CA "$PKI/mint-ca3.pem" -CAkey "$PKI/mint.key" -set_serial 77 -days 30 \
        -extfile "$PKI/mint.ext" -extensions ext -out "$PKI/mint-leaf.pem" 2>/dev/null || fail "mint leaf"
cat "$PKI/mint-ca3.pem" "$PKI/mint-ca2.pem" "$PKI/mint-ca1.pem" >"$PKI/mint-leaf.ca.pem"
srv_start mint mint-leaf
rm -rf "$STATE/hints"/*
ROOT=$PKI/sclient-root/cert.pem
t0=$(date +%s%N)
px --set learn_wait=$LW -- openssl s_client -connect "127.0.0.1:$(srv_port mint)" -CAfile "$ROOT" \
    -servername mint.test </dev/null >"$W/client.out" 2>&1
took=$(ms "$t0")
[ "$(waits "$W/client.out")" = 0 ] && [ "$(hints)" = 0 ] && [ "$took" -lt $((LW / 2)) ] \
    && grep -q 'self-signed certificate in certificate chain' "$W/client.out" \
    && case_ok "a peer's self-made chain of three CAs: no wait, no hint ($took ms)" \
    || { cat "$W/client.out"; case_fail made-up "$(waits "$W/client.out") waits, $(hints) hints, $took ms"; }
finish
