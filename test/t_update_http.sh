#!/usr/bin/env bash
# update over HTTP: fetch, verify, ingest; a new revocation appears after the
# CRL is regenerated; `ca =` sources fetch the CA certificate's own CDP.
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
std_pki cdp   # int has CDP $BASE_URL/root.crl
pki_revoke int "$PKI/rev1.pem" reason=keyCompromise
pki_gencrl int "$W/int.crl"
serve "$W/int.crl" int.crl
pki_gencrl root "$W/root.crl"
serve "$W/root.crl" root.crl

write_conf "url = $BASE_URL/int.crl" "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem" \
    "timeout = 10" "connect_timeout = 5"

# 1. first update
assert_exit 0 cc update
assert_grep 'crlcache: update: 2 sources, 2 updated, 0 unchanged, 0 failed; generation [0-9]+' "$W/last.err"
[ -f "$STATE/index.mdb" ] || fail "no index.mdb after update"
assert_grep '^GET /int.crl 200' "$HTTPD_LOG"
# CA certificates named in the config (`untrusted` too) enrol their CDPs
assert_grep '^GET /root.crl 200' "$HTTPD_LOG"
check_is revoked 1 "$PKI/rev1.pem"
check_is good 0 "$PKI/good1.pem"
check_is good 0 "$PKI/rev2.pem"
g1=$(generation); [ -n "$g1" ] || fail "status shows no generation"

# 2. revoke another, regenerate, update
pki_revoke int "$PKI/rev2.pem" reason=superseded
pki_gencrl int "$W/int.crl"
serve "$W/int.crl" int.crl
assert_exit 0 cc update
assert_grep '2 sources, 1 updated, 1 unchanged, 0 failed' "$W/last.err"
check_is revoked 1 "$PKI/rev2.pem"
grep -Eiq 'superseded' "$W/check.out" || { cat "$W/check.out" >&2; fail "reason superseded not shown"; }
check_is revoked 1 "$PKI/rev1.pem"
check_is good 0 "$PKI/good1.pem"
g2=$(generation)
[ -n "$g2" ] && [ "$g2" -gt "$g1" ] || fail "generation did not increase ($g1 -> $g2)"

# 3. -q: no summary when all is well
assert_exit 0 cc -q update
[ ! -s "$W/last.err" ] || { cat "$W/last.err" >&2; fail "-q update printed something on success"; }

# 4. `ca = int.pem` source: the int certificate's CDP (root.crl) is fetched, and int
#    is an issuer candidate (no `untrusted` line).  root.crl revokes nothing yet.
STATE=$W/state-ca
write_conf "url = $BASE_URL/int.crl" "ca = $PKI/int/cert.pem" "anchor = $PKI/root/cert.pem"
assert_exit 0 cc update
assert_grep '2 sources, 2 updated, 0 unchanged, 0 failed' "$W/last.err"
assert_grep '^GET /root.crl 200' "$HTTPD_LOG"
check_is good 0 --chain "$PKI/int/cert.pem" "$PKI/good1.pem"
check_is revoked 1 "$PKI/rev2.pem"

# 5. redirects are followed (within max_redirects)
STATE=$W/state-redir
write_conf "url = $BASE_URL/redirect/2/int.crl" "anchor = $PKI/root/cert.pem" \
    "untrusted = $PKI/int/cert.pem" "max_redirects = 5"
assert_exit 0 cc update
check_is revoked 1 "$PKI/rev1.pem"
STATE=$W/state-redir2
write_conf "url = $BASE_URL/redirect/4/int.crl" "anchor = $PKI/root/cert.pem" \
    "untrusted = $PKI/int/cert.pem" "max_redirects = 2" "timeout = 10"
assert_exit 1 cc update
assert_grep "crlcache: $BASE_URL/redirect/4/int.crl: " "$W/last.err"

# 6. a non-anchored update is refused: no anchor configured and our root is not in
#    the system store -> the source fails
STATE=$W/state-noanchor
write_conf "url = $BASE_URL/int.crl" "untrusted = $PKI/int/cert.pem"
assert_exit 1 cc update
assert_grep "crlcache: $BASE_URL/int.crl: " "$W/last.err"
finish
