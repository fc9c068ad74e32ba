#!/usr/bin/env bash
# Issue 11 item 1: two intermediates named "CN=Roll CA" with different keys
# (a key rollover: "renew with new key").  Each issues serial 1000 and 1001
# and signs its own CRL: key A revokes its 1000, key B its 1001.  The answer
# for a certificate must come from the CRLs of the key that issued it, both
# when the two CRLs carry the same CRL number and when they carry different
# ones (neither may be refused as a reuse or a rollback), for `check` and for
# the provider (openssl verify).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
BASE_URL=http://127.0.0.1:9
pki_root root "/CN=Test Root"
pki_ca inta root "/CN=Roll CA"
pki_ca intb root "/CN=Roll CA"
cmp -s <(openssl x509 -in "$PKI/inta/cert.pem" -noout -pubkey) \
       <(openssl x509 -in "$PKI/intb/cert.pem" -noout -pubkey) && fail "the two CAs share a key"
for k in a b; do
    pki_leaf "${k}1000" "int$k" "/CN=${k}1000.test" cdp="$BASE_URL/roll.crl"
    pki_leaf "${k}1001" "int$k" "/CN=${k}1001.test" cdp="$BASE_URL/roll.crl"
done
[ "$(serial_of "$PKI/a1000.pem")" = "$(serial_of "$PKI/b1000.pem")" ] || fail "serials differ"
pki_revoke inta "$PKI/a1000.pem"
pki_revoke intb "$PKI/b1001.pem"
pki_gencrl root "$W/root.crl"
write_conf "# empty"
ROOT=$PKI/root/cert.pem
cat "$PKI/inta/cert.pem" "$PKI/intb/cert.pem" >"$W/untrusted.pem"

# answers CASE: a1000 revoked, a1001 good, b1000 good, b1001 revoked, by
# check (with the issuer in --chain, and by the certificate's
# authorityKeyIdentifier alone) and by the provider.
answers() {
    local c=$1 leaf k want code
    for leaf in a1000:revoked a1001:good b1000:good b1001:revoked; do
        k=${leaf:0:1}; want=${leaf#*:}; leaf=${leaf%%:*}
        code=0; [ "$want" = revoked ] && code=1
        if check_is_soft "$want" "$code" --chain "$W/untrusted.pem" "$PKI/$leaf.pem"; then
            case_ok "$c-check-$leaf"
        else case_fail "$c-check-$leaf" "check did not say $want"; fi
        cl_verify "$PKI/$leaf.pem" --set on_unknown=deny
        if [ "$want" = revoked ]; then
            if [ "$CLIENT_RC" -ne 0 ] && grep -q revoked "$W/client.out"; then case_ok "$c-provider-$leaf"
            else cat "$W/client.out" >&2; case_fail "$c-provider-$leaf" "verify did not fail as revoked"; fi
        elif [ "$CLIENT_RC" -eq 0 ]; then case_ok "$c-provider-$leaf"
        else cat "$W/client.out" >&2; case_fail "$c-provider-$leaf" "verify failed"; fi
    done
    # without the issuer certificate the authorityKeyIdentifier names the key
    check_is_soft good 0 "$PKI/b1000.pem" && case_ok "$c-check-aki-b1000" \
        || case_fail "$c-check-aki-b1000" "b1000 not good by its AKI"
    check_is_soft revoked 1 "$PKI/a1000.pem" && case_ok "$c-check-aki-a1000" \
        || case_fail "$c-check-aki-a1000" "a1000 not revoked by its AKI"
}

import_both() {
    cc import --anchor "$ROOT" --untrusted "$W/untrusted.pem" "$W/root.crl" "$W/a.crl" "$W/b.crl" \
        >"$W/o" 2>"$W/e" || { cat "$W/e" >&2; case_fail "$1-import" "a CRL was refused"; return; }
    case_ok "$1-import"
}

# Case 1: both CRLs number 01.
pki_gencrl inta "$W/a.crl" number=01
pki_gencrl intb "$W/b.crl" number=01
STATE=$W/state-equal
import_both equal
answers equal

# Case 2: A numbers 05, B 02; imported A first (B would look like a rollback).
pki_gencrl inta "$W/a.crl" number=05
pki_gencrl intb "$W/b.crl" number=02
STATE=$W/state-differ
import_both differ
answers differ
# and the next CRL of each key is taken, its rollback rule its own
pki_gencrl intb "$W/b2.crl" number=03
pki_gencrl inta "$W/a2.crl" number=04
cc import --anchor "$ROOT" --untrusted "$W/untrusted.pem" "$W/b2.crl" >"$W/o" 2>"$W/e" \
    && case_ok differ-next-b || { cat "$W/e" >&2; case_fail differ-next-b "B's next CRL refused"; }
if cc import --anchor "$ROOT" --untrusted "$W/untrusted.pem" "$W/a2.crl" >"$W/o" 2>"$W/e"; then
    case_fail differ-rollback-a "A's CRL 04 after 05 accepted"
elif grep -q rollback "$W/e"; then case_ok differ-rollback-a
else cat "$W/e" >&2; case_fail differ-rollback-a "refused, but not as a rollback"; fi
finish
