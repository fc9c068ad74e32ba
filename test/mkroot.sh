#!/bin/sh
# test/mkroot.sh [--buildd] SUITE [PACKAGE...] | --mirrors: a Debian root of
# SUITE (bookworm, trixie...) with PACKAGEs, made by mmdebstrap from Debian's
# mirror, and print its path.  --buildd: mmdebstrap's buildd variant (what a
# Debian build daemon starts from: Essential, apt and build-essential)
# instead of the apt variant (Essential and apt).  The root is cached: the same suite and packages give the
# same directory, built once (under a lock, so that tests running at once
# wait for one build) and kept until removed by hand (rm -rf test/.roots).
# Callers must not change it: test/inroot.sh runs a command on an overlay
# of it whose changes are thrown away.
#
# The mirror is the host's: the first Debian archive (and its security
# archive, when the host has one) in the host's apt sources, as apt itself
# reads them (apt-get indextargets), so that nothing but Debian's mirror is
# reached and no mirror is named in this repository.
#
# Environment: CRLCACHE_ROOTS, the cache directory (default test/.roots
# beside this script).  Root only (mmdebstrap's root mode: the packages'
# owners and device files as they are in a real system).
set -eu

variant=apt
[ "${1:-}" != --buildd ] || { variant=buildd; shift; }
[ $# -ge 1 ] || { echo "usage: mkroot.sh [--buildd] SUITE [PACKAGE...]" >&2; exit 2; }
suite=$1; shift
case $suite in --mirrors) ;; ''|*[!a-z0-9-]*) echo "mkroot.sh: bad suite name '$suite'" >&2; exit 2 ;; esac
[ "$(id -u)" -eq 0 ] || { echo "mkroot.sh: run as root" >&2; exit 1; }
command -v mmdebstrap >/dev/null ||
    { echo "mkroot.sh: mmdebstrap not installed (test/deps.sh installs it)" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
cache=${CRLCACHE_ROOTS:-$here/.roots}
# The key: suite and sorted package list (order and repeats do not matter);
# the variant too, unless it is apt (the key the roots made before had).
pkgs=$(printf '%s\n' "$@" | grep . | LC_ALL=C sort -u | tr '\n' ' ')
key=$(printf '%s %s\n' "$suite" "$pkgs" | sha256sum | cut -c1-16)
root=$cache/$suite-$key
[ "$variant" = apt ] || root=$cache/$suite-$variant-$key
mkdir -p "$cache"

# The host's Debian archives: Label "Debian" (its suites and -updates) and
# "Debian-Security".  REPO_URI ends in a slash.
targets=$(apt-get indextargets --format '$(LABEL) $(REPO_URI)' 'Created-By: Packages' 2>/dev/null |
    LC_ALL=C sort -u)
# Inside a root from this script (its package lists are gone, so apt names
# no target) the caller passes the outer host's: test/trixie.sh sets
# CRLCACHE_DEBIAN_MIRROR and CRLCACHE_DEBIAN_SECURITY from `mkroot.sh --mirrors`.
main=${CRLCACHE_DEBIAN_MIRROR:-$(echo "$targets" | awk '$1 == "Debian" { print $2; exit }')}
security=${CRLCACHE_DEBIAN_SECURITY:-$(echo "$targets" | awk '$1 == "Debian-Security" { print $2; exit }')}
[ -n "$main" ] || { echo "mkroot.sh: no Debian archive in the host's apt sources" >&2; exit 1; }

if [ "$suite" = --mirrors ]; then
    echo "$main $security"
    exit 0
fi
exec 9>"$root.lock"
flock 9
if [ -f "$root/.mkroot-done" ]; then
    echo "$root"
    exit 0
fi
rm -rf "$root.tmp"
set -- "deb ${main%/} $suite main" "deb ${main%/} $suite-updates main"
[ -z "$security" ] || set -- "$@" "deb ${security%/} $suite-security main"
include=$(echo "$pkgs" | tr ' ' ',' | sed 's/,$//')
start=$(date +%s)
echo "mkroot.sh: building a $suite $variant root with:${pkgs:+ $pkgs}" >&2
# variant apt: Essential and apt, which a test needs to install a package.
mmdebstrap --quiet --mode=root --variant="$variant" --format=directory \
    ${include:+--include="$include"} "$suite" "$root.tmp" "$@" >&2
touch "$root.tmp/.mkroot-done"
mv "$root.tmp" "$root"
echo "mkroot.sh: $suite root built in $(( $(date +%s) - start )) s: $root" >&2
echo "$root"
