#!/usr/bin/env bash
# v1 CRLs (no version field, no extensions; RFC 5280 5.1.2.1) -- the
# decision of docs/how-it-works.md "What is checked before a CRL changes
# anything": a v1 CRL is accepted and ordered by thisUpdate alone (an
# older one is a rollback), but once the scope holds a numbered (v2) CRL an unnumbered one
# is refused and the data kept.
. "$(dirname "$0")/lib.sh"
offline_pki
write_conf "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem"
# v1_crl OUT [LASTUPDATE]: openssl ca writes v1 without -crlexts and
# without a crlnumber file.
v1_crl() {
    local conf
    conf=$(_ca_conf int)
    sed -i '/^crlnumber = /d' "$conf"
    openssl ca -batch -config "$conf" -gencrl ${2:+-crl_lastupdate "$2"} \
        -out "$W/v1.tmp.pem" 2>"$W/openssl.err" || { cat "$W/openssl.err" >&2; fail "v1 gencrl failed"; }
    openssl crl -in "$W/v1.tmp.pem" -outform der -out "$1"
    crl_text "$1" | grep -q 'Version 1' || fail "$1 is not a v1 CRL"
    crl_text "$1" | grep -q 'CRL extensions' && fail "$1 has extensions"
    return 0
}
imp() { cc import "$@"; }
# revoke without a reason: a reasonCode entry extension would make it v2
revoke_noreason() {
    openssl ca -batch -config "$(_ca_conf int)" -revoke "$1" 2>"$W/openssl.err" \
        || { cat "$W/openssl.err" >&2; fail "revoke $1 failed"; }
}

revoke_noreason "$PKI/rev1.pem"
v1_crl "$W/old.crl" "$(gt -3600)"
v1_crl "$W/a.crl"
assert_exit 0 imp "$W/a.crl"
check_is revoked 1 "$PKI/rev1.pem"
check_is good 0 "$PKI/rev2.pem"

sleep 1
revoke_noreason "$PKI/rev2.pem"
v1_crl "$W/b.crl"
assert_exit 0 imp "$W/b.crl"
check_is revoked 1 "$PKI/rev2.pem"

# Older by thisUpdate: a rollback.
assert_exit 1 imp "$W/old.crl"
assert_grep 'rejected: rollback: thisUpdate is older' "$W/last.err"
check_is revoked 1 "$PKI/rev2.pem"

# A numbered v2 CRL replaces the v1 one ...
sleep 1
cp "$PKI/int/index.txt" "$PKI/int/index-v2.txt"
pki_revoke int "$PKI/good1.pem" db="$PKI/int/index-v2.txt"
pki_gencrl int "$W/v2.crl" number=10 db="$PKI/int/index-v2.txt"
assert_exit 0 imp "$W/v2.crl"
check_is revoked 1 "$PKI/good1.pem"
# ... and a newer v1 CRL may not replace it (it lists rev1 and rev2 only:
# were it taken, good1 would turn good).
sleep 1
v1_crl "$W/c.crl"
g=$(generation)
assert_exit 1 imp "$W/c.crl"
sed 's/^/    import stderr: /' "$W/last.err"
assert_grep 'rejected: v1 CRL without cRLNumber where a numbered CRL is held \(RFC 5280 5\.2\.3' "$W/last.err"
check_is revoked 1 "$PKI/good1.pem"
[ "$(generation)" = "$g" ] || fail "generation changed though nothing was ingested"
note "ok"
