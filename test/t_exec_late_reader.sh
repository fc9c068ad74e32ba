#!/usr/bin/env bash
# A descendant of `crlcache exec`'s program that starts OpenSSL after the
# program exited (a daemon, `cmd &`, a tmux server) still has the name in
# OPENSSL_CONF, though the cleaner has removed the file and its directory.
# Nobody else may ever be able to create that name: with TMPDIR a shared
# sticky directory (mode 1777), root's exec keeps its configuration out of
# it, and when nobody recreates the directory and file the name pointed
# at (holding a configuration that loads the null provider), the late
# descendant never reads their file.  A user with no directory only they
# can write to (a shared TMPDIR, no XDG_RUNTIME_DIR, no home) is refused;
# their XDG_RUNTIME_DIR is used when only they can write to it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to play root and nobody"
command -v setpriv >/dev/null || skip "no setpriv"
as_nobody() {
    CRLCACHE_MODULE=$W/crlcache.so CRLCACHE_SNIPPET=$W/crlcache.cnf \
        setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}
as_nobody true 2>/dev/null || skip "cannot switch to nobody"

# nobody reaches the shared directory, the state and the flags, not the
# rest (the run's own temp dirs only); the tree may lie where nobody cannot
# reach it (a clone under /root), so nobody gets copies in $W.
for d in "$W" "$(dirname "$W")"; do
    case $d in */crlcache-*) chmod o+x "$d" ;; esac
done
chmod 0711 "$W"
cp "$CRLCACHE" "$W/crlcache"
cp "$CRLCACHE_MODULE" "$W/crlcache.so"
cp "$TESTDIR/../openssl.cnf.d/crlcache.cnf" "$W/crlcache.cnf"
chmod 0755 "$W/crlcache"; chmod 0644 "$W/crlcache.so" "$W/crlcache.cnf"
mkdir -p "$STATE" "$W/shared" "$W/flags"
chmod 1777 "$W/shared" "$W/flags"
chmod 0755 "$STATE"
cat >"$W/evil.cnf" <<'EOF'
openssl_conf = evil_init
[evil_init]
providers = evil_providers
[evil_providers]
null = evil_null
[evil_null]
activate = 1
EOF
chmod 0644 "$W/evil.cnf"
# Bounded waits: 10 s each.
waitfor() { local i; for i in $(seq 1 200); do eval "$1" && return 0; sleep 0.05; done; return 1; }

# The racer, as nobody: once the directory is gone, recreate it and put
# the configuration there, by the name the descendant holds (in /tmp the
# name is there for anyone to list).
as_nobody bash -c '
    f=$1 evil=$2
    for i in $(seq 1 200); do [ -e "$f/gone" ] && break; sleep 0.05; done
    conf=$(cat "$f/conf.path")
    { mkdir -p "${conf%/*}" && cp "$evil" "$conf" && echo "racer: wrote $conf"; } 2>&1 || echo "racer: refused"
    touch "$f/raced"' racer "$W/flags" "$W/evil.cnf" >"$W/racer.out" 2>&1 &
racer=$!
bg_register "$racer"

# The program (root, under exec, TMPDIR the shared directory) leaves a
# descendant behind and exits; the descendant waits for the cleaner, then
# for the racer, then starts OpenSSL.
(
    unset XDG_RUNTIME_DIR
    TMPDIR=$W/shared "$CRLCACHE" --state-dir "$STATE" exec --set log=stderr -- sh -c '
        f=$1
        echo "$OPENSSL_CONF" >"$f/conf.path.tmp" && mv "$f/conf.path.tmp" "$f/conf.path"
        (
            for i in $(seq 1 200); do [ -e "${OPENSSL_CONF%/*}" ] || break; sleep 0.05; done
            touch "$f/gone"
            for i in $(seq 1 200); do [ -e "$f/raced" ] && break; sleep 0.05; done
            openssl list -providers >"$f/late.out" 2>&1
            stat -c "%U %n" "$OPENSSL_CONF" >>"$f/late.out" 2>&1
            touch "$f/late.done"
        ) </dev/null >/dev/null 2>&1 &' prog "$W/flags"
) >"$W/exec.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || { cat "$W/exec.out" >&2; fail "exec exited $rc"; }
waitfor '[ -e "$W/flags/late.done" ]' || fail "the descendant did not finish"
wait "$racer"
conf=$(cat "$W/flags/conf.path")
sed 's/^/    | /' "$W/racer.out" "$W/flags/late.out"
echo "    OPENSSL_CONF was $conf"

case $conf in
    "$W/shared/"*) case_fail shared "the configuration went into the shared TMPDIR" ;;
    *) case_ok "the configuration is kept out of a shared sticky TMPDIR" ;;
esac
grep -q '^racer: wrote' "$W/racer.out" \
    && case_fail racer "nobody recreated the directory OPENSSL_CONF names" \
    || case_ok "nobody cannot recreate the directory OPENSSL_CONF names"
if grep -Eq '^  null$|^nobody ' "$W/flags/late.out"; then
    case_fail late "a descendant starting OpenSSL after the program exited read nobody's configuration"
else
    case_ok "the late descendant never reads nobody's configuration"
fi

# A user with no private directory at all (nobody: home /nonexistent) is
# refused, rather than given the shared one.
as_nobody env -u XDG_RUNTIME_DIR TMPDIR="$W/shared" HOME=/nonexistent \
    "$W/crlcache" --state-dir "$STATE" exec -- sh -c 'echo "$OPENSSL_CONF"' >"$W/nopriv.out" 2>&1
rc=$?
sed 's/^/    | /' "$W/nopriv.out"
[ "$rc" -eq 4 ] && grep -q 'no directory only you can write to' "$W/nopriv.out" \
    && case_ok "without a private directory, exec refuses" \
    || case_fail nopriv "exit $rc without a private directory"

# Their own runtime directory is used (under /run, where only root
# creates entries: nothing under /tmp qualifies).
run=$(mktemp -d /run/crlcache-t_exec_late_reader.XXXXXX)
trap '_lib_cleanup; rm -rf "$run"' EXIT
chmod 0711 "$run"
mkdir "$run/xdg" && chown nobody:nogroup "$run/xdg" && chmod 0700 "$run/xdg"
out=$(as_nobody env XDG_RUNTIME_DIR="$run/xdg" TMPDIR="$W/shared" \
    "$W/crlcache" --state-dir "$STATE" exec -- sh -c 'echo "$OPENSSL_CONF"' 2>&1)
case $out in "$run/xdg/crlcache-exec."*/openssl.cnf) case_ok "a private XDG_RUNTIME_DIR is used" ;;
    *) case_fail xdg "OPENSSL_CONF=$out" ;; esac
# ... not when someone else may write to it.
chmod 0777 "$run/xdg"
out=$(as_nobody env XDG_RUNTIME_DIR="$run/xdg" TMPDIR="$W/shared" HOME=/nonexistent \
    "$W/crlcache" --state-dir "$STATE" exec -- sh -c 'echo "$OPENSSL_CONF"' 2>&1)
case $out in *"$run/xdg/"*) case_fail xdg-open "a world-writable XDG_RUNTIME_DIR was used: $out" ;;
    *) case_ok "a world-writable XDG_RUNTIME_DIR is not used" ;; esac
finish
