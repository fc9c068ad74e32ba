#!/usr/bin/env bash
# CRLite's lookup file shared by `crlcache share` (include/crlcache/
# crliteshare.h): a sealed memfd passed over a unix socket on loopback's
# machine, mapped by every process under the provider.  A test PKI whose
# leaves carry embedded SCTs, a filter for them merged with Mozilla's real
# delta 89 times (test/crlite_pki.py merge), the first padded to a 6 MB
# full filter: a set of day 44 of a cycle (a full filter and 88 deltas).
#   - through the sharer, openssl verify answers as the pread path does
#     (revoked from CRLite, good from CRLite), and says the set is mapped;
#   - a process's private memory (smaps_rollup Private_*) with the set,
#     mapped, is at most 512 kB over the same process with no set;
#   - the crlcache account truncating, then rewriting the lookup file
#     while a process holds the mapping: it goes on answering, no crash;
#   - a request too long goes unanswered; a burst of 1500 askers gets at
#     most 1000 answers a second, and the set is copied once;
#   - a sharer run by another account (nobody): refused, the file read;
#   - a "sharer" that never answers: the process waits 10 ms, not more,
#     and reads the file.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
need_owner_nobody
mkdir -p "$W/run"; chown nobody "$W/run"      # where nobody's sharer can listen too
SHARE_SOCK=$W/run/lookup.sock
log_receiver read       # the provider's syslog lines in $W/log.txt
LOG_A=$(printf 'a1%.0s' $(seq 32))
NOW_MS=$(( $(now_epoch) * 1000 )); DAY_MS=86400000

pki_root root "/CN=Share Root/O=crlcache tests"
pki_gencrl root "$W/root.crl"
ROOT=$PKI/root/cert.pem
pki_ca int root "/CN=Share Int/O=crlcache tests" cdp=http://127.0.0.1:9/root.crl keytype=rsa
sct_leaf() {
    prov_leaf "$1" int "$1.test" cdp=http://127.0.0.1:9/int.crl
    "$PY" "$TESTDIR/crlite_pki.py" sctext "$LOG_A:$NOW_MS" >>"$PKI/$1.ext" || fail "sctext"
    _issue int "$PKI/$1.csr" "$PKI/$1.pem" "$PKI/$1.ext"
}
sct_leaf rev
sct_leaf good
cp "$PKI/int/cert.pem" "$W/untrusted.pem"
"$PY" "$TESTDIR/crlite_pki.py" filter "$W/test.filter" 4 \
    "$LOG_A:$((NOW_MS - DAY_MS)):$((NOW_MS + DAY_MS))" \
    "$PKI/int/cert.pem" "$PKI/rev.pem=revoked" "$PKI/good.pem=good" || fail "filter build"
"$PY" "$TESTDIR/crlite_pki.py" merge "$W/test.filter" "$DATA/crlite/20260624-1-default.filter.delta" \
    "$W/d" 89 || fail "merge"
