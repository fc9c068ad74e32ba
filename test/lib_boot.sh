# shellcheck shell=bash
# This machine's root booted by `systemd-nspawn -b` on an overlay (every
# write goes to a temporary upper layer; the host is not changed), with
# only loopback inside (--private-network), and this tree in it at
# /usr/src/crlcache: the machinery of the tests of the shipped units
# (t_systemd_*.sh).  Source it after lib.sh:
#     . "$(dirname "$0")/lib.sh"
#     . "$(dirname "$0")/lib_boot.sh"
# Skips where systemd-nspawn cannot boot here.  Provides:
#   boot_root           the overlay root, $ROOT, with this tree in it and
#                       /srv/crlt/www for the CRL server (fill it, then boot)
#   boot_start          boot it to a target of its own, wait until running
#   in_ct TIMEOUT CMD   CMD inside, as root, in a clean environment
#   boot_install        `make install` inside, crlcache.conf from stdin, the
#                       CRL server on 127.0.0.1:$PORT serving /srv/crlt/www
# Every wait is bounded (BOOT_MAX).

BOOT_MAX=60		# seconds for the container to finish booting
PORT=8787		# the CRL server, on the container's own loopback
BASE_URL=http://127.0.0.1:$PORT

[ "$(id -u)" -eq 0 ] || skip "needs root (systemd-nspawn, overlay mount)"
command -v systemd-nspawn >/dev/null || skip "systemd-nspawn not installed (package systemd-container)"
command -v nsenter >/dev/null || skip "nsenter not installed"
[ -x /lib/systemd/systemd ] || skip "no systemd on this root to boot"
[ -e /var/lib/crlcache ] || [ -e /etc/crlcache ] &&
    skip "crlcache is installed on this host; the booted copy would inherit it"
SRC=$(cd "$TESTDIR/.." && pwd)
[ -x "$SRC/fetcher/crlcache" ] && [ -f "$SRC/provider/crlcache.so" ] || fail "build first (make)"

# Upper and work directories of the overlay must not be on an overlay
# (the Debian 13 stage runs on one): they live on a tmpfs of their own.
BASE=$(mktemp -d /var/tmp/crlcache-boot.XXXXXX)
ROOT=$BASE/root
NSPAWN_PID=
CPID=
cleanup_boot() {
    local i
    if [ -n "$NSPAWN_PID" ] && kill -0 "$NSPAWN_PID" 2>/dev/null; then
        kill -TERM "$NSPAWN_PID" 2>/dev/null	# a clean shutdown
        for i in $(seq 1 100); do kill -0 "$NSPAWN_PID" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$NSPAWN_PID" 2>/dev/null
        wait "$NSPAWN_PID" 2>/dev/null
    fi
    umount -R "$ROOT" 2>/dev/null || umount -l "$ROOT" 2>/dev/null
    mountpoint -q "$ROOT" || umount "$BASE/rw" 2>/dev/null
    # Never through the merged view of / (a mount that would not go).
    if mountpoint -q "$ROOT"; then
        note "$ROOT is still mounted; $BASE is left"
    elif [ -z "${KEEP:-}" ]; then
        rm -rf --one-file-system "$BASE"
    fi
}
trap 'cleanup_boot; _lib_cleanup' EXIT

