#!/usr/bin/env bash
# The issuer directory from CCADB reports as they really are, each
# variation generated in the real formats, served from 127.0.0.1, read
# through update and judged by check and by a real client (curl under the
# provider):
#   - AllCertificateRecordsCSVFormatV5 (no "Full CRL Issued By This CA";
#     every full CRL in "JSON Array of All Full CRL URLs"; dates as
#     YYYY-MM-DD) read by column name, V4 (YYYY.MM.DD) as its fallback when
#     V5 answers empty or refused; PEMs fetched by decade;
#   - URLs trimmed and judged one by one: spaces, TABs, CR LF, zero-width
#     characters, [""], arrays that are not JSON; a URL holding a line break
#     or an escape is dropped and the directory stays readable;
#   - one subject and key in two records (a cross-sign under a root not
#     trusted here): the union of their URLs is fetched;
#   - a row with one field too many and one with a field over 1 MiB cost
#     their row only, a bare quote is read as text; all counted in status;
#     a mostly broken report is refused and the previous directory kept;
#   - status says when the directory is not in use (unreadable);
#   - rows in the V5 report's format and a PEM row (test/data/ccadb) are read.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
httpd_start
YEAR=$(date -u +%Y)
B=$BASE_URL
ESC=$'\033' CRLF=$'\r\n' TAB=$'\t' BEL=$'\a'
ZW=$'\xe2\x80\x8b'      # U+200B ZERO WIDTH SPACE
BOM=$'\xef\xbb\xbf'     # U+FEFF

pki_root root "/CN=Reports Root/O=crlcache tests"
pki_root other "/CN=Reports Other Root/O=crlcache tests"
R=$PKI/root/cert.pem
ROOT=$R
pki_ca multi root "/CN=Reports Two Full CRLs CA/O=crlcache tests"
pki_ca junk root "/CN=Reports Junk URLs CA/O=crlcache tests"
pki_ca none root "/CN=Reports No CRL CA/O=crlcache tests"
pki_ca brk root "/CN=Reports Broken URL CA/O=crlcache tests"
pki_ca cross root "/CN=Reports Cross CA/O=crlcache tests"
pki_ca cross_b other "/CN=Reports Cross CA/O=crlcache tests" key="$PKI/cross/key.pem"
pki_ca spare1 root "/CN=Reports Spare 1/O=crlcache tests"
pki_ca spare2 root "/CN=Reports Spare 2/O=crlcache tests"
pki_leaf m1 multi "/CN=m1.test" cdp="$B/full1.crl"
prov_leaf m2 multi m2.test cdp="$B/full2.crl"
pki_leaf j1 junk "/CN=j1.test" cdp="$B/j1.crl"
pki_leaf j3 junk "/CN=j3.test" cdp="$B/j3.crl"
pki_leaf b1 brk "/CN=b1.test" cdp="$B/b.crl"
pki_leaf c1 cross "/CN=c1.test" cdp="$B/c.crl"
for ca_leaf in multi:m2 junk:j1 junk:j3 brk:b1 cross:c1; do
    pki_revoke "${ca_leaf%:*}" "$PKI/${ca_leaf#*:}.pem"
done
pki_gencrl multi "$W/full1.crl" idp="$B/full1.crl" number=10
pki_gencrl multi "$W/full2.crl" idp="$B/full2.crl" number=10
for f in j1 j2 j3; do pki_gencrl junk "$W/$f.crl" idp="$B/$f.crl" number=10; done
pki_gencrl brk "$W/b.crl"
pki_gencrl cross "$W/c.crl"
for f in full1 full2 j1 j2 j3 b c; do serve "$W/$f.crl" "$f.crl"; done

# mangle HOW: the last V5 row gets one field too many, a free-text field
# over 1 MiB, or a bare quote in an unquoted field.
mangle() {
    python3 - "$CCADB_D/records5" "$1" <<'PY'
import sys
path, how = sys.argv[1], sys.argv[2]
rows = open(path, 'rb').read().split(b'\r\n')
last = rows[-2]
if how == 'extra':
    last += b',"one too many"'
elif how == 'long':
    last = last.replace(b'"Testland"', b'"' + b'x' * (1100 * 1024) + b'"')
elif how == 'quote':
    last = last.replace(b'"Testland"', b'Test "land"')
rows[-2] = last
open(path, 'wb').write(b'\r\n'.join(rows))
PY
}
ccadb_row "$R" type=root fullraw='[""]'
ccadb_row "$PKI/multi/cert.pem" parent="$R" full="$B/full1.crl,$B/full2.crl"
ccadb_row "$PKI/junk/cert.pem" parent="$R" \
    fullraw="[\" $B/j1.crl$ZW\", \"\"]" partsraw="[$B/j2.crl,$TAB $BOM$B/j3.crl$CRLF]"
mangle quote
ccadb_row "$PKI/none/cert.pem" parent="$R" fullraw='[""]'
ccadb_row "$PKI/brk/cert.pem" parent="$R" \
    partsraw="[\"$B/b$CRLF.crl\", \"$B/e${ESC}]2;x$BEL.crl\", \"$B/b.crl\"]"
