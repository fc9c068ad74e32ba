#!/usr/bin/env bash
# update and status count the same sources and agree on the verdict.  The
# shipped crlcache.conf on a host with no route out (its CCADB, CRLite and
# OneCRL URLs a closed port of loopback): update exits 1 and its summary
# counts and names what failed (CRLite, OneCRL) and keeps no directory
# that never existed; status counts the same two sources, each failing
# with its failures counted.  After README's advice for an offline host
# (the crlite and ccadb_* lines commented out) the next update removes
# their records: status exits 0.  A url line that failed and is taken out
# no longer counts either; the CRLs a removed source fed, and a CRL
# imported by hand, stay.
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
std_pki
rev1_crl
serve "$W/int.crl" int.crl
# the CA whose CRL is imported by hand
pki_ca other root "/CN=Other Int/O=crlcache tests"
pki_leaf o1 other "/CN=o1.test"
pki_revoke other "$PKI/o1.pem"
pki_gencrl other "$W/other.crl"

SHIPPED=$TESTDIR/../etc/crlcache.conf
NOROUTE=http://127.0.0.1:$(closed_port)
grep -q '^crlite = https://firefox' "$SHIPPED" && grep -q '^ccadb_records = https://ccadb' "$SHIPPED" ||
    fail "the shipped crlcache.conf names no CRLite server or CCADB report"
sed -e "s|https://ccadb[.a-z-]*/|$NOROUTE/|" -e "s|https://firefox[.a-z-]*/|$NOROUTE/|" \
    "$SHIPPED" >"$CONF"
echo "retries = 0" >>"$CONF"
# Nothing here may reach a public name.
if grep -E '^[a-z_]+ *= *https?://' "$CONF" | grep -v "= $NOROUTE/"; then
    fail "a URL of the copied configuration is not loopback's"
fi

# a fresh root, offline: only CRLite and OneCRL are sources
mkdir -p "$STATE"
cc update >"$W/u1.out" 2>"$W/u1.err"; rc=$?
sed 's/^/    | /' "$W/u1.err"
[ "$rc" = 1 ] && case_ok "offline: update exit 1" || case_fail "offline update" "exit $rc"
grep -q '^crlcache: update: 2 sources, 0 updated, 0 unchanged, 2 failed (CRLite, OneCRL); warning: issuer directory not refreshed (CCADB), none built yet;' "$W/u1.err" &&
    case_ok "offline: the summary counts and names what failed" ||
    case_fail "offline summary" "not '2 sources ... 2 failed (CRLite, OneCRL) ... none built yet'"
grep -q 'kept' "$W/u1.err" && case_fail "nothing kept" "'kept' said of what never existed: $(grep kept "$W/u1.err")"
cc status >"$W/s1.out" 2>&1; rc=$?
[ "$rc" = 2 ] && head -n 1 "$W/s1.out" | grep -qx 'summary sources failing: 0 of 0 CRLs fresh, 0 of 2 sources ok, directory failing' &&
    case_ok "offline: status exit 2, the same 2 sources" ||
    { cat "$W/s1.out" >&2; case_fail "offline status" "exit $rc"; }
cc status --json >"$W/s1.json" 2>/dev/null
python3 - "$W/s1.json" <<'PY' && case_ok "offline: JSON failing sources count their failures" || case_fail "offline json" "$(cat "$W/s1.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["failing"] is True and len(d["sources"]) == 2, d
for s in d["sources"]:
    assert s["failing"] is True and s["failures"] >= 1 and s["error"], s
PY

# README's advice for an offline host: CRLite and the CCADB switched off
sed -i -e 's/^crlite = /#crlite = /' -e 's/^ccadb_/#ccadb_/' "$CONF"
cc update >"$W/u2.out" 2>"$W/u2.err"; rc=$?
[ "$rc" = 0 ] && grep -q 'update: 0 sources, 0 updated, 0 unchanged, 0 failed' "$W/u2.err" &&
    case_ok "switched off: update exit 0, 0 sources" || { cat "$W/u2.err" >&2; case_fail "switched off update" "exit $rc"; }
cc status >"$W/s2.out" 2>&1; rc=$?
[ "$rc" = 0 ] && head -n 1 "$W/s2.out" | grep -qx 'summary ok: 0 of 0 CRLs fresh, 0 of 0 sources ok, directory ok' &&
    ! grep -q '^source ' "$W/s2.out" && case_ok "switched off: status exit 0, no source" ||
    { cat "$W/s2.out" >&2; case_fail "switched off status" "exit $rc"; }

# a CRL imported by hand; a url that serves, one that fails (404)
assert_exit 0 cc import --anchor "$PKI/root/cert.pem" --untrusted "$PKI/other/cert.pem" "$W/other.crl"
printf '%s\n' "url = $BASE_URL/int.crl" "url = $BASE_URL/missing.crl" \
    "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem" >>"$CONF"
cc update >"$W/u3.out" 2>"$W/u3.err"; rc=$?
[ "$rc" = 1 ] && grep -q 'update: 2 sources, 1 updated, 0 unchanged, 1 failed; generation' "$W/u3.err" &&
    case_ok "a url failing: update exit 1, 1 of 2 failed" || { cat "$W/u3.err" >&2; case_fail "url failing" "exit $rc"; }
cc status >"$W/s3.out" 2>&1; rc=$?
[ "$rc" = 2 ] && head -n 1 "$W/s3.out" | grep -qx 'summary sources failing: 2 of 2 CRLs fresh, 1 of 2 sources ok, directory ok' &&
    case_ok "a url failing: status exit 2, 1 of 2 ok" || { cat "$W/s3.out" >&2; case_fail "url failing status" "exit $rc"; }

# the failing line taken out, then the serving one: neither counts
sed -i '/missing.crl/d' "$CONF"
assert_exit 0 cc update
assert_grep 'update: 1 sources, 0 updated, 1 unchanged, 0 failed' "$W/last.err"
cc status >"$W/s4.out" 2>&1; rc=$?
cc status --prometheus "$W/prom" >/dev/null 2>&1
[ "$rc" = 0 ] && head -n 1 "$W/s4.out" | grep -qx 'summary ok: 2 of 2 CRLs fresh, 1 of 1 sources ok, directory ok' &&
    ! grep -q 'missing.crl' "$W/s4.out" "$W/prom" && grep -qx 'crlcache_failing 0' "$W/prom" &&
    case_ok "a failed url taken out: status exit 0, not shown" ||
    { cat "$W/s4.out" "$W/prom" >&2; case_fail "url taken out" "exit $rc"; }
sed -i '/int.crl/d' "$CONF"
assert_exit 0 cc update
cc status >"$W/s5.out" 2>&1; rc=$?
[ "$rc" = 0 ] && head -n 1 "$W/s5.out" | grep -qx 'summary ok: 2 of 2 CRLs fresh, 0 of 0 sources ok, directory ok' &&
    case_ok "every url taken out: its CRL stays until it expires" ||
    { cat "$W/s5.out" >&2; case_fail "CRLs stay" "exit $rc"; }
check_is revoked 1 "$PKI/rev1.pem"
cat "$PKI/other/cert.pem" >"$W/other-chain.pem"
check_is revoked 1 --chain "$W/other-chain.pem" "$PKI/o1.pem"
finish
