#!/usr/bin/env bash
# A damaged index never crashes a program that reads it (format 3,
# format.h READER CHECKS).  The top file (index.mdb): truncated
# anywhere, garbage over its head, and 300 random single-bit flips -- each
# refused: `crlcache check` of a revoked leaf exits 4 naming the index,
# `openssl verify` (every tenth trial, and every truncation) passes through
# with exactly one notice, `crlcache status` exits without a signal.  Scope
# files: every file truncated at several points and 300 random bit flips
# anywhere in them -- no program dies of a signal, and a truncation of the
# scope that covers the leaf makes the lookup fail (check exit 4).  Then
# `cp` of another index over index.mdb (in place: O_TRUNC and write, the
# reader sees it half written), back and forth, while one process
# verifies TLS handshakes in a tight loop and fresh `openssl verify`
# processes start in another: none dies, every handshake succeeds (a
# long-running process keeps the generation it has open when the new
# content is refused).
# Not covered (format.h, the residual risk): a scope file rewritten in
# place, not renamed, while a program has it mapped.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
tls_pki
tls_import
good=$W/good.top
cp "$STATE/index.mdb" "$good"
cp -a "$STATE/scope" "$W/good.scope"
size=$(stat -c %s "$good")
nscope=$(ls "$W/good.scope" | wc -l)
[ "$nscope" -ge 3 ] || fail "$nscope scope files: expected one per CRL"
note "top file $size bytes, $nscope scope files"

signalled() { [ "$1" -ge 128 ]; }
CHECK=("$CRLCACHE" --state-dir "$STATE" -c "$CONF" check "$PKI/rev_ec.pem")
VERIFY=("$CRLCACHE" --state-dir "$STATE" exec --set log=stderr -- openssl verify
    -CAfile "$ROOT" -untrusted "$W/untrusted.pem" "$PKI/rev_ec.pem")

# the good index: the revoked leaf is refused, so what passes through
# below does so because of the damage, not for want of a usable index
good_refuses() {
    cl_verify "$PKI/rev_ec.pem"
    [ "$CLIENT_RC" -ne 0 ] && ! signalled "$CLIENT_RC" && case_ok "$1: revoked leaf refused" \
        || { cat "$W/client.out"; case_fail "$1" "revoked leaf not refused with the good index"; }
}
good_refuses good

# ---- the top file: truncations and garbage, each judged by every reader
top_case() {    # top_case NAME: index.mdb holds a damaged top
    local kind=$1 rc n
    "${VERIFY[@]}" >"$W/v.out" 2>&1; rc=$?
    n=$(grep -c '^crlcache: index ' "$W/v.out")
    if signalled "$rc"; then
        case_fail "$kind" "openssl verify died of signal $((rc - 128))"
    elif [ "$rc" -ne 0 ] || [ "$n" -ne 1 ]; then
        cat "$W/v.out"; case_fail "$kind" "verify exit $rc with $n notices, expected pass-through with one"
    fi
    "${CHECK[@]}" >"$W/check.out" 2>&1; rc=$?
    if [ "$rc" -ne 4 ] || ! grep -q 'index.mdb' "$W/check.out"; then
        cat "$W/check.out"; case_fail "$kind" "check exit $rc, expected 4 and the index named"
    fi
    cc status >"$W/status.out" 2>&1; rc=$?
    signalled "$rc" && case_fail "$kind" "status died of signal $((rc - 128))"
    return 0
}
cuts="0 1 8 63 64 100 $((size / 3)) $((size / 2)) $((size - 9)) $((size - 8)) $((size - 1))"
for cut in $cuts; do
    head -c "$cut" "$good" >"$STATE/index.mdb"
    top_case "cut-$cut"
done
{ head -c 64 /dev/urandom; tail -c +65 "$good"; } >"$STATE/index.mdb"
top_case headgarbage
{ head -c $((size - 8)) "$good"; head -c 8 /dev/urandom; } >"$STATE/index.mdb"
top_case trailergarbage
{ cat "$good"; printf x; } >"$STATE/index.mdb"
top_case longer
case_ok "top: $(echo "$cuts" | wc -w) truncations, garbage over head and trailer, one byte more: refused by all"

