#!/usr/bin/env bash
# A CA (a root here) whose name has a multi-valued RDN (O=..+CN=..) and
# whose leaves spell their issuer with the AVAs in another encoded order than
# its certificate and its CRL do.  OpenSSL matches the names (x509_name_canon
# sorts the AVAs of a RDN), so the CRL covers the leaves for `check` and the
# provider alike: rev1 revoked, good1 good.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
BASE_URL=http://127.0.0.1:9
# A root of its own: pki_ca's `openssl ca` would split the RDN.
mkdir -p "$PKI"; _ca_dirs int 1000
_newkey ec "$PKI/int/key.pem"
openssl req -x509 -new -config "$(_req_conf utf8only)" -extensions v3_root -multivalue-rdn \
    -key "$PKI/int/key.pem" -subj "/O=Multi Org+CN=Multi CA" -days 3650 -sha256 \
    -set_serial 1 -out "$PKI/int/cert.pem" 2>"$W/openssl.err" || { cat "$W/openssl.err" >&2; fail "root"; }
pki_leaf rev1  int "/CN=rev1.test"  cdp="$BASE_URL/int.crl"
pki_leaf good1 int "/CN=good1.test" cdp="$BASE_URL/int.crl"
pki_revoke int "$PKI/rev1.pem" reason=keyCompromise
pki_gencrl int "$W/int.crl"
for n in rev1 good1; do
    "$PY" "$TESTDIR/der_edit.py" swap-issuer-rdn "$PKI/$n.pem" "$PKI/int/key.pem" \
        "$PKI/${n}x.pem" || fail "der_edit.py swap-issuer-rdn $n failed"
done

# The test is about these encodings: leaf issuer != CA subject, same name.
openssl asn1parse -in "$PKI/int/cert.pem" >"$W/ca.asn1"
openssl asn1parse -in "$PKI/rev1x.pem" >"$W/leaf.asn1"
ca_order=$(grep -o ':Multi [A-Za-z]*' "$W/ca.asn1" | head -2 | tr '\n' ' ')
leaf_order=$(grep -o ':Multi [A-Za-z]*' "$W/leaf.asn1" | head -2 | tr '\n' ' ')
[ "$ca_order" != "$leaf_order" ] || fail "leaf issuer AVAs in the CA's order ($ca_order)"
note "CA subject AVAs: $ca_order; leaf issuer AVAs: $leaf_order"
openssl verify -CAfile "$PKI/int/cert.pem" "$PKI/rev1x.pem" >"$W/v.out" 2>&1 || { cat "$W/v.out" >&2; fail "OpenSSL does not chain the reordered leaf"; }

write_conf "# empty"
cc import --anchor "$PKI/int/cert.pem" "$W/int.crl" \
    >"$W/o" 2>"$W/e" || { cat "$W/e" >&2; fail "import refused the CRL"; }
check_is_soft revoked 1 "$PKI/rev1x.pem" && case_ok check-revoked || case_fail check-revoked "rev1 not revoked"
check_is_soft good 0 "$PKI/good1x.pem" && case_ok check-good || case_fail check-good "good1 not good"

ROOT=$PKI/int/cert.pem
cp "$PKI/int/cert.pem" "$W/untrusted.pem"
cl_verify "$PKI/rev1x.pem" --set on_unknown=deny
if [ "$CLIENT_RC" -ne 0 ] && grep -q 'revoked' "$W/client.out"; then case_ok provider-revoked
else cat "$W/client.out" >&2; case_fail provider-revoked "verify of rev1 did not fail as revoked"; fi
cl_verify "$PKI/good1x.pem" --set on_unknown=deny
if [ "$CLIENT_RC" -eq 0 ]; then case_ok provider-good
else cat "$W/client.out" >&2; case_fail provider-good "verify of good1 failed"; fi
finish
