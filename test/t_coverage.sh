#!/usr/bin/env bash
# Installed means protected: the shipped crlcache.conf, changed only in the
# CCADB report URLs (a synthetic CCADB in the real formats, served from
# 127.0.0.1) and allow_private_urls (the test's CRLs are on 127.0.0.1); the
# trust store is the test root through SSL_CERT_FILE.  No CRL URL and no
# intermediate is configured by hand.
#   1. the timer's first update builds the directory and publishes an index;
#   2. a stock curl under the provider reaches a revoked server: accepted
#      (its issuer is unknown) -- and the provider leaves a hint;
#   3. the next update proves the hint, enrols the issuer and fetches its
#      CRL from the directory; the same curl is refused, a good server of
#      the same CA still served, and status shows the issuer covered;
#   4. a partitioned CA: only its partitions are fetched, the same story;
#   5. the same through `crlcache enroll HOST:PORT` on a fresh state.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
httpd_start
YEAR=$(date -u +%Y)

pki_root root "/CN=Coverage Root/O=crlcache tests"
pki_ca full root "/CN=Coverage Full CA/O=crlcache tests"
pki_ca part root "/CN=Coverage Partitioned CA/O=crlcache tests"
prov_leaf f_good full f-good.test cdp="$BASE_URL/full.crl"
prov_leaf f_rev full f-rev.test cdp="$BASE_URL/full.crl"
prov_leaf p_good part p-good.test cdp="$BASE_URL/p1.crl"
prov_leaf p_rev part p-rev.test cdp="$BASE_URL/p2.crl"
pki_revoke full "$PKI/f_rev.pem" reason=keyCompromise
pki_revoke part "$PKI/p_rev.pem"
pki_gencrl full "$W/full.crl"
pki_gencrl part "$W/p1.crl" idp="$BASE_URL/p1.crl" number=10
pki_gencrl part "$W/p2.crl" idp="$BASE_URL/p2.crl" number=10
for f in full p1 p2; do serve "$W/$f.crl" "$f.crl"; done

R=$PKI/root/cert.pem
ROOT=$R
ccadb_row "$R" type=root
ccadb_row "$PKI/full/cert.pem" parent="$R" full="$BASE_URL/full.crl"
ccadb_row "$PKI/part/cert.pem" parent="$R" parts="$BASE_URL/p1.crl,$BASE_URL/p2.crl"
ccadb_write "$W/ccadb" 2000
for f in "$W"/ccadb/*.csv; do serve "$f" "ccadb/$(basename "$f")"; done

# The shipped configuration, three URLs and one switch changed: every
# report, the fallback included, is read from loopback, never the CCADB;
# Mozilla's CRLite server commented out (t_crlite_rs reads CRLite).
sed -e "s|^ccadb_records = .*|ccadb_records = $BASE_URL/ccadb/records.csv|" \
    -e "s|^ccadb_records_fallback = .*|ccadb_records_fallback = $BASE_URL/ccadb/records.csv|" \
    -e "s|^ccadb_pems = .*|ccadb_pems = $BASE_URL/ccadb/pems-{year}.csv|" \
    -e 's|^#allow_private_urls = no|allow_private_urls = yes|' \
    -e 's|^crlite = |#crlite = |' \
    "$TESTDIR/../etc/crlcache.conf" >"$CONF"
[ "$(diff "$TESTDIR/../etc/crlcache.conf" "$CONF" | grep -c '^>')" = 5 ] \
    || { diff "$TESTDIR/../etc/crlcache.conf" "$CONF"; fail "expected 5 changed lines"; }
grep -Eq '^(url|ca|untrusted|ccadb) ' "$CONF" && fail "the shipped config names a source"
grep -q 'https://ccadb' "$CONF" && fail "a CCADB address left in the test configuration"
grep -q '^crlite' "$CONF" && fail "Mozilla's CRLite server left in the test configuration"
# The "system trust store" of the fetcher is the test root.
upd() { SSL_CERT_FILE=$R cc "$@"; }

srv_start frev f_rev
srv_start fgood f_good
srv_start prev p_rev

# 1. the first update: directory built, an (empty) index published
assert_exit 0 upd -v update
assert_grep 'update: 0 sources' "$W/last.err"

# 2. the revoked server is accepted: nothing covers its issuer yet
cl_curl "$(srv_port frev)" 1.3
[ "$CLIENT_RC" = 0 ] || { cat "$W/client.out"; fail "curl refused before any CRL was fetched"; }
ls "$STATE/hints"/*.crt >/dev/null 2>&1 || fail "the provider left no hint"
note "before: curl to the revoked server accepted (unknown issuer), hint left"

# 3. update: hint proven, issuer enrolled, CRL fetched through the directory
assert_exit 0 upd -v update
assert_grep 'update: 1 sources, 1 updated' "$W/last.err"
[ "$(requests_for /p1.crl)" = 0 ] || fail "a partition of an issuer nobody met was fetched"
cl_curl "$(srv_port frev)" 1.3
[ "$CLIENT_RC" != 0 ] || fail "curl still accepts the revoked server after update"
client_words curl
cl_curl "$(srv_port fgood)" 1.3
[ "$CLIENT_RC" = 0 ] || { cat "$W/client.out"; fail "curl refused the good server"; }
assert_exit 0 upd status
assert_grep '^issuer /CN=Coverage Full CA/O=crlcache tests met=.* fresh crls=1$' "$W/last.out"
note "after update: revoked refused, good served, status shows the issuer covered"

# 4. partitioned CA: its leaf's hint enrols it, both partitions fetched
cl_curl "$(srv_port prev)" 1.2
[ "$CLIENT_RC" = 0 ] || fail "curl refused the partitioned CA's server before update"
assert_exit 0 upd -v update
[ "$(requests_for /p1.crl)" -ge 1 ] && [ "$(requests_for /p2.crl)" -ge 1 ] \
    || fail "the partitions were not fetched"
cl_curl "$(srv_port prev)" 1.2
[ "$CLIENT_RC" != 0 ] || fail "curl accepts the revoked server of the partitioned CA"
check_is good 0 "$PKI/p_good.pem"
note "partitioned CA: enrolled from a hint, its partitions fetched, revoked refused"

# 5. the same through enroll HOST:PORT, on a fresh state directory
rm -rf "$STATE"
assert_exit 0 upd update
assert_exit 0 upd enroll "127.0.0.1:$(srv_port frev)"
assert_grep 'enrolled issuer /CN=Coverage Full CA' "$W/last.out"
assert_exit 0 upd update
cl_curl "$(srv_port frev)" 1.3
[ "$CLIENT_RC" != 0 ] || fail "curl accepts the revoked server after enroll + update"
note "enroll HOST:PORT + update: revoked refused"
