#!/usr/bin/env bash
# The fetcher's integration path under valgrind: update (good, partitioned,
# delta, 404, garbage, refused and redirected sources, direct and through a
# proxy), import, check, status --json,
# exec's config generation and enable/disable run with
# --error-exitcode and full leak checking; any error or leak fails.
. "$(dirname "$0")/lib.sh"
need_crlcache
command -v valgrind >/dev/null || skip "valgrind not installed"
VG=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,possible)
vg() { "${VG[@]}" "$CRLCACHE" --state-dir "$STATE" -c "$CONF" "$@"; }
httpd_start
std_pki
pki_revoke int "$PKI/rev1.pem"
pki_gencrl int "$W/int.crl" number=10
pki_gencrl int "$W/p1.crl" idp="$BASE_URL/p1.crl" number=20
serve "$W/int.crl" int.crl
serve "$W/p1.crl" p1.crl
printf 'garbage' >"$W/bad.crl"; serve "$W/bad.crl" bad.crl
cport=$(closed_port)
write_conf "url = $BASE_URL/int.crl" "url = $BASE_URL/p1.crl" "url = $BASE_URL/bad.crl" \
    "url = $BASE_URL/status/404/x.crl" "url = http://127.0.0.1:$cport/y.crl" \
    "url = $BASE_URL/redirect/1/int.crl" "url = $BASE_URL/redirect-to/127.0.0.2:$cport/z.crl" \
    "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem" "retries = 1" "timeout = 5"
vg update >"$W/u1.out" 2>&1; rc=$?
[ "$rc" -eq 1 ] || { cat "$W/u1.out"; fail "update under valgrind: exit $rc (99 = valgrind error)"; }
vg update >"$W/u2.out" 2>&1; rc=$?          # conditional GETs, 304s
[ "$rc" -eq 1 ] || { cat "$W/u2.out"; fail "second update under valgrind: exit $rc"; }
# through a proxy (nothing listens): every hop's host checked first
http_proxy=http://127.0.0.1:$cport no_proxy= NO_PROXY= vg update >"$W/u3.out" 2>&1; rc=$?
[ "$rc" -eq 1 ] || { cat "$W/u3.out"; fail "update through a proxy under valgrind: exit $rc"; }
pki_revoke int "$PKI/rev2.pem"
pki_gencrl int "$W/delta.crl" delta=16 number=11
vg import "$W/delta.crl" >"$W/i.out" 2>&1 || { cat "$W/i.out"; fail "import of a delta under valgrind"; }
vg check --chain "$PKI/int/cert.pem" "$PKI/rev1.pem" >"$W/c.out" 2>&1; rc=$?
[ "$rc" -eq 1 ] || { cat "$W/c.out"; fail "check under valgrind: exit $rc"; }
# 2: sources failing (the proxy run's), as status says; not valgrind's code
vg status --json >"$W/s.out" 2>&1; rc=$?
[ "$rc" -eq 2 ] || { cat "$W/s.out"; fail "status under valgrind: exit $rc"; }
vg status --prometheus "$W/p.prom" >"$W/p.out" 2>&1; rc=$?
[ "$rc" -eq 2 ] || { cat "$W/p.out"; fail "status --prometheus under valgrind: exit $rc"; }
vg exec -- true >"$W/e.out" 2>&1 || { cat "$W/e.out"; fail "exec under valgrind"; }
cp "$(openssl version -d | sed -E 's/^OPENSSLDIR: "(.*)"$/\1/')/openssl.cnf" "$W/o.cnf"
vg enable --openssl-cnf "$W/o.cnf" --module "$CRLCACHE_MODULES/crlcache.so" \
    --snippet "$TESTDIR/../openssl.cnf.d/crlcache.cnf" >"$W/en.out" 2>&1 || { cat "$W/en.out"; fail "enable under valgrind"; }
vg disable --openssl-cnf "$W/o.cnf" >"$W/di.out" 2>&1 || { cat "$W/di.out"; fail "disable under valgrind"; }
note "fetcher clean under valgrind"
