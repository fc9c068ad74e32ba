#!/usr/bin/env bash
# cRLNumber (RFC 5280 5.2.3: MUST be present in a v2 CRL, MUST be
# non-critical).  Both rules bind the issuer and change no meaning, and
# refusing the CRL would ignore its revocations (docs/crl-quirks.md), so:
#   - a critical cRLNumber is read and tolerated, with a log line;
#   - a v2 CRL without one is ordered by thisUpdate alone, with a log line,
#     except where the scope holds a numbered CRL (a CA does not drop its
#     number; taking it would drop the number the rollback rule compares);
#   - two cRLNumber extensions (4.2) and a delta CRL without one (5.2.4)
#     leave the CRL ambiguous: refused.
. "$(dirname "$0")/lib.sh"
reject_setup crlnumber
# nonum_crl OUT [LASTUPDATE]: v2 through its AKID extension, no cRLNumber
# (openssl ca writes one whenever its config names a crlnumber file).
nonum_crl() {
    local conf
    conf=$(_ca_conf int)
    sed -i '/^crlnumber = /d' "$conf"
    printf '%s\n' "[ crlext ]" "authorityKeyIdentifier = keyid:always" >>"$conf"
    openssl ca -batch -config "$conf" -gencrl -crlexts crlext ${2:+-crl_lastupdate "$2"} \
        -out "$W/nonum.tmp.pem" 2>"$W/openssl.err" \
        || { cat "$W/openssl.err" >&2; fail "gencrl failed"; }
    openssl crl -in "$W/nonum.tmp.pem" -outform der -out "$1"
    crl_text "$1" | grep -q 'Version 2' || fail "$1 is not v2"
    crl_text "$1" | grep -q 'CRL Number' && fail "$1 has a cRLNumber"
    return 0
}

# 1. Unnumbered after numbered (CRL 10 held), newer by thisUpdate: refused.
sleep 1
nonum_crl "$W/nonum.crl"
reject_expect "$W/nonum.crl" 'v2 CRL without cRLNumber where a numbered CRL is held.*5\.2\.3'

# 2. Two cRLNumber extensions: refused, and said so (not "malformed").
pki_gencrl int "$W/two.crl" ext='crlNumber = ASN1:INTEGER:21' ext='2.5.29.20 = DER:02:01:16'
[ "$(crl_text "$W/two.crl" | grep -c 'CRL Number')" -eq 2 ] || fail "not two cRLNumber extensions"
reject_expect "$W/two.crl" 'two cRLNumber extensions.*4\.2'

# 3. A delta CRL without cRLNumber: refused (5.2.4).
conf=$(_ca_conf int)
sed -i '/^crlnumber = /d' "$conf"
printf '%s\n' "[ crlext ]" "authorityKeyIdentifier = keyid:always" \
    "deltaCRL = critical,ASN1:INTEGER:10" >>"$conf"
openssl ca -batch -config "$conf" -gencrl -crlexts crlext -out "$W/delta.pem" 2>"$W/openssl.err" \
    || { cat "$W/openssl.err" >&2; fail "delta gencrl failed"; }
openssl crl -in "$W/delta.pem" -outform der -out "$W/delta.crl"
crl_text "$W/delta.crl" | grep -q 'Delta CRL Indicator' || fail "no deltaCRLIndicator"
reject_expect "$W/delta.crl" 'delta CRL without cRLNumber.*5\.2\.4'

# 4. cRLNumber 20 marked critical: understood, so read; rev2 now revoked.
pki_gencrl int "$W/crit.crl" ext='crlNumber = critical,ASN1:INTEGER:20'
crl_text "$W/crit.crl" | grep -q 'CRL Number: critical' || fail "cRLNumber not critical"
serve "$W/crit.crl" crlnumber.crl
assert_exit 0 cc -v update
assert_grep "$RJ_URL: CRL of .*tolerated: cRLNumber marked critical \\(RFC 5280 5\\.2\\.3" "$W/last.err"
check_is revoked 1 "$PKI/rev2.pem"
# ... and its number is the one a rollback is judged by: 0x12 = 18 < 20 refused.
pki_gencrl int "$W/lower.crl" number=12
reject_expect_gen=$(generation)
serve "$W/lower.crl" crlnumber.crl
assert_exit 1 cc update
assert_grep 'rollback' "$W/last.err"
[ "$(generation)" = "$reject_expect_gen" ] || fail "a lower number changed the index"

# 5. A scope that never held a number: an unnumbered v2 CRL is taken,
#    ordered by thisUpdate, and the log says so.
assert_exit 0 cc reset --all
nonum_crl "$W/old.crl" "$(gt -3600)"
sleep 1
nonum_crl "$W/new.crl"
serve "$W/new.crl" crlnumber.crl
assert_exit 0 cc -v update
assert_grep "$RJ_URL: CRL of .*tolerated: no cRLNumber \\(RFC 5280 5\\.2\\.3: MUST be present\\), ordered by thisUpdate alone" "$W/last.err"
check_is revoked 1 "$PKI/rev1.pem"
check_is revoked 1 "$PKI/rev2.pem"
serve "$W/old.crl" crlnumber.crl
assert_exit 1 cc update
assert_grep 'rollback: thisUpdate is older' "$W/last.err"
check_is revoked 1 "$PKI/rev2.pem"
note "ok"
