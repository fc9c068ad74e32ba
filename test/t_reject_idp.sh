#!/usr/bin/env bash
# update rejects a partitioned CRL whose IDP fullName is not the URL it was fetched from.
. "$(dirname "$0")/lib.sh"
reject_setup idp
pki_gencrl int "$W/bad.crl" number=20 idp="$BASE_URL/other.crl"
crl_text "$W/bad.crl" | grep -q "URI:$BASE_URL/other.crl" || fail "IDP missing from CRL"
reject_expect "$W/bad.crl" 'idp|distribution point'
note "ok"
