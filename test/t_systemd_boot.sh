#!/usr/bin/env bash
# The shipped units under a real systemd: this machine's root, booted by
# `systemd-nspawn -b` on an overlay (every write goes to a temporary upper
# layer; the host is not changed), with only loopback inside
# (--private-network).  Inside it: `make install` of this tree (the
# crlcache user, the state directory, the units, the timer and the path
# unit enabled), a crlcache.conf whose anchor is a test root, a CRL server
# on 127.0.0.1, `crlcache enable`.  Checked:
#   - the timer's run: crlcache-update.service started by systemctl
#     succeeds, in its sandbox, and its journal lines carry one prefix;
#   - learning: `openssl verify` under the enabled provider meets a CA no
#     program met before; its hint starts crlcache-hints.service, which
#     learns the CA, and the CA's revoked certificate is then refused;
#   - `systemctl --failed` is empty; `systemd-analyze security` of
#     crlcache-update.service is no worse than SECURITY_MAX;
#   - a spool the service cannot read: the hints service fails, stops
#     within its start limit (and the path unit with it) instead of
#     running for ever, the hourly run fails, and status says so.
# Skips where systemd-nspawn cannot boot here.  About 40 s here; every
# wait is bounded (BOOT_MAX, LEARN_MAX, STOP_MAX).
. "$(dirname "$0")/lib.sh"

# The exposure `systemd-analyze security` gives the shipped update
# service with systemd 252 (lower is better): a change may not raise it.
SECURITY_MAX=1.4
BOOT_MAX=60		# seconds for the container to finish booting
LEARN_MAX=30		# seconds from the first handshake to a refusal
STOP_MAX=30		# seconds for a failing hints service to be stopped
PORT=8787		# the CRL server, on the container's own loopback

[ "$(id -u)" -eq 0 ] || skip "needs root (systemd-nspawn, overlay mount)"
command -v systemd-nspawn >/dev/null || skip "systemd-nspawn not installed (package systemd-container)"
command -v nsenter >/dev/null || skip "nsenter not installed"
[ -x /lib/systemd/systemd ] || skip "no systemd on this root to boot"
[ -e /var/lib/crlcache ] || [ -e /etc/crlcache ] &&
    skip "crlcache is installed on this host; the booted copy would inherit it"
SRC=$(cd "$TESTDIR/.." && pwd)
[ -x "$SRC/fetcher/crlcache" ] && [ -f "$SRC/provider/crlcache.so" ] || fail "build first (make)"

# ---------------------------------------------------------------- the root
# Upper and work directories of the overlay must not be on an overlay
# (the Debian 13 stage runs on one): they live on a tmpfs of their own.
BASE=$(mktemp -d /var/tmp/crlcache-boot.XXXXXX)
ROOT=$BASE/root
NSPAWN_PID=
cleanup_boot() {
    local i
    if [ -n "$NSPAWN_PID" ] && kill -0 "$NSPAWN_PID" 2>/dev/null; then
        kill -TERM "$NSPAWN_PID" 2>/dev/null	# a clean shutdown
        for i in $(seq 1 100); do kill -0 "$NSPAWN_PID" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$NSPAWN_PID" 2>/dev/null
        wait "$NSPAWN_PID" 2>/dev/null
    fi
    umount -R "$ROOT" 2>/dev/null || umount -l "$ROOT" 2>/dev/null
    mountpoint -q "$ROOT" || umount "$BASE/rw" 2>/dev/null
    # Never through the merged view of / (a mount that would not go).
    if mountpoint -q "$ROOT"; then
        note "$ROOT is still mounted; $BASE is left"
    elif [ -z "${KEEP:-}" ]; then
        rm -rf --one-file-system "$BASE"
    fi
}
trap 'cleanup_boot; _lib_cleanup' EXIT
mkdir -p "$BASE/rw" "$ROOT"
mount -t tmpfs -o mode=700,size=1g crlcache-boot-rw "$BASE/rw" 2>"$W/mount.err" ||
    skip "cannot mount a tmpfs here: $(cat "$W/mount.err")"
