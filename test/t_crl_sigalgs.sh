#!/usr/bin/env bash
# The CRL signature is verified over the received TBS bytes (fetcher/crl.c
# sig_verify) for every algorithm family a CA uses: RSA PKCS#1 v1.5,
# RSASSA-PSS (parameters from the AlgorithmIdentifier, RFC 4055), ECDSA
# and Ed25519 (RFC 8410).  Each CRL made by `openssl ca` is accepted and
# the revoked serial is indexed; the same CRL with one signature bit
# flipped is refused for its signature.
. "$(dirname "$0")/lib.sh"
need_crlcache
: >"$W/empty.conf"
CONF=$W/empty.conf
for t in rsa pss ec ed25519; do
    d=$W/$t
    mkdir -p "$d"
    case $t in
        rsa|pss) ka=(-newkey rsa:2048) ;;
        ec) ka=(-newkey ec -pkeyopt ec_paramgen_curve:P-384) ;;
        ed25519) ka=(-newkey ed25519) ;;
    esac
    so=(-md sha256)
    case $t in
        pss) so=(-md sha256 -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:32) ;;
        ec) so=(-md sha384) ;;
        ed25519) so=() ;;
    esac
    openssl req -x509 "${ka[@]}" -nodes -keyout "$d/key.pem" -out "$d/cert.pem" \
        -subj "/CN=Sig $t" -days 30 -addext "keyUsage=critical,keyCertSign,cRLSign" \
        2>"$W/openssl.err" || { cat "$W/openssl.err" >&2; fail "$t: cannot make the CA"; }
    echo 01 >"$d/crlnumber"
    cat >"$d/ca.cnf" <<EOF
[ca]
default_ca = d
[d]
database = $d/index.txt
crlnumber = $d/crlnumber
default_md = sha256
default_crl_days = 7
[crlext]
authorityKeyIdentifier = keyid:always
EOF
    # serial 0A1B2C revoked straight in the database (no certificate needed)
    printf 'R\t351231235959Z\t%s,keyCompromise\t0A1B2C\tunknown\t/CN=leaf\n' \
        "$(date -u +%y%m%d%H%M%SZ)" >"$d/index.txt"
    openssl ca -batch -config "$d/ca.cnf" -cert "$d/cert.pem" -keyfile "$d/key.pem" \
        -gencrl -crlexts crlext "${so[@]}" -out "$d/crl.pem" 2>"$W/openssl.err" \
        || { cat "$W/openssl.err" >&2; fail "$t: openssl ca -gencrl failed"; }
    openssl crl -in "$d/crl.pem" -outform DER -out "$d/crl.der"
    alg=$(openssl crl -inform DER -in "$d/crl.der" -noout -text | sed -n 's/.*Signature Algorithm: //p' | head -n1)
    note "$t: $alg"
    STATE=$W/state-$t
    if cc import --anchor "$d/cert.pem" "$d/crl.der" >/dev/null 2>"$W/last.err"; then
        cc status >"$W/status" 2>&1 || true
        if grep -q '^revoked 1$' "$W/status"; then case_ok "$t"; else case_fail "$t" "the entry is not indexed"; fi
    else
        case_fail "$t" "a good CRL was refused: $(cat "$W/last.err" 2>/dev/null)"
    fi
    # flip the last bit of the signature
    python3 - "$d/crl.der" "$d/bad.der" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read()); b[-1] ^= 1
open(sys.argv[2], 'wb').write(b)
PY
    STATE=$W/state-$t-bad
    if cc import --anchor "$d/cert.pem" "$d/bad.der" >/dev/null 2>"$W/bad.err"; then
        case_fail "$t-tampered" "a CRL with a flipped signature bit was accepted"
    elif grep -q 'signature' "$W/bad.err"; then
        case_ok "$t-tampered"
    else
        case_fail "$t-tampered" "refused, but not for its signature: $(cat "$W/bad.err")"
    fi
done
finish
