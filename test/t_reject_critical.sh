#!/usr/bin/env bash
# update rejects a CRL carrying an unknown critical extension.
. "$(dirname "$0")/lib.sh"
reject_setup critical
pki_gencrl int "$W/bad.crl" number=20 ext='1.2.3.4.5 = critical,ASN1:UTF8String:x'
crl_text "$W/bad.crl" | grep -q '1.2.3.4.5: critical' || fail "critical extension missing"
reject_expect "$W/bad.crl" 'critical'
note "ok"
