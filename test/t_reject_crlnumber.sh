#!/usr/bin/env bash
# update rejects a v2 CRL without cRLNumber, and one whose cRLNumber is
# marked critical (RFC 5280 5.2.3: MUST be present, MUST be non-critical).
. "$(dirname "$0")/lib.sh"
reject_setup crlnumber
# openssl ca writes cRLNumber whenever its config names a crlnumber file:
# this one does not, and the CRL stays v2 through its AKID extension.
conf=$(_ca_conf int)
sed -i '/^crlnumber = /d' "$conf"
printf '%s\n' "[ crlext ]" "authorityKeyIdentifier = keyid:always" >>"$conf"
openssl ca -batch -config "$conf" -gencrl -crlexts crlext -out "$W/nonum.pem" 2>"$W/openssl.err" \
    || { cat "$W/openssl.err" >&2; fail "gencrl failed"; }
openssl crl -in "$W/nonum.pem" -outform der -out "$W/nonum.crl"
crl_text "$W/nonum.crl" | grep -q 'Version 2' || fail "CRL is not v2"
crl_text "$W/nonum.crl" | grep -q 'CRL Number' && fail "CRL has a cRLNumber"
sleep 1   # newer by thisUpdate: only the missing number can refuse it
reject_expect "$W/nonum.crl" 'without cRLNumber.*5\.2\.3'

# The same, with cRLNumber 20 marked critical.
pki_gencrl int "$W/crit.crl" number=14 ext='crlNumber = critical,ASN1:INTEGER:20'
crl_text "$W/crit.crl" | grep -q 'CRL Number: critical' || fail "cRLNumber not critical"
reject_expect "$W/crit.crl" 'cRLNumber marked critical.*5\.2\.3'
note "ok"
