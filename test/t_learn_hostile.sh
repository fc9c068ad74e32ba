#!/usr/bin/env bash
# A peer cannot make a program wait.  The learning wait (learn_wait) is
# spent only where the fetcher can answer it: a peer that presents
# certificate chains of self-made CAs (one key, a fresh name each: they
# cost nothing to mint) makes no program wait and leaves no hint, while a
# never-met CA under a trust anchor is still waited for (t_learn_wait).
# The programs are the real ones whose verify callback goes on after a
# chain error, so that every signature of an untrusted chain is checked:
#   - nginx with ssl_verify_client and one worker: two attacker loops do
#     not move a legitimate client's latency by more than 0.1 s;
#   - a Node.js client (its callback always goes on) connecting to a
#     server that sends six self-made CAs: no freeze of its event loop.
# And the bounds on waits that can be answered but are not (a fast run
# that never comes): learn_wait per chain, however many of its issuers
# are new (the links below the one that waited wait only for what is
# left of that wait: nothing); a budget per process (two whole waits at once, then 1/30 of the
# time); none for a short-lived certificate without a distribution point
# (BR 4.9.1.1: it needs no CRL entry, and no CRL could list it); and none
# again for an issuer a fast run proved but could not cover.
# The learning marker is live throughout and no fetcher answers, so every
# wait that happens runs to its end: the worst case.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
need_nginx
command -v node >/dev/null || skip "node not installed (Debian package nodejs; test/deps.sh)"
httpd_start

LW=1000		# learn_wait, ms: the old provider's cost is a multiple of it
pki_root root "/CN=Hostile Test Root/O=crlcache tests"
ROOT=$PKI/root/cert.pem
pki_gencrl root "$W/root.crl"
serve "$W/root.crl" root.crl
pki_ca int root "/CN=Hostile Test Int/O=crlcache tests" cdp="$BASE_URL/root.crl"
prov_leaf srv int "srv.test" cdp="$BASE_URL/int.crl"
pki_gencrl int "$W/int.crl"
serve "$W/int.crl" int.crl
write_conf "anchor = $ROOT" "untrusted = $PKI/int/cert.pem" "allow_private_urls = yes" \
    "url = $BASE_URL/root.crl" "url = $BASE_URL/int.crl"
assert_exit 0 cc update
# The marker a fast run writes: a fetcher answers hints within seconds.
assert_exit 0 cc update --hints
MARK=$STATE/learning
[ -f "$MARK" ] && [ "$(stat -c %Y "$MARK")" -gt "$(now_epoch)" ] || fail "no live learning marker"
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
waited() { grep -c 'waited [0-9]* ms for crlcache to learn' "$1" || :; }
hints() { find "$STATE/hints" -type f | wc -l; }

# mint NAME K: a chain of K self-made CAs under one key, each a fresh
# name, the first self-signed, and a leaf (server and client use) under
# the last: $PKI/NAME.pem, NAME.key, NAME.chain.pem (the CAs, leaf side first).
mint() {
    local name=$1 k=$2 i prev
    [ -f "$PKI/mint.key" ] || _newkey ec "$PKI/mint.key"
    printf '[ ext ]\nbasicConstraints = critical,CA:TRUE\nkeyUsage = critical,keyCertSign,cRLSign\n' \
        >"$PKI/mint-ca.ext"
    openssl req -x509 -new -key "$PKI/mint.key" -subj "/CN=$name CA 1/O=Minted" -days 30 \
        -addext "basicConstraints=critical,CA:TRUE" -out "$PKI/$name-ca1.pem" 2>"$W/openssl.err" \
        || { cat "$W/openssl.err" >&2; fail "mint $name: root"; }
    for i in $(seq 2 "$k"); do
        prev=$PKI/$name-ca$((i - 1)).pem
        openssl req -new -key "$PKI/mint.key" -subj "/CN=$name CA $i/O=Minted" 2>/dev/null |
            openssl x509 -req -CA "$prev" -CAkey "$PKI/mint.key" -set_serial "$i" -days 30 \
                -extfile "$PKI/mint-ca.ext" -extensions ext -out "$PKI/$name-ca$i.pem" 2>"$W/openssl.err" \
            || { cat "$W/openssl.err" >&2; fail "mint $name: CA $i"; }
    done
    printf '[ ext ]\nbasicConstraints = critical,CA:FALSE\nkeyUsage = critical,digitalSignature\nextendedKeyUsage = serverAuth, clientAuth\nsubjectAltName = DNS:%s.test, IP:127.0.0.1\ncrlDistributionPoints = URI:%s/%s.crl\n' \
        "$name" "$BASE_URL" "$name" >"$PKI/$name.ext"
    _newkey ec "$PKI/$name.key"
    openssl req -new -key "$PKI/$name.key" -subj "/CN=$name.test" 2>/dev/null |
        openssl x509 -req -CA "$PKI/$name-ca$k.pem" -CAkey "$PKI/mint.key" -set_serial 77 -days 30 \
            -extfile "$PKI/$name.ext" -extensions ext -out "$PKI/$name.pem" 2>"$W/openssl.err" \
        || { cat "$W/openssl.err" >&2; fail "mint $name: leaf"; }
    : >"$PKI/$name.chain.pem"
    for i in $(seq "$k" -1 1); do cat "$PKI/$name-ca$i.pem" >>"$PKI/$name.chain.pem"; done
}

