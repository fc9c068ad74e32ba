#!/bin/sh
# test/inroot.sh [-b HOST:INSIDE]... [-r HOST:INSIDE]... ROOT CMD [ARG...]
# Run CMD as root in ROOT (a directory from test/mkroot.sh), on an overlay
# whose changes are thrown away at the end, in a private mount and PID
# namespace: every process CMD leaves is killed when it returns, and
# nothing is mounted on the host.  -b binds a host directory read-write,
# -r read-only, at INSIDE.  The network is the host's (tests use
# 127.0.0.1; apt inside reaches the mirror the root was made from).
#
# Not a plain chroot: the root is a mount point (the overlay), so that a
# program inside can make its own mount namespace (`unshare -m` makes its
# "/" private first, which fails on a directory that is not one).
# Exit status: CMD's; 125 when the root cannot be set up.
set -eu

binds=""
while [ $# -gt 0 ]; do
    case $1 in
        -b|-r)
            [ $# -ge 2 ] || { echo "inroot.sh: $1 needs HOST:INSIDE" >&2; exit 125; }
            case $2 in /*:/*) ;; *) echo "inroot.sh: $1 $2: want /host:/inside" >&2; exit 125 ;; esac
            binds="$binds $1 $2"; shift 2 ;;
        --) shift; break ;;
        -*) echo "inroot.sh: unknown option $1" >&2; exit 125 ;;
        *) break ;;
    esac
done
[ $# -ge 2 ] || { echo "usage: inroot.sh [-b H:I]... [-r H:I]... ROOT CMD..." >&2; exit 125; }
root=$(cd "$1" && pwd) || exit 125; shift
[ -f "$root/.mkroot-done" ] || { echo "inroot.sh: $root is not a root from mkroot.sh" >&2; exit 125; }
[ "$(id -u)" -eq 0 ] || { echo "inroot.sh: run as root" >&2; exit 125; }

# Beside the root, not in TMPDIR: an overlay's upper directory cannot lie
# on an overlay (inroot.sh inside inroot.sh, the Debian 13 stage).
scratch=$(mktemp -d "$(dirname "$root")/.inroot.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/upper" "$scratch/work" "$scratch/m"

# The inner shell runs in the new namespaces as PID 1: when it exits, the
# kernel kills what is left in them and drops their mounts.
rc=0
# shellcheck disable=SC2086 # binds: words without spaces, as checked above
unshare --mount --pid --fork --propagation private sh -euc '
    scratch=$1 root=$2; shift 2
    m=$scratch/m
    mount -t overlay overlay \
        -o "lowerdir=$root,upperdir=$scratch/upper,workdir=$scratch/work" "$m" || exit 125
    mount -t proc proc "$m/proc" || exit 125
    mount --rbind /dev "$m/dev" || exit 125
    mount --rbind /sys "$m/sys" || exit 125
    mount -t tmpfs -o mode=755 tmpfs "$m/run" || exit 125
    mount -t tmpfs -o mode=1777 tmpfs "$m/dev/shm" 2>/dev/null || :
    cp -L /etc/resolv.conf "$m/etc/resolv.conf" 2>/dev/null || :
    while [ "$1" = -b ] || [ "$1" = -r ]; do
        host=${2%%:*} inside=${2#*:}
        mkdir -p "$m$inside" || exit 125
        mount --bind "$host" "$m$inside" || exit 125
        [ "$1" = -b ] || mount -o remount,bind,ro "$m$inside" || exit 125
        shift 2
    done
    [ "$1" = -- ] && shift
    cd "$m"
    exec chroot "$m" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 TERM=dumb CI="${CI:-}" \
        CRLCACHE_DEBIAN_MIRROR="${CRLCACHE_DEBIAN_MIRROR:-}" \
        CRLCACHE_DEBIAN_SECURITY="${CRLCACHE_DEBIAN_SECURITY:-}" "$@"
' sh "$scratch" "$root" $binds -- "$@" || rc=$?
exit "$rc"
