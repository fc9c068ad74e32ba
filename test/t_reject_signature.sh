#!/usr/bin/env bash
# update rejects a CRL whose signature does not verify (one byte of the signature flipped).
. "$(dirname "$0")/lib.sh"
reject_setup sig
pki_gencrl int "$W/bad.crl" number=20
# flip the last byte: it lies inside the signature BIT STRING
python3 - "$W/bad.crl" <<'PY'
import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[-1]^=0x55; open(p,'wb').write(b)
PY
openssl crl -inform DER -in "$W/bad.crl" -noout 2>/dev/null || fail "tampered CRL no longer parses"
openssl crl -inform DER -in "$W/bad.crl" -noout -CAfile "$PKI/int/cert.pem" 2>&1 | grep -q 'verify failure' \
    || fail "tampered CRL still verifies"
reject_expect "$W/bad.crl" 'signature'
note "ok"
