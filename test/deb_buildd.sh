# shellcheck shell=bash
# The body of t_deb_buildd_bookworm.sh and t_deb_buildd_trixie.sh, sourced
# with SUITE set: the package builds where Debian's build daemons build it.
# A clean root of SUITE as mmdebstrap's buildd variant makes it (Essential,
# apt, build-essential: test/mkroot.sh --buildd, cached), with nothing
# added but what the source package's Build-Depends name (apt-get
# build-dep on the unpacked .dsc), builds with dpkg-buildpackage -B as a
# user that is not root (nobody: Rules-Requires-Root: no), in one
# throwaway overlay of the root (test/inroot.sh):
#   1. DEB_BUILD_OPTIONS=nocheck and the nocheck build profile, as a
#      buildd asked for it builds, from the clean unpacked source, with the
#      profile's Build-Depends (python3 <!nocheck> is not installed):
#      builds, runs no unit test;
#   2. with every Build-Depends installed, the unit tests at build time
#      (dh_auto_test: make check-unit): every one passes, and none leaves a
#      file in /tmp.  The tree of build 1 is built again without its clean
#      (dpkg-buildpackage -nc, dh's stamps removed): its objects are those
#      this build would make (nocheck changes no flag), so that it costs
#      the unit tests and not a second compile.
# blhc, where installed, finds every compile and link command of both
# logs with the packager's flags; install warns of no --strip-program.
# A missing Build-Depends (a tool a unit test runs, a header) fails here
# and not on a buildd.  Skipped inside a root of test/mkroot.sh (the
# Debian 13 stage of CI): the host's run builds in both releases.
# Root only; the roots come from the host's Debian mirror.
. "$(dirname "$0")/lib.sh"
: "${SUITE:?deb_buildd.sh: set SUITE (a Debian suite) before sourcing}"
[ "$(id -u)" -eq 0 ] || skip "makes a Debian root: run as root"
[ -f /.mkroot-done ] && skip "inside a root of test/mkroot.sh: the host's run builds in both releases"
for t in dpkg-source mmdebstrap; do
    command -v "$t" >/dev/null || skip "$t not installed (test/deps.sh installs it)"
done

# The source package, as a sponsor uploads it: the .orig (make dist) and
# debian/ of a copy of the tree.
V=$(cat "$TESTDIR/../VERSION")
mkdir -p "$W/pkg" "$W/out"
tree_copy "$W/pkg/src" || fail "copying the tree"
orig_tarball "$W/pkg/src" "$W/pkg" || fail "make dist (the .orig.tar.gz)"
(cd "$W/pkg" && dpkg-source -b src) >"$W/source.log" 2>&1 ||
    { cat "$W/source.log" >&2; fail "dpkg-source -b"; }
rm -rf "$W/pkg/src"
DSC=$(cd "$W/pkg" && echo crlcache_*.dsc)
[ -f "$W/pkg/$DSC" ] || fail "no .dsc built"
chmod -R a+rX "$W/pkg"
chmod 777 "$W/out"

# In the root: unpack as nobody, install the Build-Depends of each build,
# build as nobody, write the logs to /out.
cat >"$W/pkg/build.sh" <<'EOF'
#!/bin/sh
# test/deb_buildd.sh, inside a buildd root: build.sh DSC OUT
set -eu
dsc=$1 out=$2
export DEBIAN_FRONTEND=noninteractive
as_nobody() {
    setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/build "$@"
}
apt-get update -q >"$out/apt.log" 2>&1 || { cat "$out/apt.log" >&2; exit 1; }
install -d -o nobody -g nogroup /build
cd /build
as_nobody dpkg-source -x "/pkg/$dsc" src >/dev/null
build() {   # build NAME DEB_BUILD_OPTIONS DEB_BUILD_PROFILES [dpkg-buildpackage option]
    name=$1 opts=$2 profiles=$3; shift 3
    apt-get build-dep -y -q ${profiles:+-P "$profiles"} ./src >"$out/builddep-$name.log" 2>&1 ||
        { cat "$out/builddep-$name.log" >&2; echo "build-dep ($name) failed" >&2; return 1; }
    dpkg-query -W -f '${Package}\n' >"$out/installed-$name"
    as_nobody sh -c 'cd src && DEB_BUILD_OPTIONS="$1" DEB_BUILD_PROFILES="$2" && shift 2 &&
        export DEB_BUILD_OPTIONS DEB_BUILD_PROFILES && dpkg-buildpackage -us -uc -B "$@"' \
        sh "$opts" "$profiles" "$@" >"$out/build-$name.log" 2>&1 ||
        { tail -40 "$out/build-$name.log" >&2; echo "$name build failed" >&2; return 1; }
    ls /build/*.deb >"$out/debs-$name"
    rm -f /build/*.deb /build/*.ddeb /build/*.changes /build/*.buildinfo
}
ls -A /tmp >"$out/tmp-before"
build nocheck "nocheck parallel=2" nocheck
rm -f src/debian/debhelper-build-stamp src/debian/*.debhelper.log
build check "parallel=2" "" -nc
ls -A /tmp >"$out/tmp-after"
EOF
chmod 755 "$W/pkg/build.sh"

start=$(date +%s)
root=$(sh "$TESTDIR/mkroot.sh" --buildd "$SUITE") || fail "mkroot.sh --buildd $SUITE"
made=$(date +%s)
o=$W/out
sh "$TESTDIR/inroot.sh" -r "$W/pkg:/pkg" -b "$o:/out" "$root" \
    sh /pkg/build.sh "$DSC" /out >"$W/inroot.log" 2>&1 ||
    { cat "$W/inroot.log" >&2; fail "$SUITE: the buildd build failed"; }
note "$SUITE: root $((made - start)) s; build-deps and the two builds $(( $(date +%s) - made )) s"

# 1. nocheck: the profile left python3 out, and no unit test ran
grep -qx python3 "$o/installed-nocheck" && fail "python3 installed for a nocheck build"
grep -q '^unit: ' "$o/build-nocheck.log" && fail "the nocheck build ran the unit tests"
grep -qx python3 "$o/installed-check" || fail "python3 not installed for the unit tests"
for b in nocheck check; do
    grep -q "crlcache_${V}-[^_]*_[a-z0-9]*\.deb" "$o/debs-$b" || fail "the $b build made no .deb"
done
case_ok "$SUITE: nocheck build, python3 not installed"

# 2. the unit tests ran and passed, and left /tmp as it was
assert_grep '^unit: [1-9][0-9]* passed, 0 failed$' "$o/build-check.log"
grep -q '^FAIL unit/' "$o/build-check.log" && fail "a unit test failed"
cmp -s "$o/tmp-before" "$o/tmp-after" ||
    { diff "$o/tmp-before" "$o/tmp-after" >&2; fail "the build left files in /tmp"; }
case_ok "$SUITE: the unit tests at build time ($(grep '^unit: ' "$o/build-check.log"))"

# 3. the packager's flags everywhere; no install warning
for b in nocheck check; do
    grep -q 'ignoring --strip-program' "$o/build-$b.log" && fail "$b: install warns of --strip-program"
    if command -v blhc >/dev/null; then
        blhc "$o/build-$b.log" >"$W/blhc-$b.out" 2>&1 ||
            { cut -c1-300 "$W/blhc-$b.out" >&2; fail "$b: blhc"; }
    fi
done
if command -v blhc >/dev/null; then
    case_ok "$SUITE: blhc"
else
    note "blhc not installed: the build flags are not checked (test/deps.sh installs it)"
fi
finish
