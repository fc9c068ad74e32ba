#!/usr/bin/env bash
# The package builds where Debian's build daemons build it: in a clean
# root of Debian 12 and of Debian 13 as mmdebstrap's buildd variant makes
# it (Essential, apt, build-essential: test/mkroot.sh --buildd, cached),
# with nothing added but what the source package's Build-Depends name
# (apt-get build-dep on the unpacked .dsc), built by dpkg-buildpackage -B
# as a user that is not root (nobody: Rules-Requires-Root: no).  Per
# release, in one throwaway overlay of its root (test/inroot.sh):
#   1. DEB_BUILD_OPTIONS=nocheck and the nocheck build profile, as a
#      buildd asked for it builds (python3 <!nocheck> is not installed):
#      builds, runs no unit test;
#   2. the unit tests at build time (dh_auto_test: make check-unit) with
#      every Build-Depends: builds, every unit test passes, no test
#      leaves a file in /tmp; blhc, where installed, finds every compile
#      and link command of the build log with the packager's flags.
# A missing Build-Depends (a tool a unit test runs, a header) fails here
# and not on a buildd.  Skipped inside a root of test/mkroot.sh (the
# Debian 13 stage of CI): the host's run builds in both releases already.
# Root only; the roots come from the host's Debian mirror.
. "$(dirname "$0")/lib.sh"
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
DSC=$(cd "$W/pkg" && echo crlcache_*.dsc)
[ -f "$W/pkg/$DSC" ] || fail "no .dsc built"
chmod -R a+rX "$W/pkg"
chmod 777 "$W/out"

# Run in the root: unpack as nobody, install the Build-Depends of each
# profile, build as nobody, copy the logs out.
cat >"$W/pkg/build.sh" <<'EOF'
#!/bin/sh
# test/t_deb_buildd.sh, inside a buildd root: build.sh DSC OUT
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
build() {   # build NAME DEB_BUILD_OPTIONS DEB_BUILD_PROFILES
    name=$1 opts=$2 profiles=$3
    apt-get build-dep -y -q ${profiles:+-P "$profiles"} ./src >"$out/builddep-$name.log" 2>&1 ||
        { cat "$out/builddep-$name.log" >&2; echo "build-dep ($name) failed" >&2; return 1; }
    dpkg-query -W -f '${Package}\n' >"$out/installed-$name"
    as_nobody sh -c 'cd src && DEB_BUILD_OPTIONS="$1" DEB_BUILD_PROFILES="$2" \
        dpkg-buildpackage -us -uc -B' sh "$opts" "$profiles" \
        >"$out/build-$name.log" 2>&1 || { tail -40 "$out/build-$name.log" >&2; echo "$name build failed" >&2; return 1; }
    ls /build/*.deb >"$out/debs-$name"
    rm -f /build/*.deb /build/*.ddeb /build/*.changes /build/*.buildinfo
}
ls -A /tmp >"$out/tmp-before"
build nocheck "nocheck parallel=2" nocheck
build check "parallel=2" ""
ls -A /tmp >"$out/tmp-after"
EOF
chmod 755 "$W/pkg/build.sh"

blhc_ok=0
command -v blhc >/dev/null && blhc_ok=1
for suite in bookworm trixie; do
    start=$(date +%s)
    root=$(sh "$TESTDIR/mkroot.sh" --buildd "$suite") || fail "mkroot.sh --buildd $suite"
    made=$(date +%s)
    o=$W/out/$suite
    mkdir -p "$o" && chmod 777 "$o"
    sh "$TESTDIR/inroot.sh" -r "$W/pkg:/pkg" -b "$o:/out" "$root" \
        sh /pkg/build.sh "$DSC" /out >"$W/$suite.log" 2>&1 ||
        { cat "$W/$suite.log" >&2; fail "$suite: the buildd build failed"; }
    note "$suite: root $((made - start)) s, build-deps and two builds $(( $(date +%s) - made )) s"
    # 1. nocheck: the profile left python3 out, and no unit test ran
    grep -qx python3 "$o/installed-nocheck" && fail "$suite: python3 installed for a nocheck build"
    grep -q 'unit: ' "$o/build-nocheck.log" && fail "$suite: nocheck ran the unit tests"
    grep -qx python3 "$o/installed-check" || fail "$suite: python3 not installed for the unit tests"
    for b in nocheck check; do
        grep -q "crlcache_${V}-[^_]*_[a-z0-9]*\.deb" "$o/debs-$b" || fail "$suite: $b built no .deb"
    done
    # 2. the unit tests ran and passed, and left /tmp as it was
    assert_grep '^unit: [1-9][0-9]* passed, 0 failed$' "$o/build-check.log"
    grep -q '^FAIL unit/' "$o/build-check.log" && fail "$suite: a unit test failed"
    cmp -s "$o/tmp-before" "$o/tmp-after" ||
        { diff "$o/tmp-before" "$o/tmp-after" >&2; fail "$suite: the build left files in /tmp"; }
    grep -q 'ignoring --strip-program' "$o/build-check.log" &&
        fail "$suite: install warns of --strip-program"
    if [ "$blhc_ok" = 1 ]; then
        blhc --all "$o/build-check.log" >"$W/blhc-$suite.out" 2>&1 ||
            { cat "$W/blhc-$suite.out" >&2; fail "$suite: blhc"; }
    fi
    case_ok "$suite: buildd build, nocheck and with the unit tests ($(grep '^unit: ' "$o/build-check.log"))"
done
[ "$blhc_ok" = 1 ] || note "blhc not installed: build flags not checked (test/deps.sh installs it)"
finish
