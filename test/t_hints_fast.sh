#!/usr/bin/env bash
# Learning in seconds: a CA no program on the host met before serves a
# revoked certificate; the first handshake passes (nothing covers the CA)
# and leaves a hint; the fast run crlcache-hints.path starts when the
# spool is not empty (`update --hints`, run here exactly as the .service
# runs it, by a poll loop standing in for systemd) proves the hint,
# enrols the CA and fetches its CRL and nothing else; the next handshakes
# are refused.  Started while another run holds the lock, the fast run
# waits for it.  The host has OTHERS other sources, fetched by a full
# update before: the fast run requests none of them.  Printed: the time
# from the first handshake to the first refused one, and what the fast
# run and a full run took (for the record; asserted only against a loose
# bound, tests do not time).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
OTHERS=${OTHERS:-500}
# Seconds within which the refusal must come: the target is 10 on
# loopback; the bound leaves room for a loaded machine.
LATENCY_MAX=60
command -v pkg-config >/dev/null || skip "pkg-config not available"
httpd_start

pki_root root "/CN=Fast Root/O=crlcache tests"
pki_gencrl root "$W/root.crl"
serve "$W/root.crl" root.crl
pki_ca never root "/CN=Never Met CA/O=crlcache tests" cdp="$BASE_URL/root.crl"
prov_leaf rev never rev.test cdp="$BASE_URL/never.crl"
pki_revoke never "$PKI/rev.pem"
pki_gencrl never "$W/never.crl"
serve "$W/never.crl" never.crl
ROOT=$PKI/root/cert.pem

# OTHERS partitions of another CA, each its own configured source.
pki_ca other root "/CN=Fast Other CA/O=crlcache tests" keytype=ec
command "${CC:-cc}" -O2 -o "$W/scale_gen" "$TESTDIR/bench/scale_gen.c" \
    $(pkg-config --cflags --libs libcrypto) 2>"$W/cc.err" || { cat "$W/cc.err"; fail "scale_gen does not build"; }
this=$(( $(now_epoch) - 60 )); next=$(( this + 86400 ))
mkdir -p "$HTTPD_ROOT/other"
conf=("anchor = $ROOT" "untrusted = $PKI/never/cert.pem" "untrusted = $PKI/other/cert.pem"
    "allow_private_urls = yes" "url = $BASE_URL/root.crl")
for i in $(seq 1 "$OTHERS"); do
    echo "$HTTPD_ROOT/other/$i.crl $PKI/other/cert.pem $PKI/other/key.pem 20 $i 1 $this $next $BASE_URL/other/$i.crl"
    conf+=("url = $BASE_URL/other/$i.crl")
done >"$W/plan"
(cd "$W" && ./scale_gen plan) || fail "scale_gen failed"
write_conf "${conf[@]}"

# 1. A full update: every source fetched; the CA is not met yet.
t0=$(date +%s%N)
assert_exit 0 cc update
full_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$(requests_for /other/)" -ge "$OTHERS" ] || fail "the full update did not fetch the other sources"
[ "$(stat -c %a "$STATE/hints")" = 3733 ] || fail "no spool after the full update"

# A fast run started while another run holds the lock waits for it
# rather than fail (the path unit would start it again at once).
if command -v flock >/dev/null; then
    flock "$STATE/lock" sleep 2 & locker=$!
    bg_register "$locker"
    sleep 0.5
    assert_exit 0 cc update --hints
    wait "$locker"
    note "update --hints waits for a run holding the lock"
fi

# 2. The path unit: when the spool is not empty, the service's command line.
unit=$TESTDIR/../systemd/crlcache-hints.service
args=$(sed -n 's|^ExecStart=@BINDIR@/crlcache ||p' "$unit")
pause=$(sed -n "s|^ExecStopPost=.*exec /bin/sleep \([0-9]*\)'$|\1|p" "$unit")
[ "$args" = "update --hints" ] && [ -n "$pause" ] || fail "unexpected crlcache-hints.service: '$args' '$pause'"
# Sleeps without a child process (read on a FIFO nobody writes): the
# loop is killed at the end and leaves nothing behind.
mkfifo "$W/never"; exec 9<>"$W/never"
nap() { read -rt "$1" -u 9 || :; }
watch_spool() {
    while :; do
        if [ -n "$(ls -A "$STATE/hints" 2>/dev/null)" ]; then
            local s; s=$(date +%s%N)
            # shellcheck disable=SC2086
            "$CRLCACHE" --state-dir "$STATE" -c "$CONF" -v $args >>"$W/fast.log" 2>&1
            echo "fast run: exit $?, $(( ($(date +%s%N) - s) / 1000000 )) ms" >>"$W/fast.log"
            nap "$pause"
        fi
        nap 0.1
    done
}
watch_spool & bg_register $!
srv_start rev rev

# 3. First handshake: accepted, hint left; then until refused.
others_before=$(requests_for /other/)
root_before=$(requests_for /root.crl)
t0=$(date +%s%N)
cl_sclient "$(srv_port rev)" 1.3
[ "$CLIENT_RC" = 0 ] || { cat "$W/client.out"; fail "the first handshake was refused: the CA was met before?"; }
refused=
while [ $(( ($(date +%s%N) - t0) / 1000000000 )) -lt "$LATENCY_MAX" ]; do
    cl_sclient "$(srv_port rev)" 1.3
    if [ "$CLIENT_RC" != 0 ]; then refused=1; break; fi
    sleep 0.2
done
latency_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ -n "$refused" ] || { cat "$W/fast.log"; fail "still accepted after $LATENCY_MAX s"; }
grep -qi 'revoked' "$W/client.out" || { cat "$W/client.out"; fail "refused, but not as revoked"; }
assert_grep 'fast run: exit 0' "$W/fast.log"
[ "$(requests_for /never.crl)" -ge 1 ] || fail "the new CA's CRL was not fetched"
[ "$(requests_for /other/)" = "$others_before" ] || fail "the fast run fetched other sources"
[ "$(requests_for /root.crl)" = "$root_before" ] || fail "the fast run fetched a configured source"
fast=$(grep -m1 'fast run: exit 0' "$W/fast.log" | sed 's/.*, //')
note "first handshake to first refusal: $latency_ms ms (fast run $fast, with $OTHERS other sources; a full update took $full_ms ms)"
