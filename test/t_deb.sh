#!/usr/bin/env bash
# The Debian package for real, on this host: build it from a copy of the
# tree (dpkg-buildpackage -us -uc: source and binary), lintian clean at
# --pedantic with the info and experimental tags (each tag left is
# overridden in debian/, with its reason), dpkg -i (user, state directory, openssl.cnf
# untouched), `crlcache update` as the crlcache user against a CRL served on
# 127.0.0.1, `crlcache enable`, curl and s_client with no flags refused by a
# revoked server and not by a good one, reinstalling keeps it enabled,
# `crlcache disable`, removal while enabled (openssl.cnf left as enable
# made it: no maintainer script edits it; postrm says so once; openssl,
# curl and python3 keep working), purge; openssl.cnf byte for byte as
# before once the block is taken out by hand, and no file of the package left.  A trap restores openssl.cnf and purges the package
# whatever happens.
#
# Root only; skipped where debhelper is missing or where crlcache is
# installed already (test/system/real_install.sh or `make install` put the
# same module and snippet paths: never overwrite or remove those).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"

[ "$(id -u)" -eq 0 ] || skip "installs a package: run as root"
for t in dpkg-buildpackage dh lintian runuser curl; do
    command -v "$t" >/dev/null || skip "$t not installed (test/deps.sh installs it)"
done
command -v pkg-config >/dev/null || skip "pkg-config not available"
MODDIR=$(pkg-config --variable=modulesdir libcrypto)
[ -n "$MODDIR" ] || skip "pkg-config reports no modulesdir for libcrypto"
CNF=$(openssl version -d | sed -n 's/^OPENSSLDIR: "\(.*\)"$/\1/p')/openssl.cnf
CNF=$(readlink -f "$CNF")
[ -f "$CNF" ] || skip "no system openssl.cnf"
BACKUP=$CNF.crlcache-backup
SNIPPET=/etc/ssl/openssl.cnf.d/crlcache.cnf
STATEDIR=/var/lib/crlcache
if dpkg-query -W -f '${db:Status-Status}' crlcache 2>/dev/null | grep -qv '^not-installed$'; then
    skip "a crlcache package is on this host already; not touching it"
fi
for f in "$MODDIR/crlcache.so" "$SNIPPET" /etc/crlcache "$STATEDIR" "$BACKUP" \
    /usr/bin/crlcache /usr/local/bin/crlcache; do
    [ -e "$f" ] && skip "$f exists (crlcache installed by hand?); not touching this host"
done
grep -q 'BEGIN crlcache' "$CNF" && skip "$CNF already names crlcache"
unset CRLCACHE_ALLOW_ROOT
had_user=0
getent passwd crlcache >/dev/null && had_user=1
cp -a "$CNF" "$W/openssl.cnf.orig"
export DEBIAN_FRONTEND=noninteractive

# dpkg takes the frontend lock and does not wait for it (apt-get elsewhere
# on this host may hold it): retry for up to 300 s.
DPKG_LOCK_TRIES=150
dpkg_w() {
    local i rc
    for ((i = 0; i < DPKG_LOCK_TRIES; i++)); do
        dpkg "$@" >"$W/dpkg.out" 2>&1; rc=$?
        [ "$rc" -ne 0 ] && grep -Eq 'frontend lock|database is locked' "$W/dpkg.out" || break
        sleep 2
    done
    cat "$W/dpkg.out"
    return "$rc"
}

undo() {
    # openssl.cnf first: a prerm that cannot disable refuses the removal.
    cmp -s "$CNF" "$W/openssl.cnf.orig" ||
        { cp -a "$W/openssl.cnf.orig" "$CNF"; echo "restored $CNF from the copy" >&2; }
    rm -f /etc/crlcache/t_deb-*.pem
    if dpkg-query -W -f '${db:Status-Status}' crlcache 2>/dev/null | grep -qv '^not-installed$'; then
        dpkg_w --purge crlcache >/dev/null 2>&1 || echo "undo: dpkg --purge crlcache failed" >&2
    fi
    rm -f "$BACKUP"
    [ "$had_user" = 1 ] || ! getent passwd crlcache >/dev/null ||
        { deluser --system crlcache >/dev/null 2>&1; delgroup --system crlcache >/dev/null 2>&1; }
}
trap 'undo; _lib_cleanup' EXIT

