#!/usr/bin/env bash
# valgrind --error-exitcode=1 --leak-check=full on programs running with the
# provider: openssl verify of a good and a revoked chain, verify -crl_check
# -CAstore crlcache: (the STORE loader), s_client against a revoked
# server (TLS 1.3), and a verify that leaves a hint.  No suppressions: any invalid access, uninitialised use
# or definite/possible leak fails the test.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
command -v valgrind >/dev/null || skip "valgrind not installed"

tls_ready
srv_start rev rev_ec
port=$(srv_port rev)

VG=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,possible)
# vg LABEL WANT_PROGRAM_EXIT(0|nonzero) [exec args] -- PROGRAM ARGS...
vg() {
    local label=$1 want=$2; shift 2
    local sets=()
    while [ "$1" != -- ]; do sets+=("$1"); shift; done; shift
    px ${sets[@]+"${sets[@]}"} -- "${VG[@]}" --log-file="$W/vg-$label.log" "$@" \
        </dev/null >"$W/vg-$label.out" 2>&1
    local rc=$?
    if [ "$rc" -eq 99 ] || [ -s "$W/vg-$label.log" ]; then
        sed 's/^/    | /' "$W/vg-$label.log" | head -60
        case_fail "$label" "valgrind reported errors (exit $rc)"
    elif { [ "$want" = 0 ] && [ "$rc" -ne 0 ]; } || { [ "$want" != 0 ] && [ "$rc" -eq 0 ]; }; then
        sed 's/^/    | /' "$W/vg-$label.out"
        case_fail "$label" "program exit $rc, wanted $want"
    else
        case_ok "$label: valgrind clean (program exit $rc)"
    fi
}

vg verify-good 0 -- openssl verify -CAfile "$ROOT" -untrusted "$W/untrusted.pem" "$PKI/good_rsa.pem"
vg verify-revoked nonzero -- openssl verify -CAfile "$ROOT" -untrusted "$W/untrusted.pem" "$PKI/under2_ec.pem"
vg verify-store nonzero -- openssl verify -crl_check_all -CAstore crlcache: -CAfile "$ROOT" \
    -untrusted "$W/untrusted.pem" "$PKI/rev_rsa.pem"
vg storeutl 0 -- openssl storeutl -noout crlcache:
vg s_client-revoked nonzero -- openssl s_client -connect "127.0.0.1:$port" -verify_return_error \
    -CAfile "$ROOT" -tls1_3
# The failures must be the revocation (provider/store really active under valgrind).
for l in verify-revoked s_client-revoked; do
    grep -q 'certificate is revoked (crlcache)' "$W/vg-$l.out" || case_fail "$l-words" "no crlcache refusal in the output"
done
grep -q '^error 23 at 0 depth lookup: certificate revoked' "$W/vg-verify-store.out" \
    || case_fail verify-store-words "no error 23 from the CRL check"
vg verify-audit 0 --set mode=audit -- openssl verify -CAfile "$ROOT" -untrusted "$W/untrusted.pem" \
    "$PKI/rev_ec.pem"
# A hint written: with only the root's CRL, no CRL covers good_ec.
STATE=$W/hint-state
tls_import "$W/root.crl"
mkdir -m 3733 "$STATE/hints"
vg verify-hint 0 -- openssl verify -CAfile "$ROOT" -untrusted "$W/untrusted.pem" "$PKI/good_ec.pem"
[ -n "$(ls -A "$STATE/hints")" ] || case_fail verify-hint-written "no hint in $STATE/hints"
finish
