#!/usr/bin/env bash
# What the issuer directory costs a host: the reports are asked for
# gzip-coded (Accept-Encoding) and a coded report is decoded and used; a
# gzip bomb is refused after its first reads (small peak RSS) and costs
# that refresh only, the previous directory kept; a refresh whose every
# report answers 304 builds nothing (the directory file is not written
# again); an update whose refresh is not due and whose CRLs answer 304
# does not read the directory (a damaged one goes unnoticed), and one
# whose CRL changed still takes the CRL's issuer from it; an enrolled
# issuer's URLs are looked up in it without decoding its certificates;
# a hint run reads only the entries of the names its proofs ask for.
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
YEAR=$(date -u +%Y)

pki_root root "/CN=Cost Root/O=crlcache tests"
pki_ca full root "/CN=Cost CA/O=crlcache tests"
pki_leaf f1 full "/CN=f1.test" cdp="$BASE_URL/full.crl"
pki_leaf f2 full "/CN=f2.test" cdp="$BASE_URL/full.crl"
pki_revoke full "$PKI/f2.pem"
pki_gencrl full "$W/full.crl"
serve "$W/full.crl" full.crl
R=$PKI/root/cert.pem
ccadb_row "$R" type=root full="$BASE_URL/root.crl"
ccadb_row "$PKI/full/cert.pem" parent="$R" full="$BASE_URL/full.crl"
ccadb_write "$W/ccadb" "$YEAR"
serve "$W/ccadb/records-v5.csv" ccadb/records.csv
serve "$W/ccadb/pems-$YEAR.csv" "ccadb/pems-$YEAR.csv"
# the records report is served gzip-coded to a client that asks
gzip -c "$W/ccadb/records-v5.csv" >"$HTTPD_ROOT/ccadb/records.csv.gz"
# The CRL's issuer comes from the directory only: no ca, no untrusted.
write_conf "anchor = $R" "url = $BASE_URL/full.crl" "enroll = none" \
    "ccadb_records = $BASE_URL/ccadb/records.csv" \
    "ccadb_pems = $BASE_URL/ccadb/pems-{year}.csv" "ccadb_since = $YEAR"
DIRFILE=$STATE/work/directory

# 1. compression asked for, the coded report decoded and used
assert_exit 0 cc -v update
assert_grep $'^GET /ccadb/records.csv 200\tinm=-\tims=-\tae=gzip\t' "$HTTPD_LOG"
assert_grep $'^GET /ccadb/pems-'"$YEAR"$'.csv 200\t.*\tae=gzip\t' "$HTTPD_LOG"
gz=$(stat -c %s "$HTTPD_ROOT/ccadb/records.csv.gz")
assert_grep $'^GET /ccadb/records.csv 200\t.*\tbytes='"$gz"'$' "$HTTPD_LOG"
assert_grep 'directory: 2 reports \(0 not modified\), 2 rows, 2 entries' "$W/last.err"
check_is revoked 1 "$PKI/f2.pem"
check_is good 0 "$PKI/f1.pem"
case_ok "reports asked for gzip; a gzip-coded report decoded and used"

