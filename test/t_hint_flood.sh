#!/usr/bin/env bash
# A flood of 100,000 hints (any local user can write the spool): one
# update swaps the spool for an empty one at once, moves at most 50,000
# entries to their writer's queue, and the next update finishes the rest;
# a real hint of another user left after the flood is still proven and
# enrolled (the flood's writer reads only its own 64 a run).  The
# durations are printed for the record, not asserted (tests do not time).
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
pki_root root "/CN=Flood Root/O=crlcache tests"
pki_ca int root "/CN=Flood CA/O=crlcache tests"
pki_leaf a int "/CN=a.test" cdp="$BASE_URL/int.crl"
pki_gencrl int "$W/int.crl"
serve "$W/int.crl" int.crl
write_conf "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem" \
    "allow_private_urls = yes"
mkdir -p "$STATE/hints"; chmod 3733 "$STATE/hints"
# The flood's writer: another user where the test can play one (its own
# flood would stand before the real hint in its own queue).
flooder=
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    flooder="setpriv --reuid=40100 --regid=40100 --clear-groups"
    for d in "$W" "$(dirname "$W")"; do
        case $d in */crlcache-*) chmod o+x "$d" ;; esac
    done
    chmod o+x "$STATE"
    $flooder test -w "$STATE/hints" || flooder=
fi
# 100,000 files with well-formed names and content that matches no name
$flooder /usr/bin/python3 - "$STATE/hints" <<'PY'
import os, sys
d = sys.argv[1]
for i in range(100000):
    with open(os.path.join(d, "%064x.crt" % (i * 7919 + 1)), "wb") as f:
        f.write(b"\x30\x03\x02\x01\x01")
PY
[ "$(ls -U "$STATE/hints" | wc -l)" = 100000 ] || fail "flood not written"

t0=$(date +%s%N)
assert_exit 0 cc -v update
t1=$(date +%s%N)
live=$(ls -U "$STATE/hints" | wc -l)
left=$(ls -U "$STATE/work/hints.drain" 2>/dev/null | wc -l)
[ "$live" = 0 ] || fail "the live spool still holds $live entries"
[ "$left" -ge 50000 ] && [ "$left" -le 50000 ] || fail "expected 50,000 left to move, found $left"
assert_grep 'hints: more than 50000 waiting' "$W/last.err"
note "run 1: $(( (t1 - t0) / 1000000 )) ms, spool empty, $left entries left for the next run"

# A real hint arriving meanwhile is proven on the run that swaps again.
hint "$PKI/a.pem" >/dev/null
t0=$(date +%s%N)
assert_exit 0 cc update
t1=$(date +%s%N)
[ -e "$STATE/work/hints.drain" ] && fail "the flood was not finished by the second run"
queued=$(find "$STATE/work/hints.queue" -type f | wc -l)
[ "$queued" -ge 99000 ] || fail "the flood was removed unread: $queued of 100,000 queued"
note "run 2: $(( (t1 - t0) / 1000000 )) ms, flood moved to its writer's queue ($queued wait)"
[ -n "$flooder" ] || { note "not root: the flood is this user's, and this user's real hint waits behind it"; exit 0; }
assert_exit 0 cc -v update
assert_grep 'update: 1 sources, 1 updated' "$W/last.err"
check_is good 0 "$PKI/a.pem"
note "a hint left after the flood is enrolled by the next run"
