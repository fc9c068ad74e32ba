#!/usr/bin/env bash
# The provider's validity_policy (CA/B BR 6.3.2, ballot SC-081) on real
# chains with `openssl verify`: a DV certificate of 201 days (limit 200 for
# notBefore >= 2026-03-15) passes under audit (logged once), fails under
# enforce with a message naming the period and the limit, passes under off;
# a 200-day one always passes.  With on_unknown = deny, a 7-day DV
# certificate that no CRL covers is accepted (short-lived), an 8-day one is
# refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
DAY=86400
now=$(now_epoch)
[ "$now" -ge 1773532800 ] || skip "clock before 2026-03-15: the 200-day rule is not in force"
pki_root root "/CN=Validity Prov Root/O=crlcache tests"
pki_ca int root "/CN=Validity Prov Int/O=crlcache tests"
nb=$((now - 3600))
dated long int "$nb" $((201 * DAY - 1))     # 201 days counted inclusively
dated fine int "$nb" $((200 * DAY - 1))     # exactly 200
dated short7 int "$nb" $((7 * DAY - 1))
dated short8 int "$nb" $((8 * DAY - 1))
ROOT=$PKI/root/cert.pem
mkdir -p "$STATE"     # no index at all: every certificate is "unknown"
vfy() {   # vfy CERT [--set K=V]... : openssl verify under the provider
    local cert=$1; shift
    px "$@" -- openssl verify -CAfile "$ROOT" -untrusted "$PKI/int/cert.pem" \
        "$PKI/$cert.pem" >"$W/v.out" 2>&1
}
vfy long --set validity_policy=enforce && { cat "$W/v.out"; fail "201-day certificate accepted under enforce"; }
assert_grep 'certificate validity exceeds the CA/B Forum limit' "$W/v.out"
assert_grep 'validity=201d max=200d' "$W/v.out"
note "enforce: $(grep -m1 'exceeds the CA/B' "$W/v.out")"
vfy fine --set validity_policy=enforce || { cat "$W/v.out"; fail "200-day certificate refused"; }
vfy long --set validity_policy=audit || { cat "$W/v.out"; fail "audit refused"; }
assert_grep 'lifetime over the CA/B Forum limit \(audit, allowed\)' "$W/v.out"
[ "$(grep -c 'lifetime over the CA/B' "$W/v.out")" -eq 1 ] || fail "audit logged more than once for one certificate"
vfy long --set validity_policy=off || { cat "$W/v.out"; fail "off refused"; }
assert_not_grep 'CA/B' "$W/v.out"

# on_unknown = deny with no index: short-lived accepted, 8 days refused.
# An empty index (the root's CRL only) so that the provider has one to read.
pki_gencrl root "$W/root.crl"
write_conf "# provider validity test"
assert_exit 0 cc import --anchor "$ROOT" "$W/root.crl"
vfy short7 --set on_unknown=deny || { cat "$W/v.out"; fail "7-day certificate refused under on_unknown=deny"; }
vfy short8 --set on_unknown=deny && { cat "$W/v.out"; fail "8-day unknown certificate accepted under on_unknown=deny"; }
assert_grep 'revocation status unknown' "$W/v.out"
note "validity_policy ok"
