#!/usr/bin/env bash
# enroll = seen, fetcher side: hints (certificates left in $STATE/hints as
# the provider leaves them) are proven before anything is fetched, and the
# spool is hostile input.
#   - a hint whose issuer is known (untrusted file) enrols it: its CRL
#     (from the hint's CDP) is fetched and a revoked sibling is refused;
#   - an issuer found only through the hint's caIssuers URL is fetched,
#     proven and enrolled;
#   - a hint signed by an unknown key with the same issuer name, a hint
#     with bytes after its certificate, a symlink, a FIFO and a
#     directory: nothing fetched, the symlink's target untouched;
#   - a CDP on a loopback address without allow_private_urls: refused
#     before any connection;
#   - enroll = none only empties the spool; seen_expiry drops an issuer.
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
pki_root root "/CN=Hint Root/O=crlcache tests"
pki_ca intA root "/CN=Hint CA A/O=crlcache tests"
pki_ca intB root "/CN=Hint CA B/O=crlcache tests"
pki_leaf a1 intA "/CN=a1.test" cdp="$BASE_URL/intA.crl"
pki_leaf a2 intA "/CN=a2.test" cdp="$BASE_URL/intA.crl"
pki_leaf b1 intB "/CN=b1.test" cdp="$BASE_URL/intB.crl" aia="$BASE_URL/intB.der"
pki_leaf b2 intB "/CN=b2.test" cdp="$BASE_URL/intB.crl"
pki_revoke intA "$PKI/a2.pem"
pki_revoke intB "$PKI/b2.pem"
pki_gencrl intA "$W/intA.crl"
pki_gencrl intB "$W/intB.crl"
serve "$W/intA.crl" intA.crl
serve "$W/intB.crl" intB.crl
openssl x509 -in "$PKI/intB/cert.pem" -outform DER -out "$W/intB.der"
serve "$W/intB.der" intB.der

# An impostor: same issuer name as CA A, another key; its leaf's CDP is a
# URL nothing else names, so any request for it would show in the log.
pki_root evil "/CN=Hint CA A/O=crlcache tests"
pki_leaf x1 evil "/CN=x1.test" cdp="$BASE_URL/evil.crl"

base_conf=("anchor = $PKI/root/cert.pem" "allow_private_urls = yes")

# 1. issuer in the configuration: hint -> enrolled -> its CRL fetched
write_conf "${base_conf[@]}" "untrusted = $PKI/intA/cert.pem"
hint "$PKI/a1.pem" >/dev/null
assert_exit 0 cc -v update
assert_grep 'update: 1 sources, 1 updated' "$W/last.err"
[ -z "$(ls -A "$STATE/hints")" ] || fail "the spool was not emptied"
[ "$(stat -c %a "$STATE/hints")" = 3733 ] || fail "spool mode is not 3733"
check_is revoked 1 "$PKI/a2.pem"
check_is good 0 "$PKI/a1.pem"
grep -q '^issuer ' "$STATE/work/enrolled" || fail "no issuer in work/enrolled"
note "hint with a configured issuer: enrolled, CRL fetched, revoked refused"

# 2. issuer known only through the hint's caIssuers URL
hint "$PKI/b1.pem" >/dev/null
assert_exit 0 cc -v update
[ "$(requests_for '/intB.der')" -ge 1 ] || fail "caIssuers URL was not fetched"
check_is revoked 1 "$PKI/b2.pem"
note "hint with its issuer from caIssuers: proven, enrolled, CRL fetched"

# 3. hostile hints: nothing is fetched for any of them
: >"$W/victim"; echo precious >"$W/victim"
mkdir -p "$STATE/hints"
hint "$PKI/x1.pem" >/dev/null
sum=$(hint "$PKI/a1.pem"); printf 'garbage' >>"$STATE/hints/$sum.crt"
ln -s "$W/victim" "$STATE/hints/$(printf '%064d' 0).crt"
mkfifo "$STATE/hints/$(printf '%064d' 1).crt"
mkdir "$STATE/hints/subdir"
before=$(wc -l <"$HTTPD_LOG")
assert_exit 0 timeout 60 "$CRLCACHE" --state-dir "$STATE" -c "$CONF" -v update
assert_grep 'hint .*x1.test.*refused: its signature does not verify' "$W/last.err"
[ "$(requests_for '/evil.crl')" = 0 ] || fail "the impostor's CDP was fetched"
[ "$(cat "$W/victim")" = precious ] || fail "a symlinked hint was written through"
[ -z "$(ls -A "$STATE/hints")" ] || fail "hostile entries were left in the spool"
tail -n +"$((before + 1))" "$HTTPD_LOG" | grep -v -e '/intA.crl' -e '/intB.crl' \
    >"$W/other.log" && { cat "$W/other.log"; fail "unexpected requests"; }
