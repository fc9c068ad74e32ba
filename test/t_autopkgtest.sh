#!/usr/bin/env bash
# autopkgtest itself runs debian/tests (DEP-8) against the package built
# from this tree, installed in a fresh root of this host's distribution
# (test/mkroot.sh, cached) with the null virt server inside it
# (test/inroot.sh): the root is thrown away afterwards.  Every test must
# pass: purge (openssl.cnf as it was, postrm's promises), dropin (removal
# and purge while enabled through a drop-in) and system-config.
# -U: the cached root has no package lists; apt-get update reads them from
# the mirror.  purge and dropin are breaks-testbed (purge leaves the block
# in openssl.cnf, as an administrator's removal would): the null server
# cannot revert a testbed, but this one is an overlay thrown away
# afterwards, so the restriction is lifted for it (--ignore-restrictions).
# Root only.
. "$(dirname "$0")/lib.sh"
need_deb_root
deb_build
deb_root
sh "$TESTDIR/inroot.sh" -b "$W/pkg:/pkg" "$DEB_ROOT" \
    autopkgtest -U --ignore-restrictions=breaks-testbed "/pkg/$DEB" /pkg/src -- null >"$W/autopkgtest.log" 2>&1; rc=$?
cat "$W/autopkgtest.log"
[ "$rc" -eq 0 ] || fail "autopkgtest exit $rc"
for t in purge dropin system-config; do
    grep -Eq "^$t +PASS" "$W/autopkgtest.log" || fail "$t did not PASS"
done
note "autopkgtest: purge, dropin and system-config PASS"
