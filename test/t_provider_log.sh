#!/usr/bin/env bash
# Provider log lines: one process refusing a revoked
# certificate REPEAT times sends a bounded number of lines to the system
# logger (rate limit per process), each naming the program and its pid
# ("openssl[PID]: crlcache: ..."); and a logger that stopped reading (its
# socket queue full) stalls no verification: every refusal still happens,
# in time.  The logger is a datagram socket of the test's own, named by
# the test-only CRLCACHE_TEST_SYSLOG_SOCKET (provider/log.c; log_receiver).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"

REPEAT=300      # refusals in one process
MAX_LINES=12    # LOG_BURST (10) lines, a racing extra, one "held back" line
STALL_LIMIT=60  # seconds REPEAT refusals may take with the logger stalled

tls_ready
refuse_many() {    # REPEAT verifications of a revoked certificate, one process
    local args=() i
    for i in $(seq 1 "$REPEAT"); do args+=("$PKI/rev_rsa.pem"); done
    px --set log=syslog -- timeout "$STALL_LIMIT" openssl verify -CAfile "$ROOT" \
        -untrusted "$W/untrusted.pem" "${args[@]}" >"$W/verify.out" 2>&1
    VERIFY_RC=$?
    REFUSED=$(grep -c 'verification failed' "$W/verify.out")
}

log_receiver read
refuse_many
sleep 0.5
[ "$VERIFY_RC" -ne 0 ] && [ "$REFUSED" -eq "$REPEAT" ] \
    || fail "expected $REPEAT refusals, got $REFUSED (exit $VERIFY_RC)"
lines=$(grep -c 'crlcache: ' "$W/log.txt")
sed 's/^/    | /' "$W/log.txt" | head -n 3
note "$REPEAT refusals in one process: $lines log lines"
[ "$lines" -ge 1 ] || fail "no log line reached the logger"
[ "$lines" -le "$MAX_LINES" ] || fail "$lines log lines for $REPEAT refusals: not rate limited"
grep -Eq '^<[0-9]+>openssl\[[0-9]+\]: crlcache: certificate is revoked' "$W/log.txt" \
    || fail "the log line does not name the program and its pid"
case_ok "rate limited, names the program"

log_receiver stall
start=$(date +%s)
refuse_many
took=$(( $(date +%s) - start ))
[ "$VERIFY_RC" -ne 124 ] || fail "verification stalled on a logger that does not read"
[ "$REFUSED" -eq "$REPEAT" ] || fail "expected $REPEAT refusals with the logger stalled, got $REFUSED"
note "$REPEAT refusals with the logger stalled: ${took}s"
case_ok "a stalled logger stalls no verification"
finish
