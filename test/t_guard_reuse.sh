#!/usr/bin/env bash
# The address guard holds on reused connections.  A connection kept alive
# for a configured URL on a loopback host must not serve what may not
# reach that host: transfers one at a time (parallel = 1), so that the
# second would reuse the first one's connection.
#   1. a configured URL on 127.0.0.1, then a learned one (a hint's CDP) on
#      the same host and port: the learned URL is refused, never asked;
#   2. a configured URL on 127.0.0.2, then another configured URL whose
#      redirect leads to 127.0.0.2 (not its own host): refused, never asked.
# Loopback only.
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
std_pki
pki_gencrl int "$W/int.crl"
serve "$W/int.crl" int.crl
pki_ca hca root "/CN=Reuse Hint CA/O=crlcache tests"
pki_leaf h1 hca "/CN=h1.test" cdp="$BASE_URL/hca.crl"
pki_gencrl hca "$W/hca.crl"
serve "$W/hca.crl" hca.crl

# 1. configured, then learned, on one connection
write_conf "url = $BASE_URL/int.crl" "anchor = $PKI/root/cert.pem" \
    "untrusted = $PKI/int/cert.pem" "untrusted = $PKI/hca/cert.pem" \
    "parallel = 1" "retries = 0"
hint "$PKI/h1.pem" >/dev/null
cc -v update >"$W/u1.out" 2>&1
assert_grep "^GET /int.crl 200" "$HTTPD_LOG"
assert_grep 'hca.crl: refused: a learned URL may reach only public addresses' "$W/u1.out"
[ "$(requests_for /hca.crl)" = 0 ] || { cat "$HTTPD_LOG" >&2; fail "the learned URL was fetched over the configured URL's connection"; }
case_ok "a learned URL does not ride a configured URL's connection"

# 2. a configured private host, then a redirect to it from another source
httpd2_start
cp "$W/int.crl" "$W/www2/int.crl"
cp "$W/int.crl" "$W/www2/int2.crl"
rm -rf "$STATE"
# Sources are fetched in URL order: http://127.0.0.2 before http://localhost.
write_conf "url = http://$OTHER/int.crl" \
    "url = http://localhost:$HTTPD_PORT/redirect-to/$OTHER/int2.crl" \
    "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem" \
    "parallel = 1" "retries = 0"
cc -v update >"$W/u2.out" 2>&1
assert_grep "^GET /int.crl 200" "$W/httpd2.log"
[ "$(requests_for /redirect-to/)" -ge 1 ] || fail "the redirecting URL was not fetched"
assert_grep 'int2.crl: refused: a redirect may reach only public addresses' "$W/u2.out"
[ "$(grep -c int2.crl "$W/httpd2.log")" = 0 ] || { cat "$W/httpd2.log" >&2; fail "the redirect reached 127.0.0.2 over a reused connection"; }
case_ok "a redirect does not ride another configured URL's connection"
finish