mkdir "$BASE/rw/upper" "$BASE/rw/work"
mount -t overlay crlcache-boot -o "lowerdir=/,upperdir=$BASE/rw/upper,workdir=$BASE/rw/work" "$ROOT" 2>"$W/mount.err" ||
    skip "cannot mount an overlay of / here: $(cat "$W/mount.err")"

# Boot to a target of its own: sysinit and basic only, none of the
# host's services; the host's timers masked (they would run at boot).
UNITDIR=$ROOT/etc/systemd/system
cat >"$UNITDIR/crlcache-boot-test.target" <<'EOF'
[Unit]
Description=crlcache boot test
Requires=basic.target
After=basic.target
AllowIsolate=yes
EOF
for t in "$UNITDIR"/timers.target.wants/*.timer; do
    [ -e "$t" ] && ln -sf /dev/null "$UNITDIR/$(basename "$t")"
done

# The tree, built, and the test's PKI and configuration.
mkdir -p "$ROOT/usr/src/crlcache" "$ROOT/srv/crlt/www"
(cd "$SRC" && tar --exclude=./.git --exclude=./test/.roots -cf - .) |
    tar -xf - -C "$ROOT/usr/src/crlcache" || fail "cannot copy the tree into the root"
# The CRL server runs as nobody; a copy from a mktemp directory (the Debian
# 13 stage's) would be 0700.
chmod -R a+rX "$ROOT/usr/src/crlcache"
BASE_URL=http://127.0.0.1:$PORT
pki_root root "/CN=Boot Root/O=crlcache tests"
pki_gencrl root "$W/root.crl"
pki_ca never root "/CN=Boot Never Met CA/O=crlcache tests" cdp="$BASE_URL/root.crl"
pki_leaf rev never "/CN=rev.test" cdp="$BASE_URL/never.crl"
pki_revoke never "$PKI/rev.pem"
pki_gencrl never "$W/never.crl"
cp "$W/root.crl" "$W/never.crl" "$ROOT/srv/crlt/www/"
cp "$PKI/root/cert.pem" "$ROOT/srv/crlt/root.pem"
cp "$PKI/never/cert.pem" "$ROOT/srv/crlt/never.pem"
cp "$PKI/rev.pem" "$ROOT/srv/crlt/rev.pem"
chmod -R a+rX "$ROOT/srv/crlt"

# ---------------------------------------------------------------- boot
# No journal link: a root from mmdebstrap has no machine ID to link by.
systemd-nspawn --quiet -D "$ROOT" -M "crlt$$" --register=no --keep-unit --link-journal=no \
    --private-network -b -- systemd.unit=crlcache-boot-test.target \
    </dev/null >"$W/console.log" 2>&1 &
NSPAWN_PID=$!
# PID 1 of the container: the systemd below systemd-nspawn.
CPID=
for _ in $(seq 1 $((BOOT_MAX * 5))); do
    for p in $(pgrep -P "$NSPAWN_PID") $(pgrep -P "$(pgrep -P "$NSPAWN_PID" | head -1)" 2>/dev/null); do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = systemd ] && CPID=$p
    done
    [ -n "$CPID" ] && break
    kill -0 "$NSPAWN_PID" 2>/dev/null || break
    sleep 0.2
done
[ -n "$CPID" ] || skip "systemd-nspawn cannot boot here: $(tail -3 "$W/console.log" | tr '\n' ' ')"
# in_ct TIMEOUT CMD...: CMD inside the container, as root, clean environment.
# -r -w: the container's root and directory, not its mount namespace's: in
# a chroot (the Debian 13 stage) systemd-nspawn cannot pivot_root and
# moves the root over the chroot's directory instead, and nsenter would
# land beside it ("offline": no systemd there).
in_ct() {
    local t=$1; shift
    timeout "$t" nsenter -t "$CPID" -a -r -w env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        LC_ALL=C HOME=/root "$@"
}
# PID 1 answers on its private socket once it is up; then wait for the boot.
t0=$(date +%s)
while :; do
    state=$(in_ct $((BOOT_MAX + 5)) systemctl is-system-running --wait 2>&1)
    case $state in *"connect to bus"*) ;; *) break ;; esac
    [ $(( $(date +%s) - t0 )) -lt "$BOOT_MAX" ] || break
    sleep 0.2
done
case $state in
    running) ;;
    degraded) in_ct 10 systemctl --failed --no-legend >&2; fail "the container booted degraded, before crlcache" ;;
    *) skip "the container did not boot within ${BOOT_MAX}s ($state): $(tail -3 "$W/console.log" | tr '\n' ' ')" ;;
esac
note "booted systemd $(in_ct 10 systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p') in the container"

# ---------------------------------------------------------------- install
in_ct 300 nice make -s -C /usr/src/crlcache install >"$W/install.log" 2>&1 ||
    { tail -20 "$W/install.log"; fail "make install failed inside the container"; }
cat >"$ROOT/etc/crlcache/crlcache.conf" <<EOF
# crlcache boot test
anchor = /srv/crlt/root.pem
untrusted = /srv/crlt/never.pem
allow_private_urls = yes
url = $BASE_URL/root.crl
EOF
in_ct 10 systemd-run --quiet --unit=crlt-httpd -p User=nobody python3 \
    /usr/src/crlcache/test/httpd.py --root /srv/crlt/www --port "$PORT" \
    --port-file /tmp/crlt-httpd.port --log /tmp/crlt-httpd.log ||
    fail "cannot start the CRL server inside"
for _ in $(seq 1 100); do in_ct 5 test -s /tmp/crlt-httpd.port && break; sleep 0.1; done
in_ct 5 test -s /tmp/crlt-httpd.port || { in_ct 10 journalctl -q -o cat -u crlt-httpd >&2; fail "the CRL server did not start inside"; }

# ---------------------------------------------------------------- the timer's run
in_ct 120 systemctl start crlcache-update.service
result=$(in_ct 10 systemctl show -P Result crlcache-update.service)
if [ "$result" = success ]; then
    case_ok "the timer's run: crlcache-update.service succeeds in its sandbox"
else
    in_ct 10 journalctl -q -o cat -u crlcache-update.service | tail -5 >&2
    case_fail timer-run "crlcache-update.service: $result"
fi
in_ct 10 systemctl is-active -q crlcache-update.timer crlcache-hints.path ||
    case_fail enabled "the timer or the path unit is not active after make install"
in_ct 10 journalctl -q -o short -u crlcache-update.service >"$W/journal.log"
if grep -q 'crlcache\[[0-9]*\]: crlcache: ' "$W/journal.log"; then
    case_fail journal-prefix "journal lines carry two prefixes: $(grep -m1 'crlcache: ' "$W/journal.log")"
elif grep -q 'crlcache\[[0-9]*\]: update: ' "$W/journal.log"; then
    case_ok "journal lines: 'crlcache[pid]: update: ...', one prefix"
else
    case_fail journal-prefix "no summary line in the journal"
fi

# ---------------------------------------------------------------- learning
in_ct 60 crlcache enable >"$W/enable.log" 2>&1 || { cat "$W/enable.log"; fail "crlcache enable failed inside"; }
verify_rev() {
    in_ct 20 openssl verify -CAfile /srv/crlt/root.pem -untrusted /srv/crlt/never.pem \
        /srv/crlt/rev.pem >"$W/verify.out" 2>&1
}
hints_runs() { in_ct 10 journalctl -q -o cat -u crlcache-hints.service | grep -c 'update: [0-9]* sources'; }
# One client, once: its hint is the only one a program leaves.  The run
# it starts proves the hint's chain while the CA is not yet covered; a
# fetcher that left hints of its own would start a second run.
# The path unit runs the service once as it starts (the learning marker):
# count the runs after that one has ended.
for _ in $(seq 1 $((LEARN_MAX * 2))); do
    [ "$(in_ct 10 systemctl show -P ActiveState crlcache-hints.service)" = inactive ] && break
    sleep 0.5
done
base=$(hints_runs)
t0=$(date +%s%N)
if verify_rev; then
    note "first verification accepted (learn_wait did not see the answer in time)"
elif grep -qi revoked "$W/verify.out"; then
    case_ok "the first verification of a CA never met is refused: the provider waited for the hints run"
else
    cat "$W/verify.out"; fail "the first verification failed, not as revoked"
fi
while [ $(( ($(date +%s%N) - t0) / 1000000000 )) -lt "$LEARN_MAX" ] && [ "$(hints_runs)" -eq "$base" ]; do
    sleep 0.1
done
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
# The two-second hold after the run, then a second run if one was due.
sleep 4
for _ in $(seq 1 $((LEARN_MAX * 2))); do
    [ "$(in_ct 10 systemctl show -P ActiveState crlcache-hints.service)" = inactive ] && break
    sleep 0.5
done
runs=$(( $(hints_runs) - base ))
verify_rev
if [ "$runs" -ge 1 ] && grep -qi revoked "$W/verify.out"; then
    case_ok "a hint starts crlcache-hints.service, which learns the CA within ${ms} ms: its revoked certificate is then refused"
else
    in_ct 10 journalctl -q -o cat -u crlcache-hints.service | tail -5 >&2
    case_fail learning "not refused after ${LEARN_MAX}s: $(tr '\n' ' ' <"$W/verify.out") (hints runs: $runs)"
fi
[ "$runs" -eq 1 ] && case_ok "one hints run for one hint (the fetcher leaves no hint of its own)" ||
    case_fail self-hint "$runs hints runs for one hint"
in_ct 20 crlcache status >"$W/status.out" 2>&1
grep -q 'hints_refused=0' "$W/status.out" && ! grep -q hints_unread_since "$W/status.out" &&
    case_ok "status: no hint refused, none unread" ||
    case_fail status "$(grep coverage "$W/status.out")"

# ---------------------------------------------------------------- no failed unit, the sandbox
failed=$(in_ct 10 systemctl --failed --no-legend --plain)
[ -z "$failed" ] && case_ok "systemctl --failed is empty" || case_fail failed-units "$failed"
score=$(in_ct 30 systemd-analyze security crlcache-update.service 2>/dev/null |
    sed -n 's/.*Overall exposure level for crlcache-update\.service: \([0-9.]*\).*/\1/p')
