#!/usr/bin/env bash
# A container served by the host's index, as docs/install.md's Dockerfile
# makes it: the package from this tree installed in a fresh root of this
# host's distribution (test/mkroot.sh, the root t_autopkgtest uses), the
# provider switched on there with `crlcache enable` and `log = stderr`,
# and the host's state directory (owned by the fetcher's account, its
# spool watched: a hints run just marked it) bind-mounted read-only at
# /var/lib/crlcache (test/inroot.sh).  Inside:
#   - a revoked server certificate is refused by openssl s_client and by
#     curl, a good one accepted;
#   - a program meeting two CAs nobody met is not refused and does not
#     wait for the host's fetcher (its hints cannot be left), and says
#     once why not; the host's spool is untouched;
#   - `crlcache status` reports the host's index: its generation and
#     revoked count as the host's own `status` gives them.
# Root only; the root is cached, the mirror only answers apt-get update.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
need_crlcache
[ "$(id -u)" -eq 0 ] || skip "makes a Debian root: run as root"
for t in dpkg-buildpackage mmdebstrap; do
    command -v "$t" >/dev/null || skip "$t not installed (test/deps.sh installs it)"
done
id nobody >/dev/null 2>&1 || skip "no user nobody to own the state directory"
. /etc/os-release
[ -n "${VERSION_CODENAME:-}" ] || skip "no VERSION_CODENAME in /etc/os-release"

# The host: the fetcher's state, with the revocations of tls_pki.
tls_ready
for c in n1 n2; do
    pki_ca "$c" root "/CN=Container Unmet CA $c/O=crlcache tests"
    prov_leaf "new_$c" "$c" "new-$c.test" cdp="http://127.0.0.1:9/$c.crl"
done
# The fetcher trusts the root: the marker names it, so that a program
# meeting n1 or n2 would hint and wait on a host that could answer.
write_conf "anchor = $ROOT"
assert_exit 0 cc update --hints		# the spool's watcher marks it watched
[ -e "$STATE/learning" ] || fail "no learning mark after update --hints"
d=$W
while [ "$d" != / ] && [ "$(stat -c %u "$d")" -eq 0 ]; do chmod o+x "$d"; d=$(dirname "$d"); done
chown -R nobody "$STATE"
cc status >"$W/host-status.txt" || fail "status on the host"
host_gen=$(sed -nE 's/^generation[: ]+([0-9]+).*/\1/p' "$W/host-status.txt" | head -n1)
host_rev=$(sed -nE 's/^revoked ([0-9]+)$/\1/p' "$W/host-status.txt")
[ -n "$host_gen" ] && [ -n "$host_rev" ] || { cat "$W/host-status.txt"; fail "no generation or revoked count on the host"; }
spool_before=$(ls -A "$STATE/hints" | wc -l)
srv_start rev rev_ec
srv_start good good_ec
srv_start n1 new_n1
srv_start n2 new_n2

# The image: the package, as the Dockerfile installs it.
deb_build
deb_root
mkdir -p "$W/ca" "$W/out"
cp "$ROOT" "$W/ca/root.pem"
cat >"$W/ca/inside.sh" <<EOF
#!/bin/sh
# Run inside the container (test/t_container.sh).
set -u
out=/out
export DEBIAN_FRONTEND=noninteractive
{ apt-get update -q && apt-get install -y -q --no-install-recommends /pkg/$DEB; } \
    >\$out/install.log 2>&1 || { echo "install failed"; exit 3; }
sed -i 's/^log = syslog\$/log = stderr/' /etc/ssl/openssl.cnf.d/crlcache.cnf
crlcache enable >\$out/enable.log 2>&1 || { echo "enable failed"; exit 3; }
sclient() {
    openssl s_client -connect "127.0.0.1:\$1" -verify_return_error -CAfile /ca/root.pem \
        -servername localhost </dev/null >\$out/sclient-\$2.out 2>&1
    echo "sclient \$2 \$?"
}
scurl() {
    curl -sS --max-time 20 --cacert /ca/root.pem -o /dev/null "https://127.0.0.1:\$1/" \
        >\$out/curl-\$2.out 2>&1
    echo "curl \$2 \$?"
}
sclient $(srv_port rev) rev
sclient $(srv_port good) good
scurl $(srv_port rev) rev
scurl $(srv_port good) good
# One process, two CAs nobody met: both connections verified.
python3 -c '
import socket, ssl, sys, time
ctx = ssl.create_default_context(cafile="/ca/root.pem")
ctx.check_hostname = False
for port in sys.argv[1:]:
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", int(port))) as s:
        with ctx.wrap_socket(s) as t:
            pass
    print("python ok %d ms" % ((time.monotonic() - t0) * 1000), flush=True)
' $(srv_port n1) $(srv_port n2) 2>\$out/python.err || echo "python failed"
crlcache status >\$out/status.txt 2>\$out/status.err; echo "status \$?"
EOF
sh "$TESTDIR/inroot.sh" -b "$W/pkg:/pkg" -r "$W/ca:/ca" -b "$W/out:/out" \
    -r "$STATE:/var/lib/crlcache" "$DEB_ROOT" sh /ca/inside.sh >"$W/inside.txt" 2>&1; rc=$?
cat "$W/inside.txt"
[ "$rc" -eq 0 ] || { tail -20 "$W/out/install.log" 2>/dev/null; cat "$W/out/enable.log" 2>/dev/null; fail "the container run failed (exit $rc)"; }

expect_line() { grep -qx "$1" "$W/inside.txt" || fail "inside: expected '$1'"; }
expect_line "sclient rev 1"
assert_grep 'certificate is revoked' "$W/out/sclient-rev.out"
expect_line "sclient good 0"
grep -Eq '^curl rev (35|60)$' "$W/inside.txt" || fail "curl accepted the revoked certificate inside"
expect_line "curl good 0"
note "inside: revoked refused by s_client and curl, good accepted"

[ "$(grep -c '^python ok' "$W/inside.txt")" = 2 ] || { cat "$W/out/python.err"; fail "the unmet CAs' servers were not both accepted"; }
[ "$(grep -c 'read-only filesystem' "$W/out/python.err")" = 1 ] ||
    { cat "$W/out/python.err"; fail "the read-only spool was not said exactly once"; }
assert_not_grep 'waited [0-9]+ ms' "$W/out/python.err"
[ "$(ls -A "$STATE/hints" | wc -l)" = "$spool_before" ] || fail "the host's spool changed"
note "inside: unmet CAs accepted without waiting ($(grep '^python ok' "$W/inside.txt" | sed 's/python ok //' | paste -sd,)), the read-only spool said once"

expect_line "status 0"
grep -Eq "^generation[: ]+$host_gen\b" "$W/out/status.txt" || { cat "$W/out/status.txt" "$W/out/status.err"; fail "status inside does not report the host's generation $host_gen"; }
assert_grep "^revoked $host_rev\$" "$W/out/status.txt"
note "inside: status reports the host's index (generation $host_gen, $host_rev revoked)"
