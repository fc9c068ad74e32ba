#!/usr/bin/env bash
# crlcache reset --issuer CERT.pem [--scope URI]: one accepted CRL locks its
# scope through the rollback rule; reset forgets exactly that scope (its CRL
# record and entries; other scopes untouched), says so on stderr, publishes,
# and afterwards a CRL with a lower number is accepted.  After a reset an
# unchanged CRL on the server is fetched and ingested again, not answered 304.
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
std_pki
pki_ca other root "/CN=Other Int/O=crlcache tests"
pki_leaf o1 other "/CN=o1.test"
pki_revoke int "$PKI/rev1.pem"
pki_revoke other "$PKI/o1.pem"
pki_gencrl int "$W/int10.crl" number=10
pki_gencrl other "$W/other.crl"
serve "$W/int10.crl" int.crl
serve "$W/other.crl" other.crl
write_conf "url = $BASE_URL/int.crl" "url = $BASE_URL/other.crl" \
    "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem" \
    "untrusted = $PKI/other/cert.pem"
assert_exit 0 cc update
check_is revoked 1 "$PKI/rev1.pem"
check_is revoked 1 "$PKI/o1.pem"

# The lock: number 5 after number 10 is a rollback.
pki_revoke int "$PKI/rev2.pem"
sleep 1
pki_gencrl int "$W/int05.crl" number=05
serve "$W/int05.crl" int.crl
assert_exit 1 cc update
assert_grep 'rollback' "$W/last.err"
check_is good 0 "$PKI/rev2.pem"

# A scope that holds nothing: refused, nothing published.
g=$(generation)
assert_exit 1 cc reset --issuer "$PKI/int/cert.pem" --scope "$BASE_URL/nope.crl"
assert_grep 'reset: no CRL held for issuer .*Test Int.*scope http' "$W/last.err"
[ "$(generation)" = "$g" ] || fail "a reset of an empty scope published"
assert_exit 4 cc reset "$PKI/int/cert.pem"
# Like update and import, reset does not run as root unasked.
if [ "$(id -u)" = 0 ] && ! getent passwd crlcache >/dev/null; then
    assert_exit 4 env -u CRLCACHE_ALLOW_ROOT "$CRLCACHE" --state-dir "$STATE" -c "$CONF" \
        reset --issuer "$PKI/int/cert.pem"
    assert_grep 'refusing to run as root' "$W/last.err"
    check_is revoked 1 "$PKI/rev1.pem"
fi

# Reset the intermediate's scope: its entries go, the other issuer's stay.
assert_exit 0 cc reset --issuer "$PKI/int/cert.pem"
assert_grep '^crlcache: reset: issuer .*CN=Test Int.*, scope all: removed CRL number 10 .*1 entries.*published generation' "$W/last.err"
sed 's/^/    reset stderr: /' "$W/last.err"
[ "$(generation)" -gt "$g" ] || fail "reset did not publish"
check_is unknown 2 "$PKI/rev1.pem"
check_is revoked 1 "$PKI/o1.pem"
cc status >"$W/status.out" 2>&1
grep -q 'Other Int\|other.crl' "$W/status.out" || { cat "$W/status.out"; fail "other scope gone from status"; }

# The lower number is now accepted.
assert_exit 0 cc update
check_is revoked 1 "$PKI/rev1.pem"
check_is revoked 1 "$PKI/rev2.pem"

# Reset again: the unchanged CRL on the server is fetched in full again.
assert_exit 0 cc reset --issuer "$PKI/int/cert.pem"
check_is unknown 2 "$PKI/rev2.pem"
assert_exit 0 cc update
check_is revoked 1 "$PKI/rev2.pem"
note "ok"
