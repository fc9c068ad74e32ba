#!/usr/bin/env bash
# A flood of hints whose certificates' CRL distribution points are dead,
# under the shipped units and a real systemd (test/lib_boot.sh: this
# machine's root booted by systemd-nspawn on an overlay, loopback only).
# Any local user can leave such hints (public certificates of a CA whose
# CRL server is gone); a hint run that failed for them was not held and
# was started again at once, and the start limit then left
# crlcache-hints.service and crlcache-hints.path failed: nobody's new CA
# was learned until an administrator ran `systemctl reset-failed`.
# As nobody, FLOOD_CERTS certificates, each with a CRL DP of its own that
# answers 404 (at once: a run that fails ends within a second, as a
# refused connection, retried, does not), are left as hints one after
# the other for FLOOD_SECS seconds.  Checked:
#   - neither crlcache-hints.service nor crlcache-hints.path is failed,
#     the path unit still watches, `systemctl --failed` is empty;
#   - `crlcache status` is not failing for them (exit 0, "retrying");
#   - a never-met CA hinted afterwards is learned: its revoked
#     certificate is refused by `crlcache check` within LEARN_MAX.
# Skips where systemd-nspawn cannot boot here.  About 30 s here.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_boot.sh"
command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"

FLOOD_CERTS=40		# dead distribution points, one certificate each
FLOOD_SECS=12		# seconds of hints, past the 10 s start limit interval
LEARN_MAX=30		# seconds for the later CA to be learned
SETTLE_MAX=60		# seconds for the flood's runs to end

boot_root
pki_root root "/CN=Flood Root/O=crlcache tests"
pki_ca dead root "/CN=Flood Dead CA/O=crlcache tests"
pki_ca never root "/CN=Flood Never Met CA/O=crlcache tests"
mkdir -p "$ROOT/srv/crlt/flood"
for i in $(seq 1 "$FLOOD_CERTS"); do
    pki_leaf "d$i" dead "/CN=d$i.test" cdp="$BASE_URL/dead-$i.crl"
    openssl x509 -in "$PKI/d$i.pem" -outform DER -out "$ROOT/srv/crlt/flood/d$i.der"
done
pki_leaf rev never "/CN=rev.test" cdp="$BASE_URL/never.crl"
pki_revoke never "$PKI/rev.pem"
pki_gencrl never "$ROOT/srv/crlt/www/never.crl"
openssl x509 -in "$PKI/rev.pem" -outform DER -out "$ROOT/srv/crlt/rev.der"
cp "$PKI/root/cert.pem" "$ROOT/srv/crlt/root.pem"
cat "$PKI/dead/cert.pem" "$PKI/never/cert.pem" >"$ROOT/srv/crlt/untrusted.pem"
cp "$PKI/rev.pem" "$ROOT/srv/crlt/rev.pem"

boot_start
boot_install <<EOF
# crlcache hint flood test
anchor = /srv/crlt/root.pem
untrusted = /srv/crlt/untrusted.pem
allow_private_urls = yes
EOF
in_ct 10 systemctl is-active -q crlcache-hints.path || fail "the path unit is not active after make install"

# hint_as_nobody DER NAME: a hint left as any local user leaves one.
hint_as_nobody() {
    in_ct 10 setpriv --reuid=nobody --regid=nogroup --clear-groups \
        sh -c "cat '$1' >/var/lib/crlcache/hints/$2.crt"
}
hints_idle() {
    [ -z "$(in_ct 10 ls -A /var/lib/crlcache/hints)" ] &&
        [ "$(in_ct 10 systemctl show -P ActiveState crlcache-hints.service)" = inactive ]
}

# ---------------------------------------------------------------- the flood
t0=$(date +%s)
n=0
while [ $(( $(date +%s) - t0 )) -lt "$FLOOD_SECS" ]; do
    n=$((n + 1))
    hint_as_nobody "/srv/crlt/flood/d$(( (n - 1) % FLOOD_CERTS + 1 )).der" "flood-$n"
    sleep 0.1
done
note "$n hints of $FLOOD_CERTS certificates with dead CRL DPs in ${FLOOD_SECS}s"
t0=$(date +%s)
until hints_idle || [ $(( $(date +%s) - t0 )) -ge "$SETTLE_MAX" ]; do sleep 0.5; done
in_ct 10 journalctl -q -o short-precise -u crlcache-hints.service -u crlcache-hints.path >"$W/hints.journal"
runs=$(grep -c 'update: [0-9]* sources' "$W/hints.journal")
sstate=$(in_ct 10 systemctl show -P ActiveState crlcache-hints.service)
pstate=$(in_ct 10 systemctl show -P ActiveState crlcache-hints.path)
pres=$(in_ct 10 systemctl show -P Result crlcache-hints.path)
if [ "$sstate" != failed ] && [ "$pstate" = active ] && [ "$pres" = success ]; then
    case_ok "after the flood ($runs hints runs): crlcache-hints.service $sstate, the path unit active, not at its start limit"
else
    in_ct 10 journalctl -q -o cat -u crlcache-hints.service | tail -5 >&2
    case_fail flood-units "service $sstate, path $pstate ($pres) after $runs hints runs"
fi
failed=$(in_ct 10 systemctl --failed --no-legend --plain)
[ -z "$failed" ] && case_ok "systemctl --failed is empty" || case_fail failed-units "$failed"
in_ct 20 crlcache status >"$W/status.out" 2>&1; rc=$?
if [ "$rc" = 0 ] && grep -q '^summary ok: .* retrying, directory ok$' "$W/status.out"; then
    case_ok "status exits 0: the dead URLs are retrying, not failing"
else
    head -1 "$W/status.out" >&2
    case_fail status "crlcache status exit $rc"
fi

# ---------------------------------------------------------------- learning afterwards
hint_as_nobody /srv/crlt/rev.der after-flood
t0=$(date +%s%N)
learned=
while [ $(( ($(date +%s%N) - t0) / 1000000000 )) -lt "$LEARN_MAX" ]; do
    in_ct 10 crlcache check /srv/crlt/rev.pem >"$W/check.out" 2>&1
    grep -q '^revoked' "$W/check.out" && { learned=1; break; }
    sleep 0.5
done
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ -n "$learned" ]; then
    case_ok "a never-met CA hinted after the flood is learned within ${ms} ms: its revoked certificate is refused"
else
    in_ct 10 journalctl -q -o cat -u crlcache-hints.service | tail -5 >&2
    case_fail learn-after "not learned within ${LEARN_MAX}s: $(tr '\n' ' ' <"$W/check.out")"
fi
finish
