#!/usr/bin/env bash
# `crlcache exec` writes its configuration to a file of its own that the
# program's children find even when they close inherited descriptors:
# a Python script under exec runs curl and openssl s_client through
# subprocess.run (close_fds=True by default), and both refuse a revoked
# server and accept a good one.  The directory is 0711, the file 0644
# (a program that switches to another user still reads it), ours,
# both gone once the program exits (also when it is killed).  The cleaner
# that removes them holds no terminal, pipe or descriptor of the caller,
# is not the program's child, sits in a session of its own, kills
# nothing (a grandchild outliving the program keeps running) and exits
# with the program, with a pidfd or, without one (test/nopidfd.c), by
# polling; the program keeps crlcache's pid and its exit status.  TMPDIR
# is used only when nobody else can create entries in or above it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
command -v curl >/dev/null || skip "no curl"

tls_pki
tls_import
srv_start rev rev_ec
srv_start good good_ec
rport=$(srv_port rev) gport=$(srv_port good)

cat >"$W/parent.py" <<'PY'
import os, stat, subprocess, sys
port, cafile = sys.argv[1], sys.argv[2]
conf = os.environ["OPENSSL_CONF"]
d = os.path.dirname(conf)
print("conf", conf)
print("modes %o %o" % (stat.S_IMODE(os.stat(d).st_mode), stat.S_IMODE(os.stat(conf).st_mode)))
print("owner-is-me", os.stat(d).st_uid == os.getuid() and os.stat(conf).st_uid == os.getuid())
# fd 3 is reused here, and subprocess closes everything above 2 anyway
f = open(os.devnull)
c = subprocess.run(["curl", "-sS", "--max-time", "20", "--cacert", cafile, "-o", os.devnull,
                    "https://127.0.0.1:%s/" % port], capture_output=True, text=True)
print("curl rc", c.returncode, " ".join(c.stderr.split()))
s = subprocess.run(["openssl", "s_client", "-connect", "127.0.0.1:" + port, "-CAfile", cafile,
                    "-verify_return_error"], stdin=subprocess.DEVNULL, capture_output=True, text=True)
print("s_client rc", s.returncode, " ".join(l for l in s.stdout.splitlines() + s.stderr.splitlines()
                                           if "verify error" in l or "crlcache" in l))
PY

gc() {  # gc PORT: the script under exec -> $W/gc.out
    px -- "$PY" "$W/parent.py" "$1" "$ROOT" >"$W/gc.out" 2>&1
    sed 's/^/    | /' "$W/gc.out"
}
gone() {  # gone DIR: the directory disappears within 2 s
    local i
    for i in $(seq 1 40); do [ -e "$1" ] || return 0; sleep 0.05; done
    return 1
}

gc "$rport"
grep -Eq '^curl rc [1-9].*(certificate signature failure|certificate is revoked \(crlcache\))' "$W/gc.out" \
    && case_ok "curl started by python's subprocess refuses the revoked server" \
    || case_fail grandchild-curl "curl under subprocess.run did not refuse the revoked server"
grep -q '^s_client rc [1-9].*certificate signature failure' "$W/gc.out" \
    && case_ok "s_client started by python's subprocess refuses the revoked server" \
    || case_fail grandchild-s_client "s_client under subprocess.run did not refuse the revoked server"
grep -q '^modes 711 644$' "$W/gc.out" && grep -q '^owner-is-me True' "$W/gc.out" \
    && case_ok "directory 0711, file 0644, ours" \
    || case_fail modes "directory/file modes or owner wrong"
