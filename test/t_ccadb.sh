#!/usr/bin/env bash
# ccadb = FILE or URL: CRL URLs from a CCADB-style CSV export ("Full CRL
# Issued By This CA", "JSON Array of Partitioned CRLs"), RFC 4180 quoting,
# CRLF lines, a byte order mark, fields spanning lines; non-http URLs
# ignored; a malformed export is refused with its line and counts as a
# failed source while the other sources still update.  The URLs of an
# export downloaded over http(s) came from the network: they are learned
# URLs, which may not reach loopback unless allow_private_urls = yes, and
# one holding a terminal escape or a line break is never a source, and
# never reaches status or the log raw.
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
pki_root root "/CN=CCADB Root/O=crlcache tests"
pki_ca int root "/CN=CCADB Partitioned CA/O=crlcache tests"
pki_ca int2 root "/CN=CCADB Full CA/O=crlcache tests"
pki_leaf a int "/CN=a.test" cdp="$BASE_URL/p1.crl"
pki_leaf b int "/CN=b.test" cdp="$BASE_URL/p2.crl"
pki_leaf c int2 "/CN=c.test" cdp="$BASE_URL/int2.crl"
pki_leaf d int2 "/CN=d.test" cdp="$BASE_URL/int2.crl"
pki_revoke int "$PKI/b.pem"
pki_revoke int2 "$PKI/c.pem"
pki_gencrl int "$W/p1.crl" idp="$BASE_URL/p1.crl" number=10
pki_gencrl int "$W/p2.crl" idp="$BASE_URL/p2.crl" number=10
pki_gencrl int2 "$W/int2.crl"
for f in p1 p2 int2; do serve "$W/$f.crl" "$f.crl"; done
cat "$PKI/int/cert.pem" "$PKI/int2/cert.pem" >"$W/cas.pem"

# A BOM, CRLF line ends, a quoted field with a comma and a line break, the
# JSON array with CSV-doubled quotes, an ftp URL and an empty row value.
{
    printf '\xef\xbb\xbf'
    printf 'CA Owner,Certificate Name,"Notes, free text",Full CRL Issued By This CA,JSON Array of Partitioned CRLs\r\n'
    printf 'Test,"CCADB Partitioned CA","line one\r\nline two",,"[""%s/p1.crl"", ""%s/p2.crl""]"\r\n' "$BASE_URL" "$BASE_URL"
    printf 'Test,CCADB Full CA,,%s/int2.crl,[]\r\n' "$BASE_URL"
    printf 'Other,Elsewhere,,ftp://example.invalid/x.crl,"[""ldap://example.invalid/y""]"\r\n'
} >"$W/ccadb.csv"
serve "$W/ccadb.csv" ccadb.csv

# Downloaded: its URLs are learned, and 127.0.0.1 is no public address.
write_conf "ccadb = $BASE_URL/ccadb.csv" "anchor = $PKI/root/cert.pem" "untrusted = $W/cas.pem"
assert_exit 1 cc update
assert_grep 'update: 3 sources, 0 updated, 0 unchanged, 3 failed' "$W/last.err"
assert_grep 'p1.crl: refused: a learned URL may reach only public addresses' "$W/last.err"
assert_not_grep 'GET /p1.crl' "$HTTPD_LOG"
check_is unknown 2 "$PKI/b.pem"
case_ok "URLs of a downloaded export are learned: loopback refused"

private=()
for src in "$W/ccadb.csv" "$BASE_URL/ccadb.csv"; do
    rm -rf "$STATE"
    write_conf "ccadb = $src" "anchor = $PKI/root/cert.pem" "untrusted = $W/cas.pem" "${private[@]}"
    private=("allow_private_urls = yes")
    cc -v update >"$W/u.out" 2>&1 || { cat "$W/u.out"; fail "update with ccadb = $src failed"; }
    grep -q 'update: 3 sources, 3 updated' "$W/u.out" || { cat "$W/u.out"; fail "expected the 3 CRL URLs of the export ($src)"; }
    check_is good 0 "$PKI/a.pem"
    check_is revoked 1 "$PKI/b.pem"
    check_is revoked 1 "$PKI/c.pem"
    check_is good 0 "$PKI/d.pem"
    note "ccadb = $src: 3 CRLs, partitions and full"
done

# A URL holding a terminal escape, one holding CR LF, beside a good one,
# in an export from the network: only the good one is a source, and
# nothing raw reaches the log or status.
ESC=$'\033'
{
    printf 'Full CRL Issued By This CA,JSON Array of Partitioned CRLs\r\n'
    printf '%s/x%s]2;pwned%s.crl,"[""%s/y\r\n.crl"", ""%s/int2.crl""]"\r\n' \
        "$BASE_URL" "$ESC" $'\a' "$BASE_URL" "$BASE_URL"
} >"$W/esc.csv"
serve "$W/esc.csv" esc.csv
rm -rf "$STATE"
write_conf "ccadb = $BASE_URL/esc.csv" "allow_private_urls = yes" "anchor = $PKI/root/cert.pem" "untrusted = $W/cas.pem"
assert_exit 0 cc -v update
assert_grep 'update: 1 sources, 1 updated' "$W/last.err"
assert_exit 0 cc status
cat "$W/last.out" "$W/last.err" >"$W/esc.all"
grep -q "$ESC" "$W/esc.all" && fail "an escape sequence from the network reached the output"
assert_not_grep '/x|/y' "$W/last.out"
case_ok "URLs with an escape or a line break are no sources"

# malformed: an unterminated quote on line 3; the url = source still updates
printf 'Full CRL Issued By This CA,JSON Array of Partitioned CRLs\n%s/int2.crl,[]\n"broken,[]\n' "$BASE_URL" >"$W/bad.csv"
pki_revoke int2 "$PKI/d.pem"
pki_gencrl int2 "$W/int2.crl"
serve "$W/int2.crl" int2.crl
write_conf "ccadb = $W/bad.csv" "url = $BASE_URL/int2.crl" "anchor = $PKI/root/cert.pem" "untrusted = $W/cas.pem"
assert_exit 1 cc update
assert_grep "bad.csv: line 3: malformed CSV" "$W/last.err"
check_is revoked 1 "$PKI/d.pem"
# no URL columns at all
printf 'a,b\n1,2\n' >"$W/nocols.csv"
write_conf "ccadb = $W/nocols.csv" "anchor = $PKI/root/cert.pem"
assert_exit 1 cc update
assert_grep 'no CRL URL column' "$W/last.err"
note "ccadb ok"
