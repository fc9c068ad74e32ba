#!/usr/bin/env bash
# The README's install section for real, on this host: make install (as
# root, no DESTDIR: creates the crlcache user), a configuration naming a
# demo CA's CRLs served on 127.0.0.1, `crlcache update` started as root
# (switches to the crlcache user), `crlcache enable` on the system
# openssl.cnf, then a plain `openssl s_client` (no OPENSSL_CONF, no flags)
# against good, revoked and revoked-intermediate servers, `crlcache status`,
# and everything undone: disable, make uninstall, user and state removed,
# openssl.cnf compared byte for byte with the original.
#
# It changes the system, so it is not part of `make check` and runs only
# when asked:   sudo CRLCACHE_REAL_INSTALL=1 bash test/system/real_install.sh
set -u
[ "${CRLCACHE_REAL_INSTALL:-}" = 1 ] || { echo "set CRLCACHE_REAL_INSTALL=1 to change this system" >&2; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "run as root" >&2; exit 77; }
getent passwd crlcache >/dev/null && { echo "a crlcache user exists already; not touching this host" >&2; exit 77; }
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib_provider.sh"
unset CRLCACHE_ALLOW_ROOT
SRC=$(cd "$TESTDIR/.." && pwd)
CNF=$(openssl version -d | sed -E 's/^OPENSSLDIR: "(.*)"$/\1/')/openssl.cnf
CNF=$(readlink -f "$CNF")
cp -a "$CNF" "$W/openssl.cnf.orig"
undo() {
    /usr/local/bin/crlcache disable >/dev/null 2>&1
    make -C "$SRC" uninstall >/dev/null 2>&1
    rm -rf /etc/crlcache /var/lib/crlcache "$CNF.crlcache-backup"
    deluser --system crlcache >/dev/null 2>&1; delgroup --system crlcache >/dev/null 2>&1
    cmp -s "$CNF" "$W/openssl.cnf.orig" || { cp -a "$W/openssl.cnf.orig" "$CNF"; echo "restored $CNF from the copy" >&2; }
}
trap 'undo; _lib_cleanup' EXIT
chmod 755 "$W"      # the crlcache user reads nothing here, but be sure

make -C "$SRC" install >"$W/install.log" 2>&1 || { cat "$W/install.log"; fail "make install"; }
getent passwd crlcache >/dev/null || fail "make install did not create the crlcache user"
httpd_start
tls_pki
serve "$W/int.crl" int.crl; serve "$W/int2.crl" int2.crl; serve "$W/root.crl" root.crl
cp "$PKI/root/cert.pem" /etc/crlcache/demo-root.pem
cp "$W/untrusted.pem" /etc/crlcache/demo-int.pem
cat >/etc/crlcache/crlcache.conf <<CONF
url = $BASE_URL/int.crl
url = $BASE_URL/int2.crl
url = $BASE_URL/root.crl
anchor = /etc/crlcache/demo-root.pem
untrusted = /etc/crlcache/demo-int.pem
CONF
/usr/local/bin/crlcache update 2>"$W/update.err"   # demo CDPs on :9 fail; ours must not
cat "$W/update.err"
[ "$(stat -c %U /var/lib/crlcache/index.mdb)" = crlcache ] || fail "index not written by the crlcache user"
/usr/local/bin/crlcache status | sed -n '1,8p'
assert_exit 0 /usr/local/bin/crlcache enable
openssl list -providers | grep -A3 '^  crlcache$' | grep -q 'status: active' || fail "provider not active system-wide"
for n in good_rsa good_ec rev_rsa rev_ec under2_ec; do
    port=$(closed_port)
    openssl s_server -accept "127.0.0.1:$port" -www -naccept 1 -cert "$PKI/$n.pem" \
        -cert_chain "$PKI/$n.ca.pem" -key "$PKI/$n.key" </dev/null >"$W/s-$n.log" 2>&1 &
    bg_register $!
    for i in $(seq 1 50); do grep -q ACCEPT "$W/s-$n.log" && break; sleep 0.1; done
    echo Q | openssl s_client -connect "127.0.0.1:$port" -verify_return_error \
        -CAfile "$PKI/root/cert.pem" >"$W/c-$n.log" 2>&1
    rc=$?
    printf '%-10s s_client exit %d: %s\n' "$n" "$rc" \
        "$(grep -m1 -E 'certificate is revoked|Verify return code' "$W/c-$n.log")"
    case $n in good_*) [ "$rc" -eq 0 ] || fail "$n refused" ;; *) [ "$rc" -ne 0 ] || fail "$n accepted" ;; esac
done
assert_exit 0 /usr/local/bin/crlcache disable
cmp -s "$CNF" "$W/openssl.cnf.orig" || fail "disable did not restore $CNF"
note "real install ok; undoing"