# ---------------------------------------------------------------- Node.js
# 1. A Node client meets a server sending six self-made CAs.
mint nodepeer 6
port=$(closed_port)
"$CRLCACHE" --state-dir "$STATE" exec --set log=stderr -- openssl s_server -accept "127.0.0.1:$port" \
    -www -naccept 100 -cert "$PKI/nodepeer.pem" -key "$PKI/nodepeer.key" \
    -cert_chain "$PKI/nodepeer.chain.pem" </dev/null >"$W/srv-node.log" 2>&1 &
bg_register $!
wait_port "$port" || fail "s_server did not start"
px --set learn_wait=$LW -- node -e '
const tls = require("tls"), fs = require("fs");
const t = process.hrtime.bigint();
const s = tls.connect({ host: "127.0.0.1", port: +process.argv[1], ca: fs.readFileSync(process.argv[2]),
                        servername: "nodepeer.test" });
const done = (what) => { console.log("node:", what, Number((process.hrtime.bigint() - t) / 1000000n), "ms"); s.destroy(); };
s.on("secureConnect", () => done("connected"));
s.on("error", (e) => done("refused " + e.code));' "$port" "$ROOT" >"$W/node.out" 2>&1
took=$(sed -n 's/^node: .* \([0-9]*\) ms$/\1/p' "$W/node.out")
[ -n "$took" ] && [ "$took" -lt $((LW / 2)) ] && [ "$(waited "$W/node.out")" = 0 ] && [ "$(hints)" = 0 ] \
    && grep -q 'refused SELF_SIGNED_CERT_IN_CHAIN' "$W/node.out" \
    && case_ok "node: a server with six self-made CAs is refused in $took ms, no wait, no hint" \
    || { cat "$W/node.out"; case_fail node "'$took' ms, $(waited "$W/node.out") waits, $(hints) hints"; }

