#!/usr/bin/env bash
# update rejects a partitioned CRL whose IDP fullName is not the URL it was
# fetched from, and takes an empty IDP (a rule for issuers only) as the
# whole issuer's CRL, saying so.
. "$(dirname "$0")/lib.sh"
reject_setup idp
pki_gencrl int "$W/bad.crl" number=20 idp="$BASE_URL/other.crl"
crl_text "$W/bad.crl" | grep -q "URI:$BASE_URL/other.crl" || fail "IDP missing from CRL"
reject_expect "$W/bad.crl" 'idp|distribution point'
note "an IDP naming another URL: refused"

# An empty IDP (RFC 5280 5.2.5: MUST NOT) restricts nothing: taken as a
# CRL of the whole issuer, with a log line; its revocation (rev2) counts.
pki_gencrl int "$W/empty.crl" number=21 'ext=issuingDistributionPoint = critical,DER:3000'
crl_text "$W/empty.crl" | grep -A1 'Issuing Distribution Point' | grep -q EMPTY || fail "the IDP is not empty"
serve "$W/empty.crl" "$RJ_NAME.crl"
assert_exit 0 cc -v update
assert_grep "$RJ_URL: CRL of .*tolerated: an empty issuingDistributionPoint \\(RFC 5280 5\\.2\\.5" "$W/last.err"
check_is revoked 1 "$PKI/rev2.pem"
note "an empty IDP: tolerated, said, its revocations taken"
