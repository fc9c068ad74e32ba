#!/usr/bin/env bash
# make install / uninstall into a DESTDIR: every file lands where the man
# pages say, the snippet names the installed module, the units and man pages
# pass their checkers, the installed pieces work together, and uninstall
# leaves only the administrator's configuration and the state directory.
. "$(dirname "$0")/lib.sh"

TOP=$(cd "$TESTDIR/.." && pwd)
[ -x "$TOP/fetcher/crlcache" ] && [ -f "$TOP/provider/crlcache.so" ] ||
    skip "build first (make): no fetcher/crlcache or provider/crlcache.so"
command -v pkg-config >/dev/null || skip "pkg-config not available"
MODDIR=$(pkg-config --variable=modulesdir libcrypto)
[ -n "$MODDIR" ] || skip "pkg-config reports no modulesdir for libcrypto"
OSSLDIR=$(openssl version -d | sed -n 's/^OPENSSLDIR: "\(.*\)"$/\1/p')
[ -n "$OSSLDIR" ] || fail "cannot read OPENSSLDIR from openssl version -d"

R=$W/root
# The unit directory systemd.pc names (the Makefile's SYSTEMDUNITDIR):
# /lib/systemd/system on Debian 12, /usr/lib/systemd/system on 13.
UNITREL=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
UNITREL=${UNITREL:-/lib/systemd/system}
UNITREL=${UNITREL#/}
# The make running `make check` must not leak its flags or variables.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$TOP" "$@"; }

# What install puts under DESTDIR (files), relative, sorted.
expected_files() {    # expected_files PREFIX
    local p=${1#/}
    printf '%s\n' \
        "etc/crlcache/crlcache.conf" \
        "etc/cron.d/crlcache" \
        "etc/ssl/openssl.cnf.d/crlcache.cnf" \
        "$UNITREL/crlcache-hints.path" \
        "$UNITREL/crlcache-hints.service" \
        "$UNITREL/crlcache-share.service" \
        "$UNITREL/crlcache-share.socket" \
        "$UNITREL/crlcache-update.service" \
        "$UNITREL/crlcache-update.timer" \
        "$p/bin/crlcache" \
        "${MODDIR#/}/crlcache.so" \
        "$p/share/man/man1/crlcache.1" \
        "$p/share/man/man5/crlcache.conf.5" \
        "$p/share/man/man7/crlcache-provider.7" | LC_ALL=C sort
}
files_under() { (cd "$1" && find . ! -type d | sed 's|^\./||' | LC_ALL=C sort); }

# 1. install into a DESTDIR with PREFIX=/usr
assert_exit 0 mk install DESTDIR="$R" PREFIX=/usr
expected_files /usr >"$W/want"
files_under "$R" >"$W/got"
diff -u "$W/want" "$W/got" >"$W/diff" || { cat "$W/diff" >&2; fail "installed files differ from the list"; }
[ -d "$R/var/lib/crlcache" ] || fail "no $R/var/lib/crlcache"
[ "$(stat -c %a "$R/var/lib/crlcache")" = 755 ] || fail "var/lib/crlcache is not mode 755"
[ "$(stat -c %a "$R/usr/bin/crlcache")" = 755 ] || fail "bin/crlcache is not mode 755"
while read -r f; do
    [ "$f" = usr/bin/crlcache ] && continue
    [ "$(stat -c %a "$R/$f")" = 644 ] || fail "$f is not mode 644"
done <"$W/got"
cmp -s "$TOP/fetcher/crlcache" "$R/usr/bin/crlcache" || fail "installed crlcache differs from the build"
cmp -s "$TOP/provider/crlcache.so" "$R$MODDIR/crlcache.so" || fail "installed crlcache.so differs from the build"
case_ok "files land"

# 2. the snippet names the installed module and is otherwise the source's;
#    the binary looks for it where it was installed.
S=$R/etc/ssl/openssl.cnf.d/crlcache.cnf
[ "$(grep -c '^module[[:space:]]*=' "$S")" = 1 ] || fail "snippet: expected one module line"
assert_grep "^module = $MODDIR/crlcache\.so\$" "$S"
diff <(grep -v '^module[[:space:]]*=' "$TOP/openssl.cnf.d/crlcache.cnf") \
    <(grep -v '^module[[:space:]]*=' "$S") >"$W/diff" ||
    { cat "$W/diff" >&2; fail "snippet differs from the source beyond its module line"; }
grep -aq '/etc/ssl/openssl.cnf.d/crlcache.cnf' "$R/usr/bin/crlcache" ||
    fail "crlcache does not have /etc/ssl/openssl.cnf.d/crlcache.cnf compiled in"
case_ok "snippet"

# 3. units and cron file: generated for the prefix, no template left
U=$R/$UNITREL
assert_grep '^ExecStart=/usr/bin/crlcache update$' "$U/crlcache-update.service"
assert_grep '^User=crlcache$' "$U/crlcache-update.service"
assert_grep '^Type=oneshot$' "$U/crlcache-update.service"
for k in 'ProtectSystem=strict' 'ReadWritePaths=/var/lib/crlcache' 'NoNewPrivileges=yes' \
    'PrivateTmp=yes' 'ProtectHome=yes' 'PrivateDevices=yes' 'CapabilityBoundingSet=' \
    'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX' 'MemoryDenyWriteExecute=yes'; do
    grep -qxF "$k" "$U/crlcache-update.service" || fail "service lacks $k"
done
# The hint service: the same sandbox, the fast run, spaced runs.
grep -v -e '^#' -e '^ExecStart=' -e '^ExecStopPost=' -e '^Description=' -e '^Nice=' \
    -e '^IOSchedulingClass=' -e '^TimeoutStartSec=' -e '^StartLimit' "$U/crlcache-hints.service" | grep . >"$W/hints.sandbox"
grep -v -e '^#' -e '^ExecStart=' -e '^ExecStopPost=' -e '^Description=' -e '^Nice=' \
    -e '^IOSchedulingClass=' -e '^TimeoutStartSec=' -e '^StartLimit' "$U/crlcache-update.service" | grep . >"$W/update.sandbox"
diff -u "$W/update.sandbox" "$W/hints.sandbox" >"$W/diff" ||
    { cat "$W/diff" >&2; fail "crlcache-hints.service is not sandboxed like crlcache-update.service"; }
assert_grep '^ExecStart=/usr/bin/crlcache update --hints$' "$U/crlcache-hints.service"
assert_grep "^ExecStopPost=.*exec /bin/sleep [0-9]+'$" "$U/crlcache-hints.service"
assert_grep '^StartLimitBurst=[0-9]+$' "$U/crlcache-hints.service"
assert_grep '^DirectoryNotEmpty=/var/lib/crlcache/hints$' "$U/crlcache-hints.path"
assert_grep '^Unit=crlcache-hints.service$' "$U/crlcache-hints.path"
assert_grep '^TriggerLimitIntervalSec=' "$U/crlcache-hints.path"
assert_grep '^TriggerLimitBurst=' "$U/crlcache-hints.path"
assert_not_grep '@[A-Z]+@' "$U/crlcache-hints.service"
# The sharer: the state's owner, the update's sandbox but for the network.
assert_grep '^ExecStart=/usr/bin/crlcache share$' "$U/crlcache-share.service"
assert_grep '^User=crlcache$' "$U/crlcache-share.service"
assert_grep '^ListenSequentialPacket=/run/crlcache/lookup.sock$' "$U/crlcache-share.socket"
grep -x -e 'Type=.*' -e 'ExecStart=.*' -e 'SuccessExitStatus=.*' -e 'ReadWritePaths=.*' \
    -e 'StateDirectory.*' -e 'RestrictAddressFamilies=.*' -e 'PrivateNetwork=.*' -v \
    "$U/crlcache-share.service" | grep '^[A-Z][A-Za-z]*=' | grep -v -e '^Description=' -e '^Documentation=' \
    -e '^Requires=' -e '^After=' >"$W/share.sandbox"
grep -x -e 'Type=.*' -e 'ExecStart=.*' -e 'SuccessExitStatus=.*' -e 'ReadWritePaths=.*' \
    -e 'StateDirectory.*' -e 'RestrictAddressFamilies=.*' -e 'PrivateNetwork=.*' -v \
    "$U/crlcache-update.service" | grep '^[A-Z][A-Za-z]*=' | grep -v -e '^Description=' -e '^Documentation=' \
    -e '^Wants=' -e '^After=' -e '^Nice=' -e '^IOSchedulingClass=' -e '^TimeoutStartSec=' >"$W/update.sandbox2"
diff -u "$W/update.sandbox2" "$W/share.sandbox" >"$W/diff" ||
    { cat "$W/diff" >&2; fail "crlcache-share.service is not sandboxed like crlcache-update.service"; }
assert_grep '^RestrictAddressFamilies=AF_UNIX$' "$U/crlcache-share.service"
assert_not_grep '@[A-Z]+@' "$U/crlcache-share.service"
assert_grep '^OnCalendar=hourly$' "$U/crlcache-update.timer"
assert_grep '^RandomizedDelaySec=' "$U/crlcache-update.timer"
assert_grep '^Persistent=true$' "$U/crlcache-update.timer"
C=$R/etc/cron.d/crlcache
assert_grep '^[0-9]+ \* \* \* \*[[:space:]]+crlcache[[:space:]].*/usr/bin/crlcache --syslog -q update$' "$C"
assert_not_grep '@[A-Z]+@' "$U/crlcache-update.service"
assert_not_grep '@[A-Z]+@' "$U/crlcache-update.timer"
assert_not_grep '@[A-Z]+@' "$C"
# the substitution touches the command only: the comments are the source's
diff <(grep '^#' "$TOP/cron/crlcache") <(grep '^#' "$C") >"$W/diff" ||
    { cat "$W/diff" >&2; fail "the installed cron file's comments differ from cron/crlcache"; }
# cron runs the line with /bin/sh, where % would end the command
grep -v '^#' "$C" | grep -q '%' && fail "cron file uses %, which cron turns into newlines"
case_ok "units and cron file"

# 4. the installed pieces work: the default configuration parses (also with
#    every documented default uncommented), and `exec` with the installed
#    snippet and module gets the provider active.
CONF=$R/etc/crlcache/crlcache.conf
STATE=$W/state
# It names the CCADB's real reports; tests never leave 127.0.0.1, so they
# are read from local files in the same formats (no rows), {decade} and all.
# It names Mozilla's CRLite server too: switched off as an offline host does
# (t_crlite_rs fetches CRLite from loopback).
assert_grep '^crlite = https://firefox\.settings\.services\.mozilla\.com/v1$' "$CONF"
CCADB_URL=https://ccadb.my.salesforce-sites.com/ccadb
assert_grep "^ccadb_records = $CCADB_URL/AllCertificateRecordsCSVFormatV5\$" "$CONF"
assert_grep "^ccadb_records_fallback = $CCADB_URL/AllCertificateRecordsCSVFormatV4a\$" "$CONF"
assert_grep "^ccadb_pems = $CCADB_URL/AllCertificatePEMsCSVFormat\\?NotBeforeDecade=\\{decade\\}\$" "$CONF"
ccadb_write "$W/ccadb" 2000
sed -e "s|$CCADB_URL/AllCertificateRecordsCSVFormatV5|$W/ccadb/records-v5.csv|" \
    -e "s|$CCADB_URL/AllCertificateRecordsCSVFormatV4a|$W/ccadb/records.csv|" \
    -e "s|$CCADB_URL/AllCertificatePEMsCSVFormat?NotBeforeDecade=|$W/ccadb/pems-decade-|" \
    -e 's|{decade}$|{decade}.csv|' -e 's|^crlite = |#crlite = |' "$CONF" >"$W/local.conf"
grep -v '^#' "$W/local.conf" | grep -q mozilla && fail "a Mozilla URL left in the test configuration"
assert_exit 0 "$R/usr/bin/crlcache" --allow-root --state-dir "$STATE" -c "$W/local.conf" update
assert_grep "directory: $(( ($(date -u +%Y) - 2000) / 10 + 2 )) reports" "$W/last.err"
sed -E 's/^#(parallel|connect_timeout|timeout|max_size|max_redirects|stale_grace) /\1 /' \
    "$W/local.conf" >"$W/defaults.conf"
[ "$(grep -c '^[a-z]' "$W/defaults.conf")" = 9 ] ||
    fail "config does not show the 6 numeric defaults and the 3 CCADB report keys"
assert_exit 0 "$R/usr/bin/crlcache" --allow-root --state-dir "$STATE" -c "$W/defaults.conf" update
assert_exit 0 env CRLCACHE_SNIPPET="$S" "$R/usr/bin/crlcache" --state-dir "$STATE" \
    exec --module "$R$MODDIR/crlcache.so" -- openssl list -providers
assert_grep -i 'status: active' "$W/last.out"
grep -A3 '^  crlcache$' "$W/last.out" | grep -q 'status: active' ||
    { cat "$W/last.out" >&2; fail "exec with the installed snippet: crlcache not active"; }
case_ok "installed pieces work"

# 5. man pages: mandoc -Tlint clean (only "referenced manual not found",
#    which depends on what the host has installed, is let through), and
#    no line troff cannot break at 80 columns (lintian's groff-message:
#    man --warnings, as lintian runs it)
if command -v mandoc >/dev/null; then
    for m in "$R/usr/share/man/man1/crlcache.1" "$R/usr/share/man/man5/crlcache.conf.5" \
        "$R/usr/share/man/man7/crlcache-provider.7"; do
        mandoc -Tlint -Wstyle "$m" 2>&1 |
            grep -v -e 'referenced manual not found' -e 'mandoc\.db' >"$W/lint" || :
        [ -s "$W/lint" ] && { cat "$W/lint" >&2; fail "mandoc -Tlint: $m"; }
        mandoc -Tutf8 "$m" >/dev/null || fail "mandoc cannot render $m"
        if command -v man >/dev/null; then
            # "cannot adjust line" (groff 1.23: a justified line left
            # short) is not lintian's concern; "cannot break line" is.
            LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$m" 2>&1 >/dev/null |
                grep -v 'cannot adjust line' >"$W/troff" || :
            [ -s "$W/troff" ] && { cat "$W/troff" >&2; fail "man --warnings at 80 columns: $m"; }
        fi
    done
    case_ok "mandoc -Tlint"
else
    note "mandoc not installed: man page lint skipped (test/deps.sh installs it)"
fi

# 6. systemd-analyze verify: on copies whose ExecStart points into DESTDIR
#    (the tool wants an executable there), with MANPATH at the installed
#    pages so that Documentation=man:... is checked too.  It exits 0 on
#    unknown keys and bad values, so any output is a failure.
if command -v systemd-analyze >/dev/null; then
    mkdir -p "$W/units"
    for u in crlcache-update.service crlcache-update.timer crlcache-hints.service \
        crlcache-hints.path crlcache-share.service crlcache-share.socket; do
        sed "s|^ExecStart=/usr/bin/|ExecStart=$R/usr/bin/|" "$U/$u" >"$W/units/$u"
    done
    man_opt=()
    command -v man >/dev/null || man_opt=(--man=no)
    MANPATH=$R/usr/share/man systemd-analyze verify ${man_opt[@]+"${man_opt[@]}"} \
        "$W/units/crlcache-update.timer" "$W/units/crlcache-update.service" \
        "$W/units/crlcache-hints.path" "$W/units/crlcache-hints.service" \
        "$W/units/crlcache-share.socket" "$W/units/crlcache-share.service" \
        >"$W/verify" 2>&1; rc=$?
    if [ "$rc" -ne 0 ] || [ -s "$W/verify" ]; then
        cat "$W/verify" >&2; fail "systemd-analyze verify: exit $rc"
    fi
    case_ok "systemd-analyze verify"
else
    note "systemd-analyze not installed: unit verification skipped"
fi

# 7. install again: an edited configuration is kept, the rest replaced
echo 'timeout = 60' >>"$CONF"
cp "$CONF" "$W/conf.edited"
assert_exit 0 mk install DESTDIR="$R" PREFIX=/usr
cmp -s "$CONF" "$W/conf.edited" || fail "install overwrote an existing crlcache.conf"
files_under "$R" >"$W/got"
diff -u "$W/want" "$W/got" >"$W/diff" || { cat "$W/diff" >&2; fail "second install: files differ"; }
case_ok "reinstall keeps the configuration"

# 8. uninstall refuses while the system openssl.cnf still uses crlcache
mkdir -p "$R$OSSLDIR"
printf '# BEGIN crlcache\n.include /etc/ssl/openssl.cnf.d/crlcache.cnf\n# END crlcache\n' \
    >"$R$OSSLDIR/openssl.cnf"
assert_exit nonzero mk uninstall DESTDIR="$R" PREFIX=/usr
assert_grep 'crlcache disable' "$W/last.err"
[ -f "$R/usr/bin/crlcache" ] || fail "a refused uninstall removed files"
rm -f "$R$OSSLDIR/openssl.cnf"
case_ok "uninstall refuses while enabled"

# 9. uninstall leaves exactly what is documented to stay
assert_exit 0 mk uninstall DESTDIR="$R" PREFIX=/usr
assert_grep 'kept .*crlcache\.conf' "$W/last.out"
printf '%s\n' etc/crlcache/crlcache.conf >"$W/want.after"
files_under "$R" >"$W/got"
diff -u "$W/want.after" "$W/got" >"$W/diff" || { cat "$W/diff" >&2; fail "uninstall left other files"; }
[ -d "$R/var/lib/crlcache" ] || fail "uninstall removed the state directory"
cmp -s "$CONF" "$W/conf.edited" || fail "uninstall changed crlcache.conf"
case_ok "uninstall"

# 10. default PREFIX is /usr/local, and the units follow it
R2=$W/root2
assert_exit 0 mk install DESTDIR="$R2"
expected_files /usr/local >"$W/want"
files_under "$R2" >"$W/got"
diff -u "$W/want" "$W/got" >"$W/diff" || { cat "$W/diff" >&2; fail "PREFIX=/usr/local: files differ"; }
assert_grep '^ExecStart=/usr/local/bin/crlcache update$' "$R2/$UNITREL/crlcache-update.service"
assert_grep '/usr/local/bin/crlcache --syslog -q update$' "$R2/etc/cron.d/crlcache"
assert_exit 0 mk uninstall DESTDIR="$R2"
files_under "$R2" >"$W/got"
diff -u "$W/want.after" "$W/got" >/dev/null || fail "PREFIX=/usr/local: uninstall left other files"
case_ok "default prefix"

finish
