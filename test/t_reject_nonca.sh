#!/usr/bin/env bash
# update rejects a CRL signed by a certificate that is not a CA
# (basicConstraints cA=FALSE) even though it asserts cRLSign, chains to the
# anchor, bears the CRL issuer's name and is among the configured
# certificates (RFC 5280 4.2.1.9, 6.3.3 (f)).
. "$(dirname "$0")/lib.sh"
reject_setup nonca
# An end-entity certificate named like the intermediate, cRLSign included.
_newkey ec "$PKI/nonca.key"
openssl req -new -config "$(_req_conf utf8only)" -key "$PKI/nonca.key" \
    -subj "/CN=Test Int/O=crlcache tests" -out "$PKI/nonca.csr" 2>"$W/openssl.err" \
    || { cat "$W/openssl.err" >&2; fail "req failed"; }
printf '%s\n' "[ ext ]" "basicConstraints = critical,CA:FALSE" \
    "keyUsage = critical,digitalSignature,cRLSign" "subjectKeyIdentifier = hash" \
    "authorityKeyIdentifier = keyid" >"$PKI/nonca.ext"
_issue root "$PKI/nonca.csr" "$PKI/nonca.pem" "$PKI/nonca.ext"
openssl x509 -in "$PKI/nonca.pem" -noout -text | grep -q 'CA:FALSE' || fail "not an end-entity certificate"
openssl x509 -in "$PKI/nonca.pem" -noout -text | grep -q 'CRL Sign' || fail "no cRLSign"
echo "untrusted = $PKI/nonca.pem" >>"$CONF"
pki_gencrl int "$W/bad.crl" number=20 cert="$PKI/nonca.pem" key="$PKI/nonca.key"
openssl crl -inform DER -in "$W/bad.crl" -noout -verify -CAfile "$PKI/nonca.pem" 2>&1 \
    | grep -q 'verify OK' || fail "bad CRL is not signed by the non-CA certificate"
reject_expect "$W/bad.crl" 'not a CA.*4\.2\.1\.9'
note "ok"
