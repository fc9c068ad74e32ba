#!/usr/bin/env bash
# Redirects to non-public addresses, direct and through proxies.  A
# configured URL may name a loopback host, but a redirect from it may reach
# only public addresses or that same host again: 127.0.0.1 redirecting to
# 127.0.0.2 is refused (no request reaches 127.0.0.2, the source says why,
# no CRL is published) unless allow_private_urls = yes; a redirect back to
# 127.0.0.1 is followed.  The rule holds whatever proxy variables say:
#   - update_with https_proxy alone (no no_proxy) a plain-http transfer goes
#     direct, and stays guarded;
#   - through an http_proxy (test/alterproxy.py --faithful) every hop is
#     checked before the proxy is asked: the redirect to 127.0.0.2 never
#     reaches the proxy; a redirect back to 127.0.0.1 goes through it;
#   - no_proxy naming the configured host: its first hop direct, the
#     redirect through a proxy refused before any request; NO_PROXY naming
#     both: direct, refused at the socket.
# The decision for public, private, link-local, multicast and NAT64 targets
# is unit-tested (test/unit/t_addr.c, t_guard.c); this test talks to
# loopback only.
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
trust=("anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem")

write_conf "url = $BASE_URL/redirect-to/$OTHER/int.crl" "${trust[@]}"
cc update >"$W/u1.out" 2>&1 && { cat "$W/u1.out"; fail "update followed a redirect to 127.0.0.2"; }
assert_grep 'refused: a redirect may reach only public addresses' "$W/u1.out"
[ "$(grep -c int.crl "$W/httpd2.log")" = 0 ] || fail "a request reached 127.0.0.2"
[ "$(requests_for /redirect-to/)" -ge 1 ] || fail "the configured URL was not fetched"
cc status >"$W/s1.out" 2>&1
assert_not_grep '^revoked [1-9]' "$W/s1.out"
case_ok "redirect 127.0.0.1 -> 127.0.0.2 refused"

write_conf "url = $BASE_URL/redirect/2/int.crl" "${trust[@]}"
assert_exit 0 cc update
case_ok "redirect back to the configured host followed"

# A plain forwarding proxy on 127.0.0.1 (loopback origins only), and a
# port where no proxy listens.
proxy_start --faithful
: >"$AP_LOG"
DEAD=http://127.0.0.1:$(closed_port)
none_at_other() {
    [ "$(grep -c int.crl "$HTTPD2_LOG")" = 0 ] || { cat "$HTTPD2_LOG" >&2; fail "$1: a request reached 127.0.0.2"; }
}
trust+=("retries = 0" "connect_timeout = 5" "timeout = 20")

# Through proxies.  1. https_proxy alone: plain http goes direct, guarded
write_conf "url = $BASE_URL/redirect-to/$OTHER/int.crl" "${trust[@]}"
update_with https_proxy="$DEAD" && { cat "$W/u.out"; fail "https_proxy: the redirect to 127.0.0.2 was followed"; }
assert_grep 'refused: a redirect may reach only public addresses' "$W/u.out"
none_at_other "https_proxy"
[ "$(requests_for /redirect-to/)" -ge 1 ] || fail "https_proxy: the configured URL was not fetched direct"
case_ok "https_proxy only: http direct, its redirect to 127.0.0.2 refused"

# 2. through http_proxy: every hop checked before the proxy is asked
update_with http_proxy="$PROXY" && { cat "$W/u.out"; fail "http_proxy: the redirect to 127.0.0.2 was followed"; }
assert_grep 'refused: a redirect may reach only public addresses' "$W/u.out"
none_at_other "http_proxy"
grep -q "^GET $BASE_URL/redirect-to/$OTHER/int.crl 302" "$AP_LOG" \
    || { cat "$AP_LOG" >&2; fail "the configured URL did not go through the proxy"; }
assert_not_grep "http://$OTHER" "$AP_LOG"
case_ok "http_proxy: the redirect to 127.0.0.2 refused before the proxy is asked"

rm -rf "$STATE"
write_conf "url = $BASE_URL/redirect/2/int.crl" "${trust[@]}"
update_with http_proxy="$PROXY" || { cat "$W/u.out"; fail "http_proxy: a redirect back to the configured host failed"; }
grep -q "^GET $BASE_URL/int.crl 200" "$AP_LOG" || { cat "$AP_LOG" >&2; fail "the last hop did not go through the proxy"; }
check_is revoked 1 "$PKI/rev1.pem"
case_ok "http_proxy: redirects back to the configured host followed through the proxy"

# 3. no_proxy names the configured host only: the redirect is still checked
rm -rf "$STATE"
write_conf "url = $BASE_URL/redirect-to/$OTHER/int.crl" "${trust[@]}"
update_with http_proxy="$DEAD" no_proxy="localhost, .example, 127.0.0.1" \
    && { cat "$W/u.out"; fail "no_proxy: the redirect to 127.0.0.2 was followed"; }
assert_grep 'refused: a redirect may reach only public addresses' "$W/u.out"
none_at_other "no_proxy"
case_ok "no_proxy: first hop direct, the redirect through the proxy refused"

# ... and with the address of 127.0.0.2 in no_proxy, direct and refused.
update_with http_proxy="$DEAD" NO_PROXY="127.0.0.0/8" \
    && { cat "$W/u.out"; fail "NO_PROXY: the redirect to 127.0.0.2 was followed"; }
assert_grep 'refused: a redirect may reach only public addresses' "$W/u.out"
none_at_other "NO_PROXY"
case_ok "NO_PROXY 127.0.0.0/8: direct, the redirect refused at the socket"

# and with allow_private_urls = yes, direct
write_conf "url = $BASE_URL/redirect-to/$OTHER/int.crl" "${trust[@]}" "allow_private_urls = yes"
pki_gencrl int "$W/www2/int.crl"     # a newer CRL, so that it is published
assert_exit 0 cc update
[ "$(grep -c 'GET /int.crl 200' "$W/httpd2.log")" = 1 ] || fail "127.0.0.2 did not serve the CRL"
case_ok "allow_private_urls = yes follows it"
finish
