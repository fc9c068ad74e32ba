#!/usr/bin/env bash
# A CRL that lists one serial longer than 64 octets (RFC 5280
# 4.1.2.2 allows 20; some CAs break it) among normal entries.  The entry must
# not make the CRL be refused, and a certificate with that serial is revoked
# (the index keys it by its hash, format.h) for `check` and the provider.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
BASE_URL=http://127.0.0.1:9
pki_root root "/CN=Test Root"
pki_ca int root "/CN=Long Serial Int"
pki_leaf rev int "/CN=rev.test" cdp="$BASE_URL/int.crl"
pki_leaf good int "/CN=good.test" cdp="$BASE_URL/int.crl"
pki_revoke int "$PKI/rev.pem"
LONG=$(printf '5A%.0s' $(seq 70))      # 70 octets
# two certificates with long serials: one listed, one not (last octet differs)
for n in long:$LONG longgood:${LONG%??}5B; do
    name=${n%%:*}; serial=${n#*:}
    _newkey ec "$PKI/$name.key"
    openssl req -new -config "$(_req_conf utf8only)" -key "$PKI/$name.key" \
        -subj "/CN=$name.test" -out "$PKI/$name.csr" 2>"$W/openssl.err" || fail "req $name"
    openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/int/cert.pem" -CAkey "$PKI/int/key.pem" \
        -set_serial "0x$serial" -days 30 -sha256 -extfile "$PKI/good.ext" -extensions ext \
        -out "$PKI/$name.pem" 2>"$W/openssl.err" || { cat "$W/openssl.err" >&2; fail "x509 $name"; }
done
got=$(openssl x509 -in "$PKI/long.pem" -noout -serial | tr -d '\\\n' | cut -d= -f2)
[ "$got" = "$LONG" ] || fail "long.pem serial is $got"
pki_gencrl int "$W/int-openssl.crl"
pki_gencrl root "$W/root.crl"
"$PY" "$TESTDIR/der_edit.py" add-serial "$W/int-openssl.crl" "$PKI/int/key.pem" "$W/int.crl" "$LONG" \
    || fail "der_edit.py add-serial failed"
crl_text "$W/int.crl" | tr -d ' \n\\' | grep -qi "SerialNumber:$LONG" \
    || { crl_text "$W/int.crl" >&2; fail "long serial not in the CRL"; }
openssl crl -inform DER -in "$W/int.crl" -noout -CAfile "$PKI/int/cert.pem" 2>&1 | grep -q 'verify OK' \
    || fail "crafted CRL does not verify"

write_conf "# empty"
if cc import --anchor "$PKI/root/cert.pem" --untrusted "$PKI/int/cert.pem" "$W/root.crl" "$W/int.crl" \
    >"$W/o" 2>"$W/e"; then case_ok import
else cat "$W/e" >&2; case_fail import "the CRL with a long serial was refused"; fi
check_is_soft revoked 1 "$PKI/rev.pem" && case_ok check-normal-revoked || case_fail check-normal-revoked "rev"
check_is_soft good 0 "$PKI/good.pem" && case_ok check-normal-good || case_fail check-normal-good "good"
check_is_soft revoked 1 "$PKI/long.pem" && case_ok check-long-revoked || case_fail check-long-revoked "long"
check_is_soft good 0 "$PKI/longgood.pem" && case_ok check-long-good || case_fail check-long-good "longgood"
cc status >"$W/status.out" 2>&1
grep -q 'int.crl scope=all entries=2 ' "$W/status.out" && case_ok status-count \
    || { cat "$W/status.out" >&2; case_fail status-count "int.crl does not hold 2 entries"; }

ROOT=$PKI/root/cert.pem
cp "$PKI/int/cert.pem" "$W/untrusted.pem"
cl_verify "$PKI/long.pem" --set on_unknown=deny
if [ "$CLIENT_RC" -ne 0 ] && grep -q revoked "$W/client.out"; then case_ok provider-long-revoked
else cat "$W/client.out" >&2; case_fail provider-long-revoked "verify of long did not fail as revoked"; fi
cl_verify "$PKI/longgood.pem" --set on_unknown=deny
if [ "$CLIENT_RC" -eq 0 ]; then case_ok provider-long-good
else cat "$W/client.out" >&2; case_fail provider-long-good "verify of longgood failed"; fi
finish