# ---- random bit flips: TRIALS in one driver, the readers run from it
cat >"$W/flip.py" <<'EOF'
import os, random, subprocess, sys
mode, state, src, trials, seed = sys.argv[1:6]
args = sys.argv[6:]        # CHECK... -- VERIFY... (VERIFY has its own --)
check, verify = args[:args.index("--")], args[args.index("--") + 1:]
rng = random.Random(int(seed))
def put(path, data):
    tmp = path + ".flip"
    with open(tmp, "wb") as f:
        f.write(data)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
names = sorted(os.listdir(src)) if mode == "scope" else [None]
count = {}
bad = 0
for i in range(int(trials)):
    name = rng.choice(names)
    orig = open(os.path.join(src, name) if name else src, "rb").read()
    b = bytearray(orig)
    pos = rng.randrange(len(b))
    b[pos] ^= 1 << rng.randrange(8)
    dst = os.path.join(state, "scope", name) if name else os.path.join(state, "index.mdb")
    put(dst, bytes(b))
    r = subprocess.run(check, capture_output=True)
    count[r.returncode] = count.get(r.returncode, 0) + 1
    if r.returncode < 0 or r.returncode >= 128:
        print(f"trial {i}: check died of signal ({r.returncode}) after a flip at {name}:{pos}")
        bad += 1
    elif mode == "top" and (r.returncode != 4 or b"index.mdb" not in r.stderr + r.stdout):
        print(f"trial {i}: check exit {r.returncode}, expected 4 naming the index (flip at {pos})")
        bad += 1
    if i % 10 == 0:
        v = subprocess.run(verify, capture_output=True)
        notices = sum(1 for l in v.stderr.splitlines() if l.startswith(b"crlcache: index "))
        if v.returncode < 0 or v.returncode >= 128:
            print(f"trial {i}: openssl verify died of signal ({v.returncode}) after a flip at {name}:{pos}")
            bad += 1
        elif mode == "top" and (v.returncode != 0 or notices != 1):
            print(f"trial {i}: verify exit {v.returncode} with {notices} notices, expected pass-through with one")
            bad += 1
    if name:
        put(dst, orig)
print("check exits: " + ", ".join(f"{k}: {v}" for k, v in sorted(count.items())))
sys.exit(1 if bad else 0)
EOF
TRIALS=300
if "$PY" "$W/flip.py" top "$STATE" "$good" "$TRIALS" 1 "${CHECK[@]}" -- "${VERIFY[@]}" >"$W/flip-top.out" 2>&1; then
    case_ok "top: $TRIALS random bit flips refused, no reader died ($(tail -n1 "$W/flip-top.out"))"
else
    cat "$W/flip-top.out"; case_fail flip-top "a flipped top was not refused or a reader died"
fi
cp "$good" "$STATE/index.mdb"
good_refuses good-again

