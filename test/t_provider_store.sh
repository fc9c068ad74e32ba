#!/usr/bin/env bash
# The "crlcache:" STORE loader: `openssl storeutl crlcache:` lists the stored
# signed CRLs; `openssl verify -crl_check -CAstore crlcache:` (the
# X509_LOOKUP_store path that X509_STORE_load_store uses) gets them from the
# index, so OpenSSL's own CRL check reports error 23 "certificate revoked".
# The CRL check runs before the chain signatures are verified, so error 23
# comes first even with the signature proxy on; with mode = off (no proxy)
# the store alone must still give error 23.  Controls: without -CAstore the
# same command says error 3 "unable to get certificate CRL".  Also: the
# loader returns nothing for -certs, a missing index gives an empty store,
# and issuer names that differ only in encoding (X509_NAME_cmp) match.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"

tls_ready

# crlv [exec args] -- CERT [openssl verify options]
crlv() {
    local sets=()
    while [ "$1" != -- ]; do sets+=("$1"); shift; done; shift
    local cert=$1; shift
    px ${sets[@]+"${sets[@]}"} -- openssl verify -CAfile "$ROOT" -untrusted "$W/untrusted.pem" \
        "$@" "$cert" >"$W/v.out" 2>&1
    VRC=$?
    sed 's/^/    | /' "$W/v.out"
}
# want_err CODE LABEL: $W/v.out must show "error CODE at"; nonzero exit
want_err() {
    if [ "$VRC" -ne 0 ] && grep -q "^error $1 at" "$W/v.out"; then case_ok "$2"; else case_fail "$2" "wanted error $1, exit $VRC"; fi
}
want_ok() {
    if [ "$VRC" -eq 0 ] && grep -q ': OK$' "$W/v.out"; then case_ok "$1"; else case_fail "$1" "wanted OK, exit $VRC"; fi
}
# storeutl_count [exec args] -- [options] URI: sets SRC (exit) and N, the
# objects listed ("1: CRL" lines).  OpenSSL 3.0 ends with "Total found: N"
# even for 0, 3.5 prints that line only for N > 0: where it is printed it
# must agree with the lines counted.
storeutl_count() {
    local sets=() total
    while [ "$1" != -- ]; do sets+=("$1"); shift; done; shift
    px ${sets[@]+"${sets[@]}"} -- openssl storeutl "$@" >"$W/s.out" 2>&1
    SRC=$?
    N=$(grep -cE '^[0-9]+: [A-Za-z]' "$W/s.out")
    total=$(sed -n 's/^Total found: //p' "$W/s.out")
    [ -z "$total" ] || [ "$total" = "$N" ] || N="$N listed, but 'Total found: $total'"
}

# 1. Listing: the three CRLs, whatever follows the scheme.
storeutl_count -- crlcache:; n=$N
[ "$SRC" -eq 0 ] && [ "$n" = 3 ] && grep -c '^[0-9]*: CRL$' "$W/s.out" | grep -qx 3 \
    && case_ok "storeutl crlcache: lists 3 CRLs" || { cat "$W/s.out" >&2; case_fail storeutl "exit $SRC, found '$n'"; }
storeutl_count -- crlcache:whatever; n=$N
[ "$SRC" -eq 0 ] && [ "$n" = 3 ] && case_ok "storeutl crlcache:whatever lists 3 CRLs" \
    || { cat "$W/s.out" >&2; case_fail storeutl-suffix "exit $SRC, found '$n'"; }
# The DER is the stored, original signed CRL: byte-identical.
openssl crl -inform DER -in "$W/int.crl" -outform PEM -out "$W/int.pem"
px -- openssl storeutl crlcache: >"$W/s.pem" 2>&1
grep -q "$(sed -n 2p "$W/int.pem")" "$W/s.pem" && case_ok "int.crl served byte for byte" \
    || case_fail der-identical "int.crl's PEM not in the listing"