# 1. build from a copy of the tracked files (or of the tree, without .git)
SRC=$W/src
tree_copy "$SRC" || fail "copying the tree"
[ -f "$SRC/debian/rules" ] || fail "no debian/rules in the tree"
orig_tarball "$SRC" "$W" || fail "make dist (the .orig.tar.gz)"
start=$(date +%s)
# Lean: no test suite inside (nocheck), no -dbgsym package (noddebs).  The
# source package too, for lintian.
(cd "$SRC" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
    DEB_BUILD_OPTIONS="nocheck noddebs parallel=$(nproc)" dpkg-buildpackage -us -uc) \
    >"$W/build.log" 2>&1 || { tail -40 "$W/build.log" >&2; fail "dpkg-buildpackage"; }
note "dpkg-buildpackage: $(( $(date +%s) - start )) s"
DEB=$(echo "$W"/crlcache_*_*.deb)
CHANGES=$(echo "$W"/crlcache_*_*.changes)
[ -f "$DEB" ] || fail "not one .deb in $W: $DEB"
[ -f "$CHANGES" ] || fail "not one .changes in $W: $CHANGES"
dpkg-deb -c "$DEB" | awk '{ print $6 }' | sed -e 's|^\.||' -e 's|/$||' | grep . >"$W/contents"
# The units where systemd.pc says (debian/rules): /lib/systemd/system on
# Debian 12, /usr/lib/systemd/system on Debian 13.
UNITDIR=$(pkg-config --variable=systemdsystemunitdir systemd)
[ -n "$UNITDIR" ] || fail "pkg-config names no systemd unit directory"
for f in /usr/bin/crlcache "$MODDIR/crlcache.so" "$SNIPPET" /etc/crlcache/crlcache.conf \
    /etc/cron.d/crlcache $UNITDIR/crlcache-update.service \
    $UNITDIR/crlcache-update.timer /usr/share/man/man1/crlcache.1.gz \
    /usr/share/man/man5/crlcache.conf.5.gz /usr/share/man/man7/crlcache-provider.7.gz; do
    grep -qxF "$f" "$W/contents" || { cat "$W/contents" >&2; fail "the package lacks $f"; }
done
grep -q "^$STATEDIR" "$W/contents" && fail "the package ships $STATEDIR (postinst makes it)"
# README.Debian (what install switches on; nothing enforced until enable) and NEWS.md
grep -Eqx '/usr/share/doc/crlcache/README\.Debian(\.gz)?' "$W/contents" || fail "the package lacks README.Debian"
grep -Eqx '/usr/share/doc/crlcache/NEWS\.md(\.gz)?' "$W/contents" || fail "the package lacks NEWS.md"
dpkg-deb --ctrl-tarfile "$DEB" | tar -xOf - ./conffiles >"$W/conffiles"
for f in /etc/crlcache/crlcache.conf "$SNIPPET" /etc/cron.d/crlcache; do
    grep -qxF "$f" "$W/conffiles" || { cat "$W/conffiles" >&2; fail "$f is not a conffile"; }
done
dpkg-deb --ctrl-tarfile "$DEB" | tar -xOf - ./postinst >"$W/postinst"
assert_grep 'deb-systemd-helper .*enable.*crlcache-update\.timer|crlcache-update\.timer.*enable' "$W/postinst"
grep -q 'deb-systemd-invoke.*start.*crlcache-update\.service' "$W/postinst" &&
    fail "postinst starts crlcache-update.service (a full update inside dpkg)"
case_ok "build ($(basename "$DEB"))"