# ---------------------------------------------------------------- nginx
# 2. nginx asks for client certificates (optional: every signature of a
#    presented chain is checked, its callback goes on); one worker.
NGPORT=$(closed_port)
nginx_dir
# Its workers run as nobody: the index, the marker and the spool must be
# theirs to reach, as under /var/lib/crlcache.
chmod 711 "$(dirname "$W")" "$W"
cp "$PKI/srv.pem" "$PKI/srv.key" "$ROOT" "$NG/"
cat "$PKI/int/cert.pem" >>"$NG/srv.pem"
chmod 644 "$NG"/*.pem "$NG/srv.key"
NGINX_WRAP="$CRLCACHE --state-dir $STATE exec --set log=stderr --set learn_wait=$LW --" \
nginx_start "$NGPORT" "
    access_log off;
    server {
        listen 127.0.0.1:$NGPORT ssl;
        ssl_certificate $NG/srv.pem;
        ssl_certificate_key $NG/srv.key;
        ssl_client_certificate $NG/cert.pem;
        ssl_verify_client optional;
        ssl_session_cache off;
        ssl_session_tickets off;
        location / { return 200 'ok \$ssl_client_verify'; }
    }"
# legit N: N requests of a client without a certificate, one at a time:
# their times in ms, sorted, in $W/legit.ms.
legit() {
    local i
    for i in $(seq 1 "$1"); do
        curl -sS --max-time 30 --cacert "$ROOT" -o /dev/null -w '%{time_total}\n' \
            "https://127.0.0.1:$NGPORT/" 2>>"$W/curl.err" || echo 99
        sleep 0.2
    done | awk '{ printf "%d\n", $1 * 1000 }' | sort -n >"$W/legit.ms"
}
median() { sed -n "$(( ($(wc -l <"$1") + 1) / 2 ))p" "$1"; }
legit 7; base=$(median "$W/legit.ms")
# Two attacker loops, each presenting fresh self-made chains, 8 CAs each.
for a in 1 2 3 4 5 6; do mint "atk$a" 8; done
attack() {  # attack LOOP: bounded in count and time
    local end=$(( $(date +%s) + 60 )) n
    for n in 1 2 3 4 5 6; do
        [ "$(date +%s)" -lt "$end" ] || break
        for a in $(seq "$1" 2 6); do
            openssl s_client -connect "127.0.0.1:$NGPORT" -CAfile "$ROOT" -cert "$PKI/atk$a.pem" \
                -key "$PKI/atk$a.key" -cert_chain "$PKI/atk$a.chain.pem" -quiet </dev/null \
                >/dev/null 2>&1
        done
    done
}
attack 1 & a1=$!; attack 2 & a2=$!
bg_register $a1; bg_register $a2
sleep 0.5
legit 7; under=$(median "$W/legit.ms"); worst=$(tail -n 1 "$W/legit.ms")
kill $a1 $a2 2>/dev/null; wait $a1 $a2 2>/dev/null
ngwait=$(waited "$W/nginx.out")
[ "$under" -le $((base + 100)) ] && [ "$worst" -lt "$LW" ] && [ "$ngwait" = 0 ] && [ "$(hints)" = 0 ] \
    && case_ok "nginx under two attacker loops: a request takes $under ms (worst $worst), $base ms without them; no wait, no hint" \
    || { cat "$W/legit.ms" "$W/nginx.out"; case_fail nginx "median $under ms (worst $worst) against $base ms, $ngwait waits, $(hints) hints"; }
grep -q 'verify' "$W/curl.err" 2>/dev/null && { cat "$W/curl.err"; case_fail nginx-legit "a legitimate request failed"; }

# ---------------------------------------------------------------- bounds
# vchains LEARN_WAIT PORT...: one python process connects to each
# s_server in turn (each sends a chain from a never-met CA), timing each
# handshake; -> $W/vchains.out.
vchains() {
    local lw=$1; shift
    px --set learn_wait="$lw" -- "$PY" -c '
import socket, ssl, sys, time
ctx = ssl.create_default_context(cafile=sys.argv[1])
ctx.check_hostname = False
for port in sys.argv[2:]:
    t = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", int(port))) as c:
            with ctx.wrap_socket(c) as s:
                r = "ok"
    except Exception as e:
        r = type(e).__name__
    print("chain %s %s %d ms" % (port, r, (time.monotonic() - t) * 1000), flush=True)
' "$ROOT" "$@" >"$W/vchains.out" 2>&1
}
# new_chain NAME DEPTH: DEPTH never-met CAs under the root (no CRL of
# them is held, nor will be: nobody answers), a leaf under the last,
# served by s_server; -> SRV_PORT_NAME.
new_chain() {
    local name=$1 depth=$2 i parent=root
    for i in $(seq 1 "$depth"); do
        pki_ca "$name$i" "$parent" "/CN=$name $i/O=crlcache tests" cdp="$BASE_URL/$parent.crl"
        parent=$name$i
    done
    prov_leaf "$name-leaf" "$parent" "$name.test" cdp="$BASE_URL/$parent.crl"
    for i in $(seq "$depth" -1 1); do cat "$PKI/$name$i/cert.pem"; done >"$PKI/$name-leaf.ca.pem"
    srv_start "$name" "$name-leaf"
}
# 3. learn_wait per chain: root -> N1 -> N2 -> N3 -> leaf, all never met
#    (the root's CRL covers N1; N2, N3 and the leaf are unknown).  N2's
#    wait runs to its end; N3 and the leaf, below it, have nothing left.
new_chain deep 3
rm -rf "$STATE/hints"/*
vchains $LW "$(srv_port deep)"
n=$(waited "$W/vchains.out")
took=$(sed -n 's/^chain .* ok \([0-9]*\) ms$/\1/p' "$W/vchains.out")
[ "$n" = 1 ] && [ -n "$took" ] && [ "$took" -lt $((LW + LW / 2)) ] \
    && case_ok "a chain of three never-met CAs: one learn_wait in all ($took ms), not one per CA" \
    || { cat "$W/vchains.out"; case_fail one-per-chain "$n waits, '$took' ms"; }
[ "$(hints)" -ge 1 ] || case_fail one-per-chain-hints "no hint left for a learnable chain"

# 4. The budget: four chains of different never-met CAs in one process,
#    nobody answering: two whole waits, then none.
for c in b1 b2 b3 b4; do new_chain "$c" 1; done
vchains $LW "$(srv_port b1)" "$(srv_port b2)" "$(srv_port b3)" "$(srv_port b4)"
n=$(waited "$W/vchains.out")
[ "$n" = 2 ] && [ "$(grep -c '^chain .* ok ' "$W/vchains.out")" = 4 ] \
    && case_ok "four new CAs in one process, nobody answering: two whole waits, then the budget is spent" \
    || { cat "$W/vchains.out"; case_fail budget "$n waits"; }

# 5. A short-lived certificate without a distribution point from a
#    never-met CA: answered at once, no hint.
pki_ca sl root "/CN=Short-lived CA/O=crlcache tests" cdp="$BASE_URL/root.crl"
_newkey ec "$PKI/sl-leaf.key"
printf '[ ext ]\nbasicConstraints = critical,CA:FALSE\nkeyUsage = critical,digitalSignature\nextendedKeyUsage = serverAuth\nsubjectAltName = DNS:sl.test, IP:127.0.0.1\ncertificatePolicies = %s\nauthorityKeyIdentifier = keyid\n' \
    "$CABF_DV" >"$PKI/sl-leaf.ext"
openssl req -new -key "$PKI/sl-leaf.key" -subj "/CN=sl.test" 2>/dev/null |
    openssl x509 -req -CA "$PKI/sl/cert.pem" -CAkey "$PKI/sl/key.pem" -set_serial 5 -days 5 \
        -extfile "$PKI/sl-leaf.ext" -extensions ext -out "$PKI/sl-leaf.pem" 2>"$W/openssl.err" \
    || { cat "$W/openssl.err" >&2; fail "short-lived leaf"; }
cp "$PKI/sl/cert.pem" "$PKI/sl-leaf.ca.pem"
srv_start sl sl-leaf
rm -rf "$STATE/hints"/*
t0=$(date +%s%N)
vchains $LW "$(srv_port sl)"
took=$(ms "$t0")
[ "$(waited "$W/vchains.out")" = 0 ] && [ "$(hints)" = 0 ] && grep -q '^chain .* ok ' "$W/vchains.out" \
    && [ "$took" -lt "$LW" ] \
    && case_ok "a short-lived certificate without a distribution point: no wait, no hint ($took ms)" \
    || { cat "$W/vchains.out"; case_fail short-lived "$(waited "$W/vchains.out") waits, $(hints) hints, $took ms"; }

# 6. An issuer the fetcher proves but cannot cover (its CRL is not
#    there): the fast run names it in the marker, and the next process
#    meeting it does not wait for it again.
new_chain dead 1
echo "untrusted = $PKI/dead1/cert.pem" >>"$CONF"
rm -rf "$STATE/hints"/*
hints_watch_start
vchains $LW "$(srv_port dead)"
first=$(waited "$W/vchains.out")
for _ in $(seq 1 100); do grep -q '^fast run: exit' "$W/fast.log" 2>/dev/null && break; sleep 0.1; done
hints_watch_stop
refused=$("$PY" -c '
import sys
b = open(sys.argv[1], "rb").read()
n = int.from_bytes(b[12:16], "big")
print(sum(1 for i in range(n) if b[16 + 33 * i + 32] == 2))' "$MARK")
t0=$(date +%s%N)
vchains $LW "$(srv_port dead)"
took=$(ms "$t0")
[ "$first" = 1 ] && [ "$refused" -ge 1 ] && [ "$(waited "$W/vchains.out")" = 0 ] && [ "$took" -lt "$LW" ] \
    && case_ok "an issuer whose CRL cannot be had: one wait, then named refused ($refused in the marker); the next process answers in $took ms" \
    || { cat "$W/vchains.out" "$W/fast.log"; case_fail refused "first $first waits, $refused refused, then $(waited "$W/vchains.out") waits, $took ms"; }
finish
