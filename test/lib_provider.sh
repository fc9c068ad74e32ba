# shellcheck shell=bash
# Helpers for the provider integration tests (t_provider_*.sh).  Source it
# after lib.sh:
#     . "$(dirname "$0")/lib.sh"
#     . "$(dirname "$0")/lib_provider.sh"
# Provides: px (run a program under `crlcache exec`), a python3 that uses the
# system libssl, TLS leaves with SANs (RSA or EC), s_server start/stop, and the
# TLS test PKI (good / revoked leaves, a revoked intermediate).

need_module
export CRLCACHE_MODULE=$MOD

# px [--set K=V]... -- PROGRAM ARGS...: run PROGRAM with the provider on, the
# test's state dir, and log=stderr (before the caller's --set, so they win).
px() {
    local sets=(--set log=stderr)
    while [ $# -gt 0 ] && [ "$1" != -- ]; do sets+=("$1"); shift; done
    [ "${1:-}" = -- ] && shift
    mkdir -p "$STATE"
    "$CRLCACHE" --state-dir "$STATE" exec "${sets[@]}" -- "$@"
}

# The provider must really be active: OpenSSL skips a broken module silently.
prov_assert_active() {
    px "$@" -- openssl list -providers >"$W/providers.out" 2>&1 \
        || { cat "$W/providers.out" >&2; fail "openssl list -providers failed under exec"; }
    grep -q 'crlcache revocation cache provider' "$W/providers.out" \
        || { cat "$W/providers.out" >&2; fail "crlcache provider not active under exec"; }
}

# A python3 whose ssl module uses the system's OpenSSL 3 (which reads OPENSSL_CONF).
PY=python3
for _p in /usr/bin/python3 python3; do
    if "$_p" -c 'import ssl,sys; sys.exit(0 if ssl.OPENSSL_VERSION.startswith("OpenSSL 3.") else 1)' 2>/dev/null; then
        PY=$_p; break
    fi
done
command -v "$PY" >/dev/null || skip "no python3"

# prov_leaf NAME CA CN [keytype=rsa|ec] [cdp=URL]: a TLS server leaf with
# subjectAltName DNS:CN, IP:127.0.0.1 -> $PKI/NAME.pem, $PKI/NAME.key,
# and $PKI/NAME.ca.pem (its CA certificate, the chain the server sends).
prov_leaf() {
    local name=$1 ca=$2 cn=$3 kt=ec a; shift 3
    local cdps=()
    for a in "$@"; do
        case $a in keytype=*) kt=${a#keytype=} ;; cdp=*) cdps+=("${a#cdp=}") ;; esac
    done
    _newkey "$kt" "$PKI/$name.key"
    openssl req -new -config "$(_req_conf utf8only)" -key "$PKI/$name.key" -subj "/CN=$cn" \
        -out "$PKI/$name.csr" 2>"$W/openssl.err" \
        || { cat "$W/openssl.err" >&2; fail "prov_leaf $name: req failed"; }
    {
        echo "[ ext ]"
        echo "basicConstraints = critical,CA:FALSE"
        if [ "$kt" = rsa ]; then
            echo "keyUsage = critical,digitalSignature,keyEncipherment"
        else
            echo "keyUsage = critical,digitalSignature"
        fi
        echo "extendedKeyUsage = serverAuth"
        echo "subjectKeyIdentifier = hash"
        echo "authorityKeyIdentifier = keyid"
        echo "subjectAltName = DNS:$cn, IP:127.0.0.1"
        _cdp_line ${cdps[@]+"${cdps[@]}"}
    } >"$PKI/$name.ext"
    _issue "$ca" "$PKI/$name.csr" "$PKI/$name.pem" "$PKI/$name.ext"
    cp "$PKI/$ca/cert.pem" "$PKI/$name.ca.pem"
}

# tls_pki: root (RSA) -> int (EC) and int2 (RSA, revoked by root's CRL).
#   Leaves: good_rsa, good_ec, rev_rsa, rev_ec (int; rev_* revoked by int's
#   CRL), under2_rsa, under2_ec (int2, good in int2's CRL).
#   CRLs: $W/root.crl $W/int.crl $W/int2.crl (DER).  Nothing is imported.
tls_pki() {
    local u=http://127.0.0.1:9 kt
    pki_root root "/CN=Prov Test Root/O=crlcache tests"
    pki_ca int root "/CN=Prov Test Int/O=crlcache tests" cdp=$u/root.crl keytype=ec
    pki_ca int2 root "/CN=Prov Test Int 2/O=crlcache tests" cdp=$u/root.crl keytype=rsa
    for kt in rsa ec; do
        prov_leaf "good_$kt" int "good-$kt.test" keytype=$kt cdp=$u/int.crl
        prov_leaf "rev_$kt" int "rev-$kt.test" keytype=$kt cdp=$u/int.crl
        prov_leaf "under2_$kt" int2 "under2-$kt.test" keytype=$kt cdp=$u/int2.crl
        pki_revoke int "$PKI/rev_$kt.pem" reason=keyCompromise
    done
    pki_revoke root "$PKI/int2/cert.pem" reason=CACompromise
    pki_gencrl int "$W/int.crl"
    pki_gencrl int2 "$W/int2.crl"
    pki_gencrl root "$W/root.crl"
    cat "$PKI/int/cert.pem" "$PKI/int2/cert.pem" >"$W/untrusted.pem"
    ROOT=$PKI/root/cert.pem
}
tls_import() {  # tls_import [CRL...] (default: the three CRLs of tls_pki)
    [ $# -gt 0 ] || set -- "$W/int.crl" "$W/int2.crl" "$W/root.crl"
    [ -f "$CONF" ] || write_conf "# provider test"
    assert_exit 0 cc import --anchor "$ROOT" --untrusted "$W/untrusted.pem" "$@"
}
# tls_ready: tls_pki, its three CRLs imported, the provider active.
tls_ready() {
    tls_pki
    tls_import
    prov_assert_active
}

# ---------------------------------------------------------------- s_server
# srv_start NAME CERTBASE [exec --set args...]: openssl s_server -www on
# 127.0.0.1 presenting $PKI/CERTBASE.pem + its CA, run under `crlcache exec` (the
# server signs with the provider loaded).  Sets SRV_PORT_<NAME>.
srv_start() {
    local name=$1 base=$2 port pid i try; shift 2
    for try in 1 2 3 4 5; do
        port=$(closed_port)
        mkdir -p "$STATE"
        # Not through px: $! must be the server itself (exec keeps the pid).
        "$CRLCACHE" --state-dir "$STATE" exec --set log=stderr "$@" -- \
            openssl s_server -accept "127.0.0.1:$port" -www -naccept 1000 \
            -cert "$PKI/$base.pem" -cert_chain "$PKI/$base.ca.pem" -key "$PKI/$base.key" \
            </dev/null >"$W/srv-$name.log" 2>&1 &
        pid=$!
        bg_register "$pid"
        for i in $(seq 1 100); do
            grep -q '^ACCEPT' "$W/srv-$name.log" 2>/dev/null && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.05
        done
        if grep -q '^ACCEPT' "$W/srv-$name.log" 2>/dev/null && kill -0 "$pid" 2>/dev/null; then
            printf -v "SRV_PORT_$name" '%s' "$port"
            printf -v "SRV_PID_$name" '%s' "$pid"
            return 0
        fi
        kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    done
    cat "$W/srv-$name.log" >&2
    fail "s_server $name did not start"
}
srv_port() { local v="SRV_PORT_$1"; echo "${!v}"; }

# ---------------------------------------------------------------- clients
# Each client helper: CLIENT_RC, and $W/client.out with everything it printed.
# cl_sclient PORT 1.2|1.3 [exec args]
cl_sclient() {
    local port=$1 v=$2; shift 2
    px "$@" -- openssl s_client -connect "127.0.0.1:$port" -verify_return_error \
        -CAfile "$ROOT" "-tls1_${v#1.}" -servername localhost </dev/null >"$W/client.out" 2>&1
    CLIENT_RC=$?
}
# cl_verify CERT [exec args]
cl_verify() {
    local cert=$1; shift
    px "$@" -- openssl verify -CAfile "$ROOT" -untrusted "$W/untrusted.pem" "$cert" \
        >"$W/client.out" 2>&1
    CLIENT_RC=$?
}
# cl_curl PORT 1.2|1.3 [exec args]
cl_curl() {
    local port=$1 v=$2; shift 2
    px "$@" -- curl -sS --max-time 20 --cacert "$ROOT" "--tlsv$v" --tls-max "$v" \
        -o "$W/curl.body" "https://127.0.0.1:$port/" >"$W/client.out" 2>&1
    CLIENT_RC=$?
}
# cl_python PORT 1.2|1.3 [exec args]
cl_python() {
    local port=$1 v=$2; shift 2
    px "$@" -- "$PY" -c '
import ssl, sys, urllib.request
port, ver, cafile = sys.argv[1], sys.argv[2], sys.argv[3]
ctx = ssl.create_default_context(cafile=cafile)
v = ssl.TLSVersion.TLSv1_2 if ver == "1.2" else ssl.TLSVersion.TLSv1_3
ctx.minimum_version = ctx.maximum_version = v
try:
    with urllib.request.urlopen("https://127.0.0.1:%s/" % port, context=ctx, timeout=20) as r:
        print("python: HTTP", r.status, "bytes", len(r.read()))
except Exception as e:
    print("python:", type(e).__name__ + ":", e)
    sys.exit(1)
' "$port" "$v" "$ROOT" >"$W/client.out" 2>&1
    CLIENT_RC=$?
}

# cl_node PORT [exec args]: Node.js https.get (its own OpenSSL reads
# nodejs_conf); NODE_ENV_CONF, when set, is the OPENSSL_CONF node gets
# without `crlcache exec` (a config `crlcache enable` edited).
cl_node() {
    local port=$1; shift
    local js='
const https = require("https"), fs = require("fs");
const [port, cafile] = process.argv.slice(1);
https.get({ host: "127.0.0.1", port: +port, path: "/", ca: fs.readFileSync(cafile),
            timeout: 20000 }, (r) => {
    let n = 0; r.on("data", (d) => { n += d.length; });
    r.on("end", () => console.log("node: HTTP", r.statusCode, "bytes", n));
}).on("error", (e) => { console.log("node:", e.code, e.message); process.exitCode = 1; });'
    if [ -n "${NODE_ENV_CONF:-}" ]; then
        OPENSSL_CONF=$NODE_ENV_CONF node -e "$js" "$port" "$ROOT" >"$W/client.out" 2>&1
    else
        px "$@" -- node -e "$js" "$port" "$ROOT" >"$W/client.out" 2>&1
    fi
    CLIENT_RC=$?
}
# node_provider_active REVOKED_PORT [node option]: is the provider active
# inside node under exec?  In audit mode it accepts the revoked server but
# says so on stderr: that line proves it is loaded.  Output: $W/probe.out.
node_provider_active() {
    local port=$1; shift
    px --set mode=audit -- node "$@" -e '
const tls = require("tls"), fs = require("fs");
const s = tls.connect({ host: "127.0.0.1", port: +process.argv[1],
    ca: fs.readFileSync(process.argv[2]) }, () => s.end());
s.on("error", () => {});' "$port" "$ROOT" >"$W/probe.out" 2>&1
    grep -q 'crlcache: certificate is revoked (audit' "$W/probe.out"
}
# cl_wget PORT [exec args]
cl_wget() {
    local port=$1; shift
    px "$@" -- wget -q -T 20 -t 1 --ca-certificate="$ROOT" -O "$W/wget.body" \
        "https://127.0.0.1:$port/" >"$W/client.out" 2>&1
    CLIENT_RC=$?
}

# The line of a client's output that says why (for the test log).
client_words() {
    case $1 in
        s_client) grep -E 'verify error|Verify return code|:error:' "$W/client.out" | head -4 ;;
        verify)   grep -Ev '^crlcache: ' "$W/client.out" | head -4 ;;
        curl)     grep -E '^curl: ' "$W/client.out" | head -2 ;;
        python)   grep -E '^python: ' "$W/client.out" | head -2 ;;
        node)     grep -E '^node: ' "$W/client.out" | head -2 ;;
        *)        grep -Ev '^crlcache: ' "$W/client.out" | head -2 ;;
    esac
}

