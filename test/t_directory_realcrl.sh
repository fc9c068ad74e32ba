#!/usr/bin/env bash
# The issuer directory with real data: a CCADB in the real report formats
# built from real public CA certificates (test/data/realcrl, see
# its SOURCES.md), their real CRLs served from 127.0.0.1.  With only the
# roots as anchors and enroll = all, the Belgian Citizen CA's real CRL
# (9257 entries) is verified through the directory's intermediate; real
# certificates that are expired or do not chain to an anchor here stay out.
. "$(dirname "$0")/lib.sh"
REAL=$DATA/realcrl
need_crlcache
httpd_start
CA=$REAL/ca

# Three roots are the anchors (none with a distribution point of its own:
# those would be sources, and tests never leave 127.0.0.1); each root row
# names its own real CRL.
cat "$CA/belgium-root-ca4.pem" "$CA/ee-govca2018.pem" \
    "$CA/penneo-qualified-root-ca.pem" >"$W/anchors.pem"
serve "$REAL/crl/belgium-root-ca4.crl" belgium-root-ca4.crl
serve "$REAL/crl/ee-govca2018.crl" ee-govca2018.crl
serve "$REAL/crl/penneo-root.crl" penneo-root.crl
serve "$REAL/crl/belgium-citizen-ca-201631.crl" citizen-201631.crl
ccadb_row "$CA/belgium-root-ca4.pem" type=root full="$BASE_URL/belgium-root-ca4.crl"
ccadb_row "$CA/ee-govca2018.pem" type=root full="$BASE_URL/ee-govca2018.crl"
ccadb_row "$CA/penneo-qualified-root-ca.pem" type=root full="$BASE_URL/penneo-root.crl"
ccadb_row "$CA/belgium-citizen-ca-201631.pem" parent="$CA/belgium-root-ca4.pem" \
    full="$BASE_URL/citizen-201631.crl"
# Its record lies about Valid To; its notAfter passed in 2025.
ccadb_row "$REAL/cert/belgium-citizen-ca-201404.pem" parent="$CA/belgium-root-ca3.pem" \
    valid_to=2099.01.01 full="$BASE_URL/citizen-201404.crl"
# Valid until 2032, but its root, D-TRUST Root CA 1 2017, is no anchor here.
ccadb_row "$REAL/cert/d-trust-ca-1-3-2017.pem" parent="$CA/d-trust-root-ca-1-2017.pem" \
    full="$BASE_URL/d-trust-ca-1-3.crl"
# Let's Encrypt R3 expired on 2025-09-15: its record says so.
ccadb_row "$CA/le-r3.pem" parent="$CA/isrg-root-x1.pem" \
    parts="$BASE_URL/r3-105.crl,$BASE_URL/r3-106.crl"
# A root that is not an anchor here.
ccadb_row "$CA/isrg-root-x1.pem" type=root full="$BASE_URL/isrg-root-x1.crl"
ccadb_write "$HTTPD_ROOT/ccadb" 2012
write_conf "anchor = $W/anchors.pem" "enroll = all" "allow_private_urls = yes" \
    "ccadb_records = $BASE_URL/ccadb/records.csv" \
    "ccadb_pems = $BASE_URL/ccadb/pems-{year}.csv" "ccadb_since = 2012"

cc update >"$W/u.out" 2>&1; rc=$?
cat "$W/u.out"
[ "$rc" -eq 0 ] || fail "update with the real directory exited $rc"
assert_grep 'directory: [0-9]+ reports \(0 not modified\), 8 rows, 4 entries; not kept: 2 expired, 1 no chain to an anchor, 1 root not an anchor' "$W/u.out"
assert_grep 'update: 4 sources, 4 updated, 0 unchanged, 0 failed' "$W/u.out"
for u in citizen-201404 d-trust-ca-1-3 r3-105 r3-106 isrg-root-x1; do
    assert_not_grep "GET /$u.crl" "$HTTPD_LOG"
done
assert_exit 1 cc status          # 1: these real CRLs are long past nextUpdate
assert_grep "^crl $BASE_URL/citizen-201631.crl scope=all entries=9257 " "$W/last.out"
assert_grep '^directory built=[0-9T:Z-]+ entries=4 rows=[0-9]+ in_use=yes refused_expired=2 refused_no_chain=1 refused_not_anchor=1$' "$W/last.out"
# A real eID certificate under it: its CRL is held (stale, not unknown).
check_is stale 3 "$REAL/cert/belgium-eid-authentication.pem"
case_ok "real Citizen CA CRL verified through the directory"

# Without the directory the same CRL has no issuer.
rm -rf "$STATE"
write_conf "anchor = $W/anchors.pem" "url = $BASE_URL/citizen-201631.crl"
assert_exit 1 cc update
assert_grep 'citizen-201631.crl: no issuer certificate' "$W/last.err"
case_ok "and without it, no issuer"
finish
