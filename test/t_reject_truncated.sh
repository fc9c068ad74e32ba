#!/usr/bin/env bash
# update rejects a truncated CRL body.
. "$(dirname "$0")/lib.sh"
reject_setup trunc
pki_gencrl int "$W/full.crl" number=20
n=$(stat -c %s "$W/full.crl")
head -c $((n / 2)) "$W/full.crl" >"$W/bad.crl"
reject_expect "$W/bad.crl" 'parse|malformed|truncated|decode'
# also: all but the last byte
head -c $((n - 1)) "$W/full.crl" >"$W/bad.crl"
reject_expect "$W/bad.crl" 'parse|malformed|truncated|decode'
note "ok"