"$PY" "$TESTDIR/crlite_pki.py" pad "$W/d.1" "$W/full.filter" 6000000 || fail "pad"
write_conf "anchor = $ROOT"
assert_exit 0 cc import --anchor "$ROOT" "$W/root.crl"
files=("$W/full.filter")
for ((i = 2; i <= 89; i++)); do files+=("$W/d.$i"); done
"$PY" "$TESTDIR/crlite_set.py" "$STATE" "${files[@]}" || fail "crlite_set.py"
chmod 755 "$W" "$(dirname "$W")"; chmod 644 "$CONF"     # nobody reaches the state, the socket
LOOKUP=$(echo "$STATE"/crlite/*.lookup)
note "set of ${#files[@]} filters; lookup file $(stat -c %s "$LOOKUP") bytes"

share_start() {     # share_start [setpriv ARGS]: the sharer on $SHARE_SOCK
    rm -f "$SHARE_SOCK"
    "$@" "$CRLCACHE" --state-dir "$STATE" -c "$CONF" -v share --socket "$SHARE_SOCK" \
        >"$W/share.log" 2>&1 &
    SHARE_PID=$!
    bg_register "$SHARE_PID"
    for i in $(seq 100); do [ -S "$SHARE_SOCK" ] && return 0; sleep 0.05; done
    cat "$W/share.log"; fail "the sharer did not listen"
}
share_stop() { kill "$SHARE_PID" 2>/dev/null; wait "$SHARE_PID" 2>/dev/null; }
verify() {          # verify LEAF [--set ...]: its syslog lines in $W/said
    local leaf=$1; shift
    : >"$W/log.txt"
    cl_verify "$PKI/$leaf.pem" --set hints=off --set on_unknown=deny --set log=syslog "$@"
    sleep 0.1; cp "$W/log.txt" "$W/said"
}

# 1. The same answers through the sharer as from the file.
share_start
for how in "$SHARE_SOCK" off; do
    verify rev --set crlite_share="$how"
    [ "$CLIENT_RC" != 0 ] && grep -q 'certificate is revoked (CRLite' "$W/said" \
        || { cat "$W/client.out" "$W/said"; case_fail "rev-$how" "exit $CLIENT_RC"; }
    verify good --set crlite_share="$how"
    [ "$CLIENT_RC" = 0 ] || { cat "$W/client.out" "$W/said"; case_fail "good-$how" "exit $CLIENT_RC"; }
    if [ "$how" = off ]; then
        grep -q 'not shared: crlite_share = off' "$W/said" || case_fail "off" "no fallback said"
    else
        grep -q 'mapped from the sharer' "$W/said" \
            || { cat "$W/said"; case_fail "mapped" "not mapped"; }
    fi
done
case_ok "revoked and good answered alike through the sharer's mapping and from the file"

# 2. Private memory of a process that verified a leaf, alive after it:
#    s_client to a server of the good leaf, its stdin held open.
[ -p "$W/hold" ] || mkfifo "$W/hold"
private_kb() {      # private_kb CRLITE_SHARE STATE: median of 3 processes
    local k pid st=$2
    for k in 1 2 3; do
        "$CRLCACHE" --state-dir "$st" exec --set log=stderr --set hints=off \
            --set crlite_share="$1" -- openssl s_client \
            -connect "127.0.0.1:$(srv_port good)" -verify_return_error -CAfile "$ROOT" \
            -servername localhost <"$W/hold" >"$W/mem.out" 2>&1 &
        exec 8>"$W/hold"
        for i in $(seq 100); do
            pid=$(pgrep -n -f "^openssl s_client -connect 127.0.0.1:$(srv_port good)" || :)
            [ -n "$pid" ] && grep -q 'Verify return code: 0' "$W/mem.out" 2>/dev/null && break
            sleep 0.05
        done
        grep -q 'Verify return code: 0' "$W/mem.out" || { cat "$W/mem.out" >&2; fail "s_client did not verify"; }
        awk '/^Private_(Clean|Dirty):/ { s += $2 } END { print s }' "/proc/$pid/smaps_rollup"
        exec 8>&-; wait $!       # its stdin ends: s_client exits
    done | sort -n | sed -n 2p
}
srv_start good good --set hints=off
cp -a "$STATE" "$W/noset"; rm -rf "$W/noset/crlite"
none=$(private_kb off "$W/noset")
mapped=$(private_kb "$SHARE_SOCK" "$STATE")
read=$(private_kb off "$STATE")
note "private memory: no set $none kB, set mapped $mapped kB, set read $read kB"
[ $((mapped - none)) -le 512 ] \
    && case_ok "private memory with the day-44 set mapped: $((mapped - none)) kB over no set (read: $((read - none)) kB)" \
    || case_fail memory "mapped +$((mapped - none)) kB"

# 3. The account truncates, then rewrites, the lookup file under a mapping.
: >"$W/log.txt"
lookup_abused_under_loop "$LOOKUP" "$(srv_port good)" --set on_unknown=deny --set hints=off \
    --set crlite_share="$SHARE_SOCK" --set log=syslog && grep -q 'mapped from the sharer' "$W/log.txt" \
    && case_ok "a process with the mapping answers on ($LOOP_OK handshakes) while the lookup file is truncated and rewritten" \
    || { cat "$W/loop.out" "$W/loop.err"; case_fail truncated "exit $LOOP_RC, $LOOP_OK ok"; }
cp "$W/lookup.before" "$LOOKUP"
# 3b. Hostile askers: a request too long, then 1500 asking at once for the
#     set; the sharer copied the set once and serves the next process.
"$PY" - "$SHARE_SOCK" >"$W/flood.out" <<'PY'
import socket, sys
def ask(req):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(2)
    try:    # past the sharer's rate, closed unanswered
        s.connect(sys.argv[1])
        s.send(req)
        msg, anc, flags, _ = s.recvmsg(64, socket.CMSG_SPACE(16))
    except OSError:
        msg, anc = b"", []
    s.close()
    return msg, anc
msg, anc = ask(b"CRLCSHR1" + b"\0" * 100)
print("long", len(msg), len(anc))
import time
got, t0 = 0, int(time.time())
for i in range(1500):
    msg, anc = ask(b"CRLCSHR1" + bytes(8))
    got += len(anc)
    for a in anc:
        import array
        for fd in array.array("i", a[2]):
            __import__("os").close(fd)
# the sharer answers at most 1000 in each second of its clock
print("flood", got, min(1500, 1000 * (int(time.time()) - t0 + 1)))
PY
sleep 1.1       # the next second: answered again
verify good --set crlite_share="$SHARE_SOCK"
copies=$(grep -c 'copied' "$W/share.log")
read -r _ got most < <(grep '^flood' "$W/flood.out")
grep -q '^long 0 0$' "$W/flood.out" && [ "$got" -le "$most" ] && [ "$got" -ge 1 ] \
    && [ "$copies" = 1 ] && [ "$CLIENT_RC" = 0 ] && grep -q 'mapped from the sharer' "$W/said" \
    && case_ok "hostile askers: a long request unanswered, $got of 1500 burst answered (at most $most), one copy made; the next process maps" \
    || { cat "$W/flood.out" "$W/said"; case_fail flood "copies $copies"; }
share_stop

# 4. A sharer of another account: its copy is refused, the file read.
share_start setpriv --reuid=nobody --regid=nogroup --clear-groups
verify rev --set crlite_share="$SHARE_SOCK"
[ "$CLIENT_RC" != 0 ] && grep -q 'certificate is revoked (CRLite' "$W/said" \
    && grep -q "not shared: $SHARE_SOCK: served by uid $(id -u nobody)" "$W/said" \
    && case_ok "a sharer run by nobody: refused ($(grep -a -o 'served by uid [0-9]*' "$W/said")), the file read" \
    || { cat "$W/said" "$W/share.log"; case_fail other-uid "exit $CLIENT_RC"; }
share_stop

# 5. A socket that never answers: the process waits its 10 ms, no more.
rm -f "$SHARE_SOCK"
"$PY" -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(sys.argv[1]); s.listen(8)
time.sleep(60)' "$SHARE_SOCK" &
bg_register $!
for i in $(seq 100); do [ -S "$SHARE_SOCK" ] && break; sleep 0.05; done
t0=$(date +%s%N)
verify rev --set crlite_share="$SHARE_SOCK"
took=$(( ($(date +%s%N) - t0) / 1000000 ))
rc=$CLIENT_RC; cp "$W/said" "$W/silent.out"
t0=$(date +%s%N)
verify rev --set crlite_share=off
base=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$rc" != 0 ] && grep -q 'certificate is revoked (CRLite' "$W/silent.out" \
    && grep -q 'no answer within 10 ms' "$W/silent.out" && [ "$took" -lt $((base + 500)) ] \
    && case_ok "a sharer that never answers: ${took} ms (without the sharer ${base} ms), the file read" \
    || { cat "$W/silent.out"; case_fail silent "$took ms vs $base ms"; }
finish
