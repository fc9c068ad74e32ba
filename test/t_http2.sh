#!/usr/bin/env bash
# HTTP/2 for real: 200 CRLs on one https host, served by nginx with
# `listen ... ssl http2`, come in over HTTP/2 streams sharing at most
# `parallel` connections, several streams at once on one connection,
# and every CRL lands in the index; a second run with nothing changed
# gets its 304s the same way.  The fetcher trusts the test's TLS CA
# through the system bundle, replaced in a private mount namespace.
. "$(dirname "$0")/lib.sh"
need_crlcache
need_nginx
"$NGINX" -V 2>&1 | grep -q -- --with-http_v2_module || skip "nginx without the HTTP/2 module"
command -v "${CC:-gcc}" >/dev/null || skip "no C compiler for test/bench/scale_gen.c"
N=200
PARALLEL=2
# The bundle libcurl reads (Debian's libcurl4-openssl: curl-config --ca).
BUNDLE=$(curl-config --ca 2>/dev/null)
BUNDLE=${BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
[ -f "$BUNDLE" ] || skip "no CA bundle at $BUNDLE to stand in for"
umask 022

# ---------------------------------------------------------------- TLS
# A test CA and a server certificate for the address 127.0.0.1 (RFC 2818
# 3.1: a URL naming an IP address needs it as an iPAddress subjectAltName).
pki_root tls "/CN=crlcache HTTP2 test TLS CA" keytype=ec
_newkey ec "$W/server.key"
openssl req -new -key "$W/server.key" -subj "/CN=127.0.0.1" -out "$W/server.csr" \
    2>"$W/openssl.err" || { cat "$W/openssl.err" >&2; fail "server CSR"; }
printf '%s\n' "basicConstraints = critical,CA:FALSE" "keyUsage = critical,digitalSignature" \
    "extendedKeyUsage = serverAuth" "subjectAltName = IP:127.0.0.1" >"$W/server.ext"
openssl x509 -req -in "$W/server.csr" -CA "$PKI/tls/cert.pem" -CAkey "$PKI/tls/key.pem" \
    -set_serial 2 -days 2 -extfile "$W/server.ext" -out "$W/server.pem" 2>"$W/openssl.err" \
    || { cat "$W/openssl.err" >&2; fail "server certificate"; }
cp "$PKI/tls/cert.pem" "$W/bundle.pem"
# in_ns CMD...: CMD with the test CA as the only one the system trusts.
in_ns() {
    unshare -m sh -c 'mount --bind "$0" "$1" && shift && exec "$@"' \
        "$W/bundle.pem" "$BUNDLE" "$@"
}
in_ns true 2>"$W/unshare.err" || skip "cannot bind a CA bundle in a private mount namespace: $(head -n 1 "$W/unshare.err")"

# ---------------------------------------------------------------- CRLs
NGPORT=$(closed_port)
BASE=https://127.0.0.1:$NGPORT
nginx_dir
mkdir -m 755 "$NG/www"
# N partitions of one CA, each naming its URL (IDP): 10 entries each,
# but every 50th 50 entries served at 1 KB/s, so that each is open a
# second or two while the others go by (on its connection, if they share
# it at once).
SLOW='p(50|100|150|200)\.crl'
pki_root crl "/CN=crlcache HTTP2 test CRL issuer" keytype=ec
"${CC:-gcc}" -O2 -o "$W/scale_gen" "$TESTDIR/bench/scale_gen.c" $(pkg-config --cflags --libs libcrypto) \
    || fail "cannot build scale_gen"
this=$(now_epoch)
srcs=()
for i in $(seq 1 "$N"); do
    if [[ p$i.crl =~ ^$SLOW$ ]]; then e=50; else e=10; fi
    echo "$NG/www/p$i.crl $PKI/crl/cert.pem $PKI/crl/key.pem $e $i 1 $this $((this + 86400)) $BASE/p$i.crl"
    srcs+=("url = $BASE/p$i.crl")
done >"$W/plan"
(cd "$W" && ./scale_gen plan) || fail "scale_gen"

# ---------------------------------------------------------------- nginx
cp "$W/server.pem" "$W/server.key" "$NG/"
nginx_start "$NGPORT" "
    log_format proto '\$server_protocol \$connection \$connection_requests \$status \$uri \$msec \$request_time';
    access_log $NG/access.log proto;
    server {
        listen 127.0.0.1:$NGPORT ssl http2;
        ssl_certificate $NG/server.pem;
        ssl_certificate_key $NG/server.key;
        root $NG/www;
        location ~ ^/$SLOW\$ { limit_rate 1k; }
    }"

# requests WHAT FIRST STATUS: lines FIRST.. of the access log ($W/WHAT.log)
# are N answers STATUS, every one over HTTP/2, on at most PARALLEL
# connections.
requests() {
    local what=$1 from=$2 status=$3 conns most
    tail -n +"$from" "$NG/access.log" >"$W/$what.log"
    [ "$(wc -l <"$W/$what.log")" -eq "$N" ] || fail "$what: $(wc -l <"$W/$what.log") requests, not $N"
    if grep -qv '^HTTP/2\.0 ' "$W/$what.log"; then
        grep -v '^HTTP/2\.0 ' "$W/$what.log" | head -n 3 >&2
        fail "$what: requests not over HTTP/2"
    fi
    grep -qv "^HTTP/2\\.0 [0-9]* [0-9]* $status " "$W/$what.log" && fail "$what: answers other than $status"
    conns=$(awk '{ print $2 }' "$W/$what.log" | sort -u | wc -l)
    most=$(awk '{ print $3 }' "$W/$what.log" | sort -n | tail -n 1)
    note "$what: $N requests over HTTP/2 on $conns connection(s), up to $most on one"
    [ "$conns" -le "$PARALLEL" ] || fail "$what: $conns connections, more than parallel = $PARALLEL"
    [ "$most" -ge $((N / 2)) ] || fail "$what: no connection carried half the requests (at most $most)"
}
# beside WHAT: how many answers started on a slow answer's connection
# after it (a later $connection_requests) and ended while it was still
# open, a tenth of a second to spare for the log's rounding: streams at
# once.  One stream at a time, none could.
beside() {
    SLOW="^/$SLOW\$" awk '$5 ~ ENVIRON["SLOW"] { c[++n] = $2; o[n] = $3; e[n] = $6 }
        { conn[NR] = $2; ord[NR] = $3; end[NR] = $6 }
        END { for (j = 1; j <= NR; j++) for (i = 1; i <= n; i++)
                if (conn[j] == c[i] && ord[j] > o[i] && end[j] < e[i] - 0.1) { k++; break }
            print k + 0 }' "$W/$1.log"
}

# ---------------------------------------------------------------- update
write_conf "${srcs[@]}" "anchor = $PKI/crl/cert.pem" "parallel = $PARALLEL" \
    "retries = 0" "timeout = 60"
start=$(date +%s.%N)
in_ns "$CRLCACHE" --state-dir "$STATE" -c "$CONF" update >"$W/last.out" 2>"$W/last.err"
rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
[ "$rc" -eq 0 ] || { cat "$W/last.err" "$NG/error.log" >&2; fail "update over HTTP/2 failed (exit $rc)"; }
assert_grep "$N sources, $N updated, 0 unchanged, 0 failed" "$W/last.err"
requests first 1 200
along=$(beside first)
note "first update: $(printf '%.1f' "$secs") s; $along answers came and went on a slow one's connection while it was open"
[ "$along" -ge 10 ] || fail "no streams ran beside another on one connection: not multiplexed"
cc status >"$W/status.out" 2>&1
[ "$(grep -cE "^crl $BASE/p[0-9]+\\.crl scope=.* entries=(10|50) " "$W/status.out")" -eq "$N" ] ||
    { cat "$W/status.out" >&2; fail "not every CRL is in the index"; }
[ "$(grep -cE "^source $BASE/p[0-9]+\\.crl ok " "$W/status.out")" -eq "$N" ] ||
    { cat "$W/status.out" >&2; fail "not every source is ok"; }
case_ok "$N CRLs over HTTP/2, multiplexed on at most parallel = $PARALLEL connections, all in the index"

start=$(date +%s.%N)
in_ns "$CRLCACHE" --state-dir "$STATE" -c "$CONF" update >"$W/last.out" 2>"$W/last.err" ||
    { cat "$W/last.err" >&2; fail "second update failed"; }
secs=$(echo "$(date +%s.%N) - $start" | bc)
assert_grep "$N sources, 0 updated, $N unchanged, 0 failed" "$W/last.err"
requests again $((N + 1)) 304
note "second update: $(printf '%.1f' "$secs") s"
case_ok "nothing changed: $N answers 304 over HTTP/2, multiplexed"

# Outside the namespace the system does not trust the test CA: refused.
STATE=$W/untrusting
write_conf "url = $BASE/p1.crl" "anchor = $PKI/crl/cert.pem" "retries = 0"
cc update >"$W/last.out" 2>"$W/last.err" && fail "update trusted a server the system does not"
assert_grep -i "certificate" "$W/last.err"
case_ok "the server's certificate is verified against the system's CAs"
finish
