#!/usr/bin/env bash
# Two intermediates named "CN=Roll CA" with different keys
# (a key rollover: "renew with new key").  Each issues serial 1000 and 1001
# and signs its own CRL: key A revokes its 1000, key B its 1001.  The answer
# for a certificate must come from the CRLs of the key that issued it, both
# when the two CRLs carry the same CRL number and when they carry different
# ones (neither may be refused as a reuse or a rollback), for `check` and for
# the provider (openssl verify); for DSA, Ed25519 and EC CAs whose
# certificates hold the compressed point too (the provider's key identity
# equals the fetcher's); and `status` tells the two keys apart.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
BASE_URL=http://127.0.0.1:9
pki_root root "/CN=Test Root"
pki_gencrl root "$W/root.crl"
write_conf "# empty"
ROOT=$PKI/root/cert.pem

# pair P SUBJ KEYTYPE [LEAF-OPTION]: CAs ${P}inta and ${P}intb named SUBJ
# with different keys of KEYTYPE (pki_ca's, or ec-compressed: P-256 keys
# whose certificates hold the compressed point, RFC 5480 2.2), each issuing
# serials 1000 and 1001 (${P}a1000 ..., with pki_leaf's LEAF-OPTION): A
# revokes its 1000, B its 1001; $W/untrusted.pem holds the two CAs.
pair() {
    local p=$1 subj=$2 kt=$3 leafopt=${4-} k
    for k in a b; do
        if [ "$kt" = ec-compressed ]; then
            _newkey ec "$W/${p}$k.key"
            openssl ec -in "$W/${p}$k.key" -conv_form compressed -out "$W/${p}$k.pem" \
                2>/dev/null || fail "openssl ec -conv_form compressed failed"
            pki_ca "${p}int$k" root "$subj" key="$W/${p}$k.pem"
            openssl x509 -in "$PKI/${p}int$k/cert.pem" -noout -pubkey | openssl asn1parse \
                | grep -q 'l=  34 prim: BIT STRING' || fail "CA $k: point not compressed"
        else
            pki_ca "${p}int$k" root "$subj" keytype="$kt"
        fi
    done
    cmp -s <(openssl x509 -in "$PKI/${p}inta/cert.pem" -noout -pubkey) \
           <(openssl x509 -in "$PKI/${p}intb/cert.pem" -noout -pubkey) && fail "the two CAs share a key"
    for k in a b; do
        pki_leaf "${p}${k}1000" "${p}int$k" "/CN=${k}1000.test" cdp="$BASE_URL/roll.crl" ${leafopt:+"$leafopt"}
        pki_leaf "${p}${k}1001" "${p}int$k" "/CN=${k}1001.test" cdp="$BASE_URL/roll.crl" ${leafopt:+"$leafopt"}
    done
    [ "$(serial_of "$PKI/${p}a1000.pem")" = "$(serial_of "$PKI/${p}b1000.pem")" ] || fail "serials differ"
    pki_revoke "${p}inta" "$PKI/${p}a1000.pem"
    pki_revoke "${p}intb" "$PKI/${p}b1001.pem"
    cat "$PKI/${p}inta/cert.pem" "$PKI/${p}intb/cert.pem" >"$W/untrusted.pem"
}
pair "" "/CN=Roll CA" ec