# 2. every report 304: nothing built, the directory file not written again
before=$(stat -c '%i %Y %s' "$DIRFILE")
sleep 1
assert_exit 0 cc -v update --refresh-directory
assert_grep 'directory: 2 reports not modified; the directory of 2 entries stands' "$W/last.err"
assert_not_grep 'directory: 2 reports \(' "$W/last.err"
[ "$(stat -c '%i %Y %s' "$DIRFILE")" = "$before" ] || fail "the directory file was written again"
[ "$(tail -n 2 "$HTTPD_LOG" | grep -c ' 304	inm="')" = 2 ] || fail "reports not asked conditionally"
case_ok "refresh answered 304 for every report builds nothing"

# 3. not due, every CRL 304: the directory is not read (damaged, unnoticed)
cp "$DIRFILE" "$W/directory.good"
head -n -1 "$W/directory.good" >"$DIRFILE"	# its "end" line gone
assert_exit 0 cc -vv update
assert_grep 'directory: not due' "$W/last.err"
assert_grep 'update: 1 sources, 0 updated, 1 unchanged, 0 failed' "$W/last.err"
assert_not_grep 'malformed directory|directory: [0-9]+ entries read' "$W/last.err"
# ...but a CRL that changed needs its issuer: then the directory is read
pki_gencrl full "$W/full2.crl"
serve "$W/full2.crl" full.crl
assert_exit 1 cc update
assert_grep 'line [0-9]+: malformed directory; not used until the next refresh' "$W/last.err"
cp "$W/directory.good" "$DIRFILE"
assert_exit 0 cc -vv update
assert_grep 'directory: 2 entries read \(issuer candidates\)' "$W/last.err"
assert_grep 'update: 1 sources, 1 updated, 0 unchanged, 0 failed' "$W/last.err"
case_ok "an update with no refresh due reads the directory only when a CRL needs it"

# 4. enrolled issuers: their URLs are looked up in the directory with
#    none of its certificates decoded (a damaged one goes unnoticed), and
#    a changed CRL of an enrolled issuer is proven from the enrolment
pki_ca enr root "/CN=Cost Enrolled CA/O=crlcache tests"
pki_leaf e1 enr "/CN=e1.test"
pki_leaf e2 enr "/CN=e2.test"
pki_revoke enr "$PKI/e2.pem"
pki_gencrl enr "$W/enr.crl"
serve "$W/enr.crl" enr.crl
ccadb_row "$PKI/enr/cert.pem" parent="$R" full="$BASE_URL/enr.crl"
ccadb_write "$W/ccadb" "$YEAR"
serve "$W/ccadb/records-v5.csv" ccadb/records.csv
serve "$W/ccadb/pems-$YEAR.csv" "ccadb/pems-$YEAR.csv"
gzip -c "$W/ccadb/records-v5.csv" >"$HTTPD_ROOT/ccadb/records.csv.gz"
write_conf "anchor = $R" "url = $BASE_URL/full.crl" "enroll = seen" "allow_private_urls = yes" \
    "ccadb_records = $BASE_URL/ccadb/records.csv" \
    "ccadb_pems = $BASE_URL/ccadb/pems-{year}.csv" "ccadb_since = $YEAR"
assert_exit 0 cc -v update --refresh-directory
assert_grep 'directory: 2 reports \([01] not modified\), 3 rows, 3 entries' "$W/last.err"
# enroll finds the issuer in the directory: no chain given
assert_exit 0 cc enroll "$PKI/e1.pem"
assert_grep 'enrolled issuer .*Cost Enrolled CA' "$W/last.out"
assert_exit 0 cc update
check_is revoked 1 "$PKI/e2.pem"
enrfp=$(openssl x509 -in "$PKI/enr/cert.pem" -outform DER | sha256sum | cut -c1-64)
cp "$DIRFILE" "$W/directory.good"
# every other entry's certificate damaged: its base64 no longer decodes
awk -v keep="$enrfp" '$1 == "cert" && tolower($2) != keep { $3 = "!" substr($3, 2) } { print }' \
    "$W/directory.good" >"$DIRFILE"
[ "$(grep -c '^cert .* !' "$DIRFILE")" = 2 ] || fail "the directory was not damaged as meant"
pki_revoke enr "$PKI/e1.pem"
pki_gencrl enr "$W/enr2.crl"
serve "$W/enr2.crl" enr.crl
assert_exit 0 cc -vv update
assert_grep 'directory: 1 of 1 enrolled issuers found' "$W/last.err"
assert_not_grep 'malformed directory|directory: [0-9]+ entries read' "$W/last.err"
assert_grep 'update: 2 sources, 1 updated, 1 unchanged, 0 failed' "$W/last.err"
check_is revoked 1 "$PKI/e1.pem"
cp "$W/directory.good" "$DIRFILE"
case_ok "enrolled issuers' URLs read from the directory without decoding its certificates"

# 5. a hint run (update --hints) reads the directory entries of the names
#    its proofs ask for, through the directory's index: not the others
#    (damaged, unnoticed), and none decoded whole
rm -f "$STATE/work/enrolled"
cp "$DIRFILE" "$W/directory.good"
awk -v keep="$enrfp" '$1 == "cert" && tolower($2) != keep { $3 = "!" substr($3, 2) } { print }' \
    "$W/directory.good" >"$DIRFILE"
hint "$PKI/e1.pem" >/dev/null
assert_exit 0 cc -vv update --hints
assert_grep 'hints: 1 arrived, 1 read, 1 enrolled' "$W/last.err"
assert_grep 'directory: 1 of 3 entries read$' "$W/last.err"
assert_not_grep 'malformed directory|directory: [0-9]+ entries read' "$W/last.err"
grep -q '^issuer ' "$STATE/work/enrolled" || fail "the hinted issuer was not enrolled"
cp "$W/directory.good" "$DIRFILE"
# ...and an index that does not describe the directory file (a crash
# between their writes) is not used: the directory is read whole
rm -f "$STATE/work/enrolled"
printf 'crlcache-directory-index 1\ndirectory 1 1\nentries 0\nend\n' >"$STATE/work/directory.index"
hint "$PKI/e1.pem" >/dev/null
assert_exit 0 cc -vv update --hints
assert_grep 'directory: 3 entries read \(hints\)' "$W/last.err"
grep -q '^issuer ' "$STATE/work/enrolled" || fail "the hinted issuer was not enrolled (stale index)"
# the next refresh writes the index again, even when every report is 304
assert_exit 0 cc -v update --refresh-directory
assert_grep 'directory: 2 reports \(2 not modified\), 3 rows, 3 entries' "$W/last.err"
grep -q '^entries 3$' "$STATE/work/directory.index" || fail "the refresh did not write the index"
case_ok "a hint run reads the hinted issuer's directory entry, not the directory; a stale index is not used"

# 6. a gzip bomb: refused after its first reads, the directory kept
head -c 200M /dev/zero | gzip -1 >"$HTTPD_ROOT/ccadb/pems-$YEAR.csv.gz"
touch "$HTTPD_ROOT/ccadb/pems-$YEAR.csv"	# a new ETag: fetched whole
/usr/bin/time -f '%M' -o "$W/bomb.rss" "$CRLCACHE" --state-dir "$STATE" -c "$CONF" \
    update --refresh-directory >"$W/last.out" 2>"$W/last.err"
assert_grep "pems-$YEAR.csv: refused: the gzip-coded body decodes to more than 64 times its size" "$W/last.err"
assert_grep 'refresh failed: .*; keeping the directory of 3 entries' "$W/last.err"
rss=$(tail -n 1 "$W/bomb.rss")
[ "$rss" -lt 60000 ] || fail "the bomb cost $rss kB of memory"
assert_exit 3 cc status	# 3: the directory refresh failed (a warning)
assert_grep '^directory built=[0-9T:Z-]+ entries=3 ' "$W/last.out"
check_is revoked 1 "$PKI/f2.pem"
case_ok "a gzip bomb refused (peak RSS ${rss} kB), the directory kept"
finish
