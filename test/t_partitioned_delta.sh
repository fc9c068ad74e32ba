#!/usr/bin/env bash
# Partitioned CRLs (IDP fullName == fetch URL, leaves' CDPs name each partition)
# and delta CRLs (deltaCRLIndicator; removeFromCRL) applied onto their base; a
# delta whose base is not held is rejected.
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
pki_root root "/CN=Test Root/O=crlcache tests"
pki_ca int root "/CN=Test Int/O=crlcache tests"
P1=$BASE_URL/crl/p1.crl P2=$BASE_URL/crl/p2.crl
pki_leaf p1good int "/CN=p1good.test" cdp="$P1"
pki_leaf p1rev  int "/CN=p1rev.test"  cdp="$P1"
pki_leaf p2good int "/CN=p2good.test" cdp="$P2"
pki_leaf p2rev  int "/CN=p2rev.test"  cdp="$P2"
: >"$W/p1.txt"; : >"$W/p2.txt"
pki_revoke int "$PKI/p1rev.pem" db="$W/p1.txt"
pki_revoke int "$PKI/p2rev.pem" db="$W/p2.txt" reason=affiliationChanged
# CRL numbers are per scope (RFC 5280 5.2.3): p2's is lower than p1's on purpose.
pki_gencrl int "$W/p1.crl" db="$W/p1.txt" idp="$P1" number=20
pki_gencrl int "$W/p2.crl" db="$W/p2.txt" idp="$P2" number=10
crl_text "$W/p1.crl" | grep -q "Issuing Distribution Point: critical" || fail "no IDP in p1.crl"
crl_text "$W/p2.crl" | grep -q "URI:$P2" || fail "IDP of p2.crl is not $P2"
openssl x509 -in "$PKI/p2rev.pem" -noout -text | grep -q "URI:$P2" || fail "p2rev has no CDP $P2"
serve "$W/p1.crl" crl/p1.crl
serve "$W/p2.crl" crl/p2.crl
A="anchor = $PKI/root/cert.pem"; UT="untrusted = $PKI/int/cert.pem"

upd() {   # upd CASE EXPECTED_EXIT -> 0 if update exited as expected
    cc update >"$W/upd.out" 2>"$W/upd.err"; local rc=$?
    sed "s/^/    [$1] /" "$W/upd.err"
    [ "$rc" -eq "$2" ] && return 0
    case_fail "$1" "update exit $rc, expected $2"; return 1
}

# --- partitions
write_conf "url = $P1" "$A" "$UT"
if upd p1-only 0; then
    if ! check_is_soft revoked 1 "$PKI/p1rev.pem"; then case_fail p1-only "p1rev not revoked"
    elif ! check_is_soft good 0 "$PKI/p1good.pem"; then case_fail p1-only "p1good not good"
    else case_ok p1-only; fi
    # a leaf whose CDP names a partition we do not hold is not covered
    if check_is_soft unknown 2 "$PKI/p2rev.pem"; then case_ok p2-not-held-unknown
    else case_fail p2-not-held-unknown "leaf of an unfetched partition is not 'unknown'"; fi
fi
write_conf "url = $P1" "url = $P2" "$A" "$UT"
if upd p1+p2 0; then
    if ! check_is_soft revoked 1 "$PKI/p2rev.pem"; then case_fail p1+p2 "p2rev not revoked"
    elif ! grep -Eiq 'affiliation' "$W/check.out"; then case_fail p1+p2 "reason affiliationChanged missing"
    elif ! check_is_soft good 0 "$PKI/p2good.pem"; then case_fail p1+p2 "p2good not good"
    elif ! check_is_soft revoked 1 "$PKI/p1rev.pem"; then case_fail p1+p2 "p1rev lost"
    elif ! check_is_soft good 0 "$PKI/p1good.pem"; then case_fail p1+p2 "p1good not good"
    else case_ok p1+p2; fi
fi