ccadb_row "$PKI/cross/cert.pem" parent="$R" fullraw='[""]'
ccadb_row "$PKI/cross_b/cert.pem" parent="$PKI/other/cert.pem" full="$B/c.crl"
ccadb_row "$PKI/spare1/cert.pem" parent="$R"
mangle extra
ccadb_row "$PKI/spare2/cert.pem" parent="$R"
mangle long
ccadb_write "$W/ccadb" $((YEAR - 1))
for f in "$W"/ccadb/*.csv; do serve "$f" "ccadb/$(basename "$f")"; done
V5="ccadb_records = $B/ccadb/records-v5.csv"
V4="ccadb_records_fallback = $B/ccadb/records.csv"
PEMS="ccadb_pems = $B/ccadb/pems-decade-{decade}.csv"
SINCE="ccadb_since = $((YEAR - 1))"
dir_conf() { write_conf "anchor = $R" "allow_private_urls = yes" "enroll = all" "$@"; }
dir_conf "$V5" "$V4" "$PEMS" "$SINCE"
srv_start m2 m2

# 1. V5: both full CRLs, trimmed URLs, the union over the cross-sign
assert_exit 0 cc update
assert_grep 'directory: [23] reports \(0 not modified\), 9 rows, 4 entries' "$W/last.err"
assert_grep '1 rows skipped \(width\); 1 rows skipped \(too long\); 1 rows with a bare quote, read as text' "$W/last.err"
[ "$(requests_for "/ccadb/pems-$YEAR.csv")" = 0 ] || fail "PEMs fetched by year, not by decade"
[ "$(requests_for /ccadb/records.csv)" = 0 ] || fail "the fallback was read though V5 was fine"
check_is good 0 "$PKI/m1.pem"
check_is revoked 1 "$PKI/m2.pem"
check_is revoked 1 "$PKI/j1.pem"
check_is revoked 1 "$PKI/j3.pem"
[ "$(requests_for /j2.crl)" -ge 1 ] || fail "the first element of a non-JSON array was not fetched"
check_is revoked 1 "$PKI/b1.pem"
check_is revoked 1 "$PKI/c1.pem"
cl_curl "$(srv_port m2)" 1.3
[ "$CLIENT_RC" != 0 ] || fail "curl accepts a server revoked in the CA's second full CRL"
client_words curl
assert_exit 0 cc status
assert_grep '^directory built=[0-9T:Z-]+ entries=4 rows=9 in_use=yes rows_width=1 rows_long=1 rows_quote=1 refused_no_url=2 refused_no_chain=1$' "$W/last.out"
cat "$W/last.out" "$W/last.err" "$STATE/work/directory" >"$W/all.out"
grep -q "$ESC" "$W/all.out" && fail "an escape from a report reached the output or the directory"
assert_not_grep '/e.*\.crl|/b\\r' "$W/last.out"
case_ok "V5: every full CRL, URLs trimmed one by one, cross-sign union, lenient rows"

# 2. V4 alone (dates YYYY.MM.DD): the line break in a partition URL costs
#    that URL only; the directory stays readable
dir_conf "ccadb_records = $B/ccadb/records.csv" "$PEMS" "$SINCE"
assert_exit 0 cc update --refresh-directory
assert_grep 'directory: [23] reports .*, 9 rows, 4 entries' "$W/last.err"
assert_not_grep 'malformed directory' "$W/last.err"
check_is revoked 1 "$PKI/b1.pem"
assert_exit 0 cc status
assert_grep '^directory built=.* entries=4 rows=9 in_use=yes' "$W/last.out"
case_ok "V4: a URL with a line break costs that URL, not the directory"

# 3. V5 answers empty, then refused: the V4 fallback is read
dir_conf "$V5" "$V4" "$PEMS" "$SINCE"
: >"$W/empty.csv"
serve "$W/empty.csv" ccadb/records-v5.csv
assert_exit 0 cc update --refresh-directory
assert_grep 'records-v5.csv: refused: empty report; reading the fallback reports' "$W/last.err"
assert_grep 'directory: .* 4 entries' "$W/last.err"
inject ccadb/records-v5.csv 500
assert_exit 0 cc update --refresh-directory
assert_grep 'reading the fallback reports' "$W/last.err"
assert_exit 0 cc status
assert_grep '^directory built=.* entries=4 .*in_use=yes' "$W/last.out"
assert_not_grep 'error=' "$W/last.out"
inject ccadb/records-v5.csv ""
case_ok "V5 empty or refused: V4 read instead"

# 4. a mostly broken report (no fallback) is refused whole; the previous
#    directory stays
{ head -n 1 "$W/ccadb/records-v5.csv"; for i in 1 2 3; do printf 'a,b,c\r\n'; done
  sed -n 2p "$W/ccadb/records-v5.csv"; } >"$W/broken.csv"
serve "$W/broken.csv" ccadb/records-v5.csv
dir_conf "$V5" "$PEMS" "$SINCE"
assert_exit 3 cc update --refresh-directory
assert_grep 'records-v5.csv: refused: 3 of 4 rows malformed' "$W/last.err"
assert_grep 'keeping the directory of 4 entries' "$W/last.err"
check_is revoked 1 "$PKI/c1.pem"
assert_exit 3 cc status
cc status --prometheus "$W/prom" >/dev/null 2>&1
assert_grep '^crlcache_directory_failing 1$' "$W/prom"
assert_grep '^directory built=.* entries=4 .*in_use=yes.* error=' "$W/last.out"
case_ok "mostly broken report refused, previous directory kept"

# 5. an unreadable directory is not in use, and status says so
printf 'crlcache-directory 2\nbuilt 1\nentries 1\ncert 00\nend\n' >"$STATE/work/directory"
assert_exit 3 cc status           # the last refresh (4.) failed
assert_grep '^directory built=.* in_use=no why=".*line 4: malformed directory"' "$W/last.out"
case_ok "status: directory not in use"

# 6. rows in the V5 report's format and a PEM row of a real (expired) root
D=$TESTDIR/data/ccadb
dir_conf "ccadb_records = $D/records-v5.csv" "ccadb_pems = $D/pems-1998.csv"
assert_exit 0 cc update --refresh-directory
assert_grep 'directory: 2 reports \(0 not modified\), 3 rows, 0 entries; not kept: 1 expired, 2 no certificate' "$W/last.err"
case_ok "V5 rows read"
finish