# ---------------------------------------------------------------- an index switched under a running process
# tls_loop PORT SECS [exec args]: test/tls_loop.py under the provider in the
# background (TLS_LOOP_PID): a fresh handshake to PORT every 0.2 s for SECS
# seconds, one line per try in $W/loop.out, the provider's words in $W/loop.err.
tls_loop() {
    local port=$1 secs=$2; shift 2
    px "$@" -- "$PY" "$TESTDIR/tls_loop.py" "$port" "$ROOT" "$secs" \
        >"$W/loop.out" 2>"$W/loop.err" &
    TLS_LOOP_PID=$!
    bg_register "$TLS_LOOP_PID"
}
# lookup_abused_under_loop LOOKUP PORT [--set ...]: tls_loop against PORT
# for 4 s while the crlcache account truncates the CRLite lookup file
# LOOKUP, then rewrites it with noise (its bytes kept in
# $W/lookup.before).  LOOP_RC and LOOP_OK: the loop's exit and its "ok"
# handshakes; returns 0 when it exited 0 with at least 10, all "ok".
lookup_abused_under_loop() {
    local lookup=$1 port=$2; shift 2
    cp "$lookup" "$W/lookup.before"
    tls_loop "$port" 4 "$@"
    sleep 1.2
    truncate -s 10 "$lookup"
    sleep 1
    head -c "$(stat -c %s "$W/lookup.before")" /dev/zero | tr '\0' '\377' >"$W/noise"
    dd if="$W/noise" of="$lookup" conv=notrunc status=none
    wait "$TLS_LOOP_PID"; LOOP_RC=$?
    LOOP_OK=$(grep -c ' ok$' "$W/loop.out" || :)
    [ "$LOOP_RC" = 0 ] && [ "$LOOP_OK" -ge 10 ] && ! grep -qv ' ok$' "$W/loop.out"
}
# tls_loop_judge T_PUB MIN: "ok" before T_PUB, "refused" from at most 5 s
# after it, no error, no ok once refused, at least MIN of each; prints the
# counts, returns 0 when all hold.
tls_loop_judge() {
    awk -v tp="$1" -v min="$2" '
        $2 == "error" { err++ }
        $1 < tp && $2 == "ok" { before_ok++ }
        $2 == "refused" { if (!first) first = $1; ref++ }
        $2 == "ok" && first { ok_after++ }
        $1 > tp + 5 && $2 == "ok" { late_ok++ }
        END {
            printf "before_ok=%d refused=%d errors=%d ok_after_refusal=%d late_ok=%d switch_after=%.2fs\n",
                before_ok, ref, err, ok_after, late_ok, first ? first - tp : -1
            exit !(before_ok >= min && ref >= min && err == 0 && ok_after == 0 && late_ok == 0)
        }' "$W/loop.out"
}

