#!/usr/bin/env bash
# The issuer directory from the CCADB's reports: a test PKI described in
# the real AllCertificateRecordsCSVFormatv4 / AllCertificatePEMsCSVFormat
# formats and served from 127.0.0.1.  With enroll = all and no ca or
# untrusted file, update fetches the CRLs of the directory's intermediates
# (a full CRL, partitioned CRLs) and verifies them with the directory's
# certificates; revoked, parent-revoked, expired and unchained rows and a
# PEM that is not its row's certificate stay out; the reports are fetched
# conditionally and at most every ccadb_refresh; a truncated, oversized or
# malformed report is refused whole and the previous directory kept.
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
YEAR=$(date -u +%Y)
NOW=$(now_epoch)

pki_root root "/CN=Directory Root/O=crlcache tests"
pki_ca full root "/CN=Directory Full CA, Ltd/O=crlcache tests"
pki_ca part root "/CN=Directory Partitioned CA/O=crlcache tests"
pki_ca revoked root "/CN=Directory Revoked CA/O=crlcache tests"
pki_ca under_revoked root "/CN=Directory Parent Revoked CA/O=crlcache tests"
pki_ca mismatch root "/CN=Directory Mismatch CA/O=crlcache tests"
dated expired root $((NOW - 100 * 86400)) $((50 * 86400)) ca=1
pki_root other "/CN=Other Root/O=crlcache tests"
pki_ca stray other "/CN=Directory Stray CA/O=crlcache tests"
pki_leaf f1 full "/CN=f1.test" cdp="$BASE_URL/full.crl"
pki_leaf f2 full "/CN=f2.test" cdp="$BASE_URL/full.crl"
pki_leaf p1 part "/CN=p1.test" cdp="$BASE_URL/p1.crl"
pki_leaf p2 part "/CN=p2.test" cdp="$BASE_URL/p2.crl"
pki_revoke full "$PKI/f2.pem"
pki_revoke part "$PKI/p2.pem"
pki_gencrl full "$W/full.crl"
pki_gencrl part "$W/p1.crl" idp="$BASE_URL/p1.crl" number=10
pki_gencrl part "$W/p2.crl" idp="$BASE_URL/p2.crl" number=10
pki_gencrl root "$W/root.crl"
for f in full p1 p2 root; do serve "$W/$f.crl" "$f.crl"; done

R=$PKI/root/cert.pem
ccadb_row "$R" type=root full="$BASE_URL/root.crl"
ccadb_row "$PKI/full/cert.pem" parent="$R" full="$BASE_URL/full.crl"
ccadb_row "$PKI/part/cert.pem" parent="$R" parts="$BASE_URL/p1.crl,$BASE_URL/p2.crl"
ccadb_row "$PKI/revoked/cert.pem" parent="$R" status=Revoked full="$BASE_URL/revoked.crl"
ccadb_row "$PKI/under_revoked/cert.pem" parent="$R" status="Parent Cert Revoked" \
    full="$BASE_URL/under_revoked.crl"
ccadb_row "$PKI/expired.pem" parent="$R" full="$BASE_URL/expired.crl"
# its Valid To lies: the certificate's notAfter still keeps it out
ccadb_row "$PKI/expired.pem" parent="$R" valid_to=2099.12.31 full="$BASE_URL/expired2.crl"
ccadb_row "$PKI/stray/cert.pem" parent="$PKI/other/cert.pem" full="$BASE_URL/stray.crl"
ccadb_row "$PKI/mismatch/cert.pem" parent="$R" pem="$PKI/full/cert.pem" \
    full="$BASE_URL/mismatch.crl"
