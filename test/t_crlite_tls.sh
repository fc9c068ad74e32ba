#!/usr/bin/env bash
# CRLite end to end on loopback: a test PKI whose leaves carry embedded
# SCTs (an SCT list extension written with the openssl CLI's DER: syntax),
# a clubcard filter built for them (test/clubcard_build.py via
# test/crlite_pki.py) covering their log, installed with Mozilla's real
# delta as a set per include/crlcache/crlite.h (test/crlite_set.py).  The
# index holds the root's CRL only (none of the leaves' issuer) and the
# learning marker is live, so that without CRLite the first handshake
# with a revoked server would leave a hint and wait.  With it:
#   - s_client -verify_return_error, curl and python refuse the revoked
#     server at the FIRST handshake, saying CRLite, with no wait, no hint
#     left (the spool stays empty) and no request for the leaves' CRL;
#   - a good one is accepted at once, as above;
#   - a leaf whose SCT is past the filter's coverage (which the filter
#     would call good) and a leaf without SCTs, both revoked by their
#     CRL, go the CRL path as before: a hint, a wait, the fetcher learns
#     their CA, and the handshake is refused from the CRL;
#   - a process that read an issuer's record goes on answering when the
#     set's lookup file is truncated and then rewritten under it (read
#     into private memory: a map would fault); a new process refuses
#     that set (said once) and falls back to the CRLs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
httpd_start
HINTS_POLL=0.02
LOG_A=$(printf 'a1%.0s' $(seq 32)); LOG_B=$(printf 'b2%.0s' $(seq 32))
NOW_MS=$(( $(now_epoch) * 1000 )); DAY_MS=86400000
LOW=$(( NOW_MS - DAY_MS )); HIGH=$(( NOW_MS + DAY_MS ))

pki_root root "/CN=CRLite Root/O=crlcache tests"
pki_gencrl root "$W/root.crl"
serve "$W/root.crl" root.crl
ROOT=$PKI/root/cert.pem
pki_ca int root "/CN=CRLite Int/O=crlcache tests" cdp="$BASE_URL/root.crl" keytype=rsa
pki_ca int2 root "/CN=CRLite Int 2/O=crlcache tests" cdp="$BASE_URL/root.crl" keytype=ec
# sct_leaf NAME CA SCTS: prov_leaf reissued with an SCT list (LOG:MS,...)
sct_leaf() {
    prov_leaf "$1" "$2" "$1.test" cdp="$BASE_URL/$2.crl"
    "$PY" "$TESTDIR/crlite_pki.py" sctext "$3" >>"$PKI/$1.ext" || fail "sctext"
    _issue "$2" "$PKI/$1.csr" "$PKI/$1.pem" "$PKI/$1.ext"
    openssl x509 -in "$PKI/$1.pem" -noout -text | grep -q 'CT Precertificate SCTs' \
        || fail "$1: no SCT list extension"
}
sct_leaf rev int "$LOG_A:$NOW_MS,$LOG_B:$NOW_MS"
sct_leaf good int "$LOG_A:$NOW_MS"
sct_leaf late int "$LOG_A:$(( HIGH + 1000 ))"     # past the coverage
prov_leaf nosct int2 nosct.test cdp="$BASE_URL/int2.crl"
for l in rev late; do pki_revoke int "$PKI/$l.pem" reason=keyCompromise; done
pki_revoke int2 "$PKI/nosct.pem" reason=keyCompromise
pki_gencrl int "$W/int.crl"; serve "$W/int.crl" int.crl
pki_gencrl int2 "$W/int2.crl"; serve "$W/int2.crl" int2.crl
# The filter: log A covered; rev revoked, good and late (revoked by its
# CRL) not: only the coverage keeps late from being called good.
"$PY" "$TESTDIR/crlite_pki.py" filter "$W/test.filter" 4 "$LOG_A:$LOW:$HIGH" \
    "$PKI/int/cert.pem" "$PKI/rev.pem=revoked" "$PKI/good.pem=good" "$PKI/late.pem=good" \
    || fail "filter build"

write_conf "anchor = $ROOT" "untrusted = $PKI/int/cert.pem" "untrusted = $PKI/int2/cert.pem" \
    "allow_private_urls = yes" "url = $BASE_URL/root.crl"
assert_exit 0 cc update
assert_exit 0 cc update --hints     # the learning marker, as the watcher leaves it
[ -f "$STATE/learning" ] || fail "no learning marker"
"$PY" "$TESTDIR/crlite_set.py" "$STATE" "$W/test.filter" "$DATA/crlite/20260624-1-default.filter.delta" \
    || fail "crlite_set.py"
