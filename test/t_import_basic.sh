#!/usr/bin/env bash
# import: offline CRL ingestion; check revoked / good / unknown / stale; --chain
# worst-state rule (revoked > stale > unknown > good).
. "$(dirname "$0")/lib.sh"
need_crlcache

BASE_URL=http://127.0.0.1:9   # only written into CDPs, never fetched here
pki_root root "/CN=Test Root/O=crlcache tests"
pki_ca int  root "/CN=Test Int/O=crlcache tests"  cdp="$BASE_URL/root.crl"
pki_ca int2 root "/CN=Test Int 2/O=crlcache tests" cdp="$BASE_URL/root.crl"
pki_ca int3 root "/CN=Test Int 3/O=crlcache tests" cdp="$BASE_URL/root.crl"
# First leaf of each CA gets serial 1000: rev1 (int) and other1 (int2) share a
# serial, so a lookup keyed on the serial alone would wrongly say revoked.
pki_leaf rev1   int  "/CN=rev1.test"   cdp="$BASE_URL/int.crl"
pki_leaf good1  int  "/CN=good1.test"  cdp="$BASE_URL/int.crl"
pki_leaf other1 int2 "/CN=other1.test" cdp="$BASE_URL/int2.crl"
pki_leaf l3     int3 "/CN=l3.test"     cdp="$BASE_URL/int3.crl"
[ "$(serial_of "$PKI/rev1.pem")" = "$(serial_of "$PKI/other1.pem")" ] || fail "serial setup"

pki_revoke int "$PKI/rev1.pem" reason=keyCompromise
pki_gencrl int "$W/int.crl"                 # DER
pki_gencrl int3 "$W/int3.crl" form=pem      # PEM, empty
crl_text "$W/int.crl" | grep -q 'Key Compromise' || fail "CRL does not carry the reason"

# Root CRL: revokes int2; int itself is good.
pki_revoke root "$PKI/int2/cert.pem" reason=CACompromise
pki_gencrl root "$W/root.crl"

write_conf "# empty"
cat "$PKI/int/cert.pem" "$PKI/int2/cert.pem" "$PKI/int3/cert.pem" >"$W/untrusted.pem"

# 1. check before any import: no index -> error exit >= 4
cc check "$PKI/good1.pem" >"$W/o" 2>"$W/e"; rc=$?
[ "$rc" -ge 4 ] || fail "check without an index: exit $rc, expected >= 4"
note "check without index -> exit $rc"

# 2. import
assert_exit 0 cc import --anchor "$PKI/root/cert.pem" --untrusted "$W/untrusted.pem" \
    "$W/int.crl" "$W/root.crl" "$W/int3.crl"
[ -f "$STATE/index.mdb" ] || fail "no $STATE/index.mdb after import"

# 3. single certificates
check_is revoked 1 "$PKI/rev1.pem"
grep -Eiq 'key ?compromise' "$W/check.out" || { cat "$W/check.out" >&2; fail "revoked line lacks the reason keyCompromise"; }
grep -Eq '20[0-9][0-9]' "$W/check.out" || { cat "$W/check.out" >&2; fail "revoked line lacks a date"; }
check_is good 0 "$PKI/good1.pem"
check_is good 0 "$PKI/l3.pem"           # PEM CRL was ingested
check_is unknown 2 "$PKI/other1.pem"    # int2 has no CRL (same serial as rev1)
check_is revoked 1 "$PKI/int2/cert.pem" # root CRL
check_is good 0 "$PKI/int/cert.pem"

# 4. chains: one line per certificate, worst state decides
check_is good 0 --chain "$PKI/int/cert.pem" "$PKI/good1.pem"
[ "$(grep -c . "$W/check.out")" -ge 2 ] || { cat "$W/check.out" >&2; fail "--chain: expected one line per certificate"; }
check_is revoked 1 --chain "$PKI/int/cert.pem" "$PKI/rev1.pem"
# leaf unknown (int2 has no CRL) but int2 revoked by root: revoked wins
cc check --chain "$PKI/int2/cert.pem" "$PKI/other1.pem" >"$W/o" 2>"$W/e"; rc=$?
[ "$rc" -eq 1 ] || { cat "$W/o" "$W/e" >&2; fail "--chain unknown leaf + revoked int2: exit $rc, want 1"; }
grep -q '^unknown' "$W/o" && grep -q '^revoked' "$W/o" || { cat "$W/o" >&2; fail "--chain: expected an unknown and a revoked line"; }

# 5. stale: a root CRL whose nextUpdate is 2 days ago (beyond the 1-day default grace)
pki_gencrl root "$W/root-old.crl" last="$(gt -259200)" next="$(gt -172800)"
STATE=$W/state2
assert_exit 0 cc import --anchor "$PKI/root/cert.pem" --untrusted "$W/untrusted.pem" \
    "$W/int.crl" "$W/root-old.crl"
check_is stale 3 "$PKI/int/cert.pem"
check_is good 0 "$PKI/good1.pem"
check_is stale 3 --chain "$PKI/int/cert.pem" "$PKI/good1.pem"     # stale > good
check_is revoked 1 --chain "$PKI/int/cert.pem" "$PKI/rev1.pem"    # revoked > stale
# stale > unknown: int3 leaf unknown here (int3 CRL not imported), int3 stale
cc check --chain "$PKI/int3/cert.pem" "$PKI/l3.pem" >"$W/o" 2>"$W/e"; rc=$?
[ "$rc" -eq 3 ] || { cat "$W/o" "$W/e" >&2; fail "--chain unknown leaf + stale int3: exit $rc, want 3"; }

finish
