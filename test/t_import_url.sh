#!/usr/bin/env bash
# import --url: a partitioned CRL file whose IDP names
# two URIs is indexed under the first unless --url says which one it was
# fetched from; a --url its IDP does not name refuses it (RFC 5280 5.2.5);
# --url applies to the file after it only.
. "$(dirname "$0")/lib.sh"
need_crlcache

BASE_URL=http://127.0.0.1:9   # only written into CDPs, never fetched here
pki_root root "/CN=URL Root/O=crlcache tests"
pki_ca int root "/CN=URL Int/O=crlcache tests"
pki_leaf p1 int "/CN=p1.test" cdp="$BASE_URL/p1.crl"
pki_leaf p2 int "/CN=p2.test" cdp="$BASE_URL/p2.crl"
# One partition, published under two names (first p1, then p2).
pki_gencrl int "$W/p.crl" idp="$BASE_URL/p1.crl, URI:$BASE_URL/p2.crl"
crl_text "$W/p.crl" | grep -q "URI:$BASE_URL/p2.crl" || fail "CRL setup: IDP lacks the second URI"
pki_gencrl int "$W/q.crl" idp="$BASE_URL/p2.crl"
write_conf "# import --url"
A=(--anchor "$PKI/root/cert.pem" --untrusted "$PKI/int/cert.pem")

cc import "${A[@]}" "$W/p.crl" >"$W/imp.out" 2>&1 || fail "import: $(cat "$W/imp.out")"
check_is good 0 "$PKI/p1.pem"
check_is unknown 2 "$PKI/p2.pem"

rm -rf "$STATE"
cc import "${A[@]}" --url "$BASE_URL/p2.crl" "$W/p.crl" >"$W/imp.out" 2>&1 \
    || fail "import --url: $(cat "$W/imp.out")"
check_is good 0 "$PKI/p2.pem"
check_is unknown 2 "$PKI/p1.pem"

rm -rf "$STATE"
cc import "${A[@]}" --url "$BASE_URL/other.crl" "$W/p.crl" >"$W/imp.out" 2>&1 \
    && fail "a --url the IDP does not name was accepted"
assert_grep 'does not match the distribution point' "$W/imp.out"

# --url binds to the next file only: q.crl (IDP p2) then p.crl, no --url.
rm -rf "$STATE"
cc import "${A[@]}" --url "$BASE_URL/p2.crl" "$W/q.crl" "$W/p.crl" >"$W/imp.out" 2>&1 \
    || fail "two files: $(cat "$W/imp.out")"
check_is good 0 "$PKI/p1.pem"
check_is good 0 "$PKI/p2.pem"
cc import "${A[@]}" "$W/p.crl" --url "$BASE_URL/p1.crl" >"$W/imp.out" 2>&1; rc=$?
[ "$rc" -eq 4 ] || fail "a trailing --url without a file accepted (exit $rc)"
assert_grep 'names no CRL file' "$W/imp.out"
note "all ok"
