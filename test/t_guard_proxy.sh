#!/usr/bin/env bash
# Learned URLs through a proxy: a hint's caIssuers URL (any local user can
# leave a self-made certificate) on 127.0.0.1, update_with http_proxy set, is
# refused before the proxy is asked (the host is resolved and checked
# here; redirects through proxies are in t_redirect_private.sh).  And
# nat64_prefix = is read (a /96) or refused with the reason; what it does
# to addresses is unit-tested (test/unit/t_addr.c).  Loopback only.
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
pki_root root "/CN=Guard Root/O=crlcache tests"
proxy_start --faithful

pki_ca hca root "/CN=Guard Hint CA/O=crlcache tests"
pki_leaf h1 hca "/CN=h1.test" cdp="$BASE_URL/hca.crl" aia="$BASE_URL/hca.der"
openssl x509 -in "$PKI/hca/cert.pem" -outform DER -out "$W/hca.der"
serve "$W/hca.der" hca.der
rm -rf "$STATE"
write_conf "anchor = $PKI/root/cert.pem" "retries = 0"
hint "$PKI/h1.pem" >/dev/null
: >"$AP_LOG"
update_with http_proxy="$PROXY"
assert_grep 'hca.der: caIssuers: refused: a learned URL may reach only public addresses' "$W/u.out"
[ -s "$AP_LOG" ] && { cat "$AP_LOG" >&2; fail "the proxy was asked for a learned URL on 127.0.0.1"; }
[ "$(requests_for /hca.der)" = 0 ] || fail "the caIssuers URL was fetched"
case_ok "a hint's caIssuers URL on 127.0.0.1 through the proxy: refused, nothing asked"

# nat64_prefix = : a /96 is read, anything else refused with the reason
write_conf "anchor = $PKI/root/cert.pem" "nat64_prefix = 2001:db8:64::/96"
assert_exit 0 cc status
for bad in 2001:db8:64::/64 2001:db8:64::1 10.0.0.0; do
    write_conf "anchor = $PKI/root/cert.pem" "nat64_prefix = $bad"
    assert_exit nonzero cc status
    assert_grep 'nat64_prefix: expected an IPv6 /96 prefix' "$W/last.err"
done
case_ok "nat64_prefix: a /96 accepted, other values refused"

finish
