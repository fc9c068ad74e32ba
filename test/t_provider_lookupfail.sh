#!/usr/bin/env bash
# A lookup that fails inside the index reader (crlc_index_lookup returns -1
# on an index that passed every check at open: index_break_lookups breaks
# it for real, no mock) passes through (provider/policy.c, commit 71b7dcf):
# a revoked certificate refused before the damage verifies after it, and
# the provider says so exactly once per process however many lookups fail
# (REPEAT verifications in one process: one notice; a second process: its
# own one).  `crlcache check` of the same index fails with its error exit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"

REPEAT=50       # verifications in one process, each with failing lookups
NOTICE='crlcache: index lookup failed \(a damaged index\?\): certificates pass unchecked'

tls_ready
# The damage, not the want of an index, is what lets it through.
cl_verify "$PKI/rev_rsa.pem"
[ "$CLIENT_RC" -ne 0 ] || { cat "$W/client.out"; fail "revoked leaf accepted before the damage"; }

index_break_lookups
cc check "$PKI/rev_rsa.pem" >"$W/check.out" 2>&1; rc=$?
[ "$rc" -eq 4 ] || { cat "$W/check.out"; fail "check on a broken lookup: exit $rc, want 4"; }
case_ok "the lookup fails after a clean open (check exits 4)"

log_receiver read
# verify_many: REPEAT verifications of the revoked leaf in one process.
verify_many() {
    local args=() i
    for i in $(seq 1 "$REPEAT"); do args+=("$PKI/rev_rsa.pem"); done
    px --set log=syslog -- openssl verify -CAfile "$ROOT" \
        -untrusted "$W/untrusted.pem" "${args[@]}" >"$W/verify.out" 2>&1
    VERIFY_RC=$?
    PASSED=$(grep -c ': OK$' "$W/verify.out")
}
# notices N: wait (bounded) until the log holds N notices; prints the count.
notices() {
    local i
    for i in $(seq 1 20); do
        [ "$(grep -Ec "$NOTICE" "$W/log.txt")" -ge "$1" ] && break
        sleep 0.1
    done
    sleep 0.3       # a late extra one would arrive now
    grep -Ec "$NOTICE" "$W/log.txt"
}

verify_many
[ "$VERIFY_RC" -eq 0 ] && [ "$PASSED" -eq "$REPEAT" ] \
    || { head -n 5 "$W/verify.out"; fail "expected $REPEAT passes through, got $PASSED (exit $VERIFY_RC)"; }
n=$(notices 1)
sed 's/^/    | /' "$W/log.txt"
[ "$n" -eq 1 ] || fail "$n lookup-failure notices for $REPEAT verifications in one process, want 1"
grep -Eq "^<[0-9]+>openssl\[[0-9]+\]: $NOTICE" "$W/log.txt" \
    || fail "the notice does not name the program and its pid"
case_ok "$REPEAT verifications pass through with one notice"

verify_many
[ "$VERIFY_RC" -eq 0 ] && [ "$PASSED" -eq "$REPEAT" ] \
    || fail "second process: expected $REPEAT passes through, got $PASSED (exit $VERIFY_RC)"
n=$(notices 2)
pids=$(grep -E "$NOTICE" "$W/log.txt" | sed -E 's/^<[0-9]+>openssl\[([0-9]+)\].*/\1/' | sort -u | wc -l)
[ "$n" -eq 2 ] && [ "$pids" -eq 2 ] \
    || fail "after a second process: $n notices from $pids processes, want 2 from 2"
case_ok "a second process says it once too"
finish
