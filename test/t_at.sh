#!/usr/bin/env bash
# --at TIME on a generated PKI: a CRL whose validity
# ended days ago is stale now and good / revoked at an instant inside it,
# for check and status alike; import --at before the issuer existed
# refuses it; the RFC 3339 forms and seconds name the same instant; an
# impossible date is refused with the field named (test/unit/t_at.c has
# the rest of RFC 3339 5.7).
# (t_realcrl.sh does the same with real, long expired CRLs.)
. "$(dirname "$0")/lib.sh"

now=$(now_epoch)
last=$((now - 10 * 86400)) next=$((now - 3 * 86400))
offline_int_crl last="$(gtime "$last")" next="$(gtime "$next")"
write_conf "# --at"
A=(--anchor "$PKI/root/cert.pem" --untrusted "$PKI/int/cert.pem")

# The issuer certificates were made just now: a week ago they did not exist.
cc import --at "$((now - 7 * 86400))" "${A[@]}" "$W/int.crl" >"$W/imp.out" 2>&1 \
    && fail "import --at before the issuer's notBefore accepted"
assert_grep 'does not chain.*not yet valid' "$W/imp.out"
cc import "${A[@]}" "$W/int.crl" >"$W/imp.out" 2>&1 || fail "import: $(cat "$W/imp.out")"

check_is stale 3 "$PKI/good1.pem"
inside=$((last + 86400))
check_is good 0 --at "$inside" "$PKI/good1.pem"
assert_grep 'certificate not yet valid at that time' "$W/check.out"
check_is good 0 --at "$(date -u -d "@$inside" +%Y-%m-%dT%H:%M:%SZ)" "$PKI/good1.pem"
check_is good 0 --at "$(date -u -d "@$((inside + 7200))" +%Y-%m-%dT%H:%M:%S.5+02:00)" "$PKI/good1.pem"
check_is revoked 1 --at "$inside" "$PKI/rev1.pem"
check_is stale 3 --at "$((next + 2 * 86400))" "$PKI/good1.pem"

cc status --at "$inside" >"$W/status.out" 2>&1 || fail "status --at inside: exit $?: $(cat "$W/status.out")"
assert_not_grep ' stale' "$W/status.out"
cc status >"$W/status.out" 2>&1; rc=$?
[ "$rc" -eq 1 ] && grep -q ' stale' "$W/status.out" || fail "status now: want stale (exit 1), got $rc"
cc status --at bogus >/dev/null 2>&1; rc=$?
[ "$rc" -eq 4 ] || fail "status --at bogus: exit $rc"
# RFC 3339 5.7: no 31 February; the error names the field.
cc check --at 2026-02-31T12:00:00Z "$PKI/good1.pem" >"$W/bad.out" 2>&1; rc=$?
[ "$rc" -eq 4 ] || fail "check --at 2026-02-31: exit $rc: $(cat "$W/bad.out")"
assert_grep 'day out of range' "$W/bad.out"
note "all ok"
