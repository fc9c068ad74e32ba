#!/usr/bin/env bash
# A host with no route to the CCADB (a private PKI, an offline network)
# and the shipped crlcache.conf: the configured sources update, the issuer
# directory cannot be refreshed.  update exits 3 (a warning), not 1, and
# counts the directory apart from the sources; status exits 3 and says so
# in its summary line and its Prometheus file.  With the ccadb_* lines
# commented out, as README and crlcache.conf say, update exits 0.
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
std_pki
rev1_crl
serve "$W/int.crl" int.crl
SHIPPED=$TESTDIR/../etc/crlcache.conf
grep -q '^ccadb_records = https://ccadb' "$SHIPPED" || fail "the shipped crlcache.conf names no CCADB report"
# the CCADB's host, unreachable: a closed port of loopback
NOROUTE=http://127.0.0.1:$(closed_port)
# CRLite off: this test is about the directory (t_crlite_rs: a failed
# CRLite source exits 1).
{ sed -e "s|https://ccadb[.a-z-]*/|$NOROUTE/|" -e 's|^crlite = |#crlite = |' "$SHIPPED"
  printf '%s\n' "url = $BASE_URL/int.crl" "anchor = $PKI/root/cert.pem" \
      "untrusted = $PKI/int/cert.pem"; } >"$CONF"

cc update >"$W/u.out" 2>"$W/u.err"; rc=$?
[ "$rc" = 3 ] && case_ok "update: exit 3" || { cat "$W/u.err" >&2; case_fail "update: exit 3" "exit $rc"; }
assert_grep 'update: 1 sources, 1 updated, 0 unchanged, 0 failed; warning: issuer directory not refreshed \(CCADB\)' "$W/u.err"
check_is revoked 1 "$PKI/rev1.pem"
cc status >"$W/s.out" 2>&1; rc=$?
[ "$rc" = 3 ] && head -n 1 "$W/s.out" | grep -q '^summary directory refresh failing: 1 of 1 CRLs fresh, 1 of 1 sources ok, directory failing$' &&
    case_ok "status: exit 3, summary" || { cat "$W/s.out" >&2; case_fail "status: exit 3, summary" "exit $rc"; }
cc status --prometheus "$W/prom" >/dev/null 2>&1; rc=$?
[ "$rc" = 3 ] && grep -qx 'crlcache_directory_failing 1' "$W/prom" && grep -qx 'crlcache_failing 0' "$W/prom" &&
    case_ok "prometheus: crlcache_directory_failing 1" || { cat "$W/prom" >&2; case_fail prometheus "exit $rc"; }

# a private PKI host switches the CCADB off: the ccadb_* lines commented out
sed -i 's|^ccadb_|#ccadb_|' "$CONF"
pki_revoke int "$PKI/rev2.pem"
pki_gencrl int "$W/int.crl"
serve "$W/int.crl" int.crl
cc update >"$W/u2.out" 2>"$W/u2.err"; rc=$?
[ "$rc" = 0 ] && case_ok "CCADB off: update exit 0" || { cat "$W/u2.err" >&2; case_fail "CCADB off" "exit $rc"; }
assert_not_grep 'warning' "$W/u2.err"
check_is revoked 1 "$PKI/rev2.pem"
finish