note "impostor key, bad content, symlink, FIFO, directory: refused, nothing fetched"

# 4. a learned URL on a loopback address without allow_private_urls
rm -rf "$STATE"
write_conf "anchor = $PKI/root/cert.pem" "untrusted = $PKI/intA/cert.pem"
hint "$PKI/a1.pem" >/dev/null
before=$(requests_for '/intA.crl')
# The URL's failure, not the run's (t_hint_dead_urls).
assert_exit 0 cc update
assert_grep 'intA.crl: refused: a learned URL may reach only public addresses.* \(a proposed URL: its failure 1 in a row' "$W/last.err"
[ "$(requests_for '/intA.crl')" = "$before" ] || fail "a private address was contacted"
note "learned URL on 127.0.0.1 refused without allow_private_urls"

# 5. enroll = none empties the spool and enrols nothing
rm -rf "$STATE"
write_conf "${base_conf[@]}" "untrusted = $PKI/intA/cert.pem" "enroll = none"
hint "$PKI/a1.pem" >/dev/null
assert_exit 0 cc update
[ -z "$(ls -A "$STATE/hints")" ] || fail "enroll = none left the hint"
grep -q '^issuer ' "$STATE/work/enrolled" && fail "enroll = none enrolled an issuer"
note "enroll = none: spool emptied, nothing enrolled"

# 6. seen_expiry: an issuer not met again is dropped
rm -rf "$STATE"
write_conf "${base_conf[@]}" "untrusted = $PKI/intA/cert.pem" "seen_expiry = 3600"
hint "$PKI/a1.pem" >/dev/null
assert_exit 0 cc update
old=$(( $(now_epoch) - 7200 ))
sed -i -E "s/^(issuer [0-9a-f]+ [0-9]+) [0-9]+ /\\1 $old /" "$STATE/work/enrolled"
assert_exit 0 cc -v update
assert_grep 'enroll: .*Hint CA A.* dropped' "$W/last.err"
grep -q '^issuer ' "$STATE/work/enrolled" && fail "the expired issuer stayed enrolled"
note "seen_expiry drops an issuer not met again"

# 7. status: the issuers met, covered or not and why; counts for machines
rm -rf "$STATE"
write_conf "anchor = $PKI/root/cert.pem" "untrusted = $PKI/intA/cert.pem" \
    "untrusted = $PKI/intB/cert.pem" "url = $BASE_URL/intA.crl"
hint "$PKI/a1.pem" >/dev/null
hint "$PKI/b1.pem" >/dev/null
assert_exit 0 cc update             # b1's CDP: 127.0.0.1, not allowed: its failure
mkdir -p "$STATE/hints"; printf x >"$STATE/hints/pending-1"
assert_exit 0 cc status             # ...not the state's: retrying
assert_grep '^source .*/intB.crl retrying failures=1 last_success=never error=refused' "$W/last.out"
assert_grep '^issuer /CN=Hint CA A/O=crlcache tests met=.* fresh crls=1$' "$W/last.out"
assert_grep '^issuer /CN=Hint CA B/O=crlcache tests met=.* unfetched crls=0 why=.*/intB.crl: refused: a learned URL may reach only public addresses' "$W/last.out"
assert_grep '^coverage met=2 covered=1 uncovered=1 hints_pending=1 hints_refused=0$' "$W/last.out"
assert_exit 0 cc status --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["coverage"]; assert (c["met"],c["covered"],c["uncovered"],c["hints_pending"])==(2,1,1,1), c; assert {i["state"] for i in d["issuers_met"]}=={"fresh","unfetched"}' "$W/last.out" \
    || fail "status --json coverage is wrong"
assert_exit 0 cc status --prometheus "$W/prom"
assert_grep '^crlcache_issuers_uncovered 1$' "$W/prom"
assert_grep '^crlcache_hints_pending 1$' "$W/prom"
note "status: issuers met, fresh / unfetched with the reason, counts"
