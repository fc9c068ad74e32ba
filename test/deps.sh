#!/bin/sh
# Install what building and testing crlcache needs on Debian 12 or later.
# As root: installs the missing packages with apt-get.  Otherwise: prints
# the exact command and fails.  --list: print the packages, one a line
# (test/trixie.sh makes a Debian 13 root with them).
set -u

PKGS="gcc libc6-dev make pkg-config libssl-dev liblmdb-dev libcurl4-openssl-dev
openssl curl python3 valgrind procps util-linux e2fsprogs mandoc clang libclang-rt-dev
python3-cryptography python3-cryptography-vectors xz-utils lmdb-utils bc systemd man-db time nodejs wget
squid nginx-light build-essential debhelper dpkg-dev fakeroot lintian adduser
mmdebstrap autopkgtest systemd-container faketime locales diffoscope-minimal iproute2 blhc"
# systemd.pc, where debian/rules reads the unit directory: in systemd-dev
# from Debian 13 (--list makes a Debian 13 root), in systemd before.
if [ "${1:-}" = --list ] || apt-cache show systemd-dev >/dev/null 2>&1; then
	PKGS="$PKGS systemd-dev"
fi

if [ "${1:-}" = --list ]; then
	printf '%s\n' $PKGS
	exit 0
fi

missing=""
for p in $PKGS; do
	dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
	    missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "crlcache: missing packages:$missing" >&2
	echo "crlcache: run as root:  apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
echo "crlcache: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2 && apt-get install -y -q --no-install-recommends $missing >&2
