#!/usr/bin/env bash
# Where there is no syslog (a container, a minimal root) and the client
# prints only "certificate signature failure" (python), `crlcache status
# --refusals` says which certificate was refused and why, and which
# account's program met it.  The provider logs nowhere here (log = none).
# A loop of refusals in one process notes at most the burst; a line a
# user forges in the spool is shown under that user's uid, never as
# another's; files older than a week go at the next update.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"

tls_pki
tls_import
SPOOL=$STATE/refusals
[ -d "$SPOOL" ] && [ ! -L "$SPOOL" ] && [ "$(stat -c %a "$SPOOL")" = 3733 ] &&
    case_ok "import made the spool, mode 3733" || case_fail spool "$(ls -ld "$SPOOL" 2>&1)"
srv_start rev_ec rev_ec

cl_python "$(srv_port rev_ec)" 1.3 --set log=none
[ "$CLIENT_RC" -ne 0 ] && grep -q 'CERTIFICATE_VERIFY_FAILED' "$W/client.out" ||
    { cat "$W/client.out" >&2; fail "python accepted rev_ec: the provider is not on"; }
grep -q 'revoked' "$W/client.out" && note "python names the revocation itself: $(cat "$W/client.out")"
assert_exit 0 cc status --refusals
cat "$W/last.out" | sed 's/^/    | /'
grep -Eq '^refusal [0-9T:Z-]+ uid=0\(root\) python3?[^ ]*\[[0-9]+\]: certificate is revoked \(refused\): serial=[0-9A-F]+ issuer=.*Prov Test Int.*reason keyCompromise$' "$W/last.out" &&
    case_ok "the refusal, its reason and its writer" || case_fail reason "no refusal line for python"

# one process refusing in a loop notes at most the burst (5 per minute)
before=$(find "$SPOOL" -type f | wc -l)
px --set log=none -- "$PY" -c '
import ssl, sys, socket
ctx = ssl.create_default_context(cafile=sys.argv[2])
for _ in range(12):
    try:
        with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20) as s:
            ctx.wrap_socket(s, server_hostname="127.0.0.1")
    except ssl.SSLError:
        pass
' "$(srv_port rev_ec)" "$ROOT" >/dev/null 2>&1
after=$(find "$SPOOL" -type f | wc -l)
[ $((after - before)) -ge 1 ] && [ $((after - before)) -le 5 ] &&
    case_ok "12 refusals in one process: $((after - before)) noted" ||
    case_fail burst "$((after - before)) files for 12 refusals"

# another user's forgery is shown as that user's
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
    d=$W
    while case $d in "${TMPDIR:-/tmp}"/?*) true ;; *) false ;; esac; do
        chmod o+x "$d"; d=$(dirname "$d")
    done
    setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c \
        'printf "sshd[1]: certificate is revoked (refused): forged\n" >"$1/0123456789abcdef0123456789abcdef.txt"' sh "$SPOOL" ||
        fail "nobody cannot write to the 3733 spool"
    setpriv --reuid=nobody --regid=nogroup --clear-groups ls "$SPOOL" >/dev/null 2>&1 &&
        case_fail listing "nobody may list the spool"
    cc status --refusals >"$W/r2.out"
    grep -q '^refusal [^ ]* uid=65534(nobody) sshd\[1\]: certificate is revoked (refused): forged$' "$W/r2.out" &&
        ! grep -q 'uid=0(root) sshd' "$W/r2.out" && case_ok "a forged line is shown as its writer's" ||
        { cat "$W/r2.out" >&2; case_fail forgery "not shown under nobody"; }
else
    note "no setpriv or nobody: the forgery case is not run"
fi

# a planted link and a week-old file: neither followed nor kept
touch -d '8 days ago' "$SPOOL"/*.txt
f=$(find "$SPOOL" -type f | head -1)
touch "$f"
echo 'planted secret' >"$W/secret"
ln -s "$W/secret" "$SPOOL/fedcba9876543210fedcba9876543210.txt"
cc status --refusals >"$W/r3.out"
assert_not_grep 'planted secret' "$W/r3.out"
assert_exit 0 cc publish
[ "$(find "$SPOOL" -type f | wc -l)" = 1 ] && case_ok "a week-old refusal pruned, the newest kept" ||
    case_fail prune "$(ls -l "$SPOOL")"
finish
