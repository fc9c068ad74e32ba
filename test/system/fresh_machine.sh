#!/usr/bin/env bash
# The README's two commands on a fresh Debian 12 (or, with --suite, another
# Debian release), for real.  Nothing on this host is removed or downgraded:
# it builds a root of the suite (bookworm unless --suite SUITE, e.g.
# --suite trixie for Debian 13 with OpenSSL 3.5 and curl 8.14) with
# `debootstrap --variant=minbase` in a temporary directory (the mirror is the
# one this host's apt uses, read from /etc/apt/sources.list and
# /etc/apt/sources.list.d/ at run time; for another suite the host's entries
# are taken with their suite name replaced, "bookworm-security" becoming
# "trixie-security"), installs make, gcc and git in it
# (--no-install-recommends: those three and what they depend on, nothing
# else), copies that root once, and then, as root inside each copy
# (chroot; /proc, /sys, /dev, /dev/pts, /dev/shm of its own; the host's
# network, of which the tests use only 127.0.0.1), in a fresh `git clone` of
# this repository's HEAD (bundled when the script starts, so the commit tested
# is the one checked out then, whatever happens to the work tree meanwhile):
#   machine A: `make demo` as the machine's first command, then `make check`
#              in the same clone: the README's order, as a reader runs it;
#   machine B: `make check` as the machine's first command, so that the first
#              run of each command is proven on a machine with nothing but
#              make, gcc and git.
# Each command must exit 0 and each `make check` must end with its
# "N passed, 0 failed, N skipped" line.  The durations are printed; the
# roots are unmounted and deleted at the end (kept, unmounted, with --keep).
#
# It needs root, network access to that Debian mirror and about 3 GB in
# ${TMPDIR:-/var/tmp}; it installs debootstrap on this host if missing.  It
# is not part of `make check` and runs only when asked:
#   sudo CRLCACHE_FRESH_MACHINE=1 bash test/system/fresh_machine.sh [--keep] [--suite SUITE]
set -u
[ "${CRLCACHE_FRESH_MACHINE:-}" = 1 ] || { echo "set CRLCACHE_FRESH_MACHINE=1 to build Debian roots on this host" >&2; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "run as root" >&2; exit 77; }
usage() { echo "usage: $0 [--keep] [--suite SUITE]" >&2; exit 2; }
keep=0 SUITE=bookworm
while [ $# -gt 0 ]; do
    case "$1" in
        --keep) keep=1 ;;
        --suite) [ $# -ge 2 ] || usage; SUITE=$2; shift ;;
        --suite=*) SUITE=${1#--suite=} ;;
        *) usage ;;
    esac
    shift
done
# A Debian code name: it becomes part of apt lines and of a path.
printf '%s\n' "$SUITE" | grep -Eqx '[a-z]+' || { echo "suite '$SUITE' is not a Debian code name" >&2; exit 2; }
SRC=$(cd "$(dirname "$0")/../.." && pwd)
export LC_ALL=C

note() { printf 'fresh_machine: %s\n' "$*"; }
fail() { printf 'FAIL: fresh_machine: %s\n' "$*" >&2; exit 1; }

HEAD=$(git -C "$SRC" rev-parse HEAD) || fail "$SRC is not a git clone"
[ -z "$(git -C "$SRC" status --porcelain --untracked-files=no)" ] ||
    note "testing HEAD $HEAD; uncommitted changes in $SRC are not part of it"

# ---------------------------------------------------------------- mirror
# Every enabled `deb` entry of the host's apt sources, as "URI SUITE COMPONENTS".
host_sources() {
    local f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        sed 's/#.*//' "$f" | awk '$1 == "deb" {
            i = 2
            if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
            c = ""; for (j = i + 2; j <= NF; j++) c = c " " $j
            print $i, $(i + 1) c }'
    done
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk 'function flush(  n, m, a, b, U, S) {
                if (f["types"] ~ /(^|[ \t])deb([ \t]|$)/ && tolower(f["enabled"]) !~ /no/) {
                    n = split(f["uris"], U); m = split(f["suites"], S)
                    for (a = 1; a <= n; a++) for (b = 1; b <= m; b++) print U[a], S[b], f["components"]
                }
                split("", f); last = ""
            }
            /^#/ { next }
            /^[ \t]*$/ { flush(); next }
            /^[ \t]/ { if (last != "") f[last] = f[last] " " $0; next }
            { k = tolower(substr($0, 1, index($0, ":") - 1)); f[k] = substr($0, index($0, ":") + 1); last = k }
            END { flush() }' "$f"
    done
}
# The host's release is the suite of its first entry without a "-" suffix;
# for another suite its entries are taken with the code name replaced.
HOST_SUITE=$(host_sources | awk '$2 !~ /-/ { print $2; exit }')
SOURCES=$(host_sources | awk -v h="$HOST_SUITE" -v s="$SUITE" '
    $2 == h || $2 == h "-updates" || $2 == h "-security" { sub("^" h, s, $2); print }
    $2 == s || $2 == s "-updates" || $2 == s "-security" { print }' | awk '!seen[$0]++')
MIRROR=$(printf '%s\n' "$SOURCES" | awk -v s="$SUITE" '$2 == s { print $1; exit }')
[ -n "$MIRROR" ] || fail "no '$SUITE' entry in this host's apt sources to take the mirror from"
# An apt proxy of the host's is needed the same way by debootstrap and by apt in the roots.
APT_PROXY=""
eval "$(apt-config shell APT_PROXY Acquire::http::Proxy)"
[ -n "$APT_PROXY" ] && export http_proxy=$APT_PROXY

if ! command -v debootstrap >/dev/null; then
    note "installing debootstrap on this host"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get install -y -q debootstrap || { apt-get update -q && apt-get install -y -q debootstrap; }; } \
        >/dev/null || fail "cannot install debootstrap"
    unset DEBIAN_FRONTEND
