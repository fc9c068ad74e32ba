#!/usr/bin/env bash
# Redirects to non-public addresses.  A configured URL may name
# a loopback host, but a redirect from it may reach only public addresses or
# that same host again: 127.0.0.1 redirecting to 127.0.0.2 is refused (no
# request reaches 127.0.0.2, the source says why, no CRL is published)
# unless allow_private_urls = yes; a redirect back to 127.0.0.1 is followed.
# The decision for public, private, link-local and multicast targets is
# unit-tested (test/unit/t_addr.c); this test talks to loopback only.
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
std_pki
pki_revoke int "$PKI/rev1.pem"
pki_gencrl int "$W/int.crl"

# A second server on 127.0.0.2 holding the CRL.
mkdir -p "$W/www2"
cp "$W/int.crl" "$W/www2/int.crl"
serve "$W/int.crl" int.crl
python3 "$TESTDIR/httpd.py" --bind 127.0.0.2 --root "$W/www2" --port-file "$W/httpd2.port" \
    --log "$W/httpd2.log" 2>"$W/httpd2.err" &
bg_register $!
for _ in $(seq 1 100); do [ -s "$W/httpd2.port" ] && break; sleep 0.05; done
[ -s "$W/httpd2.port" ] || { cat "$W/httpd2.err"; skip "cannot listen on 127.0.0.2"; }
OTHER=127.0.0.2:$(cat "$W/httpd2.port")
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

write_conf "url = $BASE_URL/redirect-to/$OTHER/int.crl" "${trust[@]}" "allow_private_urls = yes"
pki_gencrl int "$W/www2/int.crl"     # a newer CRL, so that it is published
assert_exit 0 cc update
[ "$(grep -c 'GET /int.crl 200' "$W/httpd2.log")" = 1 ] || fail "127.0.0.2 did not serve the CRL"
case_ok "allow_private_urls = yes follows it"
finish