# 2. lintian on the source and the binary package, every tag shown: none
#    may be left that debian/ does not override.  Two exceptions, which a
#    lintian older than the package prints and Debian 13's judges:
#    newer-standards-version (Debian 12's knows Policy up to 4.6.2), and
#    package-supports-alternative-init-but-no-init.d-script for the
#    socket-activated crlcache-share.service (Debian 12's exempts a service
#    that a .path or .timer starts, not one a .socket starts; Debian 13's
#    lintian has no such tag, and an override naming it is an error there).
grep -q ' crlcache_[^ ]*\.dsc$' "$CHANGES" || fail "no source package in $CHANGES"
rc=0
lintian --pedantic -I -E --display-experimental "$CHANGES" >"$W/lintian.out" 2>"$W/lintian.err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$W/lintian.out" "$W/lintian.err" >&2; fail "lintian exit $rc"; }
OLD_LINTIAN='^W: crlcache source: newer-standards-version |^I: crlcache: package-supports-alternative-init-but-no-init\.d-script \[(usr/)?lib/systemd/system/crlcache-share\.service\]$'
grep -E '^[EWIPX]: ' "$W/lintian.out" | grep -Ev "$OLD_LINTIAN" &&
    fail "lintian --pedantic: tags not overridden in debian/ (above)"
grep -E "$OLD_LINTIAN" "$W/lintian.out" |
    sed 's/^/lintian older than the package: /' >&2
case_ok "lintian"

# 3. install: user, state directory; openssl.cnf untouched
while read -r f; do [ ! -e "$f" ] || echo "$f"; done <"$W/contents" >"$W/existed"
dpkg_w -i "$DEB" >"$W/install.log" || { cat "$W/install.log" >&2; fail "dpkg -i"; }
dpkg -L crlcache >"$W/files"
getent passwd crlcache >/dev/null || fail "no crlcache user after install"
[ "$(stat -c '%U:%G %a' "$STATEDIR")" = "crlcache:crlcache 755" ] ||
    fail "$STATEDIR: $(stat -c '%U:%G %a' "$STATEDIR"), wanted crlcache:crlcache 755"
[ "$(stat -c '%U:%G %a' "$STATEDIR/hints")" = "crlcache:crlcache 3733" ] ||
    fail "$STATEDIR/hints: $(stat -c '%U:%G %a' "$STATEDIR/hints"), wanted crlcache:crlcache 3733"
cmp -s "$CNF" "$W/openssl.cnf.orig" || fail "dpkg -i changed $CNF"
assert_grep "^module = $MODDIR/crlcache\.so\$" "$SNIPPET"
case_ok "install"

# 4. update as the crlcache user: a CRL served on 127.0.0.1 revoking a leaf
httpd_start
pki_root root "/CN=Deb Test Root/O=crlcache tests"
pki_ca int root "/CN=Deb Test Int/O=crlcache tests"
prov_leaf good int good.test cdp="$BASE_URL/int.crl"
prov_leaf rev int rev.test cdp="$BASE_URL/int.crl"
pki_revoke int "$PKI/rev.pem" reason=keyCompromise
pki_gencrl int "$W/int.crl"
serve "$W/int.crl" int.crl
ROOT=$PKI/root/cert.pem
install -m 644 "$ROOT" /etc/crlcache/t_deb-root.pem
install -m 644 "$PKI/int/cert.pem" /etc/crlcache/t_deb-int.pem
cat >/etc/crlcache/crlcache.conf <<CONF
# t_deb: one CRL on 127.0.0.1, no directory (tests never leave loopback)
url = $BASE_URL/int.crl
anchor = /etc/crlcache/t_deb-root.pem
untrusted = /etc/crlcache/t_deb-int.pem
CONF
(cd / && runuser -u crlcache -- crlcache update) >"$W/update.out" 2>&1 ||
    { cat "$W/update.out" >&2; fail "crlcache update as the crlcache user"; }
[ "$(stat -c %U "$STATEDIR/index.mdb")" = crlcache ] || fail "index not written by the crlcache user"
[ "$(requests_for /int.crl)" -ge 1 ] || fail "update did not fetch int.crl"
case_ok "update as crlcache"

# 5. enable: plain clients (no OPENSSL_CONF, no flags) refuse the revoked server
assert_exit 0 crlcache enable
openssl list -providers | grep -A3 '^  crlcache$' | grep -q 'status: active' ||
    fail "provider not active system-wide after enable"
