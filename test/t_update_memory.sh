#!/usr/bin/env bash
# update verifies, ingests and frees each transfer as it completes: with many sizeable sources, peak memory stays near what the
# transfers in flight hold, not the sum of every body.  40 URLs on the
# loopback server serve a signed CRL of about 4 MB each; `parallel = 4`.
# Holding every body until all transfers end (the old behaviour) needs
# 40 x 4 MB = 160 MB for the bodies alone; the bound below is half of that.
. "$(dirname "$0")/lib.sh"
need_crlcache
command -v /usr/bin/time >/dev/null 2>&1 || skip "/usr/bin/time not installed (package time)"
SOURCES=40
ENTRIES=100000   # about 4 MB of DER with reason codes
httpd_start
pki_root root "/CN=Memory Root/O=crlcache tests"
pki_ca int root "/CN=Memory Int/O=crlcache tests"
pki_bulk_revoked "$PKI/int/index.txt" "$ENTRIES"
pki_gencrl int "$W/big.crl"
size=$(stat -c %s "$W/big.crl")
[ "$size" -gt 3000000 ] || fail "test CRL is only $size bytes"
urls=()
for ((i = 0; i < SOURCES; i++)); do
    serve "$W/big.crl" "c$i.crl"
    urls+=("url = $BASE_URL/c$i.crl")
done
write_conf "${urls[@]}" "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem" \
    "enroll = none" "parallel = 4" "timeout = 120"

/usr/bin/time -f '%M' -o "$W/maxrss" "$CRLCACHE" --state-dir "$STATE" -c "$CONF" update \
    >"$W/out" 2>"$W/last.err" || { cat "$W/last.err" >&2; fail "update failed"; }
assert_grep "update: $SOURCES sources, 1 updated, $((SOURCES - 1)) unchanged, 0 failed" "$W/last.err"
[ "$(requests_for '^GET /c[0-9]*\.crl 200')" -eq "$SOURCES" ] || fail "not every source was fetched"
peak_kb=$(tail -n 1 "$W/maxrss")
bound_kb=$((SOURCES * size / 1024 / 2))
note "CRL $size bytes x $SOURCES sources: peak RSS ${peak_kb} KB (bound ${bound_kb} KB)"
[ "$peak_kb" -lt "$bound_kb" ] ||
    fail "peak RSS ${peak_kb} KB >= ${bound_kb} KB: bodies are held until every transfer ends"
cc status >"$W/status" 2>&1 || true
assert_grep "^revoked $ENTRIES\$" "$W/status"
finish
