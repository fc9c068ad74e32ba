#!/usr/bin/env bash
# Root's mirror reads another account's state in a child running as that
# account, which may stop the child and let it run for an instant every
# few seconds: each instant's bytes restart the 30 s idle deadline, so
# that alone held root for as long as the child had output.  Here the
# account (nobody) does just that, with a state whose mirror is 40 MB
# (one 100 KB CRL fed from 400 URLs): root's mirror must end once it has
# waited 60 s for the child in all (exit 4, saying why), and leave no
# process behind.  Left alone, the same mirror ends in seconds.  On the
# old code it was still running when the test gave up on it.
. "$(dirname "$0")/lib.sh"
need_owner_nobody
URLS=400
TOTAL_S=60          # READER_TOTAL_MS in fetcher/privs.c
GIVE_UP_S=120       # how long the test waits for root's mirror

httpd_start
std_pki
pki_bulk_revoked "$PKI/int/index.txt" 3000
pki_gencrl int "$W/int.crl"
served_at "$W/int.crl" "$URLS" "u%d/int.crl"
assert_exit 0 cc update
d=$W
while [ "$d" != / ] && [ "$(stat -c %u "$d")" -eq 0 ]; do chmod o+x "$d"; d=$(dirname "$d"); done
chown -R nobody "$STATE"
mkdir -m 755 "$W/m1" "$W/m2"
t0=$(date +%s.%N)
assert_exit 0 cc mirror "$W/m1"
note "left alone, root's mirror of $(( URLS * $(stat -c %s "$W/int.crl") / 1000000 )) MB took $(echo "$(date +%s.%N) - $t0" | bc) s"

# The account stops its reader and lets it run 1 ms every 3 s.
"$CRLCACHE" --state-dir "$STATE" -c "$CONF" mirror "$W/m2" >"$W/m2.out" 2>"$W/m2.err" & m=$!
bg_register "$m"
t0=$(date +%s)
child=
for _ in $(seq 500); do child=$(pgrep -P "$m") && break; sleep 0.01; done
[ -n "$child" ] || fail "no reader child seen"
[ "$(stat -c %U "/proc/$child")" = nobody ] || fail "the reader child does not run as nobody"
setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups "$PY" -c '
import os, signal, sys, time
pid = int(sys.argv[1])
try:
    os.kill(pid, signal.SIGSTOP)
    while True:
        time.sleep(3)
        os.kill(pid, signal.SIGCONT)
        time.sleep(0.001)
        os.kill(pid, signal.SIGSTOP)
except ProcessLookupError:
    pass' "$child" & stopper=$!
bg_register "$stopper"
while kill -0 "$m" 2>/dev/null && [ $(( $(date +%s) - t0 )) -lt "$GIVE_UP_S" ]; do sleep 0.5; done
took=$(( $(date +%s) - t0 ))
files=$(find "$W/m2" -type f | wc -l)
if kill -0 "$m" 2>/dev/null; then
    kill -9 "$m" "$child" 2>/dev/null
    fail "root's mirror was still running after $took s, $files of $URLS files written"
fi
wait "$m"; rc=$?
[ "$rc" = 4 ] || { cat "$W/m2.err"; fail "mirror with its reader trickling: exit $rc after $took s, expected 4"; }
assert_grep "was waited for $TOTAL_S s in all and was killed" "$W/m2.err"
[ "$took" -le $(( TOTAL_S + 20 )) ] || fail "mirror ended after $took s, more than $TOTAL_S s and slack"
sleep 0.5
if pgrep -u nobody -f "$CRLCACHE" >/dev/null; then
    fail "the reader child was left behind"
fi
note "reader run 1 ms every 3 s by its account: root's mirror ended after $took s (exit 4), $files of $URLS files written, no process left"