# OSSL_STORE_expect(CERT): nothing (the loader holds only CRLs).
storeutl_count -- -certs crlcache:; n=$N
[ "$n" = 0 ] && case_ok "storeutl -certs: 0" || { cat "$W/s.out" >&2; case_fail expect-certs "found '$n'"; }
storeutl_count -- -crls crlcache:; n=$N
[ "$n" = 3 ] && case_ok "storeutl -crls: 3" || { cat "$W/s.out" >&2; case_fail expect-crls "found '$n'"; }

# 2. verify -crl_check -CAstore crlcache: with the provider enforcing.
echo "  verify -crl_check -CAstore crlcache: rev_ec"
crlv -- "$PKI/rev_ec.pem" -crl_check -CAstore crlcache:
want_err 23 "rev_ec: error 23 certificate revoked (CRL check from the store)"
grep -q 'certificate revoked' "$W/v.out" || case_fail rev-words "no 'certificate revoked'"
crlv -- "$PKI/good_rsa.pem" -crl_check -CAstore crlcache:
want_ok "good_rsa: OK with -crl_check -CAstore crlcache:"
crlv -- "$PKI/good_ec.pem" -crl_check_all -CAstore crlcache:
want_ok "good_ec: OK with -crl_check_all (root CRL from the store too)"
echo "  verify -crl_check_all -CAstore crlcache: under2_rsa (int2 revoked by root)"
crlv -- "$PKI/under2_rsa.pem" -crl_check_all -CAstore crlcache:
want_err 23 "under2_rsa: error 23 at depth 1"
grep -q '^error 23 at 1 depth' "$W/v.out" || case_fail under2-depth "not at depth 1"

# Control: no store, no CRL -> error 3; so error 23 above came from the store.
crlv -- "$PKI/good_rsa.pem" -crl_check
want_err 3 "control: -crl_check without -CAstore: error 3 unable to get certificate CRL"

# 3. mode = off: no signature proxy at all; the store alone gives error 23.
crlv --set mode=off -- "$PKI/rev_rsa.pem" -crl_check -CAstore crlcache:
want_err 23 "mode=off: rev_rsa error 23 from the store alone"
crlv --set mode=off -- "$PKI/rev_rsa.pem"
want_ok "mode=off control: rev_rsa OK without -crl_check (proxy really off)"

# 4. Missing index: empty store, no crash, the CRL check cannot find a CRL.
STATE_SAVED=$STATE; STATE=$W/empty-state; mkdir -p "$STATE"
storeutl_count -- crlcache:; n=$N
[ "$SRC" -eq 0 ] && [ "$n" = 0 ] && case_ok "missing index: storeutl lists 0" \
    || { cat "$W/s.out" >&2; case_fail missing-storeutl "exit $SRC, found '$n'"; }
crlv -- "$PKI/rev_ec.pem" -crl_check -CAstore crlcache:
want_err 3 "missing index: error 3 (no CRL), nothing else"
STATE=$STATE_SAVED

# 5. Issuer encoded differently in the certificate (PrintableString "Enc Int")
# and in the CRL (UTF8String "enc int"): X509_NAME_cmp says equal, and the
# loader's by-name filter must agree, or the CRL check finds no CRL.
pki_ca encp root "/CN=Enc Int" mask=default
pki_ca encu root "/CN=enc int" mask=utf8only key="$PKI/encp/key.pem"
pki_leaf enc_rev encp "/CN=enc-rev.test"
pki_revoke encp "$PKI/enc_rev.pem"
pki_gencrl encp "$W/enc.crl" cert="$PKI/encu/cert.pem" key="$PKI/encp/key.pem"
openssl asn1parse -inform DER -in "$W/enc.crl" | grep -q 'UTF8STRING *:enc int' || fail "enc.crl issuer not UTF8 'enc int'"
STATE=$W/enc-state
assert_exit 0 cc import --anchor "$ROOT" --untrusted "$PKI/encp/cert.pem" "$W/enc.crl"
px --set mode=off -- openssl verify -crl_check -CAfile "$ROOT" -untrusted "$PKI/encp/cert.pem" \
    -CAstore crlcache: "$PKI/enc_rev.pem" >"$W/v.out" 2>&1; VRC=$?
sed 's/^/    | /' "$W/v.out"
want_err 23 "name encoding: UTF8 CRL issuer matches PrintableString certificate issuer"

finish