# --- delta CRLs (a second CA with full + delta CRLs)
STATE=$W/state-delta
pki_ca dint root "/CN=Delta Int/O=crlcache tests"
pki_leaf d_rev  dint "/CN=d-rev.test"  cdp="$BASE_URL/full.crl"
pki_leaf d_hold dint "/CN=d-hold.test" cdp="$BASE_URL/full.crl"
pki_leaf d_new  dint "/CN=d-new.test"  cdp="$BASE_URL/full.crl"
pki_leaf d_good dint "/CN=d-good.test" cdp="$BASE_URL/full.crl"
pki_revoke dint "$PKI/d_rev.pem"  reason=keyCompromise
pki_revoke dint "$PKI/d_hold.pem" reason=certificateHold
pki_gencrl dint "$W/full.crl" number=10                     # base CRL number 16
: >"$W/delta.txt"
pki_revoke dint "$PKI/d_new.pem"  reason=keyCompromise db="$W/delta.txt"
pki_revoke dint "$PKI/d_hold.pem" reason=removeFromCRL db="$W/delta.txt"
pki_gencrl dint "$W/delta.crl" db="$W/delta.txt" delta=16 number=11
crl_text "$W/delta.crl" | grep -A1 'Delta CRL Indicator: critical' | grep -qw 16 || fail "delta indicator missing"
crl_text "$W/delta.crl" | grep -q 'Remove From CRL' || fail "removeFromCRL entry missing"
pki_gencrl dint "$W/delta48.crl" db="$W/delta.txt" delta=48 number=31   # names base 48, not held
serve "$W/full.crl" full.crl
serve "$W/delta.crl" delta.crl
serve "$W/delta48.crl" delta48.crl
DA="untrusted = $PKI/dint/cert.pem"

write_conf "url = $BASE_URL/full.crl" "$A" "$DA"
if upd base 0; then
    if ! check_is_soft revoked 1 "$PKI/d_rev.pem"; then case_fail base "d_rev not revoked"
    elif ! check_is_soft revoked 1 "$PKI/d_hold.pem"; then case_fail base "d_hold (certificateHold) not revoked"
    elif ! check_is_soft good 0 "$PKI/d_new.pem"; then case_fail base "d_new not good"
    else case_ok base; fi
fi
write_conf "url = $BASE_URL/full.crl" "url = $BASE_URL/delta.crl" "$A" "$DA"
if upd delta 0; then
    if ! check_is_soft revoked 1 "$PKI/d_new.pem"; then case_fail delta "d_new (revoked by the delta) not revoked"
    elif ! check_is_soft revoked 1 "$PKI/d_rev.pem"; then case_fail delta "d_rev (base) lost"
    elif ! check_is_soft good 0 "$PKI/d_good.pem"; then case_fail delta "d_good not good"
    else case_ok delta; fi
    if check_is_soft good 0 "$PKI/d_hold.pem"; then case_ok delta-removeFromCRL
    else case_fail delta-removeFromCRL "d_hold still revoked after removeFromCRL in the delta"; fi
fi
# the held complete CRL delivered again in full (a server without
# conditional GET): its number is below the delta's, yet it is the same CRL
if cc import "$W/full.crl" >"$W/imp.out" 2>"$W/imp.err"; then
    if ! check_is_soft revoked 1 "$PKI/d_new.pem"; then case_fail base-again "the delta's d_new lost"
    else case_ok base-again; fi
else
    case_fail base-again "import of the held base failed: $(cat "$W/imp.err")"
fi
# a delta naming base 48 while we hold base 16: cannot be applied
write_conf "url = $BASE_URL/full.crl" "url = $BASE_URL/delta48.crl" "$A" "$DA"
if upd delta-wrong-base 1; then
    if ! grep -Fq "crlcache: $BASE_URL/delta48.crl: " "$W/upd.err"; then case_fail delta-wrong-base "no reason line"
    elif ! check_is_soft revoked 1 "$PKI/d_rev.pem"; then case_fail delta-wrong-base "base data lost"
    else case_ok delta-wrong-base; fi
fi
# a delta for an issuer of which no base CRL is held at all
STATE=$W/state-nobase
write_conf "url = $BASE_URL/delta.crl" "$A" "$DA"
if upd delta-no-base 1; then
    if ! grep -Fq "crlcache: $BASE_URL/delta.crl: " "$W/upd.err"; then case_fail delta-no-base "no reason line"
    else
        cc check "$PKI/d_new.pem" >"$W/o" 2>"$W/e"; rc=$?
        # unknown (2), or no index published at all (>= 4); never revoked/good
        if [ "$rc" -eq 2 ] || [ "$rc" -ge 4 ]; then case_ok "delta-no-base (check exit $rc)"
        else case_fail delta-no-base "a lone delta made d_new: exit $rc $(cat "$W/o")"; fi
    fi
fi
finish
