#!/usr/bin/env bash
# The address guard holds through proxies, on every hop.  A configured URL
# on 127.0.0.1 redirects to 127.0.0.2 (not its own host: refused unless
# allow_private_urls = yes):
#   1. with https_proxy alone (and no no_proxy) the plain-http transfer goes
#      direct, and stays guarded: refused, 127.0.0.2 sees no request;
#   2. through an http_proxy (test/alterproxy.py --faithful) the redirect is
#      checked before it is asked of the proxy: refused, neither the proxy
#      nor 127.0.0.2 sees it; a redirect back to 127.0.0.1 goes through the
#      proxy and the CRL is published;
#   3. no_proxy naming the configured host: its first hop goes direct, the
#      redirect (not in no_proxy) would go through a proxy: refused all the
#      same, before any request;
#   4. a hint's caIssuers URL (learned) on 127.0.0.1 through the
#      proxy: refused, the proxy sees nothing;
#   5. nat64_prefix = is read (a /96) or refused.
# The per-address decisions (NAT64, mapped forms) are unit-tested
# (test/unit/t_addr.c); this test talks to loopback only.
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
std_pki
pki_revoke int "$PKI/rev1.pem"
pki_gencrl int "$W/int.crl"
serve "$W/int.crl" int.crl

# A second server on 127.0.0.2 holding the CRL.
httpd2_start
cp "$W/int.crl" "$W/www2/int.crl"
: >"$W/httpd2.log"

# A plain forwarding proxy on 127.0.0.1 (loopback origins only).
proxy_start --faithful
: >"$AP_LOG"
DEAD=http://127.0.0.1:$(closed_port)

trust=("anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem" "retries = 0"
       "connect_timeout = 5" "timeout = 20")
# with ENV...: crlcache update with exactly these proxy variables
with() {
    env -u http_proxy -u https_proxy -u HTTPS_PROXY -u all_proxy -u ALL_PROXY \
        -u no_proxy -u NO_PROXY "$@" "$CRLCACHE" --state-dir "$STATE" -c "$CONF" -v update \
        >"$W/u.out" 2>&1
}
none_at_other() {
    [ "$(grep -c int.crl "$W/httpd2.log")" = 0 ] || { cat "$W/httpd2.log" >&2; fail "$1: a request reached 127.0.0.2"; }
}

# 1. https_proxy alone: plain http goes direct, guarded
write_conf "url = $BASE_URL/redirect-to/$OTHER/int.crl" "${trust[@]}"
with https_proxy="$DEAD" && { cat "$W/u.out"; fail "https_proxy: the redirect to 127.0.0.2 was followed"; }
assert_grep 'refused: a redirect may reach only public addresses' "$W/u.out"
none_at_other "https_proxy"
[ "$(requests_for /redirect-to/)" -ge 1 ] || fail "https_proxy: the configured URL was not fetched direct"
case_ok "https_proxy only: http direct, its redirect to 127.0.0.2 refused"

# 2. through http_proxy: every hop checked before the proxy is asked
with http_proxy="$PROXY" && { cat "$W/u.out"; fail "http_proxy: the redirect to 127.0.0.2 was followed"; }
assert_grep 'refused: a redirect may reach only public addresses' "$W/u.out"
none_at_other "http_proxy"
grep -q "^GET $BASE_URL/redirect-to/$OTHER/int.crl 302" "$AP_LOG" \
    || { cat "$AP_LOG" >&2; fail "the configured URL did not go through the proxy"; }
assert_not_grep "http://$OTHER" "$AP_LOG"
case_ok "http_proxy: the redirect to 127.0.0.2 refused before the proxy is asked"

write_conf "url = $BASE_URL/redirect/2/int.crl" "${trust[@]}"
with http_proxy="$PROXY" || { cat "$W/u.out"; fail "http_proxy: a redirect back to the configured host failed"; }
grep -q "^GET $BASE_URL/int.crl 200" "$AP_LOG" || { cat "$AP_LOG" >&2; fail "the last hop did not go through the proxy"; }
check_is revoked 1 "$PKI/rev1.pem"
case_ok "http_proxy: redirects back to the configured host followed through the proxy"

# 3. no_proxy names the configured host only: the redirect is still checked
rm -rf "$STATE"
write_conf "url = $BASE_URL/redirect-to/$OTHER/int.crl" "${trust[@]}"
with http_proxy="$DEAD" no_proxy="localhost, .example, 127.0.0.1" \
    && { cat "$W/u.out"; fail "no_proxy: the redirect to 127.0.0.2 was followed"; }
assert_grep 'refused: a redirect may reach only public addresses' "$W/u.out"
none_at_other "no_proxy"
case_ok "no_proxy: first hop direct, the redirect through the proxy refused"

# ... and with the address of 127.0.0.2 in no_proxy, direct and refused.
with http_proxy="$DEAD" NO_PROXY="127.0.0.0/8" \
    && { cat "$W/u.out"; fail "NO_PROXY: the redirect to 127.0.0.2 was followed"; }
assert_grep 'refused: a redirect may reach only public addresses' "$W/u.out"
none_at_other "NO_PROXY"
case_ok "NO_PROXY 127.0.0.0/8: direct, the redirect refused at the socket"

# 4. learned URLs (a hint's CDP and caIssuers) through the proxy
pki_ca hca root "/CN=Guard Hint CA/O=crlcache tests"
pki_leaf h1 hca "/CN=h1.test" cdp="$BASE_URL/hca.crl" aia="$BASE_URL/hca.der"
openssl x509 -in "$PKI/hca/cert.pem" -outform DER -out "$W/hca.der"
serve "$W/hca.der" hca.der
rm -rf "$STATE"
write_conf "anchor = $PKI/root/cert.pem" "retries = 0"
hint "$PKI/h1.pem" >/dev/null
: >"$AP_LOG"
with http_proxy="$PROXY"
assert_grep 'hca.der: caIssuers: refused: a learned URL may reach only public addresses' "$W/u.out"
[ -s "$AP_LOG" ] && { cat "$AP_LOG" >&2; fail "the proxy was asked for a learned URL on 127.0.0.1"; }
[ "$(requests_for /hca.der)" = 0 ] || fail "the caIssuers URL was fetched"
case_ok "a hint's caIssuers URL on 127.0.0.1 through the proxy: refused, nothing asked"

# 5. nat64_prefix = : a /96 is read, anything else refused with the reason
write_conf "anchor = $PKI/root/cert.pem" "nat64_prefix = 2001:db8:64::/96"
assert_exit 0 cc status
for bad in 2001:db8:64::/64 2001:db8:64::1 10.0.0.0; do
    write_conf "anchor = $PKI/root/cert.pem" "nat64_prefix = $bad"
    assert_exit nonzero cc status
    assert_grep 'nat64_prefix: expected an IPv6 /96 prefix' "$W/last.err"
done
case_ok "nat64_prefix: a /96 accepted, other values refused"

finish
