#!/usr/bin/env bash
# One issuer publishes a complete CRL beside partitioned
# ones, and both list the same revoked serials.  Updating a partition to a
# CRL that no longer lists a serial, or a partition's delta with
# removeFromCRL, changes that partition only: the complete CRL still held
# lists the serial, so the certificate stays revoked.
. "$(dirname "$0")/lib.sh"
need_crlcache
BASE_URL=http://127.0.0.1:9
P1=$BASE_URL/p1.crl P2=$BASE_URL/p2.crl
pki_root root "/CN=Test Root"
pki_ca int root "/CN=Shared Int"
pki_leaf x int "/CN=x.test" cdp="$P1"
pki_leaf y int "/CN=y.test" cdp="$P2"
pki_revoke int "$PKI/x.pem" reason=keyCompromise
pki_revoke int "$PKI/y.pem" reason=certificateHold
# each partition lists its own: p1 x, p2 y
: >"$W/p1.txt"; : >"$W/p2.txt"
pki_revoke int "$PKI/x.pem" reason=keyCompromise db="$W/p1.txt"
pki_revoke int "$PKI/y.pem" reason=certificateHold db="$W/p2.txt"
# p2's delta takes y off hold (removeFromCRL); the complete CRL still has it
: >"$W/unhold.txt"
pki_revoke int "$PKI/y.pem" reason=removeFromCRL db="$W/unhold.txt"
: >"$W/empty.txt"
pki_gencrl int "$W/full.crl" number=30
pki_gencrl int "$W/p1.crl" db="$W/p1.txt" idp="$P1" number=10
pki_gencrl int "$W/p1-empty.crl" db="$W/empty.txt" idp="$P1" number=11
pki_gencrl int "$W/p2.crl" db="$W/p2.txt" idp="$P2" number=20
pki_gencrl int "$W/p2-delta.crl" db="$W/unhold.txt" idp="$P2" number=21 delta=20
crl_text "$W/p2-delta.crl" | grep -q "Remove From CRL" || fail "delta does not remove y"
write_conf "# empty"
imp() {
    cc import --anchor "$PKI/root/cert.pem" --untrusted "$PKI/int/cert.pem" "$@" \
        >"$W/o" 2>"$W/e" || { cat "$W/e" >&2; fail "import $* refused"; }
}
imp "$W/full.crl" "$W/p1.crl" "$W/p2.crl"
check_is revoked 1 "$PKI/x.pem"
check_is revoked 1 "$PKI/y.pem"

# p1 updated to a CRL without x: the complete CRL still lists x
imp "$W/p1-empty.crl"
check_is_soft revoked 1 "$PKI/x.pem" && case_ok partition-update \
    || case_fail partition-update "x no longer revoked after p1's update"
grep -q 'keyCompromise' "$W/check.out" && case_ok partition-update-reason \
    || case_fail partition-update-reason "x's reason lost"

# p2's delta removes y from p2: the complete CRL still holds it
imp "$W/p2-delta.crl"
check_is_soft revoked 1 "$PKI/y.pem" && case_ok delta-remove \
    || case_fail delta-remove "y no longer revoked after p2's removeFromCRL"
grep -q 'certificateHold' "$W/check.out" && case_ok delta-remove-reason \
    || case_fail delta-remove-reason "y's reason lost"

# and a complete CRL that drops both: now nothing lists them
pki_gencrl int "$W/full-empty.crl" db="$W/empty.txt" number=31
imp "$W/full-empty.crl"
check_is_soft good 0 "$PKI/x.pem" && case_ok all-dropped-x || case_fail all-dropped-x "x still revoked"
check_is_soft good 0 "$PKI/y.pem" && case_ok all-dropped-y || case_fail all-dropped-y "y still revoked"
finish
