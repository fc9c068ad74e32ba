#!/usr/bin/env bash
# crlcache enroll: from certificate files and from a TLS server's chain
# (HOST:PORT, a real openssl s_server), with the proof hints get; the next
# update fetches the CRLs of the proven issuers, nothing else.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
httpd_start
pki_root root "/CN=Enroll Root/O=crlcache tests"
pki_ca intA root "/CN=Enroll CA A/O=crlcache tests"
pki_ca intB root "/CN=Enroll CA B/O=crlcache tests"
prov_leaf a1 intA a1.test cdp="$BASE_URL/intA.crl"
prov_leaf a2 intA a2.test cdp="$BASE_URL/intA.crl"
prov_leaf b1 intB b1.test cdp="$BASE_URL/intB.crl"
prov_leaf b2 intB b2.test cdp="$BASE_URL/intB.crl"
pki_revoke intA "$PKI/a2.pem"
pki_revoke intB "$PKI/b1.pem"
pki_gencrl intA "$W/intA.crl"; serve "$W/intA.crl" intA.crl
pki_gencrl intB "$W/intB.crl"; serve "$W/intB.crl" intB.crl
pki_root evil "/CN=Enroll CA A/O=crlcache tests"
prov_leaf x1 evil x1.test cdp="$BASE_URL/evil.crl"
write_conf "anchor = $PKI/root/cert.pem" "allow_private_urls = yes"

# from files: the leaf and its issuer in one file; the impostor refused
cat "$PKI/a1.pem" "$PKI/intA/cert.pem" >"$W/a1-chain.pem"
assert_exit 0 cc enroll "$W/a1-chain.pem"
assert_grep 'enrolled issuer .*Enroll CA A' "$W/last.out"
assert_exit 1 cc enroll "$PKI/x1.pem"
assert_grep 'refused .*x1.test: ' "$W/last.out"
assert_exit 0 cc -v update
assert_grep 'update: 1 sources, 1 updated' "$W/last.err"
[ "$(requests_for /evil.crl)" = 0 ] || fail "the impostor's CRL was fetched"
check_is revoked 1 "$PKI/a2.pem"
note "enroll FILE: issuer proven, its CRL fetched; impostor refused"

# from a server: its chain is taken over TLS, the issuer proven
srv_start b b2
assert_exit 0 cc enroll "127.0.0.1:$(srv_port b)"
assert_grep 'enrolled issuer .*Enroll CA B' "$W/last.out"
assert_exit 0 cc -v update
check_is revoked 1 "$PKI/b1.pem"
check_is good 0 "$PKI/b2.pem"
note "enroll HOST:PORT: the server's issuer proven and covered"

# A word without a port is a file meant: why it cannot be read.
assert_exit 4 cc enroll not-a-file-nor-hostport
assert_grep 'not-a-file-nor-hostport: No such file or directory' "$W/last.err"
assert_exit 4 cc enroll "127.0.0.1:$(closed_port)"
assert_grep 'cannot connect' "$W/last.err"
note "bad arguments refused"