fi

# ---------------------------------------------------------------- cleanup
TOP=$(mktemp -d "${TMPDIR:-/var/tmp}/crlcache-fresh.XXXXXX") || fail "mktemp"
TOP=$(cd "$TOP" && pwd -P)
A=$TOP/a B=$TOP/b LOGS=$TOP/logs
mkdir "$LOGS"
mounts_under() {    # mount points at or below $1, deepest first
    awk -v p="$1" '$5 == p || index($5, p "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r
}
release() {         # kill what still runs in root $1, unmount everything below it
    local r=$1 p m
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$r" ] && kill -KILL "${p#/proc/}" 2>/dev/null
    done
    for m in $(mounts_under "$r"); do
        umount "$m" 2>/dev/null || umount -l "$m" || note "cannot unmount $m"
    done
}
JOB=""               # the running long step's process group (see timed)
cleanup() {
    local rc=$?
    if [ -n "$JOB" ]; then
        kill -TERM -- "-$JOB" 2>/dev/null; sleep 1; kill -KILL -- "-$JOB" 2>/dev/null
    fi
    release "$A"; release "$B"
    if [ -n "$(mounts_under "$TOP")" ]; then
        note "still mounted under $TOP, not deleting it:"; mounts_under "$TOP"
    elif [ "$keep" = 1 ]; then
        note "kept $TOP (roots a/ and b/, logs/)"
    else
        rm -rf --one-file-system "$TOP"
        [ "$rc" -eq 0 ] || note "roots and logs deleted; --keep keeps them"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
# HEAD now: the clones are of this commit even if the work tree moves on
# during the half hour this takes.
git -C "$SRC" bundle create "$TOP/crlcache.bundle" HEAD 2>/dev/null || fail "git bundle"

# ---------------------------------------------------------------- helpers
TIMES=()
# The step runs in a process group of its own, waited for, so that a signal
# to this script runs the cleanup at once and the cleanup can end the step.
timed() {           # timed LABEL LOG cmd...: run, log, record the duration; the tail of the log on failure
    local label=$1 log=$2 t rc; shift 2
    t=$(date +%s)
    set -m; ( "$@" ) </dev/null >"$log" 2>&1 & JOB=$!; set +m
    wait "$JOB"; rc=$?
    JOB=""
    t=$(( $(date +%s) - t ))
    TIMES+=("$(printf '%-44s %4dm%02ds' "$label" $((t / 60)) $((t % 60)))")
    note "$label: exit $rc after ${t}s"
    if [ "$rc" -ne 0 ]; then
        echo "--- last 60 lines of $log:"; tail -n 60 "$log"; echo "---"
    fi
    return "$rc"
}
# The root's own /proc, /sys and /dev: a tmpfs with the usual nodes, a new
# devpts instance and a tmpfs /dev/shm; nothing of the host's /dev is bound.
mount_root() {
    local r=$1
    mount -t proc proc "$r/proc" &&
    mount -t sysfs -o ro sysfs "$r/sys" &&
    mount -t tmpfs -o mode=755,nosuid dev "$r/dev" || return 1
    mknod -m 666 "$r/dev/null" c 1 3; mknod -m 666 "$r/dev/zero" c 1 5
    mknod -m 666 "$r/dev/full" c 1 7; mknod -m 666 "$r/dev/random" c 1 8
    mknod -m 666 "$r/dev/urandom" c 1 9; mknod -m 666 "$r/dev/tty" c 5 0
    ln -s /proc/self/fd "$r/dev/fd"; ln -s /proc/self/fd/0 "$r/dev/stdin"
    ln -s /proc/self/fd/1 "$r/dev/stdout"; ln -s /proc/self/fd/2 "$r/dev/stderr"
    mkdir "$r/dev/pts" "$r/dev/shm"
    mount -t devpts -o newinstance,ptmxmode=0666,mode=620,gid=5 devpts "$r/dev/pts" &&
    ln -s pts/ptmx "$r/dev/ptmx" &&
    mount -t tmpfs -o mode=1777,nosuid,nodev shm "$r/dev/shm"
}
# inroot ROOT CMD: a root login's environment, nothing of this one's.
inroot() {
    local r=$1; shift
    chroot "$r" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TERM="${TERM:-dumb}" \
        /bin/bash -c "$1"
}
check_summary() {   # check_summary LOG: the last line is "N passed, 0 failed, N skipped"
    local last
    last=$(tail -n 1 "$1")
    grep -E '^(PASS|FAIL|SKIP) ' "$1" | grep -v '^PASS ' | sed 's/^/    /'
    note "make check said: $last"
    printf '%s\n' "$last" | grep -Eq '^[0-9]+ passed, 0 failed, [0-9]+ skipped$' ||
        fail "make check did not end with 'N passed, 0 failed, N skipped' (see above)"
}

# ---------------------------------------------------------------- machine
note "mirror (from this host's apt sources): $MIRROR; roots in $TOP"
timed "debootstrap --variant=minbase $SUITE" "$LOGS/debootstrap.log" \
    debootstrap --variant=minbase "$SUITE" "$A" "$MIRROR" || fail "debootstrap"
release "$A"        # whatever debootstrap left mounted
printf '%s\n' "$SOURCES" | awk '{ $1 = $1; print "deb", $0 }' >"$A/etc/apt/sources.list"
[ -n "$APT_PROXY" ] && printf 'Acquire::http::Proxy "%s";\n' "$APT_PROXY" >"$A/etc/apt/apt.conf.d/01proxy"
note "its apt sources:"; sed 's/^/    /' "$A/etc/apt/sources.list"
mount_root "$A" || fail "cannot mount /proc, /sys, /dev in $A"
timed "apt-get install make gcc git" "$LOGS/base.log" inroot "$A" '
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q && apt-get install -y -q --no-install-recommends make gcc git' ||
    fail "installing make, gcc, git"
inroot "$A" '! command -v pkg-config && ! dpkg-query -W libssl-dev' >/dev/null 2>&1 ||
    fail "the root is not fresh: pkg-config or libssl-dev present"
note "fresh root: $(inroot "$A" "dpkg-query -W -f '\${Status}\n' | grep -c 'ok installed'") packages, no pkg-config, no libssl-dev"
release "$A"
cp -a "$A" "$B" || fail "copying the root"

clone() {           # clone ROOT DIR: a fresh clone of HEAD at /root/DIR in ROOT
    cp "$TOP/crlcache.bundle" "$1/root/crlcache.bundle" &&
    inroot "$1" "git -c advice.detachedHead=false -c init.defaultBranch=main clone -q /root/crlcache.bundle /root/$2 && cd /root/$2 && test \$(git rev-parse HEAD) = $HEAD"
}

note "machine A: make demo, then make check in the same clone"
mount_root "$A" || fail "cannot mount /proc, /sys, /dev in $A"
clone "$A" crlcache || fail "git clone in machine A"
timed "machine A: first make demo" "$LOGS/a-demo.log" inroot "$A" 'cd /root/crlcache && make demo' ||
    fail "make demo on a fresh machine"
grep -q 'demo done' "$LOGS/a-demo.log" || fail "make demo exited 0 without 'demo done'"
note "$(grep 'demo done' "$LOGS/a-demo.log" | sed 's/\x1b\[[0-9;]*m//g; s/^== //')"
timed "machine A: make check after make demo" "$LOGS/a-check.log" inroot "$A" 'cd /root/crlcache && make check' ||
    fail "make check after make demo"
check_summary "$LOGS/a-check.log"
release "$A"

note "machine B: make check first"
mount_root "$B" || fail "cannot mount /proc, /sys, /dev in $B"
clone "$B" crlcache || fail "git clone in machine B"
timed "machine B: first make check" "$LOGS/b-check.log" inroot "$B" 'cd /root/crlcache && make check' ||
    fail "make check on a fresh machine"
check_summary "$LOGS/b-check.log"
release "$B"

note "durations:"
printf '    %s\n' "${TIMES[@]}"
note "ok: on fresh $SUITE roots with only make, gcc and git, the first make demo and the first make check pass"
