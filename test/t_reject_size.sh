#!/usr/bin/env bash
# update rejects a (valid) CRL larger than max_size.
. "$(dirname "$0")/lib.sh"
RJ_EXTRA_CONF=("max_size = 2K")
reject_setup size
cp "$PKI/int/index.txt" "$W/big.txt"
pki_bulk_revoked "$W/big.txt" 150
pki_gencrl int "$W/bad.crl" number=20 db="$W/big.txt"
n=$(stat -c %s "$W/bad.crl"); [ "$n" -gt 4096 ] || fail "big CRL only $n bytes"
[ "$(stat -c %s "$W/good.crl")" -lt 2048 ] || fail "good CRL is not under 2K"
reject_expect "$W/bad.crl" 'size|large'
note "ok (body $n bytes, max_size 2K)"
