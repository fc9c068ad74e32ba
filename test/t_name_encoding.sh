#!/usr/bin/env bash
# One CA, one key, two certificates whose subjects encode the same name
# differently: "Test Int" as PrintableString (issues the leaves) and "test int"
# as UTF8String (signs the CRL).  RFC 5280 name matching makes them equal, so the
# CRL must cover the leaves.
. "$(dirname "$0")/lib.sh"
need_crlcache
BASE_URL=http://127.0.0.1:9
pki_root root "/CN=Test Root"
pki_ca int  root "/CN=Test Int" mask=default                        # PrintableString
pki_ca intu root "/CN=test int" mask=utf8only key="$PKI/int/key.pem" # UTF8String, same key
pki_leaf rev1  int "/CN=rev1.test"  cdp="$BASE_URL/int.crl"
pki_leaf good1 int "/CN=good1.test" cdp="$BASE_URL/int.crl"
pki_revoke int "$PKI/rev1.pem" reason=keyCompromise
pki_gencrl int "$W/int.crl" cert="$PKI/intu/cert.pem" key="$PKI/int/key.pem"

# Verify the encodings are really what this test is about.
openssl x509 -in "$PKI/rev1.pem" -outform DER -out "$W/rev1.der"
# issuer Name of the leaf = 2nd SEQUENCE in the TBS; just look at the string types
openssl asn1parse -inform DER -in "$W/rev1.der" >"$W/leaf.asn1"
grep -q 'PRINTABLESTRING   :Test Int' "$W/leaf.asn1" || { cat "$W/leaf.asn1" >&2; fail "leaf issuer not PrintableString 'Test Int'"; }
openssl asn1parse -inform DER -in "$W/int.crl" >"$W/crl.asn1"
grep -q 'UTF8STRING        :test int' "$W/crl.asn1" || { cat "$W/crl.asn1" >&2; fail "CRL issuer not UTF8String 'test int'"; }
grep -q 'PRINTABLESTRING   :Test Int' "$W/crl.asn1" && fail "CRL issuer unexpectedly PrintableString"
cmp -s <(openssl x509 -in "$PKI/int/cert.pem" -noout -subject -nameopt RFC2253) \
       <(openssl x509 -in "$PKI/intu/cert.pem" -noout -subject -nameopt RFC2253) \
    && fail "the two subjects print identically?"
openssl crl -inform DER -in "$W/int.crl" -noout -CAfile "$PKI/int/cert.pem" 2>&1 | grep -q 'verify OK' \
    || fail "CRL does not verify with the PrintableString certificate's key"
write_conf "# empty"

# import_case NAME CA_CERT: import the CRL with only CA_CERT as the issuer
# candidate, into a state of its own; rev1 must be revoked, good1 good.
import_case() {
    local name=$1 ca=$2
    STATE=$W/state-$name
    if ! cc import --anchor "$PKI/root/cert.pem" --untrusted "$ca" "$W/int.crl" >"$W/o" 2>"$W/e"; then
        cat "$W/e" >&2; case_fail "$name" "import rejected the CRL"
    elif ! check_is_soft revoked 1 "$PKI/rev1.pem"; then case_fail "$name" "rev1 not revoked"
    elif ! check_is_soft good 0 "$PKI/good1.pem"; then case_fail "$name" "good1 not good"
    else case_ok "$name"; fi
}
# Case 1: only the PrintableString certificate (the leaves' issuer) is supplied.
import_case printable-issuer "$PKI/int/cert.pem"
# Case 2: only the UTF8String certificate (the CRL signer's exact name) is supplied.
import_case utf8-issuer "$PKI/intu/cert.pem"
finish