# ---------------------------------------------------------------- the provider's log
# log_receiver read|stall: a datagram socket $SOCK (= $W/log.sock) that the
# provider logs to instead of syslog (the test-only CRLCACHE_TEST_SYSLOG_SOCKET,
# provider/log.c, exported here).  read: every datagram a line of $W/log.txt;
# stall: never read, its queue filled as a stuck logger leaves it.
log_receiver() {
    SOCK=$W/log.sock
    export CRLCACHE_TEST_SYSLOG_SOCKET=$SOCK
    rm -f "$SOCK" "$W/log.txt"
    "$PY" - "$SOCK" "$1" "$W/log.txt" <<'PY' &
import os, socket, sys, time
path, mode, out = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
if mode == "stall":
    # fill the queue as a stuck logger leaves it: further sends would block
    c = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    c.setblocking(False)
    try:
        while True:
            c.sendto(b"<14>filler: x", path)
    except BlockingIOError:
        pass
    open(out, "w").close()
    time.sleep(3600)
with open(out, "w") as f:
    while True:
        f.write(s.recv(4096).decode(errors="replace") + "\n")
        f.flush()
PY
    bg_register $!
    for _ in $(seq 1 100); do [ -S "$SOCK" ] && [ -e "$W/log.txt" ] && return 0; sleep 0.05; done
    fail "log receiver did not start"
}