ccadb_write "$W/ccadb" $((YEAR - 1))
for f in "$W"/ccadb/*.csv; do serve "$f" "ccadb/$(basename "$f")"; done
MISMATCH_FP=$(cert_fp "$PKI/mismatch/cert.pem")
# dir_conf LINE...: the test root as the only anchor; every URL is on
# 127.0.0.1, which learned URLs may only reach when allowed
dir_conf() { write_conf "anchor = $R" "allow_private_urls = yes" "$@"; }
RECORDS="ccadb_records = $BASE_URL/ccadb/records.csv"
PEMS="ccadb_pems = $BASE_URL/ccadb/pems-{year}.csv"
SINCE="ccadb_since = $((YEAR - 1))"
dir_conf "enroll = all" "$RECORDS" "$PEMS" "$SINCE"

# 1. the directory supplies the issuers: no ca, no untrusted
assert_exit 0 cc update
cp "$W/last.err" "$W/first.err"
assert_grep 'directory: 3 reports \(0 not modified\), 9 rows, 3 entries; not kept: 2 revoked, 2 expired, 1 fingerprint mismatch, 1 no chain to an anchor' "$W/last.err"
assert_grep "certificate $MISMATCH_FP refused: the SHA-256 of its PEM is $(cert_fp "$PKI/full/cert.pem")" "$W/last.err"
assert_grep 'update: 4 sources, 4 updated, 0 unchanged, 0 failed' "$W/last.err"
check_is good 0 "$PKI/f1.pem"
check_is revoked 1 "$PKI/f2.pem"
check_is good 0 "$PKI/p1.pem"
check_is revoked 1 "$PKI/p2.pem"
for u in revoked under_revoked expired expired2 stray mismatch; do
    assert_not_grep "GET /$u.crl" "$HTTPD_LOG"
done
assert_exit 0 cc status
assert_grep '^directory built=[0-9T:Z-]+ entries=3 rows=9 in_use=yes refused_revoked=2 refused_expired=2 refused_mismatch=1 refused_no_chain=1$' "$W/last.out"
case_ok "directory: full and partitioned CRLs verified through it"

# 2. not due: a second update does not ask for the reports at all
n=$(grep -c 'GET /ccadb/' "$HTTPD_LOG")
assert_exit 0 cc update
[ "$(grep -c 'GET /ccadb/' "$HTTPD_LOG")" = "$n" ] || fail "reports fetched again before ccadb_refresh"
assert_not_grep 'directory:' "$W/last.err"
# forced: conditional GET, every report answers 304: nothing to build
assert_exit 0 cc update --refresh-directory
assert_grep 'directory: 3 reports not modified; the directory of 3 entries stands' "$W/last.err"
[ "$(grep 'GET /ccadb/' "$HTTPD_LOG" | tail -n 3 | grep -c ' 304	inm="')" = 3 ] ||
    { tail -n 8 "$HTTPD_LOG"; fail "forced refresh did not ask with If-None-Match"; }
# one report changed (200), the others not (304): still rebuilt whole
serve "$W/ccadb/records.csv" ccadb/records.csv
assert_exit 0 cc update --refresh-directory
assert_grep 'directory: 3 reports \(2 not modified\), 9 rows, 3 entries' "$W/last.err"
check_is revoked 1 "$PKI/p2.pem"
case_ok "conditional GET, at most every ccadb_refresh"

# 2b. the period without ccadb_refresh: a day; a month while a fresh
#     CRLite set is in force and a CRLite source configured (the source is an
#     upki cache that is not there: that run's CRLite part fails, exit 1).
#     On a copy of the state and configuration: the rest goes on as before.
if command -v faketime >/dev/null; then
    cp -a "$STATE" "$W/state2"; cp "$CONF" "$W/conf2"
    asked() { grep -c 'GET /ccadb/' "$HTTPD_LOG"; }
    later() {   # later OFFSET: an update that far on (faketime)
        NO_FAKE_STAT=1 DONT_FAKE_MONOTONIC=1 faketime -f "$1" \
            "$CRLCACHE" -c "$W/conf2" --state-dir "$W/state2" update >"$W/later.out" 2>&1
        LATER_RC=$?
    }
    n=$(asked); later +2d
    [ "$LATER_RC" = 0 ] && [ "$(asked)" -gt "$n" ] || { cat "$W/later.out"; fail "no refresh two days on"; }
    # Mozilla's real filter of 2026-06-24: stale (include/crlcache/crlite.h
    # FRESHNESS), it covers no CA: daily still
    python3 "$TESTDIR/crlite_set.py" "$W/state2" "$DATA/crlite/20260624-1-default.filter.delta" \
        || fail "crlite_set.py"
    echo "crlite_upki_dir = $W/no-upki" >>"$W/conf2"
    n=$(asked); later +4d
    [ "$LATER_RC" = 1 ] && [ "$(asked)" -gt "$n" ] || { cat "$W/later.out"; fail "not refreshed daily with a stale CRLite set"; }
    # a set covering the logs to five days on, installed then: fresh a day on
    python3 "$TESTDIR/crlite_pki.py" filter "$W/fresh.filter" 4 \
        "$(printf 'a1%.0s' $(seq 32)):0:$(( ($(now_epoch) + 5 * 86400) * 1000 ))" \
        "$PKI/root/cert.pem" "$PKI/full/cert.pem=good" || fail "crlite_pki.py"
    NO_FAKE_STAT=1 DONT_FAKE_MONOTONIC=1 faketime -f +5d \
        python3 "$TESTDIR/crlite_set.py" "$W/state2" "$W/fresh.filter" || fail "crlite_set.py"
    n=$(asked); later +6d
    [ "$LATER_RC" = 1 ] && [ "$(asked)" = "$n" ] || { cat "$W/later.out"; fail "refreshed within the month CRLite allows"; }
    later +36d
    [ "$(asked)" -gt "$n" ] || { cat "$W/later.out"; fail "no refresh a month on with CRLite"; }
    case_ok "without ccadb_refresh: refreshed daily, monthly with a fresh CRLite set in force, daily with a stale one"
else
    note "faketime not installed: the refresh period not tested"
fi

# 3. a report refused whole keeps the previous directory, and its CRLs
#    are still fetched
refused() {     # refused CASE PATTERN: a forced refresh fails, the rest goes on
    local n
    n=$(grep -c 'GET /full.crl' "$HTTPD_LOG")
    # 3: a warning of its own, every source fine
    assert_exit 3 cc update --refresh-directory
    assert_grep "$2" "$W/last.err"
    assert_grep 'directory: refresh failed: .*keeping the directory of 3 entries' "$W/last.err"
    assert_grep 'update: 4 sources, 0 updated, 4 unchanged, 0 failed; warning: issuer directory not refreshed' "$W/last.err"
    [ "$(grep -c 'GET /full.crl' "$HTTPD_LOG")" -gt "$n" ] || fail "$1: CRLs not fetched"
    assert_exit 3 cc status
    assert_grep '^summary directory refresh failing: ([0-9]+) of \1 CRLs fresh, 4 of 4 sources ok, directory failing$' "$W/last.out"
    assert_grep '^directory built=.* entries=3 rows=9 in_use=yes refused_revoked=2 refused_expired=2 refused_mismatch=1 refused_no_chain=1 error=' "$W/last.out"
    check_is revoked 1 "$PKI/f2.pem"
    check_is good 0 "$PKI/p1.pem"
    case_ok "$1: refused, previous directory kept"
}
head -c $(( $(stat -c %s "$W/ccadb/records.csv") * 2 / 3 )) "$W/ccadb/records.csv" >"$W/trunc.csv"
serve "$W/trunc.csv" ccadb/records.csv
refused "truncated records report" "records.csv: refused: line [0-9]+: (malformed CSV|[0-9]+ fields where the header has 79, at the end: truncated)"
printf '"SHA-256 Fingerprint","X.509 Certificate (PEM)"\r\n"%s","-----BEGIN\r\n' \
    "$MISMATCH_FP" >"$W/bad.csv"
serve "$W/ccadb/records.csv" ccadb/records.csv
serve "$W/bad.csv" "ccadb/pems-$YEAR.csv"
refused "malformed PEM report" "pems-$YEAR.csv: refused: line 2: malformed CSV: unterminated quoted field"
serve "$W/ccadb/pems-$YEAR.csv" "ccadb/pems-$YEAR.csv"
truncate -s 300M "$HTTPD_ROOT/ccadb/big.csv"
dir_conf "enroll = all" "$RECORDS" "ccadb_records = $BASE_URL/ccadb/big.csv" "$PEMS" "$SINCE"
refused "oversized report (URL)" "big.csv: body larger than max_size \(268435456 bytes\)"
truncate -s 300M "$W/big.csv"
dir_conf "enroll = all" "ccadb_records = $W/big.csv" "$PEMS" "$SINCE"
refused "oversized report (file)" "big.csv: file too large"
rm -f "$W/big.csv" "$HTTPD_ROOT/ccadb/big.csv"

# 4. good reports again: the error goes
dir_conf "enroll = all" "$RECORDS" "$PEMS" "$SINCE"
assert_exit 0 cc update --refresh-directory
assert_grep 'directory: 3 reports .*3 entries' "$W/last.err"
assert_exit 0 cc status
assert_grep '^directory built=[0-9T:Z-]+ entries=3 rows=9 in_use=yes refused_revoked=2 refused_expired=2 refused_mismatch=1 refused_no_chain=1$' "$W/last.out"

# 5. enroll = none: the directory still verifies, but its CRLs are not sources
dir_conf "enroll = none" "url = $BASE_URL/full.crl" "$RECORDS" "$PEMS" "$SINCE"
assert_exit 0 cc update
assert_grep 'update: 1 sources' "$W/last.err"
# no ccadb_records: no directory, so a new CRL of "full" has no issuer
dir_conf "url = $BASE_URL/full.crl"
pki_gencrl full "$W/full.crl"
serve "$W/full.crl" full.crl
assert_exit 1 cc update
assert_grep 'full.crl: no issuer certificate' "$W/last.err"
ls "$STATE/work" | grep -q '^directory' && fail "directory files left without ccadb_records"
assert_exit 2 cc status           # 2: full.crl's source is failing
assert_not_grep '^directory' "$W/last.out"
case_ok "enroll = none; no ccadb_records, no directory"
finish
