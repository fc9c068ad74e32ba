#!/usr/bin/env bash
# update rejects a CRL signed by a CA (same name as the real issuer) that does not chain to the anchor.
. "$(dirname "$0")/lib.sh"
mkdir -p "$PKI"
pki_root evilroot "/CN=Evil Root"
pki_ca evilint evilroot "/CN=Test Int/O=crlcache tests"
RJ_EXTRA_CONF=("untrusted = $PKI/evilint/cert.pem")
reject_setup issuer
# CRL from the real CA database (rev1, rev2) but signed by the impostor
pki_gencrl int "$W/bad.crl" number=20 cert="$PKI/evilint/cert.pem" key="$PKI/evilint/key.pem"
openssl crl -inform DER -in "$W/bad.crl" -noout -CAfile "$PKI/evilint/cert.pem" 2>&1 | grep -q 'verify OK' \
    || fail "impostor CRL does not verify with the impostor key"
reject_expect "$W/bad.crl" 'issuer|chain|trust|signature|verif|anchor'
note "ok"