# ---------------------------------------------------------------- a lookup that fails
# index_break_lookups: leave $STATE/index.mdb so that it still passes every
# check at open but each lookup of a revocation fails for real inside the
# index reader (crlc_index_lookup returns -1): the scope files are removed;
# the top opens, and the first lookup that maps a scope (lazily) fails.
index_break_lookups() {
    printf 'CRLCTOP\n' | cmp -s -n 8 - "$STATE/index.mdb" ||
        fail "index_break_lookups: $STATE/index.mdb is not a format 3 top file"
    rm -f "$STATE"/scope/[0-9a-f]*
}

# ---------------------------------------------------------------- the spool's watcher
# hints_watch_start: what crlcache-hints.path does, without systemd: when
# the spool is not empty, run the command line of crlcache-hints.service
# (read from the unit), then hold for its ExecStopPost pause.  Each run's
# output and "fast run: exit N, MS ms" go to $W/fast.log.  The loop sleeps
# without a child process (read on a FIFO nobody writes) and is killed at
# the end.  hints_watch_stop ends it.
hints_watch_start() {
    local unit=$TESTDIR/../systemd/crlcache-hints.service
    HINTS_ARGS=$(sed -n 's|^ExecStart=@BINDIR@/crlcache ||p' "$unit")
    HINTS_PAUSE=$(sed -n "s|^ExecStopPost=.*exec /bin/sleep \([0-9]*\)'\$|\1|p" "$unit")
    [ "$HINTS_ARGS" = "update --hints" ] && [ -n "$HINTS_PAUSE" ] ||
        fail "unexpected crlcache-hints.service: '$HINTS_ARGS' '$HINTS_PAUSE'"
    [ -p "$W/never" ] || { mkfifo "$W/never"; exec 9<>"$W/never"; }
    _watch_spool & HINTS_WATCH_PID=$!
    bg_register "$HINTS_WATCH_PID"
}
_nap() { read -rt "$1" -u 9 || :; }
_watch_spool() {
    while :; do
        if [ -n "$(ls -A "$STATE/hints" 2>/dev/null)" ]; then
            local s; s=$(date +%s%N)
            # shellcheck disable=SC2086
            "$CRLCACHE" --state-dir "$STATE" -c "$CONF" -v $HINTS_ARGS >>"$W/fast.log" 2>&1
            echo "fast run: exit $?, $(( ($(date +%s%N) - s) / 1000000 )) ms" >>"$W/fast.log"
            _nap "$HINTS_PAUSE"
        fi
        _nap "${HINTS_POLL:-0.1}"
    done
}
hints_watch_stop() {
    kill "$HINTS_WATCH_PID" 2>/dev/null; wait "$HINTS_WATCH_PID" 2>/dev/null || :
}