srv() {     # srv NAME: s_server -www on 127.0.0.1 with $PKI/NAME.pem -> SRV_PORT
    local i
    SRV_PORT=$(closed_port)
    openssl s_server -accept "127.0.0.1:$SRV_PORT" -www -naccept 8 -cert "$PKI/$1.pem" \
        -cert_chain "$PKI/$1.ca.pem" -key "$PKI/$1.key" </dev/null >"$W/s-$1.log" 2>&1 &
    bg_register $!
    for i in $(seq 1 100); do grep -q '^ACCEPT' "$W/s-$1.log" && return 0; sleep 0.05; done
    cat "$W/s-$1.log" >&2; fail "s_server $1 did not start"
}
for n in good rev; do
    srv "$n"
    curl -sS --max-time 20 --cacert "$ROOT" -o /dev/null "https://127.0.0.1:$SRV_PORT/" \
        >"$W/curl-$n.log" 2>&1; crc=$?
    openssl s_client -connect "127.0.0.1:$SRV_PORT" -verify_return_error -CAfile "$ROOT" \
        </dev/null >"$W/sc-$n.log" 2>&1; src=$?
    note "$n: curl exit $crc $(head -1 "$W/curl-$n.log"); s_client exit $src"
    if [ "$n" = good ]; then
        [ "$crc" -eq 0 ] || { cat "$W/curl-$n.log" >&2; fail "curl refused the good server"; }
        [ "$src" -eq 0 ] || { cat "$W/sc-$n.log" >&2; fail "s_client refused the good server"; }
    else
        [ "$crc" -ne 0 ] || fail "curl accepted the revoked server"
        [ "$src" -ne 0 ] || fail "s_client accepted the revoked server"
    fi
done
case_ok "enabled: revoked server refused"

# 6. reinstalling (dpkg's upgrade path) keeps crlcache enabled and the
#    index.  The index is first
#    put back in format 2 (an LMDB file of the working databases, as an
#    older package published it), which readers refuse: the postinst's
#    `crlcache publish` must replace it, or curl below passes through.
runuser -u crlcache -- sh -c 'set -e; cd "$1"; rm -f .t_deb-old.mdb
    for db in meta canon alias key rev crl; do
        mdb_dump -s "$db" work | mdb_load -n -s "$db" .t_deb-old.mdb 2>/dev/null; done
    chmod 644 .t_deb-old.mdb; mv .t_deb-old.mdb index.mdb' sh "$STATEDIR" ||
    fail "could not put a format 2 index in place"
[ "$(head -c 7 "$STATEDIR/index.mdb" | tr -d '\0')" != CRLCTOP ] || fail "index.mdb still format 3"
cp -a "$CNF" "$W/openssl.cnf.enabled"
dpkg_w -i "$DEB" >"$W/reinstall.log" || { cat "$W/reinstall.log" >&2; fail "dpkg -i again"; }
cmp -s "$CNF" "$W/openssl.cnf.enabled" || fail "reinstalling changed $CNF"
[ -f "$STATEDIR/index.mdb" ] || fail "reinstalling lost the index"
[ "$(head -c 8 "$STATEDIR/index.mdb")" = CRLCTOP ] ||
    { cat "$W/reinstall.log" >&2; fail "the postinst did not publish format 3"; }
curl -sS --max-time 20 --cacert "$ROOT" -o /dev/null "https://127.0.0.1:$SRV_PORT/" >/dev/null 2>&1 &&
    fail "curl accepts the revoked server after reinstalling"
case_ok "reinstall keeps it enabled"

# 7. disable: openssl.cnf as it was
assert_exit 0 crlcache disable
cmp -s "$CNF" "$W/openssl.cnf.orig" || fail "disable did not restore $CNF"
curl -sS --max-time 20 --cacert "$ROOT" -o /dev/null "https://127.0.0.1:$SRV_PORT/" >/dev/null 2>&1 ||
    fail "curl refuses the revoked server after disable"
case_ok "disable"