if [ -z "$score" ]; then
    case_fail security "systemd-analyze security gave no score"
elif [ "$(echo "$score <= $SECURITY_MAX" | bc)" = 1 ]; then
    case_ok "systemd-analyze security crlcache-update.service: $score (at most $SECURITY_MAX)"
else
    case_fail security "exposure $score, above $SECURITY_MAX"
fi

# ---------------------------------------------------------------- a spool it cannot read
# Another owner's spool (the fetcher refuses it and reads nothing) with
# something in it: the path unit starts the service, which fails.
in_ct 10 chown nobody /var/lib/crlcache/hints
in_ct 10 setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c ': >/var/lib/crlcache/hints/x.crt'
t0=$(date +%s)
while [ $(( $(date +%s) - t0 )) -lt "$STOP_MAX" ]; do
    in_ct 10 systemctl is-failed -q crlcache-hints.path && break
    sleep 0.5
done
took=$(( $(date +%s) - t0 ))
runs() { in_ct 10 journalctl -q -o cat -u crlcache-hints.service | grep -c 'enrolment from hints failed'; }
hstate=$(in_ct 10 systemctl show -P ActiveState crlcache-hints.service)
pres=$(in_ct 10 systemctl show -P Result crlcache-hints.path)
n1=$(runs); sleep 5; n2=$(runs)
if [ "$pres" = unit-start-limit-hit ] && [ "$hstate" = failed ] && [ "$n1" = "$n2" ]; then
    case_ok "a hints service that cannot read the spool is stopped by its start limit after $n1 failed runs in ${took}s; both units failed, no run since"
else
    case_fail start-limit "not stopped within ${STOP_MAX}s: service $hstate, path $pres, failed runs $n1 then $n2"
fi
in_ct 120 systemctl start crlcache-update.service 2>/dev/null
[ "$(in_ct 10 systemctl show -P Result crlcache-update.service)" = exit-code ] &&
    case_ok "the hourly run that cannot read the hints fails" ||
    case_fail hourly-fails "crlcache-update.service succeeded without reading the hints"
in_ct 20 crlcache status >"$W/status.out" 2>&1
grep -q 'hints_unread_since=' "$W/status.out" && case_ok "status says since when the hints are not read" ||
    case_fail status-unread "$(grep coverage "$W/status.out")"
finish
