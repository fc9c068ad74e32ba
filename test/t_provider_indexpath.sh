#!/usr/bin/env bash
# The index path is not trusted: what lies there may be a FIFO, a
# symbolic link or another user's file.  Every program opens it
# O_NONBLOCK|O_NOFOLLOW, fstat()s the descriptor and maps that very file:
#  - a FIFO at the index path: `openssl verify` finishes at once and passes
#    through with one notice; a long-running process then picks up a good
#    index put in its place and refuses the revoked server;
#  - a FIFO and a good index swapped in a tight loop (the stat-then-open
#    race that made `openssl verify` hang for ever before): no run hangs;
#  - a symlink to a good index: refused, pass-through with one notice;
#  - an index owned by another non-root user in a world-writable directory
#    (sticky or not): refused; the same user's file in its own directory
#    (the crlcache account's state directory): used;
#  - `crlcache check` (same reader) refuses them too, promptly.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
tls_pki
tls_import
good=$W/good.mdb
cp "$STATE/index.mdb" "$good"
IDX=$STATE/index.mdb

# vfy STATE_DIR: openssl verify of the revoked leaf under the provider with
# that state dir (its index.mdb), at most 20 s; output in $W/v.out.
vfy() {
    timeout 20 "$CRLCACHE" --state-dir "$1" exec --set log=stderr --set hints=off -- \
        openssl verify -CAfile "$ROOT" -untrusted "$W/untrusted.pem" "$PKI/rev_ec.pem" \
        >"$W/v.out" 2>&1
}
# passes KIND STATE_DIR WORDS: pass-through with exactly one notice saying WORDS
passes() {
    local kind=$1 rc n
    vfy "$2"; rc=$?
    n=$(grep -c '^crlcache: index ' "$W/v.out")
    if [ "$rc" -eq 124 ]; then
        case_fail "$kind" "openssl verify hung (killed after 20 s)"
    elif [ "$rc" -ne 0 ]; then
        cat "$W/v.out"; case_fail "$kind" "verification failed (rc $rc) instead of passing through"
    elif [ "$n" -ne 1 ] || ! grep -q "^crlcache: index .*$3" "$W/v.out"; then
        cat "$W/v.out"; case_fail "$kind" "expected one notice saying '$3', saw $n"
    else
        case_ok "$kind: passes through; $(grep -m1 '^crlcache: index ' "$W/v.out" | cut -c1-170)"
    fi
}
# refuses KIND STATE_DIR: the index is used (the revoked leaf is refused)
refuses() {
    vfy "$2"
    if grep -q 'certificate is revoked (crlcache)' "$W/v.out"; then
        case_ok "$1: index used, revoked leaf refused"
    else
        cat "$W/v.out"; case_fail "$1" "revoked leaf not refused"
    fi
}
# check_refuses KIND STATE_DIR WORDS: `crlcache check` refuses the index promptly
check_refuses() {
    local rc
    timeout 20 "$CRLCACHE" --state-dir "$2" check "$PKI/rev_ec.pem" >"$W/c.out" 2>&1; rc=$?
    if [ "$rc" -eq 124 ]; then
        case_fail "check-$1" "crlcache check hung"
    elif [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || ! grep -q "$3" "$W/c.out"; then
        cat "$W/c.out"; case_fail "check-$1" "crlcache check exit $rc, expected a refusal saying '$3'"
    else
        case_ok "check-$1: exit $rc, $(head -1 "$W/c.out" | cut -c1-150)"
    fi
}

# ---- a FIFO nobody writes
rm -f "$IDX"; mkfifo "$IDX"
passes fifo "$STATE" 'not a regular file'
check_refuses fifo "$STATE" 'not a regular file'

# ---- a long-running process meets the FIFO, then a good index
srv_start rev rev_ec
tls_loop "$(srv_port rev)" 12 --set hints=off
pid=$TLS_LOOP_PID
sleep 4
cp "$good" "$IDX.tmp" && mv -f "$IDX.tmp" "$IDX"
t_pub=$(date +%s.%N)
wait "$pid"
tls_loop_judge "$t_pub" 5 >"$W/judge.out"; jrc=$?
n=$(grep -c 'passing through' "$W/loop.err")
note "$(cat "$W/judge.out"); pass-through notices: $n"
if [ "$jrc" -eq 0 ] && [ "$n" -eq 1 ]; then
    case_ok "fifo, then a good index: the same process passes through, then refuses"
else
    sed 's/^/    | /' "$W/loop.out" "$W/loop.err"; case_fail fifo-reload "see above"
fi

# ---- the stat-then-open race: a FIFO and the good index swapped in a loop
mkfifo "$W/fifo"
"$PY" - "$good" "$W/fifo" "$IDX" "$W/stop" <<'PY' &
import os, sys
good, fifo, idx, stop = sys.argv[1:]
t1, t2 = idx + ".g", idx + ".f"
while not os.path.exists(stop):
    for _ in range(1000):
        os.link(good, t1); os.replace(t1, idx)
        os.link(fifo, t2); os.replace(t2, idx)
PY
sw=$!; bg_register "$sw"
hung=0 used=0 passed=0 many=0
for i in $(seq 1 40); do
    timeout 10 "$CRLCACHE" --state-dir "$STATE" exec --set log=stderr --set hints=off -- \
        openssl verify -CAfile "$ROOT" -untrusted "$W/untrusted.pem" "$PKI/rev_ec.pem" \
        >"$W/r.out" 2>&1
    case $? in 124) hung=$((hung + 1)) ;; 0) passed=$((passed + 1)) ;; *) used=$((used + 1)) ;; esac
    [ "$(grep -c '^crlcache: index ' "$W/r.out")" -le 1 ] || many=$((many + 1))
done
touch "$W/stop"; wait "$sw"
rm -f "$IDX.g" "$IDX.f"
note "race: 40 runs: $hung hung, $used used the index, $passed passed through, $many with several notices"
[ "$hung" -eq 0 ] && [ "$many" -eq 0 ] && case_ok "fifo/index race: no run hangs" \
    || case_fail fifo-race "$hung of 40 runs hung, $many printed several notices"

# ---- a symlink to a good index
rm -f "$IDX"; ln -s "$good" "$IDX"
passes symlink "$STATE" 'symbolic link'
check_refuses symlink "$STATE" 'symbolic link'
rm -f "$IDX"; cp "$good" "$IDX"
refuses "good index back" "$STATE"

# ---- ownership: another non-root user's index
id nobody >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] || { note "not root or no user nobody: ownership cases not run"; finish; }
D=$W/other
mkdir -m 0777 "$D"; cp "$good" "$D/index.mdb"; chown nobody "$D/index.mdb"; chmod 644 "$D/index.mdb"
# the scope files the top names (format 3), root's: trusted beside any index
cp -r "$STATE/scope" "$D/scope"
passes "nobody's index, world-writable dir" "$D" 'directory is writable by group or others'
# check, run as root, refuses the state directory itself before it would
# read as the owner of an entry anyone could have made
check_refuses "nobody-0777" "$D" 'writable by every user'
chmod 1777 "$D"
passes "nobody's index, sticky world-writable dir" "$D" 'owned by neither root nor'
chown root "$D/index.mdb"
refuses "root's index, sticky world-writable dir" "$D"
chown nobody "$D" "$D/index.mdb"; chmod 0755 "$D"
refuses "nobody's index in nobody's own dir (the crlcache-account case)" "$D"
chmod 0775 "$D"
passes "group-writable dir" "$D" 'directory is writable by group or others'
finish