# answers CASE [P]: a1000 revoked, a1001 good, b1000 good, b1001 revoked,
# by check (with the issuer in --chain, and by the certificate's
# authorityKeyIdentifier alone) and by the provider.
answers() {
    local c=$1 p=${2-} leaf want code
    for leaf in a1000:revoked a1001:good b1000:good b1001:revoked; do
        want=${leaf#*:}; leaf=$p${leaf%%:*}
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
    check_is_soft good 0 "$PKI/${p}b1000.pem" && case_ok "$c-check-aki-b1000" \
        || case_fail "$c-check-aki-b1000" "b1000 not good by its AKI"
    check_is_soft revoked 1 "$PKI/${p}a1000.pem" && case_ok "$c-check-aki-a1000" \
        || case_fail "$c-check-aki-a1000" "a1000 not revoked by its AKI"
}

# status_keys CASE [P]: `status` and `status --json` show each CRL's key
# number, the two keys' differing, and the key's subjectKeyIdentifier.
status_keys() {
    local c=$1 p=${2-} k ski keys=""
    cc status >"$W/status.out" 2>&1 && cc status --json >"$W/status.json" 2>&1 \
        || { cat "$W/status.out" "$W/status.json" >&2; case_fail "$c-status" "status failed"; return; }
    for k in a b; do
        ski=$(openssl x509 -in "$PKI/${p}int$k/cert.pem" -noout -ext subjectKeyIdentifier \
            | tail -n1 | tr -d ' :' | tr 'A-F' 'a-f')
        if grep -Eq "^crl [^ ]*/${p}$k\.crl .* key=[1-9][0-9]* ski=$ski( |\$)" "$W/status.out" &&
           grep -q "\"key\": [1-9][0-9]*, \"ski\": \"$ski\"" "$W/status.json"; then
            case_ok "$c-status-$k"
        else cat "$W/status.out" "$W/status.json" >&2; case_fail "$c-status-$k" "key $k or its SKI not shown"; fi
        keys="$keys $(sed -nE "s|^crl [^ ]*/${p}$k\.crl .* key=([0-9]+).*|\1|p" "$W/status.out")"
    done
    set -- $keys
    [ "$#" -eq 2 ] && [ "$1" != "$2" ] && case_ok "$c-status-distinct" \
        || case_fail "$c-status-distinct" "key numbers:$keys"
}

import_both() {
    cc import --anchor "$ROOT" --untrusted "$W/untrusted.pem" "$W/root.crl" "$W/${2-}a.crl" "$W/${2-}b.crl" \
        >"$W/o" 2>"$W/e" || { cat "$W/e" >&2; case_fail "$1-import" "a CRL was refused"; return; }
    case_ok "$1-import"
}

# Case 1: both CRLs number 01.
pki_gencrl inta "$W/a.crl" number=01
pki_gencrl intb "$W/b.crl" number=01
STATE=$W/state-equal
import_both equal
answers equal
status_keys equal

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

# key_case P SUBJ KEYTYPE: a pair of KEYTYPE CAs (see pair) whose CRLs
# both number 01, each answering for its own key's certificates.
key_case() {
    local p=$1
    pair "$@"
    pki_gencrl "${p}inta" "$W/${p}a.crl" number=01
    pki_gencrl "${p}intb" "$W/${p}b.crl" number=01
    STATE=$W/state-$p
    import_both "${p%-}" "$p"
    answers "${p%-}" "$p"
    status_keys "${p%-}" "$p"
}

# Case 3: DSA CAs, whose key the provider identifies from y (the
# subjectPublicKey of a DSA key is the INTEGER y, RFC 3279 2.3.2).
key_case dsa- "/CN=Roll DSA CA" dsa
# Case 4: Ed25519 CAs (OpenSSL 3.0's EdDSA keys answer only "pub").
key_case ed- "/CN=Roll Ed25519 CA" ed25519
# Case 5: EC CAs whose certificates hold the compressed point: the fetcher
# hashes the certificate's bytes, the provider the key object the verifier
# decoded from them; both must name one key (format.h "key").
key_case ecc- "/CN=Roll EC compressed CA" ec-compressed
# Case 6: ML-DSA-65 CAs (OpenSSL 3.5+; FIPS 204) whose leaves carry no
# authorityKeyIdentifier: only the verifying key's identity, the SHA-256
# of its raw 1952-byte public key, tells the provider which key's CRLs
# answer (without it: unknown, refused under on_unknown = deny).
if openssl list -key-managers 2>/dev/null | grep -qiw ml-dsa-65; then
    pair mldsa- "/CN=Roll ML-DSA CA" ml-dsa-65 noakid=1
    pki_gencrl mldsa-inta "$W/mldsa-a.crl" number=01
    pki_gencrl mldsa-intb "$W/mldsa-b.crl" number=01
    STATE=$W/state-mldsa
    import_both mldsa mldsa-
    for leaf in a1000:revoked a1001:good b1000:good b1001:revoked; do
        want=${leaf#*:}; leaf=mldsa-${leaf%%:*}
        cl_verify "$PKI/$leaf.pem" --set on_unknown=deny
        if [ "$want" = revoked ]; then
            if [ "$CLIENT_RC" -ne 0 ] && grep -q 'certificate is revoked' "$W/client.out"; then case_ok "mldsa-provider-$leaf"
            else cat "$W/client.out" >&2; case_fail "mldsa-provider-$leaf" "verify did not fail as revoked"; fi
        elif [ "$CLIENT_RC" -eq 0 ]; then case_ok "mldsa-provider-$leaf"
        else cat "$W/client.out" >&2; case_fail "mldsa-provider-$leaf" "verify failed"; fi
    done
else
    note "ML-DSA case skipped: openssl $(openssl version | cut -d' ' -f2) has no ML-DSA"
fi
finish