spool_empty() { [ -z "$(ls -A "$STATE/hints" 2>/dev/null)" ]; }
waited() { grep -c 'waited [0-9]* ms for crlcache to learn' "$W/client.out" || :; }
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# 1. No watcher yet: a hint would wait the whole learn_wait, unanswered.
srv_start rev rev
srv_start good good
for client in sclient curl python; do
    t0=$(date +%s%N)
    "cl_$client" "$(srv_port rev)" 1.3 --set learn_wait=3000
    took=$(ms "$t0")
    [ "$CLIENT_RC" != 0 ] && grep -q 'certificate is revoked (CRLite, refused)' "$W/client.out" \
        && [ "$(waited)" = 0 ] && [ "$took" -lt 2500 ] && spool_empty && [ "$(requests_for int.crl)" = 0 ] \
        && case_ok "$client: the revoked server refused at the first handshake from CRLite ($took ms, no hint, no wait, no CRL fetched)" \
        || { cat "$W/client.out"; ls -la "$STATE/hints"; case_fail "rev-$client" "exit $CLIENT_RC, $took ms"; }
done
for client in sclient curl python; do
    t0=$(date +%s%N)
    "cl_$client" "$(srv_port good)" 1.3 --set learn_wait=3000 --set on_unknown=deny
    took=$(ms "$t0")
    [ "$CLIENT_RC" = 0 ] && [ "$(waited)" = 0 ] && [ "$took" -lt 2500 ] && spool_empty \
        && [ "$(requests_for int.crl)" = 0 ] && ! grep -q 'unknown' "$W/client.out" \
        && case_ok "$client: the good server accepted at once from CRLite ($took ms, on_unknown = deny, no hint)" \
        || { cat "$W/client.out"; case_fail "good-$client" "exit $CLIENT_RC, $took ms"; }
done
check_is 'good \(CRLite, filter' 0 --chain "$PKI/int/cert.pem" "$PKI/good.pem"
check_is 'revoked \(CRLite, filter' 1 --chain "$PKI/int/cert.pem" "$PKI/rev.pem"
case_ok "crlcache check answers from the filter"

# 2. A running process keeps the issuer's record it read: truncated,
#    then rewritten, the lookup file changes nothing in it (nor crashes it).
lookup_abused_under_loop "$(echo "$STATE"/crlite/*.lookup)" "$(srv_port good)" --set on_unknown=deny \
    && case_ok "a running process goes on answering good ($LOOP_OK handshakes) while the lookup file is truncated and rewritten" \
    || { cat "$W/loop.out" "$W/loop.err"; case_fail running "exit $LOOP_RC, $LOOP_OK ok"; }
# A new process: that set is refused, said once, and the CRLs answer.
cl_sclient "$(srv_port good)" 1.3 --set hints=off --set on_unknown=deny
[ "$CLIENT_RC" != 0 ] && [ "$(grep -c 'CRLite data in .* not used' "$W/client.out")" = 1 ] \
    && grep -q 'revocation status unknown (refused)' "$W/client.out" \
    && case_ok "a lookup file rewritten in place: refused ($(grep -o 'not used: [^;]*' "$W/client.out")), CRLs decide" \
    || { cat "$W/client.out"; case_fail rewritten "exit $CLIENT_RC"; }
"$PY" "$TESTDIR/crlite_set.py" "$STATE" "$W/test.filter" "$DATA/crlite/20260624-1-default.filter.delta"

# 3. The watcher: outside the coverage and without SCTs, the CRL path.
hints_watch_start
sleep 0.3
srv_start late late
cl_sclient "$(srv_port late)" 1.3 --set learn_wait=6000
[ "$CLIENT_RC" != 0 ] && [ "$(waited)" = 1 ] && grep -q 'certificate is revoked (refused)' "$W/client.out" \
    && ! grep -q 'revoked (CRLite' "$W/client.out" && [ "$(requests_for int.crl)" -ge 1 ] \
    && case_ok "an SCT past the coverage: hinted, waited, refused from the CRL" \
    || { cat "$W/client.out" "$W/fast.log"; case_fail late "exit $CLIENT_RC"; }
sleep "$HINTS_PAUSE"; sleep 0.5
srv_start nosct nosct
cl_curl "$(srv_port nosct)" 1.3 --set learn_wait=6000
[ "$CLIENT_RC" != 0 ] && [ "$(waited)" = 1 ] && grep -q 'certificate is revoked (refused)' "$W/client.out" \
    && [ "$(requests_for int2.crl)" -ge 1 ] \
    && case_ok "no SCT: hinted, waited, refused from the CRL" \
    || { cat "$W/client.out" "$W/fast.log"; case_fail nosct "exit $CLIENT_RC"; }
hints_watch_stop
finish