dir=$(sed -n 's/^conf //p' "$W/gc.out"); dir=${dir%/*}
[ -n "$dir" ] && gone "$dir" && case_ok "directory removed after exit" \
    || case_fail cleanup "$dir still there after the program exited"

gc "$gport"
grep -q '^curl rc 0' "$W/gc.out" && grep -q '^s_client rc 0' "$W/gc.out" \
    && case_ok "grandchildren accept the good server" \
    || case_fail grandchild-good "a grandchild refused the good server"

# A program that switches to another user still reads the file.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    # (the file only: the module may sit where nobody cannot reach it)
    px -- setpriv --reuid=nobody --regid=nogroup --clear-groups \
        sh -c 'grep "^nodejs_conf" "$OPENSSL_CONF"' >"$W/nobody.out" 2>&1
    grep -q '^nodejs_conf = ' "$W/nobody.out" \
        && case_ok "a program running as nobody reads the file" \
        || { sed 's/^/    | /' "$W/nobody.out"; case_fail nobody "nobody cannot read the configuration"; }
else
    note "not root or no setpriv: the other-user case is not run"
fi

# exit status and pid
px -- sh -c 'exit 7'; rc=$?
[ "$rc" -eq 7 ] && case_ok "exit status passed through" || case_fail status "exit $rc, wanted 7"

# The cleaner while the program runs.
marker=$RANDOM$$
# Not through px: $! must be crlcache itself.
"$CRLCACHE" --state-dir "$STATE" exec --set log=stderr -- \
    sh -c "echo \$\$ \$OPENSSL_CONF >'$W/prog.out'; exec sleep 30.$marker" </dev/null >/dev/null 2>&1 &
prog=$!
bg_register "$prog"
for i in $(seq 1 100); do [ -s "$W/prog.out" ] && break; sleep 0.05; done
read -r shpid conf <"$W/prog.out"
[ "$shpid" = "$prog" ] && case_ok "the program keeps crlcache's pid" || case_fail pid "program pid $shpid, crlcache was $prog"
cleaner=$(pgrep -f -- "exec --set log=stderr -- sh -c echo .* sleep 30.$marker" | grep -vx "$prog" | head -1)
if [ -z "$cleaner" ]; then
    case_fail cleaner "no cleaner process found"
else
    fds=$(ls -l "/proc/$cleaner/fd" | awk 'NR > 1 { print $NF }')
    printf '    cleaner %s fds: %s\n' "$cleaner" "$(echo $fds)"
    echo "$fds" | grep -Eq 'pipe:|socket:|/dev/pts|/dev/tty' \
        && case_fail cleaner-fds "the cleaner holds a pipe, socket or terminal" \
        || case_ok "the cleaner holds no pipe, socket or terminal"
    [ "$(awk '{ print $4 }' "/proc/$cleaner/stat")" != "$prog" ] \
        && [ "$(ps -o sid= -p "$cleaner" | tr -d ' ')" != "$(ps -o sid= -p "$prog" | tr -d ' ')" ] \
        && case_ok "the cleaner is not the program's child and has its own session" \
        || case_fail cleaner-parent "the cleaner is the program's child or shares its session"
    [ "$(readlink "/proc/$cleaner/cwd")" = / ] && case_ok "the cleaner sits in /" \
        || case_fail cleaner-cwd "cleaner's cwd is $(readlink "/proc/$cleaner/cwd")"
fi
[ -f "$conf" ] || case_fail conf "$conf missing while the program runs"
kill -KILL "$prog"; wait "$prog" 2>/dev/null
gone "${conf%/*}" && case_ok "directory removed after the program was killed" \
    || case_fail cleanup-kill "${conf%/*} still there after SIGKILL"
[ -n "$cleaner" ] && for i in $(seq 1 40); do kill -0 "$cleaner" 2>/dev/null || break; sleep 0.05; done
[ -n "$cleaner" ] && kill -0 "$cleaner" 2>/dev/null && case_fail cleaner-exit "the cleaner outlived the program"

# A grandchild outliving the program: not killed; the file goes with the program.
px -- sh -c "sleep 3.$marker </dev/null >/dev/null 2>&1 & echo \$! \$OPENSSL_CONF" >"$W/bg.out" 2>&1
read -r bgpid conf <"$W/bg.out"
bg_register "$bgpid"
gone "${conf%/*}" && case_ok "file removed when the program exits, though a grandchild lives on" \
    || case_fail cleanup-bg "${conf%/*} still there after the program exited"
kill -0 "$bgpid" 2>/dev/null && case_ok "the grandchild was not killed" \
    || case_fail bg "the grandchild is gone"
kill "$bgpid" 2>/dev/null

# Without pidfd_open (kernel before 5.3, seccomp): the polling watcher.
# (`command`: lib.sh defines a shell function cc)
if command "${CC:-cc}" -shared -fPIC -o "$W/nopidfd.so" "$TESTDIR/nopidfd.c" -ldl 2>"$W/cc.err"; then
    LD_PRELOAD=$W/nopidfd.so "$CRLCACHE" --state-dir "$STATE" exec --set log=stderr -- \
        sh -c "echo \$OPENSSL_CONF >'$W/poll.out'; exec sleep 20.$marker" </dev/null >/dev/null 2>&1 &
    prog=$!
    bg_register "$prog"
    for i in $(seq 1 100); do [ -s "$W/poll.out" ] && break; sleep 0.05; done
    conf=$(cat "$W/poll.out")
    cleaner=$(pgrep -f -- "exec --set log=stderr -- sh -c echo .* sleep 20.$marker" | grep -vx "$prog" | head -1)
    if [ -n "$cleaner" ] && ls -l "/proc/$cleaner/fd" | grep -q 'anon_inode:\[pidfd\]'; then
        case_fail poll "the shim did not take pidfd_open away"
    else
        sleep 0.5
        [ -f "$conf" ] && case_ok "polling: the file stays while the program runs" \
            || case_fail poll "$conf gone while the program runs"
        kill -KILL "$prog"; wait "$prog" 2>/dev/null
        gone "${conf%/*}" && case_ok "polling: directory removed after the program was killed" \
            || case_fail poll "${conf%/*} still there after SIGKILL"
    fi
else
    cat "$W/cc.err" >&2
    case_fail poll "cannot build test/nopidfd.c"
fi

# TMPDIR is used only when nobody else can create entries in it or in a
# directory above it: not a world-writable one, not even a private one in
# /tmp (a cleaner of /tmp may remove it, and then anyone may recreate it);
# one under /run is.  (The late-reader case: t_exec_late_reader.)
mkdir -p "$W/tmp-open" "$W/tmp-ok"
chmod 0777 "$W/tmp-open"; chmod 0700 "$W/tmp-ok"
for d in tmp-open tmp-ok; do
    out=$(TMPDIR=$W/$d px -- sh -c 'echo $OPENSSL_CONF' 2>&1)
    case $out in "$W/$d/"*) case_fail tmpdir "TMPDIR $d used: $out" ;;
        */crlcache-exec.*/openssl.cnf) case_ok "TMPDIR $d (under /tmp) is not used" ;;
        *) case_fail tmpdir "OPENSSL_CONF=$out" ;; esac
done
if [ "$(id -u)" -eq 0 ]; then
    run=$(mktemp -d /run/crlcache-t_exec_grandchild.XXXXXX)
    out=$(TMPDIR=$run px -- sh -c 'echo $OPENSSL_CONF')
    case $out in "$run/crlcache-exec."*/openssl.cnf) case_ok "the private directory is made under a private TMPDIR" ;;
        *) case_fail tmpdir "OPENSSL_CONF=$out" ;; esac
    rm -rf "$run"
fi

# A command substitution (waits for EOF on the pipe) returns at once.
t0=$(date +%s%N)
out=$(px -- sh -c 'echo hello')
t1=$(date +%s%N)
printf '    command substitution took %d ms\n' $(( (t1 - t0) / 1000000 ))
[ "$out" = hello ] && [ $(( (t1 - t0) / 1000000 )) -lt 5000 ] \
    && case_ok "the cleaner does not hold stdout" || case_fail eof "output '$out' or slow"
finish
