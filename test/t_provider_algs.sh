#!/usr/bin/env bash
# Every certificate signature algorithm the provider covers: an issuing CA
# of each key type (RSA PKCS#1 v1.5, RSA-PSS, ECDSA P-256/P-384/P-521,
# Ed25519, Ed448, DSA, SM2 with SM3, and where the openssl CLI has them
# (3.5+; Debian 12's 3.0 has not, those rows are skipped and said so)
# ML-DSA-44/65/87 and SLH-DSA) signs a good and a revoked leaf and its
# CRL; under the provider `openssl verify` accepts the good leaf and
# refuses the revoked one with crlcache's reason, and OpenSSL really used
# the algorithm.  DSA and SM2 passed unseen before the provider wrapped the
# default provider's whole signature table; on OpenSSL
# 3.5 revoked ML-DSA and SLH-DSA leaves were accepted: 12 slots were too
# few for its 22 signature key types, and an ML-DSA key (up to 2592 bytes)
# had no identity.  No key type may be reported as "no room".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
BASE_URL=http://127.0.0.1:9   # written into CDPs only
pki_root root "/CN=Algs Root/O=crlcache tests"
ROOT=$PKI/root/cert.pem
write_conf "# algorithm test"
# The SLH-DSA "f" sets sign in milliseconds ("s" ones take seconds).
for kt in rsa rsa-pss ec ec384 ec521 ed25519 ed448 dsa sm2 \
    ml-dsa-44 ml-dsa-65 ml-dsa-87 slh-dsa-sha2-128f slh-dsa-shake-256f; do
    case $kt in
        ml-dsa-*|slh-dsa-*)
            if ! openssl list -key-managers 2>/dev/null | grep -qiw -- "$kt"; then
                note "$kt: skipped, openssl $(openssl version | cut -d' ' -f2) has no such key type"
                continue
            fi ;;
    esac
    ca=ca_${kt//-/_}
    pki_ca "$ca" root "/CN=Algs $kt CA/O=crlcache tests" keytype="$kt"
    pki_leaf "good_$ca" "$ca" "/CN=good.$kt.test"
    pki_leaf "rev_$ca" "$ca" "/CN=rev.$kt.test"
    pki_revoke "$ca" "$PKI/rev_$ca.pem" reason=keyCompromise
    pki_gencrl "$ca" "$W/$ca.crl"
    assert_exit 0 cc import --anchor "$ROOT" --untrusted "$PKI/$ca/cert.pem" "$W/$ca.crl"
    alg=$(openssl x509 -in "$PKI/good_$ca.pem" -noout -text | sed -n 's/^ *Signature Algorithm: //p' | head -n1)
    px -- openssl verify -CAfile "$ROOT" -untrusted "$PKI/$ca/cert.pem" \
        "$PKI/good_$ca.pem" >"$W/good.out" 2>&1 \
        && case_ok "$kt ($alg) good accepted" \
        || { cat "$W/good.out"; case_fail "$kt" "good leaf refused"; }
    if px -- openssl verify -CAfile "$ROOT" -untrusted "$PKI/$ca/cert.pem" \
        "$PKI/rev_$ca.pem" >"$W/rev.out" 2>&1; then
        case_fail "$kt" "revoked leaf accepted"
    elif ! grep -q 'certificate is revoked (crlcache)' "$W/rev.out"; then
        cat "$W/rev.out"; case_fail "$kt" "refused, but not by crlcache"
    else
        case_ok "$kt ($alg) revoked refused"
    fi
    if grep -h -m1 'no room' "$W/good.out" "$W/rev.out"; then
        case_fail "$kt" "the provider had no room for a key type"
    fi
done
finish
