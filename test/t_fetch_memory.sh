#!/usr/bin/env bash
# The bodies in flight are bounded: 40 CRLs of 2.9 MB, each held back by
# the server for half a second before its last byte, would all be in
# memory at once (64 transfers run together: 115 MB); with max_size =
# 4 MiB the transfers hold at most four max_size bodies at once (16 MiB),
# the others waiting their turn, and every CRL still arrives whole.
# Small CRLs among them never wait: their first 64 KiB are not counted.
. "$(dirname "$0")/lib.sh"
need_crlcache
[ -x /usr/bin/time ] || skip "no /usr/bin/time to measure the peak RSS"
N=40
SMALL=20
ENTRIES=80000

pki_root root "/CN=Memory Root/O=crlcache tests"
pki_ca int root "/CN=Memory CA/O=crlcache tests"
pki_bulk_revoked "$W/db.txt" "$ENTRIES"
pki_gencrl int "$W/big.crl" db="$W/db.txt"
pki_gencrl root "$W/small.crl"
size=$(stat -c %s "$W/big.crl")
httpd_start
srcs=()
for i in $(seq 1 "$N"); do
    ln "$W/big.crl" "$HTTPD_ROOT/c$i.crl" 2>/dev/null || cp "$W/big.crl" "$HTTPD_ROOT/c$i.crl"
    srcs+=("url = $BASE_URL/hold/c$i.crl")
done
for i in $(seq 1 "$SMALL"); do
    cp "$W/small.crl" "$HTTPD_ROOT/s$i.crl"
    srcs+=("url = $BASE_URL/hold/s$i.crl")
done
write_conf "${srcs[@]}" "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem" \
    "max_size = 4194304" "parallel = 64" "retries = 0" "timeout = 30"
start=$(date +%s.%N)
/usr/bin/time -f '%M' -o "$W/rss" "$CRLCACHE" --state-dir "$STATE" -c "$CONF" -vv \
    update >"$W/last.out" 2>"$W/last.err" || { cat "$W/last.err"; fail "update failed"; }
secs=$(echo "$(date +%s.%N) - $start" | bc)
# The same two CRLs at every URL: the first of each is new, the others unchanged.
assert_grep "$((N + SMALL)) sources, 2 updated, $((N + SMALL - 2)) unchanged, 0 failed" "$W/last.err"
waited=$(grep -c 'waits for [0-9]* bytes of memory' "$W/last.err")
rss=$(tail -n 1 "$W/rss")
note "peak RSS ${rss} KB, ${secs%.*} s for $N CRLs of $size bytes in flight; $waited waits for memory"
[ "$rss" -lt $((64 * 1024)) ] || fail "peak RSS $rss KB: the bodies in flight were not bounded"
[ "$waited" -gt 0 ] || fail "no transfer waited for memory: the CRLs were not in flight at once"
assert_not_grep '/s[0-9]+\.crl: waits for' "$W/last.err"
finish
