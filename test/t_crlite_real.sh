#!/usr/bin/env bash
# CRLite from Mozilla's real delta filter of 2026-06-24 (test/data/crlite,
# SOURCES), installed as the fetcher installs it (include/crlcache/crlite.h,
# test/crlite_set.py), with NO CRL in the index: `crlcache check` and
# `openssl verify` under the provider answer from the filter alone.  The
# GTS Root R1 revoked test site's leaf is revoked (refused, "CRLite"); the
# DigiCert TLS ECC P384 Root G5 site's leaf is good, accepted even with
# on_unknown = deny (no CRL covers it: only the filter can say good); the
# GTS Root R3 site's leaf, whose SCTs are past the filter's coverage, is
# left to the CRLs (unknown: refused under on_unknown = deny).  The leaves
# have expired: checked at 2026-06-25 (--at, -attime; the provider, which
# judges the filter's freshness by its own clock, under faketime).  At
# today's date the filter is long stale (include/crlcache/crlite.h
# FRESHNESS): its revocation still counts, its good does not.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
command -v faketime >/dev/null || skip "faketime not installed (test/deps.sh installs it)"
SITES=$DATA/crlite/sites
AT=2026-06-25T00:00:00Z
ATTIME=$(date -u -d "$AT" +%s)
for s in gts-root-r1 digicert-p384-g5 gts-root-r3; do
    openssl x509 -inform DER -in "$SITES/$s.leaf.der" -out "$W/$s.leaf.pem"
    openssl x509 -inform DER -in "$SITES/$s.issuer.der" -out "$W/$s.issuer.pem"
done
write_conf "# no CRL sources: an empty index"
assert_exit 0 cc update
"$PY" "$TESTDIR/crlite_set.py" "$STATE" "$DATA/crlite/20260624-1-default.filter.delta" \
    || fail "crlite_set.py failed"

# crlcache check
check_is 'revoked \(CRLite, filter 2026-06-24T12:50:24Z\)' 1 --at "$AT" \
    --chain "$W/gts-root-r1.issuer.pem" "$W/gts-root-r1.leaf.pem"
assert_grep 'serial=00FA43623B0DC703C81053FC646BEC3A20' "$W/check.out"
case_ok "check: the GTS Root R1 site's leaf is revoked (CRLite)"
# the leaf is good; its issuer, which no filter speaks for, is unknown
check_is 'unknown' 2 --at "$AT" --chain "$W/digicert-p384-g5.issuer.pem" "$W/digicert-p384-g5.leaf.pem"
assert_grep '^good \(CRLite, filter 2026-06-24T12:50:24Z\) subject=CN=digicert-tls-ecc-p384' "$W/check.out"
case_ok "check: the DigiCert P384 G5 site's leaf is good (CRLite)"
check_is 'unknown' 2 --at "$AT" --chain "$W/gts-root-r3.issuer.pem" "$W/gts-root-r3.leaf.pem"
assert_not_grep 'CRLite' "$W/check.out"
case_ok "check: the GTS Root R3 site's leaf, outside the coverage, is the CRLs' (unknown)"

# openssl verify under the provider: the leaf's signature is verified with
# its issuer's key, which the provider hashes (SPKI) itself
vfy() {  # vfy SITE [--set K=V]...  (FAKE_AT: the provider's clock, "" for now)
    local s=$1; shift
    TZ=UTC px --set on_unknown=deny "$@" -- faketime -f "${FAKE_AT-@2026-06-25 00:00:00}" \
        openssl verify -partial_chain -attime "$ATTIME" \
        -CAfile "$W/$s.issuer.pem" "$W/$s.leaf.pem" >"$W/v.out" 2>&1
}
vfy gts-root-r1 && { cat "$W/v.out"; fail "the revoked leaf verified"; }
assert_grep 'certificate is revoked \(CRLite, refused\): serial=00FA43623B0DC703C81053FC646BEC3A20' "$W/v.out"
assert_grep 'revoked \(CRLite filter of 2026-06-24T12:50:24Z\)' "$W/v.out"
case_ok "verify: the GTS Root R1 site's leaf is refused as revoked (CRLite)"
vfy gts-root-r1 --set on_unknown=allow --set validity_policy=off \
    && { cat "$W/v.out"; fail "the revoked leaf verified with on_unknown = allow"; }
case_ok "verify: refused whatever on_unknown and validity_policy say"
vfy digicert-p384-g5 || { cat "$W/v.out"; fail "the good leaf refused"; }
assert_grep ': OK$' "$W/v.out"
assert_not_grep 'unknown' "$W/v.out"
case_ok "verify: the DigiCert P384 G5 site's leaf is good from the filter, with on_unknown = deny"
vfy gts-root-r3 && { cat "$W/v.out"; fail "a leaf outside the coverage was not left to the CRLs"; }
assert_grep 'revocation status unknown \(refused\)' "$W/v.out"
case_ok "verify: the GTS Root R3 site's leaf (not covered) falls to on_unknown"
# audit: logged, allowed
vfy gts-root-r1 --set mode=audit || { cat "$W/v.out"; fail "audit refused"; }
assert_grep 'certificate is revoked \(CRLite, audit, allowed\)' "$W/v.out"
case_ok "verify: mode = audit logs the CRLite revocation and allows"

# today: the filter of 2026-06-24 is stale; revoked still counts, good not
FAKE_AT=+0 vfy gts-root-r1 && { cat "$W/v.out"; fail "a stale filter's revocation did not count"; }
assert_grep 'certificate is revoked \(CRLite, refused\)' "$W/v.out"
FAKE_AT=+0 vfy digicert-p384-g5 && { cat "$W/v.out"; fail "a stale filter's good answered"; }
assert_grep 'CRLite data in .* stale since 2026-06-26T12:50:24Z' "$W/v.out"
assert_grep 'revocation status unknown \(refused\)' "$W/v.out"
case_ok "verify: a stale filter's revocation is refused, its good left to the CRLs (unknown)"
check_is 'unknown' 2 --chain "$W/digicert-p384-g5.issuer.pem" "$W/digicert-p384-g5.leaf.pem"
assert_not_grep 'CRLite' "$W/check.out"
assert_grep 'CRLite data in .* stale since 2026-06-26T12:50:24Z' "$W/check.err"
case_ok "check: today the filter is stale; its good leaf is the CRLs' (unknown)"
finish