boot_root() {
    local t unitdir=$ROOT/etc/systemd/system
    mkdir -p "$BASE/rw" "$ROOT"
    mount -t tmpfs -o mode=700,size=1g crlcache-boot-rw "$BASE/rw" 2>"$W/mount.err" ||
        skip "cannot mount a tmpfs here: $(cat "$W/mount.err")"
    mkdir "$BASE/rw/upper" "$BASE/rw/work"
    mount -t overlay crlcache-boot -o "lowerdir=/,upperdir=$BASE/rw/upper,workdir=$BASE/rw/work" "$ROOT" 2>"$W/mount.err" ||
        skip "cannot mount an overlay of / here: $(cat "$W/mount.err")"
    # Boot to a target of its own: sysinit and basic only, none of the
    # host's services; the host's timers masked (they would run at boot).
    cat >"$unitdir/crlcache-boot-test.target" <<'EOF'
[Unit]
Description=crlcache boot test
Requires=basic.target
After=basic.target
AllowIsolate=yes
EOF
    for t in "$unitdir"/timers.target.wants/*.timer; do
        [ -e "$t" ] && ln -sf /dev/null "$unitdir/$(basename "$t")"
    done
    mkdir -p "$ROOT/usr/src/crlcache" "$ROOT/srv/crlt/www"
    (cd "$SRC" && tar --exclude=./.git --exclude=./test/.roots -cf - .) |
        tar -xf - -C "$ROOT/usr/src/crlcache" || fail "cannot copy the tree into the root"
    # The CRL server runs as nobody; a copy from a mktemp directory (the
    # Debian 13 stage's) would be 0700.
    chmod -R a+rX "$ROOT/usr/src/crlcache"
}

# in_ct TIMEOUT CMD...: CMD inside the container, as root, clean environment.
# -r -w: the container's root and directory, not its mount namespace's: in
# a chroot (the Debian 13 stage) systemd-nspawn cannot pivot_root and
# moves the root over the chroot's directory instead, and nsenter would
# land beside it ("offline": no systemd there).
in_ct() {
    local t=$1; shift
    timeout "$t" nsenter -t "$CPID" -a -r -w env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        LC_ALL=C HOME=/root "$@"
}

boot_start() {
    local p t0 state
    chmod -R a+rX "$ROOT/srv/crlt"
    # No journal link: a root from mmdebstrap has no machine ID to link by.
    systemd-nspawn --quiet -D "$ROOT" -M "crlt$$" --register=no --keep-unit --link-journal=no \
        --private-network -b -- systemd.unit=crlcache-boot-test.target \
        </dev/null >"$W/console.log" 2>&1 &
    NSPAWN_PID=$!
    # PID 1 of the container: the systemd below systemd-nspawn.
    for _ in $(seq 1 $((BOOT_MAX * 5))); do
        for p in $(pgrep -P "$NSPAWN_PID") $(pgrep -P "$(pgrep -P "$NSPAWN_PID" | head -1)" 2>/dev/null); do
            [ "$(cat "/proc/$p/comm" 2>/dev/null)" = systemd ] && CPID=$p
        done
        [ -n "$CPID" ] && break
        kill -0 "$NSPAWN_PID" 2>/dev/null || break
        sleep 0.2
    done
    [ -n "$CPID" ] || skip "systemd-nspawn cannot boot here: $(tail -3 "$W/console.log" | tr '\n' ' ')"
    # PID 1 answers on its private socket once it is up; then wait for the boot.
    t0=$(date +%s)
    while :; do
        state=$(in_ct $((BOOT_MAX + 5)) systemctl is-system-running --wait 2>&1)
        case $state in *"connect to bus"*) ;; *) break ;; esac
        [ $(( $(date +%s) - t0 )) -lt "$BOOT_MAX" ] || break
        sleep 0.2
    done
    case $state in
        running) ;;
        degraded) in_ct 10 systemctl --failed --no-legend >&2; fail "the container booted degraded, before crlcache" ;;
        *) skip "the container did not boot within ${BOOT_MAX}s ($state): $(tail -3 "$W/console.log" | tr '\n' ' ')" ;;
    esac
    note "booted systemd $(in_ct 10 systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p') in the container"
}

boot_install() {
    in_ct 300 nice make -s -C /usr/src/crlcache install >"$W/install.log" 2>&1 ||
        { tail -20 "$W/install.log"; fail "make install failed inside the container"; }
    cat >"$ROOT/etc/crlcache/crlcache.conf"
    in_ct 10 systemd-run --quiet --unit=crlt-httpd -p User=nobody python3 \
        /usr/src/crlcache/test/httpd.py --root /srv/crlt/www --port "$PORT" \
        --port-file /tmp/crlt-httpd.port --log /tmp/crlt-httpd.log ||
        fail "cannot start the CRL server inside"
    for _ in $(seq 1 100); do in_ct 5 test -s /tmp/crlt-httpd.port && break; sleep 0.1; done
    in_ct 5 test -s /tmp/crlt-httpd.port || { in_ct 10 journalctl -q -o cat -u crlt-httpd >&2; fail "the CRL server did not start inside"; }
}