# ---- scope files: truncations of each, then random bit flips anywhere
fails=0 died=0
for f in "$W"/good.scope/*; do
    name=$(basename "$f") fsize=$(stat -c %s "$f")
    for cut in 0 50 96 $((fsize / 2)) $((fsize - 1)); do
        head -c "$cut" "$f" >"$STATE/scope/$name.cut" && chmod 644 "$STATE/scope/$name.cut"
        mv -f "$STATE/scope/$name.cut" "$STATE/scope/$name"
        "${CHECK[@]}" >"$W/check.out" 2>&1; rc=$?
        signalled "$rc" && { died=$((died + 1)); cat "$W/check.out"; }
        [ "$rc" -eq 4 ] && fails=$((fails + 1))
        "${VERIFY[@]}" >"$W/v.out" 2>&1; rc=$?
        signalled "$rc" && { died=$((died + 1)); cat "$W/v.out"; }
    done
    cp -p "$f" "$STATE/scope/$name"
done
if [ "$died" -ne 0 ]; then
    case_fail scope-cut "$died reader(s) died of a signal"
elif [ "$fails" -lt 5 ]; then
    case_fail scope-cut "only $fails check(s) failed: the covering scope's truncations should all fail the lookup"
else
    case_ok "scope: 5 truncations of each of $nscope files, no reader died, $fails lookups failed (check exit 4)"
fi
if "$PY" "$W/flip.py" scope "$STATE" "$W/good.scope" "$TRIALS" 2 "${CHECK[@]}" -- "${VERIFY[@]}" >"$W/flip-scope.out" 2>&1; then
    case_ok "scope: $TRIALS random bit flips, no reader died ($(tail -n1 "$W/flip-scope.out"))"
else
    cat "$W/flip-scope.out"; case_fail flip-scope "a reader died"
fi
good_refuses good-scopes-restored

# ---- cp of another index over index.mdb while programs verify
# other: the same PKI without int2's CRL (another top, other scope ids);
# its scope files join ours (content-addressed names: nothing is replaced)
OTHER=$W/other
"$CRLCACHE" --state-dir "$OTHER" -c "$CONF" import --anchor "$ROOT" \
    --untrusted "$W/untrusted.pem" "$W/int.crl" "$W/root.crl" >"$W/other.out" 2>&1 ||
    { cat "$W/other.out"; fail "import of the other index"; }
cmp -s "$good" "$OTHER/index.mdb" && fail "the other index is the same file"
cp -p "$OTHER"/scope/* "$STATE/scope/"
srv_start srv good_ec
cat >"$W/spin.py" <<'EOF'
import socket, ssl, sys, time
port, root, secs = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
ok = err = 0
end = time.time() + secs
while time.time() < end and ok + err < 900:    # s_server -naccept 1000
    ctx = ssl.create_default_context(cafile=root)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
                s.sendall(b"GET / HTTP/1.0\r\n\r\n"); s.recv(64)
        ok += 1
        time.sleep(0.005)   # spread the handshakes over the rewrites
    except Exception as e:
        err += 1
        print(f"error {type(e).__name__}: {e}", flush=True)
print(f"ok={ok} errors={err}", flush=True)
EOF
SECS=12
px -- "$PY" "$W/spin.py" "$(srv_port srv)" "$ROOT" "$SECS" >"$W/spin.out" 2>"$W/spin.err" &
spin=$!
bg_register "$spin"
( end=$((SECONDS + SECS)) died=0 runs=0
  while [ "$SECONDS" -lt "$end" ]; do
      px -- openssl verify -CAfile "$ROOT" -untrusted "$W/untrusted.pem" \
          "$PKI/good_ec.pem" >/dev/null 2>&1; rc=$?
      runs=$((runs + 1)); signalled "$rc" && died=$((died + 1))
  done
  echo "runs=$runs died=$died" >"$W/procs.out" ) &
procs=$!
sleep 1
copies=0 end=$((SECONDS + SECS - 2))
while [ "$SECONDS" -lt "$end" ]; do
    cp "$OTHER/index.mdb" "$STATE/index.mdb"        # O_TRUNC + write: same inode
    sleep 0.1
    cp "$good" "$STATE/index.mdb"
    sleep 0.1
    head -c $((size / 2)) "$good" >"$STATE/index.mdb"   # left truncated a while
    sleep 0.3
    copies=$((copies + 3))
done
cp "$good" "$STATE/index.mdb"
wait "$spin"; rc=$?
wait "$procs"
spun=$(tail -n1 "$W/spin.out")
if signalled "$rc"; then
    case_fail cp-spin "the verifying process died of signal $((rc - 128))"
elif ! [[ "$spun" =~ ^ok=([0-9]+)\ errors=0$ ]] || [ "${BASH_REMATCH[1]}" -lt 20 ]; then
    cat "$W/spin.out" "$W/spin.err"; case_fail cp-spin "expected many handshakes, all ok: $spun"
else
    case_ok "cp-spin: $copies in-place rewrites of index.mdb, one process verified $spun"
fi
if grep -q 'died=0' "$W/procs.out"; then
    case_ok "cp-procs: fresh openssl verify processes meanwhile, none died ($(cat "$W/procs.out"))"
else
    cat "$W/procs.out"; case_fail cp-procs "an openssl verify died of a signal"
fi
good_refuses good-after-cp
finish