# 8. removal while enabled: no maintainer script edits openssl.cnf (the
#    openssl package's conffile), so the block stays; postrm says once why
#    the provider is absent; openssl, curl and python3 keep working (a good
#    server, verified); a broken crlcache.conf does not stop the removal.
#    Then the block is taken out by hand, as postrm says.
assert_exit 0 crlcache enable
cp -a "$CNF" "$W/openssl.cnf.enabled"
echo 'no_such_key = 1' >>/etc/crlcache/crlcache.conf
assert_exit nonzero crlcache status
dpkg_w -r crlcache >"$W/remove.log" || { cat "$W/remove.log" >&2; fail "dpkg -r"; }
cmp -s "$CNF" "$W/openssl.cnf.enabled" || fail "dpkg -r changed $CNF (a maintainer script edited it)"
[ "$(grep -c "$CNF still loads the crlcache provider" "$W/remove.log")" = 1 ] ||
    { cat "$W/remove.log" >&2; fail "the removal did not say once, naming $CNF, why the provider is absent"; }
[ -e "$MODDIR/crlcache.so" ] && fail "dpkg -r left the module"
[ -d "$STATEDIR" ] || fail "dpkg -r removed the state directory (purge does)"
srv good
openssl s_client -connect "127.0.0.1:$SRV_PORT" -verify_return_error -CAfile "$ROOT" \
    </dev/null >"$W/sc-removed.log" 2>&1 || { cat "$W/sc-removed.log" >&2; fail "s_client after the removal"; }
curl -sS --max-time 20 --cacert "$ROOT" -o /dev/null "https://127.0.0.1:$SRV_PORT/" 2>"$W/curl-removed.log" ||
    { cat "$W/curl-removed.log" >&2; fail "curl after the removal"; }
[ -s "$W/curl-removed.log" ] && { cat "$W/curl-removed.log" >&2; fail "curl printed on stderr after the removal"; }
python3 - "$SRV_PORT" "$ROOT" <<'PY' >"$W/py-removed.log" 2>&1 || { cat "$W/py-removed.log" >&2; fail "python3 after the removal"; }
import socket, ssl, sys
ctx = ssl.create_default_context(cafile=sys.argv[2])
ctx.check_hostname = False
with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20) as s:
    with ctx.wrap_socket(s) as t:
        t.sendall(b"GET / HTTP/1.0\r\n\r\n")
        assert t.recv(64).startswith(b"HTTP/1.0 200"), "no 200"
PY
assert_exit 0 openssl list -providers
assert_not_grep 'crlcache' "$W/last.out"
[ -s "$W/last.err" ] && { cat "$W/last.err" >&2; fail "openssl list -providers printed on stderr"; }
sed -i '/^# BEGIN crlcache/,/^# END crlcache$/d' "$CNF"
cmp -s "$CNF" "$W/openssl.cnf.orig" || fail "$CNF without the block is not the original"
case_ok "remove while enabled: block kept, every program works"

# 9. purge: state directory, conffiles, enable's copy of openssl.cnf gone;
#     no file of the package left that was not there before; the crlcache
#     user stays (debian/postrm says why).
rm -f /etc/crlcache/t_deb-*.pem
if command -v apt-get >/dev/null; then
    apt-get purge -y -q -o DPkg::Lock::Timeout=300 crlcache >"$W/purge.log" 2>&1 ||
        { cat "$W/purge.log" >&2; fail "apt-get purge"; }
else
    dpkg_w --purge crlcache >"$W/purge.log" || { cat "$W/purge.log" >&2; fail "dpkg --purge"; }
fi
dpkg-query -W -f '${db:Status-Status}' crlcache 2>/dev/null | grep -qv '^not-installed$' &&
    fail "crlcache still known to dpkg after purge"
cmp -s "$CNF" "$W/openssl.cnf.orig" || fail "$CNF differs after purge"
[ -e "$STATEDIR" ] && fail "purge left $STATEDIR"
[ -e "$BACKUP" ] && fail "purge left $BACKUP"
[ -e /etc/crlcache ] && fail "purge left /etc/crlcache: $(ls -A /etc/crlcache)"
while read -r f; do
    [ "$f" != /. ] && [ -e "$f" ] || continue
    grep -qxF "$f" "$W/existed" || fail "purge left $f"
done <"$W/files"
getent passwd crlcache >/dev/null || fail "purge removed the crlcache user (it is kept)"
case_ok "purge"

finish
