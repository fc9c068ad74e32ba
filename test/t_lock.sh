#!/usr/bin/env bash
# One lock: while another run holds STATE_DIR/lock, update and import
# refuse at once (exit 4) and change nothing; afterwards they work.
. "$(dirname "$0")/lib.sh"
need_crlcache
command -v flock >/dev/null || skip "no flock(1) to hold the lock"
offline_int_crl
write_conf "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem"
mkdir -p "$STATE"
# the holder is the sleeping process itself, so killing it frees the lock
( exec 9>"$STATE/lock"; flock 9; exec sleep 30 ) &
holder=$!
bg_register "$holder"
for i in $(seq 1 50); do
    flock -n "$STATE/lock" true 2>/dev/null || break
    sleep 0.1
done
start=$(now_epoch)
assert_exit 4 cc import "$W/int.crl"
assert_grep 'another crlcache run holds the lock' "$W/last.err"
assert_exit 4 cc update
[ $(( $(now_epoch) - start )) -le 5 ] || fail "a locked run waited instead of refusing"
[ ! -e "$STATE/index.mdb" ] || fail "a refused run published an index"
kill "$holder"; wait "$holder" 2>/dev/null
assert_exit 0 cc import "$W/int.crl"
check_is revoked 1 "$PKI/rev1.pem"
note "lock ok"
