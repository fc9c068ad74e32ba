#!/usr/bin/env bash
# make demo: crlcache end to end on a demo PKI, nothing installed.
#   1. a root CA, an intermediate and two TLS server certificates, one of
#      them revoked, made with the openssl CLI;
#   2. their CRLs served over HTTP on 127.0.0.1;
#   3. `crlcache update` fetches, verifies and publishes them into a
#      temporary state directory; `crlcache check` finds the revoked
#      certificate and passes the good one;
#   4. the headline: a stock `curl` talks to an `openssl s_server` presenting
#      each certificate.  Plain curl accepts both; the same curl under
#      `crlcache exec` (OPENSSL_CONF with the provider, for this command
#      only) refuses the revoked server and fetches from the good one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
TEST_NAME=demo

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*" | sed "s#$W#\$DEMO#g"; "$@"; }

say "1. demo PKI (openssl CLI) and an HTTP server for its CRLs on 127.0.0.1"
httpd_start
pki_root root "/CN=crlcache Demo Root/O=crlcache demo"
pki_ca int root "/CN=crlcache Demo Issuing CA/O=crlcache demo" cdp="$BASE_URL/root.crl"
prov_leaf good int good.demo keytype=rsa cdp="$BASE_URL/int.crl"
prov_leaf revoked int revoked.demo keytype=ec cdp="$BASE_URL/int.crl"
pki_revoke int "$PKI/revoked.pem" reason=keyCompromise
pki_gencrl int "$W/int.crl"
pki_gencrl root "$W/root.crl"
serve "$W/int.crl" int.crl
serve "$W/root.crl" root.crl
ROOT=$PKI/root/cert.pem
echo "CRLs served at $BASE_URL/int.crl and $BASE_URL/root.crl"
write_conf "url = $BASE_URL/int.crl" "anchor = $ROOT" "untrusted = $PKI/int/cert.pem"
echo "config (\$DEMO/crlcache.conf):"; sed 's/^/    /' "$CONF"

say "2. crlcache update: fetch, verify, publish"
run "$CRLCACHE" --state-dir "$STATE" -c "$CONF" -v update || fail "update failed"
run "$CRLCACHE" --state-dir "$STATE" -c "$CONF" status

say "3. crlcache check"
run "$CRLCACHE" --state-dir "$STATE" check "$PKI/revoked.pem"; rc=$?
echo "exit $rc"; [ "$rc" -eq 1 ] || fail "revoked certificate not reported revoked"
run "$CRLCACHE" --state-dir "$STATE" check "$PKI/good.pem"; rc=$?
echo "exit $rc"; [ "$rc" -eq 0 ] || fail "good certificate not reported good"

say "4. a stock curl against openssl s_server, without and with crlcache"
srv_start good good
srv_start revoked revoked
for name in good revoked; do
	url=https://127.0.0.1:$(srv_port "$name")/
	echo; echo "-- server presenting $name.demo ($url)"
	echo "without crlcache (plain curl, no CRL checking):"
	run curl -sS -o /dev/null -w 'HTTP %{http_code}\n' --cacert "$ROOT" "$url"
	echo "with crlcache (same curl, provider on through OPENSSL_CONF):"
	run "$CRLCACHE" --state-dir "$STATE" exec -- \
	    curl -sS -o /dev/null -w 'HTTP %{http_code}\n' --cacert "$ROOT" "$url"
	rc=$?
	if [ "$name" = good ] && [ "$rc" -ne 0 ]; then fail "curl refused the good server"; fi
	if [ "$name" = revoked ] && [ "$rc" -eq 0 ]; then fail "curl accepted the revoked server"; fi
done

say "demo done: the revoked server was refused, the good one served"
