#!/bin/sh
# test/trixie.sh [TEST...]: build crlcache and run its suite (`make check`,
# or test/run.sh TEST... after the build) in a Debian 13 (trixie) root made
# by test/mkroot.sh with test/deps.sh's packages: OpenSSL 3.5 and gcc 14, as
# root, on a copy of the tracked files.  `make check-trixie` runs it; so
# does the second stage of .ci/run.  Prints the stage's summary last, as
# "trixie: N passed, N failed, N skipped", and writes the counts to
# test/.summary-trixie.  Root only.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${CRLCACHE_ROOTS:-$here/.roots}
mkdir -p "$cache"
start=$(date +%s)
# shellcheck disable=SC2046 # one word a package
root=$(sh "$here/mkroot.sh" trixie $(sh "$here/deps.sh" --list))
built=$(date +%s)
# The mirrors for the roots the tests inside make (t_autopkgtest).
read -r CRLCACHE_DEBIAN_MIRROR CRLCACHE_DEBIAN_SECURITY <<MIRRORS
$(sh "$here/mkroot.sh" --mirrors)
MIRRORS
export CRLCACHE_DEBIAN_MIRROR CRLCACHE_DEBIAN_SECURITY

src=$(mktemp -d "$cache/.src.XXXXXX")
trap 'rm -rf "$src"' EXIT
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$top" && git ls-files -z | tar --null -cf - -T -) | tar -xf - -C "$src"
else
    (cd "$top" && tar --exclude=./.git --exclude=./test/.roots -cf - .) | tar -xf - -C "$src"
fi
rm -f "$src/test/.summary"
# The root cache is shared with the tests inside (t_autopkgtest, t_container
# make their own roots through it): built once a run, and on the host's
# file system, where an overlay's upper directory may lie.
rc=0
sh "$here/inroot.sh" -b "$src:/src" -b "$cache:/var/cache/crlcache-roots" "$root" \
    sh -c 'cd /src && export CRLCACHE_ROOTS=/var/cache/crlcache-roots &&
        if [ $# -eq 0 ]; then make check; else make all unit && bash test/run.sh "$@"; fi' \
    sh "$@" || rc=$?
summary=$(cat "$src/test/.summary" 2>/dev/null || echo "0 passed, 1 failed, 0 skipped")
echo "$summary" >"$here/.summary-trixie"
echo "trixie: root $((built - start)) s, suite $(( $(date +%s) - built )) s"
echo "trixie: $summary"
[ "$rc" -eq 0 ]
