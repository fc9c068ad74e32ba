#!/usr/bin/env bash
# Root's status, check and mirror read another account's state in a child
# running as that account, which can stop the child or have it wait for
# ever: here the account (nobody) holds an exclusive lock on
# work/lock.mdb, on which LMDB's opening of the working state waits.
# Root's `status` must end (exit 4, saying why) once the child has sent
# nothing for 30 s, and leave no process behind; with the lock let go,
# status works again.  On the old code it hung until killed.
. "$(dirname "$0")/lib.sh"
need_owner_nobody

offline_int_crl
write_conf "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem"
assert_exit 0 cc import "$W/int.crl"
d=$W
while [ "$d" != / ] && [ "$(stat -c %u "$d")" -eq 0 ]; do chmod o+x "$d"; d=$(dirname "$d"); done
chown -R nobody "$STATE"
assert_exit 0 cc status

# The account takes the lock LMDB's opening waits on (lock.mdb, byte 0).
setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups "$PY" -c '
import fcntl, sys, time
f = open(sys.argv[1], "r+b")
fcntl.lockf(f, fcntl.LOCK_EX, 1, 0)
print("locked", flush=True)
time.sleep(600)' "$STATE/work/lock.mdb" >"$W/locked" & locker=$!
bg_register "$locker"
for _ in $(seq 100); do grep -q locked "$W/locked" && break; sleep 0.1; done
grep -q locked "$W/locked" || fail "the account could not take the lock"

t0=$(date +%s)
timeout 120 "$CRLCACHE" --state-dir "$STATE" -c "$CONF" status >"$W/status.out" 2>"$W/status.err"; rc=$?
took=$(( $(date +%s) - t0 ))
[ "$rc" != 124 ] || fail "status as root hung on the reader held by the account (killed after 120 s)"
[ "$rc" = 4 ] || { cat "$W/status.err"; fail "status with its reader held: exit $rc, expected 4"; }
assert_grep 'sent nothing for 30 s and was killed' "$W/status.err"
sleep 0.5
if pgrep -u nobody -f "$CRLCACHE" >/dev/null; then
    fail "the reader child was left behind"
fi
note "reader held by the account: status ended after $took s (exit 4), no process left"

kill "$locker"; wait "$locker" 2>/dev/null
assert_exit 0 cc status
assert_grep '^revoked 1$' "$W/last.out"
note "the lock let go: status reads the state again"
