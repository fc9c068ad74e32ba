#!/usr/bin/env bash
# The Debian source package as a sponsor builds it: format 3.0 (quilt),
# version 1.0.0-1, the `make dist` tarball (without debian/) as the
# .orig.tar.gz, a watch file and debian/upstream/metadata; the source
# unpacked with dpkg-source -x builds with the packager's flags as
# dpkg-buildflags gives them, Ubuntu's -D_FORTIFY_SOURCE=3 and a warning
# the code does not keep clean (-Wconversion) among them: no -Werror,
# the unit tests run at build time (dh_auto_test) and not with nocheck.
# A developer build (make) keeps -Werror.  README.Debian and the package
# description name every host the shipped crlcache.conf contacts, and
# README.Debian the directory's refresh period as the fetcher has it.
# Not root: builds only.
. "$(dirname "$0")/lib.sh"
for t in dpkg-buildpackage dpkg-source dh; do
    command -v "$t" >/dev/null || skip "$t not installed (test/deps.sh installs it)"
done
TOP=$(cd "$TESTDIR/.." && pwd)
V=$(cat "$TOP/VERSION")

# 1. the metadata a sponsor asks for, from the tree
[ "$(cat "$TOP/debian/source/format")" = "3.0 (quilt)" ] || fail "debian/source/format is not 3.0 (quilt)"
DV=$(cd "$TOP" && dpkg-parsechangelog -S Version)
[ "$DV" = "$V-1" ] || fail "debian/changelog's version is $DV, wanted $V-1"
[ -f "$TOP/debian/watch" ] || fail "no debian/watch"
[ -f "$TOP/debian/upstream/metadata" ] || fail "no debian/upstream/metadata"
grep -q '^Homepage: ' "$TOP/debian/control" || fail "debian/control has no Homepage"
grep -q '^Vcs-Git: ' "$TOP/debian/control" || fail "debian/control has no Vcs-Git"
grep -q 'breaks-testbed' "$TOP/debian/tests/control" || fail "the purge autopkgtest lacks breaks-testbed"
grep -q -- '--gecos' "$TOP/debian/postinst" && fail "postinst uses adduser --gecos (deprecated in Debian 13)"
# a command line (not a comment, not a message) running crlcache enable/disable
for s in preinst postinst prerm postrm; do
    [ -e "$TOP/debian/$s" ] || continue
    grep -Eq '^[[:space:]]*crlcache( +-c +[^ ]+)? +(enable|disable)' "$TOP/debian/$s" &&
        fail "debian/$s runs crlcache enable or disable"
done
# README.Debian and the description name every host the shipped
# configuration contacts (the crlite and ccadb_* lines not commented out),
# and README.Debian the directory's refresh while CRLite is in force as
# fetcher/dirrefresh.c has it (DIR_REFRESH_CRLITE, in days)
hosts=$(sed -n 's|^[a-z_]* *= *https://\([^/]*\)/.*|\1|p' "$TOP/etc/crlcache.conf" | sort -u)
[ -n "$hosts" ] || fail "etc/crlcache.conf names no https host"
for h in $hosts; do
    grep -qF "$h" "$TOP/debian/README.Debian" || fail "README.Debian does not name $h, which crlcache.conf contacts"
    grep -qF "$h" "$TOP/debian/control" || fail "the package description does not name $h, which crlcache.conf contacts"
done
days=$(sed -n 's/^#define DIR_REFRESH_CRLITE[[:space:]]*(\([0-9]*\) \* 86400)$/\1/p' "$TOP/fetcher/dirrefresh.c")
[ -n "$days" ] || fail "no DIR_REFRESH_CRLITE in fetcher/dirrefresh.c"
grep -q "every $days days" "$TOP/debian/README.Debian" ||
    fail "README.Debian does not say the directory is refreshed every $days days while CRLite is in force"
case_ok "source metadata"

# 2. the .orig: make dist, without debian/
SRC=$W/src
tree_copy "$SRC" || fail "copying the tree"
orig_tarball "$SRC" "$W" || fail "make dist"
ORIG=$W/crlcache_$V.orig.tar.gz
tar -tzf "$ORIG" >"$W/orig.list" || fail "cannot list $ORIG"
grep -q "^crlcache-$V/Makefile\$" "$W/orig.list" || fail "the tarball has no crlcache-$V/Makefile"
grep -q "^crlcache-$V/debian/" "$W/orig.list" && fail "the .orig.tar.gz holds debian/"
case_ok "make dist: the .orig without debian/"

# 3. source package from the tree and the .orig; unpacked again
(cd "$W" && dpkg-source -b src) >"$W/source.log" 2>&1 || { cat "$W/source.log" >&2; fail "dpkg-source -b"; }
DSC=$W/crlcache_$V-1.dsc
[ -f "$DSC" ] || { ls "$W" >&2; fail "no $DSC"; }
assert_grep '^Format: 3\.0 \(quilt\)$' "$DSC"
[ -f "$W/crlcache_$V-1.debian.tar.xz" ] || fail "no .debian.tar.xz"
(cd "$W" && dpkg-source -x "$DSC" unpacked) >"$W/unpack.log" 2>&1 || { cat "$W/unpack.log" >&2; fail "dpkg-source -x"; }
case_ok "3.0 (quilt) source package"

# 4. build the unpacked source with Ubuntu's fortify level and a warning
#    the code does not keep clean: no -Werror, unit tests at build time
start=$(date +%s)
(cd "$W/unpacked" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL DEB_BUILD_OPTIONS="noddebs parallel=$(nproc)" \
    DEB_CPPFLAGS_APPEND=-D_FORTIFY_SOURCE=3 DEB_CFLAGS_APPEND=-Wconversion \
    dpkg-buildpackage -us -uc -b) >"$W/build.log" 2>&1 ||
    { tail -40 "$W/build.log" >&2; fail "dpkg-buildpackage with -D_FORTIFY_SOURCE=3 -Wconversion"; }
note "build from the unpacked source: $(( $(date +%s) - start )) s"
grep -E '^cc .* -c -o fetcher/main\.o' "$W/build.log" >"$W/cc.line" || fail "no compile line for fetcher/main.o"
assert_grep ' -D_FORTIFY_SOURCE=3' "$W/cc.line"
assert_not_grep ' -Werror( |$)' "$W/cc.line"
grep -q 'warning: ' "$W/build.log" || fail "-Wconversion gave no warning: the build does not show it survives one"
assert_grep '^unit: [0-9]+ passed, 0 failed$' "$W/build.log"
case_ok "build with -D_FORTIFY_SOURCE=3 and new warnings; unit tests run"

# 5. nocheck: no unit tests
rm -f "$W"/*.deb
(cd "$W/unpacked" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
    DEB_BUILD_OPTIONS="nocheck noddebs parallel=$(nproc)" dpkg-buildpackage -us -uc -b) \
    >"$W/build-nocheck.log" 2>&1 || { tail -40 "$W/build-nocheck.log" >&2; fail "dpkg-buildpackage nocheck"; }
assert_not_grep '^unit: ' "$W/build-nocheck.log"
ls "$W"/crlcache_*.deb >/dev/null 2>&1 || fail "nocheck built no .deb"
case_ok "nocheck: no unit tests"

# 6. a developer build keeps warnings fatal
make -C "$SRC" -n -B fetcher/main.o >"$W/dev.line" 2>&1 || fail "make -n"
assert_grep ' -Werror( |$)' "$W/dev.line"
case_ok "developer build: -Werror"
finish
